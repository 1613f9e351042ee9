"""API keys: 'lk_<mode>_<lookup>_<secret>' is shown once; we keep only the lookup id and a SHA-256 of the secret."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone

from ledgerly.auth.permissions import Principal
from ledgerly.errors import Unauthorized
from ledgerly.storage.db import Database

PREFIX = "lk"
LOOKUP_HEX_CHARS = 8


@dataclass(frozen=True)
class IssuedToken:
    token_id: str
    plaintext: str  # shown to the user once, never stored


def generate_token(mode: str = "live") -> tuple[str, str, str]:
    """Return (plaintext, lookup, secret). The secret carries 256 bits from ``secrets``."""
    lookup = secrets.token_hex(LOOKUP_HEX_CHARS // 2)
    secret = secrets.token_urlsafe(32)
    return f"{PREFIX}_{mode}_{lookup}_{secret}", lookup, secret


def digest_secret(secret: str) -> str:
    # A fast hash is enough here: unlike a password, the secret is random and long.
    return hashlib.sha256(secret.encode()).hexdigest()


class ApiTokenService:
    def __init__(self, db: Database) -> None:
        self.db = db

    def issue(self, customer_id: str, scopes: frozenset[str], label: str, mode: str = "live") -> IssuedToken:
        plaintext, lookup, secret = generate_token(mode)
        token_id = str(uuid.uuid4())
        self.db.execute(
            "INSERT INTO api_tokens (id, customer_id, lookup, digest, scopes, label, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (token_id, customer_id, lookup, digest_secret(secret), " ".join(sorted(scopes)), label,
             datetime.now(timezone.utc).isoformat()),
        )
        return IssuedToken(token_id=token_id, plaintext=plaintext)

    def authenticate(self, plaintext: str) -> Principal:
        """Resolve a bearer key to its customer and scopes; Unauthorized for malformed, unknown or revoked keys."""
        parts = plaintext.strip().split("_", 3)
        if len(parts) != 4 or parts[0] != PREFIX:
            raise Unauthorized("malformed API key")
        _, _, lookup, secret = parts
        row = self.db.query_one(
            "SELECT id, customer_id, digest, scopes, revoked_at FROM api_tokens WHERE lookup = ?", (lookup,)
        )
        # Compare even when the row is missing, so timing does not reveal which lookup ids exist.
        stored = row[2] if row else "0" * 64
        if not hmac.compare_digest(stored, digest_secret(secret)) or row is None:
            raise Unauthorized("unknown API key")
        if row[4] is not None:
            raise Unauthorized("this API key was revoked")
        return Principal(customer_id=row[1], scopes=frozenset(row[3].split()), via=f"token:{row[0]}")

    def revoke(self, token_id: str, customer_id: str) -> bool:
        changed = self.db.execute(
            "UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND customer_id = ? AND revoked_at IS NULL",
            (datetime.now(timezone.utc).isoformat(), token_id, customer_id),
        )
        return changed == 1
