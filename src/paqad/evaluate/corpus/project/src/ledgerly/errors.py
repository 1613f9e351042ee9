"""Exception hierarchy shared by all layers; app.py maps each class to an HTTP status and JSON body."""

from __future__ import annotations


class LedgerlyError(Exception):
    """Base class. ``status`` is the HTTP status the API answers with, ``code`` a stable machine name."""

    status = 500
    code = "internal_error"

    def __init__(self, message: str, *, detail: dict | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail or {}

    def to_payload(self) -> dict:
        return {"error": {"code": self.code, "message": self.message, **self.detail}}


class ConfigError(LedgerlyError):
    code = "config_error"


class BadRequest(LedgerlyError):
    status = 400
    code = "bad_request"


class Unauthorized(LedgerlyError):
    status = 401
    code = "unauthorized"


class PaymentDeclined(LedgerlyError):
    status = 402
    code = "payment_declined"


class Forbidden(LedgerlyError):
    status = 403
    code = "forbidden"


class NotFound(LedgerlyError):
    status = 404
    code = "not_found"


class Conflict(LedgerlyError):
    status = 409
    code = "conflict"


class TooManyRequests(LedgerlyError):
    status = 429
    code = "too_many_requests"

    def __init__(self, message: str, *, retry_after: float) -> None:
        super().__init__(message, detail={"retry_after": round(retry_after, 1)})
        self.retry_after = retry_after


class GatewayUnavailable(LedgerlyError):
    status = 503
    code = "gateway_unavailable"
