"""Round 10 (issue 19, confidence precision) experiments on the cached calibration rows
(``bench/.cache/calibration-rows/minilm-*``, written by bench/calibration.py or
bench/confidence10/collect_ready.py): leave-project-out dev figures of the shipped feature list
plus round 10's features (``paqad.search.confidence.FEATURES``' last group), with partial targets,
and the dev half's wrong confident deliveries.

    python bench/confidence10/features.py lpo [SET,SET,...] [PARTIAL]   # leave-project-out, dev only
    python bench/confidence10/features.py wrong                          # dev's wrong confident firsts (LPO of the shipped list)
"""
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "confidence8"))
import numpy as np  # noqa: E402

import calibration as C  # noqa: E402
from features import matched, merged  # noqa: E402  (bench/confidence8)

NEW = C.ROUND_10_FEATURES


def shipped() -> tuple[str, ...]:
    return tuple(C.main_fit(C.MINILM, "HEAD").features)


def variants() -> dict[str, tuple[str, ...]]:
    old = shipped()
    out = {"shipped": old, "shipped + new": old + NEW, "shipped + new + lead": old + NEW + ("lead_x_rank",),
           "shipped + lead": old + ("lead_x_rank",)}
    for f in NEW + ("inv_chunk_in_file", "file_share", "term_coverage", "coverage_x_rank", "file_lead_x_rank"):
        out[f"shipped + {f}"] = old + (f,)
    for f in NEW:
        out[f"shipped + new - {f}"] = old + tuple(g for g in NEW if g != f)
    return out


def lpo(names: list[str], partial: float) -> None:
    dev = merged("minilm", "dev")
    y = C.labels(*dev, "partial", partial)
    every = variants()
    for name in names:
        feats = every[name]
        probs = C.leave_project_out(*dev, y, feats, C.MINILM)
        s = C.summarise_probs(*dev, probs)
        m = [matched(*dev, probs, share)[0] for share in (0.55, 0.60, 0.65)]
        print(f"| {name} | {partial:g} | {s['ece']:.3f} | {s['precision']:.3f} ({s['passages']}) | "
              f"{s['answerable_confident']:.3f} | {s['targeted']:.3f} | {s['off_nothing']:.3f} / {s['off_confident']:.3f} | "
              f"{s['cross_confident']:.3f} | {m[0]:.3f} / {m[1]:.3f} / {m[2]:.3f} |", flush=True)


def wrong() -> None:
    """The dev half's confident first passages out of fold (shipped list, partial 0.7): the right and
    the wrong ones side by side on the candidate evidence, then the wrong ones listed."""
    dev = merged("minilm", "dev")
    prompts, rows = dev
    y = C.labels(*dev, "partial", 0.7)
    probs = C.leave_project_out(*dev, y, shipped(), C.MINILM)
    right = C.labels(*dev)
    file_right = C.labels(*dev, "file")
    cases = {p.key: p for p in prompts}
    firsts = [(r, p, l, fl) for r, p, l, fl in zip(rows, probs, right, file_right) if r.fused_rank == 1 and p >= 0.745
              and cases[r.key].group == C.ANSWERABLE]
    print(f"confident firsts {len(firsts)}, right {sum(l for _, _, l, _ in firsts):.0f}, "
          f"right file wrong chunk {sum(1 for _, _, l, fl in firsts if fl and not l)}")
    for feature in ("agree_x_rank", "tops_chunk_x_rank", "tops_file_x_rank", "pair_file_x_rank", "thin_x_rank",
                    "lead_x_rank", "term_coverage", "symbol_query", "cosine", "defines", "inv_chunk_in_file"):
        a = [r.vector[feature] for r, _, l, _ in firsts if l]
        b = [r.vector[feature] for r, _, l, _ in firsts if not l]
        print(f"  {feature:24s} right {np.mean(a):.3f}  wrong {np.mean(b):.3f}")
    kinds = Counter((cases[r.key].case["kind"], bool(l)) for r, _, l, _ in firsts)
    print("  by kind (kind, right): ", dict(kinds))
    for r, p, l, fl in firsts:
        if l:
            continue
        case = cases[r.key].case
        want = case.get("definition") or case["expected"][0]
        e = r.evidence
        print(f"- {r.key} [{case['kind']}] {case['query'][:70]!r} p={p:.2f} first {r.path}:{r.start_line}-{r.end_line} "
              f"({r.symbol}) {'right file' if fl else 'wrong file'}; want {want.get('path')}:{want.get('start_line', '')}"
              f" dense {e.dense_rank} lex {e.lexical_rank} agree {e.tops_same_chunk:d}/{e.tops_same_file:d} "
              f"pair {e.second_same_file:d} thin {e.thin:d} cov {e.term_coverage:.2f} lead {1 - e.runner_up:.2f}")




