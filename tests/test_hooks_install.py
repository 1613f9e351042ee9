"""Installing the prompt hook into each host's existing settings file, twice, then uninstalling."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from paqad.cli.main import main
from paqad.hosts import HOSTS
from paqad.hosts.installers import (
    all_statuses,
    command_resolves,
    hook_command,
    install,
    is_our_command,
    paqad_program,
    status,
    uninstall,
)

BUDGET_MS = 1500

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
            "disabled": ["auto-test"],
        },
        "ui": {"theme": "GitHub"},
    },
    "codex": {
        "hooks": {
            "SessionStart": [{"matcher": "startup|resume", "hooks": [{"type": "command", "command": "python3 .codex/hooks/session_start.py", "statusMessage": "Loading"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "/usr/bin/python3 .codex/hooks/scan_prompt.py", "timeout": 10}]}],
        }
    },
    "cursor": {
        "version": 1,
        "hooks": {
            "afterFileEdit": [{"command": "./hooks/format.sh"}],
            "beforeSubmitPrompt": [{"command": "./hooks/audit.sh"}],
        },
    },
}


def our_handler(host_name: str, root: Path) -> dict:
    command = hook_command(HOSTS[host_name], root)
    if host_name == "gemini":
        return {
            "name": "paqad-ai-retrieval",
            "type": "command",
            "command": command,
            "description": "paqad-ai: record the prompt, refresh the index, add retrieved code context",
            "timeout": 7000,
        }
    if host_name == "cursor":
        return {"command": command}
    return {"type": "command", "command": command, "timeout": 7}


def expected_after_install(host_name: str, existing: dict, root: Path) -> dict:
    data = json.loads(json.dumps(existing))
    host = HOSTS[host_name]
    hooks = data.setdefault("hooks", {})
    entries = hooks.setdefault(host.event, [])
    handler = our_handler(host_name, root)
    entries.append({"hooks": [handler]} if host.nested else handler)
    return data


@pytest.mark.parametrize("indent", [2, 4, "\t"])
@pytest.mark.parametrize("host_name", sorted(HOSTS))
def test_install_twice_then_uninstall_restores_the_file(host_name: str, indent, tmp_path: Path) -> None:
    root = tmp_path / "proj"
    host = HOSTS[host_name]
    settings = root / host.settings_path
    settings.parent.mkdir(parents=True)
    original = json.dumps(EXISTING[host_name], indent=indent, ensure_ascii=False) + "\n"
    settings.write_text(original, encoding="utf-8")

    path, changed = install(host, root, BUDGET_MS)
    assert (path, changed) == (settings, True)
    after_first = settings.read_bytes()
    expected = json.dumps(expected_after_install(host_name, EXISTING[host_name], root), indent=indent, ensure_ascii=False) + "\n"
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
    handler = our_handler(host_name, tmp_path)
    if host_name == "cursor":
        assert data == {"version": 1, "hooks": {"beforeSubmitPrompt": [handler]}}
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


def test_reinstall_after_the_installation_moved_replaces_in_place(tmp_path: Path) -> None:
    host = HOSTS["codex"]
    settings = tmp_path / host.settings_path
    settings.parent.mkdir()
    settings.write_text(json.dumps(EXISTING["codex"], indent=2) + "\n", encoding="utf-8")
    install(host, tmp_path, BUDGET_MS, program=["/old/venv/bin/paqad-ai"])
    assert status(host, tmp_path).resolves is False
    install(host, tmp_path, BUDGET_MS)
    data = json.loads(settings.read_text(encoding="utf-8"))
    groups = data["hooks"]["UserPromptSubmit"]
    assert len(groups) == 2  # the user's own group + ours, not a third one
    assert groups[1]["hooks"] == [our_handler("codex", tmp_path)]
    st = status(host, tmp_path)
    assert st.installed and st.resolves and st.commands == (hook_command(host, tmp_path),)


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


def test_command_is_quoted_for_spaces_quotes_and_non_ascii(tmp_path: Path) -> None:
    root = tmp_path / "my project's ü 日本"
    root.mkdir()
    (root / ".paqad").mkdir()
    (root / ".paqad" / ".config").write_text("rag_enabled=true\n", encoding="utf-8")  # on, but no index yet
    install(HOSTS["claude"], root, BUDGET_MS)
    data = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
    command = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert shlex.split(command)[-2:] == ["--project-root", str(root)]
    # Run it the way the host does: through sh, with the documented payload on stdin.
    payload = {"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": str(root), "hook_event_name": "UserPromptSubmit", "prompt": "where is the ümlaut parser?"}
    proc = subprocess.run(["sh", "-c", command], input=json.dumps(payload).encode(), capture_output=True, cwd=tmp_path, timeout=30)
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    record = json.loads((root / ".paqad" / "context" / "last-prompt.json").read_text(encoding="utf-8"))
    assert record["prompt"] == "where is the ümlaut parser?" and record["host"] == "claude"


def test_cli_install_status_uninstall(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(tmp_path)
    assert main(["hooks", "install", "--host", "claude", "--host", "cursor", "--project-root", root]) == 0
    captured = capsys.readouterr()
    assert captured.err == "note: retrieval is off here (rag_enabled=false); the hook does nothing until `paqad-ai rag init`\n"
    assert captured.out.splitlines() == [
        "Claude Code: installed in .claude/settings.json",
        "Cursor: installed in .cursor/hooks.json (records the prompt and refreshes; this host's hook cannot add context)",
    ]
    assert main(["hooks", "install", "--host", "claude", "--project-root", root]) == 0
    assert capsys.readouterr().out == "Claude Code: already installed in .claude/settings.json\n"
    assert main(["hooks", "status", "--project-root", root]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Claude Code: installed (UserPromptSubmit in .claude/settings.json); command resolves",
        "Claude Code (personal settings): not installed (.claude/settings.local.json)",
        "Gemini CLI: not installed (.gemini/settings.json)",
        "OpenAI Codex: not installed (.codex/hooks.json)",
        "Cursor: installed (beforeSubmitPrompt in .cursor/hooks.json); command resolves; this host's hook "
        "cannot add context: it records the prompt and starts the refresh",
    ]
    assert main(["hooks", "status", "--json", "--project-root", root]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(r["host"], r["installed"], r["command_resolves"], r["adds_context"]) for r in report] == [
        ("claude", True, True, True), ("claude-local", False, False, True), ("gemini", False, False, True),
        ("codex", False, False, True), ("cursor", True, True, False),
    ]
    assert report[0]["commands"] == [hook_command(HOSTS["claude"], tmp_path)]
    assert main(["hooks", "uninstall", "--project-root", root]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Claude Code: removed from .claude/settings.json",
        "Claude Code (personal settings): not installed in .claude/settings.local.json",
        "Gemini CLI: not installed in .gemini/settings.json",
        "OpenAI Codex: not installed in .codex/hooks.json",
        "Cursor: removed from .cursor/hooks.json",
    ]
    assert [s.installed for s in all_statuses(tmp_path)] == [False, False, False, False, False]


def test_status_reports_a_command_that_no_longer_resolves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    install(HOSTS["gemini"], tmp_path, BUDGET_MS, program=["/gone/bin/paqad-ai"])
    st = status(HOSTS["gemini"], tmp_path)
    assert st.installed and not st.resolves
    assert main(["hooks", "status", "--project-root", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Gemini CLI: installed (BeforeAgent in .gemini/settings.json); command does NOT resolve" in out
    assert "problem: the hook's program does not exist any more; run `paqad-ai hooks install --host gemini` again" in out


def test_program_and_command_recognition(tmp_path: Path) -> None:
    program = paqad_program()
    assert Path(program[0]).is_absolute()
    assert program == [str(Path(sys.executable).parent / "paqad-ai")]  # the venv's own script
    assert command_resolves(shlex.join(program)) is True
    assert is_our_command("/usr/local/bin/paqad-ai hook prompt --host claude")
    assert is_our_command("'/home/me/my tools/paqad-ai' hook prompt --host codex --project-root '/x y'")
    assert is_our_command("/usr/bin/python3 -m paqad.cli.main hook prompt --host gemini")
    assert is_our_command("paqad-ai hook prompt --host cursor")
    assert not is_our_command("paqad-ai rag refresh-context")
    assert not is_our_command("echo paqad-ai hook")
    assert not is_our_command("/opt/other-tool hook prompt")
    assert not is_our_command(None)


def test_status_reports_a_gemini_hook_disabled_by_name(tmp_path: Path) -> None:
    install(HOSTS["gemini"], tmp_path, BUDGET_MS)
    settings = tmp_path / ".gemini" / "settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["hooks"]["disabled"] = ["paqad-ai-retrieval"]
    settings.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    st = status(HOSTS["gemini"], tmp_path)
    assert st.installed and st.resolves
    assert st.problem == (
        '"paqad-ai-retrieval" is listed in hooks.disabled of .gemini/settings.json; '
        "run `/hooks enable paqad-ai-retrieval` in Gemini CLI"
    )
