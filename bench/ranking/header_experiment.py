"""What is embedded: the DESIGN §6 header (path, symbol, signature) against none (issue 10).

The product embeds ``symbol: ...`` and ``signature: ...`` lines above each chunk's text (no
path: a moved file then hits the embedding cache). This compares, on copies of the benchmark
corpora (``bench/.cache/ranking-<variant>/``, each indexed from scratch with the variant's
embedded text; BM25 is unchanged), the default ranking's nDCG@10 and def@1 by split and kind:

- ``none``: the chunk's text alone;
- ``symbol``: the product's header (symbol and signature);
- ``path``: ``path: ...`` first, then the product's header.

    .venv/bin/python bench/ranking/header_experiment.py none path symbol
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from statistics import fmean

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(HERE.parents[2] / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(HERE.parents[1] / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402
from run import TOP_N, case_score  # noqa: E402


def variant_text(variant: str):
    from paqad.index.chunking import chunk as chunk_mod

    product = chunk_mod.dense_text

    def embedded(c):
        if variant == "none":
            return c.text
        if variant == "path":
            return f"path: {c.path}\n" + product(c)
        return product(c)

    return embedded


def run(variant: str) -> None:
    import paqad.build as build
    from paqad import store as store_mod
    from paqad.config import load_settings
    from paqad.embed.factory import get_embedder
    from paqad.project import ProjectPaths
    from paqad.search import RankingOptions, gather, rank

    build.dense_text = variant_text(variant)
    rows = []
    for project in corpora.load_projects():
        source = corpora.materialise(project)
        target = source.parent.parent / f"ranking-{variant}" / source.name
        if not target.exists():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns(".paqad"))
        paths = ProjectPaths(target)
        settings = load_settings(paths, environ={})
        embedder = get_embedder(settings, paths)
        report = build.sync(paths, settings, embedder)
        print(f"  {variant} {project.name}: {report.summary()}", file=sys.stderr, flush=True)
        with store_mod.open_store(paths, readonly=True) as store:
            for case in project.cases:
                results = rank(store, gather(store, embedder, case["query"]), top_n=TOP_N, options=RankingOptions())
                s = case_score(case, [(r.path, r.start_line, r.end_line) for r in results])
                rows.append((project.split, case["kind"], s))
    for split in ("dev", "test"):
        part = [r for r in rows if r[0] == split]
        kinds = {k: fmean(s.ndcg for sp, kk, s in part if kk == k) for k in ("symbol", "where", "architecture")}
        defs = [1.0 if s.def_rank == 1 else 0.0 for _, k, s in part if k == "symbol"]
        print(f"| {variant} | {split} | {fmean(s.ndcg for _, _, s in part):.3f} | {kinds['symbol']:.3f} | "
              f"{kinds['where']:.3f} | {kinds['architecture']:.3f} | {fmean(defs):.3f} |", flush=True)


if __name__ == "__main__":
    print("| embedded header | split | nDCG@10 | symbol | where | architecture | def@1 |\n|---|---|---:|---:|---:|---:|---:|")
    for name in sys.argv[1:] or ["none", "path", "symbol"]:
        run(name)
