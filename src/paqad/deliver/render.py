"""Render the ``## Retrieved context`` section (DESIGN §9).

:func:`render_section` turns a :class:`~paqad.search.floor.FloorOutcome` into Markdown in one of
four forms (passages, pointers, low-confidence, nothing; the last two also unrated, for a timing
miss's keyword matches); :mod:`paqad.deliver.session_file`
puts it into ``.paqad/context/session-context.md``.
"""

from __future__ import annotations

import re

from paqad.config import MAX_PASSAGE_CHARS, MAX_PASSAGES, MAX_POINTERS
from paqad.search.floor import CONFIDENT, LOW_CONFIDENCE, FloorOutcome, confidence_of, percent
from paqad.search.results import SearchResult

SECTION_HEADING = "## Retrieved context"

# The one line each form carries: the agent must treat what follows as hints, not facts.
NOTE = "Hints from a search index, possibly stale: the live files are the truth; read them before relying on these."
NOTE_NOTHING = "No hints this time; the index may be stale and the live files are the truth: search and read them directly."

MAX_HINT_CHARS = 100  # one-line hint of a pointer
# Why a timing miss's keyword matches carry no match % (FloorOutcome.rated False).
UNRATED_WHY = "the semantic side that rates passages was not ready in time"

_BACKTICK_RUN = re.compile(r"`+")


# --- rendering ---------------------------------------------------------------------------------


def render_section(outcome: FloorOutcome, query_label: str, degraded: str | None = None, *, skipped: str = "",
                   coverage: float = 1.0) -> str:
    """Markdown for the whole section, starting with ``## Retrieved context`` and ending in ``\\n``.

    ``query_label`` says what was searched for, e.g. ``last prompt (recorded 2026-11-30 07:40
    UTC)`` or ``changed files (3)`` (a label that already starts with ``Query:`` is used as is).
    Forms: up to 5 confident results as passages (each at most 1,200 characters; fewer than 5
    may be followed by the floor's companions, labelled low confidence); more than 5
    as up to 12 ``path:Lstart-end`` pointers with a one-line hint; 1-2 low-confidence passages;
    or one line saying nothing passed the floor, with the best match %. Match % is the result's
    calibrated confidence as a whole percentage (:func:`paqad.search.floor.percent`), the same
    value the floor compared; a passage below the floor says "low confidence". ``skipped``
    (the reason a prompt needs no retrieval, e.g. ``session command``) gives a one-line nothing
    form. ``degraded`` (the search ran without the embedding model: why) adds a
    ``Search degraded: ...`` line under the query line; ``coverage`` below 1 (the share of
    chunks embedded so far) a line saying semantic coverage is partial.
    """
    label = query_label.strip()
    lines = [SECTION_HEADING, "", label if label.startswith("Query:") else f"Query: {label}"]
    if degraded:
        lines.append(f"Search degraded: {degraded.rstrip('.')}.")
    if coverage < 1.0:
        lines.append(f"Semantic coverage partial: {_percent_floor(coverage)} of the index embedded so far; "
                     "the rest matches by keywords only.")
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
        lines.append(_confident_line(outcome, floor))
        lines.append(NOTE)
        for r in results:
            lines += ["", *_passage(r, low_confidence=percent(confidence_of(r)) < percent(outcome.threshold))]
    elif not outcome.rated:
        lines += _unrated(outcome)
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
    elif skipped:
        lines.append(f"Nothing retrieved: this prompt needs no project context ({skipped}).")
    else:
        if outcome.best_score is None:
            lines.append("Nothing above the confidence floor (no matches in the index).")
        else:
            lines.append(f"Nothing above the confidence floor (best match {_match(outcome.best_score)}).")
        lines.append(NOTE_NOTHING)
    return "\n".join(lines) + "\n"


def _confident_line(outcome: FloorOutcome, floor: str) -> str:
    """The confident form's count line; the floor's companions (the next results, in the relief
    band: :func:`~paqad.search.floor.apply_floor`) are named as below it."""
    sure = sum(1 for r in outcome.results if percent(confidence_of(r)) >= percent(outcome.threshold))
    noun = "match" if sure == 1 else "matches"
    after = len(outcome.results) - sure
    tail = "" if not after else (f"; the next {'one follows' if after == 1 else f'{after} follow'} "
                                 "below it (low confidence)")
    return f"{sure} {noun} at or above the {floor} confidence floor{tail}."


def _unrated(outcome: FloorOutcome) -> list[str]:
    """The lines of a timing miss's keyword answer (``outcome.rated`` False): its passages, or
    that none was close, with no match % (the full search would rate them otherwise)."""
    if not outcome.results:
        return [f"Nothing retrieved: no keyword match was close enough (not rated: {UNRATED_WHY}).", NOTE_NOTHING]
    one = len(outcome.results) == 1
    best = "the best keyword match follows" if one else f"the best {len(outcome.results)} keyword matches follow"
    lines = [f"Not rated: {best}, without a match % ({UNRATED_WHY}); {'it' if one else 'they'} may be unrelated.", NOTE]
    for r in outcome.results:
        lines += ["", *_passage(r, low_confidence=True, rated=False)]
    return lines


def _match(value: float) -> str:
    return f"{percent(value)}%"


def _percent_floor(value: float) -> str:
    # 0.996 -> "99%": a coverage short of complete never reads as 100%.
    return f"{int(value * 100)}%"


def _percent(value: float) -> str:
    # The floor as compared: a whole percentage (0.755 -> "76%"), never a finer value that the
    # comparison does not use.
    return f"{percent(value)}%"


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


def _passage(result: SearchResult, low_confidence: bool, rated: bool = True) -> list[str]:
    lines, start, end = _trimmed_lines(result)
    heading = f"### {result.path}:L{start}-{end}"
    if result.symbol:
        heading += f" · {result.symbol}"
    heading += f" · match {_match(confidence_of(result))}" if rated else " · keyword match, not rated"
    if low_confidence and rated:
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
    line += f" · {_match(confidence_of(result))}"
    hint = _hint(result.text)
    if hint:
        line += f" — {hint}"
    return line
