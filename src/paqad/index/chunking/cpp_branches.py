"""C/C++ preprocessor branches that break a parse: find them, blank them, parse again.

The grammar reads every branch of an ``#if``/``#else`` group as code. When each branch opens the
same brace (``#ifdef _WIN32\n    if (wide) {\n#else\n    if (cloexec) {\n#endif``) the function
around them is one ERROR stretch and is not found as a definition (zlib's ``gzlib.c``:
``gz_open``; ``inflate.c``: ``inflate`` and 10 more). :func:`reparse_conditionals` blanks the
groups blamed for the errors (directive lines, short ``#else``/``#elif`` bodies: the first branch
is what is parsed) and keeps the new parse when it finds more definitions. Blanking replaces
bytes by spaces, so every offset and line of the parse stays the original's.
"""

from __future__ import annotations

import re
from typing import Any

from paqad.index.chunking.packing import Fallback

# Most re-parses of one file (each round blanks the groups blamed for the errors left by the
# one before; zlib's gzlib.c needs 1).
MAX_CONDITIONAL_REPARSES = 3


def reparse_conditionals(cutter: Any, parsed: bytes, tree: Any) -> Any:
    """``tree`` (the parse of ``parsed``, the bytes ``cutter`` -- the file's
    :class:`~paqad.index.chunking.code.CodeCutter` -- parses), or the parse of a copy of
    ``parsed`` with the preprocessor groups blamed for its errors blanked, when that one holds
    more definitions at the file's top level (or as many and fewer errors). Fewer errors alone is
    not enough: the grammar's error recovery can then swallow other definitions (glog's
    ``src/googletest.h``: 7 functions lost, 1 gained)."""
    from paqad.index.chunking.code import _parse

    def definitions(parse: Any) -> int:  # namespaces, `#if`s and ERROR stretches seen through, as `_level` does
        return sum(1 for node in cutter._members(parse.root_node.children, (), 0) if cutter._definition(node, None) is not None)

    groups = conditionals(parsed)
    errors = error_spans(tree.root_node)
    found = definitions(tree)
    for _ in range(MAX_CONDITIONAL_REPARSES):
        blamed = blamed_conditionals(parsed, groups, errors)
        if not blamed:
            break
        candidate = blank_conditionals(parsed, blamed)
        try:
            reparsed = _parse(cutter.language, candidate)
        except Fallback:
            break
        left = error_spans(reparsed.root_node)
        more = definitions(reparsed)
        if (more, -len(left)) <= (found, -len(errors)):
            break
        tree, parsed, errors, found = reparsed, candidate, left, more
        groups = [group for group in groups if group not in blamed]
        if not errors:
            break
    return tree


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


def blank_conditionals(data: bytes, groups: list[Conditional]) -> bytes:
    """``data`` with the directive lines of ``groups`` and their short `#else`/`#elif` bodies
    (:data:`MAX_BLANKED_BRANCH_LINES`) replaced by spaces; newlines and length stay."""
    out = bytearray(data)
    for group in groups:
        spans = list(group.directives)
        spans.extend(body for body in group.branches if data.count(b"\n", *body) <= MAX_BLANKED_BRANCH_LINES)
        for start, end in spans:
            out[start:end] = re.sub(rb"[^\n]", b" ", data[start:end])
    return bytes(out)


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
