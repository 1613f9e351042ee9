"""Round 8 (issue 19): a guard on the shipped keyword-only fit: its logit kept as an offset, plus
penalties (no intercept, unstandardised, so a query with no missing term and no undefined name
keeps its old rating exactly) on the query evidence measured at every index size, fitted on dev
rows with negatives. Prints dev/test figures before/after and the keyword-only built-in replay.

    python bench/confidence8/guard.py [features,comma,separated] [partial] [l2] [lpo] [save]
"""
import sys, json
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent)); sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np
import calibration as C
from features import merged
from dataclasses import replace
NEW = tuple(sys.argv[1].split(",")) if len(sys.argv) > 1 else ("missing_terms", "undefined_names", "missing_x_rank", "undefined_x_rank")
partial = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
old = C.main_fit("keyword-only", "main")
dev, tst = merged("keyword", "dev"), merged("keyword", "test")
def logit(cal, rows):
    z = np.full(len(rows), cal.bias)
    for f, w, m, s in zip(cal.features, cal.weights, cal.means, cal.scales):
        z += w * (np.array([r.vector[f] for r in rows]) - m) / s
    return z
def offset_fit(rows, y, l2=1.0):
    off = logit(old, rows)
    x = np.array([[r.vector[f] for f in NEW] for r in rows])
    w = np.zeros(len(NEW))
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(off + x @ w, -40, 40)))
        grad = x.T @ (p - y) + l2 * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(len(NEW))
        step = np.linalg.solve(hess, grad); w -= step
        if np.abs(step).max() < 1e-8: break
    return replace(old, features=old.features + NEW, weights=old.weights + tuple(float(v) for v in w),
                   means=old.means + (0.0,) * len(NEW), scales=old.scales + (1.0,) * len(NEW),
                   fitted_on=old.fitted_on)
y = C.labels(*dev, "partial", partial)
cal = offset_fit(dev[1], y, float(sys.argv[3]) if len(sys.argv) > 3 else 1.0)
print(dict(zip(NEW, [round(w, 3) for w in cal.weights[-len(NEW):]])))
b0 = C.builtin_figures(C.collect_builtin(True, keyword=True), old)
b = C.builtin_figures(C.collect_builtin(True, keyword=True), cal)
for split, data in (("dev", dev), ("test", tst)):
    for when, c in (("before", old), ("guard", cal)):
        s = C.summarise(*data, c)
        print(split, when, f"ece {s['ece']:.3f} prec {s['precision']:.3f} ({s['passages']}) conf {s['answerable_confident']:.3f}/{s['answerable_nothing']:.3f} tgt {s['targeted']:.3f} off {s['off_nothing']:.3f}/{s['off_confident']:.3f} cross {s['cross_confident']:.3f}")
print("builtin before", b0["hits"], b0["forms"], "guard", b["hits"], b["forms"])
if "lpo" in sys.argv:
    project = {p.key: p.project for p in dev[0]}
    held = np.array([project[r.key] for r in dev[1]])
    probs = np.zeros(len(dev[1]))
    for n in sorted(set(held)):
        ins = np.flatnonzero(held != n); out = np.flatnonzero(held == n)
        c = offset_fit([dev[1][i] for i in ins], y[ins])
        probs[out] = C.delivered_confidence([dev[1][i] for i in out], c)
    s = C.summarise_probs(*dev, probs)
    print("LPO guard", f"ece {s['ece']:.3f} prec {s['precision']:.3f} ({s['passages']}) conf {s['answerable_confident']:.3f} off {s['off_nothing']:.3f}/{s['off_confident']:.3f} cross {s['cross_confident']:.3f}")
if "save" in sys.argv:
    json.dump(cal.to_dict(), open("keyword-guard.json", "w"), indent=1)
