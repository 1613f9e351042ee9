"""Both rankers over the whole index, fused with reciprocal rank fusion (DESIGN §8.1-8.4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from paqad import store as store_mod
from paqad.config import RRF_K
from paqad.embed.base import Embedder
from paqad.search.dense import finish_dense, start_query_vector
from paqad.search.lexical import lexical_ranking
from paqad.search.results import SearchResult
from paqad.search.signals import DEFAULT_SIGNALS, apply_signals

if TYPE_CHECKING:  # keyword search does not import numpy (the prompt hook's budget on a busy CPU)
    import numpy as np

POOL_SIZE = 100  # candidates taken from each ranker before fusion


@dataclass(frozen=True)
class RankedLists:
    """The two rankings before fusion (chunk ids, best first) and every candidate's cosine (only
    chunks that have a vector); ``dense_missing`` says why the dense side was left out, if it was."""

    dense: list[int]
    lexical: list[int]
    cosine: dict[int, float]
    dense_missing: str | None = None


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
    deadline: float | None = None,
) -> RankedLists:
    """Dense and lexical rankings of the whole index (optionally under ``path_prefix``).

    The prefix filter is applied before the top-``pool`` cut of each ranker, never after.
    ``embedder`` None (model unavailable) gives an empty dense ranking and no cosines. The query
    embedding overlaps the BM25 query in a second thread. ``deadline`` (``time.monotonic()``):
    the dense side is left out when it is not ready by then (:func:`~paqad.search.dense.finish_dense`).
    """
    allowed = store.prefix_ids(path_prefix.strip("/")) if path_prefix else None
    job = None
    if embedder is not None:
        job = start_query_vector(embedder, query, query_vector, store.meta().get("fingerprint"))
    lexical = lexical_ranking(store, query, pool, None if allowed is None else allowed.tolist())
    side = finish_dense(store, job, pool, allowed, deadline)
    return RankedLists(side.ranking, lexical, side.cosines(set(side.ranking) | set(lexical)), side.missing)


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
