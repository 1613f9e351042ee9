"""Passage choice on the ranking benchmark's dev half: which chunk of the right file comes first,
and what a ranking variant does to it (issue 19, "the passage that answers").

Pools are gathered once per case (both ``long_prompts`` flags) and kept in a pickle under
``bench/.cache/`` (keyed by project, commit and query), so variants of
:class:`paqad.search.RankingOptions` score in seconds:

    .venv/bin/python bench/passages/choice_tune.py --misses                # the dev misses, default ranking
    .venv/bin/python bench/passages/choice_tune.py --configs default,no-passage-choice
    .venv/bin/python bench/passages/choice_tune.py --sweep passage_share_weight=0,0.5,1

Printed per variant: passage@1 / passage@5 of the where, architecture and both kinds (labelled
cases), nDCG@10 per kind and per language, def@1. ``--misses``: every where/architecture case
whose right file (an expected entry with ``lines``) is among the files of the first 5 chunks
while that file's first chunk is not right: the chunk returned, and the file's right candidates
with their final-score rank within the file. Dev only: never tune on test.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import pickle
import sys
from dataclasses import replace
from pathlib import Path
from statistics import fmean

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "bench" / "ranking"))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(REPO / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402
import metrics  # noqa: E402
from run import TOP_N, case_score  # noqa: E402

POOLS_CACHE = REPO / "bench" / ".cache" / "passage-choice-pools.pkl"


def _value(raw: str):
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return raw


def _key(project, case) -> str:
    return hashlib.sha256(f"{project.name}\0{project.commit}\0{case['query']}".encode()).hexdigest()[:20]


def load(projects, refresh: bool = False):
    """``[(store, case, pools by long_prompts flag, language)]`` for every case of ``projects``;
    the stores stay open. Pools come from :data:`POOLS_CACHE` when present (``refresh``: not)."""
    from paqad import store as store_mod
    from paqad.config import load_settings
    from paqad.embed.factory import get_embedder
    from paqad.project import ProjectPaths
    from paqad.search import gather

    cache = {} if refresh or not POOLS_CACHE.exists() else pickle.loads(POOLS_CACHE.read_bytes())
    items, dirty = [], False
    for project in projects:
        paths = ProjectPaths(corpora.materialise(project))
        store = store_mod.open_store(paths, readonly=True)
        embedder = None
        for case in project.cases:
            key = _key(project, case)
            if key not in cache:
                if embedder is None:
                    embedder = get_embedder(load_settings(paths, environ={}), paths)
                cache[key] = {flag: gather(store, embedder, case["query"], long_prompts=flag) for flag in (True, False)}
                dirty = True
            items.append((store, case, cache[key], project.language))
    if dirty:
        POOLS_CACHE.write_bytes(pickle.dumps(cache))
    return items


def final_scores(store, pools, options) -> tuple[dict[int, float], dict]:
    """Chunk id -> final score after the pipeline, and the candidates' rows (as ``rank`` computes them)."""
    from paqad.search.fusion import weighted_fusion
    from paqad.search.ranking import _exempt
    from paqad.search.signals import RankingContext, apply_pipeline

    scores = weighted_fusion(pools, options)
    rows = store.chunks_by_id(list(scores))
    scores = {cid: s for cid, s in scores.items() if cid in rows}
    context = RankingContext(info=pools.info, options=options, rows=rows, best=max(scores.values()),
                             definitions=pools.definitions if options.symbols else (),
                             named_paths=pools.named_paths, exempt=_exempt(store), bm25=pools.bm25)
    return apply_pipeline(scores, context), rows


def evaluate(items, options) -> dict[str, object]:
    """Per-case scores (case id -> run.Score) under ``options``."""
    from paqad.search import rank

    out = {}
    for store, case, pools, language in items:
        results = rank(store, pools[options.long_prompts], top_n=TOP_N, options=options)
        out[case["id"]] = case_score(case, [(r.path, r.start_line, r.end_line) for r in results])
    return out


