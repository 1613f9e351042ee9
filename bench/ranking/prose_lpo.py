"""Fusion and BM25 fundamentals for prose questions, leave-project-out on the dev half (issue 24, round 8).

Gathers every dev case's pools once at a deeper pool (``--pool``, default 200: twice the product's
``POOL_SIZE``; pickled, ``--pools``), then ranks each variant through the same ``rank`` /
``case_score`` path as ``run.py``. A variant is one of

- ``name=value``: a :class:`~paqad.search.RankingOptions` field changed from the default;
- ``depth=D,L``: the dense pool cut to its first D and the BM25 pool to its first L candidates
  (the default: ``RankingOptions.pool_depth`` both; deeper = over-fetch; ``pool_depth=N`` is the
  product's one knob for both);
- ``qwords``: the BM25 pool asked again without the question's frame words
  (:data:`QUESTION_WORDS`);
- a configuration name of ``run.py --list``.

Several, joined by ``+``, make one variant (``rrf_k=40+depth=150,150``). For every variant it
prints nDCG@10 by kind and language, and the **leave-project-out** check: for each dev project
held out, whether the variant beats the default on the *other* projects' mean (it "wins with
that project left out"), and the held-out project's score under the choice made on the others.
A change counts only if it wins with every project left out.

    .venv/bin/python bench/ranking/prose_lpo.py --variants rrf_k=40 rrf_k=100 depth=50,50 file_support=0.1

Dev only: never run on test.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(HERE.parents[2] / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(HERE.parents[1] / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402
from run import TOP_N, case_score, configurations  # noqa: E402
from lpo import groups, load, mean  # noqa: E402
from tune import _value  # noqa: E402

def cut(pools, dense: int, lexical: int):
    """``pools`` with the dense pool cut to ``dense`` and the BM25 pool to ``lexical`` entries."""
    kept = pools.lexical[:lexical]
    return replace(pools, dense=pools.dense[:dense], lexical=kept, bm25={c: pools.bm25[c] for c in kept})


def parse_variant(spec: str, configs):
    """(options, (dense depth, lexical depth), question words) of one ``+``-joined variant spec."""
    options, depth, words = configs["default"], None, False
    for part in spec.split("+"):
        if part == "qwords":
            words = True
        elif part.startswith("depth="):
            d, _, l = part[6:].partition(",")
            depth = (int(d), int(l or d))
        elif "=" in part:
            name, _, raw = part.partition("=")
            options = replace(options, **{name: _value(raw)})
        else:
            changed = {f: getattr(configs[part], f) for f in configs[part].__dataclass_fields__
                       if getattr(configs[part], f) != getattr(configs["default"], f)}
            options = replace(options, **changed)
    return options, depth, words


# The words of a question's frame the product's STOPWORDS keep (English function words; the verbs
# and nouns a question about code is phrased with). Measured as the ``qwords`` variant, left out of
# the product: dev lost (bench/README.md "Round 8: prose questions").
QUESTION_WORDS = frozenset(
    """also am been being both but could did does doing done either else etc even ever has have
    having here how however just like likely lot many may might more most much must neither nor
    not now off once only other others over own rather really same some something somewhere such
    than they thing things those though too under until upon us very was were whereas whether
    while whose yet happen happens happened decide decides decided handled implemented
    implementation library libraries project codebase repo repository logic located
    live lives responsible work works working actually exactly part parts piece way ways place
    places defined""".split()
)
_FRAME = re.compile(r"\b(" + "|".join(sorted(QUESTION_WORDS)) + r")\b", re.IGNORECASE)

_REQUERIED: dict[tuple[str, bool], tuple[list[int], dict[int, float]]] = {}


def requery(store, case, pools, flag: bool, pool: int):
    """``pools`` with the BM25 pool asked again without the question's frame words
    (:data:`QUESTION_WORDS`, free-standing ones only: not inside an identifier)."""
    from paqad.search.lexical import lexical_hits

    key = (case["id"], flag)
    if key not in _REQUERIED:
        text = pools.info.lexical_text if flag else pools.info.text
        hits = lexical_hits(store, _FRAME.sub(" ", text), pool, None)
        _REQUERIED[key] = ([c for c, _ in hits], dict(hits))
    lexical, bm25 = _REQUERIED[key]
    return replace(pools, lexical=lexical, bm25=bm25)


def scores(items, options, depth, words=False, pool=200) -> dict[str, tuple[float, float | None]]:
    """case id -> (nDCG@10, def@1 or None for a non-symbol case)."""
    from paqad.search import rank

    out = {}
    for _, _, store, case, pools in items:
        p = pools[options.long_prompts]
        if words:
            p = requery(store, case, p, options.long_prompts, pool)
        if depth is not None:  # else rank cuts them to the options' pool_depth
            p = cut(p, *depth)
        results = rank(store, p, top_n=TOP_N, options=options)
        s = case_score(case, [(r.path, r.start_line, r.end_line) for r in results])
        out[case["id"]] = (s.ndcg, (1.0 if s.def_rank == 1 else 0.0) if case["kind"] == "symbol" else None)
    return out


def leave_project_out(results, g, label: str) -> tuple[int, int, float, float, list[str]]:
    """(projects held out with the variant winning on the others, projects, case-weighted
    held-out default, case-weighted held-out score under the choice, projects it loses when held out)."""
    names = [k[5:] for k in g if k.startswith("proj ")]
    wins, total_d, total_c, n, lost = 0, 0.0, 0.0, 0, []
    for held in names:
        others = [i for p in names if p != held for i in g[f"proj {p}"]]
        gain = mean(results[label], others) - mean(results["default"], others)
        chosen = label if gain > 1e-9 else "default"
        wins += gain > 1e-9
        ids = g[f"proj {held}"]
        d, c = mean(results["default"], ids), mean(results[chosen], ids)
        if c < d - 1e-9:
            lost.append(f"{held} {d:.3f}->{c:.3f}")
        total_d += d * len(ids)
        total_c += c * len(ids)
        n += len(ids)
    return wins, len(names), total_d / n, total_c / n, lost


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", default="")
    parser.add_argument("--variants", nargs="*", default=[], help="name=value, depth=D,L, a config; '+' joins")
    parser.add_argument("--pool", type=int, default=200, help="gather depth (>= every depth= asked)")
    parser.add_argument("--pools", type=Path, default=None, help="pickle of the gathered pools")
    parser.add_argument("--changed", action="store_true", help="list the cases each variant changes")
    args = parser.parse_args()
    projects = corpora.load_projects([p for p in args.projects.split(",") if p] or None, "dev")
    items = load(projects, args.pools, args.pool)
    configs = configurations()
    variants = {"default": (configs["default"], None, False)}
    for spec in args.variants:
        variants[spec] = parse_variant(spec, configs)
    results = {}
    for label, (options, depth, words) in variants.items():
        results[label] = scores(items, options, depth, words, args.pool)
        print(f"  ranked {label}", file=sys.stderr, flush=True)
    g = groups(items)
    labels = list(variants)
    print("| group | n | " + " | ".join(labels) + " |")
    print("|---|---:|" + "---:|" * len(labels))
    for name, ids in g.items():
        if name.startswith("proj "):
            continue
        print(f"| {name} | {len(ids)} | " + " | ".join(f"{mean(results[lab], ids):.3f}" for lab in labels) + " |")
    sym = g.get("kind symbol", [])
    print("| def@1 | %d | " % len(sym) + " | ".join(f"{mean(results[lab], sym, 1):.3f}" for lab in labels) + " |")
    print("\nleave-project-out: variant | wins with each project left out | held-out default -> chosen | lost")
    for lab in labels[1:]:
        wins, n, d, c, lost = leave_project_out(results, g, lab)
        print(f"  {lab:40} {wins:2}/{n}  {d:.4f} -> {c:.4f}  {'; '.join(lost)}")
    if args.changed:
        base = results["default"]
        for lab in labels[1:]:
            moved = [(cid, base[cid][0], results[lab][cid][0]) for cid in base
                     if abs(base[cid][0] - results[lab][cid][0]) > 1e-9 or base[cid][1] != results[lab][cid][1]]
            print(f"\n{lab}: " + ", ".join(f"{c} {a:.2f}->{b:.2f}" for c, a, b in moved))
    return 0


if __name__ == "__main__":
    sys.exit(main())
