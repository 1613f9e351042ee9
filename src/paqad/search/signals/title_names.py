"""Names in an issue's title (issue 24): in a long prompt whose first line is short (a title, at
most ``TITLE_CHARS`` characters), a chunk that defines an identifier of that line gets
``title_share`` x ``definition_boost`` x the best fused score.

A long prompt's identifiers get no definition share by default (``long_prompt_share`` 0: a pasted
report names dozens of functions, most of them callers or the reporter's own); the title names
what the report is about (``make_class(): Populate the __annotations__ dict``, ``TimeStamper
ignores utc flag``), so its names are the exception.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.search.analysis import analyze
from paqad.search.symbols import defines_in_text

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

TITLE_CHARS = 160


def title_identifiers(text: str) -> tuple[str, ...]:
    """Identifier names of the prompt's first line when it reads as a title, else ()."""
    first = text.strip().split("\n", 1)[0].strip()
    if not first or len(first) > TITLE_CHARS:
        return ()
    return tuple(dict.fromkeys(i.name for i in analyze(first).identifiers if len(i.name) >= 3))


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores plus the title share for chunks defining a title name (long prompts only)."""
    if not context.info.long:
        return scores
    names = title_identifiers(context.info.text)
    if not names:
        return scores
    options = context.options
    lift = options.title_share * options.definition_boost * context.best
    out = dict(scores)
    for cid, score in scores.items():
        text = context.rows[cid].text
        if any(defines_in_text(text, name) for name in names):
            out[cid] = score + lift
    return out
