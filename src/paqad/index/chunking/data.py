"""Cut data files: YAML and JSON at top-level keys, TOML at tables."""

from __future__ import annotations

import json
import re
from typing import Callable

from paqad.index.chunking.chunk import SYMBOL_PART_MAX_CHARS
from paqad.index.chunking.packing import Lines, Span, clip, line_atoms, pack, paragraph_atoms, split_span, text_spans

_YAML_KEY = re.compile(r"""^(?!---|\.\.\.)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#'"\-?:%&*!|>@`{\[][^#]*?)\s*:(?:\s|$)""")


def _keyed_spans(
    lines: Lines,
    budget: int,
    starts: list[tuple[int, str | None]],
    boundary: Callable[[int, int, int], list[int]],
    attach_comments: str | None,
) -> list[Span]:
    """Spans for sections that start at ``starts`` rows (row, symbol).

    Comment lines (starting with ``attach_comments``) directly above a start belong to it;
    rows before the first start are a glue block; an oversized section is cut at the rows
    ``boundary(lo, hi, key_row)`` returns.
    """
    rows = lines.lines
    begins = []
    for row, symbol in starts:
        begin = row
        while (
            attach_comments
            and begin - 1 >= 0
            and rows[begin - 1].startswith(attach_comments)
            and (not begins or begin - 1 > begins[-1][1])
        ):
            begin -= 1
        begins.append((begin, row, symbol))
    spans: list[Span] = []
    if begins[0][0] > 0:
        preamble = paragraph_atoms(lines, 0, begins[0][0] - 1, budget)
        spans.extend(Span(lo, hi, None, "block", glue=True) for lo, hi in pack(preamble, lines, budget))
    for index, (begin, key_row, symbol) in enumerate(begins):
        hi = begins[index + 1][0] - 1 if index + 1 < len(begins) else len(rows) - 1
        cuts = [row for row in boundary(begin, hi, key_row) if begin < row <= hi]
        edges = [begin] + cuts + [hi + 1]
        atoms: list[tuple[int, int]] = []
        for a, b in zip(edges, edges[1:]):
            if b - 1 < a:
                continue
            atoms.extend([(a, b - 1)] if lines.size(a, b - 1) <= budget else line_atoms(a, b - 1))
        kind = "key" if symbol is not None else "block"
        spans.extend(split_span(begin, hi, atoms, lines, budget, symbol=symbol, kind=kind, scope="keys",
                                name_row=key_row if symbol is not None else None))
    return spans


def yaml_spans(lines: Lines, budget: int) -> list[Span]:
    """YAML cut at its top-level keys, each span labelled with its key and at most ``budget``
    characters (a larger value is split where its children start); no key: :func:`text_spans`."""
    rows = lines.lines
    starts: list[tuple[int, str]] = []
    for row, line in enumerate(rows):
        match = _YAML_KEY.match(line)
        if match:
            starts.append((row, clip(match.group(1).strip().strip("\"'"), SYMBOL_PART_MAX_CHARS)))
    if not starts:
        return text_spans(lines, budget)

    def boundary(lo: int, hi: int, key_row: int) -> list[int]:
        body = [r for r in range(key_row + 1, hi + 1) if rows[r].strip() and not rows[r].lstrip().startswith("#")]
        if not body:
            return []
        indent = min(len(rows[r]) - len(rows[r].lstrip()) for r in body)
        return [r for r in body if len(rows[r]) - len(rows[r].lstrip()) == indent]

    return _keyed_spans(lines, budget, starts, boundary, "#")


def _json_string_end(line: str, col: int) -> int:
    """The column of the closing quote of the string literal opening at ``col`` (``len(line)`` if unclosed)."""
    end = col + 1
    while end < len(line) and line[end] != '"':
        end += 2 if line[end] == "\\" else 1
    return end


