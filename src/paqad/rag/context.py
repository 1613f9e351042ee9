"""Delivery: the ``## Retrieved context`` section of ``.paqad/context/session-context.md`` (DESIGN §9).

``render_section`` turns a :class:`~paqad.rag.floor.FloorOutcome` into Markdown in one of four
forms (passages, pointers, low-confidence, nothing); ``write_section`` puts it into the file
atomically, keeping every other section byte for byte. ``replace_section`` is the pure text
operation, shared with the ``## Base drift`` section.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from paqad.config import MAX_PASSAGE_CHARS, MAX_PASSAGES, MAX_POINTERS
from paqad.rag.floor import CONFIDENT, LOW_CONFIDENCE, FloorOutcome
from paqad.rag.results import SearchResult

SECTION_HEADING = "## Retrieved context"
DRIFT_HEADING = "## Base drift"

# The one line each form carries: the agent must treat what follows as hints, not facts.
NOTE = "Hints from a search index, possibly stale: the live files are the truth; read them before relying on these."
NOTE_NOTHING = "No hints this time; the index may be stale and the live files are the truth: search and read them directly."

MAX_HINT_CHARS = 100  # one-line hint of a pointer

# CommonMark fenced code: an opening fence is 3+ backticks or tildes, indented at most 3 spaces.
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BACKTICK_RUN = re.compile(r"`+")


# --- rendering ---------------------------------------------------------------------------------


def render_section(outcome: FloorOutcome, query_label: str) -> str:
    """Markdown for the whole section, starting with ``## Retrieved context`` and ending in ``\\n``.

    ``query_label`` says what was searched for, e.g. ``last prompt (recorded 2026-11-30 07:40
    UTC)`` or ``changed files (3)`` (a label that already starts with ``Query:`` is used as is).
    Forms: up to 5 confident results as passages (each at most 1,200 characters); more than 5
    as up to 12 ``path:Lstart-end`` pointers with a one-line hint; 1-2 low-confidence passages;
    or one line saying nothing passed the floor, with the best match %. Match % is
    ``round(score * 100)``.
    """
    label = query_label.strip()
    lines = [SECTION_HEADING, "", label if label.startswith("Query:") else f"Query: {label}"]
    floor = _percent(outcome.threshold)
    results = outcome.results
    if outcome.form == CONFIDENT and len(results) > MAX_PASSAGES:
        shown = results[:MAX_POINTERS]
        lines.append(f"{len(results)} matches at or above the {floor} confidence floor, too many to quote; pointers only, open the files for the text.")
        lines += [NOTE, ""]
        lines += [_pointer(r) for r in shown]
        if len(results) > len(shown):
            lines.append(f"- … {len(results) - len(shown)} more not listed.")
    elif outcome.form == CONFIDENT:
        noun = "match" if len(results) == 1 else "matches"
        lines.append(f"{len(results)} {noun} at or above the {floor} confidence floor.")
        lines.append(NOTE)
        for r in results:
            lines += ["", *_passage(r, low_confidence=False)]
    elif outcome.form == LOW_CONFIDENCE:
        relief = _percent(outcome.relief_floor)
        best = "the best match follows" if len(results) == 1 else f"the best {len(results)} follow"
        lines.append(
            f"Low confidence: no match reached the {floor} floor; {best} (at or above the "
            f"{relief} relief floor) and may be unrelated."
        )
        lines.append(NOTE)
        for r in results:
            lines += ["", *_passage(r, low_confidence=True)]
    else:
        if outcome.best_score is None:
            lines.append("Nothing above the confidence floor (no matches in the index).")
        else:
            lines.append(f"Nothing above the confidence floor (best match {_match(outcome.best_score)}).")
        lines.append(NOTE_NOTHING)
    return "\n".join(lines) + "\n"


def _match(score: float) -> str:
    return f"{round(score * 100)}%"


def _percent(value: float) -> str:
    # 0.75 -> "75%", 0.755 -> "75.5%": a configured floor is shown as set, not rounded away.
    return f"{round(value * 100, 1):g}%"


def _trimmed_lines(result: SearchResult) -> tuple[list[str], int, int]:
    """The chunk's lines without leading/trailing blank lines, and the line range they cover."""
    lines = [line.rstrip("\r") for line in result.text.split("\n")]
    start = result.start_line
    while lines and not lines[0].strip():
        lines.pop(0)
        start += 1
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return [], result.start_line, result.end_line
    return lines, start, start + len(lines) - 1


def _truncation_marker(first_missing: int, end: int) -> str:
    return f"… (truncated; read L{first_missing}-{end} in the file)"


def _passage_body(lines: list[str], start: int, end: int, limit: int = MAX_PASSAGE_CHARS) -> str:
    """The passage text, at most ``limit`` characters including the truncation marker line.

    Cuts at a line boundary; only a first line longer than the whole budget is cut mid-line.
    """
    full = "\n".join(lines)
    if len(full) <= limit:
        return full
    kept = used = 0  # lines kept; their characters, newlines between them included
    while kept < len(lines):
        cost = len(lines[kept]) + (1 if kept else 0)
        if used + cost + 1 + len(_truncation_marker(start + kept + 1, end)) > limit:
            break
        used += cost
        kept += 1
    if kept == 0:
        marker = _truncation_marker(start, end)
        return lines[0][: limit - 1 - len(marker)] + "\n" + marker
    return "\n".join(lines[:kept]) + "\n" + _truncation_marker(start + kept, end)


def _passage(result: SearchResult, low_confidence: bool) -> list[str]:
    lines, start, end = _trimmed_lines(result)
    heading = f"### {result.path}:L{start}-{end}"
    if result.symbol:
        heading += f" · {result.symbol}"
    heading += f" · match {_match(result.score)}"
    if low_confidence:
        heading += " · low confidence"
    body = _passage_body(lines, start, end)
    # A fence longer than any backtick run inside keeps Markdown chunks (with their own fences) intact.
    longest = max((len(run) for run in _BACKTICK_RUN.findall(body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [heading, fence + result.language, body, fence]


def _hint(text: str) -> str:
    """The signature line: the first non-blank line that is not a decorator, whitespace collapsed."""
    candidates = [" ".join(line.split()) for line in text.split("\n") if line.strip()]
    hint = next((c for c in candidates if not c.startswith("@")), candidates[0] if candidates else "")
    if len(hint) > MAX_HINT_CHARS:
        hint = hint[: MAX_HINT_CHARS - 1] + "…"
    return hint


def _pointer(result: SearchResult) -> str:
    line = f"- `{result.location}`"
    if result.symbol:
        line += f" {result.symbol}"
    line += f" · {_match(result.score)}"
    hint = _hint(result.text)
    if hint:
        line += f" — {hint}"
    return line


# --- writing -----------------------------------------------------------------------------------


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


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8; lone surrogates from undecodable bytes written back as the bytes)
    to ``path`` via a temp file in the same folder and ``os.replace``: readers see the old or the
    new file, never half of one. Creates the parent folder. Keeps an existing file's mode.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8", "surrogateescape"))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


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
