"""The real host CLIs, offline: after ``paqad-ai hooks install`` (and the host's own trust step,
in a temporary HOME), the model request for a prompt about the project holds the
``## Retrieved context`` section with the expected file -- and ``hooks status`` said beforehand
whether that would happen.

Claude Code, Codex, Gemini CLI and Copilot CLI come from npm (pinned in tests/hosts/package.json,
installed by ``npm ci --prefix tests/hosts``: .ci/run does it, and this module does it when the
CLIs are missing), each pointed at tests/fake_model.py on 127.0.0.1. The project is a small git
repository indexed with the real local model. Cursor has no CLI that runs here: its test runs
the command from .cursor/hooks.json the way Cursor documents and checks the file the rule
tells the agent to read.

The hook budget is 10 s in these projects: they check what reaches the model, not the hook's
speed (bench/ and tests/test_prompt_hook.py do that), and must not depend on what else the
2-core test machine is running next to a Node.js CLI.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO_ROOT, build_index
from fake_model import FakeModelServer

from paqad.cli.main import main
from paqad.hosts import HOSTS
from paqad.hosts.checks import report
from paqad.hosts.launcher import launcher_path
from paqad.hosts import warm
from paqad.hosts.prompt_hook import GEMINI_ESCAPE_NOTE
from paqad.project import ProjectPaths

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CLI_DIR = REPO_ROOT / "tests" / "hosts"
BIN = CLI_DIR / "node_modules" / ".bin"
PACKAGES = {"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex", "gemini": "@google/gemini-cli", "copilot": "@github/copilot"}
VENV_BIN = str(Path(sys.executable).parent)
PROMPT = "How are failed calls retried with exponential backoff in this project?"
EXPECTED = "src/shop/retry.py:L"
RUN_TIMEOUT = 180

FILES = {
    "pyproject.toml": '[project]\nname = "shop"\nversion = "1.0"\n',
    "src/shop/retry.py": (
        "import time\n\nMAX_RETRIES = 5\n\n\n"
        "def with_retries(fn, attempts=MAX_RETRIES, backoff=0.5):\n"
        '    """Call fn and retry it with exponential backoff when it raises TimeoutError."""\n'
        "    attempt = 0\n"
        "    while attempt < attempts:\n"
        "        try:\n"
        "            return fn()\n"
        "        except TimeoutError:\n"
        "            time.sleep(backoff * 2 ** attempt)\n"
        "            attempt += 1\n"
        '    raise TimeoutError("gave up after retries")\n'
    ),
    "src/shop/cart.py": (
        "class Cart:\n"
        '    """A shopping cart: items with quantities and a total price in cents."""\n\n'
        "    def __init__(self):\n"
        "        self.items = {}\n\n"
        "    def add(self, sku, quantity=1):\n"
        "        self.items[sku] = self.items.get(sku, 0) + quantity\n\n"
        "    def total(self, prices):\n"
        "        return sum(prices[sku] * n for sku, n in self.items.items())\n"
    ),
    "README.md": "# Shop\n\nA small web shop: carts, login and a retry helper for flaky payment calls.\n",
}


# --- the CLIs ------------------------------------------------------------------------------------


def _installed_versions() -> dict[str, str | None]:
    lock = json.loads((CLI_DIR / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    out = {}
    for host, package in PACKAGES.items():
        want = lock[f"node_modules/{package}"]["version"]
        manifest = CLI_DIR / "node_modules" / package / "package.json"
        have = json.loads(manifest.read_text(encoding="utf-8"))["version"] if manifest.exists() else None
        out[host] = want if have == want and (BIN / host).exists() else None
    return out


@pytest.fixture(scope="session")
def clis() -> dict[str, str]:
    """The pinned host CLIs under tests/hosts/node_modules (``npm ci`` when missing); host -> version."""
    required = os.environ.get("PAQAD_HOST_E2E") == "required"
    if not (shutil.which("node") and shutil.which("npm")):
        if required:
            pytest.fail("node/npm not found, but PAQAD_HOST_E2E=required (.ci/run): the host CLI tests must run")
        pytest.skip("node/npm not found: these tests run the real host CLIs, installed with `npm ci --prefix tests/hosts`")
    versions = _installed_versions()
    if not all(versions.values()):
        proc = subprocess.run(["npm", "ci", "--prefix", str(CLI_DIR), "--no-audit", "--no-fund"], capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, f"npm ci --prefix tests/hosts failed:\n{proc.stderr[-3000:]}"
        versions = _installed_versions()
    assert all(versions.values()), versions
    return versions  # type: ignore[return-value]


def _node_dir() -> str:
    return str(Path(shutil.which("node") or "/usr/bin/node").parent)


def base_env(home: Path, *, with_paqad: bool = True, **extra: str) -> dict[str, str]:
    """A clean environment (nothing from the caller's shell but the model store variables)."""
    path = ":".join(([VENV_BIN] if with_paqad else []) + [_node_dir(), "/usr/local/bin", "/usr/bin", "/bin"])
    env = {"PATH": path, "HOME": str(home), "TERM": "dumb", "LANG": "C.UTF-8", "NO_COLOR": "1", "HF_HUB_OFFLINE": "1",
           "PAQAD_HOME": os.environ["PAQAD_HOME"], "PAQAD_MODEL_MIRROR": os.environ["PAQAD_MODEL_MIRROR"],
           # Claude Code's MCP waits (ms): MCP_CONNECT_TIMEOUT_MS before the first turn (default 5 s: a
           # server still starting then is left out of it), MCP_TIMEOUT for the connection itself.
           # Roomy, as hooks status advises, for a loaded machine.
           "MCP_CONNECT_TIMEOUT_MS": "60000", "MCP_TIMEOUT": "60000"}
    return {**env, **extra}


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=RUN_TIMEOUT)


