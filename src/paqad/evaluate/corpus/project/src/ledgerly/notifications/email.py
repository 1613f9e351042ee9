"""Outgoing e-mail over SMTP: multipart text + HTML messages with optional PDF attachments."""

from __future__ import annotations

import smtplib
import ssl
from collections.abc import Callable, Iterable
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

from ledgerly.notifications.templates import Rendered


def looks_deliverable(address: str) -> bool:
    """Cheap syntax check before we hand the address to the relay (RFC 5321 caps the path at 254 octets)."""
    local, _, domain = address.rpartition("@")
    return bool(local) and "." in domain and " " not in address and len(address) <= 254


class EmailSender:
    def __init__(
        self,
        host: str,
        port: int,
        sender: str,
        *,
        username: str | None = None,
        password: str | None = None,
        use_starttls: bool = True,
        timeout: float = 10.0,
        smtp_factory: Callable[..., Any] = smtplib.SMTP,
    ) -> None:
        self.host, self.port, self.sender = host, port, sender
        self.username, self._password = username, password
        self.use_starttls = use_starttls
        self.timeout = timeout
        self._smtp_factory = smtp_factory

    def build_message(self, to: str, rendered: Rendered, attachments: Iterable[tuple[str, bytes]] = ()) -> EmailMessage:
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = to
        message["Subject"] = rendered.subject
        message["Message-ID"] = make_msgid(domain=self.sender.rpartition("@")[2])
        message.set_content(rendered.text)
        message.add_alternative(rendered.html, subtype="html")
        for filename, data in attachments:
            message.add_attachment(data, maintype="application", subtype="pdf", filename=filename)
        return message

    def send(self, to: str, rendered: Rendered, attachments: Iterable[tuple[str, bytes]] = ()) -> str:
        """Deliver to the relay; returns the Message-ID. Raises ValueError for an unusable address."""
        if not looks_deliverable(to):
            raise ValueError(f"cannot send e-mail to {to!r}")
        message = self.build_message(to, rendered, attachments)
        with self._smtp_factory(self.host, self.port, timeout=self.timeout) as smtp:
            if self.use_starttls:
                smtp.starttls(context=ssl.create_default_context())
            if self.username:
                smtp.login(self.username, self._password or "")
            smtp.send_message(message)
        return str(message["Message-ID"])
