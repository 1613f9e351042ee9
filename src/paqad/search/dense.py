"""The dense ranker: exact cosine of the query embedding against every chunk vector (DESIGN §8.1)."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

import numpy as np

# The dense side runs in a second thread while SQLite ranks BM25: both release the GIL, so on
# two cores the two rankers overlap.
_DENSE_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paqad-dense")


def dense_ranking(ids: np.ndarray, mat: np.ndarray, q: np.ndarray, pool: int) -> tuple[list[int], np.ndarray]:
    """Exact cosine of ``q`` (d,) against ``mat`` (n, d) unit rows; the top ``pool`` ids and all (n,) sims."""
    sims = np.asarray(mat @ q, dtype=np.float32)
    top = np.argpartition(-sims, min(pool, len(sims) - 1))[:pool] if len(sims) > pool else np.arange(len(sims))
    top = top[np.argsort(-sims[top], kind="stable")]
    return [int(ids[i]) for i in top], sims


def start_dense(ids: np.ndarray, mat: np.ndarray, embed_query: Callable[[], np.ndarray], pool: int) -> Future:
    """Run :func:`dense_ranking` in the background thread; ``embed_query()`` gives the (d,) query vector."""
    return _DENSE_POOL.submit(lambda: dense_ranking(ids, mat, embed_query(), pool))


def cosines_of(ids: np.ndarray, sims: np.ndarray, candidates: set[int]) -> dict[int, float]:
    """Cosine per candidate id: ``ids`` is sorted, so a binary search finds each row."""
    wanted = np.array(sorted(candidates), dtype=np.int64)
    rows = np.searchsorted(ids, wanted)
    found = (rows < len(ids)) & (ids[np.minimum(rows, len(ids) - 1)] == wanted)
    return dict(zip(wanted[found].tolist(), sims[rows[found]].tolist()))
