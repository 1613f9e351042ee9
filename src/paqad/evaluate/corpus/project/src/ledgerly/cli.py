"""Operator commands: ledgerly migrate | serve | create-admin | issue-token | run-dunning | export-invoices."""

from __future__ import annotations

import argparse
import csv
import getpass
import sys
import uuid
from datetime import date, datetime, timezone
from wsgiref.simple_server import make_server

from ledgerly.app import build_services, make_app
from ledgerly.audit import AuditTrail
from ledgerly.auth.passwords import hash_password, strength_problems
from ledgerly.auth.permissions import scopes_for_role
from ledgerly.auth.tokens import ApiTokenService
from ledgerly.billing.dunning import run_due_attempts
from ledgerly.config import Settings, load_settings
from ledgerly.errors import LedgerlyError
from ledgerly.money import Money, to_major
from ledgerly.storage.db import Database
from ledgerly.storage.migrations import migrate
from ledgerly.storage.repositories import CustomerRepository, InvoiceRepository


def _open(args: argparse.Namespace) -> tuple[Settings, Database]:
    settings = load_settings(args.env)
    return settings, Database(settings.database_url)


def cmd_migrate(args: argparse.Namespace) -> int:
    _, db = _open(args)
    applied = migrate(db)
    print(f"applied migrations: {', '.join(map(str, applied))}" if applied else "schema is up to date")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    settings = load_settings(args.env)
    with make_server(args.host, args.port, make_app(settings)) as server:
        print(f"listening on http://{args.host}:{args.port}", file=sys.stderr)
        server.serve_forever()
    return 0


def cmd_create_admin(args: argparse.Namespace) -> int:
    _, db = _open(args)
    password = getpass.getpass("Password for the new admin: ")
    problems = strength_problems(password, args.email)
    if problems:
        print("weak password: " + "; ".join(problems), file=sys.stderr)
        return 2
    customer_id = str(uuid.uuid4())
    db.execute(
        "INSERT INTO customers (id, email, name, country, password_hash, role, created_at)"
        " VALUES (?, ?, ?, ?, ?, 'admin', ?)",
        (customer_id, args.email.lower(), args.name, args.country.upper(), hash_password(password),
         datetime.now(timezone.utc).isoformat()),
    )
    AuditTrail(db).append("cli", "customer.create_admin", customer_id, {"email": args.email.lower()})
    print(customer_id)
    return 0


def cmd_issue_token(args: argparse.Namespace) -> int:
    _, db = _open(args)
    customer = CustomerRepository(db).get(args.customer)
    if customer is None:
        print(f"no customer with id {args.customer}", file=sys.stderr)
        return 2
    issued = ApiTokenService(db).issue(customer.id, scopes_for_role(args.role or customer.role), label=args.label)
    AuditTrail(db).append("cli", "token.issue", issued.token_id, {"customer": customer.id, "label": args.label})
    print(issued.plaintext)
    return 0


def cmd_run_dunning(args: argparse.Namespace) -> int:
    settings = load_settings(args.env)
    svc = build_services(settings)
    today = date.fromisoformat(args.date) if args.date else date.today()
    report = run_due_attempts(svc.db, svc.gateway, svc.dispatcher, today, grace_days=settings.dunning_grace_days)
    print(f"recovered={len(report.recovered)} still_failing={len(report.still_failing)} canceled={len(report.canceled)}")
    return 0


def cmd_export_invoices(args: argparse.Namespace) -> int:
    """Write the invoices issued in [--since, --until) as CSV to stdout or --output."""
    _, db = _open(args)
    since = date.fromisoformat(args.since)
    until = date.fromisoformat(args.until) if args.until else date.today()
    rows = InvoiceRepository(db).issued_between(since, until)
    out = open(args.output, "w", newline="", encoding="utf-8") if args.output else sys.stdout
    try:
        writer = csv.writer(out)
        writer.writerow(["number", "customer_id", "issued_on", "due_on", "currency", "subtotal", "tax", "total", "status"])
        for row in rows:
            amounts = [to_major(Money(row[k]["minor"], row["currency"])) for k in ("subtotal", "tax", "total")]
            writer.writerow([row["number"], row["customer_id"], row["issued_on"], row["due_on"], row["currency"],
                             *amounts, row["status"]])
    finally:
        if out is not sys.stdout:
            out.close()
    print(f"exported {len(rows)} invoices", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ledgerly", description=__doc__)
    parser.add_argument("--env", default=None, help="settings overlay to read: config/<env>.yaml")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("migrate", help="apply pending schema migrations").set_defaults(func=cmd_migrate)

    serve = sub.add_parser("serve", help="run the HTTP API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8080)
    serve.set_defaults(func=cmd_serve)

    admin = sub.add_parser("create-admin", help="create an admin account (asks for the password)")
    admin.add_argument("email")
    admin.add_argument("--name", default="Administrator")
    admin.add_argument("--country", default="DE")
    admin.set_defaults(func=cmd_create_admin)

    token = sub.add_parser("issue-token", help="print a new API key for a customer")
    token.add_argument("customer", help="customer id")
    token.add_argument("--label", default="cli")
    token.add_argument("--role", choices=["owner", "admin", "billing", "viewer"], default=None)
    token.set_defaults(func=cmd_issue_token)

    dunning = sub.add_parser("run-dunning", help="charge past-due subscriptions whose next attempt is due")
    dunning.add_argument("--date", help="pretend today is this ISO date")
    dunning.set_defaults(func=cmd_run_dunning)

    export = sub.add_parser("export-invoices", help="CSV of invoices issued in a date range")
    export.add_argument("--since", required=True, help="first issue date, inclusive (YYYY-MM-DD)")
    export.add_argument("--until", help="last issue date, exclusive (default: today)")
    export.add_argument("--output", help="file to write instead of stdout")
    export.set_defaults(func=cmd_export_invoices)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except LedgerlyError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
