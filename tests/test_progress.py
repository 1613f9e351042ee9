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
    assert re.fullmatch(r"151 files eligible, \d+ skipped \(`paqad-ai rag status --explain \.` says which and why\)", lines[0])
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
    assert re.fullmatch(r"151 files eligible, \d+ skipped \(`paqad-ai rag status --explain \.` says which and why\)", err[1])
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


# --- an interrupted first init, a corrupt index, a read-only .paqad/ (break-it report) ------------


def _init_stopped_while_embedding(paths: ProjectPaths) -> None:
    """A first `init` stopped by Ctrl-C once some chunks are embedded (after the keyword commit)."""
    from paqad.build import init_project

    def stop_while_embedding(stage: str, done: int, total: int) -> None:
        if stage == "embed" and done > 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        init_project(paths, provider="local", progress=stop_while_embedding)


def test_an_init_interrupted_while_embedding_leaves_retrieval_on_and_the_refresh_finishes_it(git_repo):
    """Retrieval is switched on once the keyword index is committed: after Ctrl-C during the
    embedding the index is searchable, and `refresh-context` embeds the rest, saying so."""
    from paqad.deliver.query import record_prompt
    from paqad.status import index_state

    root = git_repo(PROJECT)
    paths = ProjectPaths(root)
    _init_stopped_while_embedding(paths)
    state = index_state(paths, load_settings(paths))
    assert load_settings(paths).rag_enabled is True
    assert state.chunks == 151 and 0 < state.embedded < 151  # 150 handlers and pyproject.toml
    record_prompt(paths, "which function handles event kind 7?")
    code, out, err = run("rag", "refresh-context", project=root)
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith(f"index up to date (151 files, 151 chunks); {151 - state.embedded} chunks not embedded yet "
                            "(keyword search only for them); semantic search starts once 80% of the chunks have vectors")
    assert "; query from prompt; " in first
    assert err.splitlines()[0].startswith("embedding the chunks still without vectors")
    assert re.fullmatch(rf"embedded {151 - state.embedded} chunks left without vectors in \d+\.\ds", err.splitlines()[-1])
    assert index_state(paths, load_settings(paths)).embedded == 151


def test_a_corrupt_index_is_not_rebuilt_by_probe_or_refresh(built: Path):
    db = ProjectPaths(built).index_db
    db.write_bytes(db.read_bytes()[:4096] + b"\0" * 4096)
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    code, out, err = run("rag", "probe", "handle_001", project=built)
    assert (code, out) == (2, "")
    assert err.startswith("paqad-ai: error: .paqad/vectors/index.sqlite: index is unreadable (")
    assert err.endswith("); run `paqad-ai rag rebuild`\n")
    code, out, _ = run("rag", "refresh-context", project=built)
    assert code == 0 and out.startswith("sync failed, previous index and section kept: ")
    assert db.stat().st_size == 8192  # nothing rebuilt on the side
    assert run("rag", "rebuild", project=built)[0] == 0  # the named command does it


def test_a_read_only_index_folder_is_the_machine_s_error_and_probe_still_searches(built: Path):
    import os
    import stat

    vectors = ProjectPaths(built).vectors_dir
    (built / "svc/h002.py").write_text(HANDLERS["svc/h002.py"] + "\n# edited\n")
    (vectors / "write.lock").touch()
    files = [vectors, *vectors.iterdir()]
    # immutable (holds for root too) where the file system allows it, else read-only modes
    immutable = subprocess.run(["chattr", "+i", *map(str, files)], capture_output=True).returncode == 0
    modes = {f: f.stat().st_mode for f in files}
    if not immutable:
        for f in files:
            os.chmod(f, stat.S_IRUSR | (stat.S_IXUSR if f.is_dir() else 0))
    try:
        if not immutable and os.access(vectors, os.W_OK):
            pytest.skip("running as a user that writes anywhere (root) and no chattr: permissions cannot be tested")
        code, out, err = run("rag", "probe", "handle_001", "-n", "1", project=built)
        assert code == 0 and "svc/h001.py:1" in out, err
        assert re.fullmatch(r"paqad-ai: warning: index not synced \((Permission denied|Operation not permitted): "
                            r"\S+/\.paqad/vectors/write\.lock\); searched the last committed index\n", err)
        code, _, err = run("rag", "rebuild", project=built)
        assert code == 2
        assert re.fullmatch(r"paqad-ai: error: cannot use \S+/\.paqad/\S+: (Permission denied|Operation not permitted); "
                            r"check that \.paqad/ is writable \(the committed index is unchanged\)\n", err)
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", *map(str, files)], check=True)
        else:
            for f, m in modes.items():
                os.chmod(f, m)


def test_the_hook_names_a_precision_change_in_the_user_s_words(built: Path, monkeypatch):
    import time

    from paqad.deliver.answer import section_for_prompt

    monkeypatch.setenv("PAQAD_RAG_EMBEDDING_PRECISION", "fp32")
    paths = ProjectPaths(built)
    section = section_for_prompt(paths, load_settings(paths), "which function handles event kind 1?", time.monotonic() + 30)
    assert ("Search degraded: index is stale (model precision changed: index has int8, settings want fp32); run "
            "`paqad-ai rag rebuild`; keyword search only.\n") in section