def summary(items, scores) -> dict[str, float]:
    by_kind: dict[str, list] = {}
    by_lang: dict[str, list] = {}
    passage: dict[str, list] = {"where": [], "architecture": [], "wa": []}
    defs = []
    for _, case, _, language in items:
        s = scores[case["id"]]
        by_kind.setdefault(case["kind"], []).append(s.ndcg)
        by_lang.setdefault(language, []).append(s.ndcg)
        if case["kind"] in ("where", "architecture") and s.labelled:
            passage[case["kind"]].append(s.passage_rank)
            passage["wa"].append(s.passage_rank)
        if case["kind"] == "symbol":
            defs.append(1.0 if s.def_rank == 1 else 0.0)
    out: dict[str, float] = {"ndcg": fmean(s.ndcg for s in scores.values())}
    for k, ranks in passage.items():
        out[f"{k}@1"] = fmean(1.0 if r == 1 else 0.0 for r in ranks)
        out[f"{k}@5"] = fmean(1.0 if r is not None and r <= 5 else 0.0 for r in ranks)
    out.update({f"k:{k}": fmean(v) for k, v in by_kind.items()})
    out.update({f"l:{k}": fmean(v) for k, v in sorted(by_lang.items())})
    out["def@1"] = fmean(defs) if defs else 0.0
    return out


def show(label: str, result: dict[str, float], base: dict[str, float] | None = None) -> None:
    head = ["where@1", "where@5", "architecture@1", "architecture@5", "wa@1", "wa@5", "ndcg", "def@1"]
    kinds = [k for k in result if k.startswith("k:")]
    langs = [k for k in result if k.startswith("l:")]
    cells = []
    for k in head + kinds + langs:
        v = result[k]
        mark = ""
        if base is not None and k in base and (k.startswith(("k:", "l:")) or k == "ndcg") and v < base[k] - 1e-9:
            mark = "!"  # a file-level loss against the base
        cells.append(f"{v:.3f}{mark}")
    print(f"{label:44} " + " ".join(f"{c:>7}" for c in cells), flush=True)


def header(result: dict[str, float]) -> None:
    names = ["w@1", "w@5", "a@1", "a@5", "wa@1", "wa@5", "ndcg", "def@1"] + [
        k.split(":", 1)[1][:7] for k in result if k.startswith(("k:", "l:"))]
    print(f"{'variant':44} " + " ".join(f"{n:>7}" for n in names))


def _first_line(text: str) -> str:
    for line in text.split("\n"):
        if line.strip():
            return line.strip()[:70]
    return ""


def misses(items, options) -> None:
    """Print the right-file-wrong-passage cases of where/architecture questions (see the module doc)."""
    from paqad.search import rank
    from paqad.search.signals.passage_choice import is_thin

    n = 0
    for store, case, pools, _ in items:
        if case["kind"] not in ("where", "architecture") or not metrics.has_chunk_labels(case):
            continue
        p = pools[options.long_prompts]
        results = rank(store, p, top_n=TOP_N, options=options)
        chunks = [(r.path, r.start_line, r.end_line) for r in results]
        labelled = {e["path"]: e for e in case["expected"] if e.get("lines")}
        top5_files = metrics.distinct_files([c[0] for c in chunks[:5]])
        right_rank = metrics.passage_rank(case, chunks)
        for file_rank, path in enumerate(metrics.distinct_files([c[0] for c in chunks]), start=1):
            if path not in labelled or path not in top5_files:
                continue
            first = next(r for r in results if r.path == path)
            if metrics.chunk_is_right(case, path, first.start_line, first.end_line):
                break  # the file's first chunk is right
            n += 1
            final, rows = final_scores(store, p, options)
            mine = sorted((cid for cid in final if rows[cid].path == path), key=lambda c: -final[c])
            rights = [(i, cid) for i, cid in enumerate(mine, start=1)
                      if metrics.chunk_is_right(case, path, rows[cid].start_line, rows[cid].end_line)]
            row = rows[first.chunk_id]
            print(f"\n{case['id']} [{case['kind']}] file#{file_rank} passage@{right_rank}: {case['query'][:110]!r}")
            print(f"  labels {path} {labelled[path]['lines']}; file candidates {len(mine)}")
            print(f"  FIRST {row.start_line}-{row.end_line} sym={row.symbol} defines={row.defines} thin={is_thin(row)} "
                  f"cos={p.cosine.get(first.chunk_id, 0):.3f} bm25={p.bm25.get(first.chunk_id, 0):.2f}: {_first_line(row.text)}")
            for i, cid in rights[:3]:
                r = rows[cid]
                print(f"  RIGHT #{i} {r.start_line}-{r.end_line} sym={r.symbol} defines={r.defines} thin={is_thin(r)} "
                      f"cos={p.cosine.get(cid, 0):.3f} bm25={p.bm25.get(cid, 0):.2f} "
                      f"score={final[cid] / final[first.chunk_id]:.2f}x: {_first_line(r.text)}")
            if not rights:
                all_ids = store.chunk_ids_of_files([path], 500)
                all_rows = store.chunks_by_id(all_ids)
                absent = [r for r in all_rows.values()
                          if metrics.chunk_is_right(case, path, r.start_line, r.end_line)]
                print(f"  RIGHT none among candidates; {len(absent)} right chunks in the file: " +
                      ", ".join(f"{r.start_line}-{r.end_line} {r.symbol}" for r in absent[:4]))
            break
    print(f"\n{n} cases")


