"""SQLite access for the service: one shared connection, WAL mode, explicit write transactions."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from typing import Any

URL_PREFIX = "sqlite:///"


class Database:
    """Thin wrapper over ``sqlite3`` that serialises writers with a re-entrant lock."""

    def __init__(self, url: str) -> None:
        if not url.startswith(URL_PREFIX):
            raise ValueError(f"unsupported database url {url!r}: expected {URL_PREFIX}PATH")
        self.path = url[len(URL_PREFIX):]
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._conn.execute("PRAGMA busy_timeout=5000")
        self._lock = threading.RLock()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Cursor]:
        """BEGIN IMMEDIATE ... COMMIT; rolled back if the block raises."""
        with self._lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield cur
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            cur.execute("COMMIT")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def query_one(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one write statement in its own transaction; returns the number of affected rows."""
        with self.transaction() as cur:
            cur.execute(sql, params)
            return cur.rowcount

    def close(self) -> None:
        with self._lock:
            self._conn.close()
