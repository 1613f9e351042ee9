"""Discount codes: validation (expiry, redemption cap, duration) and the discount they give on a subtotal."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from ledgerly.errors import Conflict
from ledgerly.money import Money


@dataclass(frozen=True)
class Coupon:
    code: str
    percent_off: Decimal | None = None
    amount_off: Money | None = None
    redeem_by: date | None = None
    max_redemptions: int | None = None
    duration_months: int | None = 1  # None: applies forever

    def __post_init__(self) -> None:
        if (self.percent_off is None) == (self.amount_off is None):
            raise ValueError(f"coupon {self.code}: set exactly one of percent_off and amount_off")


def normalize_code(raw: str) -> str:
    """Customers type 'spring-24 ' or 'Spring24'; both mean SPRING24."""
    return "".join(ch for ch in raw.upper() if ch.isalnum())


def validate_coupon(coupon: Coupon, today: date, times_redeemed: int) -> None:
    if coupon.redeem_by is not None and today > coupon.redeem_by:
        raise Conflict(f"coupon {coupon.code} expired on {coupon.redeem_by.isoformat()}")
    if coupon.max_redemptions is not None and times_redeemed >= coupon.max_redemptions:
        raise Conflict(f"coupon {coupon.code} has been used up")


def applies_in_month(coupon: Coupon, months_since_start: int) -> bool:
    return coupon.duration_months is None or months_since_start < coupon.duration_months


def discount_for(subtotal: Money, coupon: Coupon) -> Money:
    """The discount in minor units, never more than the subtotal; percentages round half to even."""
    if coupon.percent_off is not None:
        discount = subtotal.scaled(coupon.percent_off / Decimal(100))
    else:
        assert coupon.amount_off is not None
        if coupon.amount_off.currency != subtotal.currency:
            raise ValueError(f"coupon {coupon.code} is in {coupon.amount_off.currency}, invoice in {subtotal.currency}")
        discount = coupon.amount_off
    return Money(min(max(discount.minor, 0), max(subtotal.minor, 0)), subtotal.currency)
