"""Subscription lifecycle: allowed status changes, period arithmetic, renewals and cancellation."""

from __future__ import annotations

import calendar
from dataclasses import dataclass, replace
from datetime import date, datetime, time
from enum import Enum

from ledgerly.errors import Conflict


class Status(str, Enum):
    TRIALING = "trialing"
    ACTIVE = "active"
    PAST_DUE = "past_due"
    PAUSED = "paused"
    CANCELED = "canceled"


ALLOWED: dict[Status, frozenset[Status]] = {
    Status.TRIALING: frozenset({Status.ACTIVE, Status.CANCELED}),
    Status.ACTIVE: frozenset({Status.PAST_DUE, Status.PAUSED, Status.CANCELED}),
    Status.PAST_DUE: frozenset({Status.ACTIVE, Status.CANCELED}),
    Status.PAUSED: frozenset({Status.ACTIVE, Status.CANCELED}),
    Status.CANCELED: frozenset(),
}


@dataclass(frozen=True)
class Subscription:
    id: str
    customer_id: str
    plan_code: str
    status: Status
    period_start: date
    period_end: date
    anchor_day: int  # day of month the customer signed up on
    cancel_at_period_end: bool = False
    canceled_at: datetime | None = None


def transition(sub: Subscription, target: Status) -> Subscription:
    """Move to ``target`` if the lifecycle allows it; Conflict otherwise."""
    if target not in ALLOWED[sub.status]:
        raise Conflict(f"subscription {sub.id} cannot go from {sub.status.value} to {target.value}")
    return replace(sub, status=target)


def add_interval(start: date, months: int, anchor_day: int) -> date:
    """``months`` ahead of ``start``, on ``anchor_day`` or the month's last day if it is shorter
    (Jan 31 -> Feb 28/29 -> Mar 31: the anchor is kept, not the clamped day)."""
    month_index = start.month - 1 + months
    year, month = start.year + month_index // 12, month_index % 12 + 1
    last_day = calendar.monthrange(year, month)[1]
    return date(year, month, min(anchor_day, last_day))


def renew(sub: Subscription, interval_months: int) -> Subscription:
    """Start the next period, or end the subscription if it was set to stop at period end."""
    if sub.cancel_at_period_end:
        ended = transition(sub, Status.CANCELED)
        return replace(ended, canceled_at=datetime.combine(sub.period_end, time.min))
    if sub.status not in (Status.ACTIVE, Status.TRIALING):
        raise Conflict(f"subscription {sub.id} is {sub.status.value}; settle it before renewing")
    start = sub.period_end
    return replace(
        sub, status=Status.ACTIVE, period_start=start, period_end=add_interval(start, interval_months, sub.anchor_day)
    )


def cancel(sub: Subscription, *, at_period_end: bool, now: datetime) -> Subscription:
    """Flag the subscription to stop at period end, or stop it now (the period is cut to today)."""
    if sub.status is Status.CANCELED:
        raise Conflict(f"subscription {sub.id} is already canceled")
    if at_period_end:
        return replace(sub, cancel_at_period_end=True)
    return replace(transition(sub, Status.CANCELED), canceled_at=now, period_end=now.date())


def change_plan(sub: Subscription, new_plan_code: str) -> Subscription:
    if sub.status not in (Status.ACTIVE, Status.TRIALING):
        raise Conflict(f"subscription {sub.id} is {sub.status.value}; only active subscriptions can change plan")
    if sub.plan_code == new_plan_code:
        raise Conflict(f"subscription {sub.id} is already on {new_plan_code}")
    return replace(sub, plan_code=new_plan_code, cancel_at_period_end=False)
