"""Calling flaky upstreams (card processor, SMS provider) patiently: capped exponential delays with full jitter."""

from __future__ import annotations

import email.utils
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")

# Statuses worth another attempt: timeouts, rate limiting and server-side failures.
TRANSIENT_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class Patience:
    """How long to keep at it: attempts in total, delay base and cap, overall deadline (all in seconds)."""

    attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 20.0
    deadline: float = 60.0


class UpstreamError(Exception):
    """An upstream call failed; ``status`` is None for network errors and timeouts."""

    def __init__(self, message: str, status: int | None = None, wait_hint: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.wait_hint = wait_hint

    @property
    def transient(self) -> bool:
        return self.status is None or self.status in TRANSIENT_STATUS


def delay_for(attempt: int, policy: Patience, rng: random.Random) -> float:
    """Full jitter: uniform(0, min(max_delay, base_delay * 2**attempt)) seconds.

    Source: Marc Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog (2015).
    """
    ceiling = min(policy.max_delay, policy.base_delay * (2**attempt))
    return rng.uniform(0.0, ceiling)


def parse_wait_header(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP-date); None if absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def call_with_patience(
    fn: Callable[[], T],
    policy: Patience = Patience(),
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    rng: random.Random | None = None,
) -> T:
    """Run ``fn`` until it succeeds, waiting between transient failures; re-raises the last UpstreamError."""
    rng = rng or random.Random()
    started = clock()
    attempt = 0
    while True:
        try:
            return fn()
        except UpstreamError as exc:
            attempt += 1
            if not exc.transient or attempt >= policy.attempts:
                raise
            wait = exc.wait_hint if exc.wait_hint is not None else delay_for(attempt - 1, policy, rng)
            if clock() - started + wait > policy.deadline:
                raise
            log.warning("upstream failed (%s), attempt %d/%d, waiting %.2fs", exc, attempt, policy.attempts, wait)
            sleep(wait)
