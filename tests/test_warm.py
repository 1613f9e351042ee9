"""The warm per-project process (issue 13): started on demand by the hook, answers later prompts
with the same section the hook would compute, private socket, stops when asked or idle."""

from __future__ import annotations

import json
import math
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ANSWER_BUDGET_MS, build_index, wait_for_warm

from paqad.config import load_settings
from paqad.deliver.answer import section_for_prompt
from paqad.hosts import HOSTS, warm
from paqad.hosts.prompt_hook import run_prompt_hook
from paqad.project import ProjectPaths

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")
PROMPT = "how are failed payment calls retried with backoff?"
FILES = {
    "pyproject.toml": '[project]\nname = "shop"\nversion = "1.0"\n',
    "src/shop/retry.py": (
        "import time\n\n\ndef with_retries(fn, attempts=5, backoff=0.5):\n"
        '    """Call fn and retry it with exponential backoff when the payment gateway times out."""\n'
        "    for attempt in range(attempts):\n        try:\n            return fn()\n"
        "        except TimeoutError:\n            time.sleep(backoff * 2 ** attempt)\n"
        '    raise TimeoutError("gave up after retries")\n'
    ),
    "src/shop/cart.py": (
        "class Cart:\n"
        '    """A shopping cart: items with quantities and a total price in cents."""\n\n'
        "    def __init__(self):\n        self.items = {}\n\n"
        "    def total(self, prices):\n        return sum(prices[sku] * n for sku, n in self.items.items())\n"
    ),
}


@pytest.fixture
def project(tmp_path: Path, paqad_home: Path, monkeypatch):
    root = build_index(tmp_path / "shop", FILES, paqad_home)
    monkeypatch.setenv("PAQAD_RAG_WARM_PROCESS", "true")
    paths = ProjectPaths(root)
    yield paths
    warm.stop(paths)


def _wait_for_socket(paths: ProjectPaths, timeout: float = 60.0) -> None:
    wait_for_warm(paths, timeout)


def _hook(paths: ProjectPaths) -> tuple[subprocess.CompletedProcess, float]:
    payload = {"session_id": "s", "cwd": str(paths.root), "hook_event_name": "UserPromptSubmit", "prompt": PROMPT}
    started = time.monotonic()
    proc = subprocess.run([PAQAD_AI, "hook", "prompt", "--host", "claude", "--project-root", str(paths.root)],
                          input=json.dumps(payload).encode(), capture_output=True, timeout=60,
                          env=dict(os.environ, PAQAD_RAG_HOOK_BUDGET_MS=ANSWER_BUDGET_MS))
    return proc, time.monotonic() - started


def test_the_first_prompt_starts_it_and_later_prompts_get_the_same_section(project: ProjectPaths):
    expected = section_for_prompt(project, load_settings(project), PROMPT, math.inf)
    assert expected and "src/shop/retry.py:L" in expected
    proc, _ = _hook(project)  # answered in its own process; starts the warm process for the next
    assert proc.returncode == 0 and json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] == expected
    _wait_for_socket(project)
    mode = stat.S_IMODE(os.stat(warm.socket_path(project)).st_mode)
    assert mode == 0o600
    outcome = run_prompt_hook(HOSTS["claude"], json.dumps({"prompt": PROMPT, "cwd": str(project.root)}),
                              project_root=project.root, spawn=False, started=time.monotonic())
    assert (outcome.source, outcome.delivered) == ("warm", True)
    assert json.loads(outcome.stdout)["hookSpecificOutput"]["additionalContext"] == expected
    proc, _ = _hook(project)
    assert proc.returncode == 0 and json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] == expected


def test_it_stops_when_asked_or_idle_and_the_hook_falls_back(project: ProjectPaths):
    server = subprocess.Popen([sys.executable, "-m", "paqad.hosts.warm", "--project-root", str(project.root),
                               "--idle-seconds", "30"])
    try:
        _wait_for_socket(project)
        again = subprocess.run([sys.executable, "-m", "paqad.hosts.warm", "--project-root", str(project.root)], timeout=60)
        assert again.returncode == 0  # a second one exits at once: one per project
        assert warm.stop(project) is True
        assert server.wait(timeout=30) == 0
        assert not warm.socket_path(project).exists()
        with pytest.raises(warm.Miss) as miss:
            warm.ask(project, PROMPT, time.monotonic() + 1.0)
        assert miss.value.absent
        outcome = run_prompt_hook(HOSTS["claude"], json.dumps({"prompt": PROMPT, "cwd": str(project.root)}),
                                  project_root=project.root, spawn=False, started=time.monotonic())
        assert (outcome.source, outcome.delivered) == ("process", True)
    finally:
        server.kill()
        server.wait()
    idle = subprocess.Popen([sys.executable, "-m", "paqad.hosts.warm", "--project-root", str(project.root),
                             "--idle-seconds", "1"])
    assert idle.wait(timeout=60) == 0 and not warm.socket_path(project).exists()


