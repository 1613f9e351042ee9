"""Authentication and authorisation: API keys, dashboard sessions, passwords, resets and scopes."""

from __future__ import annotations

from ledgerly.auth.permissions import Principal, require

__all__ = ["Principal", "require"]