@pytest.fixture
def project(tmp_path: Path, paqad_home: Path):
    root = build_index(tmp_path / "shop", FILES, paqad_home)
    with open(root / ".paqad" / ".config", "a", encoding="utf-8") as handle:
        handle.write("rag_hook_budget_ms=10000\n")
    yield root
    warm.stop(ProjectPaths(root))  # the hosts' hooks started it (their environment is base_env's); it would idle 10 minutes


def home() -> Path:
    return Path(os.environ["HOME"])  # a fresh temp folder per test (conftest)


def paqad(*args: str, root: Path) -> None:
    assert main([*args, "--project-root", str(root)]) == 0


def will_run(host: str, root: Path) -> tuple[bool, list[str]]:
    r = report(HOSTS[host], root)
    return r.will_run, [f.code for f in r.blockers]


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# --- where each host puts the hook's context -----------------------------------------------------


def claude_context(server: FakeModelServer) -> list[str]:
    """Texts of the system messages Claude Code adds for the hook (2.1.x: after the user turn)."""
    found = []
    for r in server.posts():
        if r["path"].startswith("/v1/messages") and isinstance(r["body"], dict):
            for m in r["body"].get("messages") or []:
                text = _text(m.get("content"))
                if m.get("role") == "system" and "UserPromptSubmit hook additional context:" in text:
                    found.append(text)
    return found


def codex_context(server: FakeModelServer) -> list[str]:
    found = []
    for r in server.posts():
        if r["path"].endswith("/responses"):
            for item in r["body"].get("input") or []:
                if item.get("role") == "developer" and "## Retrieved context" in _text(item.get("content")):
                    found.append("".join(c.get("text", "") for c in item["content"]))
    return found


def gemini_context(server: FakeModelServer) -> list[str]:
    found = []
    for r in server.posts():
        if ":streamGenerateContent" in r["path"]:
            last = (r["body"].get("contents") or [{}])[-1]
            found += [p["text"] for p in last.get("parts") or [] if p.get("text", "").startswith("<hook_context>")]
    return found


def copilot_context(server: FakeModelServer) -> list[str]:
    found = []
    for r in server.posts():
        if r["path"].endswith("/chat/completions"):
            for m in r["body"].get("messages") or []:
                text = _text(m.get("content"))
                if m.get("role") == "user" and "<system_reminder>" in text and "## Retrieved context" in text:
                    found.append(text)
    return found


def logs_of(root: Path | None) -> str:
    """The project's paqad-ai logs (hook, refresh), last lines: why a context did not arrive."""
    if root is None:
        return ""
    tails = [f"--- {p.name}\n" + "\n".join(p.read_text(encoding="utf-8", errors="replace").splitlines()[-15:])
             for p in sorted((root / ".paqad" / "logs").glob("*.log"))]
    return "\n".join(tails) or "(no paqad-ai log)"