def main() -> int:
    from paqad.search import RankingOptions, ablations

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", default="")
    parser.add_argument("--configs", default="default")
    parser.add_argument("--set", nargs="*", default=[], help="base option values, name=value")
    parser.add_argument("--sweep", nargs="*", default=[], help="name=v1,v2,... (one option at a time)")
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--refresh", action="store_true", help="gather the pools again")
    args = parser.parse_args()
    projects = corpora.load_projects([p for p in args.projects.split(",") if p] or None, "dev")
    items = load(projects, args.refresh)
    configs = ablations()
    base = RankingOptions()
    for item in args.set:
        name, _, raw = item.partition("=")
        base = replace(base, **{name: _value(raw)})
    if args.misses:
        misses(items, base)
        return 0
    base_result = summary(items, evaluate(items, base))
    header(base_result)
    show("base", base_result)
    for name in [c for c in args.configs.split(",") if c and c != "default"]:
        show(name, summary(items, evaluate(items, configs[name])), base_result)
    for item in args.sweep:
        name, _, raws = item.partition("=")
        for raw in raws.split(","):
            show(f"{name}={raw}", summary(items, evaluate(items, replace(base, **{name: _value(raw)}))), base_result)
    return 0


if __name__ == "__main__":
    sys.exit(main())


def feature_groups(items, options):
    """For every labelled where/architecture case and each of its labelled files among the first
    5 result files: ``(case id, file rank, [feature dict per candidate chunk of that file])``,
    the dicts holding the chunk's evidence and ``right`` (metrics.chunk_is_right)."""
    from paqad.search import rank
    from paqad.search.fusion import weighted_fusion
    from paqad.search.priors import symbol_word_share
    from paqad.search.signals.passage_choice import code_lines, is_thin

    groups = []
    for store, case, pools, _ in items:
        if case["kind"] not in ("where", "architecture") or not metrics.has_chunk_labels(case):
            continue
        p = pools[options.long_prompts]
        results = rank(store, p, top_n=TOP_N, options=options)
        files = metrics.distinct_files([r.path for r in results])
        top5 = metrics.distinct_files([r.path for r in results[:5]])
        labelled = {e["path"] for e in case["expected"] if e.get("lines")}
        final, rows = final_scores(store, p, options)
        fused = weighted_fusion(p, options)
        dense_rank = {cid: i for i, cid in enumerate(p.dense, 1)}
        lex_rank = {cid: i for i, cid in enumerate(p.lexical, 1)}
        for path in top5:
            if path not in labelled:
                continue
            mine = sorted((cid for cid in final if rows[cid].path == path), key=lambda c: -final[c])
            feats = []
            for cid in mine:
                r = rows[cid]
                code, nonblank = code_lines(r.text, r.language)
                feats.append(dict(
                    cid=cid, final=final[cid], fused=fused.get(cid, 0.0), cos=p.cosine.get(cid, 0.0),
                    bm25=p.bm25.get(cid, 0.0), drank=dense_rank.get(cid), lrank=lex_rank.get(cid),
                    symw=symbol_word_share(p.info.words, r.symbol) if r.symbol else 0.0, defines=r.defines,
                    thin=is_thin(r), code=code, lines=r.end_line - r.start_line + 1, symbol=r.symbol,
                    kind=r.kind, text=r.text, start=r.start_line, end=r.end_line,
                    right=metrics.chunk_is_right(case, path, r.start_line, r.end_line)))
            groups.append((case["id"], files.index(path) + 1, feats, p.info))
    return groups
