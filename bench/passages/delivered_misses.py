"""Why a delivered answer holds no right chunk (issue 19, round 8: "the passage that answers").

Every case of one split of the ranking benchmark goes the prompt path's way (the intent check
with the index's evidence, then :func:`paqad.search.search` with the default local model and no
deadline, then the floor: what :func:`paqad.deliver.delivery.deliver` hands the hook), and each
answerable prompt whose delivered passages hold no right chunk (``metrics.chunk_is_right``) is put
in one class:

- ``skipped``: the intent check gave it the nothing form;
- ``no right in 20``: no right chunk among the 20 results;
- ``right file, wrong chunk``: a delivered passage is in a file holding a right chunk;
- ``right below the cut``: a right chunk ranks below the delivered prefix (its rank is printed);
- ``nothing delivered``.

Also printed: how many passages were delivered (mean), from how many files, and the rank of the
first right chunk (1, 2-5, 6-20, none). ``--save F`` keeps each prompt's 20 results (location,
confidence as delivered, right or not) as JSON, so a delivery rule can be replayed offline;
``--show`` lists every miss with what was delivered. Tune on dev only.

    PYTHONPATH=$PWD/src .venv/bin/python bench/passages/delivered_misses.py --split dev --show
    PYTHONPATH=$PWD/src .venv/bin/python bench/passages/delivered_misses.py --split dev --config round-7-passages --companions 0
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "bench" / "ranking"))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(REPO / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402
import metrics  # noqa: E402


def classify(case: dict, skipped: bool, results, delivered) -> tuple[str, int | None]:
    """``(class, rank of the first right result or None)`` of one answerable prompt."""
    right = [metrics.chunk_is_right(case, r.path, r.start_line, r.end_line) for r in results]
    first = next((i + 1 for i, ok in enumerate(right) if ok), None)
    if skipped:
        return "skipped", first
    hit = any(metrics.chunk_is_right(case, r.path, r.start_line, r.end_line) for r in delivered)
    if hit:
        return "targeted", first
    if first is None:
        return "no right in 20", None
    right_files = {r.path for r, ok in zip(results, right) if ok} | {
        e["path"] for e in case.get("expected", ()) if e.get("lines")}
    if case.get("kind") == "symbol" and case.get("definition"):
        right_files.add(case["definition"]["path"])
    if not delivered:
        return "nothing delivered", first
    if any(r.path in right_files for r in delivered):
        return "right file, wrong chunk", first
    return "right below the cut", first


def split_projects(split: str, wanted: set[str]):
    """(project, its ProjectPaths, its settings) for each benchmark project of ``split`` (only
    ``wanted`` names when given), its corpus materialised; shared with ``replay.py``."""
    from paqad.config import load_settings
    from paqad.project import ProjectPaths

    for project in corpora.load_projects():
        if project.split != split or (wanted and project.name not in wanted):
            continue
        paths = ProjectPaths(corpora.materialise(project))
        yield project, paths, load_settings(paths, environ={})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), required=True)
    parser.add_argument("--projects", default="")
    parser.add_argument("--config", default="default", help="a RankingOptions configuration (run.py --list)")
    parser.add_argument("--companions", type=int, default=None,
                        help="the floor's companions (default paqad.config.MAX_COMPANIONS; 0: round 7's floor)")
    parser.add_argument("--save", default="", help="write every prompt's results as JSON here")
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()

    from paqad import store as store_mod
    from paqad.config import MAX_COMPANIONS
    from paqad.deliver.delivery import index_terms
    from paqad.deliver.intent import classify as intent_of
    from paqad.embed.factory import get_embedder
    from paqad.search import ablations, search
    from paqad.search.floor import apply_floor

    options = ablations()[args.config]
    companions = MAX_COMPANIONS if args.companions is None else args.companions
    wanted = set(filter(None, args.projects.split(",")))
    embedder, rows, saved = None, [], []
    for project, paths, settings in split_projects(args.split, wanted):
        embedder = embedder or get_embedder(settings, paths)
        with store_mod.open_store(paths, readonly=True) as store:
            for case in project.cases:
                intent = intent_of(case["query"], known_terms=index_terms(paths, store))
                results, delivered, form = (), (), "nothing"
                if intent.needs_retrieval:
                    results = search(paths, settings, case["query"], embedder=embedder, store=store,
                                     options=options).results
                    outcome = apply_floor(results, settings.rag_similarity_threshold, settings.rag_relief_floor,
                                          companions)
                    delivered, form = outcome.results, str(outcome.form)
                    if form == "confident" and len(delivered) > 5:
                        delivered = delivered[:12]  # pointers
                cls, first = classify(case, not intent.needs_retrieval, results, delivered)
                rows.append((project.name, case, project.language, cls, first, form, delivered))
                saved.append({"id": case["id"], "project": project.name, "kind": case["kind"],
                              "language": project.language, "skipped": not intent.needs_retrieval,
                              "results": [{"path": r.path, "start": r.start_line, "end": r.end_line,
                                           "symbol": r.symbol, "confidence": r.confidence,
                                           "right": metrics.chunk_is_right(case, r.path, r.start_line, r.end_line)}
                                          for r in results]})
    n = len(rows)
    print(f"### {args.split}, {args.config}, companions {companions}: {n} answerable prompts\n")
    counts = Counter(r[3] for r in rows)
    print("| class | n | share |\n|---|---:|---:|")
    for cls, k in counts.most_common():
        print(f"| {cls} | {k} | {k / n:.3f} |")
    firsts = Counter("none" if r[4] is None else "1" if r[4] == 1 else "2-5" if r[4] <= 5 else "6-20" for r in rows)
    print("\nfirst right rank: " + ", ".join(f"{k} {firsts[k]}" for k in ("1", "2-5", "6-20", "none")))
    forms = Counter(r[5] for r in rows)
    print("forms: " + ", ".join(f"{k} {v}" for k, v in sorted(forms.items())))
    passages = [len(r[6]) for r in rows]
    files = [len({p.path for p in r[6]}) for r in rows]
    print(f"delivered per prompt: {sum(passages) / n:.2f} passages from {sum(files) / n:.2f} files")
    if args.show:
        for name, case, _, cls, first, form, delivered in rows:
            if cls != "targeted":
                shown = ", ".join(f"{d.location} {d.confidence:.2f}" for d in delivered[:5])
                print(f"  {cls:<24} {case['id']:<18} first right {first}; {form}: {shown}")
    if args.save:
        Path(args.save).write_text(json.dumps(saved), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
