"""C/C++ preprocessor branches that break a parse: find them, blank them, parse again.

The grammar reads every branch of an ``#if``/``#else`` group as code. When each branch opens the
same brace (``#ifdef _WIN32\n    if (wide) {\n#else\n    if (cloexec) {\n#endif``) the function
around them is one ERROR stretch and is not found as a definition (zlib's ``gzlib.c``:
``gz_open``; ``inflate.c``: ``inflate`` and 10 more). :func:`reparse_conditionals` blanks the
groups blamed for the errors (directive lines and one branch's short body each: the `#else`
bodies, or the first body when it is a Windows variant, :func:`blanked_spans`) and keeps the new
parse when it finds more definitions. Blanking replaces bytes by spaces, so every offset and line
of the parse stays the original's, and the parse again is incremental (the old tree, edited at
the blanked spans, lends tree-sitter every subtree the blanking did not touch).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

from paqad.index.chunking.packing import Fallback, Span

# Most re-parses of one file (each round blanks the groups blamed for the errors left by the
# one before; zlib's gzlib.c needs 1).
MAX_CONDITIONAL_REPARSES = 3


def reparse_conditionals(cutter: Any, parsed: bytes, tree: Any) -> tuple[Any, list[tuple[str, int]]]:
    """``(tree, [])`` (``tree``: the parse of ``parsed``, the bytes ``cutter`` -- the file's
    :class:`~paqad.index.chunking.code.CodeCutter` -- parses), or the parse of a copy of
    ``parsed`` with the preprocessor groups blamed for its errors blanked and the function heads
    in the branch bodies blanked in it (:func:`branch_heads`: (name, row)), when that parse holds
    more definitions at the file's top level (or as many and fewer errors). Fewer errors alone is not enough: the grammar's
    error recovery can then swallow other definitions (glog's ``src/googletest.h``: 7 functions
    lost, 1 gained)."""
    from paqad.index.chunking.code import _parse

    groups = conditionals(parsed)
    if not groups:
        return tree, []
    errors = error_spans(tree.root_node)
    bodies: list[tuple[int, int]] = []
    for _ in range(MAX_CONDITIONAL_REPARSES):
        blamed = blamed_conditionals(parsed, groups, errors)
        if not blamed:
            break
        spans, blanked_bodies = blanked_spans(parsed, blamed)
        candidate = blank_spans(parsed, spans)
        edited = tree.copy()
        for start, end in spans:
            point = _point(cutter, start), _point(cutter, end)
            edited.edit(start, end, end, point[0], point[1], point[1])
        try:
            reparsed = _parse(cutter.language, candidate, old_tree=edited)
        except Fallback:
            break
        left = error_spans(reparsed.root_node)
        # Only what changed is counted: outside the changed ranges both parses hold the same nodes.
        changed = _merged(spans + [(r.start_byte, r.end_byte) for r in edited.changed_ranges(reparsed)])
        gained = _definitions(cutter, reparsed.root_node.children, changed) - _definitions(cutter, tree.root_node.children, changed)
        if (gained, len(errors) - len(left)) <= (0, 0):
            break
        tree, parsed, errors = reparsed, candidate, left
        bodies.extend(blanked_bodies)
        groups = [group for group in groups if group not in blamed]
        if not errors:
            break
    return tree, [(name, cutter._row(offset)) for name, offset in branch_heads(cutter.data, sorted(bodies))]


def _definitions(cutter: Any, nodes: Any, changed: list[tuple[int, int]], depth: int = 0) -> int:
    """How many definitions ``cutter._level`` would find among ``nodes`` (namespaces, `#if`s and
    ERROR stretches seen through, as ``cutter._members`` does) in nodes touching a byte span of
    ``changed`` (disjoint (start, end) spans in order, :func:`_merged`)."""
    from paqad.index.chunking.code import MAX_DEPTH

    if depth > MAX_DEPTH:
        raise Fallback
    types, count = cutter.types, 0
    for node in nodes:
        start, end = node.start_byte, node.end_byte
        index = bisect_left(changed, (start, -1)) - 1  # the last span starting before the node, then the next
        if not any(0 <= i < len(changed) and changed[i][0] <= end and start <= changed[i][1] for i in (index, index + 1)):
            continue
        if (node.type in types.transparent or node.type in types.bodies or node.type == "ERROR") and node.child_count:
            count += _definitions(cutter, node.children, changed, depth + 1)
        elif cutter._definition(node, None) is not None:
            count += 1
    return count


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` (start, end) sorted, those that touch or overlap joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _point(cutter: Any, offset: int) -> tuple[int, int]:
    """tree-sitter point (row, byte column) of byte ``offset`` of ``cutter``'s data."""
    row = cutter._row(offset)
    return row, offset - cutter.line_starts[row]


