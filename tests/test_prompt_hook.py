"""``paqad-ai hook prompt``: each host's documented input in, that host's documented output out,
always exit 0 within ``rag_hook_budget_ms`` -- with a warm index and in every failure case."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ANSWER_BUDGET_MS, SHOP_FILES, SHOP_PROMPT, build_index, write_files

from paqad.config import load_settings
from paqad.hosts import HOSTS
from paqad.hosts.prompt_hook import parse_hook_input, read_stdin, render_output, run_prompt_hook
from paqad.project import ProjectPaths

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")
BUDGET_S = 1.5  # the default rag_hook_budget_ms
# A hook run that blocks (on a lock, a FIFO, a model fetch) would run into the host's own timeout;
# these tests assert it returns, not how fast: on a saturated CI machine the interpreter's start
# alone can exceed the budget. Latency against the budget is measured by bench/hook_latency.py.
HANG_S = 20.0
PROMPT = SHOP_PROMPT
FILES = SHOP_FILES


def payload(host: str, root: Path, prompt: str = PROMPT, cwd: Path | None = None) -> dict:
    """Each host's documented hook input (see paqad.hosts.HOSTS for the doc URLs)."""
    where = str(cwd or root)
    if host in ("claude", "claude-local"):  # the same program, hooked from another settings file
        return {"session_id": "abc123", "transcript_path": "/home/u/.claude/projects/x/abc123.jsonl", "cwd": where,
                "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    if host == "gemini":
        return {"session_id": "s-42", "transcript_path": "/home/u/.gemini/tmp/chats/s-42.json", "cwd": where,
                "hook_event_name": "BeforeAgent", "timestamp": "2026-11-30T10:30:00Z", "prompt": prompt}
    if host == "codex":
        return {"session_id": "019d036d", "turn_id": "019d036d-c7fa", "transcript_path": None, "cwd": where,
                "hook_event_name": "UserPromptSubmit", "model": "gpt-5-codex", "permission_mode": "default", "prompt": prompt}
    if host == "copilot":  # Copilot CLI 1.0.102, event userPromptSubmitted (camelCase fields)
        return {"sessionId": "a2141d32", "timestamp": 1796118340901, "cwd": where, "prompt": prompt}
    if host == "cursor":
        return {"conversation_id": "conv-123", "generation_id": "gen-456", "model": "gpt-5", "hook_event_name": "beforeSubmitPrompt",
                "cursor_version": "1.7.0", "workspace_roots": [where], "user_email": None, "prompt": prompt, "attachments": []}
    raise AssertionError(host)


def _hook_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")}
    return dict(env, PAQAD_RAG_HOOK_BUDGET_MS=ANSWER_BUDGET_MS)  # the answer is tested, not the speed


def run_hook(host: str, stdin: bytes, *, root: Path | None = None, env: dict | None = None) -> tuple[subprocess.CompletedProcess, float]:
    argv = [PAQAD_AI, "hook", "prompt", "--host", host]
    if root is not None:
        argv += ["--project-root", str(root)]
    if env is None:
        env = _hook_env()
    started = time.monotonic()
    proc = subprocess.run(argv, input=stdin, capture_output=True, timeout=60, env=env, cwd="/")
    return proc, time.monotonic() - started


def nothing_for(host: str) -> bytes:
    return {"claude": b"", "claude-local": b"", "codex": b"", "copilot": b"", "gemini": b"{}\n", "cursor": b'{"continue": true}\n'}[host]


def hook_log(paths: ProjectPaths) -> str:
    log = paths.logs_dir / "hook.log"
    return log.read_text(encoding="utf-8") if log.exists() else ""


def wait_for_refresh(paths: ProjectPaths, since: float, timeout: float = 90.0) -> dict:
    """Wait until the detached ``rag refresh-context`` the hook started has finished."""
    end = time.monotonic() + timeout
    record_file = paths.state_dir / "last-refresh.json"
    while time.monotonic() < end:
        try:
            record = json.loads(record_file.read_text(encoding="utf-8"))
            if record["at"] >= since:
                return record
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    raise AssertionError("the hook did not start a refresh that finished")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, paqad_home: Path) -> Path:
    """A small git project with retrieval on and a warm index (built once for this module)."""
    return build_index(tmp_path_factory.mktemp("hook") / "shop project ü", FILES, paqad_home)


