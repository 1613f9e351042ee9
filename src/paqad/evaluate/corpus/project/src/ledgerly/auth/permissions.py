"""Who may do what: role -> scope sets, and the check every handler calls first."""

from __future__ import annotations

from dataclasses import dataclass

from ledgerly.errors import Forbidden, Unauthorized

ROLE_SCOPES: dict[str, frozenset[str]] = {
    "owner": frozenset({
        "invoices:read", "subscriptions:read", "subscriptions:write", "billing:write", "tokens:write", "audit:read",
    }),
    "admin": frozenset({
        "invoices:read", "subscriptions:read", "subscriptions:write", "billing:write", "tokens:write", "audit:read",
        "customers:write",
    }),
    "billing": frozenset({"invoices:read", "subscriptions:read", "billing:write"}),
    "viewer": frozenset({"invoices:read", "subscriptions:read"}),
}


@dataclass(frozen=True)
class Principal:
    """The authenticated caller. ``via`` is "token:<id>" or "session:<id>" (for logs and the audit trail)."""

    customer_id: str
    scopes: frozenset[str]
    via: str


def scopes_for_role(role: str) -> frozenset[str]:
    try:
        return ROLE_SCOPES[role]
    except KeyError:
        raise ValueError(f"unknown role {role!r}; expected one of {sorted(ROLE_SCOPES)}") from None


def require(principal: Principal | None, scope: str) -> Principal:
    """Return the principal if it holds ``scope``; 401 when nobody is signed in, 403 when the scope is missing."""
    if principal is None:
        raise Unauthorized("sign in or send an API key")
    if scope not in principal.scopes:
        raise Forbidden(f"this key or session lacks the scope {scope}")
    return principal
