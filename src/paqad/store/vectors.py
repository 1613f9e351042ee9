"""The derived vector matrix: every chunk's vector in one memory-mapped ``.npy`` file (DESIGN §11).

``ids-<generation>.npy`` (n,) int64 chunk ids, sorted, and ``matrix-<generation>.npy``
(n, dimension) float32 unit rows, next to the database. Derived from SQLite and rebuilt from it
when missing or stale; each commit of the index bumps the generation and writes the new pair
from the old one plus the change, in one pass.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

# The last matrix each process mapped, so repeated searches (MCP server, eval) skip the reload.
# Keyed by the two files' (inode, mtime, size), the folder, model and dimension.
_MATRIX_CACHE: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _remember_matrix(key: tuple, ids: np.ndarray, mat: np.ndarray) -> None:
    _MATRIX_CACHE.clear()
    _MATRIX_CACHE[key] = (ids, mat)


def save_matrix(vec_dir: Path, gen: int, ids: np.ndarray, mat: np.ndarray) -> None:
    """Write the derived matrix atomically and drop older generations. Best effort."""
    try:
        for name, arr in ((f"ids-{gen}.npy", ids), (f"matrix-{gen}.npy", mat)):
            tmp = vec_dir / f".{name}.{os.getpid()}.tmp"
            with open(tmp, "wb") as fh:
                np.save(fh, arr)
            os.replace(tmp, vec_dir / name)
        for old in vec_dir.glob("*.npy"):
            if old.name not in (f"ids-{gen}.npy", f"matrix-{gen}.npy"):
                old.unlink(missing_ok=True)
    except OSError:
        pass


def _write_matrix_runs(vec_dir: Path, gen: int, ids: np.ndarray, old_mat: np.ndarray, keep: np.ndarray,
                       add_mat: np.ndarray) -> None:
    """Write generation ``gen``: the rows of ``old_mat`` where ``keep`` holds, then ``add_mat``.

    Copies contiguous runs of kept rows as slices straight into the new memory-mapped file.
    Best effort, like :func:`_save_matrix`.
    """
    try:
        tmp = vec_dir / f".matrix-{gen}.{os.getpid()}.tmp"
        out = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float32, shape=(len(ids), old_mat.shape[1]))
        # run boundaries of the keep mask: starts where it turns True, ends where it turns False
        edges = np.flatnonzero(np.diff(np.concatenate([[False], keep, [False]]).astype(np.int8)))
        row = 0
        for start, stop in zip(edges[0::2], edges[1::2]):
            out[row : row + stop - start] = old_mat[start:stop]
            row += stop - start
        out[row:] = add_mat
        out.flush()
        del out
        ids_tmp = vec_dir / f".ids-{gen}.{os.getpid()}.tmp"
        with open(ids_tmp, "wb") as fh:
            np.save(fh, ids)
        os.replace(tmp, vec_dir / f"matrix-{gen}.npy")
        os.replace(ids_tmp, vec_dir / f"ids-{gen}.npy")
        for old in vec_dir.glob("*.npy"):
            if old.name not in (f"ids-{gen}.npy", f"matrix-{gen}.npy"):
                old.unlink(missing_ok=True)
    except OSError:
        pass


def update_matrix(vec_dir: Path, old_gen: int, new_gen: int, removed_ids: np.ndarray, new_ids: np.ndarray,
                  new_vectors: np.ndarray, full: bool) -> None:
    """Derive generation ``new_gen`` from ``old_gen`` plus the change (no full reload).

    ``removed_ids`` (k,) int64 rows to drop; ``new_ids`` (m,) int64 and ``new_vectors``
    (m, dimension) float32 rows to add. The old matrix is copied run by run (contiguous slices of
    kept rows, no fancy indexing) into the new file, then the new rows are appended: one pass over
    the data, which matters at 100k chunks (a 150 MB matrix). Rows stay sorted by chunk id, as
    search expects. Best effort: when the old files are missing the next search rebuilds the
    matrix from SQLite.
    """
    dim = new_vectors.shape[1]
    if full:
        save_matrix(vec_dir, new_gen, new_ids, new_vectors)
        return
    try:
        old_ids = np.load(vec_dir / f"ids-{old_gen}.npy")
        old_mat = np.load(vec_dir / f"matrix-{old_gen}.npy", mmap_mode="r")
    except (OSError, ValueError):
        return
    if old_mat.shape != (len(old_ids), dim):
        return
    keep = ~np.isin(old_ids, removed_ids)
    ids = np.concatenate([old_ids[keep], new_ids])
    if len(ids) > 1 and not np.all(ids[1:] > ids[:-1]):
        # A reused row id (SQLite may reuse the largest one after a delete): sort in memory.
        order = np.argsort(ids, kind="stable")
        mat = np.concatenate([np.asarray(old_mat[keep]), new_vectors])
        save_matrix(vec_dir, new_gen, ids[order], mat[order])
        return
    _write_matrix_runs(vec_dir, new_gen, ids, old_mat, keep, new_vectors)


def load_matrix(vec_dir: Path, gen: int, dimension: int, model: str) -> tuple[tuple | None, tuple[np.ndarray, np.ndarray] | None]:
    """``(key, (ids, matrix))`` of generation ``gen`` from its files, or ``(key, None)`` when absent or
    of the wrong shape. ``key`` (None when the files are absent) identifies the files (inode,
    mtime, size: a rebuilt index restarts generations), the folder, model and dimension."""
    ids_file = vec_dir / f"ids-{gen}.npy"
    mat_file = vec_dir / f"matrix-{gen}.npy"
    try:
        key = tuple((st.st_ino, st.st_mtime_ns, st.st_size) for st in (ids_file.stat(), mat_file.stat())) + (
            str(vec_dir), model, dimension)
    except OSError:
        return None, None
    hit = _MATRIX_CACHE.get(key)
    if hit is not None:
        return key, hit
    try:
        ids = np.load(ids_file)
        mat = np.load(mat_file, mmap_mode="r")
    except (OSError, ValueError):
        return key, None
    if mat.ndim == 2 and mat.shape == (len(ids), dimension):
        _remember_matrix(key, ids, mat)
        return key, (ids, mat)
    return key, None


def remove_matrices(vec_dir: Path) -> None:
    """Delete every derived matrix file (a recreated index starts without them)."""
    for old in vec_dir.glob("*.npy"):
        old.unlink(missing_ok=True)
