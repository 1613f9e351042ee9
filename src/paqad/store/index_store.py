"""The index database: one SQLite file (WAL) under ``.paqad/vectors/`` (DESIGN §11).

Tables (:mod:`paqad.store.schema`): ``meta`` (versions, provider, model, timestamps), ``files``
(one row per indexed file), ``chunks`` (text, lines, symbol, the key of its embedding),
``chunks_fts`` (FTS5, BM25 over code-aware tokens, rowid = chunk id) and ``embeddings`` (the
cache: (model fingerprint, sha256 of the embedded text) -> float32 vector). The derived vector
matrix (:mod:`paqad.store.vectors`) is kept next to the database for fast dense search.

This package is the only place that speaks SQL. A sync hands it a :class:`ChangeSet`, which
:meth:`IndexStore.apply` writes in one transaction (readers see the old index or the new one,
never half of it) before it derives the new vector matrix. One writer at a time
(:func:`paqad.store.lock.write_lock`); a killed writer leaves the last committed index usable.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from paqad.errors import IndexCorruptError, IndexMissingError, PaqadError
from paqad.index.chunking import Chunk
from paqad.index.sync import FileRow
from paqad.project import ProjectPaths, index_exists
from paqad.store import vectors
from paqad.store.schema import SCHEMA_VERSION, migrate


@dataclass(frozen=True)
class ChunkRow(Chunk):
    """A stored chunk: a :class:`~paqad.index.chunking.Chunk` plus its row id in ``chunks``."""

    id: int = 0


@dataclass(frozen=True)
class ChunkEntry:
    """A chunk to store: the chunk, the key of its vector (sha256 hex of the embedded text) and
    the token string its FTS5 row holds."""

    chunk: Chunk
    embed_hash: str
    fts_tokens: str


@dataclass(frozen=True)
class ChangeSet:
    """Everything one sync changes, applied by :meth:`IndexStore.apply` in one transaction.

    ``full``: replace the whole index; ``removed``: paths whose files and chunks go; ``changed``:
    files (re)written with their chunks (their old chunks go first); ``touched``: files whose
    content is unchanged but whose size/mtime row is refreshed; ``meta``: values recorded with
    the commit (the generation and the chunk count are added by the store).
    """

    full: bool
    removed: tuple[str, ...] = ()
    changed: tuple[tuple[FileRow, tuple[ChunkEntry, ...]], ...] = ()
    touched: tuple[FileRow, ...] = ()
    meta: Mapping[str, object] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.full or self.removed or self.changed or self.touched)


@dataclass(frozen=True)
class Applied:
    """What :meth:`IndexStore.apply` wrote: chunk rows written and removed, chunks in the index after."""

    chunks_written: int
    chunks_removed: int
    chunks_total: int


def symbol_key(symbol: str) -> str:
    """The symbol table's lookup key: the last component of a symbol path, lower case, letters
    and digits only (``Router.ServeHTTP`` -> ``servehttp``, ``get_user`` -> ``getuser``)."""
    last = symbol.replace("::", ".").rsplit(".", 1)[-1]
    return "".join(ch for ch in last.lower() if ch.isalnum())


def fts_match_expression(terms: list[str], operator: str = "OR") -> str | None:
    """An FTS5 MATCH expression joining the quoted terms with ``operator`` (OR / AND), or None."""
    if not terms:
        return None
    return f" {operator} ".join('"' + t.replace('"', '""') + '"' for t in terms)


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
        """Every recorded value (versions, provider, model, timestamps, ...) as strings."""
        return dict(self.db.execute("SELECT key, value FROM meta").fetchall())

    def set_meta(self, values: Mapping[str, object]) -> None:
        self.db.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [(k, str(v)) for k, v in values.items()],
        )

    @property
    def generation(self) -> int:
        """Bumped by every commit of :meth:`apply`; names the derived matrix files."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    # --- files and chunks ----------------------------------------------------------------
    def files(self) -> dict[str, FileRow]:
        """Every indexed file by path."""
        return {r[0]: FileRow(*r) for r in self.db.execute("SELECT path, size, mtime_ns, sha256, language, chunk_count FROM files")}

    def file_paths(self) -> tuple[str, ...]:
        """Every indexed path, sorted; read once per generation of the index and kept."""
        generation = self.generation
        cached = getattr(self, "_paths", None)
        if cached is None or cached[0] != generation:
            paths = tuple(r[0] for r in self.db.execute("SELECT path FROM files ORDER BY path"))
            self._paths = (generation, paths)
            return paths
        return cached[1]

    def file_row(self, path: str) -> FileRow | None:
        """The indexed file ``path``, or None."""
        row = self.db.execute("SELECT path, size, mtime_ns, sha256, language, chunk_count FROM files WHERE path = ?",
                              (path,)).fetchone()
        return FileRow(*row) if row else None

    def count_files_under(self, folder: str) -> int:
        """Indexed files under ``folder`` (project-relative, no ``/`` at the ends; ``""``: all)."""
        if not folder:
            return int(self.db.execute("SELECT count(*) FROM files").fetchone()[0])
        return int(self.db.execute("SELECT count(*) FROM files WHERE substr(path, 1, ?) = ?",
                                   (len(folder) + 1, folder + "/")).fetchone()[0])

    def delete_files(self, paths: Iterable[str]) -> int:
        """Remove files and their chunks (and FTS rows). Returns the number of chunks removed."""
        removed = 0
        for path in paths:
            ids = [r[0] for r in self.db.execute("SELECT id FROM chunks WHERE path = ?", (path,))]
            if ids:
                self.db.executemany("DELETE FROM chunks_fts WHERE rowid = ?", [(i,) for i in ids])
                self.db.executemany("DELETE FROM symbols WHERE chunk_id = ?", [(i,) for i in ids])
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
        """Insert ``chunk``, its FTS5 row and its symbol-table rows (one per symbol whose
        definition line it holds); ``embed_hash`` keys its vector in the cache. Returns the id."""
        cur = self.db.execute(
            "INSERT INTO chunks(path, start_line, end_line, language, symbol, kind, signature, text, content_hash,"
            " embed_hash, defines) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (chunk.path, chunk.start_line, chunk.end_line, chunk.language, chunk.symbol, chunk.kind,
             chunk.signature, chunk.text, chunk.content_hash, embed_hash, int(chunk.defines)),
        )
        chunk_id = int(cur.lastrowid)
        self.db.execute("INSERT INTO chunks_fts(rowid, tokens) VALUES (?, ?)", (chunk_id, fts_tokens))
        self.db.executemany(
            "INSERT INTO symbols(key, symbol, chunk_id) VALUES (?, ?, ?)",
            [(symbol_key(symbol), symbol, chunk_id) for symbol in chunk.definitions if symbol_key(symbol)],
        )
        return chunk_id

    def chunks_by_id(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        out: dict[int, ChunkRow] = {}
        ids = list(ids)
        for start in range(0, len(ids), 500):
            batch = ids[start : start + 500]
            marks = ",".join("?" * len(batch))
            for r in self.db.execute(
                "SELECT path, start_line, end_line, language, symbol, kind, signature, text, defines, id FROM chunks"
                f" WHERE id IN ({marks})",
                batch,
            ):
                out[r[9]] = ChunkRow(*r[:8], defines=bool(r[8]), id=r[9])
        return out

    def definitions(self, keys: Sequence[str], limit: int = 200) -> list[tuple[int, str]]:
        """``(chunk id, symbol)`` of the chunks holding the definition line of a symbol whose key
        (:func:`symbol_key` of its last component) is one of ``keys``; at most ``limit``, by id."""
        keys = [k for k in dict.fromkeys(keys) if k]
        if not keys:
            return []
        marks = ",".join("?" * len(keys))
        return [(int(r[0]), r[1]) for r in self.db.execute(
            f"SELECT chunk_id, symbol FROM symbols WHERE key IN ({marks}) ORDER BY chunk_id LIMIT ?", [*keys, limit])]

    def chunk_ids_of_files(self, paths: Sequence[str], limit: int = 500) -> list[int]:
        """Ids of the chunks of the files ``paths`` (in path and line order), at most ``limit``."""
        paths = list(dict.fromkeys(paths))
        if not paths:
            return []
        marks = ",".join("?" * len(paths))
        return [int(r[0]) for r in self.db.execute(
            f"SELECT id FROM chunks WHERE path IN ({marks}) ORDER BY path, start_line LIMIT ?", [*paths, limit])]

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


    def put_vectors_committed(self, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        """:meth:`put_vectors` in a transaction of its own: a killed build keeps what it embedded."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.put_vectors(model, items)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    # --- search primitives ---------------------------------------------------------------
    def bm25(self, match_expression: str, limit: int, ids: Sequence[int] | None = None) -> list[tuple[int, float]]:
        """Top ``limit`` chunk ids by FTS5 BM25 over the whole index (or only ``ids``: a path-prefix
        search), as (id, score), best first; higher is better.

        FTS5's ``bm25()`` returns lower-is-better values (k1=1.2, b=0.75, SQLite docs); negated here.
        """
        where = ""
        if ids is not None:
            if not ids:
                return []
            self.db.execute("CREATE TEMP TABLE IF NOT EXISTS allowed_ids (id INTEGER PRIMARY KEY)")
            self.db.execute("DELETE FROM allowed_ids")
            self.db.executemany("INSERT OR IGNORE INTO allowed_ids(id) VALUES (?)", [(int(i),) for i in ids])
            where = " AND rowid IN (SELECT id FROM allowed_ids)"
        try:
            rows = self.db.execute(
                f"SELECT rowid, bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ?{where} ORDER BY s LIMIT ?",
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

    def prefix_ids(self, prefix: str) -> np.ndarray:
        """Ids of the chunks of the file ``prefix`` or of the files under folder ``prefix`` (no ``/`` at the ends)."""
        rows = self.db.execute(
            "SELECT id FROM chunks WHERE path = ? OR substr(path, 1, ?) = ?", (prefix, len(prefix) + 1, prefix + "/")
        ).fetchall()
        return np.array([r[0] for r in rows], dtype=np.int64)

    def vector_matrix(self, model: str, dimension: int) -> tuple[np.ndarray, np.ndarray]:
        """All chunk vectors as ``(ids (n,) int64, matrix (n, dimension) float32)``.

        Served from the derived ``matrix-<generation>.npy`` memory map when it is current,
        else built from SQLite and saved for the next reader. Raises PaqadError when the stored
        vectors have another dimension.
        """
        gen = self.generation
        vec_dir = self.paths.vectors_dir
        _, loaded = vectors.load_matrix(vec_dir, gen, dimension, model)
        if loaded is not None:
            return loaded
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
        vectors.save_matrix(vec_dir, gen, ids, mat)
        return ids, mat

    # --- writing a sync ------------------------------------------------------------------
    def apply(self, changes: ChangeSet, vectors_by_hash: Mapping[str, np.ndarray], dimension: int) -> Applied:
        """Write ``changes`` in one transaction, then derive the new vector matrix.

        ``vectors_by_hash`` maps every changed chunk's ``embed_hash`` to its (dimension,) float32
        vector. The meta values of the change set are recorded with the commit, plus the new
        ``generation`` and ``chunks`` count. Raises whatever SQLite raises; the transaction is
        rolled back then, so the previous index stays as it was.
        """
        old_generation = self.generation
        self.db.execute("BEGIN IMMEDIATE")
        try:
            if changes.full:
                removed_ids = np.array([r[0] for r in self.db.execute("SELECT id FROM chunks")], dtype=np.int64)
                self.db.execute("DELETE FROM chunks")
                self.db.execute("DELETE FROM chunks_fts")
                self.db.execute("DELETE FROM symbols")
                self.db.execute("DELETE FROM files")
                chunks_removed = 0
            else:
                gone = [*changes.removed, *(row.path for row, _ in changes.changed)]
                removed_ids = self._chunk_ids_of(gone)
                chunks_removed = self.delete_files(gone)
            new_ids, new_vectors = [], []
            for row, entries in changes.changed:
                for entry in entries:
                    new_ids.append(self.insert_chunk(entry.chunk, entry.embed_hash, entry.fts_tokens))
                    new_vectors.append(vectors_by_hash[entry.embed_hash])
                self.upsert_file(row)
            for row in changes.touched:
                self.upsert_file(row)
            self.set_meta({**changes.meta, "generation": old_generation + 1})
            total = int(self.db.execute("SELECT count(*) FROM chunks").fetchone()[0])
            self.set_meta({"chunks": total})
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        add_ids = np.asarray(new_ids, dtype=np.int64)
        add_mat = np.asarray(new_vectors, dtype=np.float32).reshape(len(new_ids), dimension)
        vectors.update_matrix(self.paths.vectors_dir, old_generation, old_generation + 1, removed_ids, add_ids,
                              add_mat, changes.full)
        return Applied(len(new_ids), chunks_removed, total)

    def _chunk_ids_of(self, paths: Sequence[str]) -> np.ndarray:
        ids: list[int] = []
        paths = list(paths)
        for start in range(0, len(paths), 500):
            batch = paths[start : start + 500]
            marks = ",".join("?" * len(batch))
            ids.extend(r[0] for r in self.db.execute(f"SELECT id FROM chunks WHERE path IN ({marks})", batch))
        return np.array(ids, dtype=np.int64)


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
    raises :class:`~paqad.errors.IndexMissingError` telling the user to run ``paqad-ai rag init``.
    A file that is not a usable SQLite database raises :class:`~paqad.errors.IndexCorruptError`
    (``rebuild`` recreates it); a schema newer than this version raises PaqadError.
    """
    db_path = paths.index_db
    if not index_exists(paths):
        if not create:
            raise IndexMissingError()
        paths.vectors_dir.mkdir(parents=True, exist_ok=True)
    try:
        db = _connect(db_path, readonly=readonly and not create)
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if create and version < SCHEMA_VERSION:
            migrate(db, version)
        elif version > SCHEMA_VERSION:
            raise PaqadError(f"{db_path}: index schema v{version} is newer than this paqad-ai (v{SCHEMA_VERSION}); upgrade paqad-ai or run `paqad-ai rag rebuild`")
    except sqlite3.DatabaseError as exc:
        raise IndexCorruptError(f"{db_path.relative_to(paths.root)}: index is unreadable ({exc}); run `paqad-ai rag rebuild`") from None
    return IndexStore(paths, db)


def recreate_store(paths: ProjectPaths) -> IndexStore:
    """Delete an unreadable index database (its -wal/-shm too and derived matrices) and start fresh."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(paths.index_db) + suffix).unlink(missing_ok=True)
    vectors.remove_matrices(paths.vectors_dir)
    return open_store(paths, create=True)


def read_summary(paths: ProjectPaths) -> tuple[dict[str, str], dict[str, object]]:
    """``(meta, counts)`` of the index, read-only. Raises IndexMissingError or IndexCorruptError."""
    try:
        with open_store(paths, readonly=True) as store:
            return store.meta(), store.counts()
    except sqlite3.Error as exc:  # a damaged file can also fail after opening
        raise IndexCorruptError(f"{paths.index_db.relative_to(paths.root)}: index is unreadable ({exc}); run `paqad-ai rag rebuild`") from None


def backup_database(source: Path, target: Path) -> bool:
    """Copy the database at ``source`` to ``target`` with SQLite's online backup; False on any failure."""
    try:
        src = sqlite3.connect(source)
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
            src.close()
        return True
    except sqlite3.Error:
        return False


def index_size_bytes(paths: ProjectPaths) -> int:
    """Bytes on disk under ``.paqad/vectors/``."""
    if not paths.vectors_dir.exists():
        return 0
    return sum(p.stat().st_size for p in paths.vectors_dir.iterdir() if p.is_file())
