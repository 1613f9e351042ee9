"""How paqad-ai reaches AI coding agents ("hosts"): prompt hooks per host, rule files, MCP entries.

Each supported host is described once in :data:`HOSTS`: its settings file, its prompt-time
hook event and handler shape, whether that hook can add context to the prompt, the file it
reads MCP servers from, and the documentation the format was taken from. The formats and the
conditions under which each host runs a project hook were checked by running the real CLIs
offline (Claude Code 2.1.197, Codex 0.171.0, Gemini CLI 0.61.0, Copilot CLI 1.0.102; see
``tests/test_hosts_e2e.py``); Cursor's come from its documentation only.

``installers`` writes our hook (and the Cursor rule, and on request the MCP entry) into the
host's files, ``checks`` says whether the host will actually run it, ``codex`` and ``trust``
hold the host-side approval logic, ``prompt_hook`` is what the host runs on every prompt,
``mcp_server`` is the MCP server.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Host:
    """One agent host with a prompt-time hook.

    Attributes:
        name: the ``--host`` value (``"claude"``).
        title: display name (``"Claude Code"``).
        settings_path: the project file our hook goes into, relative to the project root, POSIX.
        event: the hook event that fires when the user submits a prompt.
        nested: ``True`` for ``{"hooks": {event: [{"hooks": [handler]}]}}`` (matcher groups),
            ``False`` for ``{"hooks": {event: [handler]}}`` (Cursor, Copilot CLI).
        adds_context: whether the hook's stdout can add text to this prompt's context.
            When ``False`` the hook only records the prompt and starts the refresh; the agent
            gets ``.paqad/context/session-context.md`` through a rule file (``rule_path``).
        timeout_key: the handler's timeout field (``"timeout"``, ``"timeoutSec"``) or ``""``.
        timeout_unit: unit of that field: ``"s"`` or ``"ms"``.
        command_key: the handler field holding the shell command (``"command"``; Copilot ``"bash"``).
        versioned: the file has a top-level ``"version": 1`` (Cursor, Copilot CLI).
        personal: the file is per user and never committed (made git-ignored on install).
        command_host: the ``--host`` value written into the command; ``claude-local`` writes
            ``claude`` so that the same hook in both Claude files is one command, run once.
        mcp_path: the project file holding MCP servers for this host, ``None`` if none.
        rule_path: a rule/instruction file the host loads into every request, ``None`` if none.
        doc_url: where the file format and the hook's input/output JSON are documented.
    """

    name: str
    title: str
    settings_path: str
    event: str
    nested: bool
    adds_context: bool
    timeout_key: str
    timeout_unit: str
    doc_url: str
    command_key: str = "command"
    versioned: bool = False
    personal: bool = False
    command_host: str = ""
    mcp_path: str | None = None
    rule_path: str | None = None

    @property
    def hook_host(self) -> str:
        """The ``--host`` value in the hook command (selects the output format)."""
        return self.command_host or self.name


HOSTS: dict[str, Host] = {
    h.name: h
    for h in (
        # Input: {"session_id", "transcript_path", "cwd", "hook_event_name": "UserPromptSubmit",
        # "prompt"}; output: {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
        # "additionalContext": "..."}} (arrives as a system message; 10,000 characters at most).
        Host(
            "claude",
            "Claude Code",
            ".claude/settings.json",
            "UserPromptSubmit",
            nested=True,
            adds_context=True,
            timeout_key="timeout",
            timeout_unit="s",
            doc_url="https://code.claude.com/docs/en/hooks#userpromptsubmit",
            mcp_path=".mcp.json",
        ),
        # Input (codex-rs/hooks/schema/generated/user-prompt-submit.command.input.schema.json):
        # {"session_id", "turn_id", "transcript_path", "cwd", "hook_event_name": "UserPromptSubmit",
        # "model", "permission_mode", "prompt"}; output as Claude Code's (arrives as a developer
        # message). Runs only in a trusted project once the handler's hash is approved.
        Host(
            "codex",
            "OpenAI Codex",
            ".codex/hooks.json",
            "UserPromptSubmit",
            nested=True,
            adds_context=True,
            timeout_key="timeout",
            timeout_unit="s",
            doc_url="https://developers.openai.com/codex/hooks",
            mcp_path=".codex/config.toml",
        ),
        # Input: {"session_id", "transcript_path", "cwd", "hook_event_name", "timestamp", "prompt"};
        # output: {"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": ...}}
        # (arrives as <hook_context> text with < and > HTML-escaped); stdout JSON or nothing.
        Host(
            "gemini",
            "Gemini CLI",
            ".gemini/settings.json",
            "BeforeAgent",
            nested=True,
            adds_context=True,
            timeout_key="timeout",
            timeout_unit="ms",
            doc_url="https://geminicli.com/docs/hooks/reference#beforeagent",
            mcp_path=".gemini/settings.json",
        ),
        # Input: {"sessionId", "timestamp", "cwd", "prompt"}; output: top-level
        # {"additionalContext": "..."} (the Claude shape is accepted but adds nothing); arrives in
        # the user message inside <system_reminder>. Our own file under .github/hooks/.
        Host(
            "copilot",
            "GitHub Copilot CLI",
            ".github/hooks/paqad-ai.json",
            "userPromptSubmitted",
            nested=False,
            adds_context=True,
            timeout_key="timeoutSec",
            timeout_unit="s",
            doc_url="https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference",
            command_key="bash",
            versioned=True,
            mcp_path=".github/mcp.json",
        ),
        # Input: {"conversation_id", "generation_id", "hook_event_name": "beforeSubmitPrompt",
        # "workspace_roots": [...], "prompt", "attachments"}; output: {"continue": true|false,
        # "user_message"?} -- no documented field adds context, so this hook records the prompt
        # and refreshes, and the rule file tells the agent to read session-context.md.
        Host(
            "cursor",
            "Cursor",
            ".cursor/hooks.json",
            "beforeSubmitPrompt",
            nested=False,
            adds_context=False,
            timeout_key="",
            timeout_unit="",
            doc_url="https://cursor.com/docs/agent/hooks#beforesubmitprompt",
            versioned=True,
            mcp_path=".cursor/mcp.json",
            rule_path=".cursor/rules/paqad-ai.mdc",
        ),
    )
}

# The same hook in Claude Code's personal settings file (git-ignored on install). Same command
# as `claude` (``--host claude``): installed in both files, Claude Code runs it once. Claude Code
# keeps personal MCP servers in ~/.claude.json, which we do not edit (no mcp_path).
_CLAUDE_LOCAL = replace(
    HOSTS["claude"],
    name="claude-local",
    title="Claude Code (personal settings)",
    settings_path=".claude/settings.local.json",
    personal=True,
    command_host="claude",
    mcp_path=None,
)
HOSTS = {**{"claude": HOSTS["claude"], "claude-local": _CLAUDE_LOCAL}, **HOSTS}

MCP_SERVER_NAME = "paqad"  # the key under mcpServers / [mcp_servers]: tools show as mcp__paqad__search_code


def get_host(name: str) -> Host:
    """The :class:`Host` named ``name``; raises ``UsageError`` naming the known hosts."""
    from paqad.errors import UsageError

    try:
        return HOSTS[name]
    except KeyError:
        raise UsageError(f"--host {name!r} is not supported; use one of: {', '.join(HOSTS)}") from None
