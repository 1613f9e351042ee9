"""Blank C/C++ annotation macros out of the bytes tree-sitter parses (names stay the real ones).

Libraries wrap definitions in macros the grammar cannot expand: ``class GLOG_EXPORT LogSink {``
(an export macro between the keyword and the name) parses as a class named ``GLOG_EXPORT``
and, in a namespace, ``class LEVELDB_EXPORT DB {`` parses as a function ``DB`` whose return
type is ``class LEVELDB_EXPORT``; ``void Send() EXCLUSIVE_LOCKS_REQUIRED(mu) {`` (a
thread-safety annotation after the parameters) parses as a function named
``EXCLUSIVE_LOCKS_REQUIRED``. Measured with the project's tree-sitter-cpp on glog's
``src/glog/logging.h`` and ``src/logging.cc``. A prefix macro (round 10): ``CLI11_INLINE
std::string App::help() const {`` gives the symbol ``CLI11_INLINEstd.stringApp.help`` (cli11).
Each such macro is replaced by spaces of the same length, so every byte offset and line number
of the parse stays the original's; the chunk text is cut from the original bytes.
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

# Prefix macros at the start of a line, before a declaration's type and name on the same line:
# `CLI11_INLINE std::string App::help() const {`, `LZ4_FORCE_INLINE U32 LZ4_hash4(U32 v)`,
# `LUA_API int lua_gettop (lua_State *L) {`. The grammar reads the macro as the type and the real
# type as an ERROR or part of the name (cli11: `CLI11_INLINEstd.stringApp.help`, 150 such names),
# and a run of such ERRORs can swallow the definitions after them. Left as they are: a macro with
# an argument list (`YAML_DECLARE(int)` holds the return type and parses well), one followed by a
# single word before the name (`MY_TYPE f(int x)`: may be a real type), and a macro alone on its
# line (`LZ4_FORCE_INLINE\nvoid f(...)`: blanked, its line would belong to no node and join the
# chunk above; the grammar already starts the definition there). Names: the `_MACRO` shape, or
# ALL CAPS ending in EXPORT/API/EXTERN/INLINE (`ZEXTERN`). Group 1: the macro(s) to blank.
_PREFIX_NAME = rb"(?:[A-Z][A-Z0-9]*_[A-Z0-9_]*|[A-Z][A-Z0-9]*(?:EXPORT|API|EXTERN|INLINE))\b(?!\s*\()"
_PREFIX_MACRO = re.compile(
    rb"^[ \t]*((?:" + _PREFIX_NAME + rb"[ \t]+)+)"
    rb"(?=(?:class|struct|union|enum|template|typedef)\b"
    rb"|(?:[A-Za-z_][\w:<>,]*[ \t*&]+){1,6}\(?[ \t]*[A-Za-z_~][\w:~]*[ \t]*\)?[ \t]*\()",
    re.MULTILINE,
)

# A macro alone on a line at column 0 that opens or closes a scope the grammar cannot see:
# `NLOHMANN_JSON_NAMESPACE_BEGIN` / `_END` (nlohmann/json: `namespace nlohmann { inline namespace
# json_abi_v3_11_3 {`), `FMT_BEGIN_NAMESPACE`, `ABSL_NAMESPACE_BEGIN`, `G_BEGIN_DECLS`,
# `__BEGIN_DECLS`. Read as a type, it makes the next definition a function named `namespace` or
# a declaration of the macro (chunks labelled so instead of their definitions). Its name has a
# `_`-separated word among :data:`_SCOPE_WORDS`; a trailing comment may follow.
_SCOPE_MACRO = re.compile(rb"^(_*[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+_?)[ \t]*(?://[^\n]*|/\*[^\n]*\*/)?[ \t]*\r?$", re.MULTILINE)
_SCOPE_WORDS = frozenset({b"BEGIN", b"END", b"NAMESPACE", b"DECLS"})

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
    start of a line before a declaration (``LZ4_FORCE_INLINE U32 LZ4_hash4(U32 v) {``), and
    scope macros alone on their line (``NLOHMANN_JSON_NAMESPACE_BEGIN``).
    Returns ``data`` itself when nothing matches; the result always has ``len(data)`` bytes and
    the same newlines.
    """
    spans = [match.span(1) for match in _CLASS_MACRO.finditer(data)]
    spans.extend(_prefix_spans(data))
    spans.extend(match.span(1) for match in _SCOPE_MACRO.finditer(data) if _SCOPE_WORDS.intersection(match.group(1).split(b"_")))
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
