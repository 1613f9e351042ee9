"""OpenAI Codex: when a project hook runs, and the approval it needs.

Codex (checked with codex-cli 0.171.0) loads a project's ``.codex/hooks.json`` only when the
project root (the nearest ancestor of the working folder holding ``.git``, else that folder) is
trusted in the user's ``$CODEX_HOME/config.toml`` (default ``~/.codex``)::

    [projects."/abs/project"]
    trust_level = "trusted"

and then runs a handler only when its hash is approved in the same file::

    [hooks.state."/abs/project/.codex/hooks.json:user_prompt_submit:0:0"]
    trusted_hash = "sha256:..."

Without either it skips the hook silently; a changed command or timeout changes the hash, and
the hook stops again until re-approved (``trustStatus: modified``). ``enabled = false`` in the
state table turns it off. A project's own ``.codex/config.toml`` cannot approve its hooks.

The key is ``<absolute hooks.json path>:<snake_case event>:<group index>:<handler index>``
(``hook_key`` in codex-rs/hooks/src/lib.rs). The hash (``hook_hash`` in
codex-rs/hooks/src/engine/discovery.rs, via ``version_for_toml`` in codex-rs/config) is
``"sha256:" + hex(sha256(canonical JSON))`` of the normalised handler identity, keys sorted,
no spaces, non-ASCII as UTF-8 -- the Python equivalent was compared with the ``currentHash``
that ``codex app-server`` reports for nine edge-case handlers (all equal) and is checked
against the real binary again in ``tests/test_hosts_e2e.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paqad.hosts import tomltext

EVENT_LABELS = {
    "PreToolUse": "pre_tool_use",
    "PermissionRequest": "permission_request",
    "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "UserPromptSubmit": "user_prompt_submit",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "Stop": "stop",
}
EVENTS_WITH_MATCHERS = {"PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact", "SessionStart",
                        "SubagentStart", "SubagentStop"}
DEFAULT_TIMEOUT = 600
DEFAULT_CONTEXT_LIMIT = 2500
CONTEXT_LIMIT_EVENTS = {"PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "SubagentStart"}


def codex_home(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env.get("CODEX_HOME") or Path.home() / ".codex")


def config_path(environ: dict[str, str] | None = None) -> Path:
    """The user's ``config.toml``, where project trust and hook approvals live."""
    return codex_home(environ) / "config.toml"


def handler_hash(event: str, matcher: str | None, handler: dict[str, Any]) -> str:
    """Codex's ``trusted_hash`` for one command handler of ``event``."""
    timeout = handler.get("timeout")
    if event in ("SessionEnd", "Interrupt"):
        norm_timeout = max(1, min(3, int(timeout) if timeout is not None else 1))
    else:
        norm_timeout = max(1, int(timeout) if timeout is not None else DEFAULT_TIMEOUT)
    norm: dict[str, Any] = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": norm_timeout,
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        norm["statusMessage"] = handler["statusMessage"]
    limit = handler.get("additionalContextLimit") if event in CONTEXT_LIMIT_EVENTS else None
    if limit is not None and limit != DEFAULT_CONTEXT_LIMIT:
        norm["additionalContextLimit"] = limit
    identity: dict[str, Any] = {"event_name": EVENT_LABELS.get(event, event), "hooks": [norm]}
    if matcher is not None and event in EVENTS_WITH_MATCHERS:
        identity["matcher"] = matcher
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return "sha256:" + hashlib.sha256(canonical).hexdigest()


def hook_key(hooks_json: Path, event: str, group: int, handler: int) -> str:
    """Codex's state key of one hook handler: ``<hooks.json path>:<event label>:<group>:<handler>``."""
    return f"{hooks_json}:{EVENT_LABELS.get(event, event)}:{group}:{handler}"


@dataclass(frozen=True)
class CodexHook:
    """Our handler as Codex sees it: its state key and the hash it must be approved with."""

    key: str
    hash: str


def our_hooks(hooks_json: Path, data: dict[str, Any], event: str, is_ours: Any) -> list[CodexHook]:
    """Key and hash of every handler of ours (``is_ours(command)``) for ``event`` in ``data``."""
    found = []
    groups = (data.get("hooks") or {}).get(event) if isinstance(data.get("hooks"), dict) else None
    for gi, group in enumerate(groups if isinstance(groups, list) else []):
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for hi, handler in enumerate(handlers if isinstance(handlers, list) else []):
            if isinstance(handler, dict) and handler.get("type") == "command" and is_ours(handler.get("command")):
                found.append(CodexHook(hook_key(hooks_json, event, gi, hi), handler_hash(event, group.get("matcher"), handler)))
    return found


@dataclass(frozen=True)
class CodexState:
    """What ``config.toml`` says about one project and one of its hooks.

    ``trust`` is ``"trusted"``, ``"untrusted"`` or ``None`` (no entry); ``approved_hash`` the
    stored ``trusted_hash`` (``None``: never approved); ``enabled`` is ``False`` only when the
    state table says so; ``problem`` is set when the file cannot be read.
    """

    config: Path
    trust: str | None
    approved_hash: str | None
    enabled: bool
    problem: str | None = None


def read_state(root: Path, hook: CodexHook, environ: dict[str, str] | None = None) -> CodexState:
    """Whether Codex's config trusts and enables ``hook`` (read from ``config.toml``; a missing file
    means not approved yet, an unreadable one a ``problem`` line, never an exception)."""
    path = config_path(environ)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return CodexState(path, None, None, True)
    except (OSError, UnicodeDecodeError) as exc:
        return CodexState(path, None, None, True, f"{path}: cannot read ({exc})")
    try:
        data = tomltext.loads(text)
    except ValueError as exc:
        return CodexState(path, None, None, True, f"{path}: not valid TOML ({exc})")
    trust = tomltext.get(data, ("projects", str(root), "trust_level"))
    state = tomltext.get(data, ("hooks", "state", hook.key))
    state = state if isinstance(state, dict) else {}
    approved = state.get("trusted_hash")
    return CodexState(path, trust if isinstance(trust, str) else None, approved if isinstance(approved, str) else None,
                      state.get("enabled") is not False)


def trust_values(root: Path, hook: CodexHook) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """The two tables that make Codex run our hook: project trust, then the hook's approval."""
    return [
        (("projects", str(root)), {"trust_level": "trusted"}),
        (("hooks", "state", hook.key), {"trusted_hash": hook.hash}),
    ]


def trust_text(root: Path, hook: CodexHook) -> str:
    """The TOML lines to add to ``config.toml`` by hand."""
    return "\n".join(tomltext.lines_for(parts, values) for parts, values in trust_values(root, hook))


def apply_trust(text: str, root: Path, hook: CodexHook) -> str:
    """``config.toml`` text with the project trusted and our hook approved (and enabled)."""
    for parts, values in trust_values(root, hook):
        text = tomltext.set_values(text, parts, values)
    data = tomltext.loads(text)
    if tomltext.get(data, ("hooks", "state", hook.key, "enabled")) is False:
        text = tomltext.set_values(text, ("hooks", "state", hook.key), {"enabled": True})
    return text
