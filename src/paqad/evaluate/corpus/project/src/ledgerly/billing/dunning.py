"""Failed-payment follow-up: the attempt schedule, reminders to the customer, and cancellation after the last try."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date, timedelta

from ledgerly.billing.gateway import PaymentGateway
from ledgerly.billing.subscriptions import Status, transition
from ledgerly.money import Money
from ledgerly.notifications.dispatcher import Dispatcher
from ledgerly.storage.db import Database
from ledgerly.storage.repositories import CustomerRepository, InvoiceRepository, SubscriptionRepository

log = logging.getLogger(__name__)

# Days after the first failed charge on which the card is charged again.
ATTEMPT_OFFSETS_DAYS = (1, 3, 7, 14)


@dataclass(frozen=True)
class DunningStep:
    attempt: int
    run_on: date
    template: str


def schedule_for(
    failed_on: date, grace_days: int = 0, offsets: tuple[int, ...] = ATTEMPT_OFFSETS_DAYS
) -> list[DunningStep]:
    """One step per offset, shifted by ``grace_days``; the last step's reminder warns about cancellation."""
    steps = []
    for number, offset in enumerate(offsets, start=1):
        template = "payment_final_notice" if number == len(offsets) else "payment_retry_scheduled"
        steps.append(DunningStep(number, failed_on + timedelta(days=grace_days + offset), template))
    return steps


@dataclass
class DunningReport:
    recovered: list[str] = field(default_factory=list)
    still_failing: list[str] = field(default_factory=list)
    canceled: list[str] = field(default_factory=list)


def run_due_attempts(
    db: Database, gateway: PaymentGateway, dispatcher: Dispatcher, today: date, grace_days: int = 0
) -> DunningReport:
    """Charge every past-due subscription whose next step is due; cancel those that ran out of steps."""
    report = DunningReport()
    subscriptions, customers, invoices = SubscriptionRepository(db), CustomerRepository(db), InvoiceRepository(db)
    for sub in subscriptions.past_due():
        invoice = invoices.oldest_unpaid(sub.customer_id)
        if invoice is None:
            subscriptions.save(transition(sub, Status.ACTIVE))
            continue
        steps = schedule_for(invoice["failed_on"], grace_days)
        made = invoices.attempts_made(invoice["id"])
        if made >= len(steps):
            subscriptions.save(transition(sub, Status.CANCELED))
            dispatcher.notify(sub.customer_id, "subscription_canceled", {"invoice_number": invoice["number"]})
            report.canceled.append(sub.id)
            continue
        step = steps[made]
        if step.run_on > today:
            continue
        customer = customers.get(sub.customer_id)
        if customer is None or customer.gateway_ref is None:
            log.error("subscription %s has no card on file; skipping", sub.id)
            continue
        result = gateway.charge(
            customer.gateway_ref,
            Money(invoice["total_minor"], invoice["currency"]),
            idempotency_key=f"dunning-{invoice['id']}-{step.attempt}",
            description=f"Invoice {invoice['number']}",
        )
        invoices.record_attempt(invoice["id"], step.attempt, result.ok, result.decline_code)
        if result.ok:
            invoices.mark_paid(invoice["id"], result.charge_id)
            subscriptions.save(transition(sub, Status.ACTIVE))
            report.recovered.append(sub.id)
            continue
        next_on = steps[made + 1].run_on.isoformat() if made + 1 < len(steps) else ""
        dispatcher.notify(
            sub.customer_id,
            step.template,
            {"invoice_number": invoice["number"], "attempt": step.attempt, "next_attempt_on": next_on},
        )
        report.still_failing.append(sub.id)
    return report
