"""``hooks status``: is our hook installed, will the host actually run it, and if not, why and how to fix.

Every rule below was observed with the real CLI (versions in :mod:`paqad.hosts`); the files
are read, never written. Paths of the user-level files follow the hosts' own variables:
``CLAUDE_CONFIG_DIR`` (default ``~/.claude``), ``CODEX_HOME`` (``~/.codex``),
``GEMINI_CLI_HOME`` (home of ``.gemini``), ``GEMINI_CLI_TRUSTED_FOLDERS_PATH``,
``GEMINI_CLI_SYSTEM_SETTINGS_PATH``, ``COPILOT_HOME`` (``~/.copilot``).

* Claude Code: ``disableAllHooks: true`` in the user, project or local settings, or managed
  settings with ``disableAllHooks`` / ``allowManagedHooksOnly``, stop it. The same command in
  ``settings.json`` and ``settings.local.json`` runs once.
* Codex: :mod:`paqad.hosts.codex` (project trust, approved hash, ``enabled``).
* Gemini CLI: the folder must be trusted (``trustedFolders.json``: longest matching rule wins,
  ``TRUST_PARENT`` applies to the rule's parent; ``security.folderTrust.enabled: false`` in user
  or system settings turns the check off); ``hooksConfig.enabled: false`` (user, project or
  system) turns hooks off; our hook's name in any ``hooksConfig.disabled`` turns it off. The
  older ``hooks.disabled`` / ``hooks.enabled`` keys are ignored by Gemini CLI 0.61.
* Copilot CLI: repository hooks load only in a folder listed (or below one listed) in
  ``~/.copilot/config.json`` ``trustedFolders``; ``disableAllHooks: true`` in the repository's
  ``.github/copilot/settings.json`` stops them (the user-level one does not).
* Cursor: no trust is known; its hook cannot add context, so the rule file must be there.
"""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paqad.hosts import HOSTS, Host, codex, mcp_config, tomltext
from paqad.hosts.installers import HOOK_NAME, TIMEOUT_MARGIN_SECONDS, installed_commands, is_our_rule, our_handlers
from paqad.hosts.jsonfile import JSONC_FILES, load_jsonc, read_json
from paqad.hosts.launcher import ProgramCheck, check_program, is_machine_specific, is_our_command
from paqad.errors import PaqadError

CLAUDE_MANAGED_DIR = Path("/etc/claude-code")  # Linux; managed-settings.json and managed-settings.d/
CLAUDE_MCP_CONNECT_MS = 5000  # Claude Code 2.1.197's default MCP_CONNECT_TIMEOUT_MS (its bundled CLI)


@dataclass(frozen=True)
class Finding:
    """Why the host will not run our hook (``code`` is stable, for scripts) and the step that fixes it."""

    code: str
    why: str
    fix: str


@dataclass(frozen=True)
class HostReport:
    """What ``hooks status`` says about one host."""

    host: Host
    settings_file: Path
    installed: bool
    commands: tuple[str, ...]
    program: ProgramCheck | None
    blockers: tuple[Finding, ...]
    notes: tuple[str, ...]
    mcp_file: Path | None
    mcp_installed: bool

    @property
    def will_run(self) -> bool:
        """Installed, the host will run it, and it finds paqad-ai."""
        return self.installed and not self.blockers

    def to_dict(self, root: Path) -> dict[str, Any]:
        def rel(p: Path | None) -> str | None:
            if p is None:
                return None
            try:
                return p.relative_to(root).as_posix()
            except ValueError:
                return str(p)

        return {
            "host": self.host.name,
            "title": self.host.title,
            "settings_file": rel(self.settings_file),
            "event": self.host.event,
            "installed": self.installed,
            "will_run": self.will_run,
            "adds_context": self.host.adds_context,
            "commands": list(self.commands),
            "program": None if self.program is None else
            {"found": self.program.found, "via": self.program.via, "problem": self.program.problem},
            "blockers": [{"code": f.code, "why": f.why, "fix": f.fix} for f in self.blockers],
            "notes": list(self.notes),
            "mcp_file": rel(self.mcp_file),
            "mcp_installed": self.mcp_installed,
        }


