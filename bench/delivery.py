"""Targeted delivery (issue 19): what the prompt path hands the agent for prompts that have an answer.

Every case of the ranking benchmark (``bench/ranking/projects``) is delivered as a prompt through
:func:`paqad.deliver.delivery.deliver`, the call behind the hook's section (intent check with the
index's evidence, hybrid search with the default local model, calibrated confidence, floor), on
the benchmark's indexes (``bench/.cache/ranking/``; built by ``bench/ranking/run.py``), with no
deadline: the answer a warm process gives. Each listed passage (or pointer, when more than
``MAX_PASSAGES`` are confident and the section lists locations only) is judged by the benchmark's
one chunk rule (:func:`metrics.chunk_is_right`: the labelled lines, or the definition for a symbol
query). Printed per split, overall, by kind and by language:

- ``targeted``: share of prompts whose delivered passages hold a right chunk (goal >= 0.85);
- ``confident``: share delivered in the confident form (goal >= 0.60);
- ``conf. precision``: of the passages delivered in the confident form and rated at or above the
  floor (not its low-confidence companions, round 8), the share that are right (goal >= 0.90);
  ``top right``: of the confident answers, the share whose first passage is right;
- ``nothing``: share given the nothing form (an answerable prompt should not be);
- ``listed per prompt``: passages (or pointers) the section lists, on average.

    .venv/bin/python bench/delivery.py --split dev
    .venv/bin/python bench/delivery.py --split dev --companions 0 --config round-7-passages   # round 7's delivery
    .venv/bin/python bench/delivery.py --split test --show     # every miss, with what was delivered
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "ranking"))
sys.path.insert(0, str(HERE / "offproject"))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(HERE.parent.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(HERE / ".cache" / "paqad-home"))

import metrics  # noqa: E402
from run import Asker  # noqa: E402  (bench/offproject/run.py: one open index and model per project)


@dataclass(frozen=True)
class Judged:
    """One delivered prompt: its form, how many passages were delivered and how many are right."""

    case_id: str
    kind: str
    language: str
    form: str
    passages: int
    right: int
    top_right: bool
    shown: str
    confident: int = 0  # passages rated at or above the floor
    confident_right: int = 0


def shown(outcome) -> tuple:
    """The results the section lists (quoted passages, or pointers when too many are confident)."""
    from paqad.config import MAX_PASSAGES, MAX_POINTERS

    results = outcome.results
    return results[:MAX_POINTERS] if outcome.form == "confident" and len(results) > MAX_PASSAGES else results


def judge(case: dict, language: str, delivery) -> Judged:
    passages = shown(delivery.outcome)
    right = [metrics.chunk_is_right(case, r.path, r.start_line, r.end_line) for r in passages]
    listed = ", ".join(f"{r.path}:{r.start_line}-{r.end_line} {r.confidence or 0:.2f}{' ok' if ok else ''}"
                      for r, ok in zip(passages, right))
    from paqad.search.floor import percent

    sure = [ok for r, ok in zip(passages, right)
            if percent(r.confidence or 0.0) >= percent(delivery.outcome.threshold)]
    return Judged(case["id"], case["kind"], language, str(delivery.outcome.form), len(passages), sum(right),
                  bool(right and right[0]), listed, len(sure), sum(sure))


def table(rows: list[Judged]) -> None:
    groups: dict[str, list[Judged]] = defaultdict(list)
    for row in rows:
        for key in ("all", f"kind {row.kind}", f"lang {row.language}"):
            groups[key].append(row)
    print("| group | n | targeted | confident | conf. precision | top right | nothing | listed per prompt |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for key in sorted(groups, key=lambda k: (k != "all", not k.startswith("kind"), k)):
        g = groups[key]
        confident = [r for r in g if r.form == "confident"]
        passages = sum(r.confident for r in confident)
        precision = f"{sum(r.confident_right for r in confident) / passages:.3f}" if passages else "-"
        top = f"{sum(r.top_right for r in confident) / len(confident):.3f}" if confident else "-"
        print(f"| {key} | {len(g)} | {sum(r.right > 0 for r in g) / len(g):.3f} | {len(confident) / len(g):.3f} | "
              f"{precision} | {top} | {sum(r.form == 'nothing' for r in g) / len(g):.3f} | "
              f"{sum(r.passages for r in g) / len(g):.1f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), required=True)
    parser.add_argument("--projects", default="", help="comma-separated project names (default: the split's)")
    parser.add_argument("--show", action="store_true", help="print each prompt whose delivery holds no right chunk")
    parser.add_argument("--companions", type=int, default=None,
                        help="the floor's companions (default: paqad.config.MAX_COMPANIONS; 0: round 7's floor)")
    parser.add_argument("--config", default="default", help="a RankingOptions configuration (ranking/run.py --list)")
    args = parser.parse_args()
    from paqad.config import MAX_COMPANIONS
    from paqad.search import ablations

    extra = {"companions": MAX_COMPANIONS if args.companions is None else args.companions}
    if args.config != "default":
        extra["options"] = ablations()[args.config]
    asker = Asker()
    wanted = set(filter(None, args.projects.split(",")))
    rows = []
    for name, project in sorted(asker.projects.items()):
        if project.split != args.split or (wanted and name not in wanted):
            continue
        for case in project.cases:
            rows.append(judge(case, project.language, asker.ask(name, case["query"], **extra)))
    print(f"### {args.split}: delivered passages ({len(rows)} prompts, each with an answer; {args.config}, "
          f"companions {extra['companions']})\n")
    table(rows)
    if args.show:
        for row in rows:
            if not row.right:
                print(f"    {row.form:<14} {row.case_id}: {row.shown or '(nothing)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
