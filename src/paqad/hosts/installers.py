"""Install, uninstall and inspect our prompt hook in each host's settings file.

The settings file is JSON. Install loads it, adds one handler for the host's prompt event and
writes it back with the indentation it had (key order kept, non-ASCII kept as is), so a file
that was already formatted the usual way changes only where our handler goes. Running install
twice gives the same bytes; uninstall removes only our handlers (recognised by a command that
runs ``paqad-ai hook prompt``) and the containers that became empty because of that, so
install followed by uninstall restores the file. Writes are atomic (temp file + ``os.replace``).

The command is built from an argument list with :func:`shlex.quote`, so project paths with
spaces, quotes or non-ASCII characters survive the host's ``sh -c``. It calls the ``paqad-ai``
script of the running installation by absolute path (else ``python -m paqad.cli.main``).
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paqad.errors import PaqadError
from paqad.hosts import HOSTS, Host

HOOK_NAME = "paqad-ai-retrieval"  # Gemini shows hooks by name (/hooks enable|disable)
HOOK_DESCRIPTION = "paqad-ai: record the prompt, refresh the index, add retrieved code context"
TIMEOUT_MARGIN_SECONDS = 5  # host kill limit = our budget + margin; we answer within the budget


@dataclass(frozen=True)
class HostStatus:
    """What ``hooks status`` reports for one host.

    Attributes:
        host: the host.
        settings_file: absolute path of its project settings file.
        installed: our handler is present.
        commands: the command strings of our handlers found (usually one).
        resolves: every found command's program exists and is executable.
        problem: a one-line problem (unreadable/invalid file, program missing), else ``None``.
    """

    host: Host
    settings_file: Path
    installed: bool
    commands: tuple[str, ...]
    resolves: bool
    problem: str | None


def paqad_program() -> list[str]:
    """The argv prefix that runs this installation's CLI, resolved now.

    The ``paqad-ai`` script next to the running interpreter (a venv or pipx install), else the
    one on PATH, else ``[sys.executable, "-m", "paqad.cli.main"]``. All paths are absolute.
    """
    beside = Path(sys.executable).parent / "paqad-ai"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside.absolute())]
    found = shutil.which("paqad-ai")
    if found:
        return [str(Path(found).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "paqad.cli.main"]


def hook_command(host: Host, project_root: Path, program: list[str] | None = None) -> str:
    """The shell command the host runs: ``<paqad-ai> hook prompt --host H --project-root ROOT``.

    Every argument is quoted with :func:`shlex.quote` (POSIX ``sh``, which all four hosts use).
    """
    argv = [*(program or paqad_program()), "hook", "prompt", "--host", host.name, "--project-root", str(project_root)]
    return " ".join(shlex.quote(part) for part in argv)


def is_our_command(command: Any) -> bool:
    """Whether a handler's command runs ``paqad-ai hook prompt`` (any path, any quoting)."""
    if not isinstance(command, str):
        return False
    try:
        tokens = shlex.split(command)
    except ValueError:
        return "paqad-ai hook prompt" in command
    for i in range(1, len(tokens) - 1):
        if tokens[i] == "hook" and tokens[i + 1] == "prompt":
            program = tokens[i - 1]
            if Path(program).name == "paqad-ai" or program == "paqad.cli.main":
                return True
    return False


def command_resolves(command: str) -> bool:
    """Whether the command's program (first word) is an executable file, or found on PATH."""
    try:
        tokens = shlex.split(command)
    except ValueError:
        return False
    if not tokens:
        return False
    program = tokens[0]
    if os.sep in program:
        return Path(program).is_file() and os.access(program, os.X_OK)
    return shutil.which(program) is not None