@pytest.fixture
def expected_section(indexed: Path) -> str:
    paths = ProjectPaths(indexed)
    from paqad.deliver.answer import section_for_prompt

    section = section_for_prompt(paths, load_settings(paths), PROMPT, math.inf)
    assert section is not None and "src/shop/retry.py:L" in section
    return section


# --- the documented formats, in-process --------------------------------------------------------


def test_parse_each_hosts_documented_input(tmp_path: Path) -> None:
    for host in HOSTS:
        parsed = parse_hook_input(json.dumps(payload(host, tmp_path)).encode())
        assert (parsed.prompt, parsed.start_dir, parsed.malformed) == (PROMPT, tmp_path, False)
    assert parse_hook_input(json.dumps(payload("claude", tmp_path))).session_id == "abc123"
    assert parse_hook_input(json.dumps(payload("cursor", tmp_path))).session_id == "conv-123"
    assert parse_hook_input(json.dumps(payload("copilot", tmp_path))).session_id == "a2141d32"


@pytest.mark.parametrize("raw", [b"", b"not json{", b"[1, 2]", b"\xff\xfe\x00", b'"just a string"', b"{" * 5000])
def test_parse_tolerates_malformed_input(raw: bytes) -> None:
    parsed = parse_hook_input(raw)
    assert (parsed.prompt, parsed.start_dir, parsed.malformed) == (None, None, True)


def test_a_payload_already_in_the_pipe_is_read_past_the_stdin_deadline() -> None:
    # On a loaded CPU (load 30 on 2 cores) the interpreter's start used up the stdin share of the
    # budget, and a host's complete payload was dropped as "stdin is not a JSON object".
    payload = b'{"session_id": "s", "prompt": "where is the help flag parsed"}'
    read_end, write_end = os.pipe()
    os.write(write_end, payload)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as stream:
        assert read_stdin(time.monotonic() - 5.0, stream) == payload


def test_parse_ignores_fields_of_the_wrong_type() -> None:
    parsed = parse_hook_input(b'{"prompt": 42, "cwd": ["x"], "workspace_roots": "nope"}')
    assert (parsed.prompt, parsed.start_dir, parsed.malformed) == (None, None, False)


def test_gemini_gets_a_line_on_how_to_read_its_escaped_angle_brackets() -> None:
    section = "## Retrieved context\n\n```python\nif a < b and c > d:\n```\n"
    context = json.loads(render_output(HOSTS["gemini"], section))["hookSpecificOutput"]["additionalContext"]
    assert context.startswith(section.rstrip("\n")) and "&lt; and &gt;" in context
    note = context[len(section):]
    assert "<" not in note and ">" not in note  # survives Gemini's escaping as written
    plain = "## Retrieved context\n\nno angle brackets here\n"
    assert json.loads(render_output(HOSTS["gemini"], plain))["hookSpecificOutput"]["additionalContext"] == plain
    # No escaping in the other hosts: the section as it is.
    for name in ("claude", "codex"):
        assert json.loads(render_output(HOSTS[name], section))["hookSpecificOutput"]["additionalContext"] == section
    assert json.loads(render_output(HOSTS["copilot"], section))["additionalContext"] == section


def test_render_each_hosts_documented_output() -> None:
    section = "## Retrieved context\n\nQuery: this prompt\n"
    for name in ("claude", "codex"):
        out = json.loads(render_output(HOSTS[name], section))
        assert out == {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": section}}
        assert render_output(HOSTS[name], None) == ""
    assert json.loads(render_output(HOSTS["gemini"], section)) == {
        "hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": section}
    }
    assert render_output(HOSTS["gemini"], None) == "{}"  # Gemini: stdout must always be JSON
    # Copilot CLI reads a top-level additionalContext (its Claude-shaped output adds nothing).
    assert json.loads(render_output(HOSTS["copilot"], section)) == {"additionalContext": section}
    assert render_output(HOSTS["copilot"], None) == ""
    assert json.loads(render_output(HOSTS["cursor"], section)) == {"continue": True}  # cannot add context
    assert json.loads(render_output(HOSTS["cursor"], None)) == {"continue": True}


# --- end to end, as the host runs it -----------------------------------------------------------


