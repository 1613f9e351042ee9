"""Tune the ranking on the benchmark's dev half: gather every case's pools once, then score many
variants of :class:`paqad.search.RankingOptions` in memory (no re-embedding).

    .venv/bin/python bench/ranking/tune.py --sweep coherence=0,0.1,0.2 saturation=0.5,0.7,1.0
    .venv/bin/python bench/ranking/tune.py --set definition_boost=2 --sweep tests_prior=0.2,0.3,0.5

Each sweep varies one option at a time from the base (the defaults plus ``--set`` values) and
prints nDCG@10 overall and by kind. Only ``--split dev`` is allowed: never tune on test.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from dataclasses import replace
from pathlib import Path
from statistics import fmean

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(HERE.parents[2] / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(HERE.parents[1] / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402
from run import TOP_N, case_score  # noqa: E402


def _value(raw: str):
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return raw


def load(projects):
    """(store, case, pools by long_prompts flag, language) for every dev case; stores stay open."""
    from paqad import store as store_mod
    from paqad.build import sync
    from paqad.config import load_settings
    from paqad.embed.factory import get_embedder
    from paqad.project import ProjectPaths
    from paqad.search import gather

    items = []
    for project in projects:
        paths = ProjectPaths(corpora.materialise(project))
        settings = load_settings(paths, environ={})
        embedder = get_embedder(settings, paths)
        sync(paths, settings, embedder)
        store = store_mod.open_store(paths, readonly=True)
        for case in project.cases:
            pools = {flag: gather(store, embedder, case["query"], long_prompts=flag) for flag in (True, False)}
            items.append((store, case, pools, project.language))
        print(f"  {project.name}: {len(project.cases)} cases", file=sys.stderr, flush=True)
    return items


def evaluate(items, options) -> dict[str, float]:
    from paqad.search import rank

    by: dict[str, list[float]] = {"all": [], "symbol": [], "where": [], "architecture": [], "long": []}
    defs = []
    for store, case, pools, _ in items:
        results = rank(store, pools[options.long_prompts], top_n=TOP_N, options=options)
        score = case_score(case, [(r.path, r.start_line, r.end_line) for r in results])
        by["all"].append(score.ndcg)
        by[case["kind"]].append(score.ndcg)
        if case.get("long"):
            by["long"].append(score.ndcg)
        if case["kind"] == "symbol":
            defs.append(1.0 if score.def_rank == 1 else 0.0)
    out = {k: fmean(v) for k, v in by.items() if v}
    out["def@1"] = fmean(defs) if defs else 0.0
    return out


def main() -> int:
    from paqad.search import RankingOptions

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", default="")
    parser.add_argument("--set", nargs="*", default=[], help="base option values, name=value")
    parser.add_argument("--sweep", nargs="*", default=[], help="name=v1,v2,... (one option at a time)")
    args = parser.parse_args()
    projects = corpora.load_projects([p for p in args.projects.split(",") if p] or None, "dev")
    base = RankingOptions()
    for item in args.set:
        name, _, raw = item.partition("=")
        base = replace(base, **{name: _value(raw)})
    items = load(projects)
    header = f"{'variant':40} {'all':>6} {'symbol':>6} {'where':>6} {'arch':>6} {'long':>6} {'def@1':>6}"
    print(header)

    def show(label, options):
        r = evaluate(items, options)
        print(f"{label:40} {r['all']:6.3f} {r.get('symbol', 0):6.3f} {r.get('where', 0):6.3f} "
              f"{r.get('architecture', 0):6.3f} {r.get('long', 0):6.3f} {r['def@1']:6.3f}", flush=True)

    show("base", base)
    for item in args.sweep:
        name, _, raws = item.partition("=")
        for raw in raws.split(","):
            show(f"{name}={raw}", replace(base, **{name: _value(raw)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
