"""File stems: a prose question whose words say a file's whole name ("the middleware stack" ->
``middleware.rb``, "the emitter's state" -> ``emitterstate.cpp``, "file system operations" ->
``fs.c``) multiplies that file's chunks by ``1 + file_stem_boost`` (issue 24, failure class "a
file's name is the query's key word"; DESIGN §8.4).

``path_words`` rewards the share of the *query's* words that name a file or its folder, so in a
ten-word question the file called after its one key noun gains 10 %, less than what a file that
repeats the words gains from BM25. This signal asks the other way round: are all of the *file
name's* parts in the query? A stem is split into identifier parts (``CookieJar`` -> cookie, jar;
``buffer_util`` -> buffer, util); a lower-case compound (``emitterstate``, ``nodebuilder``) is
split into query words when it is their concatenation; a 2-4 letter stem may be the initials of
consecutive query words (``fs``: file system). A word matches a part when their light stems
(:func:`light_stem`: "hooks" ~ ``hook``, "logged" ~ ``logger``, "emitting" ~ ``emitter``) are
equal, or when a 3-4 letter part begins the word (``buf``: buffers, ``impl``: implemented).

Only for source files (a guide named after the topic is the prose prior's business). Not for symbol queries (the definitions signal names files there) nor for long prompts (a pasted
report names many files in passing). Stems too generic to name a topic (``index``, ``mod``,
``main``, ``utils``: :data:`GENERIC_STEMS`) never match.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from paqad.index.tokens import LETTER, STOPWORDS
from paqad.search.analysis import SYMBOL
from paqad.search.priors import PROSE_LANGUAGES, DATA_LANGUAGES, stem_parts

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# file names that say where code sits, not what it is about
GENERIC_STEMS = frozenset({"index", "mod", "main", "lib", "init", "__init__", "utils", "util", "helpers", "helper",
                           "common", "types", "type", "base", "core", "api", "internal", "misc", "defs", "impl",
                           "src", "app", "package", "module", "setup", "config", "constants", "version"})
MIN_COMPOUND = 6  # a lower-case stem this long may be a compound of query words
MAX_NAMED = 4  # more named candidate files than this: an enumeration of parts (3 and 2 lost on dev)
ABBREVIATION = range(2, 5)  # a stem this long may be the initials of consecutive query words


# inflections and agent nouns, longest first (a light stemmer: only what file names and questions
# differ by; "ies" and "y" both go: "dependencies" ~ "dependency")
_SUFFIXES = ("ations", "ation", "ators", "ator", "ating", "ated", "ates", "ate", "ments", "ment", "ings", "ing", "ions",
             "ion", "ers", "ies", "ied", "ors", "er", "ed", "es", "or", "s", "y")
MIN_STEM = 3


@lru_cache(maxsize=65536)
def light_stem(word: str) -> str:
    """``word`` without one inflection or agent suffix, a doubled final consonant or a final ``e``:
    logged, logger, logging -> log; encode, encoding -> encod; options -> option."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM:
            word = word[:-len(suffix)]
            break
    if len(word) > MIN_STEM and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    if len(word) > MIN_STEM and word.endswith("e"):
        word = word[:-1]
    return word


def matches(word: str, part: str) -> bool:
    """Whether a query word says a file-name part: the same light stem, or a 3-4 letter part that
    begins a longer word (an abbreviation: ``buf``, ``impl``)."""
    a, b = light_stem(word), light_stem(part)
    if a == b:
        return True
    common = len(os.path.commonprefix((a, b)))
    if common >= 5 and common >= min(len(a), len(b)) - 1:
        return True  # registering ~ registry (register / registr), analyse ~ analyze
    return len(part) in (3, 4) and len(word) >= len(part) + 2 and word.startswith(part)


def _covered(part: str, words: tuple[str, ...]) -> bool:
    """Whether ``part`` is one query word, or (a long lower-case part) a concatenation of them."""
    if any(matches(w, part) for w in words):
        return True
    if len(part) < MIN_COMPOUND:
        return False
    pieces = {p for w in words for p in (w, light_stem(w)) if len(p) >= MIN_STEM}
    reach = [False] * (len(part) + 1)  # reach[i]: part[:i] is a concatenation of query words
    reach[0] = True
    for i in range(len(part)):
        if reach[i]:
            for piece in pieces:
                if part.startswith(piece, i):
                    reach[i + len(piece)] = True
    return reach[len(part)]


_WORD = re.compile(rf"{LETTER}[^\W_]*")  # a word of any script
# question words (STOPWORDS without the nouns a project's files are about: "file", "code", ...)
_FUNCTION_WORDS = STOPWORDS - {"file", "files", "code", "function", "functions", "method", "methods"}


@lru_cache(maxsize=4096)
def initials(text: str) -> str:
    """The first letters of the question's words, question words left out: "where are the file
    system operations" -> ``fso`` (the stopword list drops "file", which an abbreviation needs)."""
    return "".join(w[0].lower() for w in _WORD.findall(text) if w.lower() not in _FUNCTION_WORDS)


def _initials(part: str, heads: str) -> bool:
    """``fs`` for "file system": the part is the initials of consecutive query words."""
    return len(part) in ABBREVIATION and part in heads


@lru_cache(maxsize=16384)
def stem_named(words: tuple[str, ...], path: str, heads: str = "") -> bool:
    """Whether the query's ``words`` (or, for a short part, the ``heads`` of its words:
    :func:`initials`) say every part of ``path``'s file-name stem."""
    parts = stem_parts(path)
    joined = "".join(parts)
    if not parts or joined in GENERIC_STEMS:
        return False
    if len(parts) > 1 and any(w == joined for w in words):
        return True  # an identifier in the question: "BytesMut" names bytes_mut.rs
    return all(_covered(p, words) or _initials(p, heads) for p in parts)


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores times ``1 + file_stem_boost`` for chunks of source files the question names by their
    whole stem. (Dividing the boost among several named files was measured and lost on dev.)"""
    info = context.info
    if info.kind == SYMBOL or info.long or not info.words:
        return scores
    heads = initials(info.text)
    named = {cid for cid, row in context.rows.items() if cid in scores
             and row.language not in PROSE_LANGUAGES | DATA_LANGUAGES and stem_named(info.words, row.path, heads)}
    if len({context.rows[cid].path for cid in named}) > MAX_NAMED:
        return scores  # "the adapters like take, chain, limit and reader": a list of parts, not the key noun
    out = dict(scores)
    factor = 1.0 + context.options.file_stem_boost
    for cid in named:
        out[cid] *= factor
    return out
