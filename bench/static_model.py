"""Static embeddings (issue 23): speed, size and quality of a static model against MiniLM.

Three parts, each printing Markdown for bench/README.md ("Static embeddings (issue 23)"):

- ``speed``: for each named ranking corpus, a fresh ``rag init`` of a copy with MiniLM (int8)
  and with the static model, alternating in the same minutes (bench/index_speed.py's
  ``measure``: whole build, model alone on the same distinct chunks, index size), then the
  query p50 in process (gather + rank, 20 runs of 10 fixed prompts) on the static index.
- ``ranking``: the ranking benchmark (bench/ranking, 340 cases, dev and test) with the static
  model's index, default ranking and keyword-only (dense off), beside MiniLM's per-case scores
  (``--baseline``, default bench/.cache/ranking-baseline.json as written by bench/ranking/run.py).
  The static indexes are built in this worktree's own copy of the corpora: each corpus gets a
  ``.paqad/.config`` naming the static model, so the shared MiniLM indexes are never touched.
- ``reader``: our reader (paqad.embed.static) against the ``model2vec`` package on the same
  texts: import time, embedding speed, largest difference of the vectors. Needs an interpreter
  with model2vec installed (``--m2v-python``); install size is measured with ``du`` by hand.

    nice -n 10 .venv/bin/python bench/static_model.py speed --projects logrus,jsoup,leveldb,structlog
    nice -n 10 .venv/bin/python bench/static_model.py query --projects jsoup,echo,axios --minilm-root ../../main/bench/.cache/ranking
    nice -n 10 .venv/bin/python bench/static_model.py ranking --json bench/.cache/ranking-static.json
    nice -n 10 .venv/bin/python bench/static_model.py reader --m2v-python /tmp/m2v-venv/bin/python
    nice -n 10 .venv/bin/python bench/static_model.py calibration --write --projects jsoup,echo,structlog,thor \
        --minilm-root ../../main/bench/.cache/ranking

- ``calibration``: the static model's confidence fit with bench/calibration.py's own functions
  (collect, fit, report: dev half fitted, test half held out), and the share of the should-skip
  prompts (bench/should_skip, no answer in these projects) that would get the confident form
  on the static indexes (``--projects``), with the static fit and with the model-agnostic one.

``--model`` picks the static model (default: the offline stand-in distilled from MiniLM,
``local/all-MiniLM-L6-v2-static256``; its figures say nothing about potion-code-16M).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "ranking"))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(REPO / "bench" / ".cache" / "paqad-home"))

STATIC = "local/all-MiniLM-L6-v2-static256"
MINILM = "Xenova/all-MiniLM-L6-v2"
KEYWORD_ONLY = "keyword-only"
QUERIES = ["how are errors reported to the caller", "parse the configuration file", "Logger", "retry with backoff",
           "where is the connection closed", "encode a value as json", "what happens on timeout", "NewEncoder",
           "thread safety of the writer", "read the next token"]


def _configure(root: Path, model: str) -> None:
    """Point a corpus copy at ``model`` (its local ``.paqad/.config``, read by load_settings)."""
    (root / ".paqad").mkdir(exist_ok=True)
    (root / ".paqad" / ".config").write_text(f"rag_embedding_provider=local\nrag_embedding_model={model}\n", encoding="utf-8")


def query_p50(root: Path, model: str, runs: int = 20) -> float:
    """Median ms of gather + rank over ``runs`` x QUERIES on the index of ``root`` (model loaded)."""
    from paqad import store as store_mod
    from paqad.config import load_settings
    from paqad.embed.factory import load_model
    from paqad.project import ProjectPaths
    from paqad.search import gather, rank

    paths = ProjectPaths(root)
    settings = replace(load_settings(paths, environ={}), rag_embedding_model=model)
    embedder = load_model(settings, paths)
    times = []
    with store_mod.open_store(paths, readonly=True) as store:
        for _ in range(runs):
            for q in QUERIES:
                started = time.perf_counter()
                rank(store, gather(store, embedder, q), top_n=20)
                times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def speed(names: list[str], model: str) -> None:
    import corpora as ranking_corpora
    import index_speed

    projects = ranking_corpora.load_projects(names)
    print("| project | model | chunks | build s | model alone s | ms/chunk | index MB |\n|---|---|---:|---:|---:|---:|---:|")
    totals: dict[str, list[float]] = {MINILM: [0.0, 0.0], model: [0.0, 0.0]}
    for project in projects:
        root = ranking_corpora.materialise(project)
        for m in (MINILM, model):
            os.environ["PAQAD_RAG_EMBEDDING_MODEL"] = m
            row = index_speed.measure(root)
            totals[m][0] += row["total_s"]
            totals[m][1] += row["model_s"]
            print(f"| {project.name} | {m} | {row['chunks']} | {row['total_s']} | {row['model_s']} | "
                  f"{row['model_ms_per_chunk']} | {row['index_mb']} |", flush=True)
    os.environ.pop("PAQAD_RAG_EMBEDDING_MODEL", None)
    (a_total, a_model), (b_total, b_model) = totals[MINILM], totals[model]
    print(f"\nsum: MiniLM build {a_total:.1f} s (model {a_model:.1f} s), static build {b_total:.1f} s (model "
          f"{b_model:.2f} s): build {a_total / b_total:.1f}x faster, embedding {a_model / max(b_model, 1e-9):.0f}x faster")


def query_speed(names: list[str], model: str, minilm_root: Path) -> None:
    """Query p50 in process, static (this worktree's corpora) and MiniLM (``minilm_root``, read
    only), alternating per project in the same minutes."""
    import corpora as ranking_corpora

    print("| project | MiniLM p50 ms | static p50 ms |\n|---|---:|---:|")
    for project in ranking_corpora.load_projects(names or None):
        static_root = ranking_corpora.materialise(project)
        minilm = query_p50(minilm_root / project.folder.name, MINILM)
        static = query_p50(static_root, model)
        print(f"| {project.name} | {minilm:.1f} | {static:.1f} |", flush=True)


def _with_keyword_only(run) -> None:
    from paqad.search import RankingOptions, ablations

    run.configurations = lambda: {**ablations(), KEYWORD_ONLY: replace(RankingOptions(), dense=False)}


def ranking(model: str, baseline: Path, out: Path | None, names: list[str]) -> None:
    import corpora as ranking_corpora
    import run

    _with_keyword_only(run)
    base = json.loads(baseline.read_text(encoding="utf-8"))
    scores, info = {}, {}
    started = time.perf_counter()
    p50 = []
    for project in ranking_corpora.load_projects(names or None):
        root = ranking_corpora.materialise(project)
        _configure(root, model)
        print(f"{project.name} ({project.language}, {project.split})", flush=True)
        per = run.run_project(project, ["default", KEYWORD_ONLY])
        p50.append(query_p50(root, model, runs=3))
        for cid, by_config in per.items():
            old = base[cid]["default"]
            minilm = run.Score(old["ndcg"], old["recall"], old["rr"], old["def_rank"], old["files"])
            scores[cid] = {"minilm": minilm, "static": by_config["default"], KEYWORD_ONLY: by_config[KEYWORD_ONLY]}
            case = next(c for c in project.cases if c["id"] == cid)
            info[cid] = (project.split, case["kind"], project.language, bool(case.get("long")))
    print(f"\n{len(scores)} cases in {time.perf_counter() - started:.0f}s; query p50 (median over projects of the "
          f"per-project median, gather + rank) {statistics.median(p50):.1f} ms\n")
    for split in ("dev", "test"):
        ids = [c for c, i in info.items() if i[0] == split]
        if ids:
            print(run.report_split(split, ids, scores, info, ["minilm", "static", KEYWORD_ONLY]))
    if out:
        out.write_text(json.dumps({cid: {"info": info[cid], **{c: {"ndcg": s.ndcg, "recall": s.recall, "rr": s.rr,
                                                                   "def_rank": s.def_rank, "files": s.files}
                                                               for c, s in per.items()}}
                                   for cid, per in scores.items()}, indent=1), encoding="utf-8")
        print(f"wrote {out}")


READER = r"""
import json, sys, time
t0 = time.perf_counter()
if sys.argv[1] == "m2v":
    from model2vec import StaticModel
