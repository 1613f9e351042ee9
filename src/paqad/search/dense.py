"""The dense ranker: exact cosine of the query embedding against every chunk vector (DESIGN §8.1).

The query vector is computed in a second thread (:func:`start_query_vector`) while SQLite ranks
BM25; :func:`finish_dense` then takes the index's vectors (int8 with a scale per row, see
:mod:`paqad.store.vectors`) and ranks them. With a ``deadline`` the dense side is optional: when
the query vector is not ready in time (a cold process on a saturated CPU is still importing the
runtime or loading the model), or the model cannot be used, the dense side is left out and
:attr:`DenseSide.missing` says why, so the caller answers with keyword evidence in time.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor, TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from paqad.errors import IndexStaleError, IndexVersionError
from paqad.search.degraded import LATE, Degraded, DegradedReason  # noqa: F401 - LATE: its old home

if TYPE_CHECKING:  # numpy is imported on the dense side only: keyword search never waits for it
    import numpy as np

    from paqad import store as store_mod
    from paqad.embed.base import Embedder

# The query vector is computed in a second thread while SQLite ranks BM25: both release the GIL.
_DENSE_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paqad-dense")
BLOCK_ROWS = 1024  # rows per matrix-vector product: stays in cache and on one BLAS thread
MAX_WAIT_SECONDS = 3600.0  # a far (or infinite) deadline waits this long at most


@dataclass(frozen=True)
class DenseSide:
    """The dense ranking of one query: ``ranking`` (chunk ids, best first, at most the pool),
    ``ids`` (n,) sorted ids of the chunks with a vector and ``sims`` (n,) their cosines; empty
    with ``missing`` (one line: why) when the dense side was left out."""

    ranking: list[int] = field(default_factory=list)
    ids: "np.ndarray | None" = None
    sims: "np.ndarray | None" = None
    missing: Degraded | None = None

    def cosines(self, candidates: set[int]) -> dict[int, float]:
        """Chunk id -> cosine with the query for the ``candidates`` that have a vector (others absent;
        ``{}`` when the dense side was left out)."""
        return cosines_of(self.ids, self.sims, candidates) if self.ids is not None and len(self.ids) else {}


def similarities(vectors: np.ndarray, q: np.ndarray, scales: np.ndarray | None = None) -> np.ndarray:
    """Cosines ``(n,)`` float32 of ``q`` (d,) against ``vectors`` (n, d): float32 unit rows, or
    int8 rows with ``scales`` (n,) float32 (row i is ``scales[i] * vectors[i]``).

    Computed :data:`BLOCK_ROWS` rows at a time: int8 blocks are widened to float32 in cache, and
    each product stays below the size at which BLAS starts threads (which spin on a busy CPU).
    """
    import numpy as np

    q = np.asarray(q, dtype=np.float32)
    sims = np.empty(len(vectors), dtype=np.float32)
    for start in range(0, len(vectors), BLOCK_ROWS):
        block = vectors[start : start + BLOCK_ROWS]
        np.dot(block.astype(np.float32, copy=False), q, out=sims[start : start + len(block)])
    if scales is not None:
        sims *= scales
    return sims


def dense_ranking(ids: np.ndarray, mat: np.ndarray, q: np.ndarray, pool: int,
                  scales: np.ndarray | None = None) -> tuple[list[int], np.ndarray]:
    """Exact cosine of ``q`` (d,) against ``mat`` (n, d) (see :func:`similarities`); the top ``pool`` ids and all (n,) sims."""
    import numpy as np

    sims = similarities(mat, q, scales)
    top = np.argpartition(-sims, min(pool, len(sims) - 1))[:pool] if len(sims) > pool else np.arange(len(sims))
    top = top[np.argsort(-sims[top], kind="stable")]
    return [int(ids[i]) for i in top], sims


def start_query_vector(embedder: "Embedder", query: str, query_vector: np.ndarray | None = None,
                       index_fingerprint: str | None = None) -> Future:
    """Embed ``query`` in the background thread; the future gives the (d,) query vector.

    With ``index_fingerprint`` the embedder is first checked against the index's model (loading
    the local model if need be): a mismatch raises IndexStaleError from the future.
    """
    def job() -> np.ndarray:
        if index_fingerprint and embedder.fingerprint != index_fingerprint:
            raise IndexStaleError([f"index was built with {index_fingerprint}, not {embedder.model_id}"])
        return query_vector if query_vector is not None else embedder.embed_query(query)

    return _DENSE_POOL.submit(job)


def finish_dense(store: "store_mod.IndexStore", job: Future | None, pool: int, allowed: np.ndarray | None,
                 deadline: float | None = None) -> DenseSide:
    """Rank the index's vectors by the query vector of ``job`` (None: no dense side).

    Only ids in ``allowed`` count when it is given (a path prefix, applied before the top-``pool``
    cut). Without a ``deadline`` this waits for the vector and re-raises its errors. With one (a
    ``time.monotonic()`` value) a vector not ready by then, or an error, leaves the dense side
    out with ``missing`` saying why; the embedding thread is abandoned, not stopped.
    """
    if job is None:
        return DenseSide()
    if deadline is not None and time.monotonic() >= deadline:
        return DenseSide(missing=Degraded(DegradedReason.LATE))  # no time left to use it, ready or not
    timeout = None if deadline is None else min(max(0.0, deadline - time.monotonic()), MAX_WAIT_SECONDS)
    try:
        q = job.result(timeout=timeout)
    except FutureTimeout:
        return DenseSide(missing=Degraded(DegradedReason.LATE))
    except IndexStaleError as exc:
        if deadline is None:
            raise
        return DenseSide(missing=Degraded(DegradedReason.STALE_MODEL, exc.reasons[0]))
    except Exception as exc:  # noqa: BLE001 - with a deadline the dense side is optional
        if deadline is None:
            raise
        return DenseSide(missing=Degraded.from_error(exc))
    import numpy as np

    view = store.dense_view()
    if view is None or not len(view.ids):
        return DenseSide()
    ids, mat, scales = view.ids, view.vectors, view.scales
    if allowed is not None:
        keep = np.isin(ids, allowed)
        ids, mat, scales = ids[keep], mat[keep], scales[keep]
    if not len(ids):
        return DenseSide()
    if len(q) != mat.shape[1]:
        raise IndexVersionError(f"{store.paths.index_db}: index vectors are {mat.shape[1]}-d, the model gives {len(q)}; run `paqad-ai rag rebuild`")
    ranking, sims = dense_ranking(ids, mat, q, pool, scales)
    return DenseSide(ranking, ids, sims)


def cosines_of(ids: np.ndarray, sims: np.ndarray, candidates: set[int]) -> dict[int, float]:
    """Cosine per candidate id: ``ids`` is sorted, so a binary search finds each row."""
    import numpy as np

    wanted = np.array(sorted(candidates), dtype=np.int64)
    rows = np.searchsorted(ids, wanted)
    found = (rows < len(ids)) & (ids[np.minimum(rows, len(ids) - 1)] == wanted)
    return dict(zip(wanted[found].tolist(), sims[rows[found]].tolist()))
