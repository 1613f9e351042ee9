"""Reciprocal rank fusion (DESIGN §8.4): several rankings of chunk ids become one score per id."""

from __future__ import annotations

from typing import Iterable, Sequence

from paqad.config import RRF_K


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
