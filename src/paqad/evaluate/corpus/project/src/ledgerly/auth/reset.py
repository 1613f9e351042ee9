"""Forgotten passwords: single-use links whose token is stored only as a SHA-256 digest."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta, timezone

from ledgerly.auth.passwords import hash_password, strength_problems
from ledgerly.errors import BadRequest
from ledgerly.notifications.dispatcher import Dispatcher
from ledgerly.storage.db import Database
from ledgerly.storage.repositories import CustomerRepository

RESET_TTL = timedelta(minutes=30)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def request_password_reset(
    db: Database, dispatcher: Dispatcher, email: str, base_url: str, now: datetime | None = None
) -> bool:
    """Send a reset link if ``email`` belongs to a customer; returns whether one was sent.

    The API answers 202 either way, so the endpoint cannot be used to find out who has an account.
    """
    now = now or datetime.now(timezone.utc)
    customer = CustomerRepository(db).by_email(email)
    if customer is None:
        return False
    token = secrets.token_urlsafe(32)
    db.execute(
        "INSERT INTO password_resets (digest, customer_id, expires_at) VALUES (?, ?, ?)",
        (_digest(token), customer.id, (now + RESET_TTL).isoformat()),
    )
    link = f"{base_url.rstrip('/')}/reset-password?token={token}"
    dispatcher.notify(customer.id, "password_reset", {"email": customer.email, "link": link})
    return True


def complete_password_reset(db: Database, token: str, new_password: str, now: datetime | None = None) -> str:
    """Set the new password, burn the token and end every session of that customer; returns the customer id."""
    problems = strength_problems(new_password)
    if problems:
        raise BadRequest("; ".join(problems))
    now = now or datetime.now(timezone.utc)
    digest = _digest(token)
    with db.transaction() as cur:
        row = cur.execute(
            "SELECT customer_id, expires_at, used_at FROM password_resets WHERE digest = ?", (digest,)
        ).fetchone()
        if row is None or row[2] is not None or datetime.fromisoformat(row[1]) <= now:
            raise BadRequest("this reset link is invalid or has expired; ask for a new one")
        customer_id = row[0]
        cur.execute("UPDATE password_resets SET used_at = ? WHERE digest = ?", (now.isoformat(), digest))
        cur.execute("UPDATE customers SET password_hash = ? WHERE id = ?", (hash_password(new_password), customer_id))
        cur.execute("DELETE FROM sessions WHERE customer_id = ?", (customer_id,))
    return customer_id
