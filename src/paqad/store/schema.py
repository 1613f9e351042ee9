"""The index database's schema and its numbered migrations (DESIGN §11).

``PRAGMA user_version`` holds the schema version; :func:`migrate` brings a database up to
:data:`SCHEMA_VERSION`, one transaction per migration, so the version moves only with its tables.
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 2


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

# Numbered migrations (index = schema version reached). An index older than the first entry
# we can migrate from is rebuilt with a stated reason.
MIGRATIONS = [_M001_INITIAL, _M002_SYMBOLS]  # SQL scripts; entry N brings the schema to version N


def migrate(db: sqlite3.Connection, version: int) -> None:
    """Apply every migration above ``version`` (the database's ``user_version``) in order."""
    for number, script in enumerate(MIGRATIONS, start=1):
        if version < number:
            db.executescript(f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {number};\nCOMMIT;")
