"""Hybrid search: exact dense cosine + BM25 over the whole index, fused with RRF (DESIGN §8).

Then ranking signals that code search needs and plain RRF lacks. Each signal is a small
multiplier on the fused RRF score and can be switched off (``bench/quality.py`` measures each
one; only those that help are on by default):

- ``name``: a query term names the chunk's symbol or file (``Session.request``, ``retry.py``);
- ``definition``: the chunk defines a symbol (function/class/method) rather than mentioning it;
- ``code``: a code-like query (identifiers in ``camelCase``/``snake_case``, ``()``, ``.``) prefers
  code chunks over prose (Markdown, text);
- ``diversity``: the 2nd, 3rd, ... chunk of the same file is discounted so one file does not
  crowd out the others;
- ``tests``: test files are discounted unless the query mentions tests (a test names the
  function it checks, so it often outranks the function itself);
- ``changelog``: changelogs (``CHANGELOG``, ``CHANGES``, ``HISTORY``, ``NEWS``) are discounted
  unless the query asks about releases: every feature is mentioned there once per version.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from paqad.config import RRF_K, Settings
from paqad.errors import PaqadError
from paqad.project import ProjectPaths
from paqad.rag import store as store_mod
from paqad.rag.embeddings.base import Embedder
from paqad.rag.lexical import STOPWORDS, fts_match_expression, query_terms
from paqad.rag.results import SearchResult

POOL_SIZE = 100  # candidates taken from each ranker before fusion
COMMON_TERM_FRACTION = 0.1  # a query term in more chunks than this is left out of BM25 ...
PRUNE_FROM_CHUNKS = 5000  # ... once the index is this large
_DENSE_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paqad-dense")
ALL_SIGNALS = frozenset({"name", "definition", "code", "diversity", "tests", "changelog"})
DEFAULT_SIGNALS = ALL_SIGNALS

PROSE_LANGUAGES = frozenset({"markdown", "text"})
DEFINITION_KINDS = frozenset({"function", "method", "class", "impl"})
NAME_BOOST = 1.5
DEFINITION_BOOST = 1.15
CODE_BOOST = 1.2
DIVERSITY_DECAY = 0.7
TEST_PENALTY = 0.8
CHANGELOG_PENALTY = 0.8
_CHANGELOG_PATH = re.compile(r"(^|/)(changelog|changes|history|news|release[-_ ]?notes)(\.[a-z]+)?$", re.IGNORECASE)
_CHANGELOG_QUERY = re.compile(r"\b(changelog|release|released|version|history|changes|news|deprecat)", re.IGNORECASE)

_TEST_PATH = re.compile(r"(^|/)(tests?|__tests__|spec|specs)/|(^|/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$|(^|/)conftest\.py$")
_TEST_QUERY = re.compile(r"\btest|\bspec\b|\bfixture", re.IGNORECASE)


def is_test_path(path: str) -> bool:
    """True for files that hold tests: ``tests/``, ``test_x.py``, ``x_test.go``, ``x.spec.ts``, ``conftest.py``."""
    return bool(_TEST_PATH.search(path))

_CODE_LIKE = re.compile(r"[a-z][A-Z]|[A-Za-z]_[A-Za-z]|\w\(|\w\.\w|::|->")


@dataclass(frozen=True)
class RankedLists:
    """The two rankings before fusion (chunk ids, best first) and every chunk's cosine."""

    dense: list[int]
    lexical: list[int]
    cosine: dict[int, float]


def is_code_like(query: str) -> bool:
    """True when the query contains identifier-shaped tokens or call/attribute syntax."""
    return bool(_CODE_LIKE.search(query))


def reciprocal_rank_fusion(rankings: Iterable[list[int]], k: int = RRF_K) -> dict[int, float]:
    """RRF score per id: sum over rankings of ``1 / (k + rank)`` with 1-based ranks.

    k = 60 from Cormack, Clarke & Buettcher (SIGIR 2009).
    """
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores


def keyword_expression(store: store_mod.IndexStore, terms: list[str]) -> str | None:
    """The FTS5 MATCH expression for the query terms, leaving out terms that are too common.

    A term found in more than ``COMMON_TERM_FRACTION`` of all chunks adds little to BM25 (its
    IDF is near its floor) but makes FTS5 score a large part of the index: "requests" in 26%
    of a 45k-chunk index tripled the BM25 time. The selective terms are ORed; when every term
    is common, the two rarest are ANDed (few chunks hold both), else the rarest one is used.
    Small indexes (under ``PRUNE_FROM_CHUNKS``) are fast anyway and keep every term.
    """
    chunks = store.chunk_count()
    if len(terms) < 2 or chunks < PRUNE_FROM_CHUNKS:
        return fts_match_expression(terms)
    frequencies = store.document_frequencies(terms)
    present = sorted((t for t in terms if frequencies[t] > 0), key=lambda t: frequencies[t])
    limit = COMMON_TERM_FRACTION * chunks
    selective = [t for t in present if frequencies[t] <= limit]
    if selective:
        return fts_match_expression(selective)
    if len(present) >= 2:
        return fts_match_expression(present[:2], operator="AND")
    return fts_match_expression(present)


