"""Passage choice: a file's best chunk should be the code that answers, not its doc comment, its
imports or a tail piece (issue 19, "the passage that answers").

Runs last (after saturation), so it never changes which files rank where: when a file's
best-scored chunk is a *thin passage* (fewer than :data:`MIN_CODE_LINES` lines of code, code
under :data:`MIN_CODE_SHARE` of its non-blank lines, or fewer than :data:`MIN_BEHAVIOUR_LINES`
lines that call, branch or return: a doc comment, a license or import header, a closing tail, a
lone ``private``, a list of field declarations), it trades scores with the file's best-scored
candidate that is not thin and holds enough of the query's words (:mod:`~.trade_evidence`), so the file is delivered by that chunk at the same place. Chunks that define an
identifier the query names (or, in a name lookup of :data:`MAX_LOOKUP_WORDS` words, the definition
line of a symbol it names as a plain word) are never traded away, except (``named_type_trades``,
round 8) a type's thin head (:data:`TYPE_CHUNKS`) in a longer prose question (a symbol lookup must land on its definition line, DESIGN §6), and only programming languages are judged (:func:`judged_languages`: a
Markdown section, a YAML block or a protobuf message is its own answer).

Lines are classified by their first characters only, per line (no parser: this runs per query
over at most a few hundred candidates).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from paqad.index.tokens import query_terms
from paqad.search.signals import inline_tests
from paqad.search.analysis import SYMBOL
from paqad.search.signals.docstring_passages import piece_test
from paqad.search.signals.trade_evidence import may_trade

if TYPE_CHECKING:
    from paqad import store as store_mod
    from paqad.search.signals.context import RankingContext

# Tuned on the ranking benchmark's dev half only (bench/README.md, "Delivered passages (issue 19)"):
# 2-6 lines and shares 0.2-0.5 moved passage@1 by at most 2 of 137 cases; a lower minimum for
# chunks holding a definition line (3) lost one; at least 2 behaviour lines (a call, a branch, a
# return: not only field declarations, a type union or an import list) gained 3 (1-4: 0-3).
MIN_CODE_LINES = 5
MIN_CODE_SHARE = 0.3
MIN_BEHAVIOUR_LINES = 2
# A query of at most this many words is a name lookup ("trait Sink", "class Pool"): the definition
# of a symbol it names stays, thin or not. A longer question naming a type ("how do BytesMut and
# Bytes share ...") asks for behaviour, and its type's doc-comment chunk is traded as usual. 6, not
# 3: "prorate a partial month" names the 4-line function that answers it (the benchmark's dev and
# test figures are the same at 3 and 6).
MAX_LOOKUP_WORDS = 6
# Chunk kinds of a type's definition (its doc comment, fields, the head of its impl): a question
# that names the type asks what it does, which its methods hold (passage_order; and here, with
# ``named_type_trades``, a thin one is traded in a question that is not a name lookup).
TYPE_CHUNKS = frozenset({"class", "impl"})
# Declarative sources, not judged: their declarations are the answer.
DECLARATIVE_LANGUAGES = frozenset({"hcl", "proto"})
# A comment line in the languages we chunk: //, /* */ and its * continuation lines, -- (Lua,
# SQL, Haskell), # followed by a space, another #, ! or the line's end (Python, Ruby, shell, YAML;
# not C's #include/#define, Rust's #[attr] or C#'s #region).
_COMMENT = re.compile(r"(//|/\*|\*|--|#(?=[\s#!]|$))")
# An import, a package line or an include: the head of a file, not what it does.
_IMPORT = re.compile(r"(use\s|import\s|from\s+\S+\s+import\s|require(_relative)?[\s(]|#include|package\s|using\s"
                     r"|extern crate\s|mod\s+\w+;|library\s|include\s)")
# Lines that carry no behaviour: brackets, `end`, access labels, a bare `else`/`try`.
_NOISE = re.compile(r"([{}()\[\];,]*|end|else|try|private|protected|public|internal|@\w+|\w+:)\s*[{}()\[\];,]*$")
_DOCSTRING = ('"""', "'''")
WORD = re.compile(r"\w+")
# A line that does something: a call or a header with parentheses, or a control keyword.
_BEHAVIOUR = re.compile(r"\(|\b(if|for|while|return|switch|case|match|yield|raise|throw|do|then|unless|elsif|foreach|"
                        r"loop|goto|defer|await)\b")


