"""Spans of rows and how they are packed into chunks: the budget, merging and gluing rules.

The language-specific cutters (:mod:`.code`, :mod:`.markup`, :mod:`.data`) produce spans; the
functions here pack row ranges within the character budget, merge tiny neighbours, fold glue and
check the result (see the package docstring for the rules).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Sequence

class Lines:
    """The file's lines (split on ``\\n``, trailing ``\\r`` dropped) with O(1) sizes."""

    def __init__(self, text: str) -> None:
        raw = text.split("\n")
        if raw and raw[-1] == "":
            raw.pop()
        self.lines = [line[:-1] if line.endswith("\r") else line for line in raw]
        self._prefix = [0]
        for line in self.lines:
            self._prefix.append(self._prefix[-1] + len(line))

    def __len__(self) -> int:
        return len(self.lines)

    def size(self, lo: int, hi: int) -> int:
        """Characters of lines ``lo..hi`` (0-based, inclusive) joined with newlines."""
        return self._prefix[hi + 1] - self._prefix[lo] + (hi - lo)

    def blank(self, row: int) -> bool:
        return not self.lines[row].strip()

    def text(self, lo: int, hi: int) -> str:
        return "\n".join(self.lines[lo : hi + 1])


@dataclass
class Span:
    """A chunk being built: 0-based inclusive rows plus labels and merge hints."""

    lo: int
    hi: int
    symbol: str | None
    kind: str
    signature: str | None = None
    scope: Any = None  # identity of the level it came from; only equal scopes merge
    scope_symbol: str | None = None  # symbol a merged block of this level gets
    definition: bool = False  # a whole definition, key or section (not glue, not a part)
    glue: bool = False  # statements between definitions (may be a lone bracket)
    header: bool = False  # glue that opens a split class (`class Foo(Base):`)
    nested: bool = False  # glue inside a split class: tiny-glue folding must not leave the class
    name_row: int | None = None  # the row that names ``symbol`` (def line, heading, key), when known
    # every (symbol, name row) this span holds: its own, and those of definitions merged into it
    defined: list[tuple[str, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.symbol and self.name_row is not None and not self.defined:
            self.defined = [(self.symbol, self.name_row)]

    def absorb(self, other: "Span") -> None:
        """Take ``other``'s rows (it is next to this span) and the definitions it names."""
        self.lo, self.hi = min(self.lo, other.lo), max(self.hi, other.hi)
        self.defined = sorted(set(self.defined) | set(other.defined), key=lambda d: d[1])


class Fallback(Exception):
    """Cutting at natural boundaries is not possible: use line windows."""


def pack(atoms: Sequence[tuple[int, int]], lines: Lines, budget: int) -> list[tuple[int, int]]:
    """Greedily group ordered row ranges into ranges of at most ``budget`` characters.

    An atom larger than the budget stays alone. The last two groups are then balanced so that
    a part is not left with only a closing bracket.
    """
    groups: list[list[int]] = []
    for index, (_, hi) in enumerate(atoms):
        if groups and lines.size(atoms[groups[-1][0]][0], hi) <= budget:
            groups[-1][1] = index
        else:
            groups.append([index, index])
    if len(groups) >= 2:
        prev, last = groups[-2], groups[-1]
        while prev[1] > prev[0]:
            moved_last = lines.size(atoms[prev[1]][0], atoms[last[1]][1])
            moved_prev = lines.size(atoms[prev[0]][0], atoms[prev[1] - 1][1])
            if moved_last > budget or moved_last > moved_prev:
                break
            prev[1] -= 1
            last[0] -= 1
    return [(atoms[first][0], atoms[last_index][1]) for first, last_index in groups]


def line_atoms(lo: int, hi: int) -> list[tuple[int, int]]:
    """One atom per row ``lo..hi`` (0-based, inclusive): ``[(lo, lo), ..., (hi, hi)]``."""
    return [(row, row) for row in range(lo, hi + 1)]


def paragraph_atoms(lines: Lines, lo: int, hi: int, budget: int) -> list[tuple[int, int]]:
    """Blank-line separated paragraphs of rows ``lo..hi``; oversized ones become lines."""
    atoms: list[tuple[int, int]] = []
    start = None
    for row in range(lo, hi + 2):
        if row <= hi and not lines.blank(row):
            if start is None:
                start = row
            continue
        if start is not None:
            end = row - 1
            if lines.size(start, end) <= budget:
                atoms.append((start, end))
            else:
                atoms.extend(line_atoms(start, end))
            start = None
    return atoms


def window_spans(lines: Lines, budget: int) -> list[Span]:
    """The non-blank rows packed into ``window`` spans of at most ``budget`` characters each (a file
    with no structure to cut on)."""
    atoms = [(row, row) for row in range(len(lines)) if not lines.blank(row)]
    return [Span(lo, hi, None, "window") for lo, hi in pack(atoms, lines, budget)]


def split_span(
    lo: int, hi: int, atoms: Sequence[tuple[int, int]], lines: Lines, budget: int, **labels: Any
) -> list[Span]:
    """One span for rows ``lo..hi`` if it fits, else parts packed from ``atoms``."""
    if lines.size(lo, hi) <= budget:
        return [Span(lo, hi, definition=True, **labels)]
    return [Span(a, b, **labels) for a, b in pack(atoms, lines, budget)]


_TRIVIAL = re.compile(r"(?:[\W_]|\bend\b)*")
_CLOSERS = frozenset(")]}")


HEADER_OVERFLOW_CHARS = 200
"""How far a split class's header line (``impl Foo {``) may push its first member over the budget
(at most a quarter of the budget): a header alone would be a chunk holding a signature and none
of its body (DESIGN §6)."""


def _only_signature(span: Span, lines: Lines) -> bool:
    """Whether ``span`` holds its definition line and, below it, nothing but brackets (``{``)."""
    row = span.name_row
    if row is None or not span.lo <= row <= span.hi:
        return False
    return row == span.hi or bool(_TRIVIAL.fullmatch(lines.text(row + 1, span.hi)))


def _attach_small_glue(spans: list[Span], lines: Lines, budget: int) -> list[Span]:
    """Fold glue that would make a useless chunk of its own into a neighbour, if it fits.

    Glue that is only brackets or ``end`` joins the chunk above (the first one joins the chunk
    below). The header of a split class (``impl Foo {``, with the comments above it) joins the
    class's first member when it fits; else the comments stay a chunk of their own and the header
    line joins even if that puts the member up to :data:`HEADER_OVERFLOW_CHARS` over.
    """
    out: list[Span] = []
    carry: Span | None = None  # prepended to the next span
    overflow = min(HEADER_OVERFLOW_CHARS, budget // 4)
    for span in spans:
        if carry is not None:
            if lines.size(carry.lo, span.hi) <= budget:
                span.absorb(carry)
            elif (carry.header and _only_signature(carry, lines)
                  and lines.size(carry.name_row, span.hi) <= budget + overflow):
                if carry.name_row > carry.lo:  # the comments above the header stay a chunk of their own
                    out.append(Span(carry.lo, carry.name_row - 1, carry.symbol, carry.kind, carry.signature,
                                    scope=carry.scope, glue=True, nested=carry.nested))
                    carry.lo = carry.name_row
                span.absorb(carry)
            else:
                out.append(carry)
            carry = None
        if span.glue:
            if span.header and (span.lo == span.hi or _only_signature(span, lines)):
                carry = span
                continue
            if _TRIVIAL.fullmatch(lines.text(span.lo, span.hi)):
                if out and lines.size(out[-1].lo, span.hi) <= budget:
                    out[-1].absorb(span)
                    continue
                if not out:
                    carry = span
                    continue
        out.append(span)
    if carry is not None:
        out.append(carry)
    return _fold_tiny_glue(out, lines, budget)


def _fold_tiny_glue(spans: list[Span], lines: Lines, budget: int) -> list[Span]:
    """Fold tiny glue (a module docstring, a short import block, one constant) into the next
    chunk, or into the previous one at the end of its scope (the file, or a split class),
    when the result fits the budget.

    A one-line glue chunk is a poor search result: it has little meaning of its own, yet its
    short length makes both BM25 and cosine similarity favour it. The merged chunk keeps the
    neighbour's symbol, kind and signature. Glue that starts with a closing bracket joins the
    chunk above it first. Glue inside a split class only joins chunks of the same class (its
    closing ``}`` must not open the next class or function), and top-level glue at the end of
    the file does not join a method of a split class above it.
    """
    tiny = budget // 8
    out: list[Span] = []
    pending: Span | None = None

    def fold_back(glue: Span) -> None:
        if out and out[-1].scope == glue.scope and lines.size(out[-1].lo, glue.hi) <= budget:
            out[-1].absorb(glue)
        else:
            out.append(glue)

    for span in spans:
        if pending is not None:
            if pending.nested and span.scope != pending.scope:  # the class ends here
                fold_back(pending)
            elif lines.size(pending.lo, span.hi) <= budget:
                span.absorb(pending)
            else:
                out.append(pending)
            pending = None
        if span.glue and not span.header and lines.size(span.lo, span.hi) < tiny:
            if (
                lines.lines[span.lo].lstrip()[:1] in _CLOSERS
                and out
                and out[-1].scope == span.scope
                and lines.size(out[-1].lo, span.hi) <= budget
            ):
                out[-1].absorb(span)  # `}  // namespace users` closes what is above it
                continue
            pending = span
            continue
        out.append(span)
    if pending is not None:
        fold_back(pending)
    return out


def _merge_tiny(spans: list[Span], lines: Lines, budget: int) -> list[Span]:
    """Merge consecutive tiny whole definitions of one scope while they fit the budget."""
    tiny = budget // 8
    out: list[Span] = []
    open_block = False  # out[-1] may still take tiny neighbours
    for span in spans:
        is_tiny = span.definition and lines.size(span.lo, span.hi) < tiny
        if (
            is_tiny
            and open_block
            and out[-1].scope == span.scope
            and lines.size(out[-1].lo, span.hi) <= budget
        ):
            block = out[-1]
            block.absorb(span)
            block.symbol = block.scope_symbol
            block.name_row = None  # a block of several definitions names none of them alone
            block.kind = "block"
            block.signature = None
            continue
        out.append(span)
        open_block = is_tiny
    return out


def finish(spans: list[Span], lines: Lines, budget: int) -> list[Span] | None:
    """Merge neighbours, cover stray lines, trim blank edges; None if spans are inconsistent."""
    spans = _merge_tiny(spans, lines, budget)
    spans = _attach_small_glue(spans, lines, budget)
    previous_hi = -1
    for span in spans:
        if span.lo > span.hi or span.lo <= previous_hi or span.hi >= len(lines):
            return None
        previous_hi = span.hi
    if not spans:
        return None
    # A line no span covers (a grammar that skips text) joins the span above, else below.
    covered = [False] * len(lines)
    for span in spans:
        covered[span.lo : span.hi + 1] = [True] * (span.hi - span.lo + 1)
    his = [span.hi for span in spans]
    for row, is_covered in enumerate(covered):
        if is_covered or lines.blank(row):
            continue
        above = bisect_right(his, row) - 1
        if above >= 0:
            spans[above].hi = his[above] = row
        else:
            spans[0].lo = min(spans[0].lo, row)
    result = []
    for span in spans:
        while span.lo <= span.hi and lines.blank(span.lo):
            span.lo += 1
        while span.hi >= span.lo and lines.blank(span.hi):
            span.hi -= 1
        if span.lo <= span.hi:
            result.append(span)
    return result


def text_spans(lines: Lines, budget: int) -> list[Span]:
    """Plain text: blank-line paragraphs packed into ``block`` spans of at most ``budget`` characters
    (an oversized paragraph is cut between lines)."""
    atoms = paragraph_atoms(lines, 0, len(lines) - 1, budget)
    return [Span(lo, hi, None, "block") for lo, hi in pack(atoms, lines, budget)]


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, an ellipsis as the last one when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"

