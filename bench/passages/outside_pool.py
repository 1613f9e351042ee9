"""Right file, right chunk outside the candidates: how often, and could the file's other chunks help?
(issue 19, "the passage that answers"; dev half only).

For every labelled where/architecture case and each labelled file among its first 5 result files
(default ranking): is a right chunk (``metrics.chunk_is_right``) among that file's fused
candidates? When none is, every chunk of the file is ranked by its cosine to the query (the
dense side scores every chunk; ``passage_order``'s evidence, score share + BM25 share, is 0 for a
chunk outside both pools, so cosine is all a pulled-in chunk could be ordered by) and the best
right chunk's rank among them is printed: a rank above 1 means pulling the file's other chunks
into the within-file order cannot make a right one first.

    .venv/bin/python bench/passages/outside_pool.py            # pools from choice_tune's cache
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import choice_tune  # noqa: E402  (sets sys.path, the model mirror and PAQAD_HOME)
import corpora  # noqa: E402
import metrics  # noqa: E402
from run import TOP_N  # noqa: E402


def file_cosines(store, embedder, text: str, path: str) -> list[tuple[float, object]]:
    """``[(cosine, row)]`` of every chunk of ``path``, best first."""
    import numpy as np

    ids = store.chunk_ids_of_files([path], 100_000)
    rows = store.chunks_by_id(ids)
    view = store.dense_view()
    at = np.searchsorted(view.ids, np.array(ids))
    sims = (view.vectors[at].astype(np.float32) * view.scales[at][:, None]) @ embedder.embed_query(text)
    return sorted(((float(s), rows[cid]) for s, cid in zip(sims, ids)), key=lambda p: -p[0])


def main() -> int:
    from paqad.config import load_settings
    from paqad.embed.factory import get_embedder
    from paqad.project import ProjectPaths
    from paqad.search import RankingOptions, rank

    projects = corpora.load_projects(None, "dev")
    items = choice_tune.load(projects)
    paths = ProjectPaths(corpora.materialise(projects[0]))
    embedder = get_embedder(load_settings(paths, environ={}), paths)
    options = RankingOptions()
    counts: Counter = Counter()
    for store, case, pools, _ in items:
        if case["kind"] not in ("where", "architecture") or not metrics.has_chunk_labels(case):
            continue
        p = pools[options.long_prompts]
        results = rank(store, p, top_n=TOP_N, options=options)
        labelled = {e["path"] for e in case["expected"] if e.get("lines")}
        final, rows = choice_tune.final_scores(store, p, options)
        for file_rank, path in enumerate(metrics.distinct_files([r.path for r in results[:5]]), start=1):
            if path not in labelled:
                continue
            inside = any(rows[c].path == path and metrics.chunk_is_right(case, path, rows[c].start_line, rows[c].end_line)
                         for c in final)
            counts[(file_rank == 1, inside)] += 1
            if inside:
                continue
            ranked = file_cosines(store, embedder, p.info.dense_text, path)
            at = next(i for i, (_, r) in enumerate(ranked, start=1)
                      if metrics.chunk_is_right(case, path, r.start_line, r.end_line))
            print(f"{case['id']:16} file#{file_rank} {path}: best right chunk at cosine rank {at} of {len(ranked)} "
                  f"({ranked[at - 1][0]:.3f}; the file's best {ranked[0][0]:.3f})")
    for first in (True, False):
        n_in, n_out = counts[(first, True)], counts[(first, False)]
        print(f"{'first file' if first else 'files 2-5'}: {n_in + n_out} labelled, right chunk among the candidates "
              f"{n_in}, not {n_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
