"""Blank C/C++ annotation macros out of the bytes tree-sitter parses (names stay the real ones).

Libraries wrap definitions in macros the grammar cannot expand: ``class GLOG_EXPORT LogSink {``
(an export macro between the keyword and the name) parses as a class named ``GLOG_EXPORT``
and, in a namespace, ``class LEVELDB_EXPORT DB {`` parses as a function ``DB`` whose return
type is ``class LEVELDB_EXPORT``; ``void Send() EXCLUSIVE_LOCKS_REQUIRED(mu) {`` (a
thread-safety annotation after the parameters) parses as a function named
``EXCLUSIVE_LOCKS_REQUIRED``. Measured with the project's tree-sitter-cpp on glog's
``src/glog/logging.h`` and ``src/logging.cc``. Each such macro is replaced by spaces of
the same length, so every byte offset and line number of the parse stays the original's; the
chunk text is cut from the original bytes.
"""

from __future__ import annotations

import re

# An annotation macro's name: ALL CAPS, with an underscore or ending in EXPORT/API
# (`GLOG_EXPORT`, `LEVELDB_EXPORT`, `DLLAPI`, `LOCKS_EXCLUDED`). A one-word capital such as
# `FOO` or `T` is too often a real name or a template parameter to blank.
_MACRO = rb"(?:[A-Z][A-Z0-9]*_[A-Z0-9_]*|[A-Z][A-Z0-9]*(?:EXPORT|API))\b"
# Its optional argument list, one nesting level deep: `CAPABILITY("mutex")`, `GUARDED_BY(a(b))`.
_ARGS = rb"(?:[ \t]*\((?:[^()\n]|\([^()\n]*\))*\))?"

# `class|struct|union MACRO... Name` followed by what can follow a defined class's name: a body,
# a base list or `final` (not `;`: `struct TREE_NODE node;` declares a variable of a C struct
# type, and a forward declaration defines nothing either way). Group 1: the macro(s) to blank.
_CLASS_MACRO = re.compile(
    rb"\b(?:class|struct|union)[ \t]+((?:" + _MACRO + _ARGS + rb"[ \t]+)+)"
    rb"(?=[A-Za-z_]\w*\s*(?:final\b\s*)?(?:\{|:(?!:)))"
)

# `) [const|noexcept|override|final|&|&&]... MACRO[(args)]...` on the line of the `)` or on an
# indented continuation line (googletest's `bool Locked() const\n      GTEST_LOCK_EXCLUDED_(mu);`),
# followed by what ends or continues a function declarator. Group 1: the macro(s) to blank.
_TRAILING_MACRO = re.compile(
    rb"\)[ \t]*(?:(?:const|volatile|noexcept|override|final|&&|&)[ \t]*)*(?:\n[ \t]+)?"
    rb"((?:" + _MACRO + _ARGS + rb"[ \t]*)+)"
    rb"(?=\s*(?:[;{=]|:(?!:)|->|override\b|const\b|final\b|noexcept\b))"
)

# Prefix macros at the start of a line, before a declaration's type: `LZ4_FORCE_INLINE U32
# LZ4_hash4(U32 sequence)`, `LUA_API int lua_gettop (lua_State *L) {`, `GLOG_EXPORT void
# InstallFailureSignalHandler();`. A macro alone on the line above the declaration
# (`LZ4_FORCE_INLINE\nvoid LZ4_wildCopy8(...)`) is left: blanked, its line would belong to no
# node and join the chunk above, and the grammar already starts the definition there. The C grammar reads `LZ4_FORCE_INLINE U32 name(` as a type followed by an
# ERROR, and a run of such ERRORs can swallow the definitions after them. A prefix macro has no
# argument list (`YAML_DECLARE(int)` holds the return type and parses well as it is) and is
# followed by a type and a name (two words at least before the `(`: `MY_TYPE f(int x)` may be a
# real type, and is left) or by `class`/`struct`/... Names: the `_MACRO` shape, or ALL CAPS ending
# in EXTERN/INLINE (`ZEXTERN`, `FORCEINLINE`). Group 1: the macro(s) to blank.
_PREFIX_NAME = rb"(?:[A-Z][A-Z0-9]*_[A-Z0-9_]*|[A-Z][A-Z0-9]*(?:EXPORT|API|EXTERN|INLINE))\b(?!\s*\()"
_PREFIX_MACRO = re.compile(
    rb"^[ \t]*((?:" + _PREFIX_NAME + rb"[ \t]+)+)"
    rb"(?=(?:class|struct|union|enum|template|typedef)\b"
    rb"|(?:[A-Za-z_][\w:<>,]*[ \t*&]+){1,6}\(?[ \t]*[A-Za-z_~][\w:~]*[ \t]*\)?[ \t]*\()",
    re.MULTILINE,
)

# Words that can stand before a parenthesis that is not a parameter list: `return (int) X_MAX;`.
_NOT_FUNCTION_NAMES = frozenset(
    b"return if while for switch case sizeof alignof decltype typeid throw co_return co_yield "
    b"else do defined static_assert noexcept".split()
)
# How far back a parameter list's `(` is looked for, bytes: a signature longer than this is
# left as it is.
_MAX_PARAMETERS_BYTES = 4000

# Grammars whose parse input is blanked.
MACRO_LANGUAGES = frozenset({"c", "cpp"})


def blank_macros(data: bytes) -> bytes:
    """``data`` (C or C++ source, UTF-8) with annotation macros replaced by equal-length spaces.

    Blanked: a macro between ``class``/``struct``/``union`` and the class's name, macros
    after a function's parameter list (``) LOCKS_EXCLUDED(mu_) {``), and prefix macros at the
    start of a line before a declaration (``LZ4_FORCE_INLINE U32 LZ4_hash4(U32 v) {``). Returns ``data`` itself
    when nothing matches; the result always has ``len(data)`` bytes and the same newlines.
    """
    spans = [match.span(1) for match in _CLASS_MACRO.finditer(data)]
    spans.extend(_prefix_spans(data))
    spans.extend(match.span(1) for match in _TRAILING_MACRO.finditer(data) if _after_parameters(data, match.start()))
    if not spans:
        return data
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = b" " * (end - start)  # macro names and arguments hold no newline (_ARGS, _PREFIX_MACRO)
    return bytes(out)


def _prefix_spans(data: bytes) -> list[tuple[int, int]]:
    """Spans of prefix macros (:data:`_PREFIX_MACRO`), their trailing whitespace left as it is."""
    spans = []
    for match in _PREFIX_MACRO.finditer(data):
        start, end = match.span(1)
        spans.append((start, start + len(data[start:end].rstrip())))
    return spans


def _after_parameters(data: bytes, close: int) -> bool:
    """Whether the ``)`` at ``close`` ends a parameter list: its ``(`` follows a name (or
    ``operator()``, a template's ``>``), not a keyword or an operator (a cast)."""
    depth = 0
    floor = max(0, close - _MAX_PARAMETERS_BYTES)
    index = close
    while index >= floor:
        char = data[index]
        if char == 0x29:  # )
            depth += 1
        elif char == 0x28:  # (
            depth -= 1
            if depth == 0:
                break
        elif char in b";{}":
            return False
        index -= 1
    else:
        return False
    before = data[floor:index].rstrip()
    if not before or not (before[-1:].isalnum() or before[-1:] in b"_>)"):
        return False
    word = re.search(rb"\w+$", before)
    return word is None or word.group() not in _NOT_FUNCTION_NAMES


# -- preprocessor branches ---------------------------------------------------------------------
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
