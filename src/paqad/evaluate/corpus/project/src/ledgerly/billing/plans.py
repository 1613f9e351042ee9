"""The plan catalogue (config/plans.json) and comparisons between plans."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from ledgerly.money import Money

INTERVAL_MONTHS = {"month": 1, "year": 12}
CATALOG_PATH = Path(__file__).resolve().parents[3] / "config" / "plans.json"


@dataclass(frozen=True)
class Plan:
    code: str
    name: str
    price: Money
    interval: str  # "month" or "year"
    seat_limit: int | None
    features: frozenset[str]


def load_catalog(path: Path = CATALOG_PATH) -> dict[str, Plan]:
    """Plans by code; raises ValueError for an unknown billing interval."""
    data = json.loads(path.read_text(encoding="utf-8"))
    catalog: dict[str, Plan] = {}
    for item in data["plans"]:
        if item["interval"] not in INTERVAL_MONTHS:
            raise ValueError(f"plan {item['code']}: interval must be one of {sorted(INTERVAL_MONTHS)}")
        catalog[item["code"]] = Plan(
            code=item["code"],
            name=item["name"],
            price=Money(item["price_minor"], item["currency"]),
            interval=item["interval"],
            seat_limit=item.get("seat_limit"),
            features=frozenset(item.get("features", [])),
        )
    return catalog


def monthly_equivalent(plan: Plan) -> Money:
    return plan.price.scaled(Decimal(1) / INTERVAL_MONTHS[plan.interval])


def is_upgrade(current: Plan, target: Plan) -> bool:
    """An upgrade costs more per month; upgrades are charged at once, downgrades wait for the next invoice."""
    if current.price.currency != target.price.currency:
        raise ValueError("plans in different currencies cannot be compared")
    return monthly_equivalent(target).minor > monthly_equivalent(current).minor


def seats_allowed(plan: Plan, requested: int) -> bool:
    return plan.seat_limit is None or requested <= plan.seat_limit
