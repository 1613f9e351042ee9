"""WSGI application: routing table, middleware order (throttle -> auth -> idempotency) and JSON errors."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime, timezone
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from ledgerly.audit import AuditTrail
from ledgerly.auth.passwords import verify_password
from ledgerly.auth.permissions import Principal, require
from ledgerly.auth.reset import request_password_reset
from ledgerly.auth.sessions import SessionStore, read_session_cookie, session_expiry, sign_session_cookie
from ledgerly.auth.tokens import PREFIX as TOKEN_PREFIX
from ledgerly.auth.tokens import ApiTokenService
from ledgerly.billing.gateway import PaymentGateway
from ledgerly.billing.plans import is_upgrade, load_catalog
from ledgerly.billing.proration import prorate_change
from ledgerly.billing.subscriptions import Status, cancel, change_plan, transition
from ledgerly.config import CONFIG_DIR, Settings
from ledgerly.errors import BadRequest, LedgerlyError, NotFound, TooManyRequests, Unauthorized
from ledgerly.http.idempotency import IdempotencyStore, request_fingerprint
from ledgerly.http.pagination import clamp_limit, decode_cursor, paginate
from ledgerly.http.throttle import Throttle
from ledgerly.http.webhooks import dispatch_event, verify_signature
from ledgerly.notifications.dispatcher import Dispatcher
from ledgerly.notifications.email import EmailSender
from ledgerly.notifications.sms import SmsSender
from ledgerly.storage.db import Database
from ledgerly.storage.repositories import (
    CustomerRepository,
    InvoiceRepository,
    PreferenceRepository,
    SubscriptionRepository,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    principal: Principal | None = None

    def json(self) -> dict:
        try:
            return json.loads(self.body or b"{}")
        except json.JSONDecodeError as exc:
            raise BadRequest(f"request body is not JSON: {exc.msg}") from exc


@dataclass(frozen=True)
class Services:
    settings: Settings
    db: Database
    tokens: ApiTokenService
    sessions: SessionStore
    throttle: Throttle
    idempotency: IdempotencyStore
    audit: AuditTrail
    gateway: PaymentGateway
    dispatcher: Dispatcher


Response = tuple[int, dict]
Handler = Callable[[Services, Request], Response]


def build_services(settings: Settings) -> Services:
    db = Database(settings.database_url)
    preferences = PreferenceRepository(db)
    sms = SmsSender(settings.sms_api_url, settings.sms_api_key, settings.sms_sender_id) if settings.sms_api_key else None
    return Services(
        settings=settings,
        db=db,
        tokens=ApiTokenService(db),
        sessions=SessionStore(db),
        throttle=Throttle.from_file(CONFIG_DIR / "rate_limits.json"),
        idempotency=IdempotencyStore(db),
        audit=AuditTrail(db),
        gateway=PaymentGateway(settings.gateway_url, settings.gateway_api_key, timeout=settings.http_timeout_seconds),
        dispatcher=Dispatcher(
            EmailSender(settings.smtp_host, settings.smtp_port, settings.smtp_sender),
            sms,
            preferences.get,
            preferences.defer_sms,
        ),
    )


def list_invoices(svc: Services, req: Request) -> Response:
    principal = require(req.principal, "invoices:read")
    secret = svc.settings.secret_key.encode()
    limit = clamp_limit(req.query.get("limit"))
    after = decode_cursor(req.query["cursor"], secret) if req.query.get("cursor") else None
    rows = InvoiceRepository(svc.db).page_for_customer(principal.customer_id, after=after, limit=limit + 1)
    page = paginate(rows, limit, secret, sort_key=("issued_on", "id"))
    return 200, {"data": page.items, "next_cursor": page.next_cursor}


def list_plans(svc: Services, req: Request) -> Response:
    plans = load_catalog()
    data = [
        {"code": p.code, "name": p.name, "interval": p.interval, "seat_limit": p.seat_limit,
         "price": {"minor": p.price.minor, "currency": p.price.currency}, "features": sorted(p.features)}
        for p in plans.values()
    ]
    return 200, {"data": data}


def _owned_subscription(svc: Services, req: Request, principal: Principal):
    subscription_id = req.path.strip("/").split("/")[2]  # /v1/subscriptions/<id>/<action>
    sub = SubscriptionRepository(svc.db).get(subscription_id)
    if sub is None or sub.customer_id != principal.customer_id:
        raise NotFound(f"subscription {subscription_id} not found")
    return sub


def cancel_subscription(svc: Services, req: Request) -> Response:
    principal = require(req.principal, "subscriptions:write")
    sub = _owned_subscription(svc, req, principal)
    at_period_end = bool(req.json().get("at_period_end", True))
    updated = cancel(sub, at_period_end=at_period_end, now=datetime.now(timezone.utc))
    SubscriptionRepository(svc.db).save(updated)
    return 200, {"id": updated.id, "status": updated.status.value, "cancel_at_period_end": updated.cancel_at_period_end}


def change_subscription_plan(svc: Services, req: Request) -> Response:
    principal = require(req.principal, "subscriptions:write")
    sub = _owned_subscription(svc, req, principal)
    catalog = load_catalog()
    target_code = req.json().get("plan_code", "")
    if target_code not in catalog:
        raise BadRequest(f"unknown plan {target_code!r}")
    old, new = catalog[sub.plan_code], catalog[target_code]
    lines = prorate_change(old, new, sub.period_start, sub.period_end, date.today())
    InvoiceRepository(svc.db).add_pending_lines(principal.customer_id, lines)
    updated = change_plan(sub, target_code)
    SubscriptionRepository(svc.db).save(updated)
    return 200, {"id": updated.id, "plan_code": updated.plan_code, "upgrade": is_upgrade(old, new)}


def receive_gateway_event(svc: Services, req: Request) -> Response:
    verify_signature(req.body, req.headers.get("gateway-signature", ""), svc.settings.webhook_secrets)
    subscriptions = SubscriptionRepository(svc.db)

    def on_charge_failed(event: dict) -> None:
        sub = subscriptions.get(event["data"]["subscription"])
        if sub is not None and sub.status is Status.ACTIVE:
            subscriptions.save(transition(sub, Status.PAST_DUE))

    handled = dispatch_event(req.body, {"charge.failed": on_charge_failed})
    return 200, {"received": True, "handled": handled}


def login(svc: Services, req: Request) -> Response:
    body = req.json()
    customer = CustomerRepository(svc.db).by_email(str(body.get("email", "")))
    if customer is None or not verify_password(str(body.get("password", "")), customer.password_hash):
        raise Unauthorized("email or password is wrong")
    session = svc.sessions.create(customer.id)
    return 200, {
        "session": sign_session_cookie(session.id, svc.settings.secret_key),
        "expires_at": session_expiry(session).isoformat(),
    }


def refresh_session(svc: Services, req: Request) -> Response:
    require(req.principal, "invoices:read")
    session_id = read_session_cookie(_bearer(req), svc.settings.secret_key)
    if session_id is None:
        raise Unauthorized("only dashboard sessions can be refreshed")
    session, _ = svc.sessions.load(session_id)
    return 200, {"session": _bearer(req), "expires_at": session_expiry(session).isoformat()}


def forgot_password(svc: Services, req: Request) -> Response:
    request_password_reset(svc.db, svc.dispatcher, str(req.json().get("email", "")), svc.settings.public_url)
    return 202, {"status": "accepted"}


def health(svc: Services, req: Request) -> Response:
    svc.db.query("SELECT 1")
    return 200, {"status": "ok"}


# (method, path pattern) -> (route class for the throttle, handler). "*" matches one path segment.
ROUTES: dict[tuple[str, str], tuple[str, Handler]] = {
    ("GET", "/v1/invoices"): ("read", list_invoices),
    ("GET", "/v1/plans"): ("read", list_plans),
    ("POST", "/v1/subscriptions/*/cancel"): ("write", cancel_subscription),
    ("POST", "/v1/subscriptions/*/plan"): ("write", change_subscription_plan),
    ("POST", "/v1/webhooks/gateway"): ("webhook", receive_gateway_event),
    ("POST", "/v1/sessions"): ("login", login),
    ("POST", "/v1/sessions/refresh"): ("write", refresh_session),
    ("POST", "/v1/password-resets"): ("login", forgot_password),
    ("GET", "/healthz"): ("health", health),
}
AUTHENTICATED = frozenset({"read", "write"})


def match_route(method: str, path: str) -> tuple[str, Handler]:
    parts = path.strip("/").split("/")
    for (route_method, pattern), target in ROUTES.items():
        pattern_parts = pattern.strip("/").split("/")
        if route_method == method and len(pattern_parts) == len(parts):
            if all(p == "*" or p == s for p, s in zip(pattern_parts, parts)):
                return target
    raise NotFound(f"no route for {method} {path}")


def _bearer(req: Request) -> str:
    scheme, _, value = req.headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" else ""


def authenticate(svc: Services, req: Request) -> Principal | None:
    """API keys start with "lk_"; anything else in the bearer slot is a signed dashboard session."""
    credential = _bearer(req)
    if not credential:
        return None
    if credential.startswith(f"{TOKEN_PREFIX}_"):
        return svc.tokens.authenticate(credential)
    session_id = read_session_cookie(credential, svc.settings.secret_key)
    if session_id is None:
        raise Unauthorized("invalid session; sign in again")
    return svc.sessions.load(session_id)[1]


def handle(svc: Services, req: Request) -> Response:
    route_class, handler = match_route(req.method, req.path)
    client_key = _bearer(req)[-16:] or req.headers.get("x-forwarded-for", "anonymous").split(",")[0].strip()
    svc.throttle.check(route_class, client_key)
    principal = authenticate(svc, req) if route_class in AUTHENTICATED else None
    if route_class in AUTHENTICATED and principal is None:
        raise Unauthorized("missing credentials: send an API key or a session")
    req = replace(req, principal=principal)
    key = req.headers.get("idempotency-key")
    if req.method != "POST" or not key or principal is None:
        return handler(svc, req)
    scoped_key = f"{principal.customer_id}:{key}"
    stored = svc.idempotency.begin(scoped_key, request_fingerprint(req.method, req.path, req.body), datetime.now(timezone.utc))
    if stored is not None:
        return stored.status, stored.body
    try:
        status, body = handler(svc, req)
    except BaseException:
        svc.idempotency.release(scoped_key)
        raise
    svc.idempotency.complete(scoped_key, status, body)
    return status, body


def make_app(settings: Settings) -> Callable[[dict, Callable[..., Any]], Iterable[bytes]]:
    svc = build_services(settings)

    def app(environ: dict, start_response: Callable[..., Any]) -> Iterable[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        req = Request(
            method=environ["REQUEST_METHOD"],
            path=environ.get("PATH_INFO", "/"),
            query={k: v[0] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()},
            headers={k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")},
            body=environ["wsgi.input"].read(length) if length else b"",
        )
        extra_headers: list[tuple[str, str]] = []
        try:
            status, body = handle(svc, req)
        except TooManyRequests as exc:
            status, body = exc.status, exc.to_payload()
            extra_headers.append(("Retry-After", str(math.ceil(exc.retry_after))))
        except LedgerlyError as exc:
            status, body = exc.status, exc.to_payload()
        except Exception:
            log.exception("unhandled error on %s %s", req.method, req.path)
            status, body = 500, {"error": {"code": "internal_error", "message": "internal error"}}
        payload = json.dumps(body, default=str).encode()
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(payload))), *extra_headers]
        start_response(f"{status} {HTTPStatus(status).phrase}", headers)
        return [payload]

    return app


def blob_root(settings: Settings) -> Path:
    return Path(settings.blob_local_root).resolve()
