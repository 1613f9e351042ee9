"""Install and uninstall our prompt hook, the Cursor rule and the MCP entries in each host's files.

:func:`install` merges one handler for the host's prompt event into its settings file and
writes it back in the layout it had (:mod:`paqad.hosts.jsonfile`), so running it twice gives
the same bytes; :func:`uninstall` removes only our handlers (recognised by a command that runs
``paqad-ai hook prompt``) and the containers that became empty because of that, so install
followed by uninstall restores the file. The command holds no machine-specific path
(:mod:`paqad.hosts.launcher`), so committed files are the same on every machine.

:func:`install_host` is the whole job of ``hooks install --host H``: the hook, the launcher,
the Cursor rule, the MCP entry when asked, and for personal files a git ignore rule.
"""

from __future__ import annotations

import math
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paqad.errors import PaqadError, UserFileError
from paqad.hosts import Host
from paqad.hosts import mcp_config
from paqad.hosts.jsonfile import JSONC_FILES, atomic_write, read_json, render_json, write_if_changed
from paqad.hosts.launcher import hook_command, is_our_command, write_launcher
from paqad.index.filters import GENERATED_MARKER

HOOK_NAME = "paqad-ai-retrieval"  # Gemini shows hooks by name (/hooks enable|disable)
HOOK_DESCRIPTION = "paqad-ai: record the prompt, refresh the index, add retrieved code context"
TIMEOUT_MARGIN_SECONDS = 5  # host kill limit = our budget + margin; we answer within the budget

RULE_TEXT = f"""---
description: paqad-ai retrieved context for this project
globs:
alwaysApply: true
---
{GENERATED_MARKER}
<!-- Written by `paqad-ai hooks install --host cursor`; `paqad-ai hooks uninstall --host cursor` removes it. -->

Before you answer a request about this project's code, read `.paqad/context/session-context.md`.
Its `## Retrieved context` section lists passages (`path:Lstart-end`) that a local search index
found for the latest prompt; its `Query:` line says which prompt. The paqad-ai hook rewrites it
a moment after each prompt: when the query is not the current request, it is from an earlier
one, so use it only as a hint (or search again with the `search_code` tool of the `paqad` MCP
server, when it is available). The passages are hints and may be stale: open the live files at
those lines before relying on them.
"""


def handler_for(host: Host, command: str, budget_ms: int) -> dict[str, Any]:
    """Our handler object in the host's documented shape (see :data:`paqad.hosts.HOSTS`)."""
    timeout_s = math.ceil(budget_ms / 1000) + TIMEOUT_MARGIN_SECONDS
    if host.name == "gemini":
        return {"name": HOOK_NAME, "type": "command", "command": command, "description": HOOK_DESCRIPTION,
                "timeout": timeout_s * 1000}
    if host.name == "copilot":
        return {"type": "command", "bash": command, "timeoutSec": timeout_s}
    if host.name == "cursor":
        return {"command": command}
    return {"type": "command", "command": command, "timeout": timeout_s}


def _section(data: dict[str, Any], key: str, kind: type, path: Path, where: str) -> Any:
    value = data.get(key)
    if value is not None and not isinstance(value, kind):
        raise UserFileError(f"{path}: {where} is not a JSON {'object' if kind is dict else 'array'}; fix it and retry")
    return value


def _is_ours(host: Host, handler: Any) -> bool:
    return isinstance(handler, dict) and is_our_command(handler.get(host.command_key))


def our_handlers(host: Host, data: dict[str, Any]) -> list[dict[str, Any]]:
    """Our handlers for the host's prompt event in a parsed settings file."""
    hooks = data.get("hooks")
    entries = hooks.get(host.event) if isinstance(hooks, dict) else None
    found: list[dict[str, Any]] = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        handlers = entry.get("hooks") if host.nested else [entry]
        if isinstance(handlers, list):
            found.extend(h for h in handlers if _is_ours(host, h))
    return found


