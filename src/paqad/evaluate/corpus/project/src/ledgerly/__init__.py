"""Ledgerly: a subscription billing service (plans, invoices, failed-payment follow-up, notifications)."""

from __future__ import annotations

__all__ = ["__version__"]
__version__ = "0.9.3"