def test_a_stopped_embedding_is_not_said_to_continue(git_repo):
    """issue 20 item 11: after an embedding was stopped (kill -9, Ctrl-C) and nothing embeds, the
    degraded line says who finishes it and when, not "embedding continues"."""
    from paqad.embed.factory import get_embedder
    from paqad.search import search

    root = git_repo(PROJECT)
    paths = ProjectPaths(root)
    _init_stopped_while_embedding(paths)
    settings = load_settings(paths)
    response = search(paths, settings, "which function handles event kind 7?", embedder=get_embedder(settings, paths))
    assert "embedding continues" not in response.degraded.words
    assert re.search(r"\(\d+% so far; no process is embedding now: the next `paqad-ai rag refresh-context` \(the prompt "
                     r"hook starts one on every prompt\) or `paqad-ai rag init` finishes it\); keyword search only$",
                     response.degraded.words), response.degraded


def test_init_in_a_read_only_paqad_folder_names_the_settings_file(built: Path):
    # Seen on tqdm with .paqad/ not writable: "cannot use .../.paqad/..config.k5vpi_14.tmp",
    # the temp file of an atomic write, a name the user never saw.
    paqad = ProjectPaths(built).paqad_dir
    immutable = subprocess.run(["chattr", "+i", str(paqad)], capture_output=True).returncode == 0
    if not immutable:
        pytest.skip("no chattr here: an unwritable folder cannot be made for root")
    try:
        code, _, err = run("rag", "init", "--provider", "local", project=built)
    finally:
        subprocess.run(["chattr", "-i", str(paqad)], check=True)
    assert code == 2
    assert err.splitlines()[-1] == (f"paqad-ai: error: cannot use {paqad / '.config'}: Operation not permitted; "
                                    "check that .paqad/ is writable (the committed index is unchanged)")
    assert not list(paqad.glob(".*.tmp"))


def test_a_refresh_that_syncs_many_new_chunks_says_how_far_it_is(git_repo):
    """Seen as a new user (round 7): `rag refresh-context` after a 3 MB file joined the index
    printed nothing for 466 s. Its sync now reports like probe's (interval 0 here: every batch)."""
    from paqad.deliver.refresh import refresh_context

    root = git_repo({"pyproject.toml": PROJECT["pyproject.toml"], "svc/h000.py": HANDLERS["svc/h000.py"]})
    paths = ProjectPaths(root)
    assert main(["rag", "init", "--provider", "local", "--yes", "--project-root", str(root)]) == 0
    write_files(root, {path: text for path, text in HANDLERS.items() if path != "svc/h000.py"})
    stream = io.StringIO()
    outcome = refresh_context(paths, progress=PlainProgress(stream, interval=0, chatty=False))
    lines = stream.getvalue().splitlines()
    assert outcome.summary.startswith("synced 149 changed, 0 removed (149 embedded, 0 cached)")
    assert len(lines) >= 2 and all(re.fullmatch(r"(chunking \d+/\d+ files.*|embedding \d+/149 chunks, \d+/s, .*)", line)
                                   for line in lines)
    assert re.fullmatch(r"embedding 149/149 chunks, \d+/s, done in \d+s", lines[-1])


def test_rag_eval_off_a_terminal_says_how_far_a_long_build_is_and_nothing_for_a_short_one():
    # Seen as a new user (round 11): `rag eval` into a pipe or CI log built its index without a line
    # (the bars were shown on a terminal only); `--from-git` never showed any progress.
    from paqad.cli.eval_command import eval_progress
    from paqad.cli.rag_commands import BuildProgress

    assert isinstance(eval_progress(False, False, True), BuildProgress)
    for from_git, as_json, terminal in [(False, False, False), (True, False, True), (True, False, False), (False, True, True)]:
        chosen = eval_progress(from_git, as_json, terminal)
        assert isinstance(chosen, PlainProgress) and not chosen.chatty
    now = [0.0]
    stream = io.StringIO()
    progress = PlainProgress(stream, clock=lambda: now[0], chatty=False)
    for second, done in [(0, 0), (2, 100), (3, 416)]:  # a 3 s embedding: silent
        now[0] = second
        progress("embed", done, 416)
    progress("eligible", 67, 70)
    assert stream.getvalue() == ""
    for second, done in [(10, 0), (14, 300), (15.5, 400), (21, 900), (22, 1000)]:  # a 12 s one: every 5 s
        now[0] = second
        progress("embed", done, 1000)
    assert stream.getvalue().splitlines() == [
        "embedding 400/1,000 chunks, 73/s, ~8s left", "embedding 900/1,000 chunks, 82/s, ~1s left",
        "embedding 1,000/1,000 chunks, 83/s, done in 12s"]