def report(host: Host, root: Path) -> HostReport:
    """Inspect one host for the project at ``root`` (absolute, resolved)."""
    path = root / host.settings_path
    blockers: list[Finding] = []
    notes: list[str] = []
    try:
        read_json(path, comments=host.settings_path in JSONC_FILES)
    except PaqadError as exc:
        blockers.append(Finding("settings-invalid", str(exc), f"fix {path}, then `paqad-ai hooks install --host {host.name}`"))
    commands = installed_commands(host, root)
    program = check_program(commands[0]) if commands else None
    mcp_file, mcp_installed = None, False
    if host.mcp_path is not None:
        mcp_file, entry, _ = mcp_config.read_entry(host, root)
        mcp_installed = mcp_config.is_our_entry(entry)
    if commands:
        if program is not None and program.problem:
            blockers.append(Finding("program-missing", program.problem + ": the hook exits at once and adds nothing",
                                    "install paqad-ai where the host finds it (its PATH), or run `paqad-ai hooks install "
                                    f"--host {host.name}` from your installation to (re)write the launcher"))
        if not host.personal and any(is_machine_specific(c) for c in commands):
            notes.append(f"the command holds this machine's paths (an older install); `paqad-ai hooks install --host {host.name}` "
                         "rewrites it without them")
        more_blockers, more_notes = _project_checks(host, root)
        blockers += more_blockers
        notes += more_notes
        checker = _CHECKS.get(host.name)
        if checker is not None:
            more_blockers, more_notes = checker(host, root)
            blockers += more_blockers
            notes += more_notes
    return HostReport(host, path, bool(commands), commands, program, tuple(blockers), tuple(notes), mcp_file, mcp_installed)


def _project_checks(host: Host, root: Path) -> tuple[list[Finding], list[str]]:
    """What the project itself needs for the hook to add anything: readable settings, retrieval
    on, an index, and a budget the host's timeout leaves room for."""
    from paqad.config import load_settings
    from paqad.project import ProjectPaths, index_exists

    paths = ProjectPaths(root)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # unknown keys: `rag status` reports them
            settings = load_settings(paths)
    except PaqadError as exc:
        return [Finding("paqad-settings-invalid", f"{exc}: the hook cannot read the project's settings and adds nothing",
                        f"fix {paths.local_config}")], []
    blockers: list[Finding] = []
    has_index = index_exists(paths)
    if not settings.rag_enabled:
        why = "retrieval is off here (rag_enabled=false)" + ("" if has_index else " and there is no index")
        blockers.append(Finding("retrieval-off", f"{why}: the hook exits at once and adds nothing",
                                "run `paqad-ai rag init` (builds the index when there is none, then turns retrieval on)"))
    elif not has_index:
        blockers.append(Finding("index-missing", f"there is no index ({paths.index_db} is missing): the hook has nothing to search "
                                "and adds nothing", "run `paqad-ai rag init`"))
    return blockers + _timeout_findings(host, root, settings.rag_hook_budget_ms), []


def _timeout_findings(host: Host, root: Path, budget_ms: int) -> list[Finding]:
    """A handler whose host timeout is not above ``rag_hook_budget_ms``: the host kills the hook
    before it answers (install writes the budget rounded up to seconds + TIMEOUT_MARGIN_SECONDS)."""
    if not host.timeout_key:
        return []
    try:
        handlers = our_handlers(host, read_json(root / host.settings_path, comments=host.settings_path in JSONC_FILES).data)
    except PaqadError:
        return []
    per_ms = 1 if host.timeout_unit == "ms" else 1000
    wanted = math.ceil(budget_ms / 1000) + TIMEOUT_MARGIN_SECONDS
    found = []
    for handler in handlers:
        timeout = handler.get(host.timeout_key)
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout * per_ms > budget_ms:
            continue  # absent: the host's own default (60 s or more in the versions checked)
        fix = (f'run `paqad-ai hooks install --host {host.name}` (writes "{host.timeout_key}": {wanted * 1000 // per_ms}, '
               f"the budget plus {TIMEOUT_MARGIN_SECONDS} s)"
               + (", then `paqad-ai hooks trust --host codex` (the new timeout changes the hook's approved hash)" if host.name == "codex" else "")
               + f"; or lower rag_hook_budget_ms below {timeout * per_ms} in .paqad/.config")
        found.append(Finding("hook-timeout-short", f'rag_hook_budget_ms={budget_ms} but the installed hook has "{host.timeout_key}": '
                             f"{timeout} ({timeout * per_ms / 1000:g} s): {host.title} kills it before it answers, and the prompt "
                             "goes without context", fix))
    return found


def all_reports(root: Path) -> list[HostReport]:
    return [report(host, root) for host in HOSTS.values()]


def _dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


# --- Claude Code --------------------------------------------------------------------------------


