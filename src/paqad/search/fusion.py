"""Both rankers over the whole index, fused with reciprocal rank fusion (DESIGN §8.1-8.4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from paqad import store as store_mod
from paqad.config import RRF_K
from paqad.embed.base import Embedder
from paqad.search.dense import cosines_of, start_dense
from paqad.search.lexical import lexical_ranking
from paqad.search.results import SearchResult
from paqad.search.signals import DEFAULT_SIGNALS, apply_signals

POOL_SIZE = 100  # candidates taken from each ranker before fusion


@dataclass(frozen=True)
class RankedLists:
    """The two rankings before fusion (chunk ids, best first) and every candidate's cosine."""

    dense: list[int]
    lexical: list[int]
    cosine: dict[int, float]


def reciprocal_rank_fusion(rankings: Iterable[list[int]], k: int = RRF_K) -> dict[int, float]:
    """RRF score per id: sum over rankings of ``1 / (k + rank)`` with 1-based ranks.

    k = 60 from Cormack, Clarke & Buettcher (SIGIR 2009).
    """
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores


def rank_candidates(
    store: store_mod.IndexStore,
    embedder: Embedder | None,
    query: str,
    *,
    pool: int = POOL_SIZE,
    path_prefix: str | None = None,
    query_vector: np.ndarray | None = None,
) -> RankedLists:
    """Dense and lexical rankings of the whole index (optionally under ``path_prefix``).

    The prefix filter is applied before the top-``pool`` cut of each ranker, never after.
    ``embedder`` None (model unavailable) gives an empty dense ranking and no cosines. The dense
    side (query embedding and matrix product) overlaps the BM25 query in a second thread.
    """
    allowed = store.prefix_ids(path_prefix.strip("/")) if path_prefix else None
    dense: list[int] = []
    cosine: dict[int, float] = {}
    ids = np.empty(0, dtype=np.int64)
    dense_job = None
    if embedder is not None:
        ids, mat = store.vector_matrix(embedder.fingerprint, embedder.dimension)
        if allowed is not None:
            keep = np.isin(ids, allowed)
            ids, mat = ids[keep], np.asarray(mat[keep])
        if len(ids):
            embed = (lambda: query_vector) if query_vector is not None else (lambda: embedder.embed_query(query))
            dense_job = start_dense(ids, mat, embed, pool)
    lexical: list[int] = []
    try:
        lexical = lexical_ranking(store, query, pool, None if allowed is None else allowed.tolist())
    finally:
        if dense_job is not None:
            dense, sims = dense_job.result()
    if dense_job is not None:
        cosine = cosines_of(ids, sims, set(dense) | set(lexical))
    return RankedLists(dense, lexical, cosine)


def fuse(
    store: store_mod.IndexStore,
    ranked: RankedLists,
    query: str,
    *,
    top_n: int,
    signals: frozenset[str] = DEFAULT_SIGNALS,
    rankers: tuple[str, ...] = ("dense", "lexical"),
) -> list[SearchResult]:
    """Fuse the rankings with RRF, apply ``signals``, cut to ``top_n`` and load the chunks.

    A chunk whose text equals a better-ranked one (generated twins, bundled copies) is dropped.
    """
    lists = []
    if "dense" in rankers:
        lists.append(ranked.dense)
    if "lexical" in rankers:
        lists.append(ranked.lexical)
    scores = reciprocal_rank_fusion(lists)
    if not scores:
        return []
    rows = store.chunks_by_id(list(scores))
    order = apply_signals(scores, rows, query, signals)
    dense_rank = {cid: i for i, cid in enumerate(ranked.dense, start=1)}
    lexical_rank = {cid: i for i, cid in enumerate(ranked.lexical, start=1)}
    results = []
    seen_texts: set[str] = set()
    for cid in order:
        if len(results) == top_n:
            break
        row = rows[cid]
        if row.text in seen_texts:
            continue  # the same code again (a .d.ts twin, a bundled copy): show it once, best-ranked
        seen_texts.add(row.text)
        rank = len(results) + 1
        results.append(
            SearchResult(
                path=row.path, start_line=row.start_line, end_line=row.end_line, symbol=row.symbol,
                language=row.language, text=row.text, score=float(ranked.cosine.get(cid, 0.0)),
                fused_rank=rank, dense_rank=dense_rank.get(cid), lexical_rank=lexical_rank.get(cid), chunk_id=cid,
            )
        )
    return results
