"""The lexical ranker: BM25 over the whole index (FTS5), with code-aware query terms (DESIGN §8.2)."""

from __future__ import annotations

import re
from typing import Sequence

from paqad import store as store_mod
from paqad.index.tokens import NAME, identifier_parts, query_terms
from paqad.store import fts_match_expression

COMMON_TERM_FRACTION = 0.1  # a query term in more chunks than this is left out of BM25 ...
PRUNE_FROM_CHUNKS = 5000  # ... once the index is this large


def keyword_expression(store: store_mod.IndexStore, terms: list[str]) -> str | None:
    """The FTS5 MATCH expression for the query terms, leaving out terms that are too common.

    A term found in more than ``COMMON_TERM_FRACTION`` of all chunks adds little to BM25 (its
    IDF is near its floor) but makes FTS5 score a large part of the index: "requests" in 26%
    of a 45k-chunk index tripled the BM25 time. The selective terms are ORed; when every term
    is common, the two rarest are ANDed (few chunks hold both), else the rarest one is used.
    Small indexes (under ``PRUNE_FROM_CHUNKS``) are fast anyway and keep every term.
    """
    chunks = store.chunk_count()
    if len(terms) < 2 or chunks < PRUNE_FROM_CHUNKS:
        return fts_match_expression(terms)
    frequencies = store.document_frequencies(terms)
    present = sorted((t for t in terms if frequencies[t] > 0), key=lambda t: frequencies[t])
    limit = COMMON_TERM_FRACTION * chunks
    selective = [t for t in present if frequencies[t] <= limit]
    if selective:
        return fts_match_expression(selective)
    if len(present) >= 2:
        return fts_match_expression(present[:2], operator="AND")
    return fts_match_expression(present)


def lexical_hits(store: store_mod.IndexStore, query: str, pool: int,
                 allowed: Sequence[int] | None = None) -> list[tuple[int, float]]:
    """``(chunk id, BM25 score)`` for ``query``, best first, at most ``pool``; only ``allowed`` ids
    when given. Scores are FTS5's negated ``bm25()``: higher is better, comparable within a query."""
    expression = keyword_expression(store, query_terms(query))
    if not expression:
        return []
    return store.bm25(expression, pool, None if allowed is None else list(allowed))[:pool]


def lone_identifier_hits(store: store_mod.IndexStore, query: str, pool: int,
                         allowed: Sequence[int] | None = None) -> list[tuple[int, float]]:
    """``(chunk id, BM25 score)`` for a query that is one identifier spelled like a question word
    (``METHODS``, ``Function``, ``All``: a capital or an ``_`` in it), best first, at most ``pool``;
    ``[]`` for any other query (a lone ``what`` or ``files`` is a question word).

    :func:`~paqad.index.tokens.query_terms` drops a free-standing stopword, so such a symbol query
    has no BM25 side at all and the chunk defining the name (Ruby's ``METHODS = Set.new ...``, a
    ``class Function(Field)``) is a candidate only if the dense pool finds it (issue 24, round 8;
    ``RankingOptions.lone_identifiers`` uses these hits as the lexical pool).
    """
    word = query.strip()
    # spelled like code (a capital or an underscore): a lone lower-case "what" or "files" is prose
    if query_terms(word) or not re.fullmatch(NAME, word) or not ("_" in word or any(ch.isupper() for ch in word)):
        return []
    expression = fts_match_expression(identifier_parts(word))
    if not expression:
        return []
    return store.bm25(expression, pool, None if allowed is None else list(allowed))[:pool]


def lexical_ranking(store: store_mod.IndexStore, query: str, pool: int, allowed: Sequence[int] | None = None) -> list[int]:
    """Chunk ids by BM25 for ``query``, best first, at most ``pool``; only ``allowed`` ids when given."""
    return [cid for cid, _ in lexical_hits(store, query, pool, allowed)]
