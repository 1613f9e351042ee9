"""The report of a ``rag eval`` run: summaries per class, the gate, snapshots and JSON."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence

from paqad.errors import EvaluationError, UserFileError
from paqad.evaluate.cases import SHOULD_SKIP
from paqad.evaluate.gate import CaseResult, Gate, GateThresholds, Summary, changes, evaluate_gate, summarize

MODES = ("feature-off-vs-on", "lexical-vs-rag", "rag-vs-candidate")
# (baseline arm, candidate arm) of each mode.
MODE_ARMS = {
    "feature-off-vs-on": ("off", "on"),
    "lexical-vs-rag": ("lexical", "rag"),
    "rag-vs-candidate": ("snapshot", "rag"),
}
SNAPSHOT_VERSION = 1


@dataclass(frozen=True)
class EvalReport:
    """The outcome of one ``rag eval`` run.

    ``results`` holds the :class:`CaseResult` of both arms; ``overall`` and ``per_class`` the
    (baseline, candidate) summaries; ``gate`` is set for ``feature-off-vs-on`` only. ``meta``:
    provider, model, floor settings, case source, index and timing figures, skipped cases.
    """

    mode: str
    baseline_arm: str
    candidate_arm: str
    results: tuple[CaseResult, ...]
    overall: tuple[Summary, Summary]
    per_class: dict[str, tuple[Summary, Summary]]
    gate: Gate | None
    meta: dict

    @property
    def failed(self) -> bool:
        """True when the gate ran and failed (the CLI exits 1)."""
        return self.gate is not None and not self.gate.passed

    def arm_results(self, arm: str) -> list[CaseResult]:
        return [r for r in self.results if r.arm == arm]


def build_report(mode: str, baseline: Sequence[CaseResult], candidate: Sequence[CaseResult], meta: dict,
                 thresholds: GateThresholds = GateThresholds()) -> EvalReport:
    """Summaries per class and overall, and the gate for ``feature-off-vs-on``."""
    base_arm, cand_arm = MODE_ARMS[mode]
    classes: dict[str, list[list[CaseResult]]] = defaultdict(lambda: [[], []])
    for r in baseline:
        classes[r.case_class][0].append(r)
    for r in candidate:
        classes[r.case_class][1].append(r)
    per_class = {name: (summarize(b), summarize(c)) for name, (b, c) in classes.items()}
    overall = (summarize(baseline), summarize(candidate))
    gate = evaluate_gate(*overall, thresholds, per_class.get(SHOULD_SKIP)) if mode == "feature-off-vs-on" else None
    return EvalReport(mode, base_arm, cand_arm, tuple(baseline) + tuple(candidate), overall, per_class, gate, meta)


RULES = {
    "delivered": "the passages or pointers of the rendered section, in order; none for the 'nothing' form and for off",
    "hit_at_5": "every expected file is among the files of the first 5 delivered items (multi-part: all places); "
                "mean over targeted cases",
    "partial_at_5": "fraction of expected files among the files of the first 5 delivered items; mean over targeted cases",
    "mrr": "1/rank of the first expected file among the distinct delivered files (0 if none); mean over targeted cases",
    "success": "hit@5 for targeted cases; nothing delivered for should-skip; something delivered for other cases "
               "without expected files; mean over all cases",
    "correction_turns": "1 - task success",
    "tokens_added": "ceil(characters / 4) of the rendered '## Retrieved context' section (every form), 0 for off; "
                    "mean per case",
    "relative_change": "(after - before) / before; from before = 0: +inf if after > 0, 0 if after = 0",
    "gate": "relative checks compare the candidate with the baseline (from off's zeros every rise is +inf); "
            "minimum checks hold the candidate to hit@5 >= min_hit_at_5 (targeted cases), task success >= "
            "min_task_success (all cases) and should-skip success >= min_skip_success (should-skip cases)",
}


# --- snapshots ---------------------------------------------------------------------------------


def snapshot_data(report: EvalReport) -> dict:
    """What ``--save-snapshot`` writes: the candidate arm's per-case results of ``report`` and the
    settings it ran with (JSON-able)."""
    return {
        "version": SNAPSHOT_VERSION,
        "kind": "paqad-ai rag eval snapshot",
        "created_at": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "mode": report.mode,
        "arm": report.candidate_arm,
        "meta": {k: v for k, v in report.meta.items() if k not in ("rules", "commits")},
        "summary": _jsonable(asdict(report.overall[1])),
        "cases": [_jsonable(asdict(r)) for r in report.arm_results(report.candidate_arm)],
    }


def save_snapshot(report: EvalReport, path: Path) -> None:
    """Write :func:`snapshot_data` of ``report`` to ``path`` (JSON). PaqadError when it cannot."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(snapshot_data(report), indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UserFileError(f"--save-snapshot {path}: cannot write ({exc.strerror or exc})") from None


