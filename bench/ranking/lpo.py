"""Leave-project-out check of ranking variants on the dev half (issue 24, round 7).

Gathers every dev case's pools once (cached in a pickle, ``--pools``), then ranks them under the
default and under each variant and prints, per project and per language, nDCG@10 and def@1.
For a swept option (``--sweep name=v1,v2``) it also reports the leave-project-out figure: for each
dev project, the value chosen on the *other* dev projects (best mean nDCG@10 there, ties to the
value nearest the default) and that value's score on the held-out project.

    .venv/bin/python bench/ranking/lpo.py --configs with-platform-variants,with-header-pairs
    .venv/bin/python bench/ranking/lpo.py --sweep header_pair_prior=0.5,0.7,0.9

Dev only: never run on test.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from statistics import fmean

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(HERE.parents[2] / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(HERE.parents[1] / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402
from run import TOP_N, case_score, configurations  # noqa: E402
from tune import _value  # noqa: E402


def load(projects, pools_path: Path | None, pool: int | None = None):
    """[(project, language, store, case, pools by long_prompts flag)] for every case of ``projects``;
    ``pool``: gather's pool depth (None: its default). The cache (``pools_path``) is keyed by the
    query and the depth, and written after each project that added to it (a long run keeps what
    it gathered)."""
    from paqad import store as store_mod
    from paqad.config import load_settings
    from paqad.embed.factory import get_embedder
    from paqad.project import ProjectPaths
    from paqad.search import gather

    cached = pickle.loads(pools_path.read_bytes()) if pools_path and pools_path.exists() else {}
    items, fresh = [], False
    for project in projects:
        paths = ProjectPaths(corpora.materialise(project))
        store = store_mod.open_store(paths, readonly=True)
        embedder = None
        for case in project.cases:
            pools = cached.get(case["id"])
            if pools is None or pools[0] != case["query"] or pools[2:] != (pool,):
                if embedder is None:
                    embedder = get_embedder(load_settings(paths, environ={}), paths)
                depth = {} if pool is None else {"pool": pool}
                pools = (case["query"], {flag: gather(store, embedder, case["query"], long_prompts=flag, **depth)
                                         for flag in (True, False)}, pool)
                cached[case["id"]] = pools
                fresh = True
            items.append((project.name, project.language, store, case, pools[1]))
        print(f"  {project.name}: {len(project.cases)} cases", file=sys.stderr, flush=True)
        if fresh and pools_path:
            pools_path.write_bytes(pickle.dumps(cached))
            fresh = False
    return items


def scores(items, options) -> dict[str, tuple[float, float | None]]:
    """case id -> (nDCG@10, def@1 or None for a non-symbol case)."""
    from paqad.search import rank

    out = {}
    for _, _, store, case, pools in items:
        results = rank(store, pools[options.long_prompts], top_n=TOP_N, options=options)
        s = case_score(case, [(r.path, r.start_line, r.end_line) for r in results])
        out[case["id"]] = (s.ndcg, (1.0 if s.def_rank == 1 else 0.0) if case["kind"] == "symbol" else None)
    return out


def groups(items) -> dict[str, list[str]]:
    g: dict[str, list[str]] = defaultdict(list)
    for project, language, _, case, _ in items:
        cid = case["id"]
        g["all"].append(cid)
        g[f"kind {case['kind']}"].append(cid)
        if case.get("long"):
            g["long"].append(cid)
        g[f"lang {language}"].append(cid)
        g[f"proj {project}"].append(cid)
    return dict(g)


def mean(s, ids, which=0):
    vals = [s[i][which] for i in ids if s[i][which] is not None]
    return fmean(vals) if vals else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", default="")
    parser.add_argument("--configs", default="", help="ablation names (run.py --list)")
    parser.add_argument("--sweep", nargs="*", default=[], help="name=v1,v2,... from the default")
    parser.add_argument("--pools", type=Path, default=Path("/work/tmp/weak-langs-dev-pools.pkl"))
    parser.add_argument("--changed", action="store_true", help="list the cases each variant changes")
    args = parser.parse_args()
    projects = corpora.load_projects([p for p in args.projects.split(",") if p] or None, "dev")
    items = load(projects, args.pools)
    configs = configurations()
    variants = {"default": configs["default"]}
    for name in [c for c in args.configs.split(",") if c]:
        variants[name] = configs[name]
    sweeps: dict[str, list[str]] = {}
    for item in args.sweep:
        name, _, raws = item.partition("=")
        for raw in raws.split(","):
            label = f"{name}={raw}"
            variants[label] = replace(configs["default"], **{name: _value(raw)})
            sweeps.setdefault(name, []).append(label)
    results = {label: scores(items, options) for label, options in variants.items()}
    g = groups(items)
    labels = list(variants)
    print("| group | n | " + " | ".join(labels) + " |")
    print("|---|---:|" + "---:|" * len(labels))
    for name, ids in g.items():
        print(f"| {name} | {len(ids)} | " + " | ".join(f"{mean(results[lab], ids):.3f}" for lab in labels) + " |")
    sym = g.get("kind symbol", [])
    print("| def@1 | %d | " % len(sym) + " | ".join(f"{mean(results[lab], sym, 1):.3f}" for lab in labels) + " |")
    if args.changed:
        base = results["default"]
        for lab in labels[1:]:
            moved = [(cid, base[cid][0], results[lab][cid][0]) for cid in base
                     if abs(base[cid][0] - results[lab][cid][0]) > 1e-9 or base[cid][1] != results[lab][cid][1]]
            print(f"\n{lab}: " + ", ".join(f"{c} {a:.2f}->{b:.2f}" for c, a, b in moved))
    projects_names = [k[5:] for k in g if k.startswith("proj ")]
    for name, labs in sweeps.items():
        print(f"\nleave-project-out, {name}: held-out project, value chosen on the others, default -> chosen")
        total_d, total_c, n = 0.0, 0.0, 0
        for held in projects_names:
            others = [i for p in projects_names if p != held for i in g[f"proj {p}"]]
            best = max(labs + ["default"], key=lambda lab: (round(mean(results[lab], others), 4), lab == "default"))
            ids = g[f"proj {held}"]
            d, c = mean(results["default"], ids), mean(results[best], ids)
            total_d += d * len(ids); total_c += c * len(ids); n += len(ids)
            print(f"  {held:14} {best:28} {d:.3f} -> {c:.3f}")
        print(f"  all (case-weighted) {total_d / n:.3f} -> {total_c / n:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
