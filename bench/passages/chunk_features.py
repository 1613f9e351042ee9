"""Which evidence picks the right chunk of the right file? (issue 19, "the passage that answers";
dev half only: never run on test.)

For every labelled where/architecture case whose first result file is labelled (chunk labels in
``bench/ranking/projects/*.json``), the file's fused candidates under the default ranking are
each described by their evidence (final score, BM25, dense cosine of the chunk alone, the share
of the query's search terms the chunk's text holds and the share its identifiers hold, the
query's words naming its symbol, thin or not, lines of code, a definition line or not), then:

- each evidence alone: in how many files its best chunk is right (``final``: today's order);
- a linear score of several (softmax over the file's candidates, fitted on the other projects'
  files: leave one project out), in how many files its best chunk is right.

    .venv/bin/python bench/passages/chunk_features.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import choice_tune  # noqa: E402  (sets sys.path, the model mirror and PAQAD_HOME)
import corpora  # noqa: E402
import metrics  # noqa: E402
from run import TOP_N  # noqa: E402

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SINGLE = ("final", "bm25", "cosine", "coverage", "id_coverage", "symbol_words", "code_lines")
COMBINED = ("final", "bm25", "cosine", "coverage", "id_coverage", "symbol_words", "thin", "doc_only", "defines")


def describe(store, case, pools, options) -> list[dict] | None:
    """Evidence of each candidate of the case's first result file, best final score first (None:
    that file is not labelled)."""
    from paqad.index.tokens import identifier_parts, query_terms
    from paqad.search import rank
    from paqad.search.priors import symbol_word_share
    from paqad.search.signals.passage_choice import code_lines, is_thin

    results = rank(store, pools, top_n=TOP_N, options=options)
    if not results or not any(e["path"] == results[0].path and e.get("lines") for e in case["expected"]):
        return None
    final, rows = choice_tune.final_scores(store, pools, options)
    path, terms = results[0].path, query_terms(pools.info.lexical_text)
    out = []
    for cid in sorted((c for c in final if rows[c].path == path), key=lambda c: -final[c]):
        r = rows[cid]
        low = r.text.lower()
        parts = {p for m in _IDENT.findall(r.text) for p in identifier_parts(m)}
        code, _ = code_lines(r.text, r.language)
        out.append(dict(final=final[cid], bm25=pools.bm25.get(cid, 0.0), cosine=pools.cosine.get(cid, 0.0),
                        coverage=sum(t in low for t in terms) / max(1, len(terms)),
                        id_coverage=sum(t in parts for t in terms) / max(1, len(terms)),
                        symbol_words=symbol_word_share(pools.info.words, r.symbol or ""), code_lines=code,
                        thin=float(is_thin(r)), doc_only=float(code == 0), defines=float(r.defines),
                        right=metrics.chunk_is_right(case, path, r.start_line, r.end_line)))
    return out


def matrix(chunks: list[dict], names) -> "np.ndarray":
    """(n, len(names)) evidence, each column over the file's best value (0/1 columns as they are)."""
    import numpy as np

    cols = []
    for name in names:
        col = np.array([c[name] for c in chunks], dtype=float)
        top = col.max()
        cols.append(col / top if top > 0 else col)
    return np.stack(cols, axis=1)


def fit(files, names, l2: float = 0.1, steps: int = 400, rate: float = 0.5) -> "np.ndarray":
    """Weights of a softmax over each file's candidates, fitted to put mass on its right ones."""
    import numpy as np

    w = np.zeros(len(names))
    data = [(matrix(f, names), np.array([c["right"] for c in f], dtype=float)) for f in files]
    data = [(x, y / y.sum()) for x, y in data if y.sum() > 0]
    for _ in range(steps):
        grad = -l2 * w
        for x, y in data:
            s = x @ w
            p = np.exp(s - s.max())
            grad += x.T @ (y - p / p.sum())
        w += rate * grad / len(data)
    return w


def main() -> int:
    import numpy as np

    from paqad.search import RankingOptions

    options = RankingOptions()
    files: list[tuple[str, list[dict]]] = []
    for store, case, pools, _ in choice_tune.load(corpora.load_projects(None, "dev")):
        if case["kind"] in ("where", "architecture") and metrics.has_chunk_labels(case):
            chunks = describe(store, case, pools[options.long_prompts], options)
            if chunks:
                files.append((case["id"].rsplit("-", 1)[0], chunks))
    reachable = [f for _, f in files if any(c["right"] for c in f)]
    print(f"{len(files)} labelled first files, a right chunk among the candidates in {len(reachable)}")
    for name in SINGLE:
        hits = sum(max(f, key=lambda c: c[name])["right"] for f in reachable)
        print(f"  best by {name:13} right in {hits}")
    hits = 0
    for project in sorted({p for p, _ in files}):
        w = fit([f for p, f in files if p != project], COMBINED)
        hits += sum(f[int(np.argmax(matrix(f, COMBINED) @ w))]["right"] for p, f in files if p == project)
    print(f"  linear score of {', '.join(COMBINED)} (leave one project out): right in {hits}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
