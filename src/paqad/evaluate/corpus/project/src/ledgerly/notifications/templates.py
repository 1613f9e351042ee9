"""Fill message templates from messages.yaml with string.Template; the HTML variant escapes every value."""

from __future__ import annotations

import html
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from string import Template

import yaml

MESSAGES_PATH = Path(__file__).with_name("messages.yaml")
DEFAULT_LOCALE = "en"


@dataclass(frozen=True)
class Rendered:
    subject: str
    text: str
    html: str
    sms: str | None


@lru_cache(maxsize=4)
def load_messages(path: Path = MESSAGES_PATH) -> dict:
    with path.open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _fill(template: str, context: dict[str, object], *, escape: bool) -> str:
    values = {key: html.escape(str(value)) if escape else str(value) for key, value in context.items()}
    return Template(template).substitute(values)


def render_template(
    name: str, context: dict[str, object], locale: str = DEFAULT_LOCALE, messages: dict | None = None
) -> Rendered:
    """Render template ``name`` in ``locale`` (English when that locale has no variant)."""
    catalog = messages if messages is not None else load_messages()
    variants = catalog[name]
    variant = variants.get(locale) or variants[DEFAULT_LOCALE]
    text = _fill(variant["text"], context, escape=False)
    paragraphs = _fill(variant["text"], context, escape=True).strip().split("\n\n")
    body_html = "".join(f"<p>{paragraph.replace(chr(10), '<br>')}</p>" for paragraph in paragraphs)
    sms = _fill(variant["sms"], context, escape=False) if "sms" in variant else None
    return Rendered(subject=_fill(variant["subject"], context, escape=False), text=text, html=body_html, sms=sms)
