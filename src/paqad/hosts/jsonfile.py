"""Reading and rewriting the hosts' JSON files without disturbing what is not ours.

:func:`read_json` remembers the file's indentation and final newline; :func:`dump_json` writes
it back the same way (key order kept, non-ASCII kept as is), so a file in the usual layout
changes only where we change it and rewriting unchanged data gives the same bytes.
:func:`atomic_write` replaces a file in one step (temp file + ``os.replace``), keeping its mode.
:func:`load_jsonc` reads the host files that allow comments (Gemini's and Copilot's) for checks.
A file the host reads with comments allowed (:data:`JSONC_FILES`) is read the same way
(``read_json(path, comments=True)``), and :func:`render_json` writes it back with minimal
edits (:mod:`paqad.hosts.jsonc_edit`), so the user's comments stay.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paqad.errors import UserFileError
from paqad.atomic import write_text_atomic


# Project files whose host reads them with // and /* */ comments allowed: Gemini CLI 0.61 reads
# settings.json with strip-json-comments then JSON.parse (packages/cli/src/config/settings.ts),
# and writes it back keeping them (comment-json, packages/cli/src/utils/commentJson.ts).
JSONC_FILES = frozenset({".gemini/settings.json"})


@dataclass(frozen=True)
class JsonFile:
    """A JSON object file as read: ``data``, its layout, the original ``text`` (``None``
    when the file did not exist), and whether that text holds comments (then it is written
    back by minimal edits)."""

    data: dict[str, Any]
    indent: str
    trailing_newline: bool
    text: str | None
    has_comments: bool = False


_INDENT_RE = re.compile(r"\{[ \t]*\r?\n([ \t]+)\S")  # the top-level object's first member


def read_json(path: Path, comments: bool = False) -> JsonFile:
    """The JSON object in ``path`` (``{}`` when missing or blank); raises ``PaqadError`` naming
    the file when it cannot be read or is not a JSON object. ``comments``: the host allows
    ``//`` and ``/* */`` comments in this file (:data:`JSONC_FILES`), so they are read as it
    reads them."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return JsonFile({}, "  ", True, None)
    except (OSError, UnicodeDecodeError) as exc:
        raise UserFileError(f"{path}: cannot read ({exc}); fix or move the file and retry") from exc
    if not text.strip():
        return JsonFile({}, "  ", True, text)
    stripped = strip_json_comments(text) if comments else text
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise UserFileError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}); fix it and retry") from None
    if not isinstance(data, dict):
        raise UserFileError(f"{path}: expected a JSON object at the top level; fix it and retry")
    match = _INDENT_RE.match(text.lstrip())
    indent = match.group(1) if match else "  "
    return JsonFile(data, indent, text.endswith("\n"), text, stripped != text)


def render_json(doc: JsonFile, data: dict[str, Any], path: Path) -> str:
    """The text to write for ``data`` in the file ``doc`` was read from: the usual layout
    (:func:`dump_json`), or, when the file holds comments, its own text with minimal edits.
    Raises ``PaqadError`` naming ``path`` when those edits cannot be made safely."""
    if doc.text is None or not doc.has_comments:
        return dump_json(data, doc.indent, doc.trailing_newline)
    from paqad.hosts.jsonc_edit import JsoncEditError, apply

    try:
        return apply(doc.text, data, doc.indent, lambda text: json.loads(strip_json_comments(text)))
    except JsoncEditError as exc:
        raise JsoncEditError(f"{path}: cannot add our entry and keep the file's comments ({exc}); "
                             "add it by hand or remove the comments, and retry") from None


def dump_json(data: dict[str, Any], indent: str = "  ", trailing_newline: bool = True) -> str:
    out = json.dumps(data, indent=indent, ensure_ascii=False)
    return out + "\n" if trailing_newline else out


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in one step, keeping the file's mode (new files: 0644)."""
    write_text_atomic(path, text)  # the package's one writer (fsync, unique temp name)


def write_if_changed(path: Path, text: str) -> bool:
    """Write ``text`` unless the file already holds exactly it; returns whether it wrote."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (FileNotFoundError, UnicodeDecodeError):
        pass
    atomic_write(path, text)
    return True


def comment_end(text: str, i: int) -> int | None:
    """Where the ``//`` or ``/* */`` comment starting at ``text[i]`` ends (the index after it; a
    line comment ends before its newline, an unclosed one at the end of ``text``), or None when no
    comment starts there. The one JSONC comment rule of the reader and of ``jsonc_edit``."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    return None


def strip_json_comments(text: str) -> str:
    """``text`` without ``//`` and ``/* */`` comments outside strings (JSONC, as Gemini CLI and
    Copilot CLI read their files), trailing commas left as they are."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
        elif ch == '"':
            in_string = True
            out.append(ch)
            i += 1
        elif (end := comment_end(text, i)) is not None:
            i = end
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def load_jsonc(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """``(object, None)`` for a readable JSON(C) object file, ``(None, None)`` when it does not
    exist, ``(None, problem)`` when it cannot be read or parsed (the problem names the file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{path}: cannot read ({exc})"
    if not text.strip():
        return {}, None
    try:
        data = json.loads(strip_json_comments(text))
    except json.JSONDecodeError as exc:
        return None, f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})"
    if not isinstance(data, dict):
        return None, f"{path}: expected a JSON object at the top level"
    return data, None
