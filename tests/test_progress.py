"""No long build is silent and none happens on the side (issue 13, DESIGN §10): plain progress
lines when stderr is not a terminal; probe and refresh refuse to rebuild a stale index."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_files
from paqad.build import sync
from paqad.cli.main import main
from paqad.cli.progress import PlainProgress, duration
from paqad.config import load_settings
from paqad.embed.factory import get_embedder
from paqad.project import ProjectPaths
from paqad.store import open_store

HANDLERS = {
    f"svc/h{i:03d}.py": f'def handle_{i:03d}(event):\n    """Handle event kind {i} for the progress tests."""\n    return {{"kind": {i}, "ok": True}}\n'
    for i in range(150)
}
PROJECT = {"pyproject.toml": "[project]\nname = 'progress'\nversion = '1.0'\ndescription = 'progress tests'\n", **HANDLERS}
ANSI = re.compile(r"\x1b\[")


def run(*args: str, project: Path) -> tuple[int, str, str]:
    from contextlib import redirect_stderr, redirect_stdout

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([*args, "--project-root", str(project)])
    return code, out.getvalue(), err.getvalue()


def test_duration_and_line_formats():
    assert [duration(s) for s in (0, 7.4, 139, 3725)] == ["0s", "7s", "2m19s", "1h02m"]
    assert PlainProgress.line("embed", 1200, 13000, 1200 / 85) == "embedding 1,200/13,000 chunks, 85/s, ~2m19s left"
    assert PlainProgress.line("embed", 13000, 13000, 153) == "embedding 13,000/13,000 chunks, 85/s, done in 2m33s"
    assert PlainProgress.line("chunk", 2000, 5000, 3) == "chunking 2,000/5,000 files"


def test_a_build_prints_a_plain_line_every_interval(git_repo):
    """A real build into a non-terminal stream: stage lines, then embedding lines with rate and
    time left (interval 0: every committed batch), then the final line."""
    root = git_repo(PROJECT)
    paths = ProjectPaths(root)
    settings = load_settings(paths)
    stream = io.StringIO()
    report = sync(paths, settings, get_embedder(settings, paths), progress=PlainProgress(stream, interval=0))
    lines = stream.getvalue().splitlines()
    total = report.chunks_total
    assert re.fullmatch(r"151 files eligible, \d+ skipped \(see `rag status --json`\)", lines[0])
    assert f"keyword search ready: {total} chunks (0 with vectors); embedding continues" in lines
    assert f"embedding 0/{total} chunks" in lines
    middle = [line for line in lines if line.endswith(" left")]
    assert len(middle) >= 2 and all(re.fullmatch(rf"embedding \d+/{total} chunks, \d+/s, ~\d+s left", line) for line in middle)
    assert re.fullmatch(rf"embedding {total}/{total} chunks, \d+/s, done in \d+s", lines[-1])
    assert not any(ANSI.search(line) for line in lines)


def test_init_with_stderr_not_a_terminal_writes_plain_lines(git_repo):
    """As in CI or a log file: a real process whose stderr is a pipe gets lines, not bars."""
    root = git_repo(PROJECT)
    proc = subprocess.run([sys.executable, "-m", "paqad.cli.main", "rag", "init", "--provider", "local", "--project-root", str(root)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr.splitlines()
    assert err[0] == f"Project root: {root}"
    assert re.fullmatch(r"151 files eligible, \d+ skipped \(see `rag status --json`\)", err[1])
    assert any(line.startswith("keyword search ready: ") for line in err)
    assert re.fullmatch(r"embedding \d+/\d+ chunks, \d+/s, done in \d+s", err[-1])
    assert not ANSI.search(proc.stderr) and "━" not in proc.stderr


@pytest.fixture
def built(git_repo) -> Path:
    root = git_repo({"pyproject.toml": PROJECT["pyproject.toml"], "svc/h000.py": HANDLERS["svc/h000.py"],
                     "svc/h001.py": HANDLERS["svc/h001.py"]})
    assert run("rag", "init", "--provider", "local", project=root)[0] == 0
    return root


def _index_fingerprint(root: Path) -> tuple[str, int]:
    with open_store(ProjectPaths(root), readonly=True) as store:
        return store.meta()["fingerprint"], store.generation


def test_probe_after_a_precision_change_refuses_with_the_command_to_run(built: Path, monkeypatch):
    before = _index_fingerprint(built)
    monkeypatch.setenv("PAQAD_RAG_EMBEDDING_PRECISION", "fp32")
    write_files(built, {"svc/h002.py": HANDLERS["svc/h002.py"]})  # an edit a probe would normally sync
    code, out, err = run("rag", "probe", "handle_001", "--json", project=built)
    assert (code, out) == (2, "")
    assert err == ("paqad-ai: error: index is stale (model precision changed: index has int8, settings want fp32); "
                   "run `paqad-ai rag rebuild`\n")
    assert _index_fingerprint(built) == before  # nothing rebuilt, nothing synced


def test_refresh_after_a_precision_change_does_not_rebuild(built: Path, monkeypatch):
    from paqad.deliver.query import record_prompt

    paths = ProjectPaths(built)
    record_prompt(paths, "which function handles event kind 1?")
    before = _index_fingerprint(built)
    monkeypatch.setenv("PAQAD_RAG_EMBEDDING_PRECISION", "fp32")
    code, out, _ = run("rag", "refresh-context", project=built)
    assert code == 0
    assert out.startswith("index is stale (model precision changed: index has int8, settings want fp32); "
                          "run `paqad-ai rag rebuild`; not synced; query from prompt; ")
    assert _index_fingerprint(built) == before
    section = paths.session_context.read_text(encoding="utf-8")
    assert ("Search degraded: index is stale (model precision changed: index has int8, settings want fp32); run "
            "`paqad-ai rag rebuild`; keyword search only.\n") in section
    assert "### svc/h001.py:L" in section or "### svc/h000.py:L" in section  # keyword matches of the handlers
    code, out, _ = run("rag", "rebuild", project=built)  # the named command does it, with progress
    assert code == 0 and _index_fingerprint(built)[0].startswith("Xenova/all-MiniLM-L6-v2|onnx/model.onnx|")
    status = json.loads(run("rag", "status", "--json", project=built)[1])["index"]
    assert status["valid"] and status["semantic_coverage"] == 1
