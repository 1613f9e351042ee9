"""Persistence: the SQLite database, schema migrations, repositories and blob storage for documents."""

from __future__ import annotations

from ledgerly.storage.db import Database

__all__ = ["Database"]