def code_lines(text: str, language: str) -> tuple[int, int]:
    """``(lines of code, non-blank lines)`` of a chunk's ``text``: comments (and Python
    docstrings), imports and lines of brackets or labels are not code."""
    code = nonblank = 0
    in_docstring = False
    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            continue
        nonblank += 1
        if in_docstring:  # Python: until the closing quotes
            in_docstring = not any(q in line for q in _DOCSTRING)
            continue
        if language == "python" and line.startswith(_DOCSTRING):
            in_docstring = not (len(line) >= 6 and line.endswith(line[:3]))  # not closed on this line
            continue
        if _COMMENT.match(line) or _IMPORT.match(line) or _NOISE.fullmatch(line):
            continue
        code += 1
    return code, nonblank


@lru_cache(maxsize=1)
def judged_languages() -> frozenset[str]:
    """Languages whose chunks are judged: programming languages (not prose, data such as YAML or
    JSON, nor :data:`DECLARATIVE_LANGUAGES`). Imported on first use: the hook's keyword path does
    not load the language table otherwise."""
    from paqad.index.languages import SOURCE_LANGUAGES

    return frozenset(SOURCE_LANGUAGES) - DECLARATIVE_LANGUAGES


def behaviour_lines(text: str) -> int:
    """Lines of ``text`` that call, branch, loop or return: what a declaration list (fields, a type
    union, an import list) lacks."""
    return sum(1 for line in text.split("\n") if _BEHAVIOUR.search(line) and not _COMMENT.match(line.strip()))


def is_thin(row: store_mod.ChunkRow) -> bool:
    """True when ``row`` holds too little code to answer a question (see the module's rule)."""
    if row.language not in judged_languages():
        return False
    return _thin_text(row.text, row.language)


@lru_cache(maxsize=4096)
def _thin_text(text: str, language: str) -> bool:
    # Cached by text: this signal and the result's evidence (search/assembly.py) judge the same
    # chunks of one query, and the warm process sees the same chunks again across prompts.
    code, nonblank = code_lines(text, language)
    if code < MIN_CODE_LINES or code < MIN_CODE_SHARE * nonblank:
        return True
    return MIN_BEHAVIOUR_LINES > 0 and behaviour_lines(text) < MIN_BEHAVIOUR_LINES


def defines_named(row: store_mod.ChunkRow, words: set[str]) -> bool:
    """True when ``row`` holds the definition line of a symbol named in ``words`` ("trait Sink":
    ``Sink``; the definitions signal sees only identifier-shaped names)."""
    return row.defines and bool(row.symbol) and row.symbol.rsplit(".", 1)[-1].lower() in words


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores where each file's thin best chunk has traded places with the file's best chunk that
    is not thin and holds enough of the query's words (:func:`~.trade_evidence.may_trade`; when
    the file has one among the candidates)."""
    by_file = context.files_best_first(scores)
    defines = context.definition_shares if context.options.symbols else {}
    words = WORD.findall(context.info.text)
    named = {w.lower() for w in words} if len(words) <= MAX_LOOKUP_WORDS else set()
    share = context.options.passage_trade_coverage
    terms = query_terms(context.info.lexical_text) if share > 0 else []
    # round 8: a Rust file's inline test module is not the passage that answers (signals.inline_tests)
    tests = inline_tests.inline_test_ids(context, scores) if inline_tests.in_force(context) else set()

    # issue 19, round 8: a prose question naming a type ("how does DefaultParser walk through the
    # tokens") asks what it does: the type's thin head (doc comment, class line, fields) may go
    types = context.options.named_type_trades and len(words) > MAX_LOOKUP_WORDS and context.info.kind != SYMBOL
    # issue 19, round 8: the middle of a Python docstring is no answer either (signals.docstring_passages)
    piece = piece_test(context) if context.options.docstring_passages else None

    def thin(cid: int) -> bool:
        return is_thin(context.rows[cid]) or (piece is not None and piece(cid))

    out = dict(scores)
    for ids in by_file.values():
        best = ids[0]
        kept = defines.get(best, 0.0) > 0 and not (types and context.rows[best].kind in TYPE_CHUNKS)
        if len(ids) == 1 or kept or defines_named(context.rows[best], named) or not thin(best):
            continue
        thin_text = context.rows[best].text
        other = next((cid for cid in ids[1:] if cid not in tests and not thin(cid)
                      and may_trade(thin_text, context.rows[cid].text, terms, share)), None)
        if other is not None:
            out[best], out[other] = scores[other], scores[best]
    return out
