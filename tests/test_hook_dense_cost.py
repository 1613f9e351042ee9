"""The prompt hook's prediction of its dense side's cost (paqad.deliver.dense_cost): a measured
ratio to the keyword side's time, learnt per project, the default when the file is missing or
corrupt; and the keyword path that must not import the dense side's libraries (issue 20)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SHOP_FILES, SHOP_PROMPT, build_index

from paqad.config import load_settings
from paqad.deliver import dense_cost
from paqad.deliver.answer import section_for_prompt
from paqad.deliver.dense_cost import DEFAULT_RATIO, DenseCost
from paqad.project import ProjectPaths

PROMPT = SHOP_PROMPT
FILES = SHOP_FILES
LATE_LINE = "Search degraded: semantic search did not finish within the hook's budget; keyword search only.\n"
NOT_STARTED_LINE = ("Search degraded: semantic search was not started: the model would not have loaded within the "
                    "hook's budget (rag_hook_budget_ms) on this machine now; keyword search only.\n")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, paqad_home: Path) -> Path:
    return build_index(tmp_path_factory.mktemp("cost") / "shop", FILES, paqad_home)


@pytest.fixture
def paths(indexed: Path) -> ProjectPaths:
    paths = ProjectPaths(indexed)
    paths.state_dir.mkdir(exist_ok=True)
    dense_cost.state_file(paths).unlink(missing_ok=True)
    yield paths
    dense_cost.state_file(paths).unlink(missing_ok=True)


# --- the prediction, with real values -------------------------------------------------------------


def test_the_default_prediction_for_given_timings() -> None:
    cost = DenseCost()
    assert (cost.ratio, cost.runs) == (DEFAULT_RATIO, 0) == (0.9, 0)
    assert cost.predicted_seconds(0.4) == pytest.approx(0.45)  # 0.9 x 1.25 x 0.4 s
    assert cost.predicted_seconds(-1.0) == 0.0
    # 0.4 s of keyword side, 0.5 s left: the dense side (0.45 s) is started; main's 3x (1.2 s) was not.
    assert cost.fits(began=10.0, now=10.4, deadline=10.9)
    assert not cost.fits(began=10.0, now=10.4, deadline=10.8)
    assert not DenseCost(2.0, 3).fits(began=10.0, now=10.4, deadline=10.9)  # a learnt 2.0: 1.0 s


def test_learning_is_an_exponential_average_of_the_runs_ratios() -> None:
    first = dense_cost.learnt(DenseCost(), keyword_seconds=0.5, dense_seconds=0.6)
    assert (first.ratio, first.runs) == (pytest.approx(1.2), 1)
    second = dense_cost.learnt(first, keyword_seconds=1.0, dense_seconds=0.8)
    assert (second.ratio, second.runs) == (pytest.approx(1.1), 2)  # 1.2 + 0.25 x (0.8 - 1.2)
    assert dense_cost.learnt(second, 0.1, 5.0) == second  # ratio 50: out of range, not learnt
    assert dense_cost.learnt(second, 0.0, 0.5) == second


def test_a_recorded_ratio_is_loaded_back(paths: ProjectPaths) -> None:
    assert dense_cost.load(paths) == DenseCost()
    dense_cost.record(paths, DenseCost(), 0.5, 0.6)
    assert json.loads(dense_cost.state_file(paths).read_text(encoding="utf-8")) == {"ratio": 1.2, "runs": 1}
    assert dense_cost.load(paths) == DenseCost(1.2, 1)
    assert list(paths.state_dir.glob(".dense-cost.json.*.tmp")) == []


@pytest.mark.parametrize("content", [b"{not json", b"", b"[]", b'{"ratio": "fast", "runs": 2}', b'{"ratio": 1.0}',
                                     b'{"ratio": NaN, "runs": 2}', b'{"ratio": 50, "runs": 2}', b'{"ratio": 1.0, "runs": 0}',
                                     b"\xff\xfe\x00"])
def test_a_corrupt_or_out_of_range_file_means_the_default(paths: ProjectPaths, content: bytes) -> None:
    dense_cost.state_file(paths).write_bytes(content)
    assert dense_cost.load(paths) == DenseCost()


def test_a_project_without_a_state_folder_records_nothing(tmp_path: Path) -> None:
    paths = ProjectPaths(tmp_path)
    dense_cost.record(paths, DenseCost(), 0.5, 0.6)
    assert not paths.paqad_dir.exists()


# --- the hook's answer ----------------------------------------------------------------------------


def test_a_dense_side_that_fits_gives_the_hybrid_answer_and_teaches_the_ratio(paths: ProjectPaths) -> None:
    settings = load_settings(paths)
    expected = section_for_prompt(paths, settings, PROMPT, time.monotonic() + 600)
    shown: list[str] = []
    now = time.monotonic()
    section = section_for_prompt(paths, settings, PROMPT, now + 600, started=now - 1.0, keyword_first=shown.append)
    assert section == expected and "Search degraded" not in section
    assert "src/shop/retry.py:L" in section
    # The keyword section handed over once the dense side had started says it was late, and that
    # the answer is keyword-only (the words the bench and the user read).
    assert LATE_LINE in shown[0] and NOT_STARTED_LINE not in shown[0]
    assert shown[1:] == [section]  # the hybrid one is handed over as soon as it is ready


def test_a_cold_process_s_hybrid_answer_teaches_the_ratio(paths: ProjectPaths) -> None:
    """As the hook does it: a new process, counted from its start; its run is learnt (the ratio of
    a process that has the model loaded already, far below MIN_RATIO, would not be)."""
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from paqad.config import load_settings\n"
        "from paqad.deliver.answer import section_for_prompt\n"
        "from paqad.hosts.prompt_hook import process_age_seconds\n"
        "from paqad.project import ProjectPaths\n"
        "paths = ProjectPaths(Path(sys.argv[1]))\n"
        "now = time.monotonic()\n"
        "section = section_for_prompt(paths, load_settings(paths), sys.argv[2], now + 600, started=now - process_age_seconds(),\n"
        "                             keyword_first=lambda text: None)\n"
        "print('Search degraded' in section, 'src/shop/retry.py:L' in section)\n"
    )
    proc = subprocess.run([sys.executable, "-P", "-c", script, str(paths.root), PROMPT], capture_output=True,
                          timeout=120, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert proc.stdout.decode().splitlines() == ["False True"]
    learnt = dense_cost.load(paths)
    assert learnt.runs == 1 and dense_cost.MIN_RATIO <= learnt.ratio <= dense_cost.MAX_RATIO


def test_a_learnt_slow_ratio_keeps_the_dense_side_from_starting(paths: ProjectPaths) -> None:
    dense_cost.state_file(paths).write_text('{"ratio": 10.0, "runs": 4}', encoding="utf-8")
    shown: list[str] = []
    now = time.monotonic()
    # 1 s of keyword side at least, 10 x 1.25 x 1 s predicted: more than the 5 s left.
    section = section_for_prompt(paths, load_settings(paths), PROMPT, now + 5.0, started=now - 1.0,
                                 keyword_first=shown.append)
    assert section == shown[0] and NOT_STARTED_LINE in section
    assert "### src/shop/retry.py:L1-13 · with_retries · keyword match, not rated\n" in section
    assert dense_cost.load(paths) == DenseCost(10.0, 4)  # nothing learnt from a run that did not start it


def test_the_keyword_path_imports_no_dense_side_library(paths: ProjectPaths) -> None:
    """answer.py's promise: the keyword answer imports neither numpy nor the model runtime (a
    search's query evidence imported numpy for a keyword-only answer before round 7)."""
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from paqad.config import load_settings\n"
        "from paqad.deliver.answer import section_for_prompt\n"
        "from paqad.hosts import prompt_hook, warm\n"
        "from paqad.project import ProjectPaths\n"
        "paths = ProjectPaths(Path(sys.argv[1]))\n"
        "now = time.monotonic()\n"
        "shown = []\n"
        "section = section_for_prompt(paths, load_settings(paths), sys.argv[2], now + 1.0, started=now - 100.0,\n"
        "                             keyword_first=shown.append)\n"
        "print(sorted(m for m in ('numpy', 'onnxruntime', 'tokenizers', 'safetensors') if m in sys.modules))\n"
        "print(section == shown[0], 'src/shop/retry.py:L1-13' in section, 'was not started' in section)\n"
    )
    proc = subprocess.run([sys.executable, "-P", "-c", script, str(paths.root), PROMPT], capture_output=True,
                          timeout=120, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert proc.stdout.decode().splitlines() == ["[]", "True True True"]