@pytest.mark.parametrize("host", ["claude", "gemini", "codex", "copilot"])
def test_answers_this_prompt_within_budget(host: str, indexed: Path, expected_section: str) -> None:
    paths = ProjectPaths(indexed)
    since = time.time()
    # Claude Code: no --project-root, the project is found from the payload's cwd (a subfolder).
    root_arg = None if host == "claude" else indexed
    data = payload(host, indexed, cwd=indexed / "src" / "shop")
    # A 5 s budget: this test checks the answer, not the speed, and must not depend on what
    # else the (shared, 2-core) test machine is doing; bench/hook_latency.py measures speed.
    env = _hook_env()
    proc, elapsed = run_hook(host, json.dumps(data).encode(), root=root_arg, env=env)
    assert proc.returncode == 0, proc.stderr
    assert elapsed < HANG_S, f"{elapsed:.2f}s"
    assert proc.stderr == b""
    out = json.loads(proc.stdout)
    if host == "copilot":
        assert out == {"additionalContext": expected_section}
    else:
        assert out == {"hookSpecificOutput": {"hookEventName": HOSTS[host].event, "additionalContext": expected_section}}
    record = json.loads(paths.last_prompt.read_text(encoding="utf-8"))
    assert (record["prompt"], record["host"]) == (PROMPT, host)
    wait_for_refresh(paths, since)
    assert "## Retrieved context" in paths.session_context.read_text(encoding="utf-8")


def test_cursor_records_the_prompt_and_refreshes(indexed: Path) -> None:
    paths = ProjectPaths(indexed)
    since = time.time()
    prompt = "where is the cart total computed?"
    proc, elapsed = run_hook("cursor", json.dumps(payload("cursor", indexed, prompt)).encode())
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b'{"continue": true}\n', b"")
    assert elapsed < HANG_S
    assert json.loads(paths.last_prompt.read_text(encoding="utf-8"))["prompt"] == prompt
    record = wait_for_refresh(paths, since)
    assert "query from prompt" in record["summary"]
    assert "src/shop/cart.py:L" in paths.session_context.read_text(encoding="utf-8")


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_retrieval_off_exits_quickly_with_nothing(host: str, tmp_path: Path) -> None:
    write_files(tmp_path, FILES)
    proc, elapsed = run_hook(host, json.dumps(payload(host, tmp_path)).encode())
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, nothing_for(host), b"")
    assert elapsed < HANG_S
    assert not (tmp_path / ".paqad").exists()  # nothing recorded, nothing logged


@pytest.mark.parametrize("stdin", [b"not json{", b"", b"[]"])
@pytest.mark.parametrize("host", ["claude", "gemini"])
def test_malformed_stdin(host: str, stdin: bytes, indexed: Path) -> None:
    paths = ProjectPaths(indexed)
    before = paths.last_prompt.read_bytes() if paths.last_prompt.exists() else None
    since = time.time()
    proc, elapsed = run_hook(host, stdin, root=indexed)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, nothing_for(host), b"")
    assert elapsed < HANG_S
    assert (paths.last_prompt.read_bytes() if paths.last_prompt.exists() else None) == before
    if stdin:
        assert "stdin is not a JSON object; prompt not recorded" in hook_log(paths)
    else:  # it was "not a JSON object" too: a writer slower than the hook reads as nothing, and says so
        assert ("nothing on stdin within 0.75 s of the hook's start (the host writes its JSON payload there); "
                "prompt not recorded") in hook_log(paths)
    wait_for_refresh(paths, since)  # still refreshed: changed files are a query too


def test_a_payload_over_the_stdin_cap_is_logged_as_that(indexed: Path) -> None:
    # round 11: 30 MB on stdin (only the first 4 MiB read) was logged "stdin is not a JSON object"
    from paqad.hosts.prompt_hook import MAX_STDIN_BYTES

    huge = json.dumps({"prompt": "where is the cache", "cwd": str(indexed), "pad": "y" * (5 * 1024 * 1024)}).encode()
    assert parse_hook_input(huge[:MAX_STDIN_BYTES]).cut and not parse_hook_input(b"not json{").cut
    paths = ProjectPaths(indexed)
    proc, elapsed = run_hook("claude", huge, root=indexed)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, nothing_for("claude"), b"")
    assert ("stdin holds 4 MiB or more, more than a prompt payload; only that much was read; prompt not recorded"
            in hook_log(paths))


