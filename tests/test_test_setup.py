"""README's test command outside this repository's dev layout (issue 14.4): without a usable
model mirror the suite stops at once with one message saying what to set; a model store filled
by ``paqad-ai rag model pull`` is a usable mirror; a mirror with other model files is refused
with the reason (the tests' exact values were measured with specific files)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import MODEL_MIRROR, REPO_ROOT

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")
REPO = "Xenova/all-MiniLM-L6-v2"
WHAT_TO_SET = (
    "set PAQAD_MODEL_MIRROR=DIR where DIR/Xenova/all-MiniLM-L6-v2/ holds config.json, tokenizer.json, "
    "tokenizer_config.json, special_tokens_map.json, onnx/model_quantized.onnx and onnx/model.onnx with the sha256 "
    "listed in tests/fixtures/model/MANIFEST.json: this repository's ../shared/models, or a model store filled with "
    "`paqad-ai rag model pull` and `paqad-ai rag model pull --precision fp32` from such a mirror "
    "(then PAQAD_MODEL_MIRROR=~/.paqad/models)"
)


def pytest_child(mirror: Path, *selection: str, home: Path) -> subprocess.CompletedProcess:
    """README's test command in a fresh process, with ``PAQAD_MODEL_MIRROR=mirror``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAQAD_")}
    env.update(PAQAD_MODEL_MIRROR=str(mirror), PAQAD_HOME=str(home), HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *selection],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_no_mirror_stops_the_suite_with_one_message(tmp_path: Path) -> None:
    gone = tmp_path / "no-such-mirror"
    proc = pytest_child(gone, home=tmp_path / "home")
    assert proc.returncode == 4
    assert proc.stderr.strip().splitlines() == [
        f"Exit: paqad-ai tests: no usable model mirror: PAQAD_MODEL_MIRROR={gone}: "
        f"{gone}/{REPO}/config.json is missing; {WHAT_TO_SET}"
    ]
    assert "reference.json" not in proc.stdout and "FileNotFoundError" not in proc.stdout


def test_a_model_store_filled_by_rag_model_pull_runs_the_tests(tmp_path: Path) -> None:
    store_home = tmp_path / "store-home"
    env = dict(os.environ, PAQAD_HOME=str(store_home), PAQAD_MODEL_MIRROR=str(MODEL_MIRROR), HF_HUB_OFFLINE="1")
    for extra in ([], ["--precision", "fp32"]):
        subprocess.run([PAQAD_AI, "rag", "model", "pull", *extra], env=env, check=True, capture_output=True, cwd=tmp_path)
    store = store_home / "models"
    assert not (store / REPO / "MANIFEST.json").exists() and not (store / REPO / "reference.json").exists()
    proc = pytest_child(store, "tests/test_embeddings_local.py::test_fp32_reproduces_reference",
                        "tests/test_embeddings_local.py::test_identity_and_fingerprint",
                        "tests/test_model_store.py::test_corrupted_mirror_file_is_refused_and_nothing_is_kept",
                        "tests/test_model_store.py::test_import_from_model_folder_then_list",
                        "tests/test_model_store.py::test_import_from_mirror_root_and_into_other_id",
                        home=tmp_path / "home")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1].startswith("5 passed in ")


def test_a_mirror_with_other_model_files_is_refused_with_the_reason(tmp_path: Path) -> None:
    mirror = tmp_path / "other-mirror"
    folder = mirror / REPO
    (folder / "onnx").mkdir(parents=True)
    for rel in ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "onnx/model.onnx"):
        (folder / rel).symlink_to(MODEL_MIRROR / REPO / rel)
    (folder / "onnx/model_quantized.onnx").write_bytes(b"another int8 export of the same weights")
    proc = pytest_child(mirror, home=tmp_path / "home")
    assert proc.returncode == 4
    assert proc.stderr.strip().splitlines() == [
        f"Exit: paqad-ai tests: no usable model mirror: PAQAD_MODEL_MIRROR={mirror}: {folder}/onnx/model_quantized.onnx "
        "is not the file the tests' exact values were measured with (sha256 99ebb11bafed…, 39 bytes; expected "
        f"5ce859439971…, 22977383 bytes); {WHAT_TO_SET}"
    ]


LEAVES_A_PROCESS = '''
import subprocess, sys


def test_leaves_a_detached_process_behind(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], cwd=tmp_path, start_new_session=True)
    (tmp_path.parent / "pid").write_text(str(proc.pid))
'''


def test_the_session_stops_what_its_tests_left_running(tmp_path: Path) -> None:
    """A detached process started in a test's folder (as the hook starts a warm process) does
    not outlive the pytest session (issue 20, item 15)."""
    (tmp_path / "test_leave.py").write_text(LEAVES_A_PROCESS, encoding="utf-8")
    base = tmp_path / "base"
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT / "tests"), PAQAD_MODEL_MIRROR=str(MODEL_MIRROR))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest", f"--basetemp={base}",
                           str(tmp_path / "test_leave.py")], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    pid = int((base / "pid").read_text())  # base/test_leaves_a_detached0/ -> base/pid
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except (OSError, FileNotFoundError):
        state = "gone"
    assert state in ("gone", "Z"), f"process {pid} still running ({state})"
