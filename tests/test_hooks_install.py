"""Installing the prompt hook (and the Cursor rule, the MCP entries) into each host's files, twice,
then uninstalling; the command holds no machine-specific path and runs wherever paqad-ai is."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import git

from paqad.cli.main import main
from paqad.hosts import HOSTS
from paqad.hosts.installers import HOOK_DESCRIPTION, HOOK_NAME, install, install_host, uninstall
from paqad.hosts.jsonfile import strip_json_comments
from paqad.hosts.launcher import (
    check_program,
    hook_command,
    installation_program,
    is_machine_specific,
    is_our_command,
    launcher_path,
    launcher_target,
)
from paqad.index.discover import discover

BUDGET_MS = 1500
PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")

# Existing settings files as users have them: other hooks on the same event and on other events,
# unrelated keys, non-ASCII text. Each dict is in the host's documented shape.
EXISTING = {
    "claude": {
        "permissions": {"allow": ["Bash(npm test)"], "deny": []},
        "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo \"Branch: $(git branch --show-current)\""}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}],
        },
        "env": {"GREETING": "grüß dich ☕"},
    },
    # Claude Code's personal settings file holds the same shape.
    "claude-local": {"permissions": {"allow": ["Bash(make lint)"]}, "env": {"EDITOR": "vim"}},
    "gemini": {
        "general": {"vimMode": True},
        "hooks": {
            "BeforeTool": [{"matcher": "write_file|replace", "hooks": [{"name": "secret-scanner", "type": "command", "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/block-secrets.sh"}]}],
        },
        "hooksConfig": {"disabled": ["auto-test"]},
        "ui": {"theme": "GitHub"},
    },
    "codex": {
        "hooks": {
            "SessionStart": [{"matcher": "startup|resume", "hooks": [{"type": "command", "command": "python3 .codex/hooks/session_start.py", "statusMessage": "Loading"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "/usr/bin/python3 .codex/hooks/scan_prompt.py", "timeout": 10}]}],
        }
    },
    "copilot": {
        "version": 1,
        "hooks": {
            "sessionStart": [{"type": "command", "bash": "./scripts/session-banner.sh", "timeoutSec": 5}],
            "userPromptSubmitted": [{"type": "command", "bash": "./scripts/audit-prompt.sh", "powershell": "./scripts/audit-prompt.ps1"}],
        },
    },
    "cursor": {
        "version": 1,
        "hooks": {
            "afterFileEdit": [{"command": "./hooks/format.sh"}],
            "beforeSubmitPrompt": [{"command": "./hooks/audit.sh"}],
        },
    },
}

COMMAND = {name: f'PATH="$PATH:${{PAQAD_HOME:-$HOME/.paqad}}/bin" paqad-ai hook prompt --host {HOSTS[name].hook_host} 2>/dev/null || true'
           for name in HOSTS}


def our_handler(host_name: str) -> dict:
    command = COMMAND[host_name]
    if host_name == "gemini":
        return {"name": HOOK_NAME, "type": "command", "command": command, "description": HOOK_DESCRIPTION, "timeout": 7000}
    if host_name == "copilot":
        return {"type": "command", "bash": command, "timeoutSec": 7}
    if host_name == "cursor":
        return {"command": command}
    return {"type": "command", "command": command, "timeout": 7}


def expected_after_install(host_name: str, existing: dict) -> dict:
    data = json.loads(json.dumps(existing))
    host = HOSTS[host_name]
    entries = data.setdefault("hooks", {}).setdefault(host.event, [])
    handler = our_handler(host_name)
    entries.append({"hooks": [handler]} if host.nested else handler)
    return data


def test_the_command_is_the_same_on_every_machine() -> None:
    for name, host in HOSTS.items():
        assert hook_command(host) == COMMAND[name]
    assert COMMAND["claude-local"] == COMMAND["claude"]  # one command in both Claude files: run once


@pytest.mark.parametrize("indent", [2, 4, "\t"])
@pytest.mark.parametrize("host_name", sorted(HOSTS))
def test_install_twice_then_uninstall_restores_the_file(host_name: str, indent, tmp_path: Path) -> None:
    root = tmp_path / "proj"
    host = HOSTS[host_name]
    settings = root / host.settings_path
    settings.parent.mkdir(parents=True)
    original = json.dumps(EXISTING[host_name], indent=indent, ensure_ascii=False) + "\n"
    settings.write_text(original, encoding="utf-8")

    assert install(host, root, BUDGET_MS) == (settings, True)
    after_first = settings.read_bytes()
    expected = json.dumps(expected_after_install(host_name, EXISTING[host_name]), indent=indent, ensure_ascii=False) + "\n"
    assert after_first.decode("utf-8") == expected

    assert install(host, root, BUDGET_MS) == (settings, False)
    assert settings.read_bytes() == after_first

    assert uninstall(host, root) == (settings, True)
    assert settings.read_text(encoding="utf-8") == original
    assert uninstall(host, root) == (settings, False)
    assert settings.read_text(encoding="utf-8") == original


@pytest.mark.parametrize("host_name", sorted(HOSTS))
def test_install_creates_the_file_and_uninstall_removes_it(host_name: str, tmp_path: Path) -> None:
    host = HOSTS[host_name]
    path, changed = install(host, tmp_path, BUDGET_MS)
    assert changed and path == tmp_path / host.settings_path
    data = json.loads(path.read_text(encoding="utf-8"))
    handler = our_handler(host_name)
    if host.versioned:
        assert data == {"version": 1, "hooks": {host.event: [handler]}}
    else:
        assert data == {"hooks": {host.event: [{"hooks": [handler]}]}}
    assert path.read_text(encoding="utf-8").endswith("}\n")
    assert uninstall(host, tmp_path) == (path, True)
    assert not path.exists() and not path.parent.exists()


def test_file_without_trailing_newline_and_compact_file(tmp_path: Path) -> None:
    host = HOSTS["claude"]
    settings = tmp_path / host.settings_path
    settings.parent.mkdir()
    settings.write_text('{"model": "opus"}', encoding="utf-8")  # one line, no newline
    install(host, tmp_path, BUDGET_MS)
    text = settings.read_text(encoding="utf-8")
    assert not text.endswith("\n")
    assert json.loads(text)["model"] == "opus"
    uninstall(host, tmp_path)
    # A compact file cannot keep its layout through a JSON rewrite; its content is kept.
    assert json.loads(settings.read_text(encoding="utf-8")) == {"model": "opus"}


def test_an_older_machine_specific_install_is_replaced_in_place(tmp_path: Path) -> None:
    host = HOSTS["codex"]
    settings = tmp_path / host.settings_path
    settings.parent.mkdir()
    old = {"type": "command", "command": f"/old/venv/bin/paqad-ai hook prompt --host codex --project-root {tmp_path}", "timeout": 7}
    data = json.loads(json.dumps(EXISTING["codex"]))
    data["hooks"]["UserPromptSubmit"].append({"hooks": [old]})
    settings.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    assert is_machine_specific(old["command"]) and check_program(old["command"]).problem == "/old/venv/bin/paqad-ai does not exist any more"
    install(host, tmp_path, BUDGET_MS)
    groups = json.loads(settings.read_text(encoding="utf-8"))["hooks"]["UserPromptSubmit"]
    assert len(groups) == 2  # the user's own group + ours, not a third one
    assert groups[1]["hooks"] == [our_handler("codex")]
    assert not is_machine_specific(groups[1]["hooks"][0]["command"])


def test_refuses_invalid_settings_and_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": {"BeforeAgent": ', encoding="utf-8")
    assert main(["hooks", "install", "--host", "gemini", "--project-root", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"paqad-ai: error: {settings}: not valid JSON") and "\n" not in err
    assert settings.read_text(encoding="utf-8") == '{"hooks": {"BeforeAgent": '
    settings.write_text('{"hooks": {"BeforeAgent": {"oops": 1}}}', encoding="utf-8")
    assert main(["hooks", "install", "--host", "gemini", "--project-root", str(tmp_path)]) == 2
    assert '"hooks.BeforeAgent" is not a JSON array' in capsys.readouterr().err


GEMINI_WITH_COMMENTS = """{
  // Team settings for Gemini CLI (it reads this file with comments allowed)
  "general": {
    "vimMode": true // some of us like vim
  },
  /* hooks we run before each turn */
  "hooks": {
    "BeforeAgent": [
      {"hooks": [{"name": "lint", "type": "command", "command": "./lint.sh"}]} // ours, keep
    ]
  },
  "ui": {"theme": "GitHub"} // last key
}
"""
MCP_LAUNCH = ["-c", 'PATH="$PATH:${PAQAD_HOME:-$HOME/.paqad}/bin" exec paqad-ai mcp --text-only']


def test_gemini_settings_with_comments_keep_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(GEMINI_WITH_COMMENTS, encoding="utf-8")
    assert main(["hooks", "install", "--host", "gemini", "--mcp", "--project-root", str(tmp_path)]) == 0
    capsys.readouterr()
    text = settings.read_text(encoding="utf-8")
    handler = json.dumps(our_handler("gemini"), indent=2).replace("\n", "\n          ")
    server = json.dumps({"paqad": {"command": "sh", "args": MCP_LAUNCH, "trust": True}}, indent=2).replace("\n", "\n  ")
    lint = '      {"hooks": [{"name": "lint", "type": "command", "command": "./lint.sh"}]}'
    assert text == GEMINI_WITH_COMMENTS.replace(
        f"{lint} // ours, keep\n",
        f'{lint}, // ours, keep\n      {{\n        "hooks": [\n          {handler}\n        ]\n      }}\n').replace(
        '  "ui": {"theme": "GitHub"} // last key\n',
        f'  "ui": {{"theme": "GitHub"}}, // last key\n  "mcpServers": {server}\n')
    # Read back as Gemini CLI reads it (comments stripped, then JSON): our group after the user's.
    assert json.loads(strip_json_comments(text))["hooks"]["BeforeAgent"][1] == {"hooks": [our_handler("gemini")]}
    mtime = settings.stat().st_mtime_ns
    assert main(["hooks", "install", "--host", "gemini", "--mcp", "--project-root", str(tmp_path)]) == 0
    assert "already installed in .gemini/settings.json" in capsys.readouterr().out
    assert settings.read_text(encoding="utf-8") == text and settings.stat().st_mtime_ns == mtime  # nothing changed: no byte
    assert main(["hooks", "status", "--host", "gemini", "--project-root", str(tmp_path)]) == 0
    assert "problem" not in capsys.readouterr().out
    assert main(["hooks", "uninstall", "--host", "gemini", "--project-root", str(tmp_path)]) == 0
    assert settings.read_text(encoding="utf-8") == GEMINI_WITH_COMMENTS  # the user's file, byte for byte


def test_a_gemini_file_of_only_comments_stays_on_uninstall(tmp_path: Path) -> None:
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{\n  // project settings\n}\n", encoding="utf-8")
    install_host(HOSTS["gemini"], tmp_path, BUDGET_MS, mcp=True)
    assert "// project settings" in settings.read_text(encoding="utf-8")
    assert main(["hooks", "uninstall", "--host", "gemini", "--project-root", str(tmp_path)]) == 0
    assert settings.read_text(encoding="utf-8") == "{\n  // project settings\n}\n"


def test_comments_stay_refused_where_the_host_does_not_read_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  // not for Claude Code\n  "model": "opus"\n}\n', encoding="utf-8")
    assert main(["hooks", "install", "--host", "claude", "--project-root", str(tmp_path)]) == 2
    assert f"{settings}: not valid JSON" in capsys.readouterr().err


def _tree(*roots: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``roots``: bytes and mtime (a rewrite with the same bytes shows too)."""
    out = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and ".git/objects" not in path.as_posix():
                out[str(path)] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


