"""Issue localisation: a pasted GitHub issue (title + body) as the prompt, the files its fix
changed as the answer (issue 24, "File localisation on real issues").

Cases: ``bench/issues/cases/<project>.json`` (format: ``bench/issues/README.md``), one project per
file, split dev/test by project. Each case is ranked in the project's tree at the fix's parent
commit, materialised from the local bare clone by ``bench/ranking/corpora.py``
(:func:`corpora.materialise_tree`) into ``bench/.cache/issues/<case id>/``; its index is seeded
from the previous case of the same project (cases in parent-commit order; the first from the
ranking benchmark's corpus of the same repository, if built) and synced, so only the files that
changed between the two parents are chunked and embedded again (the whole default set: 15.5
minutes on this 2-core machine at load 13). ``--shared`` ranks every case of a project in one
tree instead (:func:`shared_tree`: the ranking corpus of the same repository when it descends
from every parent, else the newest case's parent), about a third of the text to embed; but a
gold file is then stale where the code moved after the fix (attrs' ``evolve`` left ``_funcs.py``
for ``_make.py``). A second run opens the indexes as they are.

Measures (file level, the ranked list's distinct files in order of first appearance):
R@k = share of the gold files among the first k files (k = 1, 5, 10), averaged over cases;
MRR = 1 / rank of the first gold file (0 when none is in the list). Printed per split and per
project for each configuration and for ``bm25``: plain BM25 (k1 1.2, b 0.75) over whole files of
the project's source language(s) with the index's own tokens (``paqad.index.tokens``), test files
included, the baseline the issue compares against.

    .venv/bin/python bench/issues/run.py                          # every project, default + bm25
    .venv/bin/python bench/issues/run.py --split dev --configs default,no-issue-prompts
    .venv/bin/python bench/issues/run.py --projects attrs --json bench/.cache/issues.json
    .venv/bin/python bench/issues/run.py --shared --split dev     # one index per project (cheaper)

Tune on ``--split dev`` only; report both.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE.parent / "ranking"))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(REPO / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402

CASES_DIR = HERE / "cases"
CACHE_DIR = REPO / "bench" / ".cache" / "issues"
TOP_N = 40  # chunks asked for: enough distinct files for R@10
KS = (1, 5, 10)
BM25 = "bm25"
# Source extensions of each project language for the BM25 baseline ("plain BM25 over .py files").
LANGUAGE_EXTENSIONS = {"python": (".py", ".pyi"), "javascript": (".js", ".mjs", ".cjs", ".ts"),
                       "typescript": (".ts", ".tsx", ".js"), "go": (".go",), "rust": (".rs",)}


@dataclass(frozen=True)
class IssueProject:
    name: str
    repo: str
    language: str
    split: str
    cases: tuple[dict, ...]


def load(names: list[str] | None = None, split: str | None = None) -> list[IssueProject]:
    """Projects of ``cases/*.json`` (sorted by name), optionally only ``names`` / one ``split``."""
    out = []
    for path in sorted(CASES_DIR.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        project = IssueProject(data["name"], data["repo"], data["language"], data["split"], tuple(data["cases"]))
        if (names and project.name not in names) or (split and project.split != split):
            continue
        if data.get("skip") and not names:  # a project left out of the default run (its reason)
            print(f"{project.name}: skipped ({data['skip']})", file=sys.stderr)
            continue
        out.append(project)
    return out


def query_text(case: dict) -> str:
    """The prompt: the issue as a user pastes it, title line then body."""
    return f"{case['title']}\n\n{case['body']}"


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True, check=True).stdout


def _is_ancestor(git_dir: Path, older: str, newer: str) -> bool:
    done = subprocess.run(["git", "--git-dir", str(git_dir), "merge-base", "--is-ancestor", older, newer])
    return done.returncode == 0


def ordered(project: IssueProject) -> list[dict]:
    """Cases by their parent's commit time, oldest first (each seeds the next)."""
    git_dir = corpora.git_dir(project.repo)
    when = {c["id"]: int(_git(git_dir, "log", "-1", "--format=%ct", c["parent"]).strip()) for c in project.cases}
    return sorted(project.cases, key=lambda c: when[c["id"]])


def shared_tree(project: IssueProject, cache: Path, ranking: bool = True) -> Path:
    """The one tree (and index) every case of ``project`` is ranked in: the ranking benchmark's
    corpus of the same repository when its commit descends from every case's parent (its index
    is built already; ``ranking=False``: not used, another model's index is wanted), else the
    newest case's parent, materialised into ``cache/<name>-<commit[:10]>/``. Every earlier fix
    is in that tree (the cost: a case may be ranked in code its fix has already changed)."""
    git_dir = corpora.git_dir(project.repo)
    for other in corpora.load_projects() if ranking else ():
        if other.repo == project.repo and all(_is_ancestor(git_dir, c["parent"], other.commit) for c in project.cases):
            return corpora.materialise(other)
    newest = ordered(project)[-1]["parent"]
    return corpora.materialise_tree(project.repo, newest, cache / f"{project.name}-{newest[:10]}")


def trees(project: IssueProject, cache: Path, per_issue: bool, model: str | None) -> Iterator[tuple[Path, list[dict]]]:
    """(tree, its cases) in ranking order: one shared tree (:func:`shared_tree`), or with
    ``per_issue`` each case in the tree at its own parent, ``cache/<case id>/``, its index seeded
    from the previous case's (cases in parent-commit order; the first from the ranking corpus of
    the same repository, if any and ``model`` is the product's). Lazy: a tree is written when the
    caller has synced the one before it (its seed)."""
    if not per_issue:
        yield shared_tree(project, cache, ranking=model is None), ordered(project)
        return
    seed = None
    if model is None:
        seed = next((o.folder for o in corpora.load_projects() if o.repo == project.repo and (o.folder / ".paqad").is_dir()), None)
    for case in ordered(project):
        root = corpora.materialise_tree(project.repo, case["parent"], cache / case["id"], seed=seed)
        yield root, [case]
        seed = root


def file_scores(ranked: list[str], gold: set[str]) -> dict[str, float]:
    """R@k for :data:`KS` and the reciprocal rank of the first gold file in ``ranked``."""
    out = {f"r@{k}": len(gold.intersection(ranked[:k])) / len(gold) for k in KS}
    out["rr"] = next((1.0 / i for i, p in enumerate(ranked, start=1) if p in gold), 0.0)
    return out


class FileBM25:
    """Plain BM25 over whole files (the baseline): documents are files with one of
    ``extensions``, terms are :func:`paqad.index.tokens.index_tokens` of the text."""

    def __init__(self, root: Path, extensions: tuple[str, ...], k1: float = 1.2, b: float = 0.75) -> None:
        from paqad.index.tokens import index_tokens

        self.k1, self.b = k1, b
        self.docs: dict[str, Counter] = {}
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(".paqad/") or not path.is_file() or not rel.endswith(extensions):
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            self.docs[rel] = Counter(index_tokens(text))
        self.lengths = {p: sum(c.values()) for p, c in self.docs.items()}
        self.average = fmean(self.lengths.values()) if self.lengths else 0.0
        df: Counter = Counter()
        for counts in self.docs.values():
            df.update(counts.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def rank(self, query: str) -> list[str]:
        from paqad.index.tokens import index_tokens

        terms = Counter(index_tokens(query))
        scores: dict[str, float] = {}
        for path, counts in self.docs.items():
            norm = self.k1 * (1 - self.b + self.b * self.lengths[path] / (self.average or 1))
            s = 0.0
            for term, qf in terms.items():
                tf = counts.get(term)
                if tf:
                    s += qf * self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
            if s > 0:
                scores[path] = s
        return sorted(scores, key=lambda p: (-scores[p], p))


def run_project(project: IssueProject, configs: dict, log=print, model: str | None = None,
                per_issue: bool = True) -> dict[str, dict[str, dict]]:
    """case id -> configuration (name -> RankingOptions, and ``bm25``) -> scores and the top-10 files.

    ``model``: another embedding model than the product's default (its indexes live in their own
    cache folder, ``bench/.cache/issues-<model>/``). ``per_issue``: each case in its own parent's
    tree (:func:`trees`; one index per issue) instead of one shared tree per project."""
    from dataclasses import replace

    from paqad.build import sync
    from paqad.config import load_settings
    from paqad.embed.factory import get_embedder
    from paqad.project import ProjectPaths

    out: dict[str, dict[str, dict]] = {}
    cache = CACHE_DIR if model is None else CACHE_DIR.with_name("issues-" + model.replace("/", "--"))
    embedder = None
    for root, cases in trees(project, cache, per_issue, model):
        paths = ProjectPaths(root)
        settings = load_settings(paths, environ={})
        if model is not None:
            settings = replace(settings, rag_embedding_model=model)
        embedder = embedder or get_embedder(settings, paths)
        started = time.perf_counter()
        report = sync(paths, settings, embedder)
        log(f"  {root.name}: {report.summary()} ({time.perf_counter() - started:.1f}s)")
        bm25 = FileBM25(root, LANGUAGE_EXTENSIONS[project.language])
        out.update(rank_cases(paths, embedder, cases, configs, bm25, log))
    return out


def rank_cases(paths, embedder, cases: list[dict], configs: dict, bm25: FileBM25, log=print) -> dict[str, dict[str, dict]]:
    """Scores of ``cases`` in the index at ``paths`` (see :func:`run_project`)."""
    from paqad import store as store_mod
    from paqad.search import gather, rank

    out: dict[str, dict[str, dict]] = {}
    with store_mod.open_store(paths, readonly=True) as store:
        indexed = set(store.files())
        for case in cases:
            gold = set(case["gold"])
            if gold - indexed:
                log(f"    {case['id']}: gold not indexed: {', '.join(sorted(gold - indexed))}")
            query = query_text(case)
            per: dict[str, dict] = {}
            gathered = {}
            for name in configs:
                flag = configs[name].long_prompts
                if flag not in gathered:
                    gathered[flag] = gather(store, embedder, query, long_prompts=flag)
                results = rank(store, gathered[flag], top_n=TOP_N, options=configs[name])
                files = list(dict.fromkeys(r.path for r in results))
                per[name] = {**file_scores(files, gold), "files": files[:10]}
            files = bm25.rank(query)
            per[BM25] = {**file_scores(files, gold), "files": files[:10]}
            out[case["id"]] = per
    return out


def table(title: str, groups: dict[str, list[str]], scores: dict[str, dict[str, dict]], columns: list[str]) -> str:
    """Markdown: one row per group, R@1/R@5/R@10/MRR per column."""
    head = " | ".join(f"{c} {m}" for c in columns for m in ("R@1", "R@5", "R@10", "MRR"))
    lines = [f"### {title}", "", f"| group | n | {head} |", "|---|---:|" + "---:|" * (4 * len(columns))]
    for name, ids in groups.items():
        if not ids:
            continue
        cells = []
        for c in columns:
            for key in ("r@1", "r@5", "r@10"):
                cells.append(f"{100 * fmean(scores[i][c][key] for i in ids):.1f}")
            cells.append(f"{fmean(scores[i][c]['rr'] for i in ids):.3f}")
        lines.append(f"| {name} | {len(ids)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", default="", help="comma-separated project names (default: all)")
    parser.add_argument("--split", choices=("dev", "test"), default=None)
    parser.add_argument("--configs", default="default", help="comma-separated configuration names (run.py --list)")
    parser.add_argument("--sweep", nargs="*", default=[], metavar="NAME=V1,V2",
                        help="also rank with the default's option NAME set to each value (tuning, dev only)")
    parser.add_argument("--model", default=None, help="another embedding model (e.g. local/all-MiniLM-L6-v2-static256)")
    parser.add_argument("--shared", action="store_true",
                        help="rank every issue of a project in one shared tree (one index per project, about 3x less to embed; "
                             "code moved since an issue's fix makes its gold files stale) instead of each in its own parent's tree")
    parser.add_argument("--no-bm25", action="store_true", help="leave the BM25 baseline column out of the tables")
    parser.add_argument("--json", type=Path, default=None, help="write per-case scores here")
    args = parser.parse_args()
    from paqad.search import ablations

    config_names = [c for c in args.configs.split(",") if c]
    unknown = set(config_names) - set(ablations())
    if unknown:
        raise SystemExit(f"unknown configuration(s) {sorted(unknown)}; see bench/ranking/run.py --list")
    from dataclasses import replace

    known = ablations()
    configs = {name: known[name] for name in config_names}
    for item in args.sweep:
        key, values = item.split("=", 1)
        for value in values.split(","):
            configs[f"{key}={value}"] = replace(known["default"], **{key: float(value)})
    config_names = list(configs)
    projects = load([p for p in args.projects.split(",") if p] or None, args.split)
    scores: dict[str, dict[str, dict]] = {}
    where: dict[str, tuple[str, str]] = {}
    started = time.perf_counter()
    for project in projects:
        print(f"{project.name} ({project.language}, {project.split}, {len(project.cases)} issues)", flush=True)
        for cid, per in run_project(project, configs, model=args.model, per_issue=not args.shared).items():
            scores[cid] = per
            where[cid] = (project.split, project.name)
    print(f"\n{len(scores)} issues in {time.perf_counter() - started:.0f}s\n")
    columns = config_names + ([] if args.no_bm25 else [BM25])
    for split in ("dev", "test"):
        ids = [i for i, (s, _) in where.items() if s == split]
        if not ids:
            continue
        groups = {"all": ids}
        for name in sorted({p for s, p in where.values() if s == split}):
            groups[name] = [i for i in ids if where[i][1] == name]
        print(table(f"{split} ({len(ids)} issues): file R@k (%) and MRR", groups, scores, columns))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({cid: {"split": where[cid][0], "project": where[cid][1], **per}
                                         for cid, per in scores.items()}, indent=1), encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