def claude_config_dir() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def _claude(host: Host, root: Path) -> tuple[list[Finding], list[str]]:
    blockers: list[Finding] = []
    notes: list[str] = []
    for where in (claude_config_dir() / "settings.json", root / ".claude" / "settings.json", root / ".claude" / "settings.local.json"):
        data, _ = load_jsonc(where)
        if data and data.get("disableAllHooks") is True:
            blockers.append(Finding("claude-hooks-disabled", f'"disableAllHooks": true in {where} turns off every hook',
                                    f'remove "disableAllHooks" from {where}'))
    managed = [CLAUDE_MANAGED_DIR / "managed-settings.json", *sorted((CLAUDE_MANAGED_DIR / "managed-settings.d").glob("*.json"))]
    for where in managed:
        data, _ = load_jsonc(where)
        for key in ("disableAllHooks", "allowManagedHooksOnly"):
            if data and data.get(key) is True:
                blockers.append(Finding("claude-managed-policy", f'managed settings {where} set "{key}": true (only managed hooks run)',
                                        "ask whoever manages this machine's Claude Code settings"))
    for var in ("CLAUDE_CODE_SIMPLE", "CLAUDE_CODE_SAFE_MODE"):
        if os.environ.get(var):
            notes.append(f"{var} is set in this shell: Claude Code started from it runs no hooks")
    other = HOSTS["claude-local" if host.name == "claude" else "claude"]
    theirs = installed_commands(other, root)
    if theirs:
        mine = installed_commands(host, root)
        if set(theirs) == set(mine):
            notes.append(f"also installed in {other.settings_path}: the same command, which Claude Code runs once per prompt "
                         f"(it de-duplicates identical hook commands); `paqad-ai hooks uninstall --host {other.name}` removes the copy")
        else:
            notes.append(f"also installed in {other.settings_path} with another command: Claude Code runs both, the hook twice per "
                         f"prompt; run `paqad-ai hooks install --host {other.name}` to make them identical, or uninstall one")
    if host.mcp_path is not None and mcp_config.is_our_entry(mcp_config.read_entry(host, root)[1]) \
            and not os.environ.get("MCP_CONNECT_TIMEOUT_MS"):
        notes.append(f"Claude Code waits {CLAUDE_MCP_CONNECT_MS // 1000} s (MCP_CONNECT_TIMEOUT_MS) for MCP servers before the first "
                     "turn and leaves out one still starting; paqad-ai mcp answers in about 1 s on an idle machine, several on a busy "
                     "one: set MCP_CONNECT_TIMEOUT_MS=30000 in the environment Claude Code starts from"
                     + ("" if _dig(mcp_config.read_entry(host, root)[1], "alwaysLoad") is True else
                        f'; and run `paqad-ai hooks install --host {host.name} --mcp` to add "alwaysLoad": true to the entry '
                        "(without it `claude -p` does not wait at all)"))
    # ~/.claude.json, or $CLAUDE_CONFIG_DIR/.claude.json
    state_file = Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json" if os.environ.get("CLAUDE_CONFIG_DIR") else Path.home() / ".claude.json"
    if _dig(load_jsonc(state_file)[0] or {}, "projects", str(root), "hasTrustDialogAccepted") is not True:
        notes.append("interactive sessions: Claude Code asks once to trust this folder and runs project hooks after you accept "
                     "(`claude -p` does not ask)")
    return blockers, notes


# --- Codex --------------------------------------------------------------------------------------