def _prefix_ids(store: store_mod.IndexStore, path_prefix: str | None) -> np.ndarray | None:
    if not path_prefix:
        return None
    prefix = path_prefix.strip("/")
    rows = store.db.execute(
        "SELECT id FROM chunks WHERE path = ? OR substr(path, 1, ?) = ?", (prefix, len(prefix) + 1, prefix + "/")
    ).fetchall()
    return np.array([r[0] for r in rows], dtype=np.int64)


def _dense_ranking(ids: np.ndarray, mat: np.ndarray, q: np.ndarray, pool: int) -> tuple[list[int], np.ndarray]:
    """Exact cosine of ``q`` (d,) against ``mat`` (n, d) unit rows; the top ``pool`` ids and all sims."""
    sims = np.asarray(mat @ q, dtype=np.float32)
    top = np.argpartition(-sims, min(pool, len(sims) - 1))[:pool] if len(sims) > pool else np.arange(len(sims))
    top = top[np.argsort(-sims[top], kind="stable")]
    return [int(ids[i]) for i in top], sims


def rank_candidates(
    store: store_mod.IndexStore,
    embedder: Embedder | None,
    query: str,
    *,
    pool: int = POOL_SIZE,
    path_prefix: str | None = None,
    query_vector: np.ndarray | None = None,
) -> RankedLists:
    """Dense and lexical rankings of the whole index (optionally under ``path_prefix``).

    The prefix filter is applied before the top-``pool`` cut of each ranker, never after.
    ``embedder`` None (model unavailable) gives an empty dense ranking and zero cosines.
    The dense side (query embedding and matrix product) runs in a second thread while SQLite
    ranks BM25: both release the GIL, so on two cores the two rankers overlap.
    """
    allowed = _prefix_ids(store, path_prefix)
    dense: list[int] = []
    cosine: dict[int, float] = {}
    ids = np.empty(0, dtype=np.int64)
    dense_job = None
    if embedder is not None:
        ids, mat = store.vector_matrix(embedder.fingerprint, embedder.dimension)
        if allowed is not None:
            keep = np.isin(ids, allowed)
            ids, mat = ids[keep], np.asarray(mat[keep])
        if len(ids):
            def dense_side() -> tuple[list[int], np.ndarray]:
                q = query_vector if query_vector is not None else embedder.embed_query(query)
                return _dense_ranking(ids, mat, q, pool)

            dense_job = _DENSE_POOL.submit(dense_side)
    lexical: list[int] = []
    try:
        expression = keyword_expression(store, query_terms(query))
        if expression:
            if allowed is None:
                hits = store.bm25(expression, pool)
            else:
                hits = store.bm25_in(expression, allowed.tolist(), pool)
            lexical = [cid for cid, _ in hits[:pool]]
    finally:
        if dense_job is not None:
            dense, sims = dense_job.result()
    if dense_job is not None:
        # Cosine only for the candidates: ids are sorted, so a binary search finds each row.
        candidates = np.array(sorted(set(dense) | set(lexical)), dtype=np.int64)
        rows = np.searchsorted(ids, candidates)
        found = (rows < len(ids)) & (ids[np.minimum(rows, len(ids) - 1)] == candidates)
        cosine = dict(zip(candidates[found].tolist(), sims[rows[found]].tolist()))
    return RankedLists(dense, lexical, cosine)


_IDENT = re.compile(r"`?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?`?")


def _looks_like_identifier(token: str) -> bool:
    """``snake_case``, ``camelCase``, ``dotted.name``, ``call()`` or anything in backticks."""
    return (token.startswith("`") or token.endswith("()") or "_" in token or "." in token
            or bool(re.search(r"[a-z][A-Z]", token)))


def _name_terms(query: str) -> set[str]:
    """Identifier-shaped query tokens, lowercased, used to match symbol and file names.

    Plain English words are left out: measured on bench/quality.py, matching every query word
    against names boosted ``views.py`` for "view" and ``app.py`` for "app" and cost MRR.
    """
    words = set()
    for token in _IDENT.findall(query):
        if not _looks_like_identifier(token):
            continue
        for piece in token.strip("`").removesuffix("()").split("."):
            if len(piece) > 2 and piece.lower() not in STOPWORDS:
                words.add(piece.lower())
                words.add(piece.replace("_", "").lower())
    return words


