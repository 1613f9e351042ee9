"""Schema migrations, applied in order inside one transaction each and recorded in ``schema_version``."""

from __future__ import annotations

from ledgerly.storage.db import Database

MIGRATIONS: list[tuple[int, str]] = [
    (1, """
        CREATE TABLE customers (
            id TEXT PRIMARY KEY,
            email TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            country TEXT NOT NULL,
            vat_id TEXT,
            password_hash TEXT NOT NULL,
            role TEXT NOT NULL DEFAULT 'owner',
            gateway_ref TEXT,
            created_at TEXT NOT NULL
        );
        CREATE TABLE api_tokens (
            id TEXT PRIMARY KEY,
            customer_id TEXT NOT NULL REFERENCES customers(id),
            lookup TEXT NOT NULL UNIQUE,
            digest TEXT NOT NULL,
            scopes TEXT NOT NULL,
            label TEXT NOT NULL,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        );
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            customer_id TEXT NOT NULL REFERENCES customers(id),
            created_at TEXT NOT NULL,
            last_seen_at TEXT NOT NULL
        )
    """),
    (2, """
        CREATE TABLE subscriptions (
            id TEXT PRIMARY KEY,
            customer_id TEXT NOT NULL REFERENCES customers(id),
            plan_code TEXT NOT NULL,
            status TEXT NOT NULL,
            period_start TEXT NOT NULL,
            period_end TEXT NOT NULL,
            anchor_day INTEGER NOT NULL,
            cancel_at_period_end INTEGER NOT NULL DEFAULT 0,
            canceled_at TEXT
        );
        CREATE TABLE invoices (
            id TEXT PRIMARY KEY,
            number TEXT NOT NULL UNIQUE,
            customer_id TEXT NOT NULL REFERENCES customers(id),
            status TEXT NOT NULL DEFAULT 'open',
            currency TEXT NOT NULL,
            subtotal_minor INTEGER NOT NULL,
            discount_minor INTEGER NOT NULL DEFAULT 0,
            tax_minor INTEGER NOT NULL DEFAULT 0,
            total_minor INTEGER NOT NULL,
            issued_on TEXT NOT NULL,
            due_on TEXT NOT NULL,
            failed_on TEXT,
            pdf_key TEXT,
            charge_id TEXT
        );
        CREATE TABLE invoice_counters (year INTEGER PRIMARY KEY, last_value INTEGER NOT NULL);
        CREATE TABLE payment_attempts (
            invoice_id TEXT NOT NULL REFERENCES invoices(id),
            attempt INTEGER NOT NULL,
            ok INTEGER NOT NULL,
            decline_code TEXT,
            at TEXT NOT NULL,
            PRIMARY KEY (invoice_id, attempt)
        );
        CREATE TABLE pending_lines (
            customer_id TEXT NOT NULL REFERENCES customers(id),
            description TEXT NOT NULL,
            amount_minor INTEGER NOT NULL,
            currency TEXT NOT NULL,
            kind TEXT NOT NULL
        )
    """),
    (3, """
        CREATE TABLE idempotency_keys (
            key TEXT PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            status INTEGER,
            body TEXT,
            created_at TEXT NOT NULL
        );
        CREATE TABLE audit_log (
            seq INTEGER PRIMARY KEY,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            target TEXT NOT NULL,
            at TEXT NOT NULL,
            payload TEXT NOT NULL,
            prev_digest TEXT NOT NULL,
            digest TEXT NOT NULL
        );
        CREATE TABLE password_resets (
            digest TEXT PRIMARY KEY,
            customer_id TEXT NOT NULL REFERENCES customers(id),
            expires_at TEXT NOT NULL,
            used_at TEXT
        )
    """),
    (4, """
        CREATE TABLE notification_prefs (
            customer_id TEXT PRIMARY KEY REFERENCES customers(id),
            phone TEXT,
            sms_opt_in INTEGER NOT NULL DEFAULT 0,
            locale TEXT NOT NULL DEFAULT 'en',
            timezone TEXT NOT NULL DEFAULT 'Europe/Berlin'
        );
        CREATE TABLE sms_outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            phone TEXT NOT NULL,
            body TEXT NOT NULL,
            not_before TEXT NOT NULL,
            sent_at TEXT
        )
    """),
]


def current_version(db: Database) -> int:
    db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = db.query_one("SELECT MAX(version) FROM schema_version")
    return (row[0] or 0) if row else 0


def migrate(db: Database, target: int | None = None) -> list[int]:
    """Apply every migration newer than the recorded version (up to ``target``); returns the numbers applied."""
    applied: list[int] = []
    version = current_version(db)
    for number, sql in MIGRATIONS:
        if number <= version or (target is not None and number > target):
            continue
        with db.transaction() as cur:
            for statement in (part.strip() for part in sql.split(";")):
                if statement:
                    cur.execute(statement)
            cur.execute("INSERT INTO schema_version (version) VALUES (?)", (number,))
        applied.append(number)
    return applied