def test_committed_files_hold_no_machine_path_and_reinstall_changes_no_byte(git_repo, tmp_path: Path) -> None:
    root = git_repo({"README.md": "# demo\n"})
    names = ["claude", "claude-local", "codex", "gemini", "copilot", "cursor"]
    for name in names:
        install_host(HOSTS[name], root, BUDGET_MS, mcp=True)
    home = Path(os.environ["HOME"])
    machine = [str(root), str(tmp_path), sys.executable, str(Path(sys.executable).parent), str(home), os.environ["PAQAD_HOME"]]
    committed = [".claude/settings.json", ".codex/hooks.json", ".codex/config.toml", ".gemini/settings.json", ".cursor/hooks.json",
                 ".cursor/mcp.json", ".cursor/rules/paqad-ai.mdc", ".github/hooks/paqad-ai.json", ".github/mcp.json", ".mcp.json"]
    for rel in committed:
        text = (root / rel).read_text(encoding="utf-8")
        assert not [m for m in machine if m in text], (rel, text)
    # The personal file is git-ignored; everything committed is not.
    status = git(root, "status", "--porcelain", "--untracked-files=all")
    assert ".claude/settings.local.json" not in status
    assert all(rel in status for rel in committed)
    assert "/.claude/settings.local.json" in (root / ".git" / "info" / "exclude").read_text(encoding="utf-8")
    # The launcher (per user, outside the project) runs this installation.
    assert launcher_target() == installation_program()[0] == PAQAD_AI

    before = _tree(root, Path(os.environ["PAQAD_HOME"]) / "bin")
    time.sleep(0.01)
    for name in names:
        report = install_host(HOSTS[name], root, BUDGET_MS, mcp=True)
        assert [c for c in report.changes if c.changed] == []
    assert _tree(root, Path(os.environ["PAQAD_HOME"]) / "bin") == before