def _add_json_key(starts: list[tuple[int, str | None]], pending_key: tuple[int, str]) -> None:
    """Record a top-level key at its row; a row holding several keys gets no name."""
    try:
        key = str(json.loads(pending_key[1]))
    except ValueError:
        key = pending_key[1].strip('"')
    if starts and starts[-1][0] == pending_key[0]:  # several keys on one line
        starts[-1] = (pending_key[0], None)
    else:
        starts.append((pending_key[0], clip(key, SYMBOL_PART_MAX_CHARS)))


def _json_top_keys(rows: list[str]) -> tuple[list[tuple[int, str | None]], list[int]] | None:
    """``(starts, depth_at_line)``: the ``(row, key)`` of each top-level key and the nesting depth at
    each row's start; None when the text is not an object (its first character is not ``{``)."""
    depth_at_line = [0] * len(rows)
    starts: list[tuple[int, str | None]] = []
    depth = 0
    first_char = None
    pending_key: tuple[int, str] | None = None  # a string at depth 1 that may be a key
    in_block_comment = False
    for row, line in enumerate(rows):
        depth_at_line[row] = depth
        col = 0
        n = len(line)
        while col < n:
            ch = line[col]
            if in_block_comment:
                end = line.find("*/", col)
                in_block_comment = end < 0
                col = n if end < 0 else end + 2
                continue
            if ch in " \t":
                col += 1
                continue
            if ch == "/" and line.startswith("//", col):
                break
            if ch == "/" and line.startswith("/*", col):
                in_block_comment = True
                col += 2
                continue
            if first_char is None:
                first_char = ch
                if ch != "{":
                    return None
            if ch == '"':
                end = _json_string_end(line, col)
                if depth == 1:
                    pending_key = (row, line[col : end + 1])
                col = end + 1
                continue
            if ch == ":" and pending_key is not None and depth == 1:
                _add_json_key(starts, pending_key)
            elif ch in "{[":
                depth += 1
            elif ch in "}]":
                depth -= 1
            pending_key = None
            col += 1
    return starts, depth_at_line


def json_spans(lines: Lines, budget: int) -> list[Span]:
    """Spans of a JSON (or JSONC) object cut at its top-level keys; other JSON is cut as text."""
    scanned = _json_top_keys(lines.lines)
    if scanned is None:
        return text_spans(lines, budget)
    starts, depth_at_line = scanned
    if not starts:
        return text_spans(lines, budget)

    def boundary(lo: int, hi: int, key_row: int) -> list[int]:
        return [r for r in range(key_row + 1, hi + 1) if depth_at_line[r] <= 2]

    return _keyed_spans(lines, budget, starts, boundary, None)


_TOML_TABLE = re.compile(r"^\[\[?\s*([A-Za-z0-9_\-.\"' ]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_KEY = re.compile(r"^[A-Za-z0-9_\-\"'.]+\s*=")


def toml_spans(lines: Lines, budget: int) -> list[Span]:
    """TOML cut at its ``[table]`` headers (not inside multi-line strings), each span labelled with
    its table and at most ``budget`` characters (a larger table is split at its keys; the keys above
    the first table are a span of their own); no table: :func:`text_spans`."""
    rows = lines.lines
    starts = []
    multiline: str | None = None  # inside a """ or ''' string
    for row, line in enumerate(rows):
        if multiline is None:
            match = _TOML_TABLE.match(line)
            if match:
                starts.append((row, clip(match.group(1).replace('"', "").replace("'", ""), SYMBOL_PART_MAX_CHARS)))
        for quote in ('"""', "'''"):
            if line.count(quote) % 2 == 1 and multiline in (None, quote):
                multiline = None if multiline else quote
    if not starts:
        return text_spans(lines, budget)

    def boundary(lo: int, hi: int, key_row: int) -> list[int]:
        return [r for r in range(key_row + 1, hi + 1) if _TOML_KEY.match(rows[r])]

    spans = _keyed_spans(lines, budget, starts, boundary, "#")
    for span in spans:
        # Keys above the first table belong to the root table, not to the first table: they are
        # content of their own, so tiny-glue folding must not label them with that table.
        if span.glue and any(_TOML_KEY.match(rows[row]) for row in range(span.lo, span.hi + 1)):
            span.glue = False
    return spans

