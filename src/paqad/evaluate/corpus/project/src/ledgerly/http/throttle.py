"""Per-client request allowance: token buckets keyed by route class and caller, refilled continuously."""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ledgerly.errors import TooManyRequests


@dataclass
class TokenBucket:
    """At most ``capacity`` tokens, ``refill_per_second`` added continuously; a request costs one token."""

    capacity: float
    refill_per_second: float
    tokens: float
    updated_at: float

    def consume(self, now: float, cost: float = 1.0) -> float:
        """Take ``cost`` tokens; returns 0.0 on success, else the seconds until enough have refilled."""
        elapsed = max(0.0, now - self.updated_at)
        self.tokens = min(self.capacity, self.tokens + elapsed * self.refill_per_second)
        self.updated_at = now
        if self.tokens >= cost:
            self.tokens -= cost
            return 0.0
        return (cost - self.tokens) / self.refill_per_second


class Throttle:
    """One bucket per (route class, client key); the least recently used buckets go beyond ``max_keys``."""

    def __init__(
        self,
        rules: dict[str, tuple[float, float]],
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 50_000,
    ) -> None:
        self.rules = rules
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: OrderedDict[tuple[str, str], TokenBucket] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def from_file(cls, path: Path) -> Throttle:
        """Load ``{"classes": {"read": {"burst": 60, "per_minute": 600}, ...}}`` (config/rate_limits.json)."""
        data = json.loads(path.read_text(encoding="utf-8"))
        rules = {name: (float(r["burst"]), float(r["per_minute"]) / 60.0) for name, r in data["classes"].items()}
        return cls(rules)

    def check(self, route_class: str, client_key: str) -> None:
        """Raise TooManyRequests, carrying the wait in seconds, when the caller's bucket is empty."""
        if route_class not in self.rules:
            return
        capacity, refill = self.rules[route_class]
        now = self.clock()
        with self._lock:
            key = (route_class, client_key)
            bucket = self._buckets.pop(key, None) or TokenBucket(capacity, refill, capacity, now)
            self._buckets[key] = bucket
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
            wait = bucket.consume(now)
        if wait > 0:
            raise TooManyRequests(f"too many {route_class} requests", retry_after=wait)
