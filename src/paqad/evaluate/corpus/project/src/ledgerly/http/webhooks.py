"""Inbound events: HMAC-SHA256 over "<timestamp>.<raw body>", compared in constant time, with a freshness window."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from collections.abc import Callable, Iterable

from ledgerly.errors import BadRequest, Unauthorized

log = logging.getLogger(__name__)

SCHEME = "v1"


def parse_signature_header(header: str) -> tuple[int, list[str]]:
    """'t=1700000000,v1=abc,v1=def' -> (1700000000, ['abc', 'def']); several v1 values during secret rotation."""
    timestamp: int | None = None
    signatures: list[str] = []
    for item in header.split(","):
        name, _, value = item.strip().partition("=")
        if name == "t" and value.isdigit():
            timestamp = int(value)
        elif name == SCHEME and value:
            signatures.append(value)
    if timestamp is None or not signatures:
        raise Unauthorized("signature header lacks a timestamp or a v1 signature")
    return timestamp, signatures


def compute_signature(secret: str, timestamp: int, payload: bytes) -> str:
    signed = str(timestamp).encode() + b"." + payload
    return hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


# Events signed longer ago (or further ahead) than this are refused, so a captured request cannot be replayed.
TOLERANCE_SECONDS = 300


def verify_signature(payload: bytes, header: str, secrets: Iterable[str], now: float | None = None) -> int:
    """Accept the event if any active secret signed it within TOLERANCE_SECONDS; returns the signed timestamp."""
    timestamp, candidates = parse_signature_header(header)
    current = time.time() if now is None else now
    if abs(current - timestamp) > TOLERANCE_SECONDS:
        raise Unauthorized(f"event timestamp is {int(current - timestamp)} s off; replay rejected")
    for secret in secrets:
        expected = compute_signature(secret, timestamp, payload)
        if any(hmac.compare_digest(expected, candidate) for candidate in candidates):
            return timestamp
    raise Unauthorized("no valid signature for this payload")


def dispatch_event(payload: bytes, handlers: dict[str, Callable[[dict], None]]) -> bool:
    """Route a verified event by its ``type``; unknown types are acknowledged and ignored (returns False)."""
    try:
        event = json.loads(payload)
    except json.JSONDecodeError as exc:
        raise BadRequest("event body is not JSON") from exc
    handler = handlers.get(event.get("type", ""))
    if handler is None:
        log.info("ignoring event type %s", event.get("type"))
        return False
    handler(event)
    return True
