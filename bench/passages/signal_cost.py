"""Cost of the issue-19 signals (record_data, passage_choice) in ``rank()``, in process.

For every case of the given projects the pools are gathered once, then ``rank()`` runs under
``default`` and under ``default`` without both signals, interleaved, ``--runs`` times each;
printed: the median ms per query of each and their ratio (compare within one run only).

    .venv/bin/python bench/passages/signal_cost.py --projects yaml-cpp,jsoup --runs 5
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "bench" / "ranking"))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(REPO / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402


def main() -> int:
    from paqad import store as store_mod
    from paqad.config import load_settings
    from paqad.embed.factory import get_embedder
    from paqad.project import ProjectPaths
    from paqad.search import gather, rank
    from paqad.search.options import RankingOptions

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", default="yaml-cpp,jsoup")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    configs = {"default": RankingOptions(), "without": replace(RankingOptions(), record_data=False, passage_choice=False)}
    times: dict[str, list[float]] = {name: [] for name in configs}
    for project in corpora.load_projects(args.projects.split(",")):
        paths = ProjectPaths(corpora.materialise(project))
        embedder = get_embedder(load_settings(paths, environ={}), paths)
        with store_mod.open_store(paths, readonly=True) as store:
            for case in project.cases:
                pools = gather(store, embedder, case["query"])
                for _ in range(args.runs):
                    for name, options in configs.items():
                        started = time.perf_counter()
                        rank(store, pools, top_n=20, options=options)
                        times[name].append((time.perf_counter() - started) * 1000)
    a, b = median(times["default"]), median(times["without"])
    print(f"rank() median: default {a:.1f} ms, without record_data and passage_choice {b:.1f} ms, ratio {a / b:.2f} "
          f"({len(times['default'])} runs each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
