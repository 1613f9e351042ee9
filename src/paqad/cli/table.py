"""Plain aligned tables for people: columns two spaces apart, a header row, nothing drawn.

The same text on a terminal and in a pipe (``grep``, ``awk``, ``cut`` see one row per line and
one cell per whitespace-separated field); on a terminal the last column is cut to its width.
"""

from __future__ import annotations

import shutil
import sys
from typing import Sequence

GAP = "  "


def aligned(header: Sequence[str], rows: Sequence[Sequence[str]], right: frozenset[int] = frozenset(),
            width: int | None = None) -> list[str]:
    """``header`` and ``rows`` as lines, every column as wide as its widest cell.

    Columns whose index is in ``right`` (numbers) are right-aligned, header included; the last
    column is never padded. With ``width``, a line longer than it has its last cell cut, ending
    in ``…``; the other cells (locations, numbers) are never cut.
    """
    table = [list(header), *(list(row) for row in rows)]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    lines = []
    for cells in table:
        padded = [cell.rjust(widths[i]) if i in right else cell.ljust(widths[i]) for i, cell in enumerate(cells[:-1])]
        head = GAP.join(padded) + GAP if padded else ""
        last = cells[-1]
        if width is not None and len(head) + len(last) > width:
            room = width - len(head)
            last = last[: room - 1] + "…" if room > 1 else last[:0]
        lines.append((head + last).rstrip())
    return lines


def terminal_width() -> int | None:
    """The terminal's width when stdout is one, else None (a pipe gets whole rows)."""
    try:
        if not sys.stdout.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    return shutil.get_terminal_size().columns
