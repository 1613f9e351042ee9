"""Mid-period plan changes: credit the unused share of the old plan, charge the rest of the period on the new one."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from ledgerly.billing.invoices import LineItem
from ledgerly.billing.plans import Plan
from ledgerly.money import Money


def remaining_share(period_start: date, period_end: date, change_day: date) -> Decimal:
    """Fraction of the period still ahead on ``change_day``, in whole days (the change day itself counts as ahead)."""
    total_days = (period_end - period_start).days
    if total_days <= 0:
        raise ValueError(f"empty period {period_start}..{period_end}")
    if not period_start <= change_day < period_end:
        raise ValueError(f"{change_day} is outside the period {period_start}..{period_end}")
    return Decimal((period_end - change_day).days) / Decimal(total_days)


def prorate_change(old: Plan, new: Plan, period_start: date, period_end: date, change_day: date) -> list[LineItem]:
    """Two lines: a negative one for the unused part of ``old`` and a positive one for the rest on ``new``.

    Each line is rounded to whole minor units on its own. Changing between monthly and yearly plans
    is not prorated; it takes effect at renewal.
    """
    if old.price.currency != new.price.currency:
        raise ValueError("cannot prorate across currencies")
    if old.interval != new.interval:
        raise ValueError("interval changes take effect at renewal")
    share = remaining_share(period_start, period_end, change_day)
    until = period_end.isoformat()
    return [
        LineItem(f"Unused time on {old.name} until {until}", old.price.scaled(-share), kind="credit"),
        LineItem(f"Remaining time on {new.name} until {until}", new.price.scaled(share), kind="proration"),
    ]


def net_due_now(lines: list[LineItem]) -> Money:
    """What to charge immediately: the positive balance of the lines, or zero for a downgrade."""
    total = lines[0].total
    for line in lines[1:]:
        total = total + line.total
    return total if total.minor > 0 else Money(0, total.currency)
