"""Billing domain: plan catalogue, subscription lifecycle, proration, invoices, tax, coupons,
the card processor client and the follow-up of failed payments."""

from __future__ import annotations
