"""The index database: one SQLite file (WAL) under ``.paqad/vectors/`` (DESIGN §11).

Tables (:mod:`paqad.store.schema`, v4): ``meta`` (versions, provider, model, timestamps,
counts), ``files`` (one row per indexed file), ``chunks`` (compressed text, lines, symbol, the
key of its embedding and ``vec``, its row in the vector store, NULL until embedded),
``chunks_fts`` (contentless FTS5, BM25 over code-aware tokens, rowid = chunk id), ``symbols``
(the definitions each chunk holds, by normalised name) and the vector
store (:mod:`paqad.store.vectors`: every embedding once, int8, keyed by model and text hash; it
is also the embedding cache).

This package is the only place that speaks SQL. A sync hands it a :class:`ChangeSet`, which
:meth:`IndexStore.apply` writes in one transaction (readers see the old index or the new one,
never half of it): files, chunks and keyword index, with the vectors the cache already has.
The index is then searchable by keywords; :meth:`IndexStore.commit_vectors` adds the missing
vectors batch by batch, each batch its own transaction. One writer at a time
(:func:`paqad.store.lock.write_lock`); a killed writer leaves the last committed index usable.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence

from paqad.errors import IndexCorruptError, IndexMissingError, IndexStaleError, IndexVersionError
from paqad.index.rows import FileRow
from paqad.project import ProjectPaths, index_exists
from paqad.store import codec, vectors
from paqad.store.records import Applied, ChangeSet, ChunkRow, DenseView, PendingChunk, symbol_key
from paqad.store.schema import READABLE_FROM, SCHEMA_VERSION, migrate

if TYPE_CHECKING:  # a keyword search does not import numpy (the prompt hook's budget)
    import numpy as np

MAX_PARAMS = 500  # ids per IN (...) list


# The last dense view each process loaded, so repeated searches (MCP server, warm process, eval)
# skip the reload. Keyed by database file, model and generation (bumped by every commit).
_VIEW_CACHE: dict[tuple, DenseView] = {}


class IndexStore:
    """An open index database. Use :func:`open_store`; close with :meth:`close` or ``with``."""

    def __init__(self, paths: ProjectPaths, db: sqlite3.Connection, version: int = SCHEMA_VERSION):
        self.paths = paths
        self.db = db
        # A v3 index opened read-only has no files.ctime_ns / files.inode (schema v4): read as 0.
        self._stat_columns = "ctime_ns, inode" if version >= 4 else "0, 0"

    # --- lifecycle -----------------------------------------------------------------------
    def close(self) -> None:
        """Close the database connection (the store is unusable after)."""
        self.db.close()

    def __enter__(self) -> "IndexStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction; a full disk rolls it back and raises ``OSError(ENOSPC)``
        naming the index file, as the file system says it for every other file (SQLite's own
        "database or disk is full" names no file and is no ``OSError``)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self.db.execute("COMMIT")
        except BaseException as exc:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error) and is_disk_full(exc):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.paths.index_db)) from exc
            raise

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """Several reads that must see one commit (a no-op inside a transaction)."""
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")

    # --- meta ----------------------------------------------------------------------------
    def meta(self) -> dict[str, str]:
        """Every recorded value (versions, provider, model, timestamps, counts, ...) as strings."""
        return dict(self.db.execute("SELECT key, value FROM meta").fetchall())

    def set_meta(self, values: Mapping[str, object]) -> None:
        """Write ``values`` into the meta table (key -> ``str(value)``, replacing existing keys), inside
        the caller's transaction. Raises whatever SQLite raises."""
        self.db.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [(k, str(v)) for k, v in values.items()],
        )

    def _meta_int(self, key: str) -> int | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return int(row[0]) if row else None

    @property
    def generation(self) -> int:
        """Bumped by every commit that changes chunks or their vectors (names the dense view)."""
        return self._meta_int("generation") or 0

    def generation_key(self) -> tuple[str, int, int]:
        """``(database file, its inode, generation)``: names this index's contents for caches kept
        across queries (an ``id()`` of the store object is reused by the next store a process opens)."""
        try:
            inode = self.paths.index_db.stat().st_ino
        except OSError:
            inode = 0
        return str(self.paths.index_db), inode, self.generation

    # --- files and chunks ----------------------------------------------------------------
    def files(self) -> dict[str, FileRow]:
        """Every indexed file by path."""
        return {r[0]: FileRow(*r) for r in self.db.execute(
            f"SELECT path, size, mtime_ns, sha256, language, chunk_count, {self._stat_columns} FROM files")}

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
        """The indexed file ``path``, or None (also for a name that is not UTF-8: never indexed)."""
        if not _is_text(path):
            return None
        row = self.db.execute(f"SELECT path, size, mtime_ns, sha256, language, chunk_count, {self._stat_columns} "
                              "FROM files WHERE path = ?", (path,)).fetchone()
        return FileRow(*row) if row else None

    def count_files_under(self, folder: str) -> int:
        """Indexed files under ``folder`` (project-relative, no ``/`` at the ends; ``""``: all)."""
        if not folder:
            return int(self.db.execute("SELECT count(*) FROM files").fetchone()[0])
        return int(self.db.execute("SELECT count(*) FROM files WHERE substr(path, 1, ?) = ?",
                                   (len(folder) + 1, folder + "/")).fetchone()[0])

    def delete_files(self, paths: Iterable[str]) -> int:
        """Remove files and their chunks (and FTS rows). Returns the number of chunks removed.

        The contentless FTS5 table forgets a row only when given the tokens it holds: they are
        recomputed from the chunk and checked against ``fts_hash``; on any mismatch (the token
        rules changed since the row was written) the whole keyword index is rebuilt instead.
        """
        removed = 0
        stale_tokens = False
        for path in paths:
            rows = self.db.execute(
                "SELECT id, symbol, signature, text, fts_hash FROM chunks WHERE path = ?", (path,)).fetchall()
            deletes = []
            for chunk_id, symbol, signature, text, fts_hash in rows:
                tokens = codec.fts_tokens_of(path, symbol, signature, codec.unpack_text(text))
                if codec.token_hash(tokens) != fts_hash:
                    stale_tokens = True
                deletes.append((chunk_id, tokens))
            if rows:
                if not stale_tokens:
                    self.db.executemany("INSERT INTO chunks_fts(chunks_fts, rowid, tokens) VALUES ('delete', ?, ?)", deletes)
                self.db.executemany("DELETE FROM symbols WHERE chunk_id = ?", [(d[0],) for d in deletes])
                self.db.execute("DELETE FROM chunks WHERE path = ?", (path,))
                removed += len(rows)
            self.db.execute("DELETE FROM files WHERE path = ?", (path,))
        if stale_tokens:
            self._rebuild_fts()
        return removed

    def _rebuild_fts(self) -> None:
        """Recreate every FTS5 row from the chunks (inside the caller's transaction)."""
        self.db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all')")
        for chunk_id, path, symbol, signature, text in self.db.execute(
                "SELECT id, path, symbol, signature, text FROM chunks").fetchall():
            tokens = codec.fts_tokens_of(path, symbol, signature, codec.unpack_text(text))
            self.db.execute("INSERT INTO chunks_fts(rowid, tokens) VALUES (?, ?)", (chunk_id, tokens))
            self.db.execute("UPDATE chunks SET fts_hash = ? WHERE id = ?", (codec.token_hash(tokens), chunk_id))

    def upsert_file(self, row: FileRow) -> None:
        """Insert or replace the files-table row of ``row.path`` (size in bytes, times in ns), inside the
        caller's transaction."""
        self.db.execute(
            "INSERT OR REPLACE INTO files(path, size, mtime_ns, sha256, language, chunk_count, ctime_ns, inode)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (row.path, row.size, row.mtime_ns, row.sha256, row.language, row.chunk_count, row.ctime_ns, row.inode),
        )

    def chunks_by_id(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        """Chunk id -> :class:`ChunkRow` (text decompressed) for the ``ids`` that exist; ids not in the
        index are absent, not an error. Read :data:`MAX_PARAMS` ids per statement."""
        out: dict[int, ChunkRow] = {}
        ids = list(ids)
        for start in range(0, len(ids), MAX_PARAMS):
            batch = ids[start : start + MAX_PARAMS]
            marks = ",".join("?" * len(batch))
            for r in self.db.execute(
                "SELECT path, start_line, end_line, language, symbol, kind, signature, text, defines, id FROM chunks"
                f" WHERE id IN ({marks})",
                batch,
            ):
                out[r[9]] = ChunkRow(*r[:7], codec.unpack_text(r[7]), defines=bool(r[8]), id=r[9])
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

    def chunks_before(self, path: str, line: int, limit: int = 64) -> list[tuple[int, str | None, str]]:
        """``(chunk id, symbol, kind)`` of the chunks of ``path`` that start before ``line``, nearest
        first, at most ``limit`` (the pieces of a split definition above one of them)."""
        return [(int(r[0]), r[1], r[2]) for r in self.db.execute(
            "SELECT id, symbol, kind FROM chunks WHERE path = ? AND start_line < ? ORDER BY start_line DESC LIMIT ?",
            [path, line, limit])]

    def counts(self) -> dict[str, object]:
        """``files``, ``chunks``, ``embedded`` (chunks with a vector), ``languages`` (files per
        language) and ``cached_embeddings`` (vectors stored, all models)."""
        files = self.db.execute("SELECT COUNT(*) FROM files").fetchone()[0]
        chunks, embedded = self.db.execute("SELECT COUNT(*), COUNT(vec) FROM chunks").fetchone()
        languages = dict(self.db.execute("SELECT language, COUNT(*) FROM files GROUP BY language ORDER BY 2 DESC").fetchall())
        cached = self.db.execute("SELECT COALESCE(SUM(rows), 0) FROM models").fetchone()[0]
        return {"files": files, "chunks": chunks, "embedded": embedded, "languages": languages, "cached_embeddings": cached}

    # --- vectors ---------------------------------------------------------------------------
    def cached_rows(self, model: str, text_hashes: Sequence[str]) -> dict[str, int]:
        """Vector rows already stored for ``model`` (fingerprint), keyed by text hash (hex)."""
        model_id = vectors.model_id(self.db, model)
        if model_id is None:
            return {}
        keys = {codec.key_bytes(h): h for h in text_hashes}
        found = vectors.lookup_rows(self.db, model_id, list(keys))
        return {keys[k]: row for k, row in found.items()}

    def pending_chunks(self, limit: int, after: int = 0) -> list[PendingChunk]:
        """Up to ``limit`` chunks without a vector, by id, with ids above ``after``."""
        rows = self.db.execute(
            "SELECT path, start_line, end_line, language, symbol, kind, signature, text, defines, id FROM chunks"
            " WHERE vec IS NULL AND id > ? ORDER BY id LIMIT ?", (after, limit)).fetchall()
        return [PendingChunk(r[9], ChunkRow(*r[:7], codec.unpack_text(r[7]), defines=bool(r[8]), id=r[9])) for r in rows]

    def pending_count(self, after: int = 0) -> int:
        """Chunks without a vector (with ids above ``after``)."""
        return int(self.db.execute("SELECT count(*) FROM chunks WHERE vec IS NULL AND id > ?", (after,)).fetchone()[0])

    def commit_vectors(self, model: str, dimension: int,
                       items: Sequence[tuple[str, "np.ndarray | None", Sequence[int]]]) -> int:
        """Store vectors and attach them to their chunks, in one transaction of its own.

        ``items``: (text hash hex, (dimension,) float32 unit vector or None when the store already
        has it, ids of the chunks embedding that text, read from :meth:`pending_chunks` under the
        same writer lock). A chunk that has a vector already is left alone. A killed build keeps
        every committed batch. Returns the chunks that got a vector.
        """
        with self._transaction():
            model_id = vectors.model_id(self.db, model, dimension)
            assert model_id is not None
            keys = [codec.key_bytes(h) for h, _, _ in items]
            rows = vectors.append_vectors(self.db, model_id, [(k, v) for k, (_, v, _) in zip(keys, items) if v is not None])
            missing = [k for k in keys if k not in rows]
            if missing:
                rows.update(vectors.lookup_rows(self.db, model_id, missing))
            attached = 0
            if self.meta().get("fingerprint") == model:
                for key, (_, _, chunk_ids) in zip(keys, items):
                    if key not in rows:
                        continue
                    attached += self.db.executemany(
                        "UPDATE chunks SET vec = ? WHERE id = ? AND vec IS NULL",
                        [(rows[key], chunk_id) for chunk_id in chunk_ids]).rowcount
            self.set_meta({"generation": self.generation + 1, "embedded": (self._meta_int("embedded") or 0) + attached})
        return attached

    def dense_view(self) -> DenseView | None:
        """The vectors of the index's chunks (by its recorded model), or None without a model.

        Loaded in one read snapshot and kept for the next call in this process until the next
        commit. About 20 MB and 30 ms at 50k chunks.
        """
        import numpy as np

        with self._snapshot():
            meta = self.meta()
            model_id = vectors.model_id(self.db, meta.get("fingerprint", ""))
            if model_id is None:
                return None
            try:
                inode = self.paths.index_db.stat().st_ino
            except OSError:
                inode = 0
            key = (str(self.paths.index_db), inode, model_id, meta.get("generation"))
            hit = _VIEW_CACHE.get(key)
            if hit is not None:
                return hit
            records = vectors.load_records(self.db, model_id, vectors.model_dimension(self.db, model_id))
            pairs = np.array(self.db.execute("SELECT id, vec FROM chunks WHERE vec IS NOT NULL ORDER BY id").fetchall(),
                             dtype=np.int64).reshape(-1, 2)
        picked = records[pairs[:, 1]]
        view = DenseView(pairs[:, 0].copy(), np.ascontiguousarray(picked["v"]), np.ascontiguousarray(picked["s"]))
        _VIEW_CACHE.clear()
        _VIEW_CACHE[key] = view
        return view

    def reclaim(self) -> None:
        """Return free pages to the file system (``auto_vacuum = INCREMENTAL``; cheap, writers only)."""
        if not self.db.in_transaction:
            # executescript steps it to the end; execute() would free one page (no result columns)
            self.db.executescript("PRAGMA incremental_vacuum;")

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
        recorded = self._meta_int("chunks")
        if recorded is not None:
            return recorded
        return int(self.db.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def coverage(self, meta: Mapping[str, str] | None = None) -> tuple[int, int]:
        """``(chunks with a vector, chunks)`` as recorded at the last commit (from ``meta``, the
        values of :meth:`meta`, when the caller has read them already)."""
        if meta is None or "chunks" not in meta:
            chunks = self.chunk_count()
            embedded = self._meta_int("embedded")
        else:
            chunks, embedded = int(meta["chunks"]), int(meta["embedded"]) if "embedded" in meta else None
        return (chunks if embedded is None else embedded), chunks

    def prefix_ids(self, prefix: str) -> "np.ndarray":
        """Ids of the chunks of the file ``prefix`` or of the files under folder ``prefix`` (no ``/`` at the ends)."""
        import numpy as np

        rows = self.db.execute(
            "SELECT id FROM chunks WHERE path = ? OR substr(path, 1, ?) = ?", (prefix, len(prefix) + 1, prefix + "/")
        ).fetchall()
        return np.array([r[0] for r in rows], dtype=np.int64)

    # --- writing a sync ------------------------------------------------------------------
    def apply(self, changes: ChangeSet) -> Applied:
        """Write ``changes`` in one transaction: files, chunks, keyword index, and for each new
        chunk the vector the store already has for ``changes.model`` (the others get theirs from
        :meth:`commit_vectors`).

        The meta values of the change set are recorded with the commit, plus the new
        ``generation`` and the ``chunks`` and ``embedded`` counts. Raises whatever SQLite raises;
        the transaction is rolled back then, so the previous index stays as it was.
        """
        with self._transaction():
            if changes.full:
                self.db.execute("DELETE FROM chunks")
                self.db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all')")
                self.db.execute("DELETE FROM symbols")
                self.db.execute("DELETE FROM files")
                chunks_removed = 0
            else:
                chunks_removed = self.delete_files([*changes.removed, *(row.path for row, _ in changes.changed)])
            model_id = vectors.model_id(self.db, changes.model) if changes.model else None
            hashes = [entry.embed_hash for _, entries in changes.changed for entry in entries]
            rows = {} if model_id is None else vectors.lookup_rows(self.db, model_id, [codec.key_bytes(h) for h in hashes])
            # Ids given here (above every existing one), so chunks and their FTS5 rows go in with
            # one executemany each: a 52k-chunk build inserts in about a second.
            first_id = int(self.db.execute("SELECT COALESCE(MAX(id), 0) FROM chunks").fetchone()[0]) + 1
            chunk_rows, fts_rows, symbol_rows = [], [], []
            for row, entries in changes.changed:
                for entry in entries:
                    c = entry.chunk
                    chunk_id = first_id + len(chunk_rows)
                    chunk_rows.append((chunk_id, c.path, c.start_line, c.end_line, c.language, c.symbol, c.kind, c.signature,
                                       codec.pack_text(c.text), rows.get(codec.key_bytes(entry.embed_hash)),
                                       codec.token_hash(entry.fts_tokens), int(c.defines)))
                    fts_rows.append((chunk_id, entry.fts_tokens))
                    symbol_rows.extend((symbol_key(symbol), symbol, chunk_id) for symbol in c.definitions if symbol_key(symbol))
            self.db.executemany(
                "INSERT INTO chunks(id, path, start_line, end_line, language, symbol, kind, signature, text, vec, fts_hash,"
                " defines) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", chunk_rows)
            self.db.executemany("INSERT INTO chunks_fts(rowid, tokens) VALUES (?, ?)", fts_rows)
            self.db.executemany("INSERT INTO symbols(key, symbol, chunk_id) VALUES (?, ?, ?)", symbol_rows)
            written = len(chunk_rows)
            first_id = first_id if written else 0
            for row, _ in changes.changed:
                self.upsert_file(row)
            for row in changes.touched:
                self.upsert_file(row)
            total, embedded = self.db.execute("SELECT count(*), count(vec) FROM chunks").fetchone()
            self.set_meta({**changes.meta, "generation": self.generation + 1, "chunks": total, "embedded": embedded})
        return Applied(written, chunks_removed, int(total), int(embedded), first_id)


def _connect(db_path: Path, readonly: bool = False) -> sqlite3.Connection:
    if readonly:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10, check_same_thread=False)
        try:
            db.execute("PRAGMA user_version").fetchone()
        except sqlite3.OperationalError:
            if _writable(db_path):
                raise
            # A read-only folder: a WAL reader cannot create or map the -shm file. Nobody can write
            # the index then either, so reading it as an immutable file is safe.
            db.close()
            db = sqlite3.connect(f"file:{db_path}?mode=ro&immutable=1", uri=True, timeout=10, check_same_thread=False)
    else:
        db = sqlite3.connect(db_path, timeout=30, isolation_level=None, check_same_thread=False)
        # Must come first: auto_vacuum only takes on a database with no page yet (or at a VACUUM).
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA busy_timeout=10000")
    return db


def _writable(db_path: Path) -> bool:
    files = [db_path.parent, *(Path(str(db_path) + suffix) for suffix in ("", "-wal", "-shm"))]
    if not all(os.access(f, os.W_OK) for f in files if f.exists()):
        return False
    try:  # `chattr +i` holds even for root, whom os.access always answers yes
        import fcntl
        import struct

        fd = os.open(db_path.parent, os.O_RDONLY)
        try:
            flags = struct.unpack("i", fcntl.ioctl(fd, 0x80086601, b"\0" * 8)[:4])[0]  # FS_IOC_GETFLAGS
        finally:
            os.close(fd)
        return not flags & 0x10  # FS_IMMUTABLE_FL
    except OSError:
        return True


def open_store(paths: ProjectPaths, *, create: bool = False, readonly: bool = False) -> IndexStore:
    """Open the index database of ``paths``.

    With ``create`` the folder and schema are made, or migrated in place (an index of an older
    schema keeps its chunks and every embedding). Without it, a missing index raises
    :class:`~paqad.errors.IndexMissingError` telling the user to run ``paqad-ai rag init``, and
    an older schema :class:`~paqad.errors.IndexStaleError` (any sync upgrades it). A file that is
    not a usable SQLite database raises :class:`~paqad.errors.IndexCorruptError` (``rebuild``
    recreates it); a schema newer than this version raises PaqadError.
    """
    db_path = paths.index_db
    if not index_exists(paths):
        if not create:
            raise IndexMissingError()
        paths.vectors_dir.mkdir(parents=True, exist_ok=True)
    try:
        db = _connect(db_path, readonly=readonly and not create)
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            db.close()
            raise IndexVersionError(f"{db_path}: index schema v{version} is newer than this paqad-ai (v{SCHEMA_VERSION}); upgrade paqad-ai or run `paqad-ai rag rebuild`")
        if version < READABLE_FROM and not create:
            db.close()
            if version == 0:
                raise IndexMissingError()  # a writer is creating it right now
            raise IndexStaleError([f"index schema v{version} is older than this paqad-ai (v{SCHEMA_VERSION}); "
                                   "any sync upgrades it in place, keeping every embedding"], command="paqad-ai rag refresh-context")
        if version < SCHEMA_VERSION and create:
            # Free pages (rewritten vector blocks, deleted chunks) go back to the file system at the
            # end of each sync (IndexStore.reclaim): auto_vacuum (see _connect) holds from here on.
            if migrate(db, version):
                db.execute("VACUUM")  # give back the pages of the old layout
                vectors.remove_matrices(paths.vectors_dir)
            version = SCHEMA_VERSION
    except sqlite3.DatabaseError as exc:
        raise IndexCorruptError(f"{db_path.relative_to(paths.root)}: index is unreadable ({exc}); run `paqad-ai rag rebuild`") from None
    return IndexStore(paths, db, version)


def _is_text(path: str) -> bool:
    """Whether ``path`` can be stored (UTF-8 text; a name that is not UTF-8 holds surrogates)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def recreate_store(paths: ProjectPaths) -> IndexStore:
    """Delete an unreadable index database (its -wal/-shm too, and v1's derived matrices) and start fresh."""
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


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` says the disk is full: SQLite's ``SQLITE_FULL`` ("database or disk is full")
    or an ``OSError`` with ``ENOSPC`` (a temp file, the section)."""
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(exc)
    return isinstance(exc, OSError) and exc.errno == errno.ENOSPC
