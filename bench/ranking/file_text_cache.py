"""Canonical's file texts kept per index generation (round 7) against re-read per query (before):
``rank()`` timed on every case of every project, the two arms interleaved query by query (the
cache cleared before each "re-read" call), with the file texts each arm read from the index.

    nice -n 5 .venv/bin/python bench/ranking/file_text_cache.py

Read-only. Times are of one run on a shared machine: compare the arms with each other.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(HERE.parents[2] / "shared" / "models"))

import corpora  # noqa: E402


def main() -> None:
    from paqad import store as store_mod
    from paqad.config import load_settings
    from paqad.embed.factory import get_embedder
    from paqad.project import ProjectPaths
    from paqad.search import gather, rank, ranking

    reads = {"n": 0}
    read_file_text = ranking._file_text

    def counted(store, path):  # counts the texts read from the index (not found in the cache)
        reads["n"] += path not in ranking._FILE_TEXTS.get(store.generation_key(), {})
        return read_file_text(store, path)

    ranking._file_text = counted
    times: dict[str, list[float]] = {"re-read": [], "cached": []}
    read = {"re-read": 0, "cached": 0}
    using = 0
    for project in corpora.load_projects(None, None):
        paths = ProjectPaths(corpora.materialise(project))
        embedder = get_embedder(load_settings(paths, environ={}), paths)
        with store_mod.open_store(paths, readonly=True) as store:
            for case in project.cases:
                pools = gather(store, embedder, case["query"])
                rank(store, pools, top_n=10)  # this query's files in the cache
                before = reads["n"]
                for arm in ("re-read", "cached", "re-read", "cached"):
                    if arm == "re-read":
                        ranking._FILE_TEXTS.clear()
                    start, t0 = reads["n"], time.perf_counter()
                    rank(store, pools, top_n=10)
                    times[arm].append(time.perf_counter() - t0)
                    read[arm] += reads["n"] - start
                using += reads["n"] > before
    print(f"{len(times['cached']) // 2} queries x 2 rounds; queries whose ranking reads a file text: {using}")
    for arm, values in times.items():
        print(f"{arm:8} rank() p50 {statistics.median(values) * 1000:.2f} ms, mean {statistics.mean(values) * 1000:.2f} ms, "
              f"p95 {sorted(values)[int(0.95 * (len(values) - 1))] * 1000:.2f} ms; file texts read from the index: {read[arm]}")


if __name__ == "__main__":
    main()
