"""Minimal text edits that turn a JSON-with-comments file into new data, keeping its comments.

Gemini CLI reads ``settings.json`` with comments allowed (``strip-json-comments``, then
``JSON.parse``: no trailing commas) and, when it writes the file itself, keeps them
(``comment-json``). No well-kept Python library edits JSONC in place (``json-five`` round-trips
JSON5 through a model that must be rebuilt by hand for each new node; ``jsonc-edit`` runs a
Node.js daemon it installs with npm at run time), so :func:`apply` does it here, and checks
its own work: the result must read back as exactly the new data, else
:class:`JsoncEditError` and nothing is written.

Only the values that differ are touched: a changed value is rewritten in place, a removed
member or element is cut out with its comma (and its line when it had one to itself), a new
one goes after the last, on its own line at the indentation of its siblings. Text outside
those spans -- comments, blank lines, the user's own layout -- stays byte for byte; data equal
to the file's gives the file's text back unchanged.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Any

from paqad.errors import ConfigError
from paqad.hosts.jsonfile import comment_end


class JsoncEditError(ConfigError):
    """The file could not be edited without losing or garbling what is in it."""


@dataclass
class Node:
    """One JSON value's span ``text[start:end]``; containers list their members in order.

    ``members``: ``(key or None, member start, value node, comma position or -1)``; the
    member start is the key's opening quote (objects) or the value's start (arrays).
    """

    start: int
    end: int
    kind: str  # "object", "array" or "scalar"
    members: list[tuple[str | None, int, Node, int]] = field(default_factory=list)


def _skip(text: str, i: int) -> int:
    """The index of the next character that is not whitespace or inside a comment."""
    n = len(text)
    while i < n:
        if text[i] in " \t\r\n\ufeff":
            i += 1
        elif (end := comment_end(text, i)) is not None:
            i = end
        else:
            break
    return i


def _string_end(text: str, i: int) -> int:
    """``text[i]`` is a ``"``: the index after the closing quote."""
    i += 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    raise JsoncEditError("unterminated string")


def parse(text: str, i: int = 0) -> Node:
    """The span tree of the JSON value starting at or after ``text[i]`` (comments skipped).
    Raises :class:`JsoncEditError` on text that is not JSON with comments."""
    i = _skip(text, i)
    if i >= len(text):
        raise JsoncEditError("unexpected end of text")
    opener = text[i]
    if opener == '"':
        return Node(i, _string_end(text, i), "scalar")
    if opener not in "{[":
        j = i
        while j < len(text) and text[j] not in ",]}/ \t\r\n":
            j += 1
        if j == i:
            raise JsoncEditError(f"unexpected {text[i]!r} at offset {i}")
        return Node(i, j, "scalar")
    node = Node(i, i, "object" if opener == "{" else "array")
    closer = "}" if opener == "{" else "]"
    j = _skip(text, i + 1)
    while j < len(text) and text[j] != closer:
        key, start = None, j
        if node.kind == "object":
            key_end = _string_end(text, j)
            key = json.loads(text[j:key_end])
            j = _skip(text, key_end)
            if text[j:j + 1] != ":":
                raise JsoncEditError(f"expected ':' at offset {j}")
            j += 1
        value = parse(text, j)
        j = _skip(text, value.end)
        comma = -1
        if text[j:j + 1] == ",":
            comma, j = j, _skip(text, j + 1)
        node.members.append((key, start, value, comma))
    if j >= len(text):
        raise JsoncEditError(f"unclosed {opener!r} at offset {i}")
    node.end = j + 1
    return node


