"""Replaying the stored response when a client repeats a POST with the same Idempotency-Key header."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from ledgerly.errors import Conflict
from ledgerly.storage.db import Database

@dataclass(frozen=True)
class StoredResponse:
    status: int
    body: dict


def request_fingerprint(method: str, path: str, body: bytes) -> str:
    """SHA-256 over method, path and body, so a key reused for a different request is detected."""
    digest = hashlib.sha256()
    for part in (method.upper().encode(), path.encode(), body):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


# How long a key and its stored response are kept; a repeat after this runs the handler again.
KEY_TTL = timedelta(hours=24)


class IdempotencyStore:
    """Rows of ``idempotency_keys``: key, fingerprint, status (NULL while in flight), body, created_at."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def begin(self, key: str, fingerprint: str, now: datetime) -> StoredResponse | None:
        """Claim ``key``. Returns the earlier response for a replay, or None when the handler should run."""
        with self.db.transaction() as cur:
            row = cur.execute(
                "SELECT fingerprint, status, body, created_at FROM idempotency_keys WHERE key = ?", (key,)
            ).fetchone()
            if row is not None and datetime.fromisoformat(row[3]) + KEY_TTL < now:
                cur.execute("DELETE FROM idempotency_keys WHERE key = ?", (key,))
                row = None
            if row is None:
                cur.execute(
                    "INSERT INTO idempotency_keys (key, fingerprint, created_at) VALUES (?, ?, ?)",
                    (key, fingerprint, now.isoformat()),
                )
                return None
        stored_fingerprint, status, body, _ = row
        if stored_fingerprint != fingerprint:
            raise Conflict("this Idempotency-Key was already used with a different request")
        if status is None:
            raise Conflict("a request with this Idempotency-Key is still being processed")
        return StoredResponse(status=status, body=json.loads(body))

    def complete(self, key: str, status: int, body: dict) -> None:
        self.db.execute(
            "UPDATE idempotency_keys SET status = ?, body = ? WHERE key = ?", (status, json.dumps(body), key)
        )

    def release(self, key: str) -> None:
        """Forget an in-flight key after the handler failed, so the client may send the request again."""
        self.db.execute("DELETE FROM idempotency_keys WHERE key = ? AND status IS NULL", (key,))

    def purge_expired(self, now: datetime) -> int:
        return self.db.execute("DELETE FROM idempotency_keys WHERE created_at < ?", ((now - KEY_TTL).isoformat(),))
