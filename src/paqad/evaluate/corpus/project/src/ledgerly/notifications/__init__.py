"""Customer messages: templates (messages.yaml), e-mail over SMTP, text messages, channel choice."""

from __future__ import annotations

from ledgerly.notifications.templates import Rendered, render_template

__all__ = ["Rendered", "render_template"]
