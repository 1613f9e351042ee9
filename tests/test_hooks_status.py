"""``hooks status``: every reason a host will not run our hook, read from real settings files in a
temporary HOME (conftest gives every test its own), and the step that fixes it.

The rules themselves were observed with the real CLIs; tests/test_hosts_e2e.py checks the
verdicts against the hosts again (hook ran or not)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from conftest import build_index

from paqad.cli.main import main
from paqad.hosts import HOSTS, codex
from paqad.hosts.checks import gemini_folder_trust, report
from paqad.hosts.installers import install_host
from paqad.hosts.launcher import launcher_path

BUDGET_MS = 1500


def home() -> Path:
    return Path(os.environ["HOME"])


def write(path: Path, content: str | dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2) + "\n", encoding="utf-8")
    return path


def codes(host: str, root: Path) -> list[str]:
    return [f.code for f in report(HOSTS[host], root).blockers]


@pytest.fixture(scope="module")
def indexed_template(tmp_path_factory: pytest.TempPathFactory, paqad_home: Path) -> Path:
    """A project with retrieval on and an index (built once), for the hook to have something to do."""
    return build_index(tmp_path_factory.mktemp("status") / "demo", {"README.md": "# demo\n"}, paqad_home)


@pytest.fixture
def project(git_repo, indexed_template: Path) -> Path:
    root = git_repo({"README.md": "# demo\n"})
    shutil.copytree(indexed_template / ".paqad", root / ".paqad")
    return root


def test_retrieval_off_or_no_index_is_not_running(git_repo, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bare = installed(git_repo({"README.md": "# demo\n"}, name="bare"), "claude")
    r = report(HOSTS["claude"], bare)
    assert r.installed and not r.will_run
    assert [(f.code, f.why, f.fix) for f in r.blockers] == [(
        "retrieval-off", "retrieval is off here (rag_enabled=false) and there is no index: the hook exits at once and adds nothing",
        "run `paqad-ai rag init` (builds the index when there is none, then turns retrieval on)")]
    assert main(["hooks", "status", "--host", "claude", "--project-root", str(bare)]) == 0
    out = capsys.readouterr().out
    assert "  will run: NO\n  why: retrieval is off here (rag_enabled=false) and there is no index" in out
    assert "  fix: run `paqad-ai rag init`" in out

    installed(project, "claude")
    assert report(HOSTS["claude"], project).will_run
    (project / ".paqad" / "vectors" / "index.sqlite").unlink()
    assert codes("claude", project) == ["index-missing"]
    with open(project / ".paqad" / ".config", "a", encoding="utf-8") as handle:
        handle.write("rag_enabled=false\n")
    assert codes("claude", project) == ["retrieval-off"]


@pytest.mark.parametrize("host", ["claude", "codex", "gemini", "copilot"])
def test_a_budget_the_installed_timeout_does_not_cover(host: str, project: Path) -> None:
    installed(project, host)  # timeout for BUDGET_MS: 2 s + 5 s = 7 s
    assert "hook-timeout-short" not in codes(host, project)
    with open(project / ".paqad" / ".config", "a", encoding="utf-8") as handle:
        handle.write("rag_hook_budget_ms=20000\n")
    [finding] = [f for f in report(HOSTS[host], project).blockers if f.code == "hook-timeout-short"]
    key, shown = {"claude": ("timeout", "7"), "codex": ("timeout", "7"), "gemini": ("timeout", "7000"), "copilot": ("timeoutSec", "7")}[host]
    title = HOSTS[host].title
    assert finding.why == (f'rag_hook_budget_ms=20000 but the installed hook has "{key}": {shown} (7 s): {title} kills it before it '
                           "answers, and the prompt goes without context")
    assert finding.fix.startswith(f'run `paqad-ai hooks install --host {host}` (writes "{key}": {"25000" if host == "gemini" else "25"}')
    assert not report(HOSTS[host], project).will_run
    install_host(HOSTS[host], project, 20000)  # what the fix says
    assert "hook-timeout-short" not in codes(host, project)


def installed(project: Path, *hosts: str) -> Path:
    for name in hosts:
        install_host(HOSTS[name], project, BUDGET_MS)
    return project


# --- common --------------------------------------------------------------------------------------


def test_not_installed_is_not_running(project: Path) -> None:
    for name in HOSTS:
        r = report(HOSTS[name], project)
        assert (r.installed, r.will_run, r.blockers) == (False, False, ())


def test_program_missing(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    installed(project, "claude")
    assert report(HOSTS["claude"], project).will_run
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # paqad-ai not on PATH; the launcher still is there
    r = report(HOSTS["claude"], project)
    assert r.will_run and r.program.via == "launcher"
    launcher_path().unlink()
    r = report(HOSTS["claude"], project)
    assert [f.code for f in r.blockers] == ["program-missing"]
    assert r.blockers[0].why == f"paqad-ai is not on PATH and there is no launcher at {launcher_path()}: the hook exits at once and adds nothing"


def test_invalid_settings_file(project: Path) -> None:
    write(project / ".claude" / "settings.json", '{"hooks": ')
    r = report(HOSTS["claude"], project)
    assert not r.installed and [f.code for f in r.blockers] == ["settings-invalid"]


# --- Claude Code ---------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["user", "config-dir", "project", "local"])
def test_claude_disable_all_hooks(where: str, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    installed(project, "claude")
    if where == "config-dir":
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    path = {"user": home() / ".claude" / "settings.json", "config-dir": tmp_path / "claude-config" / "settings.json",
            "project": project / ".claude" / "settings.json", "local": project / ".claude" / "settings.local.json"}[where]
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    write(path, {**data, "disableAllHooks": True})
    r = report(HOSTS["claude"], project)
    assert [(f.code, f.fix) for f in r.blockers] == [("claude-hooks-disabled", f'remove "disableAllHooks" from {path}')]
    assert r.installed and not r.will_run


def test_claude_managed_settings_allow_managed_hooks_only(project: Path) -> None:
    from paqad.hosts import checks

    installed(project, "claude")
    write(checks.CLAUDE_MANAGED_DIR / "managed-settings.d" / "10-policy.json", {"allowManagedHooksOnly": True})
    assert codes("claude", project) == ["claude-managed-policy"]


def test_claude_in_both_files_runs_once_unless_the_commands_differ(project: Path) -> None:
    installed(project, "claude", "claude-local")
    for name in ("claude", "claude-local"):
        r = report(HOSTS[name], project)
        assert r.will_run and any("the same command, which Claude Code runs once per prompt" in n for n in r.notes)
    local = project / ".claude" / "settings.local.json"
    data = json.loads(local.read_text(encoding="utf-8"))
    data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] = f"{sys.executable} -m paqad.cli.main hook prompt --host claude"
    write(local, data)
    assert any("Claude Code runs both, the hook twice per prompt" in n for n in report(HOSTS["claude"], project).notes)


def test_claude_interactive_trust_is_a_note(project: Path) -> None:
    installed(project, "claude")
    assert any("asks once to trust this folder" in n for n in report(HOSTS["claude"], project).notes)
    write(home() / ".claude.json", {"projects": {str(project): {"hasTrustDialogAccepted": True}}})
    assert not any("asks once to trust this folder" in n for n in report(HOSTS["claude"], project).notes)


# --- Codex ---------------------------------------------------------------------------------------


def test_codex_hash_matches_the_one_codex_computes() -> None:
    # Worked example from the hosts lab, equal to what codex-cli 0.171.0's `hooks/list` reports.
    handler = {"type": "command", "command": "/usr/local/bin/paqad-ai hook prompt --host codex --project-root /home/u/proj", "timeout": 7}
    assert codex.handler_hash("UserPromptSubmit", None, handler) == \
        "sha256:4439b192696d2fd75735b21a4664516db64072fd5bab3644d4fee2531f96f2b8"


def _codex_hook(project: Path) -> codex.CodexHook:
    hooks_json = project / ".codex" / "hooks.json"
    from paqad.hosts.launcher import is_our_command

    [hook] = codex.our_hooks(hooks_json, json.loads(hooks_json.read_text(encoding="utf-8")), "UserPromptSubmit", is_our_command)
    return hook


def test_codex_not_trusted_then_trusted_then_modified_then_disabled(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    installed(project, "codex")
    config = home() / ".codex" / "config.toml"
    assert codes("codex", project) == ["codex-project-not-trusted", "codex-hook-not-approved"]

    write(config, f'[projects."{project}"]\ntrust_level = "untrusted"\n')
    assert codes("codex", project) == ["codex-project-untrusted", "codex-hook-not-approved"]

    write(config, f'# my settings\nmodel = "o4"\n\n[projects."{project}"]\ntrust_level = "trusted"\n')
    assert codes("codex", project) == ["codex-hook-not-approved"]
    hook = _codex_hook(project)
    assert hook.key == f"{project}/.codex/hooks.json:user_prompt_submit:0:0"
    fix = report(HOSTS["codex"], project).blockers[0].fix
    assert fix.startswith("run `paqad-ai hooks trust --host codex`") and f'trusted_hash = "{hook.hash}"' in fix

    # hooks trust without a terminal and without --yes: the lines, an error, nothing written.
    assert main(["hooks", "trust", "--host", "codex", "--project-root", str(project)]) == 2
    captured = capsys.readouterr()
    assert f'[hooks.state."{hook.key}"]\ntrusted_hash = "{hook.hash}"' in captured.out
    assert "not a terminal: rerun with --yes" in captured.err
    assert "hooks.state" not in config.read_text(encoding="utf-8")

    assert main(["hooks", "trust", "--host", "codex", "--yes", "--project-root", str(project)]) == 0
    text = config.read_text(encoding="utf-8")
    assert text.startswith('# my settings\nmodel = "o4"\n')  # the user's lines kept
    assert text.endswith(f'\n[hooks.state."{hook.key}"]\ntrusted_hash = "{hook.hash}"\n')
    assert report(HOSTS["codex"], project).will_run
    hooks_json = (project / ".codex" / "hooks.json").read_bytes()
    assert main(["hooks", "install", "--host", "codex", "--project-root", str(project)]) == 0  # nothing changed:
    assert (project / ".codex" / "hooks.json").read_bytes() == hooks_json and _codex_hook(project) == hook  # same bytes, same hash
    assert report(HOSTS["codex"], project).will_run
    assert main(["hooks", "trust", "--host", "codex", "--yes", "--project-root", str(project)]) == 0
    assert capsys.readouterr().out.endswith("already trusts " + str(project) + " and approves the hook\n")
    assert config.read_text(encoding="utf-8") == text

    # A new budget changes the handler's timeout, hence its hash: "modified since approval".
    with open(project / ".paqad" / ".config", "a", encoding="utf-8") as handle:
        handle.write("rag_hook_budget_ms=4000\n")
    assert main(["hooks", "install", "--host", "codex", "--project-root", str(project)]) == 0
    out = capsys.readouterr().out
    assert "  will run: NO" in out and "  why: the hook changed since it was approved" in out
    assert codes("codex", project) == ["codex-hook-modified"]
    main(["hooks", "trust", "--host", "codex", "--yes", "--project-root", str(project)])
    assert codes("codex", project) == []
    assert config.read_text(encoding="utf-8").count("[hooks.state.") == 1  # replaced, not added

    text = config.read_text(encoding="utf-8").replace('trusted_hash = "', 'enabled = false\ntrusted_hash = "')
    write(config, text)
    assert codes("codex", project) == ["codex-hook-disabled"]
    main(["hooks", "trust", "--host", "codex", "--yes", "--project-root", str(project)])
    assert codes("codex", project) == []


def test_codex_home_variable(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    installed(project, "codex")
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    hook = _codex_hook(project)
    write(tmp_path / "codex-home" / "config.toml", codex.trust_text(project, hook))
    assert codes("codex", project) == []
    assert codex.config_path() == tmp_path / "codex-home" / "config.toml"


def test_codex_trust_refuses_a_layout_it_cannot_edit(project: Path) -> None:
    installed(project, "codex")
    config = write(home() / ".codex" / "config.toml", f'projects = {{ "{project}" = {{ trust_level = "untrusted" }} }}\n')
    assert main(["hooks", "trust", "--host", "codex", "--yes", "--project-root", str(project)]) == 2
    assert config.read_text(encoding="utf-8") == f'projects = {{ "{project}" = {{ trust_level = "untrusted" }} }}\n'


# --- Gemini CLI ----------------------------------------------------------------------------------


def test_gemini_folder_trust_rules(tmp_path: Path) -> None:
    root = tmp_path / "work" / "proj"
    root.mkdir(parents=True)
    assert gemini_folder_trust(root, {}) == (None, None)
    assert gemini_folder_trust(root, {str(root): "TRUST_FOLDER"}) == (True, str(root))
    assert gemini_folder_trust(root, {str(tmp_path / "work"): "TRUST_FOLDER"})[0] is True  # an ancestor
    assert gemini_folder_trust(root, {str(root / ".gemini"): "TRUST_PARENT"})[0] is True  # a child's parent
    assert gemini_folder_trust(root, {str(tmp_path / "work"): "TRUST_FOLDER", str(root): "DO_NOT_TRUST"})[0] is False  # longest wins
    assert gemini_folder_trust(root, {str(tmp_path / "work2"): "TRUST_FOLDER"}) == (None, None)  # a sibling name is no ancestor


def test_gemini_untrusted_distrusted_then_trusted(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    installed(project, "gemini")
    assert codes("gemini", project) == ["gemini-folder-not-trusted"]
    trusted = home() / ".gemini" / "trustedFolders.json"
    write(trusted, "// managed by Gemini CLI\n{\n  \"" + str(project) + "\": \"DO_NOT_TRUST\"\n}\n")  # comments allowed
    assert codes("gemini", project) == ["gemini-folder-distrusted"]
    assert main(["hooks", "trust", "--host", "gemini", "--yes", "--project-root", str(project)]) == 2  # would lose the comment
    write(trusted, {str(project): "DO_NOT_TRUST", "/elsewhere": "TRUST_FOLDER"})
    assert main(["hooks", "trust", "--host", "gemini", "--yes", "--project-root", str(project)]) == 0
    assert json.loads(trusted.read_text(encoding="utf-8")) == {str(project): "TRUST_FOLDER", "/elsewhere": "TRUST_FOLDER"}
    assert report(HOSTS["gemini"], project).will_run
    capsys.readouterr()


@pytest.mark.parametrize("how", ["env", "folder-trust-off", "gemini-cli-home"])
def test_gemini_other_ways_a_folder_counts_as_trusted(how: str, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    installed(project, "gemini")
    if how == "env":
        monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    elif how == "folder-trust-off":
        write(home() / ".gemini" / "settings.json", {"security": {"folderTrust": {"enabled": False}}})
    else:
        monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "gh"))
        write(tmp_path / "gh" / ".gemini" / "trustedFolders.json", {str(project): "TRUST_FOLDER"})
    assert codes("gemini", project) == []


@pytest.mark.parametrize("where", ["user", "project", "system"])
@pytest.mark.parametrize("key", ["enabled", "disabled"])
def test_gemini_hooks_turned_off(where: str, key: str, project: Path) -> None:
    installed(project, "gemini")
    write(home() / ".gemini" / "trustedFolders.json", {str(project): "TRUST_FOLDER"})
    path = {"user": home() / ".gemini" / "settings.json", "project": project / ".gemini" / "settings.json",
            "system": Path(os.environ["GEMINI_CLI_SYSTEM_SETTINGS_PATH"])}[where]
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    data["hooksConfig"] = {"enabled": False} if key == "enabled" else {"disabled": ["other-hook", "paqad-ai-retrieval"]}
    write(path, data)
    expected = "gemini-hooks-disabled" if key == "enabled" else "gemini-hook-disabled"
    r = report(HOSTS["gemini"], project)
    assert [f.code for f in r.blockers] == [expected]
    if key == "disabled":
        assert r.blockers[0].fix == f"run `/hooks enable paqad-ai-retrieval` in Gemini CLI, or remove it from hooksConfig.disabled in {path}"


def test_gemini_legacy_keys_are_ignored_like_gemini_does(project: Path) -> None:
    installed(project, "gemini")
    write(home() / ".gemini" / "trustedFolders.json", {str(project): "TRUST_FOLDER"})
    settings = project / ".gemini" / "settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["hooks"]["disabled"] = ["paqad-ai-retrieval"]
    write(settings, data)
    r = report(HOSTS["gemini"], project)
    assert r.will_run and any("which Gemini CLI 0.61 ignores" in n for n in r.notes)


# --- Copilot CLI ---------------------------------------------------------------------------------


def test_copilot_untrusted_then_trusted_by_a_parent_folder(project: Path) -> None:
    installed(project, "copilot")
    assert codes("copilot", project) == ["copilot-folder-not-trusted"]
    write(home() / ".copilot" / "config.json", "// User settings belong in settings.json.\n" + json.dumps({"trustedFolders": [str(project.parent)]}))
    assert codes("copilot", project) == []
    # The user-level disableAllHooks does not stop repository hooks (observed); the repository's does.
    write(home() / ".copilot" / "settings.json", {"disableAllHooks": True})
    assert codes("copilot", project) == []
    write(project / ".github" / "copilot" / "settings.json", {"disableAllHooks": True})
    assert codes("copilot", project) == ["copilot-hooks-disabled"]


def test_copilot_trust_keeps_the_header_comment(project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "copilot-home"))
    installed(project, "copilot")
    config = write(tmp_path / "copilot-home" / "config.json", '// User settings belong in settings.json.\n{\n  "banner": "never"\n}\n')
    assert main(["hooks", "trust", "--host", "copilot", "--yes", "--project-root", str(project)]) == 0
    text = config.read_text(encoding="utf-8")
    assert text.startswith("// User settings belong in settings.json.\n{\n")
    assert json.loads(text.split("\n", 1)[1]) == {"banner": "never", "trustedFolders": [str(project)]}
    assert codes("copilot", project) == []
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "elsewhere"))
    assert codes("copilot", project) == ["copilot-folder-not-trusted"]


# --- Cursor --------------------------------------------------------------------------------------


def test_cursor_without_its_rule(project: Path) -> None:
    installed(project, "cursor")
    r = report(HOSTS["cursor"], project)
    assert r.will_run and any("alwaysApply" in n for n in r.notes)
    (project / ".cursor" / "rules" / "paqad-ai.mdc").unlink()
    assert codes("cursor", project) == ["cursor-rule-missing"]


def test_status_text_names_the_reason_and_the_exact_fix(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    installed(project, "gemini", "codex")
    assert main(["hooks", "status", "--host", "gemini", "--host", "codex", "--project-root", str(project)]) == 0
    out = capsys.readouterr().out.splitlines()
    trusted = home() / ".gemini" / "trustedFolders.json"
    assert "  will run: NO" in out
    assert f"  why: {project} is not a trusted folder ({trusted}): Gemini CLI ignores .gemini/settings.json here (and `gemini -p` exits with code 55)" in out
    assert f'  fix: run `paqad-ai hooks trust --host gemini` (asks, then adds {{"{project}": "TRUST_FOLDER"}} to {trusted}), ' \
           "or start `gemini` here and trust the folder when it asks" in out
    hook = _codex_hook(project)
    assert f'       [hooks.state."{hook.key}"]' in out and f'       trusted_hash = "{hook.hash}"' in out
    assert sum(line.startswith("  fix: ") for line in out) == 2  # one fix for Codex's two causes
    assert main(["hooks", "status", "--json", "--host", "codex", "--project-root", str(project)]) == 0
    [data] = json.loads(capsys.readouterr().out)
    assert [b["code"] for b in data["blockers"]] == ["codex-project-not-trusted", "codex-hook-not-approved"] and data["will_run"] is False


def test_claude_with_the_mcp_entry_names_its_start_up_wait(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_host(HOSTS["claude"], project, BUDGET_MS, mcp=True)
    wait = "Claude Code waits 5 s (MCP_CONNECT_TIMEOUT_MS) for MCP servers before the first turn and leaves out one still starting"
    assert any(n.startswith(wait) and "set MCP_CONNECT_TIMEOUT_MS=30000" in n for n in report(HOSTS["claude"], project).notes)
    monkeypatch.setenv("MCP_CONNECT_TIMEOUT_MS", "30000")
    assert not any(n.startswith(wait) for n in report(HOSTS["claude"], project).notes)
