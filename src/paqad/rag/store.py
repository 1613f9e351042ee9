"""The index database: one SQLite file (WAL) under ``.paqad/vectors/`` (DESIGN §11).

Tables: ``meta`` (versions, provider, model, timestamps), ``files`` (one row per indexed file),
``chunks`` (text, lines, symbol, the key of its embedding), ``chunks_fts`` (FTS5, BM25 over
code-aware tokens, rowid = chunk id) and ``embeddings`` (the cache: (model fingerprint, sha256 of
the embedded text) -> float32 vector). A derived matrix of all chunk vectors is kept as ``.npy``
files next to the database for fast dense search; it is rebuilt when its generation is stale.

One writer at a time (an exclusive ``flock`` on ``write.lock``); readers see only committed
transactions, so a killed writer leaves the last committed index usable.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np

from paqad.errors import PaqadError
from paqad.rag.chunking import Chunk
from paqad.project import ProjectPaths

SCHEMA_VERSION = 1


_M001_INITIAL = """
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS files (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            language TEXT NOT NULL,
            chunk_count INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS chunks (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL,
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            language TEXT NOT NULL,
            symbol TEXT,
            kind TEXT NOT NULL,
            signature TEXT,
            text TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            embed_hash TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
        CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
            tokens, tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TABLE IF NOT EXISTS embeddings (
            model TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (model, text_hash)
        ) WITHOUT ROWID;
"""


# Numbered migrations (index = schema version reached). An index older than the first entry
# we can migrate from is rebuilt with a stated reason.
MIGRATIONS = [_M001_INITIAL]  # SQL scripts; entry N brings the schema to version N


@dataclass(frozen=True)
class ChunkRow(Chunk):
    """A stored chunk: a :class:`~paqad.rag.chunking.Chunk` plus its row id in ``chunks``."""

    id: int = 0


@dataclass(frozen=True)
class FileRow:
    path: str
    size: int
    mtime_ns: int
    sha256: str
    language: str
    chunk_count: int


class IndexStore:
    """An open index database. Use :func:`open_store`; close with :meth:`close` or ``with``."""

    def __init__(self, paths: ProjectPaths, db: sqlite3.Connection):
        self.paths = paths
        self.db = db

    # --- lifecycle -----------------------------------------------------------------------
    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "IndexStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- meta ----------------------------------------------------------------------------
    def meta(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, value FROM meta").fetchall())

    def set_meta(self, values: dict[str, object]) -> None:
        self.db.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [(k, str(v)) for k, v in values.items()],
        )

    @property
    def generation(self) -> int:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    # --- files and chunks ----------------------------------------------------------------
    def files(self) -> dict[str, FileRow]:
        return {r[0]: FileRow(*r) for r in self.db.execute("SELECT path, size, mtime_ns, sha256, language, chunk_count FROM files")}

    def delete_files(self, paths: Iterable[str]) -> int:
        """Remove files and their chunks (and FTS rows). Returns the number of chunks removed."""
        removed = 0
        for path in paths:
            ids = [r[0] for r in self.db.execute("SELECT id FROM chunks WHERE path = ?", (path,))]
            if ids:
                self.db.executemany("DELETE FROM chunks_fts WHERE rowid = ?", [(i,) for i in ids])
                self.db.execute("DELETE FROM chunks WHERE path = ?", (path,))
                removed += len(ids)
            self.db.execute("DELETE FROM files WHERE path = ?", (path,))
        return removed

    def upsert_file(self, row: FileRow) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO files(path, size, mtime_ns, sha256, language, chunk_count) VALUES (?,?,?,?,?,?)",
            (row.path, row.size, row.mtime_ns, row.sha256, row.language, row.chunk_count),
        )

    def insert_chunk(self, chunk: Chunk, embed_hash: str, fts_tokens: str) -> int:
        """Insert ``chunk`` and its FTS5 row; ``embed_hash`` keys its vector in the cache. Returns the id."""
        cur = self.db.execute(
            "INSERT INTO chunks(path, start_line, end_line, language, symbol, kind, signature, text, content_hash, embed_hash)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            (chunk.path, chunk.start_line, chunk.end_line, chunk.language, chunk.symbol, chunk.kind,
             chunk.signature, chunk.text, chunk.content_hash, embed_hash),
        )
        chunk_id = int(cur.lastrowid)
        self.db.execute("INSERT INTO chunks_fts(rowid, tokens) VALUES (?, ?)", (chunk_id, fts_tokens))
        return chunk_id

    def chunks_by_id(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        out: dict[int, ChunkRow] = {}
        ids = list(ids)
        for start in range(0, len(ids), 500):
            batch = ids[start : start + 500]
            marks = ",".join("?" * len(batch))
            for r in self.db.execute(
                f"SELECT path, start_line, end_line, language, symbol, kind, signature, text, id FROM chunks WHERE id IN ({marks})",
                batch,
            ):
                out[r[8]] = ChunkRow(*r)
        return out

    def counts(self) -> dict[str, object]:
        files = self.db.execute("SELECT COUNT(*) FROM files").fetchone()[0]
        chunks = self.db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        languages = dict(self.db.execute("SELECT language, COUNT(*) FROM files GROUP BY language ORDER BY 2 DESC").fetchall())
        cached = self.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
        return {"files": files, "chunks": chunks, "languages": languages, "cached_embeddings": cached}

    # --- embedding cache -----------------------------------------------------------------
    def cached_vectors(self, model: str, text_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Vectors already in the cache for ``model``, keyed by text hash."""
        found: dict[str, np.ndarray] = {}
        hashes = list(dict.fromkeys(text_hashes))
        for start in range(0, len(hashes), 500):
            batch = hashes[start : start + 500]
            marks = ",".join("?" * len(batch))
            for text_hash, blob in self.db.execute(
                f"SELECT text_hash, vector FROM embeddings WHERE model = ? AND text_hash IN ({marks})", [model, *batch]
            ):
                found[text_hash] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_vectors(self, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        now = time.time()
        self.db.executemany(
            "INSERT OR IGNORE INTO embeddings(model, text_hash, vector, created_at) VALUES (?,?,?,?)",
            [(model, h, np.asarray(v, dtype=np.float32).tobytes(), now) for h, v in items],
        )

    # --- search primitives ---------------------------------------------------------------
    def bm25(self, match_expression: str, limit: int) -> list[tuple[int, float]]:
        """Top ``limit`` chunk ids by FTS5 BM25 over the whole index, as (id, score); higher is better.

        FTS5's ``bm25()`` returns lower-is-better values (k1=1.2, b=0.75, SQLite docs); negated here.
        """
        try:
            rows = self.db.execute(
                "SELECT rowid, bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?",
                (match_expression, limit),
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        return [(int(r[0]), -float(r[1])) for r in rows]

    def document_frequencies(self, terms: Sequence[str]) -> dict[str, int]:
        """Number of chunks each term occurs in (after FTS5's porter stemming of both sides)."""
        out = {}
        for term in terms:
            try:
                out[term] = int(self.db.execute(
                    "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", ('"' + term.replace('"', '""') + '"',)
                ).fetchone()[0])
            except sqlite3.OperationalError:
                out[term] = 0
        return out

    def chunk_count(self) -> int:
        """Chunks in the index: recorded in ``meta`` at each commit (a count(*) costs ~2 ms at 50k)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'chunks'").fetchone()
        if row is not None:
            return int(row[0])
        return int(self.db.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def bm25_in(self, match_expression: str, ids: Sequence[int], limit: int) -> list[tuple[int, float]]:
        """BM25 restricted to chunk ``ids`` (a path-prefix search), as (id, score), best first."""
        if not ids:
            return []
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS allowed_ids (id INTEGER PRIMARY KEY)")
        self.db.execute("DELETE FROM allowed_ids")
        self.db.executemany("INSERT OR IGNORE INTO allowed_ids(id) VALUES (?)", [(int(i),) for i in ids])
        try:
            rows = self.db.execute(
                "SELECT rowid, bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ?"
                " AND rowid IN (SELECT id FROM allowed_ids) ORDER BY s LIMIT ?",
                (match_expression, limit),
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        return [(int(r[0]), -float(r[1])) for r in rows]

    def vector_matrix(self, model: str, dimension: int) -> tuple[np.ndarray, np.ndarray]:
        """All chunk vectors as ``(ids (n,) int64, matrix (n, dimension) float32)``.

        Served from the derived ``matrix-<generation>.npy`` memory map when it is current,
        else built from SQLite and saved for the next reader.
        """
        gen = self.generation
        vec_dir = self.paths.vectors_dir
        ids_file = vec_dir / f"ids-{gen}.npy"
        mat_file = vec_dir / f"matrix-{gen}.npy"
        try:
            # The files' identity, not just their names: a rebuilt index restarts generations.
            key = tuple((st.st_ino, st.st_mtime_ns, st.st_size) for st in (ids_file.stat(), mat_file.stat())) + (
                str(vec_dir), model, dimension)
        except OSError:
            key = None
        if key in _MATRIX_CACHE:
            return _MATRIX_CACHE[key]
        if key is not None:
            try:
                ids = np.load(ids_file)
                mat = np.load(mat_file, mmap_mode="r")
                if mat.ndim == 2 and mat.shape == (len(ids), dimension):
                    _remember_matrix(key, ids, mat)
                    return ids, mat
            except (OSError, ValueError):
                pass
        rows = self.db.execute(
            "SELECT c.id, e.vector FROM chunks c JOIN embeddings e ON e.model = ? AND e.text_hash = c.embed_hash ORDER BY c.id",
            (model,),
        ).fetchall()
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        mat = np.empty((len(rows), dimension), dtype=np.float32)
        for i, (_, blob) in enumerate(rows):
            vec = np.frombuffer(blob, dtype=np.float32)
            if vec.shape[0] != dimension:
                raise PaqadError(f"{self.paths.index_db}: index vectors are {vec.shape[0]}-d, expected {dimension}; run `paqad-ai rag rebuild`")
            mat[i] = vec
        _save_matrix(vec_dir, gen, ids, mat)
        return ids, mat


# The last matrix each process mapped, so repeated searches (MCP server, eval) skip the reload.
# Keyed by the two files' (inode, mtime, size), the folder, model and dimension.
_MATRIX_CACHE: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _remember_matrix(key: tuple, ids: np.ndarray, mat: np.ndarray) -> None:
    _MATRIX_CACHE.clear()
    _MATRIX_CACHE[key] = (ids, mat)


def _save_matrix(vec_dir: Path, gen: int, ids: np.ndarray, mat: np.ndarray) -> None:
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


def _connect(db_path: Path, readonly: bool = False) -> sqlite3.Connection:
    if readonly:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10, check_same_thread=False)
    else:
        db = sqlite3.connect(db_path, timeout=30, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA busy_timeout=10000")
    return db


def open_store(paths: ProjectPaths, *, create: bool = False, readonly: bool = False) -> IndexStore:
    """Open the index database of ``paths``.

    With ``create`` the folder and schema are made (or migrated). Without it, a missing index
    raises PaqadError telling the user to run ``paqad-ai rag init``.
    A file that is not a usable SQLite database raises PaqadError (``rebuild`` recreates it).
    """
    db_path = paths.index_db
    if not db_path.exists():
        if not create:
            raise PaqadError(f"no index at {db_path.relative_to(paths.root)}; run `paqad-ai rag init`")
        paths.vectors_dir.mkdir(parents=True, exist_ok=True)
    try:
        db = _connect(db_path, readonly=readonly and not create)
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if create and version < SCHEMA_VERSION:
            for number, script in enumerate(MIGRATIONS, start=1):
                if version < number:
                    # One transaction per migration: the version moves only with its tables.
                    db.executescript(f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {number};\nCOMMIT;")
        elif version > SCHEMA_VERSION:
            raise PaqadError(f"{db_path}: index schema v{version} is newer than this paqad-ai (v{SCHEMA_VERSION}); upgrade paqad-ai or run `paqad-ai rag rebuild`")
    except sqlite3.DatabaseError as exc:
        raise PaqadError(f"{db_path.relative_to(paths.root)}: index is unreadable ({exc}); run `paqad-ai rag rebuild`") from None
    return IndexStore(paths, db)


def recreate_store(paths: ProjectPaths) -> IndexStore:
    """Delete an unreadable index database (its -wal/-shm too and derived matrices) and start fresh."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(paths.index_db) + suffix).unlink(missing_ok=True)
    for old in paths.vectors_dir.glob("*.npy"):
        old.unlink(missing_ok=True)
    return open_store(paths, create=True)


@contextmanager
def write_lock(paths: ProjectPaths, *, blocking: bool = True) -> Iterator[bool]:
    """Hold the single-writer lock (``flock`` on ``.paqad/vectors/write.lock``).

    Yields True when held; with ``blocking=False`` yields False at once if another writer has it.
    The OS releases the lock if the process dies, so a killed build never leaves it stuck.
    """
    paths.vectors_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(paths.vectors_dir / "write.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps({"pid": os.getpid(), "since": time.time()}).encode())
        except OSError:
            pass
        yield True
    finally:
        os.close(fd)


def index_size_bytes(paths: ProjectPaths) -> int:
    """Bytes on disk under ``.paqad/vectors/``."""
    if not paths.vectors_dir.exists():
        return 0
    return sum(p.stat().st_size for p in paths.vectors_dir.iterdir() if p.is_file())

