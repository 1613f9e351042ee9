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
    rows = lines.lines
    headings: list[tuple[int, int, str]] = []  # (row, level, title)
    fence: str | None = None
    fenced = [False] * len(rows)
    start = 0
    if rows and rows[0].strip() == "---":  # YAML front matter
        for row in range(1, len(rows)):
            if rows[row].strip() in ("---", "..."):
                start = row + 1
                break
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
        if (
            match
            and row > start
            and not lines.blank(row - 1)
            and not fenced[row - 1]
            and (not headings or headings[-1][0] != row - 1)
            and (row - 1 == start or lines.blank(row - 2) or (headings and headings[-1][0] == row - 2))
            and not _NOT_SETEXT_TITLE.match(rows[row - 1])
        ):
            headings.append((row - 1, 1 if match.group(1)[0] == "=" else 2, rows[row - 1].strip()))

    sections: list[tuple[int, int, int, str | None]] = []  # (lo, hi, level, path)
    if not headings or headings[0][0] > 0:
        sections.append((0, (headings[0][0] - 1) if headings else len(rows) - 1, 0, None))
    stack: list[tuple[int, str]] = []
    for index, (row, level, title) in enumerate(headings):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, clip(re.sub(r"\s+", " ", title), SYMBOL_PART_MAX_CHARS)))
        hi = headings[index + 1][0] - 1 if index + 1 < len(headings) else len(rows) - 1
        sections.append((row, hi, level, " > ".join(t for _, t in stack)))

    def atoms(lo: int, hi: int) -> list[tuple[int, int]]:
        # Paragraphs, with a fenced block kept whole (its blank lines included).
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

    spans: list[Span] = []
    small = budget // 4
    group: tuple[int, str] | None = None  # (own size of the heading that takes subsections, path)
    for lo, hi, level, path in sections:
        if (
            group is not None
            and path is not None
            and path.startswith(group[1] + " > ")
            and group[0] < small
            and lines.size(spans[-1].lo, hi) <= budget
        ):
            spans[-1].hi = hi  # subsections name their own headings; the group keeps its own
            continue
        parts = split_span(lo, hi, atoms(lo, hi), lines, budget, symbol=path, kind="section",
                           name_row=lo if path is not None else None)
        spans.extend(parts)
        whole = len(parts) == 1 and parts[0].definition
        group = (lines.size(lo, hi), path) if whole and path is not None else None
    for span in spans:
        span.definition = False  # sections merge by the heading rule above, not as tiny blocks
    return spans