def passages() -> None:
    """Every confident passage (the first MAX_PASSAGES at or above the floor) out of fold (shipped
    list, partial 0.7): right share by rank and query kind, and the evidence of rank >= 2 ones."""
    from paqad.config import MAX_PASSAGES
    prompts, rows = dev = merged("minilm", "dev")
    y = C.labels(*dev, "partial", 0.7)
    probs = C.leave_project_out(*dev, y, shipped(), C.MINILM)
    right = C.labels(*dev)
    cases = {p.key: p for p in prompts}
    count, table = Counter(), Counter()
    first_defines = {r.key: r.evidence.defines for r in rows if r.fused_rank == 1}
    later = []
    for r, p, l in zip(rows, probs, right):
        if p < 0.745 or count[r.key] >= MAX_PASSAGES:
            continue
        count[r.key] += 1
        kind = cases[r.key].case["kind"] if cases[r.key].case else cases[r.key].group
        table[kind, min(r.fused_rank, 3), bool(l)] += 1
        if r.fused_rank > 1:
            later.append((r, p, l, first_defines[r.key]))
    for k in sorted({(a, b) for a, b, _ in table}):
        n_right, n_wrong = table[k + (True,)], table[k + (False,)]
        print(f"  {k[0]:14s} rank {k[1]}{'+' if k[1] == 3 else ''}: {n_right} right, {n_wrong} wrong")
    for feature in ("fused_rel", "defines", "inv_chunk_in_file", "file_share", "term_coverage", "cosine", "bm25_rel"):
        a = [r.vector[feature] for r, _, l, _ in later if l]
        b = [r.vector[feature] for r, _, l, _ in later if not l]
        print(f"  later {feature:18s} right {np.mean(a) if a else float('nan'):.3f} ({len(a)})  wrong {np.mean(b):.3f} ({len(b)})")
    a = [fd for _, _, l, fd in later if l]
    b = [fd for _, _, l, fd in later if not l]
    print(f"  later first_defines      right {np.mean(a) if a else float('nan'):.3f}  wrong {np.mean(b):.3f}")




def kind_labels(prompts, rows, partial: float, symbol_partial: float) -> np.ndarray:
    """Partial targets by the case's kind: ``symbol_partial`` for another chunk of a symbol case's
    definition file (the definition is the one answer), ``partial`` for the other kinds."""
    chunk, file_ = C.labels(prompts, rows, "chunk"), C.labels(prompts, rows, "file")
    cases = {p.key: p.case for p in prompts}
    weight = np.array([symbol_partial if cases[r.key] is not None and cases[r.key].get("kind") == "symbol"
                       and cases[r.key].get("definition") else partial for r in rows])
    return np.maximum(chunk, weight * file_)


def lpo_kind(names: list[str], partial: float, symbol_partial: float, tag: str = "minilm") -> None:
    dev = merged(tag, "dev")
    y = kind_labels(*dev, partial, symbol_partial)
    every = variants() if tag == "minilm" else keyword_variants()
    for name in names:
        probs = C.leave_project_out(*dev, y, every[name], C.MINILM if tag == "minilm" else "keyword-only")
        s = C.summarise_probs(*dev, probs)
        m = [matched(*dev, probs, share)[0] for share in (0.55, 0.60, 0.65)]
        print(f"| {name} | {partial:g} / symbol {symbol_partial:g} | {s['ece']:.3f} | {s['precision']:.3f} ({s['passages']}) | "
              f"{s['answerable_confident']:.3f} | {s['targeted']:.3f} | {s['off_nothing']:.3f} / {s['off_confident']:.3f} | "
              f"{s['cross_confident']:.3f} | {m[0]:.3f} / {m[1]:.3f} / {m[2]:.3f} |", flush=True)




