"""Cut Markdown at headings; a heading with little text of its own takes its subsections."""

from __future__ import annotations

import re

from paqad.index.chunking.chunk import SYMBOL_PART_MAX_CHARS
from paqad.index.chunking.packing import Lines, Span, clip, line_atoms, split_span

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_NOT_SETEXT_TITLE = re.compile(r"^\s*(?:[-*+>|]|\d+[.)])(?:\s|$)")


def markdown_spans(lines: Lines, budget: int) -> list[Span]:
    """Sections of a Markdown file: a span per heading, split to ``budget``, small parents grouped."""
    fenced = [False] * len(lines.lines)
    headings = _headings(lines, fenced)
    return _pack_sections(lines, _sections(headings, len(lines.lines)), fenced, budget)


def _front_matter_end(rows: list[str]) -> int:
    """The first row after a leading YAML front matter block (0 when there is none)."""
    if rows and rows[0].strip() == "---":
        for row in range(1, len(rows)):
            if rows[row].strip() in ("---", "..."):
                return row + 1
    return 0


def _is_setext_title(lines: Lines, row: int, start: int, fenced: list[bool],
                     headings: list[tuple[int, int, str]]) -> bool:
    """Whether the line above a ``===``/``---`` underline at ``row`` is a setext heading's title."""
    return bool(
        row > start
        and not lines.blank(row - 1)
        and not fenced[row - 1]
        and (not headings or headings[-1][0] != row - 1)
        and (row - 1 == start or lines.blank(row - 2) or (headings and headings[-1][0] == row - 2))
        and not _NOT_SETEXT_TITLE.match(lines.lines[row - 1])
    )


def _headings(lines: Lines, fenced: list[bool]) -> list[tuple[int, int, str]]:
    """``(row, level, title)`` of every ATX and setext heading; marks fenced rows in ``fenced``."""
    rows = lines.lines
    headings: list[tuple[int, int, str]] = []
    fence: str | None = None
    start = _front_matter_end(rows)
    for row in range(start, len(rows)):
        line = rows[row]
        if fence is not None:
            fenced[row] = True
            stripped = line.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = None
            continue
        match = _FENCE.match(line)
        if match:
            fence = match.group(1)
            fenced[row] = True
            continue
        match = _ATX.match(line)
        if match:
            headings.append((row, len(match.group(1)), (match.group(2) or "").strip()))
            continue
        match = _SETEXT.match(line)
        if match and _is_setext_title(lines, row, start, fenced, headings):
            headings.append((row - 1, 1 if match.group(1)[0] == "=" else 2, rows[row - 1].strip()))
    return headings


def _sections(headings: list[tuple[int, int, str]], n_rows: int) -> list[tuple[int, int, int, str | None]]:
    """``(lo, hi, level, path)`` per heading (path ``A > B``), plus the text before the first."""
    sections: list[tuple[int, int, int, str | None]] = []
    if not headings or headings[0][0] > 0:
        sections.append((0, (headings[0][0] - 1) if headings else n_rows - 1, 0, None))
    stack: list[tuple[int, str]] = []
    for index, (row, level, title) in enumerate(headings):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, clip(re.sub(r"\s+", " ", title), SYMBOL_PART_MAX_CHARS)))
        hi = headings[index + 1][0] - 1 if index + 1 < len(headings) else n_rows - 1
        sections.append((row, hi, level, " > ".join(t for _, t in stack)))
    return sections


def _paragraph_atoms(lines: Lines, lo: int, hi: int, fenced: list[bool], budget: int) -> list[tuple[int, int]]:
    """Paragraphs of rows ``lo..hi``, with a fenced block kept whole (its blank lines included)."""
    result: list[tuple[int, int]] = []
    row = lo
    while row <= hi:
        end = row
        if fenced[row]:
            while end + 1 <= hi and fenced[end + 1]:
                end += 1
        elif lines.blank(row):
            row += 1
            continue
        else:
            while end + 1 <= hi and not fenced[end + 1] and not lines.blank(end + 1):
                end += 1
        if lines.size(row, end) <= budget:
            result.append((row, end))
        else:
            result.extend(line_atoms(row, end))
        row = end + 1
    return result


def _pack_sections(lines: Lines, sections: list[tuple[int, int, int, str | None]], fenced: list[bool],
                   budget: int) -> list[Span]:
    """Spans of ``sections``: a heading with little text of its own takes its subsections."""
    spans: list[Span] = []
    small = budget // 4
    group: tuple[int, str] | None = None  # (own size of the heading that takes subsections, path)
    for lo, hi, _level, path in sections:
        if (
            group is not None
            and path is not None
            and path.startswith(group[1] + " > ")
            and group[0] < small
            and lines.size(spans[-1].lo, hi) <= budget
        ):
            spans[-1].hi = hi  # subsections name their own headings; the group keeps its own
            continue
        parts = split_span(lo, hi, _paragraph_atoms(lines, lo, hi, fenced, budget), lines, budget, symbol=path,
                           kind="section", name_row=lo if path is not None else None)
        spans.extend(parts)
        whole = len(parts) == 1 and parts[0].definition
        group = (lines.size(lo, hi), path) if whole and path is not None else None
    for span in spans:
        span.definition = False  # sections merge by the heading rule above, not as tiny blocks
    return spans

