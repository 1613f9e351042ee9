"""Row <-> object mapping for customers, subscriptions, invoices and notification preferences."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timezone

from ledgerly.billing.invoices import Invoice, LineItem
from ledgerly.billing.subscriptions import Status, Subscription
from ledgerly.notifications.dispatcher import Preferences
from ledgerly.storage.db import Database


@dataclass(frozen=True)
class Customer:
    id: str
    email: str
    name: str
    country: str
    vat_id: str | None
    password_hash: str
    role: str
    gateway_ref: str | None


class CustomerRepository:
    _COLUMNS = "id, email, name, country, vat_id, password_hash, role, gateway_ref"

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, customer_id: str) -> Customer | None:
        row = self.db.query_one(f"SELECT {self._COLUMNS} FROM customers WHERE id = ?", (customer_id,))
        return Customer(*row) if row else None

    def by_email(self, email: str) -> Customer | None:
        row = self.db.query_one(f"SELECT {self._COLUMNS} FROM customers WHERE email = ?", (email.strip().lower(),))
        return Customer(*row) if row else None

    def set_password_hash(self, customer_id: str, encoded: str) -> None:
        self.db.execute("UPDATE customers SET password_hash = ? WHERE id = ?", (encoded, customer_id))


class SubscriptionRepository:
    _COLUMNS = "id, customer_id, plan_code, status, period_start, period_end, anchor_day, cancel_at_period_end, canceled_at"

    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    def _from_row(row: tuple) -> Subscription:
        return Subscription(
            id=row[0],
            customer_id=row[1],
            plan_code=row[2],
            status=Status(row[3]),
            period_start=date.fromisoformat(row[4]),
            period_end=date.fromisoformat(row[5]),
            anchor_day=row[6],
            cancel_at_period_end=bool(row[7]),
            canceled_at=datetime.fromisoformat(row[8]) if row[8] else None,
        )

    def get(self, subscription_id: str) -> Subscription | None:
        row = self.db.query_one(f"SELECT {self._COLUMNS} FROM subscriptions WHERE id = ?", (subscription_id,))
        return self._from_row(row) if row else None

    def past_due(self) -> list[Subscription]:
        rows = self.db.query(f"SELECT {self._COLUMNS} FROM subscriptions WHERE status = ?", (Status.PAST_DUE.value,))
        return [self._from_row(row) for row in rows]

    def save(self, sub: Subscription) -> None:
        self.db.execute(
            f"INSERT OR REPLACE INTO subscriptions ({self._COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                sub.id, sub.customer_id, sub.plan_code, sub.status.value, sub.period_start.isoformat(),
                sub.period_end.isoformat(), sub.anchor_day, int(sub.cancel_at_period_end),
                sub.canceled_at.isoformat() if sub.canceled_at else None,
            ),
        )


def _invoice_row(row: tuple) -> dict:
    """API shape of an invoice row (amounts as {minor, currency}, matching web/src/api/types.ts)."""
    (invoice_id, number, customer_id, status, currency, subtotal, discount, tax, total, issued_on, due_on,
     failed_on, pdf_key) = row
    money = lambda minor: {"minor": minor, "currency": currency}  # noqa: E731
    return {
        "id": invoice_id, "number": number, "customer_id": customer_id, "status": status,
        "currency": currency, "subtotal": money(subtotal), "discount": money(discount), "tax": money(tax),
        "total": money(total), "total_minor": total, "issued_on": issued_on, "due_on": due_on,
        "failed_on": date.fromisoformat(failed_on) if failed_on else None, "pdf_key": pdf_key,
    }


class InvoiceRepository:
    _COLUMNS = ("id, number, customer_id, status, currency, subtotal_minor, discount_minor, tax_minor, total_minor,"
                " issued_on, due_on, failed_on, pdf_key")

    def __init__(self, db: Database) -> None:
        self.db = db

    def page_for_customer(self, customer_id: str, *, after: tuple[str, str] | None, limit: int) -> list[dict]:
        """Newest first; ``after`` is the (issued_on, id) of the last row already shown."""
        if after is None:
            rows = self.db.query(
                f"SELECT {self._COLUMNS} FROM invoices WHERE customer_id = ? ORDER BY issued_on DESC, id DESC LIMIT ?",
                (customer_id, limit),
            )
        else:
            rows = self.db.query(
                f"SELECT {self._COLUMNS} FROM invoices WHERE customer_id = ? AND (issued_on, id) < (?, ?)"
                " ORDER BY issued_on DESC, id DESC LIMIT ?",
                (customer_id, after[0], after[1], limit),
            )
        return [_invoice_row(row) for row in rows]

    def issued_between(self, start: date, end: date) -> list[dict]:
        rows = self.db.query(
            f"SELECT {self._COLUMNS} FROM invoices WHERE issued_on >= ? AND issued_on < ? ORDER BY number",
            (start.isoformat(), end.isoformat()),
        )
        return [_invoice_row(row) for row in rows]

    def oldest_unpaid(self, customer_id: str) -> dict | None:
        row = self.db.query_one(
            f"SELECT {self._COLUMNS} FROM invoices WHERE customer_id = ? AND status = 'open' AND failed_on IS NOT NULL"
            " ORDER BY issued_on LIMIT 1",
            (customer_id,),
        )
        return _invoice_row(row) if row else None

    def attempts_made(self, invoice_id: str) -> int:
        row = self.db.query_one("SELECT COUNT(*) FROM payment_attempts WHERE invoice_id = ?", (invoice_id,))
        return int(row[0]) if row else 0

    def record_attempt(self, invoice_id: str, attempt: int, ok: bool, decline_code: str | None) -> None:
        self.db.execute(
            "INSERT INTO payment_attempts (invoice_id, attempt, ok, decline_code, at) VALUES (?, ?, ?, ?, ?)",
            (invoice_id, attempt, int(ok), decline_code, datetime.now(timezone.utc).isoformat()),
        )

    def mark_paid(self, invoice_id: str, charge_id: str | None) -> None:
        self.db.execute("UPDATE invoices SET status = 'paid', charge_id = ? WHERE id = ?", (charge_id, invoice_id))

    def save(self, invoice_id: str, invoice: Invoice) -> None:
        self.db.execute(
            f"INSERT INTO invoices ({self._COLUMNS}) VALUES (?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
            (
                invoice_id, invoice.number, invoice.customer_id, invoice.currency, invoice.subtotal.minor,
                invoice.discount.minor, invoice.tax.minor, invoice.total.minor, invoice.issued_on.isoformat(),
                invoice.due_on.isoformat(),
            ),
        )

    def add_pending_lines(self, customer_id: str, lines: list[LineItem]) -> None:
        """Park proration lines until the next invoice is built for this customer."""
        with self.db.transaction() as cur:
            for line in lines:
                cur.execute(
                    "INSERT INTO pending_lines (customer_id, description, amount_minor, currency, kind)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (customer_id, line.description, line.total.minor, line.amount.currency, line.kind),
                )


class PreferenceRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, customer_id: str) -> Preferences:
        row = self.db.query_one(
            "SELECT c.email, p.phone, p.sms_opt_in, p.locale, p.timezone FROM customers c"
            " LEFT JOIN notification_prefs p ON p.customer_id = c.id WHERE c.id = ?",
            (customer_id,),
        )
        if row is None:
            raise LookupError(f"no customer {customer_id}")
        email, phone, opt_in, locale, tz = row
        return Preferences(email=email, phone=phone, sms_opt_in=bool(opt_in), locale=locale or "en",
                           timezone=tz or "Europe/Berlin")

    def defer_sms(self, phone: str, body: str, not_before: datetime) -> None:
        self.db.execute(
            "INSERT INTO sms_outbox (phone, body, not_before) VALUES (?, ?, ?)", (phone, body, not_before.isoformat())
        )
