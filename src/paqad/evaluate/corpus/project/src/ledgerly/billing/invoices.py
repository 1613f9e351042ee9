"""Invoices: numbering, line items, totals (subtotal - discount + tax) and due dates."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from ledgerly.billing.coupons import Coupon, discount_for
from ledgerly.billing.tax import TaxDecision, tax_on
from ledgerly.money import Money
from ledgerly.storage.db import Database

NUMBER_PREFIX = "LDG"
PAYMENT_TERMS_DAYS = 14


@dataclass(frozen=True)
class LineItem:
    description: str
    amount: Money
    quantity: int = 1
    kind: str = "charge"  # charge | credit | proration

    @property
    def total(self) -> Money:
        return Money(self.amount.minor * self.quantity, self.amount.currency)


@dataclass(frozen=True)
class Invoice:
    number: str
    customer_id: str
    currency: str
    lines: tuple[LineItem, ...]
    subtotal: Money
    discount: Money
    tax: Money
    total: Money
    issued_on: date
    due_on: date
    reverse_charge: bool = False
    notes: tuple[str, ...] = ()


def next_invoice_number(db: Database, issued_on: date) -> str:
    """Gap-free sequence per calendar year: LDG-2024-000001, LDG-2024-000002, ... restarting each January."""
    with db.transaction() as cur:
        cur.execute(
            "INSERT INTO invoice_counters (year, last_value) VALUES (?, 1)"
            " ON CONFLICT(year) DO UPDATE SET last_value = last_value + 1",
            (issued_on.year,),
        )
        (value,) = cur.execute("SELECT last_value FROM invoice_counters WHERE year = ?", (issued_on.year,)).fetchone()
    return f"{NUMBER_PREFIX}-{issued_on.year}-{value:06d}"


def due_date(issued_on: date, terms_days: int = PAYMENT_TERMS_DAYS) -> date:
    """Due ``terms_days`` after issue, moved to the following Monday when that falls on a weekend."""
    due = issued_on + timedelta(days=terms_days)
    if due.weekday() >= 5:
        due += timedelta(days=7 - due.weekday())
    return due


def build_invoice(
    number: str,
    customer_id: str,
    lines: list[LineItem],
    *,
    issued_on: date,
    tax: TaxDecision,
    coupon: Coupon | None = None,
) -> Invoice:
    """Totals in order: subtotal of the lines, minus the coupon discount, plus tax on what is left."""
    if not lines:
        raise ValueError("an invoice needs at least one line")
    currency = lines[0].amount.currency
    subtotal = Money(0, currency)
    for line in lines:
        subtotal = subtotal + line.total
    discount = discount_for(subtotal, coupon) if coupon else Money(0, currency)
    taxable = subtotal - discount
    tax_amount = tax_on(taxable, tax)
    return Invoice(
        number=number,
        customer_id=customer_id,
        currency=currency,
        lines=tuple(lines),
        subtotal=subtotal,
        discount=discount,
        tax=tax_amount,
        total=taxable + tax_amount,
        issued_on=issued_on,
        due_on=due_date(issued_on),
        reverse_charge=tax.reverse_charge,
        notes=(tax.note,) if tax.note else (),
    )