def test_a_setting_given_in_the_hook_s_environment_is_answered_in_process(project: ProjectPaths, monkeypatch):
    """The warm process reads the settings files, not the hook's environment: a PAQAD_RAG_*
    variable set for this prompt (here the precision) must not get the warm process's answer."""
    server = subprocess.Popen([sys.executable, "-m", "paqad.hosts.warm", "--project-root", str(project.root),
                               "--idle-seconds", "30"])
    try:
        _wait_for_socket(project)
        ask = lambda: run_prompt_hook(HOSTS["claude"], json.dumps({"prompt": PROMPT, "cwd": str(project.root)}),  # noqa: E731
                                      project_root=project.root, spawn=False, started=time.monotonic())
        assert ask().source == "warm"
        monkeypatch.setenv("PAQAD_RAG_EMBEDDING_PRECISION", "fp32")
        outcome = ask()
        assert (outcome.source, outcome.delivered) == ("process", True)
        assert "index is stale (model precision changed: index has int8, settings want fp32)" in outcome.stdout
    finally:
        warm.stop(project)
        server.kill()
        server.wait()


def _probe(paths: ProjectPaths, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([PAQAD_AI, "rag", "probe", PROMPT, "--json", "--project-root", str(paths.root)],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, **env))


def test_probe_is_answered_by_the_warm_process_with_the_same_rows(project: ProjectPaths, tmp_path: Path):
    """Issue 20: ``rag probe`` is served by the warm process (model and index loaded) when one
    runs, and starts one when none does. Without a model in this process's reach, only the warm
    process can give semantic rows: that they come back identical shows who answered."""
    first = _probe(project)  # no warm process yet: answered here, and one is started
    assert first.returncode == 0, first.stderr
    rows = json.loads(first.stdout)["results"]
    assert rows[0]["path"] == "src/shop/retry.py" and rows[0]["semantic"] is True
    _wait_for_socket(project)
    no_model = {"PAQAD_HOME": str(tmp_path / "empty-home"), "PAQAD_MODEL_MIRROR": str(tmp_path / "no-mirror")}
    served = _probe(project, **no_model)
    assert served.returncode == 0, served.stderr
    assert json.loads(served.stdout) == json.loads(first.stdout) and served.stderr == ""
    here = _probe(project, PAQAD_RAG_WARM_PROCESS="false", **no_model)
    assert here.returncode == 0
    assert "semantic search unavailable" in here.stderr
    assert {row["semantic"] for row in json.loads(here.stdout)["results"]} == {False}


def test_probe_with_a_setting_in_its_environment_is_answered_in_process(project: ProjectPaths, tmp_path: Path):
    server = subprocess.Popen([sys.executable, "-m", "paqad.hosts.warm", "--project-root", str(project.root),
                               "--idle-seconds", "30"])
    try:
        _wait_for_socket(project)
        proc = _probe(project, PAQAD_RAG_TOP_N="1", PAQAD_HOME=str(tmp_path / "empty-home"),
                      PAQAD_MODEL_MIRROR=str(tmp_path / "no-mirror"))
        assert proc.returncode == 0
        results = json.loads(proc.stdout)["results"]
        assert len(results) == 1 and results[0]["semantic"] is False  # this process's keyword-only answer
    finally:
        warm.stop(project)
        server.kill()
        server.wait()


def test_probe_says_what_it_waits_for_when_the_warm_process_is_slow(project: ProjectPaths, monkeypatch):
    """Seen on tqdm: after a 900 KB file was added, `rag probe` (served by the warm process, which
    syncs the edited files first) printed nothing for 62 s, then keyword-only rows. A probe that
    waits longer than WARM_NOTICE_SECONDS says so at once (here 0 s: the sync of 300 new
    functions takes longer than that); an answer in time says nothing (the test above)."""
    from conftest import run_cli
    from paqad.hosts import warm_probe

    server = subprocess.Popen([sys.executable, "-m", "paqad.hosts.warm", "--project-root", str(project.root),
                               "--idle-seconds", "60"])
    try:
        _wait_for_socket(project)
        body = "".join(f"def refund_step_{i}(order):\n    '''Refund step {i} of an order.'''\n    return order\n\n"
                       for i in range(300))
        (project.root / "src/shop/refunds.py").write_text(body)
        monkeypatch.setattr(warm_probe, "WARM_NOTICE_SECONDS", 0.0)
        monkeypatch.delenv("PAQAD_RAG_WARM_PROCESS")
        code, out, err = run_cli("rag", "probe", "refund_step_17", "-n", "1", project=project.root)
        assert code == 0, err
        assert "src/shop/refunds.py:" in out
        assert err.splitlines()[0] == warm_probe.WAITING_NOTE
    finally:
        warm.stop(project)
        server.kill()
        server.wait()


def test_it_listens_only_once_the_model_is_loaded(project: ProjectPaths):
    """Round 7: a hook that connected to a "warm" process still loading its model waited for it
    and spent its budget there. The socket now appears only after the warm-up: at the moment it
    exists, the process has the model runtime mapped and the prompt's vectors at hand, and its
    first answer is the hybrid one."""
    server = subprocess.Popen([sys.executable, "-m", "paqad.hosts.warm", "--project-root", str(project.root),
                               "--idle-seconds", "30"])
    try:
        end = time.monotonic() + 90
        while not warm.socket_path(project).exists() and server.poll() is None and time.monotonic() < end:
            time.sleep(0.005)
        assert warm.socket_path(project).exists()
        maps = Path(f"/proc/{server.pid}/maps").read_text(encoding="utf-8", errors="replace")
        assert "onnxruntime" in maps
        section = warm.ask(project, PROMPT, time.monotonic() + 30)
        assert section == section_for_prompt(project, load_settings(project), PROMPT, math.inf)
        assert "Search degraded" not in section
    finally:
        warm.stop(project)
        server.kill()
        server.wait()