def assert_section(texts: list[str], host: str, root: Path | None = None) -> str:
    # Under load a miss must say why: the project's hook and refresh logs go with the failure.
    assert len(texts) >= 1, f"{host}: no request carried the hook's context\n{logs_of(root)}"
    text = texts[0]
    assert "## Retrieved context" in text and "Query: this prompt" in text and EXPECTED in text, text
    return text


def offered_tools(server: FakeModelServer) -> str:
    return " ".join(json.dumps(r["body"].get("tools") or [], ensure_ascii=False) for r in server.posts() if isinstance(r["body"], dict))


# --- Claude Code ---------------------------------------------------------------------------------


def claude(server: FakeModelServer, root: Path, *args: str, with_paqad: bool = True) -> subprocess.CompletedProcess[str]:
    env = base_env(home(), with_paqad=with_paqad, ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="sk-ant-fake",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1", DISABLE_TELEMETRY="1",
                   DISABLE_ERROR_REPORTING="1")
    return run([str(BIN / "claude"), "-p", PROMPT, *args], root, env)


def test_claude_code(clis: dict[str, str], project: Path) -> None:
    paqad("hooks", "install", "--host", "claude", root=project)
    assert will_run("claude", project) == (True, [])
    with FakeModelServer() as server:
        proc = claude(server, project)
        assert proc.returncode == 0, proc.stderr
        section = assert_section(claude_context(server), "claude", project)
    assert section.count("## Retrieved context") == 1

    # Both Claude files: the identical command runs once.
    paqad("hooks", "install", "--host", "claude-local", root=project)
    with FakeModelServer() as server:
        assert claude(server, project).returncode == 0
        [text] = claude_context(server)
        assert text.count("## Retrieved context") == 1

    # disableAllHooks in the user's settings: status says no, and no context arrives.
    (home() / ".claude").mkdir(exist_ok=True)
    (home() / ".claude" / "settings.json").write_text('{"disableAllHooks": true}\n', encoding="utf-8")
    assert will_run("claude", project) == (False, ["claude-hooks-disabled"])
    with FakeModelServer() as server:
        assert claude(server, project).returncode == 0
        assert claude_context(server) == [] and server.bodies_with(PROMPT)
    (home() / ".claude" / "settings.json").unlink()

    # paqad-ai missing (not on PATH, no launcher): the prompt goes through, exit 0, nothing added.
    launcher_path().unlink()
    with FakeModelServer() as server:
        proc = claude(server, project, with_paqad=False)
        assert proc.returncode == 0, proc.stderr
        assert claude_context(server) == [] and server.bodies_with(PROMPT)


# --- Codex ---------------------------------------------------------------------------------------


def codex_env(server: FakeModelServer) -> dict[str, str]:
    return base_env(home(), CODEX_HOME=str(home() / ".codex"), FAKE_API_KEY="sk-fake")


def codex_config(server: FakeModelServer, *, wait_for_mcp: bool = False) -> None:
    """The user's own settings: a model provider on the fake server (the trust lines come later).

    ``wait_for_mcp``: ``mcp_optional_startup_grace_ms = 0``, so that Codex waits for MCP servers
    before the first turn instead of leaving out those not started within about a second.
    """
    (home() / ".codex").mkdir(exist_ok=True)
    (home() / ".codex" / "config.toml").write_text(
        '# my Codex settings\nmodel = "gpt-fake"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n'
        + ("mcp_optional_startup_grace_ms = 0\n" if wait_for_mcp else "") + "\n"
        f'[model_providers.fake]\nname = "fake"\nbase_url = "{server.url}/v1"\nenv_key = "FAKE_API_KEY"\nwire_api = "responses"\n\n'
        "[analytics]\nenabled = false\n", encoding="utf-8")


def codex_hooks_list(root: Path, env: dict[str, str]) -> list[dict]:
    """Ask Codex itself (``codex app-server``, JSON-RPC ``hooks/list``) which hooks it sees here."""
    proc = subprocess.Popen([str(BIN / "codex"), "app-server"], cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin and proc.stdout
    try:
        for message in ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "paqad-tests", "version": "0"}}},
                        {"jsonrpc": "2.0", "method": "initialized"},
                        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(root)]}}):
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
        deadline = time.monotonic() + 60
        for line in proc.stdout:
            msg = json.loads(line) if line.startswith("{") else {}
            if msg.get("id") == 2:
                return [h for entry in msg["result"]["data"] for h in entry["hooks"]]
            assert time.monotonic() < deadline
        raise AssertionError("codex app-server closed its output")
    finally:
        proc.stdin.close()
        proc.kill()
        proc.wait()


