"""Append-only record of privileged actions. Each entry stores the SHA-256 of the previous one,
so rewriting or deleting an old row breaks every later link."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone

from ledgerly.storage.db import Database

GENESIS = "0" * 64


@dataclass(frozen=True)
class AuditEntry:
    seq: int
    actor: str
    action: str
    target: str
    at: str
    payload: dict
    prev_digest: str
    digest: str


def _digest(prev: str, actor: str, action: str, target: str, at: str, payload: dict) -> str:
    body = json.dumps([prev, actor, action, target, at, payload], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


class AuditTrail:
    """Writes and checks the ``audit_log`` table."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def append(self, actor: str, action: str, target: str, payload: dict | None = None) -> AuditEntry:
        """Record that ``actor`` did ``action`` on ``target`` (e.g. "cli", "token.issue", "<token id>")."""
        payload = payload or {}
        at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self.db.transaction() as cur:
            row = cur.execute("SELECT seq, digest FROM audit_log ORDER BY seq DESC LIMIT 1").fetchone()
            seq, prev = (row[0] + 1, row[1]) if row else (1, GENESIS)
            digest = _digest(prev, actor, action, target, at, payload)
            cur.execute(
                "INSERT INTO audit_log (seq, actor, action, target, at, payload, prev_digest, digest)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (seq, actor, action, target, at, json.dumps(payload, sort_keys=True), prev, digest),
            )
        return AuditEntry(seq, actor, action, target, at, payload, prev, digest)

    def verify(self) -> int | None:
        """Walk the chain from the start; return the seq of the first entry whose link is broken, else None."""
        prev = GENESIS
        rows = self.db.query(
            "SELECT seq, actor, action, target, at, payload, prev_digest, digest FROM audit_log ORDER BY seq"
        )
        for seq, actor, action, target, at, payload, prev_digest, digest in rows:
            expected = _digest(prev, actor, action, target, at, json.loads(payload))
            if prev_digest != prev or digest != expected:
                return seq
            prev = digest
        return None

    def recent(self, limit: int = 50) -> list[AuditEntry]:
        rows = self.db.query(
            "SELECT seq, actor, action, target, at, payload, prev_digest, digest FROM audit_log"
            " ORDER BY seq DESC LIMIT ?",
            (limit,),
        )
        return [AuditEntry(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7]) for r in rows]
