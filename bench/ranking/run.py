"""Ranking benchmark: real projects in several languages, hand-labelled queries, dev and test.

For each project (``bench/ranking/projects/*.json``, materialised by ``corpora.py``) the index is
built or synced in ``<corpus>/.paqad/`` with the default local model, then every case is ranked by
each configuration and scored at file level (graded nDCG@10, recall@5 of grade-2 files, MRR) and,
for symbol cases, at chunk level (the defining chunk first: def@1, def-MRR), and at passage level
for every case with chunk labels (``lines``, FORMAT.md; the rule is ``metrics.chunk_is_right``):
passage@1, passage@5 (a right chunk among the first 1 / 5 returned chunks) and passage-MRR, over
the labelled cases only ("n labelled"). Results are printed per split (dev, test) overall, by kind
and by language.

    .venv/bin/python bench/ranking/run.py                           # every project, default configs
    .venv/bin/python bench/ranking/run.py --split dev --configs default,no-symbols
    .venv/bin/python bench/ranking/run.py --projects ws,leveldb --json bench/.cache/ranking.json
    .venv/bin/python bench/ranking/run.py --git                     # the set mined from git history

Configurations are named ablations of :class:`paqad.search.RankingOptions` (``--list`` shows them).
Tune only on ``--split dev``; report both.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(REPO / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402
import metrics  # noqa: E402

TOP_N = 20


@dataclass
class Score:
    ndcg: float
    recall: float
    rr: float
    def_rank: int | None = None  # symbol cases: rank of the defining chunk
    files: list[str] = field(default_factory=list)
    labelled: bool = False  # the case has chunk labels (metrics.has_chunk_labels)
    passage_rank: int | None = None  # rank of the first right chunk (metrics.chunk_is_right)
    chunks: list[tuple[str, int, int]] = field(default_factory=list)  # the top 5 returned chunks


def case_score(case: dict, chunks: list[tuple[str, int, int]]) -> Score:
    files = metrics.distinct_files([c[0] for c in chunks])
    grades = {e["path"]: int(e.get("grade", 2)) for e in case["expected"]}
    primary = {p for p, g in grades.items() if g >= 2} or set(grades)
    score = Score(metrics.ndcg_at_k(files, grades, 10), metrics.recall_at_k(files, primary, 5),
                  metrics.reciprocal_rank(files, primary), files=files[:10],
                  labelled=metrics.has_chunk_labels(case), passage_rank=metrics.passage_rank(case, chunks),
                  chunks=[tuple(c) for c in chunks[:5]])
    if case["kind"] == "symbol" and case.get("definition"):
        d = case["definition"]
        score.def_rank = metrics.definition_rank(chunks, d["path"], d["start_line"])
    return score


def benchmark_summary() -> str:
    """One line counting what ``projects/*.json`` holds now, e.g. ``28 real projects in 10
    languages, 572 hand-labelled queries (dev 14 projects / 339, test ...)``: counted, never typed."""
    projects = corpora.load_projects()
    splits = {name: [p for p in projects if p.split == name] for name in ("dev", "test")}
    per_split = ", ".join(f"{name} {len(group)} projects / {sum(len(p.cases) for p in group)}"
                          for name, group in splits.items())
    return (f"Ranking benchmark: {len(projects)} real projects in {len({p.language for p in projects})} languages, "
            f"{sum(len(p.cases) for p in projects)} hand-labelled queries ({per_split}).")


def config_listing(configs: dict | None = None) -> list[str]:
    """``--list``: one line per configuration, its name and only the RankingOptions fields whose
    value differs from ``default`` (``default`` itself: the reference), e.g.
    ``bm25: dense=False, symbols=False``."""
    from dataclasses import fields

    configs = configs if configs is not None else configurations()
    reference = configs["default"]
    lines = []
    for name, options in configs.items():
        changed = [f"{f.name}={_shown(getattr(options, f.name))}" for f in fields(options)
                   if getattr(options, f.name) != getattr(reference, f.name)]
        if name == "default":
            lines.append(f"{name}: the reference (what the product runs)")
        else:
            lines.append(f"{name}: {', '.join(changed) or 'same as default'}")
    return lines


def _shown(value) -> str:
    """A field's value for ``--list``: a set of signal names sorted, ``{a,b}`` (``{}`` empty)."""
    if isinstance(value, (set, frozenset)):
        return "{" + ",".join(sorted(value)) + "}"
    return repr(value)


def configurations():
    """name -> RankingOptions, from the library's ablation list."""
    from paqad.search import ablations

    return ablations()


def run_project(project: corpora.Project, config_names: list[str], *, cases=None, rebuild: bool = False,
                log=print, max_file_size: int | None = None) -> dict[str, dict[str, Score]]:
    from paqad import store as store_mod
    from paqad.build import sync
    from paqad.config import load_settings
    from paqad.embed.factory import get_embedder
    from paqad.project import ProjectPaths
    from paqad.search import gather, rank

    root = corpora.materialise(project)
    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={} if max_file_size is None else {"PAQAD_RAG_MAX_FILE_SIZE": str(max_file_size)})
    embedder = get_embedder(settings, paths)
    started = time.perf_counter()
    report = sync(paths, settings, embedder, full=rebuild)
    log(f"  index: {report.summary()} ({time.perf_counter() - started:.1f}s)")
    configs = configurations()
    # one gather per case, as deep as the deepest configuration's pools (rank cuts them to each one's)
    depth = max(configs[name].gather_depth for name in config_names)
    out: dict[str, dict[str, Score]] = {}
    with store_mod.open_store(paths, readonly=True) as store:
        indexed = set(store.files())
        for case in cases if cases is not None else project.cases:
            absent = [e["path"] for e in case["expected"] if e["path"] not in indexed]
            if absent:
                log(f"  not indexed: {case['id']} expects {', '.join(absent)}")
            gathered = {}
            per = {}
            for name in config_names:
                flag = configs[name].long_prompts
                if flag not in gathered:
                    gathered[flag] = gather(store, embedder, case["query"], long_prompts=flag, pool=depth)
                results = rank(store, gathered[flag], top_n=TOP_N, options=configs[name])
                per[name] = case_score(case, [(r.path, r.start_line, r.end_line) for r in results])
            out[case["id"]] = per
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=benchmark_summary())
    parser.add_argument("--projects", default="", help="comma-separated project names (default: all)")
    parser.add_argument("--split", choices=("dev", "test"), default=None)
    parser.add_argument("--configs", default="default", help="comma-separated configuration names")
    parser.add_argument("--kinds", default="", help="only these case kinds (symbol,where,architecture)")
    parser.add_argument("--git", action="store_true", help="run the cases mined from git history instead")
    parser.add_argument("--json", type=Path, default=None, help="write per-case scores here")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--max-file-size", type=int, default=None, help="rag_max_file_size in bytes (default: the product's, 1048576)")
    parser.add_argument("--list", action="store_true", help="list the configurations and exit")
    args = parser.parse_args()
    if args.list:
        try:
            print("\n".join(config_listing()))
        except BrokenPipeError:  # `--list | head`
            sys.stdout = None
        return 0
    config_names = [c for c in args.configs.split(",") if c]
    unknown = set(config_names) - set(configurations())
    if unknown:
        raise SystemExit(f"unknown configuration(s) {sorted(unknown)}; see --list")
    projects = corpora.load_projects([p for p in args.projects.split(",") if p] or None, args.split)
    kinds = {k for k in args.kinds.split(",") if k}
    all_scores: dict[str, dict[str, Score]] = {}
    case_info: dict[str, tuple[str, str, str, bool]] = {}  # id -> (split, kind, language, long)
    started = time.perf_counter()
    for project in projects:
        if args.git:
            import git_cases

            cases = git_cases.load(project)
        else:
            cases = [c for c in project.cases if not kinds or c["kind"] in kinds]
        print(f"{project.name} ({project.language}, {project.split}, {len(cases)} cases)", flush=True)
        scores = run_project(project, config_names, cases=cases, rebuild=args.rebuild, max_file_size=args.max_file_size)
        all_scores.update(scores)
        for case in cases:
            case_info[case["id"]] = (project.split, case["kind"], project.language, bool(case.get("long")))
    print(f"\n{len(all_scores)} cases in {time.perf_counter() - started:.0f}s\n")
    for split in ("dev", "test"):
        ids = [cid for cid, info in case_info.items() if info[0] == split]
        if not ids:
            continue
        print(report_split(split, ids, all_scores, case_info, config_names))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            cid: {"info": case_info[cid], **{c: {"ndcg": s.ndcg, "recall": s.recall, "rr": s.rr, "def_rank": s.def_rank,
                                                 "files": s.files, "labelled": s.labelled,
                                                 "passage_rank": s.passage_rank, "chunks": s.chunks} for c, s in per.items()}}
            for cid, per in all_scores.items()
        }, indent=1), encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


def report_split(split: str, ids: list[str], scores: dict[str, dict[str, Score]], info: dict, configs: list[str]) -> str:
    def rows(group_ids: list[str]) -> list[str]:
        cells = []
        for c in configs:
            ss = [scores[i][c] for i in group_ids]
            cells.append(f"{fmean(s.ndcg for s in ss):.3f}")
        return cells

    def defs(group_ids: list[str]) -> str:
        ranks = [scores[i][configs[0]].def_rank for i in group_ids if info[i][1] == "symbol"]
        if not ranks:
            return ""
        return f"{sum(1 for r in ranks if r == 1) / len(ranks):.2f}"

    out = [f"### {split} ({len(ids)} cases): nDCG@10", "", "| group | n | " + " | ".join(configs) + " |",
           "|---|---:|" + "---:|" * len(configs)]
    groups: dict[str, list[str]] = {"all": ids}
    for kind in ("symbol", "where", "architecture", "git"):
        groups[f"kind {kind}"] = [i for i in ids if info[i][1] == kind]
    groups["long prompts"] = [i for i in ids if info[i][3]]
    for lang in sorted({info[i][2] for i in ids}):
        groups[f"lang {lang}"] = [i for i in ids if info[i][2] == lang]
    for name, group_ids in groups.items():
        if group_ids:
            out.append(f"| {name} | {len(group_ids)} | " + " | ".join(rows(group_ids)) + " |")
    out.append("")
    out.append("| measure | " + " | ".join(configs) + " |")
    out.append("|---|" + "---:|" * len(configs))
    for label, fn in (("recall@5", lambda s: s.recall), ("MRR", lambda s: s.rr)):
        out.append(f"| {label} | " + " | ".join(f"{fmean(fn(scores[i][c]) for i in ids):.3f}" for c in configs) + " |")
    sym = [i for i in ids if info[i][1] == "symbol"]
    if sym:
        for label, fn in (("def@1 (symbol)", lambda r: 1.0 if r == 1 else 0.0),
                          ("def-MRR (symbol)", lambda r: 1.0 / r if r else 0.0)):
            out.append(f"| {label} | " + " | ".join(
                f"{fmean(fn(scores[i][c].def_rank) for i in sym):.3f}" for c in configs) + " |")
    out.append("")
    out += passage_table(split, groups, scores, configs)
    return "\n".join(out)


def passage_cells(ranks: list[int | None]) -> list[str]:
    """passage@1, passage@5, passage-MRR of first-right-chunk ranks (None: no right chunk)."""
    return [f"{fmean(1.0 if r is not None and r <= k else 0.0 for r in ranks):.3f}" for k in (1, 5)] + [
        f"{fmean(1.0 / r if r else 0.0 for r in ranks):.3f}"]


def passage_table(split: str, groups: dict[str, list[str]], scores: dict[str, dict[str, Score]],
                  configs: list[str]) -> list[str]:
    """Markdown lines: passage@1 / @5 / MRR per group and configuration, labelled cases only."""
    labelled_ids = [i for i in groups["all"] if scores[i][configs[0]].labelled]
    out = [f"### {split}: chunk level ({len(labelled_ids)} of {len(groups['all'])} cases labelled)", "",
           "| group | n labelled | " + " | ".join(f"{c} p@1 | {c} p@5 | {c} p-MRR" for c in configs) + " |",
           "|---|---:|" + "---:|" * (3 * len(configs))]
    for name, group_ids in groups.items():
        ids = [i for i in group_ids if scores[i][configs[0]].labelled]
        if ids:
            cells = [cell for c in configs for cell in passage_cells([scores[i][c].passage_rank for i in ids])]
            out.append(f"| {name} | {len(ids)} | " + " | ".join(cells) + " |")
    out.append("")
    return out


if __name__ == "__main__":
    sys.exit(main())