def error_spans(root: Any) -> list[tuple[int, int]]:
    """Byte spans (start, end) of the innermost ERROR nodes and of the MISSING nodes (empty
    spans) under ``root``, in order."""
    offsets = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            offsets.append((node.start_byte, node.start_byte))
            continue
        if not node.has_error:
            continue
        inner = [child for child in node.children if child.has_error or child.is_missing]
        if node.type == "ERROR" and not any(child.type == "ERROR" or child.has_error for child in inner):
            offsets.append((node.start_byte, node.end_byte))
        stack.extend(inner)
    return sorted(offsets)


# Conditional directives, at the start of a line (`#if`, `  #  ifdef`, ..., `#endif`).
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b", re.MULTILINE)
# Longest `#else`/`#elif` branch (lines) whose body is blanked. The branches that break a parse
# open or close a brace the other branch also opens (`#ifdef X\n  if (a) {\n#else\n  if (b) {\n#endif`),
# a few lines each; a long branch is a platform variant of whole functions, which parses as it
# is once the directive lines are gone, and whose lines would otherwise be left out of every
# definition.
MAX_BLANKED_BRANCH_LINES = 20
# An error up to this many lines below a group's `#endif` is blamed on the group: in
# `#ifdef WIDECHAR\n  else if (fd == -2) ...;\n#endif\n  else ...;` the grammar fails at the
# last `else`.
ERROR_LINES_AFTER_GROUP = 3


class Conditional:
    """One `#if ... #endif` group of a file: byte spans of its directive lines (without their
    newlines, continuation lines included) and of the bodies of its `#elif`/`#else` branches."""

    __slots__ = ("start", "end", "directives", "branches")

    def __init__(self, start: int) -> None:
        self.start = start  # offset of the `#if` line
        self.end = start  # end of the `#endif` line (its newline excluded)
        self.directives: list[tuple[int, int]] = []
        self.branches: list[tuple[int, int]] = []  # `#elif`/`#else` bodies, from the line after the directive


def conditionals(data: bytes) -> list[Conditional]:
    """The closed `#if`/`#ifdef`/`#ifndef` ... `#endif` groups of ``data``, in order of their end.

    Directives inside comments or strings are not told apart (they are rare; a group they
    unbalance is simply not closed and left out).
    """
    groups: list[Conditional] = []
    stack: list[tuple[Conditional, int | None]] = []  # group, start of the open else/elif body
    for match in _DIRECTIVE.finditer(data):
        line_start, word = match.start(), match.group(1)
        line_end = _directive_end(data, match.end())
        if word in (b"if", b"ifdef", b"ifndef"):
            group = Conditional(line_start)
            group.directives.append((line_start, line_end))
            stack.append((group, None))
            continue
        if not stack:
            continue
        group, body_start = stack.pop()
        if body_start is not None:
            group.branches.append((body_start, line_start))
        group.directives.append((line_start, line_end))
        if word == b"endif":
            group.end = line_end
            groups.append(group)
        else:
            stack.append((group, min(line_end + 1, len(data))))
    return groups


def _directive_end(data: bytes, offset: int) -> int:
    """End of the directive line holding ``offset`` (its newline excluded), through `\\` continuations."""
    while True:
        newline = data.find(b"\n", offset)
        if newline < 0:
            return len(data)
        if data[newline - 1 : newline] == b"\\" or data[newline - 2 : newline] == b"\\\r":
            offset = newline + 1
            continue
        return newline


# Macros whose `#ifdef`/`#if defined(...)` opens a Windows variant: in `#ifdef WIN32 ... #else
# ... #endif` the `#else` body is the core (jq's `src/main.c`: `int umain(...) {` for WIN32,
# `int main(...) {` else; issue 24: a C question should land on the core, not a platform copy).
WINDOWS_MACROS = frozenset(
    b"_WIN32 WIN32 _WIN64 WIN64 _MSC_VER __MINGW32__ __MINGW64__ __CYGWIN__ _WINDOWS __WINDOWS__ _WIN32_WCE".split()
)
# `#ifdef NAME` or `#if defined(NAME) || defined NAME ...`; group 1 the names' part.
_IF_DEFINED = re.compile(rb"#[ \t]*(?:ifdef[ \t]+(\w+)|if[ \t]+((?:\|\||[ \t]|defined[ \t]*\(?[ \t]*\w+[ \t]*\)?)+))")


def blank_conditionals(data: bytes, groups: list[Conditional]) -> bytes:
    """``data`` with the spans :func:`blanked_spans` gives for ``groups`` blanked (:func:`blank_spans`)."""
    return blank_spans(data, blanked_spans(data, groups)[0])


