"""How paqad-ai reaches AI coding agents ("hosts"): prompt hooks per host and an MCP server.

Each supported host is described once in :data:`HOSTS` with its settings file, its prompt-time
hook event, whether that hook can add context to the prompt, and the documentation the format
was taken from. ``installers`` merges our hook into the host's settings file, ``prompt_hook``
is what the host runs on every prompt, ``mcp_server`` serves hosts without prompt hooks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Host:
    """One agent host with a prompt-time hook.

    Attributes:
        name: the ``--host`` value (``"claude"``).
        title: display name (``"Claude Code"``).
        settings_path: the project-level settings file, relative to the project root, POSIX.
        event: the hook event that fires when the user submits a prompt.
        nested: ``True`` for ``{"hooks": {event: [{"hooks": [handler]}]}}`` (matcher groups),
            ``False`` for ``{"hooks": {event: [handler]}}`` (Cursor).
        adds_context: whether the hook's stdout can add text to this prompt's context.
            When ``False`` the hook only records the prompt and starts the refresh; the agent
            gets ``.paqad/context/session-context.md`` through the host's own file reading.
        timeout_unit: unit of the handler's ``timeout`` field: ``"s"``, ``"ms"`` or ``""``
            (no timeout field written).
        doc_url: where the file format and the hook's input/output JSON are documented.
    """

    name: str
    title: str
    settings_path: str
    event: str
    nested: bool
    adds_context: bool
    timeout_unit: str
    doc_url: str


HOSTS: dict[str, Host] = {
    h.name: h
    for h in (
        # Input: {"session_id", "transcript_path", "cwd", "hook_event_name": "UserPromptSubmit",
        # "prompt"}; output: {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
        # "additionalContext": "..."}}; handler "timeout" in seconds.
        Host(
            "claude",
            "Claude Code",
            ".claude/settings.json",
            "UserPromptSubmit",
            nested=True,
            adds_context=True,
            timeout_unit="s",
            doc_url="https://code.claude.com/docs/en/hooks#userpromptsubmit",
        ),
        # Input: base fields {"session_id", "transcript_path", "cwd", "hook_event_name",
        # "timestamp"} + "prompt"; output: {"hookSpecificOutput": {"hookEventName": "BeforeAgent",
        # "additionalContext": "..."}}; stdout must be JSON only; handler "timeout" in ms.
        Host(
            "gemini",
            "Gemini CLI",
            ".gemini/settings.json",
            "BeforeAgent",
            nested=True,
            adds_context=True,
            timeout_unit="ms",
            doc_url="https://geminicli.com/docs/hooks/reference#beforeagent",
        ),
        # Input (schema codex-rs/hooks/schema/generated/user-prompt-submit.command.input.schema.json):
        # {"session_id", "turn_id", "transcript_path", "cwd", "hook_event_name": "UserPromptSubmit",
        # "model", "permission_mode", "prompt"}; output: {"hookSpecificOutput": {"hookEventName":
        # "UserPromptSubmit", "additionalContext": "..."}}; handler "timeout" in seconds.
        Host(
            "codex",
            "OpenAI Codex",
            ".codex/hooks.json",
            "UserPromptSubmit",
            nested=True,
            adds_context=True,
            timeout_unit="s",
            doc_url="https://developers.openai.com/codex/hooks",
        ),
        # Input: {"conversation_id", "generation_id", "hook_event_name": "beforeSubmitPrompt",
        # "workspace_roots": [...], "prompt", "attachments"}; output: {"continue": true|false,
        # "user_message"?} -- no field adds context, so this hook only records and refreshes.
        Host(
            "cursor",
            "Cursor",
            ".cursor/hooks.json",
            "beforeSubmitPrompt",
            nested=False,
            adds_context=False,
            timeout_unit="",
            doc_url="https://cursor.com/docs/agent/hooks#beforesubmitprompt",
        ),
    )
}

# The same hook in Claude Code's personal, git-ignored settings file: the hook command holds this
# machine's absolute paths, which a shared .claude/settings.json should not. Listed after claude.
_CLAUDE_LOCAL = replace(
    HOSTS["claude"], name="claude-local", title="Claude Code (personal settings)", settings_path=".claude/settings.local.json"
)
HOSTS = {**{"claude": HOSTS["claude"], "claude-local": _CLAUDE_LOCAL}, **HOSTS}


def get_host(name: str) -> Host:
    """The :class:`Host` named ``name``; raises ``PaqadError`` naming the known hosts."""
    from paqad.errors import PaqadError

    try:
        return HOSTS[name]
    except KeyError:
        raise PaqadError(f"--host {name!r} is not supported; use one of: {', '.join(HOSTS)}") from None
