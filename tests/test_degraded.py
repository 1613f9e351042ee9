"""Without a usable embedding model (deleted, corrupt, mirror gone) every search path degrades to
keyword search with one warning, says so in its output, and keeps the previous index (issue 14.1).

Each test gets its own model store (copied from the mirror by a real ``rag init``), then breaks
it for real; the mirror is then pointed at a folder that does not exist.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ANSWER_BUDGET_MS, run_cli as run, write_files
from paqad.store.codec import unpack_text
from paqad.project import ProjectPaths
from paqad.store import open_store

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")
MODEL = "Xenova/all-MiniLM-L6-v2"

FILES = {
    "pyproject.toml": '[project]\nname = "shop"\nversion = "1.0"\ndescription = "a small shop"\n',
    "src/shop/retry.py": (
        "import time\n\n\n"
        "def with_retries(fn, attempts=5, backoff=0.5):\n"
        '    """Call fn and retry it with exponential backoff when it raises TimeoutError."""\n'
        "    for attempt in range(attempts):\n"
        "        try:\n"
        "            return fn()\n"
        "        except TimeoutError:\n"
        "            time.sleep(backoff * 2 ** attempt)\n"
        '    raise TimeoutError("gave up after retries")\n'
    ),
    "src/shop/cart.py": (
        "class Cart:\n"
        '    """A shopping cart: items with quantities and a total price in cents."""\n\n'
        "    def __init__(self):\n"
        "        self.items = {}\n\n"
        "    def add(self, sku, quantity=1):\n"
        "        self.items[sku] = self.items.get(sku, 0) + quantity\n"
    ),
}




@pytest.fixture
def home(fresh_home: Path) -> Path:
    """A model store of this test's own, filled by `rag init` below, then broken."""
    return fresh_home


