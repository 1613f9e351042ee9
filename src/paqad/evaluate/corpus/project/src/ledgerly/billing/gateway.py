"""Card charges and refunds through the payment provider's REST API, wrapped in call_with_patience."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ledgerly.errors import GatewayUnavailable
from ledgerly.http.resilience import Patience, UpstreamError, call_with_patience, parse_wait_header
from ledgerly.money import Money

# Charges are user-facing: fewer and shorter waits than the defaults for background work.
GATEWAY_PATIENCE = Patience(attempts=4, base_delay=1.0, max_delay=8.0, deadline=30.0)


@dataclass(frozen=True)
class ChargeResult:
    ok: bool
    charge_id: str | None
    decline_code: str | None = None


class PaymentGateway:
    """Minimal client: form-encoded POSTs with a bearer key and our Idempotency-Key on every write."""

    def __init__(
        self, base_url: str, api_key: str, timeout: float = 10.0, opener: Callable[..., Any] = urllib.request.urlopen
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.timeout = timeout
        self._open = opener

    def _post(self, path: str, form: dict[str, str], idempotency_key: str) -> tuple[int, dict]:
        request = urllib.request.Request(
            f"{self.base_url}{path}",
            data=urllib.parse.urlencode(form).encode(),
            headers={"Authorization": f"Bearer {self._api_key}", "Idempotency-Key": idempotency_key},
            method="POST",
        )
        try:
            with self._open(request, timeout=self.timeout) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            body = json.loads(exc.read() or b"{}")
            if exc.code == 402:
                return exc.code, body
            wait = parse_wait_header(exc.headers.get("Retry-After"))
            raise UpstreamError(f"gateway answered {exc.code}", status=exc.code, wait_hint=wait) from exc
        except (urllib.error.URLError, TimeoutError) as exc:
            raise UpstreamError(f"gateway unreachable: {exc}") from exc

    def charge(self, customer_ref: str, amount: Money, idempotency_key: str, description: str) -> ChargeResult:
        """Charge the customer's default card. A decline is a result, not an exception."""
        form = {
            "customer": customer_ref,
            "amount": str(amount.minor),
            "currency": amount.currency.lower(),
            "description": description,
        }
        try:
            status, body = call_with_patience(
                lambda: self._post("/v1/charges", form, idempotency_key), GATEWAY_PATIENCE
            )
        except UpstreamError as exc:
            raise GatewayUnavailable(f"payment gateway unavailable: {exc}") from exc
        if status == 402:
            return ChargeResult(ok=False, charge_id=body.get("charge"), decline_code=body.get("decline_code", "card_declined"))
        return ChargeResult(ok=True, charge_id=body["id"])

    def refund(self, charge_id: str, amount: Money, idempotency_key: str) -> str:
        form = {"charge": charge_id, "amount": str(amount.minor)}
        try:
            _, body = call_with_patience(lambda: self._post("/v1/refunds", form, idempotency_key), GATEWAY_PATIENCE)
        except UpstreamError as exc:
            raise GatewayUnavailable(f"payment gateway unavailable: {exc}") from exc
        return str(body["id"])