def test_codex(clis: dict[str, str], project: Path) -> None:
    paqad("hooks", "install", "--host", "codex", "--mcp", root=project)
    with FakeModelServer() as server:
        codex_config(server, wait_for_mcp=True)  # a loaded machine starts the MCP server in over 1 s
        env = codex_env(server)
        exec_argv = [str(BIN / "codex"), "exec", PROMPT]

        # As installed: Codex skips it, and hooks status said so.
        assert will_run("codex", project) == (False, ["codex-project-not-trusted", "codex-hook-not-approved"])
        assert run(exec_argv, project, env).returncode == 0
        assert codex_context(server) == [] and server.bodies_with(PROMPT)
        assert codex_hooks_list(project, env) == []  # project layer not loaded

        # The user approves (our helper writes project trust + the hook's hash into ~/.codex/config.toml).
        paqad("hooks", "trust", "--host", "codex", "--yes", root=project)
        assert (home() / ".codex" / "config.toml").read_text(encoding="utf-8").startswith("# my Codex settings\n")
        assert will_run("codex", project) == (True, [])
        [seen] = [h for h in codex_hooks_list(project, env) if h["eventName"] in ("userPromptSubmit", "UserPromptSubmit", "user_prompt_submit")]
        ours = report(HOSTS["codex"], project)
        from paqad.hosts import codex as codex_mod
        from paqad.hosts.launcher import is_our_command

        [hook] = codex_mod.our_hooks(project / ".codex" / "hooks.json", json.loads((project / ".codex" / "hooks.json").read_text()),
                                     "UserPromptSubmit", is_our_command)
        assert (seen["trustStatus"], seen["currentHash"], seen["key"]) == ("trusted", hook.hash, hook.key) and ours.will_run
        server.clear()
        proc = run(exec_argv, project, env)
        assert proc.returncode == 0, proc.stderr
        assert_section(codex_context(server), "codex", project)
        assert "search_code" in offered_tools(server)  # the project's [mcp_servers.paqad] (trusted project)

        # A new budget changes the handler's timeout: the approval no longer matches, Codex skips it.
        with open(project / ".paqad" / ".config", "a", encoding="utf-8") as handle:
            handle.write("rag_hook_budget_ms=9000\n")
        paqad("hooks", "install", "--host", "codex", root=project)
        assert will_run("codex", project) == (False, ["codex-hook-modified"])
        [seen] = codex_hooks_list(project, env)
        assert seen["trustStatus"] == "modified"
        server.clear()
        assert run(exec_argv, project, env).returncode == 0
        assert codex_context(server) == []


# --- Gemini CLI ----------------------------------------------------------------------------------


GEMINI_USER = {"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": False},
               "telemetry": {"enabled": False}, "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False}}


def gemini_user_settings(extra: dict | None = None) -> Path:
    """The user's own settings: API-key auth (the base URL comes from the environment), no telemetry."""
    path = home() / ".gemini" / "settings.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({**GEMINI_USER, **(extra or {})}, indent=2) + "\n", encoding="utf-8")
    return path


def gemini(server: FakeModelServer, root: Path) -> subprocess.CompletedProcess[str]:
    env = base_env(home(), GEMINI_API_KEY="fake-key", GOOGLE_GEMINI_BASE_URL=server.url)
    return run([str(BIN / "gemini"), "-p", PROMPT], root, env)