def load_snapshot(path: Path) -> dict:
    """Read a snapshot file; PaqadError naming the file when it is missing or not a snapshot."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserFileError(f"--baseline {path}: no such file; write one with `paqad-ai rag eval --save-snapshot {path}`") from None
    except (OSError, ValueError) as exc:
        raise UserFileError(f"--baseline {path}: not a readable JSON snapshot ({exc})") from None
    if not isinstance(data, dict) or data.get("version") != SNAPSHOT_VERSION or not isinstance(data.get("cases"), list):
        raise UserFileError(f"--baseline {path}: not a snapshot of version {SNAPSHOT_VERSION}; write one with --save-snapshot")
    return data


def _case_from_json(raw: dict, arm: str) -> CaseResult:
    values = dict(raw)
    values["arm"] = arm
    for name in ("expected", "delivered", "delivered_files"):
        values[name] = tuple(values.get(name) or ())
    return CaseResult(**{k: values.get(k) for k in CaseResult.__dataclass_fields__})


def align_with_snapshot(snapshot: dict, candidate: list[CaseResult], meta: dict, path: Path | None):
    """The snapshot's results and this run's, restricted to the cases both have (same order)."""
    try:
        old = {r["case_id"]: _case_from_json(r, "snapshot") for r in snapshot["cases"]}
    except (KeyError, TypeError) as exc:
        raise UserFileError(f"--baseline {path}: malformed case record ({exc}); write it again with --save-snapshot") from None
    common = [r for r in candidate if r.case_id in old]
    if not common:
        raise EvaluationError(f"--baseline {path}: shares no case with this run (it was made from "
                         f"{snapshot.get('meta', {}).get('source', 'another case set')}; use the same case source)")
    meta["baseline"] = {
        "file": str(path), "created_at": snapshot.get("created_at"), "model": snapshot.get("meta", {}).get("model"),
        "compared_cases": len(common), "only_in_baseline": len(old) - len(common),
        "only_in_this_run": len(candidate) - len(common),
    }
    return [old[r.case_id] for r in common], common


# --- JSON --------------------------------------------------------------------------------------


def _jsonable(value):
    """Replace infinities (not valid JSON) by the strings ``"+inf"`` / ``"-inf"``; tuples by lists."""
    if isinstance(value, float) and math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def report_data(report: EvalReport) -> dict:
    """The report as JSON-able data (what ``--json`` prints). Infinite changes are ``"+inf"``."""
    def pair(b: Summary, c: Summary) -> dict:
        return {report.baseline_arm: asdict(b), report.candidate_arm: asdict(c), "change": changes(b, c)}

    data = {
        "mode": report.mode,
        "arms": {"baseline": report.baseline_arm, "candidate": report.candidate_arm},
        "meta": report.meta,
        "overall": pair(*report.overall),
        "per_class": {name: pair(*s) for name, s in sorted(report.per_class.items())},
        "gate": None if report.gate is None else {
            "passed": report.gate.passed,
            "failed": [c.name for c in report.gate.checks if not c.passed],
            "thresholds": asdict(report.gate.thresholds),
            "checks": [asdict(c) for c in report.gate.checks],
        },
        "cases": [asdict(r) for r in report.results],
    }
    return _jsonable(data)
