"""Keyword-only answers against the full search, per passage (issue 19: hook and probe agree).

For every case of the ranking benchmark (one split), the query is ranked twice in the same index:
keyword-only (no model: what the prompt hook's own process sends when the dense side misses its
budget, rated by the keyword-only fit) and full (dense + keyword, rated by the model's fit: what
``rag probe`` and the warm process give). Printed: how often a passage the keyword-only answer
delivers is rated above the full search's rating of the same passage, the forms each answer
takes, and the file-level precision of each answer's confident passages.

    .venv/bin/python bench/passages/keyword_vs_full.py --split dev
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "bench" / "ranking"))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(REPO / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402

TOP_N = 20


def answers(store, embedder, query):
    """``(keyword-only floor outcome, full floor outcome, full results by chunk id)``."""
    from paqad.search import gather, rank
    from paqad.search.confidence import calibration_for, monotone_confidence
    from paqad.search.floor import apply_floor
    from paqad.search.options import RankingOptions

    out = []
    for model in (None, embedder):
        pools = gather(store, model, query)
        options = RankingOptions() if model is not None else RankingOptions(dense=False)
        calibration = calibration_for(model.model_id if model is not None else None)
        results = monotone_confidence(rank(store, pools, top_n=TOP_N, options=options, calibration=calibration))
        out.append((apply_floor(results), {r.chunk_id: r for r in results}))
    return out


def main() -> int:
    from paqad import store as store_mod
    from paqad.config import load_settings
    from paqad.embed.factory import get_embedder
    from paqad.project import ProjectPaths
    from paqad.search.floor import percent

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--projects", default="")
    args = parser.parse_args()
    delivered = above = confident_kw = kw_right = confident_full = full_right = 0
    forms: dict[tuple[str, str], int] = {}
    gaps: list[int] = []
    for project in corpora.load_projects([p for p in args.projects.split(",") if p] or None, args.split):
        paths = ProjectPaths(corpora.materialise(project))
        embedder = get_embedder(load_settings(paths, environ={}), paths)
        with store_mod.open_store(paths, readonly=True) as store:
            for case in project.cases:
                files = {e["path"] for e in case["expected"]}
                (kw, _), (full, by_id) = answers(store, embedder, case["query"])
                forms[(str(kw.form), str(full.form))] = forms.get((str(kw.form), str(full.form)), 0) + 1
                full_conf = {cid: r.confidence for cid, r in by_id.items()}
                for r in kw.results:
                    delivered += 1
                    other = percent(full_conf[r.chunk_id]) if r.chunk_id in full_conf else 0  # not in the top 20: below
                    if percent(r.confidence) > other:
                        above += 1
                        gaps.append(percent(r.confidence) - other)
                if str(kw.form) == "confident":
                    confident_kw += len(kw.results)
                    kw_right += sum(r.path in files for r in kw.results)
                if str(full.form) == "confident":
                    confident_full += len(full.results)
                    full_right += sum(r.path in files for r in full.results)
        print(f"{project.name}: done", flush=True)
    print(f"\nkeyword-only passages delivered: {delivered}; rated above the full search's rating of the same "
          f"passage: {above} ({above / max(1, delivered):.2f}); median excess {sorted(gaps)[len(gaps) // 2] if gaps else 0} points")
    print(f"confident passages, file-level precision: keyword-only {kw_right}/{confident_kw} "
          f"({kw_right / max(1, confident_kw):.2f}); full {full_right}/{confident_full} ({full_right / max(1, confident_full):.2f})")
    print("forms (keyword-only -> full):")
    for (a, b), n in sorted(forms.items(), key=lambda x: -x[1]):
        print(f"  {a:>15} -> {b:<15} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