def test_gemini_cli(clis: dict[str, str], project: Path) -> None:
    gemini_user_settings()
    # The team's project settings, with comments (Gemini CLI reads them): install keeps them.
    project_settings = project / ".gemini" / "settings.json"
    project_settings.parent.mkdir()
    project_settings.write_text('{\n  // team settings\n  "ui": {"hideBanner": true} /* quiet */\n}\n', encoding="utf-8")
    paqad("hooks", "install", "--host", "gemini", "--mcp", root=project)
    assert "// team settings" in project_settings.read_text(encoding="utf-8") and "/* quiet */" in project_settings.read_text(encoding="utf-8")

    # Untrusted folder: status says so, and gemini -p refuses to start (exit 55).
    assert will_run("gemini", project) == (False, ["gemini-folder-not-trusted"])
    with FakeModelServer() as server:
        assert gemini(server, project).returncode == 55
        assert server.posts() == []

    paqad("hooks", "trust", "--host", "gemini", "--yes", root=project)
    assert will_run("gemini", project) == (True, [])
    with FakeModelServer() as server:
        proc = gemini(server, project)
        assert proc.returncode == 0, proc.stderr
        text = assert_section(gemini_context(server), "gemini", project)
        # Gemini escapes < and >; our note (which has none) arrives as written and says how to read them.
        assert "attempt &lt; attempts" in text and "<" not in text.removeprefix("<hook_context>").removesuffix("</hook_context>")
        assert GEMINI_ESCAPE_NOTE in text
        assert "search_code" in offered_tools(server)  # mcpServers.paqad with "trust": true

    # Our hook's name in hooksConfig.disabled of the user's settings: status says so, nothing arrives.
    gemini_user_settings({"hooksConfig": {"disabled": ["paqad-ai-retrieval"]}})
    assert will_run("gemini", project) == (False, ["gemini-hook-disabled"])
    with FakeModelServer() as server:
        assert gemini(server, project).returncode == 0
        assert gemini_context(server) == [] and server.bodies_with(PROMPT)


# --- Copilot CLI ---------------------------------------------------------------------------------


def copilot(server: FakeModelServer, root: Path) -> subprocess.CompletedProcess[str]:
    cache = CLI_DIR / ".cache"  # the CLI unpacks a 235 MB bundle on first run: once per checkout
    env = base_env(home(), XDG_CACHE_HOME=str(cache), COPILOT_OFFLINE="true", COPILOT_AUTO_UPDATE="false",
                   COPILOT_PROVIDER_BASE_URL=f"{server.url}/v1", COPILOT_PROVIDER_API_KEY="sk-fake", COPILOT_MODEL="gpt-4.1")
    return run([str(BIN / "copilot"), "-p", PROMPT, "--allow-all-tools", "--disable-client-telemetry"], root, env)


def test_copilot_cli(clis: dict[str, str], project: Path) -> None:
    paqad("hooks", "install", "--host", "copilot", "--mcp", root=project)
    assert will_run("copilot", project) == (False, ["copilot-folder-not-trusted"])
    with FakeModelServer() as server:
        assert copilot(server, project).returncode == 0
        assert copilot_context(server) == [] and server.bodies_with(PROMPT)

    paqad("hooks", "trust", "--host", "copilot", "--yes", root=project)
    assert will_run("copilot", project) == (True, [])
    with FakeModelServer() as server:
        proc = copilot(server, project)
        assert proc.returncode == 0, proc.stderr
        assert_section(copilot_context(server), "copilot", project)
        assert "search_code" in offered_tools(server), logs_of(project)  # .github/mcp.json in a trusted folder


# --- Cursor (no CLI here): the files it reads ----------------------------------------------------


def test_cursor_hook_command_and_the_file_its_rule_points_at(project: Path) -> None:
    paqad("hooks", "install", "--host", "cursor", "--mcp", root=project)
    hooks = json.loads((project / ".cursor" / "hooks.json").read_text(encoding="utf-8"))
    [handler] = hooks["hooks"]["beforeSubmitPrompt"]
    payload = {"conversation_id": "c1", "generation_id": "g1", "hook_event_name": "beforeSubmitPrompt",
               "workspace_roots": [str(project)], "prompt": PROMPT, "attachments": []}
    proc = subprocess.run(["sh", "-c", handler["command"]], input=json.dumps(payload), capture_output=True, text=True,
                          cwd=project, env=base_env(home()), timeout=60)
    assert (proc.returncode, json.loads(proc.stdout), proc.stderr) == (0, {"continue": True}, "")
    rule = (project / ".cursor" / "rules" / "paqad-ai.mdc").read_text(encoding="utf-8")
    assert "alwaysApply: true" in rule and ".paqad/context/session-context.md" in rule
    session = project / ".paqad" / "context" / "session-context.md"
    deadline = time.monotonic() + 60
    # The hook started the refresh in the background; on a busy machine a refresh for the files
    # hooks install changed may write its section first, so wait for the prompt's own.
    while time.monotonic() < deadline and not (session.exists() and "Query: last prompt" in session.read_text(encoding="utf-8")):
        time.sleep(0.2)
    text = session.read_text(encoding="utf-8")
    assert "## Retrieved context" in text and "Query: last prompt" in text and EXPECTED in text


