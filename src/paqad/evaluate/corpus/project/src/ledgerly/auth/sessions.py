"""Dashboard sign-in sessions: a sliding idle timeout plus an absolute cap; the id travels HMAC-signed."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone

from ledgerly.auth.permissions import Principal, scopes_for_role
from ledgerly.errors import Unauthorized
from ledgerly.storage.db import Database

IDLE_TIMEOUT = timedelta(hours=2)
ABSOLUTE_LIFETIME = timedelta(days=14)
# Writing last_seen_at on every request would turn each read into a write; once a minute is enough.
TOUCH_INTERVAL = timedelta(seconds=60)


@dataclass(frozen=True)
class Session:
    id: str
    customer_id: str
    created_at: datetime
    last_seen_at: datetime


def session_expiry(session: Session, idle: timedelta = IDLE_TIMEOUT, absolute: timedelta = ABSOLUTE_LIFETIME) -> datetime:
    """The earlier of last activity + idle timeout and creation + absolute lifetime."""
    return min(session.last_seen_at + idle, session.created_at + absolute)


def sign_session_cookie(session_id: str, secret: str) -> str:
    mac = hmac.new(secret.encode(), session_id.encode(), hashlib.sha256).hexdigest()[:32]
    return f"{session_id}.{mac}"


def read_session_cookie(value: str, secret: str) -> str | None:
    """The session id from a signed value, or None when the signature does not match."""
    session_id, _, _ = value.rpartition(".")
    if not session_id or not hmac.compare_digest(sign_session_cookie(session_id, secret), value):
        return None
    return session_id


class SessionStore:
    def __init__(self, db: Database, clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> None:
        self.db = db
        self.clock = clock

    def create(self, customer_id: str) -> Session:
        now = self.clock()
        session = Session(secrets.token_urlsafe(24), customer_id, now, now)
        self.db.execute(
            "INSERT INTO sessions (id, customer_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)",
            (session.id, customer_id, now.isoformat(), now.isoformat()),
        )
        return session

    def load(self, session_id: str) -> tuple[Session, Principal]:
        """Fetch a live session and slide its idle window; Unauthorized when it is missing or expired."""
        row = self.db.query_one(
            "SELECT s.id, s.customer_id, s.created_at, s.last_seen_at, c.role FROM sessions s"
            " JOIN customers c ON c.id = s.customer_id WHERE s.id = ?",
            (session_id,),
        )
        if row is None:
            raise Unauthorized("session not found; sign in again")
        session = Session(row[0], row[1], datetime.fromisoformat(row[2]), datetime.fromisoformat(row[3]))
        now = self.clock()
        if now >= session_expiry(session):
            self.destroy(session.id)
            raise Unauthorized("session expired; sign in again")
        if now - session.last_seen_at >= TOUCH_INTERVAL:
            self.db.execute("UPDATE sessions SET last_seen_at = ? WHERE id = ?", (now.isoformat(), session.id))
            session = replace(session, last_seen_at=now)
        return session, Principal(session.customer_id, scopes_for_role(row[4]), via=f"session:{session.id}")

    def destroy(self, session_id: str) -> None:
        self.db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def destroy_all_for(self, customer_id: str) -> int:
        return self.db.execute("DELETE FROM sessions WHERE customer_id = ?", (customer_id,))