def blank_spans(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    """``data`` with the bytes of ``spans`` (start, end) replaced by spaces, newlines kept (same length)."""
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = re.sub(rb"[^\n]", b" ", data[start:end])
    return bytes(out)


def blanked_spans(data: bytes, groups: list[Conditional]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(every span to blank, the branch bodies among them) for ``groups``: their directive lines
    and, per group, the branch bodies of at most :data:`MAX_BLANKED_BRANCH_LINES` lines that are
    not parsed -- the `#else`/`#elif` bodies, or the first body instead when the `#if` tests only
    Windows macros (:data:`WINDOWS_MACROS`) and one short `#else` follows it."""
    spans: list[tuple[int, int]] = []
    bodies: list[tuple[int, int]] = []
    for group in groups:
        spans.extend(group.directives)
        first = windows_first_body(data, group)
        chosen = [first] if first is not None else group.branches
        short = [body for body in chosen if data.count(b"\n", *body) <= MAX_BLANKED_BRANCH_LINES]
        spans.extend(short)
        bodies.extend(short)
    return sorted(spans), sorted(bodies)


def windows_first_body(data: bytes, group: Conditional) -> tuple[int, int] | None:
    """The span of ``group``'s first body when the group is `#if <Windows> ... #else ... #endif`
    (its condition names only :data:`WINDOWS_MACROS`, one `#else`); else None."""
    if len(group.directives) != 3 or len(group.branches) != 1:
        return None
    (if_start, if_end), (else_start, else_end) = group.directives[0], group.directives[1]
    if not re.match(rb"[ \t]*#[ \t]*else\b", data[else_start:else_end]):
        return None
    head = re.sub(rb"/\*.*?\*/|//.*", b"", data[if_start:if_end]).strip()
    match = _IF_DEFINED.fullmatch(head)
    if match is None:
        return None
    names = [match.group(1)] if match.group(1) else re.findall(rb"defined[ \t]*\(?[ \t]*(\w+)", match.group(2))
    if not names or any(name not in WINDOWS_MACROS for name in names):
        return None
    return min(if_end + 1, len(data)), else_start


def blamed_conditionals(data: bytes, groups: list[Conditional], errors: list[tuple[int, int]]) -> list[Conditional]:
    """The groups blamed for parse errors at byte spans ``errors`` (start, end).

    For each error: the groups inside it or crossing its edges (a function whose `#ifdef`
    branches each open an `if (...) {` is one ERROR node holding the group); else the innermost
    group holding it; else the nearest group ending at most :data:`ERROR_LINES_AFTER_GROUP`
    lines above it.
    """
    blamed: dict[int, Conditional] = {}
    for start, end in errors:
        overlapping = [group for group in groups if group.start <= end and group.end >= start]
        holding = [group for group in overlapping if group.start <= start and group.end >= end]
        inside = [group for group in overlapping if group not in holding]
        if inside:
            chosen = inside
        elif holding:
            chosen = [max(holding, key=lambda g: g.start)]
        else:
            above = [group for group in groups if group.end < start]
            if not above:
                continue
            nearest = max(above, key=lambda g: g.end)
            if data.count(b"\n", nearest.end, start) > ERROR_LINES_AFTER_GROUP:
                continue
            chosen = [nearest]
        for group in chosen:
            blamed[group.start] = group
    return list(blamed.values())


# A function definition's head at the start of a line, in a blanked branch body: `int main(int
# argc, char* argv[]) {` (jq's `src/main.c`), `static void\nlog_init(void)\n{`. Group 1: the
# name. A declaration (`;`) or a call is no head: the `{` must end the line or open the next one.
_HEAD = re.compile(
    rb"^(?:[A-Za-z_][\w*&:<>, \t]*?[ \t*&]+)?[*&]*([A-Za-z_~][\w:~]*)[ \t]*"
    rb"\((?:[^;{}()\n]|\([^;{}()\n]*\))*\)[ \t]*(?:const[ \t]*)?(\{)?[ \t]*(?://[^\n]*|/\*[^\n]*\*/)?[ \t]*\r?$",
    re.MULTILINE,
)
_NOT_HEAD_NAMES = frozenset(b"if while for switch return sizeof else do case defined".split())


def branch_heads(data: bytes, bodies: list[tuple[int, int]]) -> list[tuple[str, int]]:
    """(name, byte offset of its line) of each function head (:data:`_HEAD`) in the blanked branch
    ``bodies`` (start, end) of ``data``: definitions the parse no longer sees (its other branch
    is parsed), named by the chunk that holds their line."""
    found = []
    for start, end in bodies:
        for match in _HEAD.finditer(data, start, end):
            name = match.group(1)
            if name in _NOT_HEAD_NAMES:
                continue
            if match.group(2) is None and not data[match.end() : end].lstrip().startswith(b"{"):
                continue
            found.append((name.decode("utf-8", "replace").replace("::", "."), match.start()))
    return found


def add_heads(spans: list[Span], heads: list[tuple[str, int]]) -> list[Span]:
    """``spans`` (in row order), each of ``heads`` (name, row) added to the ``defined`` of the last
    span starting at or above its row (the first span when none does)."""
    for name, row in heads:
        holder = next((span for span in reversed(spans) if span.lo <= row), spans[0] if spans else None)
        if holder is not None:
            holder.defined.append((name, row))
    return spans