# --- the MCP server, called by each host's agent loop ----------------------------------------------


def tool_results(server: FakeModelServer) -> list[str]:
    """What each host sent back to the model as the result of a tool call, per wire format."""
    found = []
    for r in server.posts():
        body = r["body"] if isinstance(r["body"], dict) else {}
        for m in body.get("messages") or []:  # Anthropic tool_result blocks; Chat role "tool"
            if isinstance(m.get("content"), list):
                found += [_text(c.get("content")) for c in m["content"] if isinstance(c, dict) and c.get("type") == "tool_result"]
            if m.get("role") == "tool":
                found.append(_text(m.get("content")))
        found += [_text(i.get("output")) for i in body.get("input") or [] if isinstance(i, dict) and i.get("type") == "function_call_output"]
        for content in body.get("contents") or []:  # Gemini functionResponse parts
            found += [_text(p["functionResponse"]) for p in content.get("parts") or [] if "functionResponse" in p]
    return found


@pytest.mark.parametrize("host", ["claude", "codex", "gemini", "copilot"])
def test_the_mcp_answer_reaches_the_model_as_compact_markdown(host: str, clis: dict[str, str], project: Path) -> None:
    paqad("hooks", "install", "--host", host, "--mcp", root=project)
    call = ("search_code", {"query": "retry with exponential backoff", "top_k": 2})  # any offered tool named *search_code
    with FakeModelServer(tool_call=call) as server:
        if host == "claude":
            proc = claude(server, project, "--allowedTools", "mcp__paqad__search_code")  # waits for the server (base_env)
        elif host == "codex":
            codex_config(server, wait_for_mcp=True)
            paqad("hooks", "trust", "--host", "codex", "--yes", root=project)
            proc = run([str(BIN / "codex"), "exec", PROMPT], project, codex_env(server))
        elif host == "gemini":
            gemini_user_settings()
            paqad("hooks", "trust", "--host", "gemini", "--yes", root=project)
            proc = gemini(server, project)
        else:
            paqad("hooks", "trust", "--host", "copilot", "--yes", root=project)
            proc = copilot(server, project)
        assert proc.returncode == 0, proc.stderr
        results = tool_results(server)
    assert results, f"{host} sent no tool result back"
    text = results[-1]
    # Markdown (not a JSON dump of the structured content): location, symbol, the score named, the code.
    assert "2 results for 'retry with exponential backoff'." in text, text
    # The cosine, named as such, until the calibration fills SearchResult.confidence (then "match N%").
    assert re.search(r"### src/shop/retry\.py:L1-15 · with_retries · (match \d+%|cosine 0\.\d\d \(similarity, not a calibrated confidence\))", text), text
    assert "def with_retries(fn, attempts=MAX_RETRIES, backoff=0.5):" in text and '\\"path\\"' not in text and '"path":' not in text


def test_claude_code_waits_for_a_slow_mcp_server_before_the_first_turn(clis: dict[str, str], project: Path) -> None:
    """The entry ``hooks install --mcp`` writes makes ``claude -p`` wait for the server: one that
    takes 6 s to start (more than a busy machine gives paqad-ai mcp) still has its tools in the
    first request. Without ``"alwaysLoad": true`` Claude Code 2.1.197 sends the turn at once."""
    paqad("hooks", "install", "--host", "claude", "--mcp", root=project)
    config = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    entry = config["mcpServers"]["paqad"]
    assert entry["alwaysLoad"] is True and entry["command"] == "sh"
    entry["args"] = ["-c", "sleep 6; " + entry["args"][-1]]
    (project / ".mcp.json").write_text(json.dumps(config), encoding="utf-8")
    call = ("search_code", {"query": "retry with exponential backoff", "top_k": 2})
    with FakeModelServer(tool_call=call) as server:
        proc = claude(server, project, "--allowedTools", "mcp__paqad__search_code")
        assert proc.returncode == 0, proc.stderr
        first = next(r for r in server.posts() if r["path"].startswith("/v1/messages") and PROMPT in json.dumps(r["body"]))
        assert "search_code" in json.dumps(first["body"].get("tools") or [])
        assert "2 results for 'retry with exponential backoff'." in tool_results(server)[-1]