def test_a_prompt_with_a_lone_surrogate_gets_its_section_and_is_recorded(indexed: Path) -> None:
    # Valid JSON (`\ud83d`, half an emoji): recording the prompt raised UnicodeEncodeError and the
    # search never answered ("search did not finish"), so the prompt got nothing.
    paths = ProjectPaths(indexed)
    raw = json.dumps({"session_id": "s", "cwd": str(indexed), "prompt": "\ud83d " + PROMPT}).encode()
    assert b"\\ud83d" in raw
    env = _hook_env()
    proc, _ = run_hook("claude", raw, root=indexed, env=env)
    assert (proc.returncode, proc.stderr) == (0, b"")
    section = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "### src/shop/retry.py:L" in section
    assert json.loads(paths.last_prompt.read_text(encoding="utf-8"))["prompt"] == "\ufffd " + PROMPT
    assert "UnicodeEncodeError" not in hook_log(paths)


@pytest.mark.parametrize("host", ["claude", "cursor"])
def test_no_index(host: str, tmp_path: Path) -> None:
    write_files(tmp_path, {**FILES, ".paqad/.config": "rag_enabled=true\n"})
    proc, elapsed = run_hook(host, json.dumps(payload(host, tmp_path)).encode(), root=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, nothing_for(host), b"")
    assert elapsed < HANG_S
    record = json.loads((tmp_path / ".paqad/context/last-prompt.json").read_text(encoding="utf-8"))
    assert record["prompt"] == PROMPT
    outcome = run_prompt_hook(HOSTS["claude"], json.dumps(payload("claude", tmp_path)), project_root=tmp_path, spawn=False)
    assert (outcome.stdout, outcome.delivered, outcome.note) == ("", False, "no index")


def test_corrupt_index_is_logged_without_the_prompt(tmp_path: Path) -> None:
    secret_prompt = "fix login, my password is hunter2-do-not-log"
    write_files(tmp_path, {**FILES, ".paqad/.config": "rag_enabled=true\n", ".paqad/vectors/index.sqlite": b"\x00garbage" * 100})
    since = time.time()
    proc, elapsed = run_hook("gemini", json.dumps(payload("gemini", tmp_path, secret_prompt)).encode(), root=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"{}\n", b"")
    assert elapsed < HANG_S
    log = hook_log(ProjectPaths(tmp_path))
    assert "host=gemini search failed: IndexCorruptError" in log and "index is unreadable" in log
    assert "hunter2" not in log
    wait_for_refresh(ProjectPaths(tmp_path), since)


