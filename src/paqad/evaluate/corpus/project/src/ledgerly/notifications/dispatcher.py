"""Choosing channels per customer: e-mail always; a text message only if they opted in, and held back
while their local clock is inside their quiet window."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from ledgerly.notifications.email import EmailSender
from ledgerly.notifications.sms import SmsSender
from ledgerly.notifications.templates import render_template


@dataclass(frozen=True)
class Preferences:
    email: str
    phone: str | None = None
    sms_opt_in: bool = False
    locale: str = "en"
    timezone: str = "Europe/Berlin"
    quiet_from: time = time(21, 0)
    quiet_until: time = time(8, 0)


@dataclass(frozen=True)
class Delivery:
    channel: str  # "email" or "sms"
    status: str  # "sent" or "deferred"
    reference: str | None = None


def in_quiet_hours(now: datetime, prefs: Preferences) -> bool:
    """True when ``now`` (timezone-aware) is inside the customer's quiet window, which may wrap past 00:00."""
    local = now.astimezone(ZoneInfo(prefs.timezone)).time()
    start, end = prefs.quiet_from, prefs.quiet_until
    if start <= end:
        return start <= local < end
    return local >= start or local < end


def next_allowed(now: datetime, prefs: Preferences) -> datetime:
    """The next moment the quiet window ends, in UTC."""
    zone = ZoneInfo(prefs.timezone)
    local = now.astimezone(zone)
    candidate = datetime.combine(local.date(), prefs.quiet_until, tzinfo=zone)
    if candidate <= local:
        candidate += timedelta(days=1)
    return candidate.astimezone(timezone.utc)


class Dispatcher:
    def __init__(
        self,
        email: EmailSender,
        sms: SmsSender | None,
        preferences_for: Callable[[str], Preferences],
        defer_sms: Callable[[str, str, datetime], None],
        clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc),
    ) -> None:
        self.email = email
        self.sms = sms
        self.preferences_for = preferences_for
        self.defer_sms = defer_sms
        self.clock = clock

    def notify(self, customer_id: str, template: str, context: dict[str, object]) -> list[Delivery]:
        """Render ``template`` in the customer's locale and deliver it on every channel they allow."""
        prefs = self.preferences_for(customer_id)
        rendered = render_template(template, context, locale=prefs.locale)
        deliveries = [Delivery("email", "sent", self.email.send(prefs.email, rendered))]
        if not (prefs.sms_opt_in and prefs.phone and rendered.sms and self.sms):
            return deliveries
        now = self.clock()
        if in_quiet_hours(now, prefs):
            self.defer_sms(prefs.phone, rendered.sms, next_allowed(now, prefs))
            deliveries.append(Delivery("sms", "deferred"))
        else:
            deliveries.append(Delivery("sms", "sent", self.sms.send(prefs.phone, rendered.sms)))
        return deliveries
