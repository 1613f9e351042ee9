"""Fit the confidence calibration on the ranking benchmark's dev half; report it on both halves.

For every case of ``bench/ranking`` the default ranking's top 20 results are labelled relevant
when their file is one of the case's expected files (any grade). A logistic model of each
result's evidence (:mod:`paqad.search.confidence`) is fitted on the dev half by iteratively
reweighted least squares with a small L2 penalty, in three variants:

- ``Xenova/all-MiniLM-L6-v2``: every feature (the default local model's cosines);
- ``model-agnostic``: no cosine values (ranks and agreement only), for remote models;
- ``keyword-only``: no dense features at all, for degraded search without a model.

The fits are written to ``src/paqad/search/calibration/*.json`` (with ``--write``) and a
reliability table, the expected calibration error (10 equal-width bins) and the delivery
figures of the floor (confident share, confident-form precision, low-confidence precision)
are printed for dev and test.

    .venv/bin/python bench/calibration.py            # fit, report, do not write
    .venv/bin/python bench/calibration.py --write    # fit, report, write the JSON fits
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE / "ranking"))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(REPO / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402

OUT_DIR = REPO / "src" / "paqad" / "search" / "calibration"
TOP_N = 20
THRESHOLD, RELIEF = 0.75, 0.35
L2 = 1.0


def collect(split: str, dense: bool = True):
    """Rows of (case id, project, fused rank, evidence vector dict, relevant) for one split."""
    from paqad import store as store_mod
    from paqad.build import sync
    from paqad.config import load_settings
    from paqad.embed.factory import get_embedder
    from paqad.project import ProjectPaths
    from paqad.search import RankingOptions, gather
    from paqad.search.ranking import rank_with_evidence

    options = RankingOptions() if dense else replace(RankingOptions(), dense=False)
    rows = []
    for project in corpora.load_projects(split=split):
        paths = ProjectPaths(corpora.materialise(project))
        settings = load_settings(paths, environ={})
        embedder = get_embedder(settings, paths)
        sync(paths, settings, embedder)
        with store_mod.open_store(paths, readonly=True) as store:
            for case in project.cases:
                pools = gather(store, embedder if dense else None, case["query"])
                results, evidence = rank_with_evidence(store, pools, top_n=TOP_N, options=options)
                expected = {e["path"] for e in case["expected"]}
                for result, ev in zip(results, evidence):
                    rows.append((case["id"], project.name, result.fused_rank, ev.vector(), result.path in expected))
        print(f"  {split} {project.name}: {len(project.cases)} cases", file=sys.stderr, flush=True)
    return rows


def fit(rows, features: tuple[str, ...], name: str, fitted_on: str):
    from paqad.search.confidence import CALIBRATION_VERSION, Calibration

    x = np.array([[r[3][f] for f in features] for r in rows], dtype=np.float64)
    y = np.array([1.0 if r[4] else 0.0 for r in rows])
    means = x.mean(axis=0)
    scales = x.std(axis=0)
    scales[scales < 1e-9] = 1.0
    z = (x - means) / scales
    z = np.hstack([np.ones((len(z), 1)), z])
    w = np.zeros(z.shape[1])
    penalty = np.eye(z.shape[1]) * L2
    penalty[0, 0] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -40, 40)))
        grad = z.T @ (p - y) + penalty @ w
        hess = (z * (p * (1 - p))[:, None]).T @ z + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return Calibration(name, CALIBRATION_VERSION, features, tuple(float(v) for v in w[1:]), float(w[0]),
                       tuple(float(v) for v in means), tuple(float(v) for v in scales), fitted_on)


def report(label: str, rows, calibration) -> dict:
    from paqad.search.confidence import Evidence  # noqa: F401 (documentation of the inputs)

    probs = []
    for r in rows:
        z = calibration.bias + sum(w * (r[3][f] - m) / s for f, w, m, s in
                                   zip(calibration.features, calibration.weights, calibration.means, calibration.scales))
        probs.append(1.0 / (1.0 + np.exp(-max(-40, min(40, z)))))
    probs = np.array(probs)
    y = np.array([1.0 if r[4] else 0.0 for r in rows])
    bins = np.minimum((probs * 10).astype(int), 9)
    ece = 0.0
    lines = [f"#### {label}: reliability ({len(rows)} results)", "", "| confidence | results | mean confidence | share relevant |",
             "|---|---:|---:|---:|"]
    for b in range(10):
        mask = bins == b
        if mask.any():
            ece += mask.sum() / len(rows) * abs(probs[mask].mean() - y[mask].mean())
            lines.append(f"| {b / 10:.1f}-{(b + 1) / 10:.1f} | {mask.sum()} | {probs[mask].mean():.3f} | {y[mask].mean():.3f} |")
    # delivery per case: the floor on confidence (rounded percentages, as delivered)
    by_case: dict[str, list[tuple[int, float, bool]]] = {}
    for r, p in zip(rows, probs):
        by_case.setdefault(r[0], []).append((r[2], float(p), r[4]))
    confident_cases = relief_cases = nothing_cases = 0
    confident_hits = confident_total = relief_hits = relief_total = relief_case_right = 0
    from paqad.search.floor import percent

    for items in by_case.values():
        items.sort()
        conf = [i for i in items if percent(i[1]) >= percent(THRESHOLD)]
        if conf:
            confident_cases += 1
            delivered = conf[:5]
            confident_total += len(delivered)
            confident_hits += sum(1 for i in delivered if i[2])
            continue
        relief = [i for i in items if percent(i[1]) >= percent(RELIEF)][:2]
        if relief:
            relief_cases += 1
            relief_total += len(relief)
            relief_hits += sum(1 for i in relief if i[2])
            relief_case_right += any(i[2] for i in relief)
        else:
            nothing_cases += 1
    n = len(by_case)
    summary = {
        "ece": ece, "cases": n, "confident_share": confident_cases / n,
        "confident_precision": confident_hits / confident_total if confident_total else 0.0,
        "relief_share": relief_cases / n, "relief_precision": relief_hits / relief_total if relief_total else 0.0,
        "relief_cases_right": relief_case_right / relief_cases if relief_cases else 0.0, "nothing_share": nothing_cases / n,
    }
    lines += ["", f"ECE {ece:.3f}; cases {n}: confident form {summary['confident_share']:.2f} "
              f"(passage precision {summary['confident_precision']:.2f}), low-confidence form {summary['relief_share']:.2f} "
              f"(passage precision {summary['relief_precision']:.2f}, a right passage in {summary['relief_cases_right']:.2f} "
              f"of them), nothing {summary['nothing_share']:.2f}", ""]
    print("\n".join(lines))
    return summary


def main() -> int:
    from paqad.search.confidence import AGNOSTIC, COSINE_FEATURES, DENSE_FEATURES, FEATURES, KEYWORD_ONLY, file_name

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the fits to src/paqad/search/calibration/")
    args = parser.parse_args()
    dev, test = collect("dev"), collect("test")
    dev_kw, test_kw = collect("dev", dense=False), collect("test", dense=False)
    cases = len({r[0] for r in dev})
    fits = {
        "Xenova/all-MiniLM-L6-v2": (FEATURES, dev, test),
        AGNOSTIC: (tuple(f for f in FEATURES if f not in COSINE_FEATURES), dev, test),
        KEYWORD_ONLY: (tuple(f for f in FEATURES if f not in DENSE_FEATURES), dev_kw, test_kw),
    }
    for name, (features, train, held_out) in fits.items():
        calibration = fit(train, features, name, f"bench/ranking dev half: {cases} cases, {len(train)} results, top {TOP_N}")
        print(f"### {name}\n")
        report(f"{name} dev (fitted on)", train, calibration)
        report(f"{name} test (held out)", held_out, calibration)
        if args.write:
            OUT_DIR.mkdir(parents=True, exist_ok=True)
            (OUT_DIR / file_name(name)).write_text(json.dumps(calibration.to_dict(), indent=1) + "\n", encoding="utf-8")
            print(f"wrote {OUT_DIR / file_name(name)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