@pytest.fixture
def project(git_repo, home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    root = git_repo(FILES)
    assert run("rag", "init", "--provider", "local", project=root)[0] == 0
    monkeypatch.setenv("PAQAD_MODEL_MIRROR", str(tmp_path / "mirror-gone"))
    return root


def model_folder(home: Path) -> Path:
    return home / "models" / MODEL


def missing_reason(home: Path) -> str:
    folder = model_folder(home)
    mirror = folder.parents[3] / "mirror-gone"
    return (
        f"semantic search unavailable (embedding model {MODEL} is not in the model store ({folder}) and cannot be "
        f"fetched (PAQAD_MODEL_MIRROR={mirror} is not a folder); it needs config.json, tokenizer.json, "
        f"tokenizer_config.json, special_tokens_map.json, onnx/model_quantized.onnx: run `paqad-ai rag model import PATH` "
        f"with a folder holding them (laid out like the hub repo), or set PAQAD_MODEL_MIRROR=DIR with DIR/{MODEL}/...); "
        "keyword search only"
    )


def delete_model(home: Path) -> None:
    (model_folder(home) / "onnx" / "model_quantized.onnx").unlink()


def corrupt_model(home: Path) -> None:
    """Same size, garbage bytes: the store's size check passes, onnxruntime cannot load it."""
    onnx = model_folder(home) / "onnx" / "model_quantized.onnx"
    onnx.write_bytes(b"\x07not an onnx graph" * (onnx.stat().st_size // 18) + b"\x00" * (onnx.stat().st_size % 18))
    for cached in (onnx.parent / ".optimized").glob("*"):  # the optimised copy would still load
        cached.unlink()


def test_probe_without_the_model_shows_keyword_results_with_one_warning(project: Path, home: Path) -> None:
    delete_model(home)
    code, out, err = run("rag", "probe", "with_retries backoff", project=project)
    assert code == 0
    assert err == f"paqad-ai: warning: {missing_reason(home)}; index not synced (the previous index is kept)\n"
    assert "with_retries" in out.splitlines()[1]

    code, out, err = run("rag", "probe", "with_retries backoff", "--json", project=project)
    data = json.loads(out)
    assert code == 0 and data["degraded"] == missing_reason(home)
    assert data["results"][0]["path"] == "src/shop/retry.py" and data["results"][0]["symbol"] == "with_retries"
    assert data["results"][0]["dense_rank"] is None and data["results"][0]["lexical_rank"] == 1


def test_probe_with_a_corrupt_model_degrades_too(project: Path, home: Path) -> None:
    corrupt_model(home)
    # In a fresh process: this one keeps the model it loaded before (one load per process).
    proc = subprocess.run([PAQAD_AI, "rag", "probe", "with_retries", "--json", "--project-root", str(project)],
                          capture_output=True, text=True, timeout=60)
    code, out, err = proc.returncode, proc.stdout, proc.stderr
    assert code == 0, err
    folder = model_folder(home)
    assert err.startswith(f"paqad-ai: warning: semantic search unavailable (embedding model {MODEL} in {folder} "
                          "cannot be loaded (")
    assert err.endswith(f"remove {folder} and run `paqad-ai rag model pull`, or run `paqad-ai rag model import PATH`); "
                        "keyword search only; index not synced (the previous index is kept)\n")
    assert err.count("\n") == 1
    assert json.loads(out)["results"][0]["symbol"] == "with_retries"


def test_sync_without_the_model_keeps_the_previous_index(project: Path, home: Path) -> None:
    paths = ProjectPaths(project)
    with open_store(paths, readonly=True) as store:
        before = store.meta()["refreshed_at"], store.chunk_count()
    delete_model(home)
    write_files(project, {"src/shop/cart.py": FILES["src/shop/cart.py"] + "\n    def clear(self):\n        self.items = {}\n"})
    assert run("rag", "probe", "cart", project=project)[0] == 0
    code, out, err = run("rag", "rebuild", project=project)
    assert code == 2
    assert err.startswith(f"paqad-ai: error: embedding model {MODEL} is not in the model store")
    assert err.endswith("; the index was not changed\n")
    with open_store(paths, readonly=True) as store:
        assert (store.meta()["refreshed_at"], store.chunk_count()) == before
        texts = [unpack_text(row[0]) for row in store.db.execute("SELECT text FROM chunks WHERE path = 'src/shop/cart.py'")]
    assert texts and not any("def clear" in text for text in texts)


def test_refresh_without_the_model_says_keyword_search_only_and_why(project: Path, home: Path) -> None:
    paths = ProjectPaths(project)
    delete_model(home)
    write_files(project, {".paqad/context/last-prompt.json": json.dumps(
        {"prompt": "with_retries backoff", "recorded_at": "2026-11-30T07:40:00Z", "host": "claude"})})
    code, out, err = run("rag", "refresh-context", project=project)
    assert (code, err) == (0, "")
    assert out.startswith(f"{missing_reason(home)}; index not synced (the previous index is kept); query from prompt; ")
    section = paths.session_context.read_text(encoding="utf-8")
    assert section.splitlines()[2:4] == [
        'Query: last prompt "with_retries backoff" (recorded 2026-11-30 07:40 UTC)',
        f"Search degraded: {missing_reason(home)}.",
    ]
    log = (paths.logs_dir / "refresh.log").read_text(encoding="utf-8")
    assert log.count("keyword search only") == 1


def wait_for_refresh(paths: ProjectPaths, timeout: float = 60.0) -> None:
    """Wait for the detached refresh the hook started (it records its end in last-refresh.json)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and not (paths.state_dir / "last-refresh.json").exists():
        time.sleep(0.1)
    assert (paths.state_dir / "last-refresh.json").exists(), "the hook started no refresh that finished"


class _SilentHub:
    """A TCP port that accepts connections and never answers: a model hub behind a firewall."""

    def __enter__(self) -> str:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


def test_hook_without_the_model_answers_keyword_only_in_time_and_logs_why(project: Path, home: Path, monkeypatch) -> None:
    paths = ProjectPaths(project)
    delete_model(home)
    monkeypatch.delenv("PAQAD_MODEL_MIRROR")
    monkeypatch.delenv("HF_HUB_OFFLINE")  # the hub is "reachable" but never answers
    payload = json.dumps({"session_id": "s", "cwd": str(project), "hook_event_name": "UserPromptSubmit",
                          "prompt": "with_retries backoff"}).encode()
    with _SilentHub() as endpoint:
        # A roomy budget, so a loaded test machine cannot pass it; the hub would still hold the
        # hook past it (its client waits 10 s for an answer) if the hook tried to fetch the model.
        env = dict(os.environ, HF_ENDPOINT=endpoint, PAQAD_RAG_HOOK_BUDGET_MS=ANSWER_BUDGET_MS)
        started = time.monotonic()
        proc = subprocess.run([PAQAD_AI, "hook", "prompt", "--host", "claude", "--project-root", str(project)],
                              input=payload, capture_output=True, timeout=60, env=env, cwd="/")
        elapsed = time.monotonic() - started
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert elapsed < 5
    section = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    folder = model_folder(home)
    degraded = (f"semantic search unavailable (embedding model {MODEL} is not in the model store ({folder}); "
                "the prompt hook never fetches it: run `paqad-ai rag model pull`); keyword search only")
    assert section.splitlines()[2:4] == ['Query: this prompt "with_retries backoff"', f"Search degraded: {degraded}."]
    wait_for_refresh(paths)
    log = (paths.logs_dir / "hook.log").read_text(encoding="utf-8")
    assert "timeout" not in log and "did not finish" not in log
    assert log.count("\n") == 1 and log.rstrip("\n").endswith(f"host=claude {degraded}")
    # The same outcome, typed: the missing model is a reason code can branch on (issue 18).
    from paqad.config import load_settings
    from paqad.deliver.answer import configured_embedder
    from paqad.search.degraded import DegradedReason

    embedder, why = configured_embedder(paths, load_settings(paths))
    assert embedder is None and why.reason is DegradedReason.MODEL_MISSING and why.words == degraded
