"""Targeted delivery at chunk level: do the passages the floor delivers hold the code that answers?

For every chunk-labelled case of the ranking benchmark (bench/ranking/FORMAT.md, ``lines``), the
query is searched as the product does (full search, the model's calibration, monotone bands, the
floor with relief) under each configuration, and scored on what is *delivered*, not on the ranking:

- delivered right: the delivered passages hold a right chunk (``metrics.chunk_is_right``);
- first right: the first delivered passage is right;
- confident: the answer takes the confident form; precision: right share of confident passages.

    .venv/bin/python bench/passages/targeted.py --split dev --configs default,no-passage-choice
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from statistics import fmean

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "bench" / "ranking"))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(REPO / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402
import metrics  # noqa: E402


def delivered(store, embedder, query, options):
    """The floor's outcome for ``query`` ranked under ``options`` (as :func:`paqad.search.search`)."""
    from paqad.search import gather, rank
    from paqad.search.confidence import calibration_for, monotone_confidence
    from paqad.search.floor import apply_floor

    pools = gather(store, embedder, query, long_prompts=options.long_prompts)
    results = rank(store, pools, top_n=10, options=options, calibration=calibration_for(embedder.model_id))
    return apply_floor(monotone_confidence(results))


def main() -> int:
    from paqad import store as store_mod
    from paqad.config import load_settings
    from paqad.embed.factory import get_embedder
    from paqad.project import ProjectPaths
    from paqad.search import ablations

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--configs", default="default")
    parser.add_argument("--kinds", default="where,architecture,symbol")
    args = parser.parse_args()
    configs = {name: ablations()[name] for name in args.configs.split(",")}
    kinds = set(args.kinds.split(","))
    rows: dict[str, list[tuple[bool, bool, bool, int, int]]] = {name: [] for name in configs}
    for project in corpora.load_projects(None, args.split):
        paths = ProjectPaths(corpora.materialise(project))
        embedder = get_embedder(load_settings(paths, environ={}), paths)
        with store_mod.open_store(paths, readonly=True) as store:
            for case in project.cases:
                if case["kind"] not in kinds or not metrics.has_chunk_labels(case):
                    continue
                for name, options in configs.items():
                    outcome = delivered(store, embedder, case["query"], options)
                    right = [metrics.chunk_is_right(case, r.path, r.start_line, r.end_line) for r in outcome.results]
                    confident = str(outcome.form) == "confident"
                    rows[name].append((any(right), bool(right) and right[0], confident,
                                       sum(right) if confident else 0, len(right) if confident else 0))
    print(f"{args.split}, kinds {args.kinds}: {len(next(iter(rows.values())))} chunk-labelled cases\n")
    print("| config | delivered right | first right | confident | confident precision |")
    print("|---|---:|---:|---:|---:|")
    for name, got in rows.items():
        shown = sum(r[4] for r in got)
        print(f"| {name} | {fmean(r[0] for r in got):.3f} | {fmean(r[1] for r in got):.3f} | "
              f"{fmean(r[2] for r in got):.3f} | {sum(r[3] for r in got) / max(1, shown):.3f} ({shown}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