def _codex(host: Host, root: Path) -> tuple[list[Finding], list[str]]:
    hooks_json = root / host.settings_path
    data = read_json(hooks_json).data
    blockers: list[Finding] = []
    for hook in codex.our_hooks(hooks_json, data, host.event, is_our_command):
        state = codex.read_state(root, hook)
        cfg = state.config
        fix = (f"run `paqad-ai hooks trust --host codex` (shows these lines, asks, then writes them to {cfg}), or add them "
               f"yourself:\n{codex.trust_text(root, hook)}or start `codex` in this project and choose to trust it and its hooks")
        if state.problem:
            blockers.append(Finding("codex-config-unreadable", state.problem, f"fix {cfg}"))
            continue
        if state.trust == "untrusted":
            blockers.append(Finding("codex-project-untrusted", f'{cfg} marks {root} trust_level = "untrusted": Codex ignores its .codex/ folder', fix))
        elif state.trust != "trusted":
            blockers.append(Finding("codex-project-not-trusted", f"{root} is not a trusted project in {cfg}: Codex ignores its .codex/ folder", fix))
        if state.approved_hash is None:
            blockers.append(Finding("codex-hook-not-approved", f"the hook is not approved in {cfg} (no trusted_hash for {hook.key}): "
                                    "Codex skips it without a word", fix))
        elif state.approved_hash != hook.hash:
            blockers.append(Finding("codex-hook-modified", f"the hook changed since it was approved (approved {state.approved_hash}, now "
                                    f"{hook.hash}; the command or the timeout, e.g. a new rag_hook_budget_ms): Codex skips it", fix))
        if not state.enabled:
            blockers.append(Finding("codex-hook-disabled", f"enabled = false for {hook.key} in {cfg}", fix))
    notes = [f"Codex must be started inside {root} (any subfolder when it is a git repository; the folder itself otherwise)"]
    _, entry, _ = mcp_config.read_entry(host, root)
    if mcp_config.is_our_entry(entry):
        try:
            grace = tomltext.get(tomltext.loads(codex.config_path().read_text(encoding="utf-8")), ("mcp_optional_startup_grace_ms",))
        except (OSError, ValueError):
            grace = None
        if grace != 0:
            notes.append(f"Codex leaves an MCP server out of a turn's tools when it has not started within about 1 s, and paqad-ai mcp "
                         f"may take longer; add `mcp_optional_startup_grace_ms = 0` to {codex.config_path()} to make Codex wait for it")
    return blockers, notes


# --- Gemini CLI ---------------------------------------------------------------------------------


def gemini_dir() -> Path:
    return Path(os.environ.get("GEMINI_CLI_HOME") or Path.home()) / ".gemini"


def gemini_trusted_folders_path() -> Path:
    return Path(os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or gemini_dir() / "trustedFolders.json")


