"""Stored credentials: PBKDF2-HMAC-SHA256 with a random salt, encoded as pbkdf2_sha256$<iterations>$<salt>$<key>."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

ALGORITHM = "pbkdf2_sha256"
# OWASP Password Storage Cheat Sheet (2023): 600,000 iterations for PBKDF2-HMAC-SHA256.
ITERATIONS = 600_000
SALT_BYTES = 16
MIN_LENGTH = 12
COMMON = frozenset({"password1234", "123456789012", "qwertyuiopas", "letmein12345", "ledgerly2024!"})


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


def hash_password(plain: str, *, iterations: int = ITERATIONS, salt: bytes | None = None) -> str:
    """Derive a 32-byte key and return the self-describing encoded string."""
    salt = salt or secrets.token_bytes(SALT_BYTES)
    derived = hashlib.pbkdf2_hmac("sha256", plain.encode("utf-8"), salt, iterations, dklen=32)
    return f"{ALGORITHM}${iterations}${_b64(salt)}${_b64(derived)}"


def verify_password(plain: str, encoded: str) -> bool:
    """Constant-time comparison; False (never an exception) for malformed or foreign encodings."""
    try:
        algorithm, iterations, salt, expected = encoded.split("$")
        rounds = int(iterations)
    except ValueError:
        return False
    if algorithm != ALGORITHM:
        return False
    derived = hashlib.pbkdf2_hmac("sha256", plain.encode("utf-8"), _unb64(salt), rounds, dklen=32)
    return hmac.compare_digest(derived, _unb64(expected))


def needs_rehash(encoded: str) -> bool:
    """True for hashes made with fewer iterations than today's setting (upgrade them at the next login)."""
    parts = encoded.split("$")
    return len(parts) != 4 or parts[0] != ALGORITHM or int(parts[1]) < ITERATIONS


def strength_problems(plain: str, email: str = "") -> list[str]:
    """Human-readable reasons to refuse a new password; empty when it is acceptable."""
    problems = []
    if len(plain) < MIN_LENGTH:
        problems.append(f"use at least {MIN_LENGTH} characters")
    if plain.lower() in COMMON:
        problems.append("this password is too common")
    local_part = email.split("@")[0].lower()
    if len(local_part) >= 4 and local_part in plain.lower():
        problems.append("do not include your e-mail name")
    if len(set(plain)) < 5:
        problems.append("use more different characters")
    return problems
