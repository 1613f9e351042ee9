"""Round 8 (issue 19) experiments on the cached calibration rows (bench/.cache/calibration-rows/,
written by bench/calibration.py or its per-project caches): leave-project-out dev figures of feature
sets and targets, matched precision (at 0.50 / 0.60 / 0.65 of answerable prompts confident), the
built-in eval replay, the small-index regime (sized query evidence replaced by the fit's
unknown_query) and, with ``test``, the held-out half.

    python bench/confidence8/features.py keyword [builtin] [small] [test] [nolpo]
    UNKNOWN=q75 python bench/confidence8/features.py minilm "old features,old + lead" 1.0,0.7 builtin
"""
import sys, os
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import numpy as np
import calibration as C
from paqad.search.confidence import FEATURES, DENSE_FEATURES, COSINE_FEATURES, PASSAGE_FEATURES

NEW_Q = ("missing_terms", "undefined_names", "missing_x_rank", "undefined_x_rank")
NEW_P = ("file_lead_x_rank",)

def sets(kind):
    every = tuple(FEATURES)
    if kind == "minilm":
        base = every
    elif kind == "agnostic":
        base = tuple(f for f in every if f not in COSINE_FEATURES)
    else:
        base = tuple(f for f in every if f not in DENSE_FEATURES)
    return base

def merged(tag, split):
    import pickle, glob
    prompts, rows = [], []
    for f in sorted(glob.glob(str(C.ROWS_CACHE / f"{tag}-{split}-*.pickle"))):
        p, r = pickle.loads(open(f, "rb").read())
        prompts += p; rows += r
    return prompts, rows


def small(rows, unknown):
    """The rows as a small index (< 500 chunks) would see them: the sized query evidence unknown,
    stood in for by the fit's unknown_query (missing_terms / undefined_names stay measured)."""
    from dataclasses import replace
    from paqad.search.confidence import SIZED_FIELDS
    out = []
    for r in rows:
        q = replace(r.evidence.query, **dict(zip(SIZED_FIELDS, unknown)))
        out.append(replace(r, evidence=replace(r.evidence, query=q)))
    return out

def matched(prompts, rows, probs, share=0.60):
    """Precision of the first-5 passages at the threshold that delivers `share` of answerable prompts confident."""
    y = C.labels(prompts, rows)
    ans = {p.key for p in prompts if p.group == C.ANSWERABLE}
    first = {}
    for r, p in zip(rows, probs):
        if r.fused_rank == 1:
            first[r.key] = p
    vals = sorted((first.get(k, 0.0) for k in ans), reverse=True)
    t = vals[int(share * len(ans)) - 1]
    count = {}
    hits = []
    for r, p, l in zip(rows, probs, y):
        if p >= t and count.get(r.key, 0) < 5:
            count[r.key] = count.get(r.key, 0) + 1
            hits.append(l)
    return float(np.mean(hits)), len(hits)

def by_project(prompts, rows, probs):
    y = C.labels(prompts, rows)
    proj = {p.key: (p.project, p.group) for p in prompts}
    out = {}
    count = {}
    for r, p, l in zip(rows, probs, y):
        if p >= 0.745 and count.get(r.key, 0) < 5:
            count[r.key] = count.get(r.key, 0) + 1
            name, g = proj[r.key]
            d = out.setdefault(name, [0, 0, 0.0])
            d[0] += 1; d[1] += l; d[2] += p
    return {k: (v[0], v[1] / v[0], v[2] / v[0]) for k, v in sorted(out.items())}

def unknown_variant(dev):
    import os
    from paqad.search.confidence import SIZED_FIELDS
    how = os.environ.get("UNKNOWN", "mean")
    if how == "mean":
        return C.unknown_query(*dev)
    prompts, rows = dev
    yf = C.labels(prompts, rows, "file")
    ans = {p.key for p in prompts if p.group == C.ANSWERABLE}
    firsts = [(r.evidence.query, l) for r, l in zip(rows, yf) if r.fused_rank == 1 and r.key in ans]
    if how == "right":
        qs = [q for q, l in firsts if l]
        return tuple(float(np.mean([getattr(q, n) for q in qs])) for n in SIZED_FIELDS)
    if how.startswith("q"):
        qv = float(how[1:])
        return tuple(float(np.percentile([getattr(q, n) for q, _ in firsts], qv if n not in ("absent_terms",) else 100 - qv)) for n in SIZED_FIELDS)

