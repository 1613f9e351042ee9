"""Small, verified text edits of TOML files we do not own (Codex's ``config.toml`` files).

There is no TOML writer in the standard library and rewriting a user's file from parsed data
would drop its comments and layout, so edits are made on the text: a table is found by its
header (any quoting of its keys), one ``key = value`` line is replaced or inserted, or a whole
table is removed. Every edit is checked by parsing the result and comparing the values; when
the file is laid out in a way these edits cannot handle (inline tables, dotted keys, values
over several lines), :class:`TomlEditError` says so and nothing is written.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from paqad.errors import PaqadError


class TomlEditError(PaqadError):
    """The edit cannot be made safely on this file's text."""


def loads(text: str) -> dict[str, Any]:
    """Parse TOML text; raises ``ValueError`` (``tomllib.TOMLDecodeError``) when invalid."""
    return tomllib.loads(text)


def basic_string(value: str) -> str:
    """``value`` as a TOML basic string (``"..."`` with escapes)."""
    out = []
    for ch in value:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def key(part: str) -> str:
    return part if _BARE.match(part) else basic_string(part)


def header(parts: Sequence[str]) -> str:
    return "[" + ".".join(key(p) for p in parts) + "]"


def value(v: Any) -> str:
    """A TOML value for str, bool, int or a list of those."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return basic_string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(f"no TOML form for {type(v).__name__}")


def lines_for(parts: Sequence[str], values: dict[str, Any]) -> str:
    """The text of a table holding ``values``: what to add by hand when an edit is refused."""
    return header(parts) + "\n" + "".join(f"{key(k)} = {value(v)}\n" for k, v in values.items())


def _parse_header(line: str) -> tuple[str, ...] | None:
    """The key parts of a ``[a."b".'c']`` header line, ``None`` for anything else."""
    s = line.strip()
    if not s.startswith("[") or s.startswith("[["):
        return None
    body = s[1:]
    parts: list[str] = []
    i = 0
    while True:
        while i < len(body) and body[i] in " \t":
            i += 1
        if i >= len(body):
            return None
        ch = body[i]
        if ch == '"':
            j, buf = i + 1, []
            while j < len(body) and body[j] != '"':
                if body[j] == "\\" and j + 1 < len(body):
                    esc = body[j + 1]
                    buf.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(esc, esc))
                    j += 2
                    continue
                buf.append(body[j])
                j += 1
            parts.append("".join(buf))
            i = j + 1
        elif ch == "'":
            j = body.find("'", i + 1)
            if j < 0:
                return None
            parts.append(body[i + 1 : j])
            i = j + 1
        else:
            m = re.match(r"[A-Za-z0-9_-]+", body[i:])
            if not m:
                return None
            parts.append(m.group(0))
            i += m.end()
        while i < len(body) and body[i] in " \t":
            i += 1
        if i < len(body) and body[i] == ".":
            i += 1
            continue
        if i < len(body) and body[i] == "]":
            return tuple(parts)
        return None


def _table_span(lines: list[str], parts: Sequence[str]) -> tuple[int, int] | None:
    """``(header line index, end index)`` of the table ``parts``: its body runs to the next header."""
    want = tuple(parts)
    for i, line in enumerate(lines):
        if _parse_header(line) == want:
            end = i + 1
            while end < len(lines) and not lines[end].lstrip().startswith("["):
                end += 1
            return i, end
    return None


def get(data: dict[str, Any], parts: Sequence[str]) -> Any:
    node: Any = data
    for p in parts:
        if not isinstance(node, dict) or p not in node:
            return None
        node = node[p]
    return node


def set_values(text: str, parts: Sequence[str], values: dict[str, Any]) -> str:
    """``text`` with ``values`` set in table ``parts`` (created at the end when missing)."""
    lines = text.splitlines(keepends=True)
    span = _table_span(lines, parts)
    if span is None:
        prefix = text if not text or text.endswith("\n") else text + "\n"
        sep = "\n" if prefix.strip() else ""
        new = prefix + sep + lines_for(parts, values)
    else:
        start, end = span
        body = lines[start + 1 : end]
        for k, v in values.items():
            line = f"{key(k)} = {value(v)}\n"
            pattern = re.compile(r"^\s*(" + re.escape(k) + "|" + re.escape(basic_string(k)) + r")\s*=")
            hit = next((i for i, existing in enumerate(body) if pattern.match(existing)), None)
            if hit is None:
                last = max((i for i, existing in enumerate(body) if existing.strip() and not existing.lstrip().startswith("#")), default=-1)
                body.insert(last + 1, line)
            else:
                body[hit] = line
        if body and not body[-1].endswith("\n"):
            body[-1] += "\n"
        new = "".join(lines[: start + 1] + body + lines[end:])
    _verify(new, parts, values)
    return new


def remove_table(text: str, parts: Sequence[str]) -> str:
    """``text`` without the table ``parts`` (and the blank line before it); unchanged when absent."""
    lines = text.splitlines(keepends=True)
    span = _table_span(lines, parts)
    if span is None:
        return text
    start, end = span
    while start > 0 and not lines[start - 1].strip():
        start -= 1
    new = "".join(lines[:start] + lines[end:])
    if new.strip() and not new.endswith("\n"):
        new += "\n"
    try:
        data = loads(new)
    except ValueError as exc:
        raise TomlEditError(f"removing {header(parts)} would leave invalid TOML ({exc})") from None
    if get(data, parts) is not None:
        raise TomlEditError(f"{header(parts)} is also set elsewhere in the file (dotted keys or an inline table)")
    return new if new.strip() else ""


def _verify(text: str, parts: Sequence[str], values: dict[str, Any]) -> None:
    try:
        data = loads(text)
    except ValueError as exc:
        raise TomlEditError(f"the edit would make the file invalid TOML ({exc})") from None
    table = get(data, parts)
    if not isinstance(table, dict) or any(table.get(k) != (list(v) if isinstance(v, tuple) else v) for k, v in values.items()):
        raise TomlEditError(f"{header(parts)} is laid out in a way this edit cannot change (dotted keys or an inline table)")