def gemini_system_settings_path() -> Path:
    return Path(os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json")


def _is_subpath(parent: str, child: str) -> bool:
    return child == parent or child.startswith(parent.rstrip("/") + "/")


def _real(path: str) -> str:
    return os.path.realpath(path) if os.path.exists(path) else os.path.normpath(path)


def gemini_folder_trust(root: Path, rules: dict[str, Any]) -> tuple[bool | None, str | None]:
    """Gemini CLI's ``isPathTrusted``: ``(True/False/None, the deciding rule's path)``."""
    location = _real(str(root))
    best_len, best_level, best_rule = -1, None, None
    for rule, level in rules.items():
        effective = os.path.dirname(rule) if level == "TRUST_PARENT" else rule
        if _is_subpath(_real(effective), location) and len(rule) > best_len:
            best_len, best_level, best_rule = len(rule), level, rule
    if best_level == "DO_NOT_TRUST":
        return False, best_rule
    if best_level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return True, best_rule
    return None, None


def _gemini(host: Host, root: Path) -> tuple[list[Finding], list[str]]:
    blockers: list[Finding] = []
    notes = [f"start `gemini` in {root}: it reads .gemini/settings.json from the folder it starts in only",
             "Gemini CLI HTML-escapes < and > in hook context; the section then says to read &lt; and &gt; as the signs"]
    files = {"user": gemini_dir() / "settings.json", "project": root / ".gemini" / "settings.json",
             "system": gemini_system_settings_path()}
    settings = {name: (load_jsonc(path)[0] or {}) for name, path in files.items()}
    trust_fix = (f"run `paqad-ai hooks trust --host gemini` (asks, then adds {{\"{root}\": \"TRUST_FOLDER\"}} to "
                 f"{gemini_trusted_folders_path()}), or start `gemini` here and trust the folder when it asks")
    env_trust = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE")
    if os.environ.get("GEMINI_RESTRICTED_MODE") == "true" or env_trust == "false":
        blockers.append(Finding("gemini-folder-distrusted", "GEMINI_RESTRICTED_MODE=true or GEMINI_CLI_TRUST_WORKSPACE=false in this shell",
                                "unset the variable"))
    elif env_trust == "true":
        notes.append("GEMINI_CLI_TRUST_WORKSPACE=true in this shell trusts every folder for Gemini CLI started from it")
    elif any(_dig(s, "security", "folderTrust", "enabled") is False for name, s in settings.items() if name != "project"):
        notes.append("folder trust is turned off (security.folderTrust.enabled: false): every folder counts as trusted")
    else:
        rules, problem = load_jsonc(gemini_trusted_folders_path())
        if problem:
            blockers.append(Finding("gemini-trust-file-invalid", problem + ": Gemini CLI refuses to start", f"fix {gemini_trusted_folders_path()}"))
        trusted, rule = gemini_folder_trust(root, rules or {})
        if trusted is False:
            blockers.append(Finding("gemini-folder-distrusted", f"{gemini_trusted_folders_path()} says DO_NOT_TRUST for {rule}: "
                                    "Gemini CLI ignores .gemini/settings.json here (and `gemini -p` exits with code 55)", trust_fix))
        elif trusted is None and not problem:
            blockers.append(Finding("gemini-folder-not-trusted", f"{root} is not a trusted folder ({gemini_trusted_folders_path()}): Gemini "
                                    "CLI ignores .gemini/settings.json here (and `gemini -p` exits with code 55)", trust_fix))
    for name, data in settings.items():
        config = data.get("hooksConfig") if isinstance(data.get("hooksConfig"), dict) else {}
        if config.get("enabled") is False:
            blockers.append(Finding("gemini-hooks-disabled", f'"hooksConfig": {{"enabled": false}} in the {name} settings {files[name]} '
                                    "turns off every hook", f'remove "enabled": false from hooksConfig in {files[name]}'))
        disabled = config.get("disabled")
        if isinstance(disabled, list) and HOOK_NAME in disabled:
            blockers.append(Finding("gemini-hook-disabled", f'"{HOOK_NAME}" is listed in hooksConfig.disabled of the {name} settings {files[name]}',
                                    f"run `/hooks enable {HOOK_NAME}` in Gemini CLI, or remove it from hooksConfig.disabled in {files[name]}"))
        legacy = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
        if (isinstance(legacy.get("disabled"), list) and HOOK_NAME in legacy["disabled"]) or legacy.get("enabled") is False:
            notes.append(f"{files[name]} disables hooks with the old hooks.disabled / hooks.enabled keys, which Gemini CLI 0.61 ignores "
                         "(it reads hooksConfig.disabled / hooksConfig.enabled)")
    return blockers, notes


# --- Copilot CLI --------------------------------------------------------------------------------


def copilot_home() -> Path:
    return Path(os.environ.get("COPILOT_HOME") or Path.home() / ".copilot")


def copilot_trusted(root: Path) -> bool:
    data, _ = load_jsonc(copilot_home() / "config.json")
    folders = (data or {}).get("trustedFolders")
    location = _real(str(root))
    return isinstance(folders, list) and any(isinstance(f, str) and _is_subpath(_real(f), location) for f in folders)


def _copilot(host: Host, root: Path) -> tuple[list[Finding], list[str]]:
    blockers: list[Finding] = []
    notes: list[str] = []
    config = copilot_home() / "config.json"
    if os.environ.get("COPILOT_ALLOW_ALL") == "true" or os.environ.get("GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS") == "true":
        notes.append("COPILOT_ALLOW_ALL=true or GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true in this shell loads repository hooks "
                     "for Copilot CLI started from it")
    elif not copilot_trusted(root):
        blockers.append(Finding("copilot-folder-not-trusted", f"{root} is not in trustedFolders of {config}: Copilot CLI does not load "
                                ".github/hooks here (silently)", f"start `copilot` here and trust the folder when it asks (it records it "
                                f"in {config}), or run `paqad-ai hooks trust --host copilot`; for one `copilot -p` run, --trust-folder"))
    repo = root / ".github" / "copilot" / "settings.json"
    data, _ = load_jsonc(repo)
    if data and data.get("disableAllHooks") is True:
        blockers.append(Finding("copilot-hooks-disabled", f'"disableAllHooks": true in {repo}', f'remove "disableAllHooks" from {repo}'))
    return blockers, notes


# --- Cursor -------------------------------------------------------------------------------------


def _cursor(host: Host, root: Path) -> tuple[list[Finding], list[str]]:
    assert host.rule_path is not None
    rule = root / host.rule_path
    blockers = []
    if not is_our_rule(rule):
        blockers.append(Finding("cursor-rule-missing", f"{host.rule_path} is missing: Cursor's hook cannot add context, and nothing tells "
                                "the agent to read .paqad/context/session-context.md", "run `paqad-ai hooks install --host cursor`"))
    notes = [f"Cursor's hook records the prompt and refreshes session-context.md; the rule {host.rule_path} (alwaysApply) tells the agent "
             "to read it (from Cursor's documentation; no Cursor CLI runs here to check it)"]
    return blockers, notes


_CHECKS = {"claude": _claude, "claude-local": _claude, "codex": _codex, "gemini": _gemini, "copilot": _copilot, "cursor": _cursor}
