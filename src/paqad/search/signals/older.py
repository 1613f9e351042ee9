"""The first release's ranking signals (DESIGN §8.4), kept measurable; only ``code`` is on by default.

Each is a multiplier on the fused score; a chunk's factors are multiplied together before they
are applied (one multiplication per chunk, as the first release did):

- ``name``: a query term names the chunk's symbol or file (``Session.request``, ``retry.py``);
- ``definition``: the chunk defines a symbol (function/class/method) rather than mentioning it;
- ``code`` (code over prose): a code-like query (identifiers in ``camelCase``/``snake_case``,
  ``()``, ``.``) prefers code chunks over prose (Markdown, text);
- ``tests``: test files are discounted unless the query mentions tests;
- ``changelog``: changelogs are discounted unless the query asks about releases;
- ``diversity``: the 2nd, 3rd, ... chunk of a file discounted by :data:`DIVERSITY_DECAY`; this is
  the ``saturation`` signal with that factor (``RankingOptions.saturation``), not a factor here.

Measured on ``bench/quality.py`` and ``bench/ranking/run.py`` (config ``previous``): of these,
only ``code`` helps on top of the newer signals, so :data:`DEFAULT_SIGNALS` is ``{"code"}``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.index.tokens import NAME, STOPWORDS, case_shape
from paqad.search.priors import PROSE_LANGUAGES, is_test_path
from paqad.store import ChunkRow

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

ALL_SIGNALS = frozenset({"name", "definition", "code", "diversity", "tests", "changelog"})
DEFAULT_SIGNALS = frozenset({"code"})  # the product's default: RankingOptions.signals

DEFINITION_KINDS = frozenset({"function", "method", "class", "impl"})
NAME_BOOST = 1.5
DEFINITION_BOOST = 1.15
CODE_BOOST = 1.2
DIVERSITY_DECAY = 0.7
TEST_PENALTY = 0.8
CHANGELOG_PENALTY = 0.8
_CHANGELOG_PATH = re.compile(r"(^|/)(changelog|changes|history|news|release[-_ ]?notes)(\.[a-z]+)?$", re.IGNORECASE)
_CHANGELOG_QUERY = re.compile(r"\b(changelog|release|released|version|history|changes|news|deprecat)", re.IGNORECASE)
_TEST_QUERY = re.compile(r"\btest|\bspec\b|\bfixture", re.IGNORECASE)
_CODE_LIKE = re.compile(r"[a-z][A-Z]|[A-Za-z]_[A-Za-z]|\w\(|\w\.\w|::|->")  # matched on case_shape()
_IDENT = re.compile(rf"`?{NAME}(?:\.{NAME})*(?:\(\))?`?")


def is_code_like(query: str) -> bool:
    """True when the query contains identifier-shaped tokens or call/attribute syntax."""
    return bool(_CODE_LIKE.search(case_shape(query)))


def _looks_like_identifier(token: str) -> bool:
    """``snake_case``, ``camelCase``, ``dotted.name``, ``call()`` or anything in backticks."""
    return (token.startswith("`") or token.endswith("()") or "_" in token or "." in token
            or bool(re.search(r"[a-z][A-Z]", case_shape(token))))


def name_terms(query: str) -> set[str]:
    """Identifier-shaped query tokens, lowercased, used to match symbol and file names.

    Plain English words are left out: measured on bench/quality.py, matching every query word
    against names boosted ``views.py`` for "view" and ``app.py`` for "app" and cost MRR.
    """
    words = set()
    for token in _IDENT.findall(query):
        if not _looks_like_identifier(token):
            continue
        for piece in token.strip("`").removesuffix("()").split("."):
            if len(piece) > 2 and piece.lower() not in STOPWORDS:
                words.add(piece.lower())
                words.add(piece.replace("_", "").lower())
    return words


def _names_match(row: ChunkRow, terms: set[str]) -> bool:
    if row.symbol:
        for part in row.symbol.split("."):
            low = part.lower()
            if low in terms or low.replace("_", "") in terms:
                return True
    stem = row.path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
    return len(stem) > 2 and (stem in terms or stem.replace("_", "") in terms)


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores (chunk id -> score) times each chunk's factors of ``RankingOptions.signals``."""
    signals = context.options.signals - {"diversity"}
    if not signals:
        return scores
    query = context.info.text
    terms = name_terms(query) if "name" in signals else set()
    code_query = "code" in signals and is_code_like(query)
    penalise_tests = "tests" in signals and not _TEST_QUERY.search(query)
    penalise_changelogs = "changelog" in signals and not _CHANGELOG_QUERY.search(query)
    out = dict(scores)
    for cid, row in context.rows.items():
        factor = 1.0
        if terms and _names_match(row, terms):
            factor *= NAME_BOOST
        if "definition" in signals and row.kind in DEFINITION_KINDS and row.symbol:
            factor *= DEFINITION_BOOST
        if code_query and row.language not in PROSE_LANGUAGES:
            factor *= CODE_BOOST
        if penalise_tests and is_test_path(row.path):
            factor *= TEST_PENALTY
        if penalise_changelogs and _CHANGELOG_PATH.search(row.path):
            factor *= CHANGELOG_PENALTY
        out[cid] *= factor
    return out