def builtin(names: list[str], partial: float, symbol_partial: float, tag: str = "minilm") -> None:
    """The built-in rag eval replay (bench/calibration.py's collect_builtin cache) of each set fitted
    on every dev row (kind targets, the small index assumed at the 75th percentile)."""
    name = C.MINILM if tag == "minilm" else "keyword-only"
    prompts, rows = dev = merged(tag, "dev")
    unknown = C.unknown_query(prompts, rows, 75)
    records = C.collect_builtin(True, keyword=tag == "keyword")
    before = C.main_fit(name, "HEAD")
    b = C.builtin_figures(records, before)
    print(f"| shipped fit (HEAD) | {b['hits']}/{b['targeted']} | {b['success']:.3f} | {b['forms']} | {b['passes']} |")
    every = variants() if tag == "minilm" else keyword_variants()
    for n in names:
        cal = C.fit(rows, kind_labels(*dev, partial, symbol_partial), every[n], name, "", unknown)
        b = C.builtin_figures(records, cal)
        print(f"| {n} {partial:g}/{symbol_partial:g} | {b['hits']}/{b['targeted']} | {b['success']:.3f} | {b['forms']} | {b['passes']} |",
              flush=True)


def keyword_variants() -> dict[str, tuple[str, ...]]:
    from paqad.search.confidence import DENSE_FEATURES, FEATURES
    old = tuple(C.main_fit("keyword-only", "HEAD").features)
    every = tuple(f for f in FEATURES if f not in DENSE_FEATURES)
    q8 = ("missing_terms", "undefined_names", "missing_x_rank", "undefined_x_rank")
    new = tuple(f for f in NEW if f not in DENSE_FEATURES)
    undefined = ("undefined_names", "undefined_x_rank")
    reach = ("bm25_reach", "reach_x_rank")
    return {"shipped": old, "shipped + q8": old + q8, "shipped + q8 + new": old + q8 + new, "all": every,
            "shipped + new": old + new, "shipped + undefined": old + undefined,
            "shipped + undefined + new": old + undefined + new,
            "shipped + undefined + reach + new": old + undefined + reach + new,
            "shipped + undefined + new - answered": old + undefined + tuple(f for f in new if f != "answered_above")}


def keyword_test(names: list[str]) -> None:
    """Keyword-only candidates fitted on every dev row (partial 0.7, symbol cases 0, small index at
    the 75th percentile), measured once on the test half, beside the shipped keyword-only fit."""
    dev, test = merged("keyword", "dev"), merged("keyword", "test")
    unknown = C.unknown_query(*dev, 75)
    records = C.collect_builtin(True, keyword=True)
    fits = {"shipped": C.main_fit("keyword-only", "HEAD")}
    every = keyword_variants()
    for n in names:
        fits[n] = C.fit(dev[1], kind_labels(*dev, 0.7, 0.0), every[n], "keyword-only", "", unknown)
    for n, cal in fits.items():
        b = C.builtin_figures(records, cal)
        for split, data in (("dev", dev), ("test", test)):
            s = C.summarise(*data, cal)
            print(f"| {n} | {split} | {s['ece']:.3f} | {s['precision']:.3f} ({s['passages']}) | "
                  f"{s['answerable_confident']:.3f} / {s['answerable_nothing']:.3f} | {s['targeted']:.3f} | "
                  f"{s['off_nothing']:.3f} / {s['off_confident']:.3f} | {s['cross_confident']:.3f} | "
                  f"{b['hits']}/{b['targeted']} |", flush=True)


if __name__ == "__main__":
    what, rest = sys.argv[1], sys.argv[2:]
    if what == "lpo":
        lpo(rest[0].split(",") if rest and rest[0] != "-" else list(variants()), float(rest[1]) if len(rest) > 1 else 0.7)
    elif what == "wrong":
        wrong()
    elif what == "passages":
        passages()
    elif what == "kind":
        lpo_kind(rest[0].split(","), float(rest[1]), float(rest[2]), rest[3] if len(rest) > 3 else "minilm")
    elif what == "keyword-test":
        keyword_test(rest[0].split(","))
    elif what == "builtin":
        builtin(rest[0].split(","), float(rest[1]), float(rest[2]), rest[3] if len(rest) > 3 else "minilm")
