"""Error messages pasted in a report (issue 24, issue-style prompts): a long prompt that quotes
an error line (``Error: Unexpected server response: 502``, ``reader error: control characters are
not allowed at byte 48213``) points at the code that raises it. A candidate chunk holding a
literal piece of the message (the words between quotes, numbers and values, 16+ characters) x
``error_literal_boost``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

MIN_LITERAL_CHARS = 16  # "Missing data for" — shorter pieces ("not found") are in many files
_ERROR_LINE = re.compile(r"(?:Error|Exception|error|Warning|warning|what\(\)|panicked at)\b\s*:\s*(.+)$", re.MULTILINE)
# what a message's format fills in: quoted values, numbers, paths, URLs, hex
_FILLED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|\{[^}]*\}|\[[^\]]*\]|\([^)]*\)|https?://\S+|\S*[/\\]\S*|0x[0-9a-fA-F]+|\d[\w.]*")


@lru_cache(maxsize=64)
def error_literals(prompt: str) -> tuple[str, ...]:
    """The literal pieces of the error lines a prompt quotes, longest first."""
    pieces: list[str] = []
    for m in _ERROR_LINE.finditer(prompt):
        message = m.group(1)
        for piece in _FILLED.split(message):
            piece = piece.strip(" .,:;!?-")
            if len(piece) >= MIN_LITERAL_CHARS and " " in piece:
                pieces.append(piece)
    return tuple(sorted(dict.fromkeys(pieces), key=len, reverse=True))


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores x ``error_literal_boost`` for chunks holding a literal piece of a quoted error (long
    prompts only)."""
    if not context.info.long:
        return scores
    pieces = error_literals(context.info.text)
    if not pieces:
        return scores
    out = dict(scores)
    for cid in scores:
        text = context.rows[cid].text
        if any(piece in text for piece in pieces):
            out[cid] *= context.options.error_literal_boost
    return out
