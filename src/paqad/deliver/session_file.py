"""Edit ``.paqad/context/session-context.md``: replace one ``## `` section, keep the rest byte for byte.

:func:`write_section` puts a rendered section into the file atomically; :func:`replace_section`
is the pure text operation, shared by the ``## Retrieved context`` and ``## Base drift`` sections.
"""

from __future__ import annotations

import re
from pathlib import Path

from paqad.atomic import write_text_atomic
from paqad.deliver.render import SECTION_HEADING

DRIFT_HEADING = "## Base drift"

# CommonMark fenced code: an opening fence is 3+ backticks or tildes, indented at most 3 spaces.
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _split_lines(text: str) -> list[str]:
    # Only "\n" ends a line here (str.splitlines would also split on \x0c, \u2028, ...).
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _is_section_break(line: str) -> bool:
    """A level-1 or level-2 ATX heading ends a section."""
    return line.startswith("## ") or line.startswith("# ") or line.rstrip("\r\n") in ("#", "##")


def _fence_step(line: str, fence: str | None) -> str | None:
    """The open fence after ``line`` (``None``: outside any fenced code block)."""
    match = _FENCE.match(line)
    if fence is None:
        return match.group(1) if match else None
    if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) and not line[match.end():].strip():
        return None
    return fence


def _heading_indices(lines: list[str], heading: str) -> list[int]:
    """Indices of ``heading`` lines outside fenced code blocks."""
    found, fence = [], None
    for i, line in enumerate(lines):
        if fence is None and line.rstrip() == heading:
            found.append(i)
        fence = _fence_step(line, fence)
    if not found:
        # An unclosed fence above would hide our heading; fall back to a plain match so a
        # refresh never appends a second copy of the section.
        found = [i for i, line in enumerate(lines) if line.rstrip() == heading][:1]
    return found


def _section_end(lines: list[str], start: int) -> int:
    """Index of the first line after the section whose heading is ``lines[start]``."""
    fence = None
    for i in range(start + 1, len(lines)):
        if fence is None and _is_section_break(lines[i]):
            return i
        fence = _fence_step(lines[i], fence)
    return len(lines)


def replace_section(text: str, heading: str, body: str | None) -> str:
    """``text`` with the section under ``heading`` replaced by ``body`` (or removed when ``None``).

    A section runs from its heading line to the next level-1/2 heading outside fenced code, or
    to the end. ``body`` is the new section's Markdown (its heading line is added when missing).
    Everything outside the old section is kept byte for byte; a missing section is appended
    after one blank line. Duplicate copies of the section are dropped.
    """
    lines = _split_lines(text)
    starts = _heading_indices(lines, heading)
    spans = [(s, _section_end(lines, s)) for s in starts]
    new = None
    if body is not None:
        new = body if body.startswith(heading + "\n") or body.rstrip("\n") == heading else f"{heading}\n\n{body}"
        new = new.rstrip("\n") + "\n"
    if not spans:
        if new is None:
            return text
        if not text:
            return new
        prefix = text if text.endswith("\n") else text + "\n"
        return prefix + ("" if prefix.endswith("\n\n") else "\n") + new
    out: list[str] = []
    cursor = 0
    for n, (s, e) in enumerate(spans):
        out.extend(lines[cursor:s])
        cursor = e
        if n == 0 and new is not None:
            out.append(new + ("\n" if e < len(lines) else ""))
    out.extend(lines[cursor:])
    result = "".join(out)
    if new is None and spans[-1][1] == len(lines):
        # The removed section was last: drop the blank separator line that preceded it.
        while result.endswith("\n\n"):
            result = result[:-1]
    return result


def write_section(session_context: Path, section: str | None, heading: str = SECTION_HEADING) -> None:
    """Put ``section`` (Markdown from :func:`render_section`) into ``session_context`` atomically.

    Replaces the section under ``heading`` (default ``## Retrieved context``; pass
    ``DRIFT_HEADING`` for ``## Base drift``); ``None`` removes it. Other sections are kept byte
    for byte. Creates the file and its folder when missing; does not rewrite an unchanged file.
    """
    try:
        old = session_context.read_bytes().decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        old = None
    new = replace_section(old or "", heading, section)
    if old is not None and new == old:
        return
    if old is None and not new:
        return  # nothing to remove from a file that does not exist
    write_text_atomic(session_context, new)
