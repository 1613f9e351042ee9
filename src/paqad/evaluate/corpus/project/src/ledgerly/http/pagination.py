"""Opaque list cursors: base64url JSON of the last row's sort key, prefixed with a truncated HMAC
so clients cannot forge positions."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from dataclasses import dataclass

from ledgerly.errors import BadRequest

DEFAULT_LIMIT = 25
MAX_LIMIT = 100
_MAC_BYTES = 12


@dataclass(frozen=True)
class Page:
    items: list[dict]
    next_cursor: str | None


def _mac(body: bytes, secret: bytes) -> bytes:
    return hmac.new(secret, body, hashlib.sha256).digest()[:_MAC_BYTES]


def encode_cursor(position: tuple[str, str], secret: bytes) -> str:
    """(sort value, row id) -> url-safe token without padding."""
    body = json.dumps(list(position), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(_mac(body, secret) + body).rstrip(b"=").decode()


def decode_cursor(cursor: str, secret: bytes) -> tuple[str, str]:
    """Inverse of encode_cursor; raises BadRequest for a malformed or tampered cursor."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except (ValueError, binascii.Error) as exc:
        raise BadRequest("cursor is not valid base64url") from exc
    mac, body = raw[:_MAC_BYTES], raw[_MAC_BYTES:]
    if not hmac.compare_digest(mac, _mac(body, secret)):
        raise BadRequest("cursor was modified or belongs to another deployment")
    sort_value, row_id = json.loads(body)
    return str(sort_value), str(row_id)


def clamp_limit(raw: str | None) -> int:
    """Page size from the ``limit`` query parameter, kept within 1..MAX_LIMIT."""
    if raw is None or raw == "":
        return DEFAULT_LIMIT
    try:
        value = int(raw)
    except ValueError as exc:
        raise BadRequest(f"limit must be an integer, got {raw!r}") from exc
    return max(1, min(MAX_LIMIT, value))


def paginate(rows: list[dict], limit: int, secret: bytes, sort_key: tuple[str, str] = ("created_at", "id")) -> Page:
    """``rows`` holds up to limit+1 rows in sort order; the extra row only tells us another page exists."""
    items = rows[:limit]
    if len(rows) <= limit or not items:
        return Page(items=items, next_cursor=None)
    last = items[-1]
    return Page(items=items, next_cursor=encode_cursor((str(last[sort_key[0]]), str(last[sort_key[1]])), secret))
