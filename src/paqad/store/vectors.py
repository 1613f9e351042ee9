"""The vector store: every embedding once, as int8 with a scale, packed in SQLite (DESIGN §11).

Schema v2 (:mod:`paqad.store.schema`). One ``models`` row per model fingerprint (dimension and
how many vector rows it has); ``vector_keys`` maps (model, sha256 of the embedded text) to a row
number; ``vector_blocks`` holds the rows, :data:`BLOCK_ROWS` per block, each row a record of
``dimension`` int8 values and one little-endian float32 ``scale`` such that ``scale * values``
is the unit vector (so a dot product with a unit query is the cosine). Rows are appended, never
moved; a batch fills the model's last block before it starts a new one.

Quantisation: ``values = round(v / max|v| * 127)``, ``scale = 1 / |values|``. Against the float32
vector the stored one has cosine >= 0.9999 (measured: 0.99993 minimum on 6,500 code chunks);
a search cosine moves by about 5e-4. 4 + d bytes per vector instead of 4 d (388 instead of
1,536 for 384-d), and nothing else holds vectors: the derived ``.npy`` matrix of schema v1 is gone.

This module speaks SQL (it is part of :mod:`paqad.store`); the dense ranker only sees numpy arrays.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:  # numpy is imported by the functions that need it: keyword search never does
    import numpy as np

BLOCK_ROWS = 256  # rows per block: a batch commit rewrites at most one partial block (~100 KB at 384-d)
MAX_KEYS_PER_QUERY = 500


def record_dtype(dimension: int) -> np.dtype:
    """One stored row: ``v`` (dimension,) int8 and ``s`` float32 (little-endian)."""
    import numpy as np

    return np.dtype([("v", np.int8, (dimension,)), ("s", "<f4")])


def quantize(vectors: np.ndarray) -> np.ndarray:
    """``(k, d)`` float32 rows -> ``(k,)`` records of :func:`record_dtype` (see the module docstring)."""
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float32)
    k, dimension = vectors.shape
    peak = np.abs(vectors).max(axis=1, keepdims=True)
    values = np.rint(vectors / np.where(peak > 0, peak, 1.0) * 127.0).clip(-127, 127).astype(np.int8)
    norms = np.linalg.norm(values.astype(np.float32), axis=1)
    out = np.empty(k, dtype=record_dtype(dimension))
    out["v"] = values
    out["s"] = np.where(norms > 0, 1.0 / np.maximum(norms, 1e-12), 0.0)
    return out


def model_id(db: sqlite3.Connection, fingerprint: str, dimension: int | None = None) -> int | None:
    """The ``models`` row id of ``fingerprint``; created when ``dimension`` is given, else None if absent."""
    row = db.execute("SELECT id FROM models WHERE fingerprint = ?", (fingerprint,)).fetchone()
    if row is not None:
        return int(row[0])
    if dimension is None:
        return None
    return int(db.execute("INSERT INTO models(fingerprint, dimension) VALUES (?, ?)", (fingerprint, dimension)).lastrowid)


def model_dimension(db: sqlite3.Connection, model: int) -> int:
    """The vector length stored for model row ``model``. Raises ``TypeError`` if there is no such row."""
    return int(db.execute("SELECT dimension FROM models WHERE id = ?", (model,)).fetchone()[0])


def lookup_rows(db: sqlite3.Connection, model: int, keys: Sequence[bytes]) -> dict[bytes, int]:
    """Row numbers of the keys (16 bytes of a sha256) already stored for ``model``."""
    found: dict[bytes, int] = {}
    keys = list(dict.fromkeys(keys))
    for start in range(0, len(keys), MAX_KEYS_PER_QUERY):
        batch = keys[start : start + MAX_KEYS_PER_QUERY]
        marks = ",".join("?" * len(batch))
        for key, row in db.execute(f"SELECT text_hash, row FROM vector_keys WHERE model = ? AND text_hash IN ({marks})", [model, *batch]):
            found[bytes(key)] = int(row)
    return found


def append_vectors(db: sqlite3.Connection, model: int, items: Iterable[tuple[bytes, np.ndarray]]) -> dict[bytes, int]:
    """Store the vectors whose key ``model`` does not have yet; return the row of every key given.

    ``items``: (16-byte key, (d,) float32 unit vector). Runs inside the caller's transaction.
    """
    import numpy as np

    items = list(items)
    rows = lookup_rows(db, model, [k for k, _ in items])
    new: dict[bytes, np.ndarray] = {}
    for key, vector in items:
        if key not in rows and key not in new:
            new[key] = vector
    if not new:
        return rows
    records = quantize(np.stack([np.asarray(v, dtype=np.float32) for v in new.values()]))
    start = _append_records(db, model, records)
    for offset, key in enumerate(new):
        rows[key] = start + offset
    db.executemany("INSERT INTO vector_keys(model, text_hash, row) VALUES (?, ?, ?)",
                   [(model, key, rows[key]) for key in new])
    return rows


def append_float32_blobs(db: sqlite3.Connection, model: int, items: Sequence[tuple[bytes, bytes]]) -> None:
    """Schema v1 -> v2: store (key, float32 blob) pairs, in order, 10,000 at a time."""
    import numpy as np

    for start in range(0, len(items), 10_000):
        batch = items[start : start + 10_000]
        append_vectors(db, model, [(key, np.frombuffer(blob, dtype=np.float32)) for key, blob in batch])


def _append_records(db: sqlite3.Connection, model: int, records: np.ndarray) -> int:
    """Append ``records`` to the model's rows (topping up its last block first); returns the first new row."""
    start = int(db.execute("SELECT rows FROM models WHERE id = ?", (model,)).fetchone()[0])
    data = records.tobytes()
    size = records.dtype.itemsize
    row = start
    offset = 0
    while offset < len(records):
        block, used = divmod(row, BLOCK_ROWS)
        take = min(BLOCK_ROWS - used, len(records) - offset)
        piece = data[offset * size : (offset + take) * size]
        if used:  # top up the last block (read and rewritten: SQL's || would turn the blob into text)
            (old,) = db.execute("SELECT data FROM vector_blocks WHERE model = ? AND block = ?", (model, block)).fetchone()
            db.execute("UPDATE vector_blocks SET data = ? WHERE model = ? AND block = ?", (bytes(old) + piece, model, block))
        else:
            db.execute("INSERT INTO vector_blocks(model, block, data) VALUES (?, ?, ?)", (model, block, piece))
        row += take
        offset += take
    db.execute("UPDATE models SET rows = ? WHERE id = ?", (row, model))
    return start


def load_records(db: sqlite3.Connection, model: int, dimension: int) -> np.ndarray:
    """Every stored row of ``model`` as ``(rows,)`` records, row ``r`` at index ``r``."""
    import numpy as np

    blobs = [bytes(r[0]) for r in db.execute("SELECT data FROM vector_blocks WHERE model = ? ORDER BY block", (model,))]
    return np.frombuffer(b"".join(blobs), dtype=record_dtype(dimension))


def remove_matrices(vec_dir: Path) -> None:
    """Delete the derived ``.npy`` matrices schema v1 kept next to the database."""
    for old in vec_dir.glob("*.npy"):
        old.unlink(missing_ok=True)