else:
    from paqad.embed.static import StaticEmbedder
imported = time.perf_counter() - t0
texts = json.load(open(sys.argv[3]))
t0 = time.perf_counter()
if sys.argv[1] == "m2v":
    model = StaticModel.from_pretrained(sys.argv[2])
    embed = lambda xs: model.encode(xs, use_multiprocessing=False)
else:
    model = StaticEmbedder(sys.argv[4])
    model.embed_documents(["load"])
    embed = model.embed_documents
loaded = time.perf_counter() - t0
t0 = time.perf_counter()
vectors = embed(texts)
seconds = time.perf_counter() - t0
import numpy as np
np.save(sys.argv[5], np.asarray(vectors, dtype=np.float32))
print(json.dumps({"import_s": imported, "load_s": loaded, "embed_s": seconds, "texts": len(texts)}))
"""


def reader(model: str, m2v_python: str, corpus: str) -> None:
    import numpy as np

    import corpora as ranking_corpora
    from paqad.embed import model_store
    from paqad.index.chunking import chunk_file, dense_text
    from paqad.index.discover import discover
    from paqad.index.languages import language_for_path

    root = ranking_corpora.materialise(ranking_corpora.load_projects([corpus])[0])
    texts = []
    for d in discover(root, 153600).eligible:
        text = (root / d.path).read_bytes().decode("utf-8", errors="replace")
        texts.extend(dense_text(c) for c in chunk_file(d.path, text, language_for_path(d.path)))
    folder = model_store.ensure_model(model)
    tmp = REPO / "bench" / ".cache" / "static-reader"
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "texts.json").write_text(json.dumps(texts), encoding="utf-8")
    rows = {}
    for who, python in (("ours", sys.executable), ("m2v", m2v_python), ("ours", sys.executable), ("m2v", m2v_python)):
        out = subprocess.run([python, "-c", READER, who, str(folder), str(tmp / "texts.json"), model, str(tmp / f"{who}.npy")],
                             capture_output=True, text=True, check=True, env=dict(os.environ)).stdout
        rows[who] = json.loads(out)  # the second run of each (warm file cache) is the one kept
    ours, theirs = np.load(tmp / "ours.npy"), np.load(tmp / "m2v.npy")
    cos = (ours * theirs).sum(axis=1)
    nonzero = np.linalg.norm(ours, axis=1) > 0
    print("| reader | import ms | load ms | embed s | chunks/s |\n|---|---:|---:|---:|---:|")
    for who, r in rows.items():
        print(f"| {who} | {r['import_s'] * 1000:.0f} | {r['load_s'] * 1000:.0f} | {r['embed_s']:.2f} | {r['texts'] / r['embed_s']:.0f} |")
    print(f"\n{len(texts)} chunks of {corpus}: largest |difference| {np.abs(ours - theirs).max():.2e}, "
          f"smallest cosine {cos[nonzero].min():.7f}, identical rows {int((ours == theirs).all(axis=1).sum())}")


def _probability(calibration, vector: dict) -> float:
    """The fit's confidence for one evidence vector (bench/calibration.py's report, restated)."""
    import math

    z = calibration.bias + sum(w * (vector[f] - m) / sc for f, w, m, sc in
                               zip(calibration.features, calibration.weights, calibration.means, calibration.scales))
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


def no_answer_confident_share(calibrations: dict, names: list[str], corpora_root: Path | None = None) -> None:
    """Share of should-skip prompts (bench/should_skip dev and test lists: no answer in any project)
    that would get the confident form (a result >= 0.75) on the static indexes, per fit."""
    import corpora as ranking_corpora
    from paqad import store as store_mod
    from paqad.config import load_settings
    from paqad.embed.factory import load_model
    from paqad.project import ProjectPaths
    from paqad.search import gather
    from paqad.search.floor import percent
    from paqad.search.ranking import rank_with_evidence

    sys.path.insert(0, str(HERE / "should_skip"))
    import run as should_skip  # bench/should_skip/run.py

    prompts = should_skip.prompts("dev.txt") + should_skip.prompts("test.txt")
    hits = {name: 0 for name in calibrations}
    total = 0
    for project in ranking_corpora.load_projects(names or None):
        # corpora_root: another copy of the corpora (e.g. the shared MiniLM indexes), only read
        root = corpora_root / project.folder.name if corpora_root else ranking_corpora.materialise(project)
        paths = ProjectPaths(root)
        embedder = load_model(load_settings(paths, environ={}), paths)
        with store_mod.open_store(paths, readonly=True) as store:
            for prompt in prompts:
                _, evidence = rank_with_evidence(store, gather(store, embedder, prompt), top_n=20)
                total += 1
                for name, calibration in calibrations.items():
                    hits[name] += any(percent(_probability(calibration, ev.vector())) >= percent(0.75) for ev in evidence)
    for name, n in hits.items():
        print(f"no-answer prompts ({len(prompts)} should-skip prompts x projects = {total}) given the confident form, "
              f"fit {name}: {n / total:.3f}")


def calibration(model: str, write: bool, names: list[str], minilm_root: Path | None) -> None:
    """The static model's confidence fit: now made by ``bench/calibration.py --static`` (negatives,
    chunk-level labels, its own indexes under ``bench/.cache/ranking-static/``); this part only
    reports the should-skip prompts' confident share on those indexes with the shipped fits."""
    import calibration as calib
    from paqad.search.confidence import AGNOSTIC, load_calibration

    if write:
        raise SystemExit("static_model.py calibration --write: fit with `bench/calibration.py --static --write`")
    calib.static_root()
    no_answer_confident_share({model: load_calibration(model), AGNOSTIC: load_calibration(AGNOSTIC)}, names,
                              calib.STATIC_ROOT)
    if minilm_root:
        print(f"the same prompts on the MiniLM indexes in {minilm_root} (read only):")
        no_answer_confident_share({MINILM: load_calibration(MINILM)}, names, minilm_root)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=("speed", "query", "ranking", "reader", "calibration"))
    parser.add_argument("--minilm-root", type=Path, default=None,
                        help="calibration: folder of MiniLM-indexed corpora to compare the no-answer share with (read only)")
    parser.add_argument("--write", action="store_true", help="calibration: write src/paqad/search/calibration/<model>.json")
    parser.add_argument("--model", default=STATIC, help=f"static model id (default {STATIC})")
    parser.add_argument("--projects", default="", help="comma-separated ranking corpora (speed: required)")
    parser.add_argument("--baseline", type=Path, default=REPO / "bench" / ".cache" / "ranking-baseline.json")
    parser.add_argument("--json", type=Path, default=None, help="ranking: write per-case scores here")
    parser.add_argument("--m2v-python", default=None, help="reader: an interpreter with model2vec installed")
    parser.add_argument("--corpus", default="jsoup", help="reader: the ranking corpus whose chunks to embed")
    args = parser.parse_args()
    names = [p for p in args.projects.split(",") if p]
    if args.part == "speed":
        speed(names, args.model)
    elif args.part == "ranking":
        ranking(args.model, args.baseline, args.json, names)
    elif args.part == "query":
        query_speed(names, args.model, args.minilm_root or parser.error("--minilm-root is required"))
    elif args.part == "calibration":
        calibration(args.model, args.write, names, args.minilm_root)
    else:
        reader(args.model, args.m2v_python or parser.error("--m2v-python is required"), args.corpus)
    return 0


if __name__ == "__main__":
    sys.exit(main())