def _run_command(command: str, payload: dict, cwd: Path, path_env: str) -> tuple[subprocess.CompletedProcess, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")}
    env["PATH"] = path_env
    started = time.monotonic()
    proc = subprocess.run(["sh", "-c", command], input=json.dumps(payload).encode(), capture_output=True, cwd=cwd, env=env, timeout=60)
    return proc, time.monotonic() - started


@pytest.fixture
def venv_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """This installation's paqad-ai first on PATH, as in an activated venv (the suite may run as
    ``.venv/bin/python -m pytest`` without activating it)."""
    monkeypatch.setenv("PATH", f"{Path(PAQAD_AI).parent}{os.pathsep}{os.environ.get('PATH', '')}")


def test_the_command_finds_paqad_ai_on_path_then_the_launcher_else_does_nothing(tmp_path: Path, venv_on_path) -> None:
    root = tmp_path / "my project's ü 日本"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()  # the project root marker; no index needed
    (root / ".paqad").mkdir()
    (root / ".paqad" / ".config").write_text("rag_enabled=true\n", encoding="utf-8")  # on, but no index yet
    install_host(HOSTS["claude"], root, BUDGET_MS)
    command = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    payload = {"session_id": "s1", "cwd": str(root / "src"), "hook_event_name": "UserPromptSubmit", "prompt": "where is the ümlaut parser?"}
    record = root / ".paqad" / "context" / "last-prompt.json"
    system_path = "/usr/bin:/bin"

    # 1. paqad-ai on PATH (an activated venv): the project is found from the payload's cwd.
    proc, _ = _run_command(command, payload, tmp_path, f"{Path(PAQAD_AI).parent}:{system_path}")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert json.loads(record.read_text(encoding="utf-8"))["prompt"] == "where is the ümlaut parser?"

    # 2. not on PATH: the launcher in $PAQAD_HOME/bin runs this installation.
    record.unlink()
    assert check_program(command).via == "PATH"
    proc, _ = _run_command(command, {**payload, "prompt": "second"}, tmp_path, system_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert json.loads(record.read_text(encoding="utf-8"))["prompt"] == "second"

    # 3. neither (a teammate without paqad-ai): exit 0 at once, no output, nothing written.
    record.unlink()
    launcher_path().unlink()
    proc, elapsed = _run_command(command, payload, tmp_path, system_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert elapsed < 20.0 and not record.exists()  # returns (no hang); not a speed check


def test_cli_install_status_uninstall(tmp_path: Path, capsys: pytest.CaptureFixture[str], venv_on_path) -> None:
    root = str(tmp_path)
    assert main(["hooks", "install", "--host", "claude", "--host", "cursor", "--project-root", root]) == 0
    captured = capsys.readouterr()
    assert captured.err == "note: retrieval is off here (rag_enabled=false); the hook does nothing until `paqad-ai rag init`\n"
    out = captured.out.splitlines()
    assert out[0] == "Claude Code: installed in .claude/settings.json"
    assert f"  launcher: {launcher_path()} (runs this installation when paqad-ai is not on the host's PATH)" in out
    assert "  mcp: not set up; add --mcp to register the paqad MCP server in .mcp.json" in out
    # Retrieval is off and there is no index here: the host runs the hook, which adds nothing (issue 20, item 8).
    assert "  will run: NO" in out and "  fix: run `paqad-ai rag init` (builds the index when there is none, then turns retrieval on)" in out
    assert "Cursor: installed in .cursor/hooks.json (records the prompt and refreshes; this host's hook cannot add context)" in out
    assert "  rule: .cursor/rules/paqad-ai.mdc written (the agent reads .paqad/context/session-context.md)" in out

    assert main(["hooks", "install", "--host", "claude", "--project-root", root]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Claude Code: already installed in .claude/settings.json"
    assert main(["hooks", "status", "--project-root", root]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"Claude Code: installed (UserPromptSubmit in .claude/settings.json); paqad-ai found via PATH ({PAQAD_AI})" in lines
    for title, rel in (("Claude Code (personal settings)", ".claude/settings.local.json"), ("OpenAI Codex", ".codex/hooks.json"),
                       ("Gemini CLI", ".gemini/settings.json"), ("GitHub Copilot CLI", ".github/hooks/paqad-ai.json")):
        assert f"{title}: not installed ({rel})" in lines
    assert main(["hooks", "status", "--json", "--project-root", root]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(r["host"], r["installed"], r["will_run"], r["adds_context"]) for r in report] == [
        ("claude", True, False, True), ("claude-local", False, False, True), ("codex", False, False, True),
        ("gemini", False, False, True), ("copilot", False, False, True), ("cursor", True, False, False),
    ]
    assert report[0]["commands"] == [COMMAND["claude"]] and report[0]["program"]["found"] == PAQAD_AI
    assert main(["hooks", "uninstall", "--project-root", root]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Claude Code: removed from .claude/settings.json",
        "Claude Code (personal settings): not installed in .claude/settings.local.json",
        "OpenAI Codex: not installed in .codex/hooks.json",
        "Gemini CLI: not installed in .gemini/settings.json",
        "GitHub Copilot CLI: not installed in .github/hooks/paqad-ai.json",
        "Cursor: removed from .cursor/hooks.json",
        "  rule: removed from .cursor/rules/paqad-ai.mdc",
    ]
    assert not (tmp_path / ".cursor").exists() and not (tmp_path / ".claude").exists()


def test_claude_and_claude_local_together_warn_and_share_one_command(git_repo, capsys: pytest.CaptureFixture[str]) -> None:
    root = git_repo({"README.md": "# demo\n"})
    assert main(["hooks", "install", "--host", "claude", "--host", "claude-local", "--project-root", str(root)]) == 0
    captured = capsys.readouterr()
    assert "warning: installed in both .claude/settings.json and .claude/settings.local.json; the commands are identical, " \
           "so Claude Code runs the hook once" in captured.err
    assert "the same command, which Claude Code runs once per prompt" in captured.out
    assert f"  .claude/settings.local.json: added to {root / '.git' / 'info' / 'exclude'} (this clone's own ignore file)" in captured.out
    assert main(["hooks", "install", "--host", "claude-local", "--project-root", str(root)]) == 0
    assert "  .claude/settings.local.json: already git-ignored" in capsys.readouterr().out
    assert subprocess.run(["git", "check-ignore", "-q", ".claude/settings.local.json"], cwd=root).returncode == 0


def test_a_project_in_a_subfolder_of_the_repository_gets_the_right_ignore_line(git_repo) -> None:
    repo = git_repo({"app/README.md": "# app\n", "lib/README.md": "# lib\n"})
    root = repo / "app"
    report = install_host(HOSTS["claude-local"], root, BUDGET_MS)
    assert report.notes == (f".claude/settings.local.json: added to {repo / '.git' / 'info' / 'exclude'} (this clone's own ignore file)",)
    assert "/app/.claude/settings.local.json\n" in (repo / ".git" / "info" / "exclude").read_text(encoding="utf-8")
    assert subprocess.run(["git", "check-ignore", "-q", "app/.claude/settings.local.json"], cwd=repo).returncode == 0


def test_a_tracked_personal_file_is_reported_not_ignored(git_repo) -> None:
    root = git_repo({".claude/settings.local.json": "{}\n"})
    report = install_host(HOSTS["claude-local"], root, BUDGET_MS)
    assert report.notes == ("warning: .claude/settings.local.json is tracked by git, so ignore rules do not apply; "
                            "run `git rm --cached .claude/settings.local.json`",)
    plain = root.parent / "plain"
    plain.mkdir()
    assert install_host(HOSTS["claude-local"], plain, BUDGET_MS).notes == (
        ".claude/settings.local.json: not a git repository, nothing to ignore",)


def test_cursor_rule_is_always_applied_points_at_the_session_file_and_is_not_indexed(git_repo) -> None:
    root = git_repo({"pyproject.toml": '[project]\nname = "x"\n', "src/app.py": "def main():\n    return 'hello world, this is the app'\n"})
    install_host(HOSTS["cursor"], root, BUDGET_MS)
    text = (root / ".cursor" / "rules" / "paqad-ai.mdc").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    front, body = text[4:].split("\n---\n", 1)
    meta = yaml.safe_load(front)
    assert meta["alwaysApply"] is True  # a real boolean: "true" as a string leaves the rule inactive
    assert meta["description"] and meta["globs"] is None
    assert "`.paqad/context/session-context.md`" in body and "Query:" in body
    assert ".cursor/rules/paqad-ai.mdc" not in {f.path for f in discover(root).eligible}
    # A rule file that is not ours is never overwritten.
    (root / ".cursor" / "rules" / "paqad-ai.mdc").write_text("---\nalwaysApply: true\n---\nmine\n", encoding="utf-8")
    assert main(["hooks", "install", "--host", "cursor", "--project-root", str(root)]) == 2
    assert main(["hooks", "uninstall", "--host", "cursor", "--project-root", str(root)]) == 0
    assert (root / ".cursor" / "rules" / "paqad-ai.mdc").read_text(encoding="utf-8").endswith("mine\n")


def test_mcp_entries_in_each_hosts_file_and_the_codex_toml_keeps_comments(tmp_path: Path) -> None:
    codex_cfg = tmp_path / ".codex" / "config.toml"
    codex_cfg.parent.mkdir()
    original = '# project Codex settings\nmodel = "o4"   # keep this\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'
    codex_cfg.write_text(original, encoding="utf-8")
    for name in ("claude", "codex", "gemini", "copilot", "cursor"):
        install_host(HOSTS[name], tmp_path, BUDGET_MS, mcp=True)
    launch = ["-c", 'PATH="$PATH:${PAQAD_HOME:-$HOME/.paqad}/bin" exec paqad-ai mcp --text-only']
    for rel in (".cursor/mcp.json", ".github/mcp.json"):
        assert json.loads((tmp_path / rel).read_text(encoding="utf-8")) == {"mcpServers": {"paqad": {"command": "sh", "args": launch}}}
    # Claude Code: "alwaysLoad" makes `claude -p` wait for the server before the first turn (issue 20, item 15).
    assert json.loads((tmp_path / ".mcp.json").read_text(encoding="utf-8")) == \
        {"mcpServers": {"paqad": {"command": "sh", "args": launch, "alwaysLoad": True}}}
    gemini = json.loads((tmp_path / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    assert gemini["mcpServers"] == {"paqad": {"command": "sh", "args": launch, "trust": True}}
    text = codex_cfg.read_text(encoding="utf-8")
    assert text.startswith(original) and text.endswith(
        '\n[mcp_servers.paqad]\ncommand = "sh"\nargs = ["-c", "PATH=\\"$PATH:${PAQAD_HOME:-$HOME/.paqad}/bin\\" exec paqad-ai mcp --text-only"]\n'
        'env_vars = ["PAQAD_HOME", "PAQAD_MODEL_MIRROR", "HF_HUB_OFFLINE"]\n')
    for name in ("claude", "codex", "gemini", "copilot", "cursor"):
        main(["hooks", "uninstall", "--host", name, "--project-root", str(tmp_path)])
    assert codex_cfg.read_text(encoding="utf-8") == original
    assert not (tmp_path / ".mcp.json").exists() and not (tmp_path / ".gemini").exists() and not (tmp_path / ".github").exists()


def test_an_mcp_server_named_paqad_that_is_not_ours_is_kept(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {"paqad": {"command": "other-tool"}}}\n', encoding="utf-8")
    assert main(["hooks", "install", "--host", "claude", "--mcp", "--project-root", str(tmp_path)]) == 2
    assert json.loads((tmp_path / ".mcp.json").read_text(encoding="utf-8")) == {"mcpServers": {"paqad": {"command": "other-tool"}}}


def test_command_recognition() -> None:
    assert all(is_our_command(c) for c in COMMAND.values())
    assert is_our_command("/usr/local/bin/paqad-ai hook prompt --host claude")
    assert is_our_command("'/home/me/my tools/paqad-ai' hook prompt --host codex --project-root '/x y'")
    assert is_our_command("/usr/bin/python3 -m paqad.cli.main hook prompt --host gemini")
    assert is_our_command("paqad-ai hook prompt --host cursor")
    assert not is_our_command("paqad-ai rag refresh-context")
    assert not is_our_command("echo paqad-ai hook")
    assert not is_our_command("/opt/other-tool hook prompt")
    assert not is_our_command(None)
    assert not any(is_machine_specific(c) for c in COMMAND.values())
    assert shlex.split(COMMAND["claude"])[1:4] == ["paqad-ai", "hook", "prompt"]
