"""How long the prompt hook's dense side will take in a cold process, predicted before it starts.

The hook answers with keyword evidence first (:func:`paqad.deliver.answer.section_for_prompt`);
then it must decide whether to start the dense side (numpy, onnxruntime and tokenizer imports,
the model load, the vectors, embedding the prompt). Started when it cannot finish, it may hold
the GIL in a C extension's import past the deadline; not started when it could, the user gets a
keyword-only answer for nothing. Both sides are CPU-bound work of one process, so on a busy CPU
they slow down together: the dense side's cost is predicted as a *ratio* of the time the keyword
side took (process start to keyword answer), times a :data:`SAFETY` margin.

The ratio is this project's own, learnt from the hook's previous cold runs on this machine
(:func:`record`: an exponential average in ``.paqad/state/dense-cost.json``), else
:data:`DEFAULT_RATIO`. A missing, unreadable or corrupt file, or a value out of
[:data:`MIN_RATIO`, :data:`MAX_RATIO`], means the default: the file is a hint, never a
requirement, and a write that fails is skipped. No third-party import (the hook's keyword path).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from paqad.atomic import write_text_atomic
from paqad.project import ProjectPaths

FILE_NAME = "dense-cost.json"
# Dense side / keyword side in a cold hook process: median of 10 runs of `bench/hook_latency.py
# --files 500 --runs 5 --rounds 2 --scenarios ratio,ratio-loaded` on the 2-core machine shared
# with other jobs (0.90 without extra load, 0.83 with 4 CPU burners; round 7, bench/README.md
# "Round 7: hook answers within budget"). The keyword side includes the interpreter's start,
# which the dense side does not pay again. (The old rule, 3x, was measured while numpy was still
# imported on the keyword side: 0.45 then.)
DEFAULT_RATIO = 0.9
# Run-to-run spread: the 95th percentile of the measured ratio was 1.05-1.24x its median (same
# runs); the margin keeps a dense side that will not fit from being started on the slow runs.
SAFETY = 1.25
# A ratio outside these (a clock jump, a run that loaded the model from a cold disk) is not learnt.
MIN_RATIO, MAX_RATIO = 0.2, 10.0
# Weight of one new run in the learnt ratio: about the last five runs count.
LEARNING_WEIGHT = 0.25


@dataclass(frozen=True)
class DenseCost:
    """The ratio the prediction uses and where it came from.

    Attributes:
        ratio: predicted dense-side seconds per keyword-side second (before :data:`SAFETY`).
        runs: how many hook runs it was learnt from (0: :data:`DEFAULT_RATIO`).
    """

    ratio: float = DEFAULT_RATIO
    runs: int = 0

    def predicted_seconds(self, keyword_seconds: float) -> float:
        """Seconds the dense side is expected to take, at most: ``ratio * SAFETY * keyword_seconds``.

        ``keyword_seconds``: from the process start (or the search's start) to the keyword answer.
        E.g. the default ratio, 0.4 s of keyword side: 0.9 * 1.25 * 0.4 = 0.45 s."""
        return self.ratio * SAFETY * max(0.0, keyword_seconds)

    def fits(self, began: float, now: float, deadline: float) -> bool:
        """True when a dense side started at ``now`` is expected to be ready by ``deadline``, the
        keyword side having taken ``now - began`` (all ``time.monotonic()`` seconds)."""
        return now + self.predicted_seconds(now - began) <= deadline


def state_file(paths: ProjectPaths):
    return paths.state_dir / FILE_NAME


def load(paths: ProjectPaths) -> DenseCost:
    """The learnt :class:`DenseCost` of this project, or the default one (missing, corrupt or out
    of range file). Never raises."""
    try:
        data = json.loads(state_file(paths).read_text(encoding="utf-8"))
        ratio, runs = float(data["ratio"]), int(data["runs"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return DenseCost()
    if not (MIN_RATIO <= ratio <= MAX_RATIO) or runs < 1:  # NaN fails the comparison too
        return DenseCost()
    return DenseCost(ratio, runs)


def learnt(previous: DenseCost, keyword_seconds: float, dense_seconds: float) -> DenseCost:
    """``previous`` updated with one run (the dense side took ``dense_seconds`` after a keyword side
    of ``keyword_seconds``): the run's ratio when it is the first, else the exponential average
    (weight :data:`LEARNING_WEIGHT`). A run whose ratio is out of range leaves ``previous``."""
    if keyword_seconds <= 0:
        return previous
    ratio = dense_seconds / keyword_seconds
    if not (MIN_RATIO <= ratio <= MAX_RATIO):
        return previous
    if previous.runs == 0:
        return DenseCost(ratio, 1)
    return DenseCost(previous.ratio + LEARNING_WEIGHT * (ratio - previous.ratio), previous.runs + 1)


def record(paths: ProjectPaths, previous: DenseCost, keyword_seconds: float, dense_seconds: float) -> None:
    """Write :func:`learnt` to the project's state file (:func:`paqad.atomic.write_text_atomic`:
    readers never see half a file); skipped when nothing changes, the project has no ``.paqad/``
    folder or the write fails. Called once the hook holds its answer, so the disk never delays it."""
    new = learnt(previous, keyword_seconds, dense_seconds)
    if new == previous or not paths.paqad_dir.is_dir():
        return
    try:
        write_text_atomic(state_file(paths), json.dumps({"ratio": round(new.ratio, 4), "runs": new.runs}))
    except OSError:
        pass