def handler_for(host: Host, command: str, budget_ms: int) -> dict[str, Any]:
    """Our handler object in the host's documented shape (see :data:`paqad.hosts.HOSTS`)."""
    timeout_s = math.ceil(budget_ms / 1000) + TIMEOUT_MARGIN_SECONDS
    if host.name == "gemini":
        return {
            "name": HOOK_NAME,
            "type": "command",
            "command": command,
            "description": HOOK_DESCRIPTION,
            "timeout": timeout_s * 1000,
        }
    if host.name == "cursor":
        return {"command": command}
    return {"type": "command", "command": command, "timeout": timeout_s}


# --- JSON file handling ------------------------------------------------------------------------


@dataclass(frozen=True)
class _JsonFile:
    data: dict[str, Any]
    indent: str
    trailing_newline: bool
    text: str | None  # original text, None when the file did not exist


_INDENT_RE = re.compile(r"\{[ \t]*\r?\n([ \t]+)\S")  # the top-level object's first member


def _read_json(path: Path) -> _JsonFile:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return _JsonFile({}, "  ", True, None)
    except (OSError, UnicodeDecodeError) as exc:
        raise PaqadError(f"{path}: cannot read ({exc}); fix or move the file and retry") from exc
    if not text.strip():
        return _JsonFile({}, "  ", True, text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PaqadError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}); fix it and retry") from None
    if not isinstance(data, dict):
        raise PaqadError(f"{path}: expected a JSON object at the top level; fix it and retry")
    match = _INDENT_RE.match(text.lstrip())
    indent = match.group(1) if match else "  "
    return _JsonFile(data, indent, text.endswith("\n"), text)


def _dump_json(data: dict[str, Any], indent: str, trailing_newline: bool) -> str:
    out = json.dumps(data, indent=indent, ensure_ascii=False)
    return out + "\n" if trailing_newline else out


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = None
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        pass
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, mode if mode is not None else 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _section(data: dict[str, Any], key: str, kind: type, path: Path, where: str) -> Any:
    value = data.get(key)
    if value is not None and not isinstance(value, kind):
        raise PaqadError(f"{path}: {where} is not a JSON {'object' if kind is dict else 'array'}; fix it and retry")
    return value


def _our_handlers(host: Host, data: dict[str, Any]) -> list[dict[str, Any]]:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return []
    entries = hooks.get(host.event)
    if not isinstance(entries, list):
        return []
    found = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        handlers = entry.get("hooks") if host.nested else [entry]
        if isinstance(handlers, list):
            found.extend(h for h in handlers if isinstance(h, dict) and is_our_command(h.get("command")))
    return found