def test_missing_model(indexed: Path, tmp_path: Path) -> None:
    paths = ProjectPaths(indexed)
    env = {k: v for k, v in _hook_env().items() if k != "PAQAD_MODEL_MIRROR"}
    env["PAQAD_HOME"] = str(tmp_path / "empty-home")  # no model in the store, no mirror, offline
    since = time.time()
    proc, elapsed = run_hook("codex", json.dumps(payload("codex", indexed)).encode(), root=indexed, env=env)
    assert proc.returncode == 0 and proc.stderr == b""
    assert elapsed < HANG_S
    # The model is needed for the dense half; without it the hook answers with nothing new
    # (or, if search degrades to keywords, with a section) -- never with an error.
    assert proc.stdout == b"" or json.loads(proc.stdout)["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    if proc.stdout == b"":
        assert "search failed" in hook_log(paths)
    wait_for_refresh(paths, since)


def test_budget_too_small_answers_nothing_in_time(indexed: Path) -> None:
    paths = ProjectPaths(indexed)
    env = dict(os.environ, PAQAD_RAG_HOOK_BUDGET_MS="50")
    since = time.time()
    proc, elapsed = run_hook("claude", json.dumps(payload("claude", indexed)).encode(), root=indexed, env=env)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    # Interpreter start-up and imports alone take more than 50 ms, so the hook answers as soon
    # as it can: no search wait (the in-process test below times the abandonment exactly).
    assert elapsed < HANG_S, f"{elapsed:.2f}s"
    wait_for_refresh(paths, since)


def test_search_still_running_at_the_deadline_is_abandoned(tmp_path: Path) -> None:
    """In-process, deterministic: the index is a FIFO, so opening it blocks like a hung network
    filesystem would. The hook must answer at the deadline and leave the thread behind (the
    CLI then ends the process with os._exit)."""
    write_files(tmp_path, {**FILES, ".paqad/.config": "rag_enabled=true\n"})
    paths = ProjectPaths(tmp_path)
    paths.vectors_dir.mkdir()
    os.mkfifo(paths.index_db)
    started = time.monotonic() - BUDGET_S + 0.4  # 0.4 s of the budget left, 0.05 s of it for output
    outcome = run_prompt_hook(HOSTS["claude"], json.dumps(payload("claude", tmp_path)), project_root=tmp_path, started=started, spawn=False)
    took = time.monotonic() - started - (BUDGET_S - 0.4)
    try:
        assert (outcome.stdout, outcome.delivered, outcome.note) == ("", False, "timeout")
        assert outcome.worker is not None and outcome.worker.is_alive()
        assert 0.3 <= took < 1.5, f"{took:.2f}s"  # the FIFO blocks forever: any bound shows the deadline
        assert "host=claude search did not finish within rag_hook_budget_ms=1500" in hook_log(paths)
        assert json.loads(paths.last_prompt.read_text(encoding="utf-8"))["prompt"] == PROMPT
    finally:
        # Unblock the thread: a writer that opens and closes the FIFO gives its reader EOF.
        end = time.monotonic() + 10
        while outcome.worker is not None and outcome.worker.is_alive() and time.monotonic() < end:
            try:
                os.close(os.open(paths.index_db, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
            outcome.worker.join(0.05)
    assert outcome.worker is not None and not outcome.worker.is_alive()


def test_project_dir_variable_wins_over_payload_cwd(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write_files(project, {**FILES, ".paqad/.config": "rag_enabled=true\n"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, GEMINI_PROJECT_DIR=str(project))
    proc, _ = run_hook("gemini", json.dumps(payload("gemini", elsewhere)).encode(), env=env)
    assert (proc.returncode, proc.stdout) == (0, b"{}\n")
    assert json.loads((project / ".paqad/context/last-prompt.json").read_text(encoding="utf-8"))["host"] == "gemini"
    assert not (elsewhere / ".paqad").exists()


# --- answering under load (issue 13): keyword evidence first --------------------------------------


def test_a_dense_side_that_misses_the_deadline_leaves_a_keyword_answer(indexed: Path) -> None:
    """Deterministic stand-in for a saturated CPU: the deadline has passed when the dense side
    would be waited for, so the answer is the keyword one, for this prompt, saying so."""
    from paqad.deliver.answer import section_for_prompt
    from paqad.search import search
    from paqad.search.degraded import Degraded, DegradedReason
    from paqad.search.dense import LATE

    paths = ProjectPaths(indexed)
    settings = load_settings(paths)
    response = search(paths, settings, PROMPT, embedder=None, degraded=None, deadline=time.monotonic())
    assert response.results and not any(r.semantic for r in response.results)
    # Code branches on the reason, people read the words (issue 18).
    assert response.degraded == Degraded(DegradedReason.NO_MODEL)
    assert response.degraded.words == "semantic search unavailable (no embedding model loaded); keyword search only"
    from paqad.embed.factory import get_embedder

    late = search(paths, settings, PROMPT, embedder=get_embedder(settings, paths), deadline=time.monotonic())
    assert late.degraded == Degraded(DegradedReason.LATE)
    assert late.degraded.words == f"{LATE}; keyword search only" and late.results[0].path == "src/shop/retry.py" and not late.results[0].semantic
    section = section_for_prompt(paths, settings, PROMPT, time.monotonic())
    assert section.startswith(
        '## Retrieved context\n\nQuery: this prompt "how are failed calls retried with exponential backoff?"\n'
        "Search degraded: semantic search did not finish within the hook's budget; keyword search only.\n"
        "Not rated: the best keyword match follows, without a match % (the semantic side that rates passages "
        "was not ready in time); it may be unrelated.\n")
    # issue 19: the keyword-only fit rated it 88 %, which the full search need not agree with
    assert "### src/shop/retry.py:L1-13 · with_retries · keyword match, not rated\n" in section


def test_the_keyword_answer_is_sent_when_the_hybrid_one_is_late(indexed: Path) -> None:
    """In process, with 0.2 s of budget left: whatever the dense side does, the hook answers in
    time with a section for this prompt (keyword-first)."""
    started = time.monotonic() - BUDGET_S + 0.2
    outcome = run_prompt_hook(HOSTS["claude"], json.dumps(payload("claude", indexed)), project_root=indexed,
                              started=started, spawn=False)
    took = time.monotonic() - started - (BUDGET_S - 0.2)
    assert took < 1.0, f"{took:.2f}s"  # loose for a busy machine; the dense side alone takes longer cold
    assert outcome.delivered and outcome.source == "process"
    section = json.loads(outcome.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "src/shop/retry.py:L" in section


def test_the_console_script_sends_other_hook_arguments_to_click(tmp_path: Path) -> None:
    proc = subprocess.run([PAQAD_AI, "hook", "prompt", "--help"], capture_output=True, timeout=60)
    assert proc.returncode == 0 and b"Usage: paqad-ai hook prompt" in proc.stdout


def test_the_hook_exits_0_with_a_bad_or_missing_host_and_logs_why(tmp_path: Path) -> None:
    """README: the hook always exits 0 (issue 20, item 12); the problem is in .paqad/logs/hook.log."""
    (tmp_path / ".paqad").mkdir()
    for args, why in ((["--host", "nosuchhost"], "--host 'nosuchhost' is not supported"),
                      ([], "--host is missing"), (["--host", "claude", "--bogus"], "unknown arguments")):
        proc = subprocess.run([PAQAD_AI, "hook", "prompt", *args], capture_output=True, timeout=60, cwd=tmp_path,
                              input=b'{"prompt": "where is auth?"}')
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
        assert why in hook_log(ProjectPaths(tmp_path))


def pasted_log(size: int) -> str:
    """A question, then ``size`` characters of a pasted build log with one traceback frame in it."""
    lines, n = [], 0
    while n < size:
        line = f"2026-11-30T10:{n % 60:02d}:00 worker-{n % 97} INFO step {n} cache key k{n * 7919 % 100003} hit ratio 0.{n % 10}"
        lines.append(line)
        n += len(line) + 1
        if len(lines) == 2000:
            lines += ["Traceback (most recent call last):",
                      '  File "src/shop/retry.py", line 12, in with_retries',
                      'TimeoutError: gave up after retries']
    return "why does with_retries give up? log below\n" + "\n".join(lines)


@pytest.mark.parametrize("size", [241_000, 726_000])
def test_a_large_pasted_prompt_gets_a_section_within_budget(indexed: Path, size: int) -> None:
    """issue 20 item 1: a pasted log of any size gets matches within the budget (DESIGN §10), not 0 bytes."""
    data = json.dumps(payload("claude", indexed, prompt=pasted_log(size))).encode()
    # Before the fix the 726 KB prompt got 0 bytes at the default 1.5 s budget; 5 s here so the
    # test does not depend on the shared machine's load (the cut makes the work size-independent).
    proc, elapsed = run_hook("claude", data, root=indexed, env=_hook_env())
    assert proc.returncode == 0
    section = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "src/shop/retry.py:L" in section


def test_a_pasted_log_is_cut_to_its_question_and_telling_lines() -> None:
    from paqad.deliver.query import MAX_PROMPT_CHARS, bounded_prompt

    text = pasted_log(726_000)
    kept = bounded_prompt(text)
    assert len(kept) <= MAX_PROMPT_CHARS + 2
    assert kept.startswith("why does with_retries give up? log below\n")
    assert 'File "src/shop/retry.py", line 12, in with_retries\nTimeoutError: gave up after retries' in kept
    assert kept.endswith(text[-1000:])
    assert bounded_prompt(PROMPT) == PROMPT


def test_a_dense_side_never_started_is_not_called_late(indexed: Path) -> None:
    """issue 20 item 10: when the hook does not start the dense side (the model would not load in
    the budget left), the section says so, not that semantic search "did not finish"."""
    from paqad.deliver.answer import NOT_STARTED, section_for_prompt

    paths = ProjectPaths(indexed)
    shown: list[str] = []
    now = time.monotonic()
    # 10 s since the process started, 1 s left: 3x the time taken does not fit, dense is skipped.
    section = section_for_prompt(paths, load_settings(paths), PROMPT, now + 1.0, started=now - 10.0,
                                 keyword_first=shown.append)
    assert section == shown[0]
    assert f"Search degraded: {NOT_STARTED}; keyword search only.\n" in section
    assert "did not finish" not in section