def _names_match(row: store_mod.ChunkRow, terms: set[str]) -> bool:
    if row.symbol:
        for part in row.symbol.split("."):
            low = part.lower()
            if low in terms or low.replace("_", "") in terms:
                return True
    stem = row.path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
    return len(stem) > 2 and (stem in terms or stem.replace("_", "") in terms)


def fuse(
    store: store_mod.IndexStore,
    ranked: RankedLists,
    query: str,
    *,
    top_n: int,
    signals: frozenset[str] = DEFAULT_SIGNALS,
    rankers: tuple[str, ...] = ("dense", "lexical"),
) -> list[SearchResult]:
    """Fuse the rankings with RRF, apply ``signals``, cut to ``top_n`` and load the chunks.

    A chunk whose text equals a better-ranked one (generated twins, bundled copies) is dropped.
    """
    lists = []
    if "dense" in rankers:
        lists.append(ranked.dense)
    if "lexical" in rankers:
        lists.append(ranked.lexical)
    scores = reciprocal_rank_fusion(lists)
    if not scores:
        return []
    rows = store.chunks_by_id(list(scores))
    if signals:
        terms = _name_terms(query) if "name" in signals else set()
        code_query = "code" in signals and is_code_like(query)
        penalise_tests = "tests" in signals and not _TEST_QUERY.search(query)
        penalise_changelogs = "changelog" in signals and not _CHANGELOG_QUERY.search(query)
        for cid, row in rows.items():
            factor = 1.0
            if terms and _names_match(row, terms):
                factor *= NAME_BOOST
            if "definition" in signals and row.kind in DEFINITION_KINDS and row.symbol:
                factor *= DEFINITION_BOOST
            if code_query and row.language not in PROSE_LANGUAGES:
                factor *= CODE_BOOST
            if penalise_tests and is_test_path(row.path):
                factor *= TEST_PENALTY
            if penalise_changelogs and _CHANGELOG_PATH.search(row.path):
                factor *= CHANGELOG_PENALTY
            scores[cid] *= factor
    order = sorted(scores, key=lambda cid: (-scores[cid], cid))
    if "diversity" in signals:
        seen: dict[str, int] = {}
        adjusted = {}
        for cid in order:
            path = rows[cid].path
            adjusted[cid] = scores[cid] * (DIVERSITY_DECAY ** seen.get(path, 0))
            seen[path] = seen.get(path, 0) + 1
        order = sorted(adjusted, key=lambda cid: (-adjusted[cid], cid))
    dense_rank = {cid: i for i, cid in enumerate(ranked.dense, start=1)}
    lexical_rank = {cid: i for i, cid in enumerate(ranked.lexical, start=1)}
    results = []
    seen_texts: set[str] = set()
    for cid in order:
        if len(results) == top_n:
            break
        row = rows[cid]
        if row.text in seen_texts:
            continue  # the same code again (a .d.ts twin, a bundled copy): show it once, best-ranked
        seen_texts.add(row.text)
        rank = len(results) + 1
        results.append(
            SearchResult(
                path=row.path, start_line=row.start_line, end_line=row.end_line, symbol=row.symbol,
                language=row.language, text=row.text, score=float(ranked.cosine.get(cid, 0.0)),
                fused_rank=rank, dense_rank=dense_rank.get(cid), lexical_rank=lexical_rank.get(cid), chunk_id=cid,
            )
        )
    return results


def search(
    paths: ProjectPaths,
    settings: Settings,
    query: str,
    *,
    top_n: int | None = None,
    path_prefix: str | None = None,
    embedder: Embedder | None = None,
    signals: frozenset[str] = DEFAULT_SIGNALS,
    rankers: tuple[str, ...] = ("dense", "lexical"),
    store: store_mod.IndexStore | None = None,
) -> list[SearchResult]:
    """Search the project's index for ``query``: the fused list cut to ``top_n`` (default ``rag_top_n``).

    Each result carries its cosine as ``score``. Raises PaqadError when there is no index or the
    index was built with another model than ``embedder`` (run ``rag rebuild``).
    """
    own = store is None
    store = store or store_mod.open_store(paths, readonly=True)
    try:
        if embedder is not None:
            meta = store.meta()
            if meta.get("fingerprint") and meta["fingerprint"] != embedder.fingerprint:
                raise PaqadError(
                    f"index was built with {meta.get('model')} ({meta.get('fingerprint')}), not {embedder.model_id}; "
                    "run `paqad-ai rag rebuild`"
                )
        ranked = rank_candidates(store, embedder if "dense" in rankers else None, query, path_prefix=path_prefix)
        return fuse(store, ranked, query, top_n=top_n or settings.rag_top_n, signals=signals, rankers=rankers)
    finally:
        if own:
            store.close()