def _remove_ours(host: Host, data: dict[str, Any]) -> bool:
    """Drop our handlers and the containers emptied by that; returns whether anything changed."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict) or not isinstance(hooks.get(host.event), list):
        return False
    kept: list[Any] = []
    changed = False
    for entry in hooks[host.event]:
        if host.nested and isinstance(entry, dict) and isinstance(entry.get("hooks"), list):
            handlers = [h for h in entry["hooks"] if not _is_ours(host, h)]
            if len(handlers) != len(entry["hooks"]):
                changed = True
                if not handlers:
                    continue  # the group held only our handler
                entry = {**entry, "hooks": handlers}
        elif not host.nested and _is_ours(host, entry):
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
                if _is_ours(host, existing):
                    had_ours = True
                    if not placed:
                        handlers.append(handler)
                        placed = True
                    continue
                handlers.append(existing)
            if had_ours and not handlers:
                continue
            entry["hooks"] = handlers  # same key, so the group's key order is kept
        elif not host.nested and _is_ours(host, entry):
            if placed:
                continue
            entry = handler
            placed = True
        kept.append(entry)
    entries[:] = kept
    return placed


def install(host: Host, project_root: Path, budget_ms: int) -> tuple[Path, bool]:
    """Merge our handler into ``project_root/<host.settings_path>``; ``(settings file, changed)``.

    An existing handler of ours (any older command form) is replaced in place, same position.
    Raises ``PaqadError`` when the file is not a JSON object or its ``hooks`` / event value has
    the wrong type.
    """
    path = project_root / host.settings_path
    doc = read_json(path, comments=host.settings_path in JSONC_FILES)
    data = doc.data
    handler = handler_for(host, hook_command(host), budget_ms)
    hooks = _section(data, "hooks", dict, path, '"hooks"')
    if hooks is None:
        if host.versioned and "version" not in data:
            data["version"] = 1  # required by Cursor's and Copilot CLI's hook files
        hooks = data["hooks"] = {}
    entries = _section(hooks, host.event, list, path, f'"hooks.{host.event}"')
    if entries is None:
        entries = hooks[host.event] = []
    if not _place(host, entries, handler):
        entries.append({"hooks": [handler]} if host.nested else handler)
    text = render_json(doc, data, path)
    if text == doc.text:
        return path, False
    atomic_write(path, text)
    return path, True


def uninstall(host: Host, project_root: Path) -> tuple[Path, bool]:
    """Remove our handlers from the host's settings file; returns ``(settings file, changed)``.

    Other hooks and keys are kept. A file left empty (``{}``, or only ``{"version": 1}``) is
    deleted, and its folder too when that is then empty.
    """
    path = project_root / host.settings_path
    if not path.exists():
        return path, False
    doc = read_json(path, comments=host.settings_path in JSONC_FILES)
    if not _remove_ours(host, doc.data):
        return path, False
    leftover = dict(doc.data)
    if host.versioned and leftover.get("version") == 1 and "hooks" not in leftover:
        leftover.pop("version")
    if not leftover and not doc.has_comments:  # a file with the user's comments in it stays
        _remove_file(path, project_root)
        return path, True
    atomic_write(path, render_json(doc, doc.data, path))
    return path, True


def _remove_file(path: Path, project_root: Path) -> None:
    """Delete ``path`` and the folders between it and ``project_root`` that it leaves empty."""
    path.unlink()
    folder = path.parent
    while folder != project_root and project_root in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return  # not empty: other files live there
        folder = folder.parent


# --- the Cursor rule ----------------------------------------------------------------------------


def install_rule(host: Host, project_root: Path) -> tuple[Path, bool] | None:
    """Write the host's rule file (Cursor: ``.cursor/rules/paqad-ai.mdc``); ``None`` if it has none.

    A file at that path without our marker is the user's and is refused.
    """
    if host.rule_path is None:
        return None
    path = project_root / host.rule_path
    if path.exists() and not is_our_rule(path):
        raise UserFileError(f"{path}: exists and was not written by paqad-ai; move it and retry")
    return path, write_if_changed(path, RULE_TEXT)


def is_our_rule(path: Path) -> bool:
    try:
        return GENERATED_MARKER in path.read_text(encoding="utf-8")[:1024]
    except (OSError, UnicodeDecodeError):
        return False


def uninstall_rule(host: Host, project_root: Path) -> tuple[Path, bool] | None:
    if host.rule_path is None:
        return None
    path = project_root / host.rule_path
    if not path.exists() or not is_our_rule(path):
        return path, False
    _remove_file(path, project_root)
    return path, True


# --- git ignore for personal files --------------------------------------------------------------


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None


def ensure_git_ignored(project_root: Path, rel: str) -> str:
    """Make ``rel`` git-ignored in this clone; returns one line saying what was done.

    The rule goes into ``.git/info/exclude`` (the clone's own, untracked ignore file): a
    personal file concerns this clone only, and a line in the shared ``.gitignore`` would be a
    change every teammate has to review. Nothing is written when git already ignores it.
    """
    check = _git(project_root, "rev-parse", "--git-path", "info/exclude")
    if check is None or check.returncode != 0:
        return f"{rel}: not a git repository, nothing to ignore"
    tracked = _git(project_root, "ls-files", "--error-unmatch", "--", rel)
    if tracked is not None and tracked.returncode == 0:
        return f"warning: {rel} is tracked by git, so ignore rules do not apply; run `git rm --cached {rel}`"
    ignored = _git(project_root, "check-ignore", "-q", "--", rel)
    if ignored is not None and ignored.returncode == 0:
        return f"{rel}: already git-ignored"
    exclude = Path(check.stdout.strip())
    if not exclude.is_absolute():
        exclude = (project_root / exclude).resolve()
    prefix_out = _git(project_root, "rev-parse", "--show-prefix")  # the project may be a subfolder of the repository
    in_repo = (prefix_out.stdout.strip() if prefix_out is not None and prefix_out.returncode == 0 else "") + rel
    try:
        existing = exclude.read_text(encoding="utf-8")
    except FileNotFoundError:
        existing = ""
    prefix = existing if not existing or existing.endswith("\n") else existing + "\n"
    atomic_write(exclude, prefix + f"# paqad-ai: personal settings (hooks install --host claude-local)\n/{in_repo}\n")
    return f"{rel}: added to {exclude} (this clone's own ignore file)"


# --- the whole install --------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """One file ``install_host`` / ``uninstall_host`` wrote or left alone."""

    what: str  # "hook", "rule", "mcp", "launcher"
    path: Path
    changed: bool


@dataclass(frozen=True)
class InstallReport:
    host: Host
    changes: tuple[Change, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)


def install_host(host: Host, project_root: Path, budget_ms: int, *, mcp: bool = False) -> InstallReport:
    """``hooks install --host H``: hook, launcher, rule file, MCP entry (``mcp``), git ignore."""
    changes = [Change("hook", *install(host, project_root, budget_ms))]
    rule = install_rule(host, project_root)
    if rule is not None:
        changes.append(Change("rule", *rule))
    notes: list[str] = []
    if mcp:
        if host.mcp_path is None:
            notes.append("Claude Code keeps personal MCP servers in ~/.claude.json, which paqad-ai does not edit; "
                         "run `claude mcp add --scope local paqad -- paqad-ai mcp --text-only`, or use --host claude --mcp (.mcp.json)")
        else:
            changes.append(Change("mcp", *mcp_config.install_entry(host, project_root)))
    changes.append(Change("launcher", *write_launcher()))
    if host.personal:
        notes.append(ensure_git_ignored(project_root, host.settings_path))
    return InstallReport(host, tuple(changes), tuple(notes))


def uninstall_host(host: Host, project_root: Path, *, mcp: bool = True) -> InstallReport:
    """``hooks uninstall --host H``: our hook, our rule file and our MCP entry, nothing else.

    The launcher stays (other projects use it); a git ignore rule for a personal file stays too.
    """
    changes = [Change("hook", *uninstall(host, project_root))]
    rule = uninstall_rule(host, project_root)
    if rule is not None:
        changes.append(Change("rule", *rule))
    if mcp and host.mcp_path is not None:
        changes.append(Change("mcp", *mcp_config.uninstall_entry(host, project_root)))
    return InstallReport(host, tuple(changes))


def installed_commands(host: Host, project_root: Path) -> tuple[str, ...]:
    """The commands of our handlers in the host's file (empty when absent or unreadable)."""
    try:
        doc = read_json(project_root / host.settings_path, comments=host.settings_path in JSONC_FILES)
    except PaqadError:
        return ()
    return tuple(h[host.command_key] for h in our_handlers(host, doc.data))