def _remove_ours(host: Host, data: dict[str, Any]) -> bool:
    """Drop our handlers and the containers emptied by that; returns whether anything changed."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict) or not isinstance(hooks.get(host.event), list):
        return False
    entries = hooks[host.event]
    kept: list[Any] = []
    changed = False
    for entry in entries:
        if host.nested and isinstance(entry, dict) and isinstance(entry.get("hooks"), list):
            handlers = [h for h in entry["hooks"] if not (isinstance(h, dict) and is_our_command(h.get("command")))]
            if len(handlers) != len(entry["hooks"]):
                changed = True
                if not handlers:
                    continue  # the group held only our handler
                entry = {**entry, "hooks": handlers}
        elif not host.nested and isinstance(entry, dict) and is_our_command(entry.get("command")):
            changed = True
            continue
        kept.append(entry)
    if not changed:
        return False
    if kept:
        hooks[host.event] = kept
    else:
        del hooks[host.event]
        if not hooks:
            del data["hooks"]
    return True


def _place(host: Host, entries: list[Any], handler: dict[str, Any]) -> bool:
    """Put ``handler`` where our first handler is, drop further ones; returns whether placed."""
    placed = False
    kept: list[Any] = []
    for entry in entries:
        if host.nested and isinstance(entry, dict) and isinstance(entry.get("hooks"), list):
            handlers: list[Any] = []
            had_ours = False
            for existing in entry["hooks"]:
                if isinstance(existing, dict) and is_our_command(existing.get("command")):
                    had_ours = True
                    if not placed:
                        handlers.append(handler)
                        placed = True
                    continue
                handlers.append(existing)
            if had_ours and not handlers:
                continue
            entry["hooks"] = handlers  # same key, so the group's key order is kept
        elif not host.nested and isinstance(entry, dict) and is_our_command(entry.get("command")):
            if placed:
                continue
            entry = handler
            placed = True
        kept.append(entry)
    entries[:] = kept
    return placed


def install(host: Host, project_root: Path, budget_ms: int, program: list[str] | None = None) -> tuple[Path, bool]:
    """Merge our handler into ``project_root/<host.settings_path>``.

    Returns ``(settings file, changed)``. An existing handler of ours is replaced in place
    (same position) when its command or timeout differs, so reinstalling after moving the
    installation updates it. Raises ``PaqadError`` when the file is not a JSON object or its
    ``hooks`` / event value has the wrong type.
    """
    path = project_root / host.settings_path
    doc = _read_json(path)
    data = doc.data
    handler = handler_for(host, hook_command(host, project_root, program), budget_ms)

    hooks = _section(data, "hooks", dict, path, '"hooks"')
    if hooks is None:
        if host.name == "cursor" and "version" not in data:
            data["version"] = 1  # required by Cursor's hooks.json
        hooks = data["hooks"] = {}
    entries = _section(hooks, host.event, list, path, f'"hooks.{host.event}"')
    if entries is None:
        entries = hooks[host.event] = []

    if not _place(host, entries, handler):
        entries.append({"hooks": [handler]} if host.nested else handler)

    text = _dump_json(data, doc.indent, doc.trailing_newline)
    if text == doc.text:
        return path, False
    _atomic_write(path, text)
    return path, True


def uninstall(host: Host, project_root: Path) -> tuple[Path, bool]:
    """Remove our handlers from the host's settings file; returns ``(settings file, changed)``.

    Other hooks and keys are kept. A file left empty (``{}``, or only Cursor's
    ``{"version": 1}``) is deleted, and its folder too when that is then empty.
    """
    path = project_root / host.settings_path
    if not path.exists():
        return path, False
    doc = _read_json(path)
    if not _remove_ours(host, doc.data):
        return path, False
    leftover = dict(doc.data)
    if host.name == "cursor" and leftover.get("version") == 1 and "hooks" not in leftover:
        leftover.pop("version")
    if not leftover:
        path.unlink()
        try:
            path.parent.rmdir()
        except OSError:
            pass  # not empty: other files live there
        return path, True
    _atomic_write(path, _dump_json(doc.data, doc.indent, doc.trailing_newline))
    return path, True


def status(host: Host, project_root: Path) -> HostStatus:
    """Inspect one host's settings file without changing it."""
    path = project_root / host.settings_path
    try:
        doc = _read_json(path)
    except PaqadError as exc:
        return HostStatus(host, path, False, (), False, str(exc))
    commands = tuple(h["command"] for h in _our_handlers(host, doc.data))
    resolves = bool(commands) and all(command_resolves(c) for c in commands)
    problem = None
    if commands and not resolves:
        problem = "the hook's program does not exist any more; run `paqad-ai hooks install --host " + host.name + "` again"
    hooks = doc.data.get("hooks")
    if commands and host.name == "gemini" and isinstance(hooks, dict) and HOOK_NAME in (hooks.get("disabled") or []):
        # Gemini CLI skips hooks named in hooks.disabled (its /hooks disable command writes it).
        problem = f'"{HOOK_NAME}" is listed in hooks.disabled of {host.settings_path}; run `/hooks enable {HOOK_NAME}` in Gemini CLI'
    return HostStatus(host, path, bool(commands), commands, resolves, problem)


def all_statuses(project_root: Path) -> list[HostStatus]:
    """:func:`status` for every host in :data:`paqad.hosts.HOSTS`, in that order."""
    return [status(host, project_root) for host in HOSTS.values()]
