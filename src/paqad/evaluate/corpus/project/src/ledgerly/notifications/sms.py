"""Text messages: numbers in E.164 form, provider part counting, and the provider's HTTP API."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from ledgerly.http.resilience import Patience, UpstreamError, call_with_patience, parse_wait_header

COUNTRY_CALLING_CODES = {"DE": "49", "AT": "43", "CH": "41", "FR": "33", "NL": "31", "GB": "44", "IE": "353", "US": "1"}
MAX_PARTS = 4

# GSM 03.38 basic character set (3GPP TS 23.038, 6.2.1); characters of the extension table cost two septets.
GSM7_BASIC = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM7_EXTENDED = frozenset("^{}\\[~]|€\f")


def normalize_msisdn(raw: str, default_country: str = "DE") -> str:
    """'030 1234567' -> '+49301234567'; numbers starting with '+' or '00' keep their own country code."""
    digits = "".join(ch for ch in raw if ch.isdigit() or ch == "+")
    if digits.startswith("+"):
        number = digits[1:]
    elif digits.startswith("00"):
        number = digits[2:]
    elif digits.startswith("0"):
        number = COUNTRY_CALLING_CODES[default_country] + digits[1:]
    else:
        number = COUNTRY_CALLING_CODES[default_country] + digits
    if "+" in number or not 8 <= len(number) <= 15:
        raise ValueError(f"not a phone number: {raw!r}")
    return "+" + number


def segment_count(text: str) -> int:
    """Parts the provider bills: 160 GSM-7 septets (153 each when concatenated) or 70 UCS-2 units (67 each)."""
    if all(ch in GSM7_BASIC or ch in GSM7_EXTENDED for ch in text):
        length = sum(2 if ch in GSM7_EXTENDED else 1 for ch in text)
        single, multi = 160, 153
    else:
        length = len(text.encode("utf-16-le")) // 2
        single, multi = 70, 67
    if length <= single:
        return 1
    return -(-length // multi)


class SmsSender:
    def __init__(
        self,
        api_url: str,
        api_key: str,
        sender_id: str,
        opener: Callable[..., Any] = urllib.request.urlopen,
        patience: Patience = Patience(attempts=3, base_delay=2.0, max_delay=30.0, deadline=120.0),
    ) -> None:
        self.api_url = api_url
        self._api_key = api_key
        self.sender_id = sender_id
        self._open = opener
        self.patience = patience

    def send(self, to: str, text: str) -> str:
        """Send ``text`` to ``to``; returns the provider's message id."""
        number = normalize_msisdn(to)
        if segment_count(text) > MAX_PARTS:
            raise ValueError(f"message needs more than {MAX_PARTS} parts; shorten the template")
        payload = json.dumps({"from": self.sender_id, "to": number, "text": text}).encode()

        def attempt() -> str:
            request = urllib.request.Request(
                self.api_url,
                data=payload,
                headers={"Authorization": f"Bearer {self._api_key}", "Content-Type": "application/json"},
                method="POST",
            )
            try:
                with self._open(request, timeout=10) as response:
                    return str(json.loads(response.read())["message_id"])
            except urllib.error.HTTPError as exc:
                wait = parse_wait_header(exc.headers.get("Retry-After"))
                raise UpstreamError(f"sms provider answered {exc.code}", status=exc.code, wait_hint=wait) from exc
            except (urllib.error.URLError, TimeoutError) as exc:
                raise UpstreamError(f"sms provider unreachable: {exc}") from exc

        return call_with_patience(attempt, self.patience)
