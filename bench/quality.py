"""Retrieval quality on the development set: recall@5, MRR and nDCG@10 at file level.

For each pinned corpus (``bench/corpora.py``) the index is built or synced with the real local
model, every query of ``bench/quality_cases.json`` is embedded and ranked once (dense and BM25
pools), and the rankings are fused per configuration:

- ``bm25``: lexical only; ``dense``: embeddings only; ``rrf``: both fused, no signals;
- ``rrf+signals``: both fused with every ranking signal of the first release; ``default``: the
  product's current ranking (``paqad.search.RankingOptions()``);
- ``rrf+<signal>``: one signal alone; ``rrf+all-minus-<signal>``: every signal but one (ablation).

A result list of chunks becomes the list of its distinct files in order (``top_n`` = 20 chunks);
metrics are the file-level ones of ``paqad.evaluate.metrics``.

    .venv/bin/python bench/quality.py                          # all projects, tables on stdout
    .venv/bin/python bench/quality.py --projects requests,flask --kinds symbol,where
    .venv/bin/python bench/quality.py --json bench/.cache/quality.json --per-case rrf+signals

Environment: ``PAQAD_MODEL_MIRROR`` (default ``<repo>/../shared/models``) and ``PAQAD_HOME``
(default ``bench/.cache/paqad-home``). The index lives in each corpus's ``.paqad/vectors``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean

BENCH_DIR = Path(__file__).resolve().parent
CASES_FILE = BENCH_DIR / "quality_cases.json"
TOP_N = 20
KINDS = ("symbol", "where", "architecture")


def _set_environment() -> None:
    """Point the model store at the shared mirror and a bench-local PAQAD_HOME unless set."""
    os.environ.setdefault("PAQAD_MODEL_MIRROR", str(Path(__file__).resolve().parents[1].parent / "shared" / "models"))
    os.environ.setdefault("PAQAD_HOME", str(BENCH_DIR / ".cache" / "paqad-home"))


@dataclass(frozen=True)
class Configuration:
    """One way to fuse the two rankings: which rankers, which of the first release's signals
    (``default`` is the product's current ranking, ``paqad.search.RankingOptions()``)."""

    name: str
    rankers: tuple[str, ...]
    signals: frozenset[str]

    @property
    def options(self):
        from dataclasses import replace

        from paqad.search import RankingOptions, ablations

        if self.name == "default":
            return RankingOptions()
        # The first release's ranking: RRF plus its signals, "diversity" being the saturation 0.7.
        return replace(ablations()["rrf"], dense="dense" in self.rankers, lexical="lexical" in self.rankers,
                       signals=self.signals - {"diversity"}, saturation=0.7 if "diversity" in self.signals else 1.0)


@dataclass(frozen=True)
class CaseScore:
    """File-level metrics of one case under one configuration."""

    recall_at_5: float
    reciprocal_rank: float
    ndcg_at_10: float
    files: tuple[str, ...]  # distinct files of the top_n chunks, best first


def configurations(all_signals: frozenset[str]) -> list[Configuration]:
    """Baselines, all signals, each signal alone and each signal left out (in that order)."""
    both = ("dense", "lexical")
    configs = [
        Configuration("bm25", ("lexical",), frozenset()),
        Configuration("dense", ("dense",), frozenset()),
        Configuration("rrf", both, frozenset()),
        Configuration("rrf+signals", both, all_signals),
        Configuration("default", both, frozenset()),
    ]
    for signal in sorted(all_signals):
        configs.append(Configuration(f"rrf+{signal}", both, frozenset({signal})))
    for signal in sorted(all_signals):
        configs.append(Configuration(f"rrf+all-minus-{signal}", both, all_signals - {signal}))
    return configs


def load_cases(path: Path = CASES_FILE) -> list[dict]:
    """The cases of ``quality_cases.json`` (schema version 1). Raises ValueError on another version."""
    data = json.loads(path.read_text("utf-8"))
    if data.get("version") != 1:
        raise ValueError(f"{path}: unsupported version {data.get('version')!r}, expected 1")
    return data["cases"]


def check_expected(cases: list[dict], roots: dict[str, Path]) -> list[str]:
    """Expected paths that do not exist in their corpus (each as ``id: path``)."""
    missing = []
    for case in cases:
        root = roots.get(case["project"])
        if root is None:
            continue
        missing += [f"{case['id']}: {p}" for p in case["expected"] if not (root / p).is_file()]
    return missing


def evaluate_project(root: Path, cases: list[dict], configs: list[Configuration], *, rebuild: bool = False,
                     log=print) -> dict[str, dict[str, CaseScore]]:
    """Index ``root`` and score every case under every configuration: ``{case id: {config: CaseScore}}``."""
    from paqad.config import load_settings
    from paqad.project import ProjectPaths
    from paqad import store as store_mod
    from paqad.embed.factory import get_embedder
    from paqad.build import sync as sync_index
    from paqad.evaluate.metrics import distinct_files, ndcg_at_k, recall_at_k, reciprocal_rank
    from paqad.search import gather, rank

    paths = ProjectPaths(root)
    settings = load_settings(paths)
    embedder = get_embedder(settings, paths)
    report = sync_index(paths, settings, embedder, full=rebuild)
    log(f"  index: {report.summary() if report else 'busy'}")

    scores: dict[str, dict[str, CaseScore]] = {}
    store = store_mod.open_store(paths, readonly=True)
    try:
        # Expected files the indexer left out (e.g. a file type not indexed) cannot be found by any
        # configuration; they stay in the figures (that is what a user would get) but are named.
        indexed = set(store.files())
        for case in cases:
            absent = [p for p in case["expected"] if p not in indexed]
            if absent:
                log(f"  not indexed: {case['id']} expects {', '.join(absent)}")
        started = time.perf_counter()
        for case in cases:
            query, expected = case["query"], case["expected"]
            # Embed and rank once; only the fusion differs between configurations.
            pools = gather(store, embedder, query)
            per_config = {}
            for config in configs:
                results = rank(store, pools, top_n=TOP_N, options=config.options)
                files = distinct_files(results)
                per_config[config.name] = CaseScore(
                    recall_at_5=recall_at_k(files, expected, 5),
                    reciprocal_rank=reciprocal_rank(files, expected),
                    ndcg_at_10=ndcg_at_k(files, expected, 10),
                    files=tuple(files),
                )
            scores[case["id"]] = per_config
        log(f"  {len(cases)} queries x {len(configs)} configurations in {time.perf_counter() - started:.1f}s")
    finally:
        store.close()
    return scores


def aggregate(case_scores: list[CaseScore]) -> dict[str, float]:
    """Mean recall@5, MRR and nDCG@10 over ``case_scores`` (plus their count ``n``)."""
    return {
        "recall@5": fmean(s.recall_at_5 for s in case_scores),
        "MRR": fmean(s.reciprocal_rank for s in case_scores),
        "nDCG@10": fmean(s.ndcg_at_10 for s in case_scores),
        "n": len(case_scores),
    }


def summarise(cases: list[dict], scores: dict[str, dict[str, CaseScore]], configs: list[Configuration]) -> dict:
    """``{scope: {config: metrics}}`` for each project, each kind and ``overall``."""
    scopes: dict[str, list[dict]] = {}
    for case in cases:
        if case["id"] not in scores:
            continue
        scopes.setdefault(case["project"], []).append(case)
        scopes.setdefault(f"kind:{case['kind']}", []).append(case)
        scopes.setdefault("overall", []).append(case)
    return {
        scope: {c.name: aggregate([scores[case["id"]][c.name] for case in members]) for c in configs}
        for scope, members in scopes.items()
    }


def markdown_table(metrics: dict[str, dict[str, float]], configs: list[Configuration]) -> str:
    """A Markdown table: one row per configuration, columns recall@5, MRR, nDCG@10."""
    lines = ["| configuration | recall@5 | MRR | nDCG@10 |", "|---|---:|---:|---:|"]
    for c in configs:
        m = metrics[c.name]
        lines.append(f"| {c.name} | {m['recall@5']:.3f} | {m['MRR']:.3f} | {m['nDCG@10']:.3f} |")
    return "\n".join(lines)


def signal_deltas(overall: dict[str, dict[str, float]], all_signals: frozenset[str],
                  scores: dict[str, dict[str, CaseScore]]) -> str:
    """Per signal: its effect added alone to RRF, and its effect within all signals (ablation).

    ``+a/-b`` counts the cases whose reciprocal rank went up / down, to tell a broad effect from
    one or two queries moving (one query moving from rank 1 to 2 over 83 cases is 0.006 MRR).
    """
    def moved(better: str, worse: str) -> str:
        up = sum(1 for per in scores.values() if per[better].reciprocal_rank > per[worse].reciprocal_rank)
        down = sum(1 for per in scores.values() if per[better].reciprocal_rank < per[worse].reciprocal_rank)
        return f"+{up}/-{down}"

    base, full = overall["rrf"], overall["rrf+signals"]
    lines = [
        "| signal | alone vs rrf: ΔMRR | Δrecall@5 | ΔnDCG@10 | cases | "
        "in all vs all-minus: ΔMRR | Δrecall@5 | ΔnDCG@10 | cases |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in sorted(all_signals):
        alone, minus = overall[f"rrf+{s}"], overall[f"rrf+all-minus-{s}"]
        cells = [f"{alone[k] - base[k]:+.3f}" for k in ("MRR", "recall@5", "nDCG@10")]
        cells.append(moved(f"rrf+{s}", "rrf"))
        cells += [f"{full[k] - minus[k]:+.3f}" for k in ("MRR", "recall@5", "nDCG@10")]
        cells.append(moved("rrf+signals", f"rrf+all-minus-{s}"))
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def per_case_lines(cases: list[dict], scores: dict[str, dict[str, CaseScore]], config: str) -> list[str]:
    """One line per case under ``config``: id, rank of the first expected file (or -), top 3 files."""
    lines = []
    for case in cases:
        score = scores.get(case["id"], {}).get(config)
        if score is None:
            continue
        rank = f"{round(1 / score.reciprocal_rank)}" if score.reciprocal_rank else "-"
        lines.append(f"{case['id']:<14} rank {rank:>2}  r@5 {score.recall_at_5:.2f}  {', '.join(score.files[:3])}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", help="comma-separated corpora (default: all in the cases file)")
    parser.add_argument("--kinds", help=f"comma-separated kinds among {', '.join(KINDS)} (default: all)")
    parser.add_argument("--cases", type=Path, default=CASES_FILE, help="cases file (default: bench/quality_cases.json)")
    parser.add_argument("--json", type=Path, dest="json_file", help="write summary and per-case scores to this file")
    parser.add_argument("--rebuild", action="store_true", help="rebuild each index from scratch")
    parser.add_argument("--per-case", metavar="CONFIG", help="also print each case's rank under CONFIG")
    args = parser.parse_args(argv)

    _set_environment()
    sys.path.insert(0, str(BENCH_DIR))
    import corpora
    from paqad.search import ALL_SIGNALS

    cases = load_cases(args.cases)
    projects = args.projects.split(",") if args.projects else list(dict.fromkeys(c["project"] for c in cases))
    kinds = set(args.kinds.split(",")) if args.kinds else set(KINDS)
    cases = [c for c in cases if c["project"] in projects and c["kind"] in kinds]
    configs = configurations(ALL_SIGNALS)

    roots = {name: corpora.fetch(name) for name in projects}
    missing = check_expected(cases, roots)
    if missing:
        print("expected files missing from the corpora:\n  " + "\n  ".join(missing), file=sys.stderr)
        return 2

    scores: dict[str, dict[str, CaseScore]] = {}
    for name in projects:
        project_cases = [c for c in cases if c["project"] == name]
        if not project_cases:
            continue
        print(f"{name} ({roots[name].name}, {len(project_cases)} cases)")
        scores.update(evaluate_project(roots[name], project_cases, configs, rebuild=args.rebuild))

    summary = summarise(cases, scores, configs)
    scopes = [p for p in projects if p in summary] + [f"kind:{k}" for k in KINDS if f"kind:{k}" in summary] + ["overall"]
    for scope in scopes:
        n = next(iter(summary[scope].values()))["n"]
        print(f"\n### {scope} ({n} cases)\n\n{markdown_table(summary[scope], configs)}")
    print(f"\n### signal deltas (overall)\n\n{signal_deltas(summary['overall'], ALL_SIGNALS, scores)}")
    if args.per_case:
        print(f"\n### per case ({args.per_case})\n")
        print("\n".join(per_case_lines(cases, scores, args.per_case)))

    if args.json_file:
        args.json_file.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "top_n": TOP_N,
            "configurations": [{"name": c.name, "rankers": list(c.rankers), "signals": sorted(c.signals)} for c in configs],
            "summary": summary,
            "cases": {
                cid: {name: {"recall@5": s.recall_at_5, "rr": s.reciprocal_rank, "nDCG@10": s.ndcg_at_10,
                             "files": list(s.files[:10])} for name, s in per.items()}
                for cid, per in scores.items()
            },
        }
        args.json_file.write_text(json.dumps(payload, indent=1), "utf-8")
        print(f"\nwrote {args.json_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