@dataclass
class _Editor:
    text: str
    unit: str
    newline: str
    edits: list[tuple[int, int, str]] = field(default_factory=list)

    def line_indent(self, pos: int) -> str:
        start = self.text.rfind("\n", 0, pos) + 1
        line = self.text[start:pos]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def dump(self, value: Any, indent: str) -> str:
        out = json.dumps(value, indent=self.unit, ensure_ascii=False)
        return out.replace("\n", self.newline + indent)

    def whole_lines(self, start: int, end: int) -> tuple[int, int]:
        """``(start, end)`` grown over a ``//`` comment ending its last line, and to whole lines
        when nothing else shares them."""
        line_start = self.text.rfind("\n", 0, start) + 1
        line_end = self.text.find("\n", end)
        line_end = len(self.text) if line_end < 0 else line_end
        if self.text[end:line_end].strip().startswith("//"):  # a comment at the end of its line goes with it
            end = line_end
        if self.text[line_start:start].strip() or self.text[end:line_end].strip():
            while start > 0 and self.text[start - 1] in " \t":
                start -= 1
            return start, end
        return line_start, min(line_end + 1, len(self.text))

    # --- the diff ---------------------------------------------------------------------------
    def patch(self, node: Node, old: Any, new: Any) -> None:
        if _same(old, new):
            return
        if node.kind == "object" and isinstance(old, dict) and isinstance(new, dict):
            self.patch_object(node, old, new)
        elif node.kind == "array" and isinstance(old, list) and isinstance(new, list) and self.patch_array(node, old, new):
            pass
        else:
            self.edits.append((node.start, node.end, self.dump(new, self.line_indent(node.start))))

    def patch_object(self, node: Node, old: dict, new: dict) -> None:
        last_of = {key: index for index, (key, *_rest) in enumerate(node.members)}  # json.loads keeps the last duplicate
        gone = {index for index, (key, *_rest) in enumerate(node.members) if key not in new or last_of[key] != index}
        for key, value in new.items():
            if key in old:
                self.patch(node.members[last_of[key]][2], old[key], value)
        added = [(key, value) for key, value in new.items() if key not in old]
        self.remove(node, gone)
        self.append(node, [(json.dumps(key, ensure_ascii=False) + ": ", value) for key, value in added], gone)

    def patch_array(self, node: Node, old: list, new: list) -> bool:
        """Element-wise edits; ``False`` when an insertion lands before kept elements (then the
        caller rewrites the array)."""
        matcher = difflib.SequenceMatcher(a=[_canon(v) for v in old], b=[_canon(v) for v in new], autojunk=False)
        gone: set[int] = set()
        appended: list[Any] = []
        plan: list[tuple[int, Any]] = []
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "replace" and i2 - i1 == j2 - j1:
                plan += [(i, new[j]) for i, j in zip(range(i1, i2), range(j1, j2))]
                continue
            if op in ("delete", "replace"):
                gone.update(range(i1, i2))
            if op in ("insert", "replace"):
                if i2 < len(old) and any(i not in gone for i in range(i2, len(old))):
                    return False
                appended += new[j1:j2]
        for i, value in plan:
            self.patch(node.members[i][2], old[i], value)
        self.remove(node, gone)
        self.append(node, [("", value) for value in appended], gone)
        return True

    # --- cutting and adding members -----------------------------------------------------------
    def remove(self, node: Node, gone: set[int]) -> None:
        if not gone:
            return
        kept = [i for i in range(len(node.members)) if i not in gone]
        last_kept = kept[-1] if kept else -1
        for i in sorted(gone):
            _, start, value, comma = node.members[i]
            # With its comma (the last member has none); then the member before the first gone
            # one of a tail loses its comma below.
            self.edits.append((*self.whole_lines(start, comma + 1 if comma >= 0 else value.end), ""))
        if kept and last_kept < len(node.members) - 1:
            comma = node.members[last_kept][3]
            self.edits.append((comma, comma + 1, ""))

    def append(self, node: Node, items: list[tuple[str, Any]], gone: set[int]) -> None:
        """Add members after the last kept one; ``items``: ``(prefix, value)``, the prefix
        ``'"key": '`` in an object and ``""`` in an array."""
        if not items:
            return
        kept = [m for i, m in enumerate(node.members) if i not in gone]
        close = node.end - 1
        outer = self.line_indent(node.start)
        if kept and "\n" not in self.text[node.start:kept[-1][2].end]:  # a one-line container stays on one line
            parts = [prefix + json.dumps(value, ensure_ascii=False) for prefix, value in items]
            self.edits.append((kept[-1][2].end, kept[-1][2].end, ", " + ", ".join(parts)))
            return
        indent = self.line_indent(kept[0][1]) if kept else outer + self.unit
        body = ("," + self.newline + indent).join(prefix + self.dump(value, indent) for prefix, value in items)
        if kept:
            last_end = kept[-1][2].end
            line_end = self.text.find("\n", last_end, close)  # after a comment on the last member's line
            if line_end < 0:
                self.edits.append((last_end, last_end, "," + self.newline + indent + body))
            else:
                line_end -= self.text[line_end - 1] == "\r"
                self.edits.append((last_end, last_end, ","))
                self.edits.append((line_end, line_end, self.newline + indent + body))
            return
        spot = close
        while spot > node.start + 1 and self.text[spot - 1] in " \t\r\n":
            spot -= 1
        self.edits.append((spot, close, self.newline + indent + body + self.newline + outer))

    def result(self) -> str:
        out = self.text
        previous_start = len(out) + 1
        # From the end backwards; insertions at one spot land in the order they were made.
        order = sorted(range(len(self.edits)), key=lambda k: (self.edits[k][0], self.edits[k][1], k), reverse=True)
        for start, end, replacement in (self.edits[k] for k in order):
            if end > previous_start:
                raise JsoncEditError("overlapping edits")
            out = out[:start] + replacement + out[end:]
            previous_start = start
        return out


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and _canon(a) == _canon(b)


def apply(text: str, new: dict[str, Any], unit: str, read: Any) -> str:
    """``text`` (a JSONC object document) edited to hold ``new``; ``read(text)`` parses a
    document the way the host does. Raises :class:`JsoncEditError` when it cannot."""
    old = read(text)
    if _same(old, new):
        return text
    root = parse(text)
    if root.kind != "object":
        raise JsoncEditError("the top level is not an object")
    editor = _Editor(text, unit, "\r\n" if "\r\n" in text else "\n")
    editor.patch(root, old, new)
    out = editor.result()
    try:
        readback = read(out)
    except ValueError as exc:
        raise JsoncEditError(f"the edit would not read back ({exc})") from None
    if not _same(readback, new):
        raise JsoncEditError("the edit would not read back as the new settings")
    return out
