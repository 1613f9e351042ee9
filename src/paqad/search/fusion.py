"""Reciprocal rank fusion (DESIGN §8.4): several rankings of chunk ids become one score per id,
and :func:`weighted_fusion`, the ranking's first step over one query's pools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

from paqad.config import RRF_K
from paqad.search.analysis import SYMBOL

if TYPE_CHECKING:
    from paqad.search.options import RankingOptions
    from paqad.search.ranking import Pools


def reciprocal_rank_fusion(
    rankings: Iterable[Sequence[int]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> dict[int, float]:
    """RRF score per id: sum over rankings of ``weight / (k + rank)`` with 1-based ranks.

    ``weights`` (one per ranking, default all 1.0) let the rankers count differently, e.g. BM25
    more than embeddings for a symbol query. k = 60 from Cormack, Clarke & Buettcher (SIGIR 2009).
    """
    scores: dict[int, float] = {}
    for index, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[index]
        if weight <= 0:
            continue
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores


def weighted_fusion(pools: Pools, options: RankingOptions) -> dict[int, float]:
    """Fused score per chunk id of the pools in force: dense and BM25 (weights by query kind:
    ``symbol_*_weight`` for a query that is one identifier), the symbol table's definitions
    (``symbol_weight``, x ``long_symbol_share`` in a long prompt: most names of a pasted error or
    trace are the symptom, not the place asked for) and the chunks of files the query names
    (``named_file_weight``)."""
    symbol_query = pools.info.kind == SYMBOL and options.kind_weights
    rankings: list[tuple[list[int], float]] = []
    if options.dense:
        rankings.append((pools.dense, options.symbol_dense_weight if symbol_query else options.dense_weight))
    if options.lexical:
        rankings.append((pools.lexical, options.symbol_lexical_weight if symbol_query else options.lexical_weight))
    if options.symbols and pools.definitions:
        weight = options.symbol_weight * (options.long_symbol_share if pools.info.long else 1.0)
        rankings.append((list(dict.fromkeys(m.chunk_id for m in pools.definitions)), weight))
    if options.named_files and pools.named:
        rankings.append((list(pools.named), options.named_file_weight))
    return reciprocal_rank_fusion([r for r, _ in rankings], k=options.rrf_k, weights=[w for _, w in rankings])