def fmt(tag, s):
    return (f" | {tag} ece {s['ece']:.3f} prec {s['precision']:.3f} ({s['passages']}) conf {s['answerable_confident']:.3f}"
            f" tgt {s['targeted']:.3f} off {s['off_nothing']:.3f}/{s['off_confident']:.3f} cross {s['cross_confident']:.3f}")

def run(kind, tag, variants, partials, lpo=True, test=False, smallrun=False):
    dev = merged(tag, "dev")
    tst = merged(tag, "test") if test else None
    for vname, feats in variants.items():
        for partial in partials:
            y = C.labels(*dev, "partial", partial)
            line = f"{kind} {vname:28s} p{partial:.1f}"
            if lpo:
                probs = C.leave_project_out(*dev, y, feats, kind)
                s = C.summarise_probs(*dev, probs)
                m5, m6, m65 = matched(*dev, probs, 0.5), matched(*dev, probs, 0.6), matched(*dev, probs, 0.65)
                if "byproject" in sys.argv:
                    print(vname, partial, by_project(*dev, probs))
                line += f" | LPO ece {s['ece']:.3f} prec {s['precision']:.3f} ({s['passages']}) conf {s['answerable_confident']:.3f} tgt {s['targeted']:.3f} off {s['off_nothing']:.3f}/{s['off_confident']:.3f} cross {s['cross_confident']:.3f} matched@.5/.6/.65 {m5[0]:.3f}/{m6[0]:.3f}/{m65[0]:.3f}"
            if test:
                unknown = C.unknown_query(*dev)
                cal = C.fit(dev[1], y, feats, kind, "", unknown)
                s = C.summarise(*tst, cal)
                line += f" | TEST ece {s['ece']:.3f} prec {s['precision']:.3f} ({s['passages']}) conf {s['answerable_confident']:.3f} tgt {s['targeted']:.3f} off {s['off_nothing']:.3f}/{s['off_confident']:.3f} cross {s['cross_confident']:.3f}"
            if "builtin" in sys.argv:
                unknown = unknown_variant(dev)
                cal = C.fit(dev[1], y, feats, kind, "", unknown)
                b = C.builtin_figures(C.collect_builtin(True, keyword=(tag == "keyword")), cal)
                line += f" | builtin {b['hits']}/{b['targeted']} succ {b['success']:.3f} {b['forms']}"
            if smallrun:
                unknown = C.unknown_query(*dev)
                cal = C.fit(dev[1], y, feats, kind, "", unknown)
                line += fmt("SMALL dev", C.summarise(dev[0], small(dev[1], unknown), cal))
            print(line, flush=True)

if __name__ == "__main__":
    what = sys.argv[1]
    if what == "keyword":
        base = sets("keyword")
        old = tuple(C.main_fit("keyword-only", "main").features)
        run("keyword-only", "keyword", {
            "old features": old,
            "all - new": tuple(f for f in base if f not in NEW_Q + NEW_P),
            "all": base,
            "all - passage": tuple(f for f in base if f not in PASSAGE_FEATURES),
        }, [1.0, 0.7], lpo="nolpo" not in sys.argv, smallrun="small" in sys.argv, test="test" in sys.argv)

if __name__ == "__main__" and sys.argv[1] in ("minilm", "agnostic"):
    kind = sys.argv[1]
    name = "Xenova/all-MiniLM-L6-v2" if kind == "minilm" else "model-agnostic"
    base = sets(kind)
    old = tuple(C.main_fit(name, "main").features)
    variants = {"old features": old, "all - new": tuple(f for f in base if f not in NEW_Q + NEW_P), "all": base,
                "all - newP": tuple(f for f in base if f not in NEW_P), "all - newQ": tuple(f for f in base if f not in NEW_Q),
                "old + newQ": old + NEW_Q, "old + lead": old + ("lead_x_rank",), "old + lead + newQ": old + ("lead_x_rank",) + NEW_Q,
                "old + lead + newQ + fl": old + ("lead_x_rank", "file_lead_x_rank") + NEW_Q}
    pick = [v for v in sys.argv[2].split(",")] if len(sys.argv) > 2 and sys.argv[2] != "-" else list(variants)
    parts = [float(x) for x in sys.argv[3].split(",")] if len(sys.argv) > 3 else [1.0, 0.7]
    run(name, "minilm", {k: variants[k] for k in pick}, parts, lpo="nolpo" not in sys.argv,
        test="test" in sys.argv, smallrun="small" in sys.argv)
