"""``hooks trust --host codex|gemini|copilot``: write the host-side approval the user consents to.

These hosts run a project's hooks only after the *user* trusts the project, recorded in the
user's own files (never in the repository). :func:`plan` says exactly what would be written
and where; the CLI shows it and asks before :meth:`TrustPlan.apply` writes it.

* Codex: ``[projects."<root>"] trust_level = "trusted"`` and the hook's
  ``[hooks.state."<key>"] trusted_hash`` in ``$CODEX_HOME/config.toml`` (text edits, checked by
  parsing the result; comments and layout kept).
* Gemini CLI: ``"<root>": "TRUST_FOLDER"`` in ``~/.gemini/trustedFolders.json``.
* Copilot CLI: ``<root>`` appended to ``trustedFolders`` in ``~/.copilot/config.json`` (leading
  ``//`` comment lines kept; a file with comments elsewhere is refused).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from paqad.errors import UsageError, UserFileError
from paqad.hosts import Host, codex
from paqad.hosts.checks import copilot_home, copilot_trusted, gemini_folder_trust, gemini_trusted_folders_path
from paqad.hosts.jsonfile import atomic_write, dump_json, load_jsonc, read_json, strip_json_comments
from paqad.hosts.launcher import is_our_command

TRUSTABLE = ("codex", "gemini", "copilot")


@dataclass(frozen=True)
class TrustPlan:
    """What :meth:`apply` would write: ``file``, ``text`` (its new content) and a ``summary``
    of the change for people. ``text`` is ``None`` when nothing needs to change."""

    host: Host
    file: Path
    summary: str
    text: str | None

    def apply(self) -> bool:
        if self.text is None:
            return False
        atomic_write(self.file, self.text)
        return True


def plan(host: Host, root: Path) -> TrustPlan:
    """The approval for ``host`` in project ``root``; raises ``PaqadError`` when there is nothing
    to approve (hook not installed) or the user's file cannot be edited safely."""
    if host.name == "codex":
        return _plan_codex(host, root)
    if host.name == "gemini":
        return _plan_gemini(host, root)
    if host.name == "copilot":
        return _plan_copilot(host, root)
    raise UsageError(f"--host {host.name}: nothing to trust (use one of: {', '.join(TRUSTABLE)})")


def _plan_codex(host: Host, root: Path) -> TrustPlan:
    hooks_json = root / host.settings_path
    hooks = codex.our_hooks(hooks_json, read_json(hooks_json).data, host.event, is_our_command)
    if not hooks:
        raise UsageError(f"no paqad-ai hook in {host.settings_path}; run `paqad-ai hooks install --host codex` first")
    cfg = codex.config_path()
    try:
        text = cfg.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    new = text
    for hook in hooks:
        new = codex.apply_trust(new, root, hook)
    lines = "".join(codex.trust_text(root, hook) for hook in hooks)
    if new == text:
        return TrustPlan(host, cfg, f"{cfg} already trusts {root} and approves the hook", None)
    return TrustPlan(host, cfg, f"in {cfg}: trust the project {root} and approve the paqad-ai hook (it runs "
                     f"`paqad-ai hook prompt` on every prompt):\n{lines}", new)


def _plan_gemini(host: Host, root: Path) -> TrustPlan:
    path = gemini_trusted_folders_path()
    data, problem = load_jsonc(path)
    if problem:
        raise UserFileError(f"{problem}; fix it and retry")
    rules = dict(data or {})
    trusted, _ = gemini_folder_trust(root, rules)
    if trusted and rules.get(str(root)) in (None, "TRUST_FOLDER"):
        return TrustPlan(host, path, f"{path} already trusts {root}", None)
    raw = path.read_text(encoding="utf-8") if path.exists() else ""
    if raw and strip_json_comments(raw) != raw:
        raise UserFileError(f"{path} has comments, which a rewrite would lose; add \"{root}\": \"TRUST_FOLDER\" to it yourself")
    rules[str(root)] = "TRUST_FOLDER"
    return TrustPlan(host, path, f'in {path}: "{root}": "TRUST_FOLDER" (Gemini CLI then loads .gemini/settings.json there, '
                     "hooks and MCP servers included)", dump_json(rules))


def _plan_copilot(host: Host, root: Path) -> TrustPlan:
    path = copilot_home() / "config.json"
    if copilot_trusted(root):
        return TrustPlan(host, path, f"{path} already trusts {root}", None)
    raw = path.read_text(encoding="utf-8") if path.exists() else ""
    header_lines = []
    body_lines = raw.splitlines(keepends=True)
    while body_lines and body_lines[0].lstrip().startswith("//"):
        header_lines.append(body_lines.pop(0))
    body = "".join(body_lines)
    if strip_json_comments(body) != body:
        raise UserFileError(f"{path} has comments inside, which a rewrite would lose; add \"{root}\" to its trustedFolders yourself")
    try:
        data = json.loads(body) if body.strip() else {}
    except json.JSONDecodeError as exc:
        raise UserFileError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}); fix it and retry") from None
    if not isinstance(data, dict) or not isinstance(data.get("trustedFolders", []), list):
        raise UserFileError(f"{path}: expected an object with a trustedFolders list; fix it and retry")
    data["trustedFolders"] = [*data.get("trustedFolders", []), str(root)]
    return TrustPlan(host, path, f"in {path}: add {root} to trustedFolders (Copilot CLI then loads the repository's hooks and "
                     "MCP servers there)", "".join(header_lines) + dump_json(data))
