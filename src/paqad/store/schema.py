"""The index database's schema and its numbered migrations (DESIGN §11).

``PRAGMA user_version`` holds the schema version; :func:`migrate` brings a database up to
:data:`SCHEMA_VERSION`, one transaction per migration, so the version moves only with its tables.
A migration is an SQL script or a function of the connection (run inside the transaction).

Version 2: the symbols table and ``chunks.defines`` (issue 10). Version 3 (issue 13, a smaller index): vectors are stored once, as int8 rows with a float32
scale packed in blocks of :data:`~paqad.store.vectors.BLOCK_ROWS` (``vector_blocks``), keyed by
(model, sha256 of the embedded text) in ``vector_keys``; the derived ``.npy`` matrix is gone.
Chunk text is stored zlib-compressed and ``chunks.vec`` names the chunk's vector row (NULL until
it is embedded, so the keyword index is searchable before embedding ends; a chunk without a
vector recomputes its key from its text, so chunks keep no hash). The FTS5 index is contentless: it keeps the inverted index and the document
lengths BM25 needs, not a second copy of the tokens; a row is deleted with the tokens it was
inserted with, recomputed from the chunk and checked against ``chunks.fts_hash``.

Version 4 (issue 20): ``files.ctime_ns`` and ``files.inode``, so a sync detects changes as git
does (an edit that keeps size and mtime still moves the ctime). Two ``ADD COLUMN`` with a default:
no row is rewritten; rows of a v3 index hold 0 there and their files are hashed once more at the
next sync (not re-chunked, not re-embedded). A v3 index stays readable without the migration
(:data:`READABLE_FROM`): readers never need the new columns, only a sync writes them.
"""

from __future__ import annotations

import sqlite3
from typing import Callable, Union

SCHEMA_VERSION = 4
READABLE_FROM = 3  # the oldest schema a read-only open serves as is (a writer migrates it first)


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

# Symbols as first-class evidence (DESIGN §6, §8.3): whether a chunk holds its symbol's definition
# line, and every symbol whose definition line a chunk holds, looked up by a normalised key (the
# last component of the symbol path, lower case, letters and digits only: `ServeHTTP`,
# `serve_http` and `servehttp` share the key "servehttp").
_M002_SYMBOLS = """
        ALTER TABLE chunks ADD COLUMN defines INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE IF NOT EXISTS symbols (
            key TEXT NOT NULL,
            symbol TEXT NOT NULL,
            chunk_id INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS symbols_key ON symbols(key);
        CREATE INDEX IF NOT EXISTS symbols_chunk ON symbols(chunk_id);
"""

_M003_TABLES = """
        CREATE TABLE models (
            id INTEGER PRIMARY KEY,
            fingerprint TEXT NOT NULL UNIQUE,
            dimension INTEGER NOT NULL,
            rows INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE vector_keys (
            model INTEGER NOT NULL,
            text_hash BLOB NOT NULL,  -- first 16 bytes of the sha256 of the embedded text
            row INTEGER NOT NULL,
            PRIMARY KEY (model, text_hash)
        ) WITHOUT ROWID;
        CREATE TABLE vector_blocks (
            id INTEGER PRIMARY KEY,
            model INTEGER NOT NULL,
            block INTEGER NOT NULL,
            data BLOB NOT NULL,
            UNIQUE (model, block)
        );
        ALTER TABLE chunks ADD COLUMN vec INTEGER;
        ALTER TABLE chunks ADD COLUMN fts_hash INTEGER NOT NULL DEFAULT 0;
"""

FTS_CONTENTLESS = """
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            tokens, content = '', tokenize = 'porter unicode61 remove_diacritics 2'
        );
"""


def _m003_compact(db: sqlite3.Connection) -> None:
    """Version 3: compact vectors, compressed chunk text, contentless FTS5 (module docstring).

    Converts an existing index in place, keeping every cached embedding (as int8) and every
    chunk, so an upgrade embeds nothing again. Columns other migrations added to ``chunks`` are
    kept (the table is altered, never recreated).
    """
    from paqad.store import codec, vectors

    run_script(db, _M003_TABLES)
    models: dict[str, int] = {}
    pending: dict[int, list[tuple[bytes, bytes]]] = {}
    for fingerprint, text_hash, blob in db.execute("SELECT model, text_hash, vector FROM embeddings ORDER BY model, created_at, text_hash"):
        dimension = len(blob) // 4
        if fingerprint not in models:
            cur = db.execute("INSERT INTO models(fingerprint, dimension) VALUES (?, ?)", (fingerprint, dimension))
            models[fingerprint] = int(cur.lastrowid)
        pending.setdefault(models[fingerprint], []).append((codec.key_bytes(text_hash), blob))
    for model_id, items in pending.items():
        vectors.append_float32_blobs(db, model_id, items)
    rows = db.execute("SELECT id, path, start_line, end_line, language, symbol, kind, signature, text, embed_hash FROM chunks").fetchall()
    db.execute("DROP TABLE chunks_fts")
    run_script(db, FTS_CONTENTLESS)
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    index_model = models.get(meta.get("fingerprint", ""))
    for row in rows:
        chunk_id, text, embed_hash = row[0], row[8], row[9]
        key = codec.key_bytes(embed_hash)
        tokens = codec.fts_tokens_of(row[1], row[5], row[7], text)
        vec = None
        if index_model is not None:
            found = db.execute("SELECT row FROM vector_keys WHERE model = ? AND text_hash = ?", (index_model, key)).fetchone()
            vec = found[0] if found else None
        db.execute("UPDATE chunks SET text = ?, vec = ?, fts_hash = ? WHERE id = ?",
                   (codec.pack_text(text), vec, codec.token_hash(tokens), chunk_id))
        db.execute("INSERT INTO chunks_fts(rowid, tokens) VALUES (?, ?)", (chunk_id, tokens))
    db.execute("ALTER TABLE chunks DROP COLUMN content_hash")
    db.execute("ALTER TABLE chunks DROP COLUMN embed_hash")
    db.execute("DROP TABLE embeddings")


_M004_FILE_STAT = """
        ALTER TABLE files ADD COLUMN ctime_ns INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE files ADD COLUMN inode INTEGER NOT NULL DEFAULT 0
"""


def run_script(db: sqlite3.Connection, script: str) -> None:
    """Run the ``;``-separated statements of ``script`` in the current transaction.

    (``executescript`` would commit the transaction first.) The scripts here hold no ``;``
    inside a statement.
    """
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


Migration = Union[str, Callable[[sqlite3.Connection], None]]

# Numbered migrations (index = schema version reached). An index older than the first entry
# we can migrate from is rebuilt with a stated reason.
MIGRATIONS: list[Migration] = [_M001_INITIAL, _M002_SYMBOLS, _m003_compact, _M004_FILE_STAT]  # entry N brings the schema to version N


def migrate(db: sqlite3.Connection, version: int) -> bool:
    """Apply every migration above ``version`` (the database's ``user_version``) in order.

    Each runs in one transaction with the version bump. A built index's recorded
    ``schema_version`` moves with it (a migrated index stays valid: nothing to rebuild). Returns
    whether a migration converted existing data (the caller then reclaims the freed pages).
    """
    converted = False
    for number, step in enumerate(MIGRATIONS, start=1):
        if version >= number:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            if isinstance(step, str):
                run_script(db, step)
            else:
                converted = converted or bool(db.execute("SELECT 1 FROM meta WHERE key = 'built_at'").fetchone())
                step(db)
            db.execute(f"PRAGMA user_version = {number}")
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(number),))
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
    return converted
