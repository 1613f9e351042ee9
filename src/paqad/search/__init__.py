"""Search the index: dense + lexical rankers, fusion, ranking signals, floor (DESIGN §8).

:func:`search` is the one call the CLI, the prompt hook, the refresh and the MCP server share,
and :func:`load_embedder` the one place that decides how search degrades when the embedding
model cannot be used (missing, corrupt, unloadable, no key): keyword search alone, with the
reason carried in :attr:`SearchResponse.degraded`.
"""

from __future__ import annotations

import dataclasses

from paqad import store as store_mod
from paqad.config import Settings
from paqad.embed.base import Embedder
from paqad.errors import IndexStaleError, PaqadError
from paqad.project import ProjectPaths
from paqad.search.fusion import POOL_SIZE, RankedLists, fuse, rank_candidates, reciprocal_rank_fusion
from paqad.search.results import SearchResponse, SearchResult
from paqad.search.signals import ALL_SIGNALS, DEFAULT_SIGNALS, is_code_like, is_test_path

__all__ = [
    "ALL_SIGNALS", "DEFAULT_SIGNALS", "POOL_SIZE", "RankedLists", "SearchResponse", "SearchResult", "fuse",
    "is_code_like", "is_test_path", "load_embedder", "rank_candidates", "reciprocal_rank_fusion", "search",
]

NO_EMBEDDER = "semantic search unavailable (no embedding model loaded); keyword search only"
# Below this share of chunks with vectors (an index still embedding), search is keyword-only: a
# dense ranking over a small embedded part would outvote the keyword hits of the rest. Cursor
# offers semantic search from about 80% of a repository indexed (shared/ANCHORS.md).
SEMANTIC_MIN_COVERAGE = 0.8


def load_embedder(paths: ProjectPaths, settings: Settings) -> tuple[Embedder | None, str | None]:
    """The configured embedder with its model loaded, or ``(None, why)`` when it cannot be used.

    ``why`` is one line naming the problem and the fix (e.g. the model files and the
    ``rag model import`` command). Never raises for a missing model, key or runtime.
    """
    from paqad.embed.factory import get_embedder

    try:
        embedder = get_embedder(settings, paths)
        embedder.fingerprint  # noqa: B018 - the local model loads lazily: a missing model shows up here
        return embedder, None
    except PaqadError as exc:
        return None, f"semantic search unavailable ({exc}); keyword search only"


def search(
    paths: ProjectPaths,
    settings: Settings,
    query: str,
    *,
    top_n: int | None = None,
    path_prefix: str | None = None,
    embedder: Embedder | None = None,
    degraded: str | None = None,
    signals: frozenset[str] = DEFAULT_SIGNALS,
    rankers: tuple[str, ...] = ("dense", "lexical"),
    store: store_mod.IndexStore | None = None,
    deadline: float | None = None,
) -> SearchResponse:
    """Search the project's index for ``query``: the fused list cut to ``top_n`` (default ``rag_top_n``).

    ``embedder`` None means keyword search only, with ``degraded`` (or a default line) as the
    reason; a model that fails while embedding the query degrades the same way. Each result
    carries its cosine as ``score`` (``semantic`` False and 0.0 for a chunk without a vector).
    ``store`` is an open index to reuse (else one is opened read-only for the call). While fewer
    than :data:`SEMANTIC_MIN_COVERAGE` of the chunks have vectors (embedding still running), the
    search is keyword-only and ``degraded`` says so; ``coverage`` is on the response.

    ``deadline`` (a ``time.monotonic()`` value; the prompt hook's budget): the keyword side is
    computed first and the dense side joins only if its query vector is ready by then; else the
    answer is keyword-only and ``degraded`` says so. With a deadline the embedder may be one
    whose model is not loaded yet: loading it is part of the dense side, and a model that
    cannot be used, or another model than the index's, also leaves a keyword-only answer.

    Raises IndexMissingError / IndexCorruptError, and (without a deadline) IndexStaleError when
    the index was built with another model than ``embedder``.
    """
    own = store is None
    store = store or store_mod.open_store(paths, readonly=True)
    try:
        use_dense = "dense" in rankers
        embedded, chunks = store.coverage()
        coverage = embedded / chunks if chunks else 1.0
        if use_dense and embedder is not None and coverage < SEMANTIC_MIN_COVERAGE:
            embedder, degraded = None, (f"semantic search starts once {SEMANTIC_MIN_COVERAGE:.0%} of the chunks have vectors "
                                        f"({int(coverage * 100)}% so far, embedding continues); keyword search only")
        if use_dense and embedder is not None and deadline is None:
            meta = store.meta()
            if meta.get("fingerprint") and meta["fingerprint"] != embedder.fingerprint:
                raise IndexStaleError([f"index was built with {meta.get('model')} ({meta.get('fingerprint')}), "
                                       f"not {embedder.model_id}"])
        if use_dense and embedder is None:
            degraded = degraded or NO_EMBEDDER
        try:
            ranked = rank_candidates(store, embedder if use_dense else None, query, path_prefix=path_prefix,
                                     deadline=deadline)
        except PaqadError as exc:
            if embedder is None or not use_dense or isinstance(exc, IndexStaleError):
                raise
            degraded = f"semantic search unavailable ({exc}); keyword search only"
            ranked = rank_candidates(store, None, query, path_prefix=path_prefix)
        degraded = ranked.dense_missing or degraded
        results = fuse(store, ranked, query, top_n=top_n or settings.rag_top_n, signals=signals, rankers=rankers)
        # Which results have a cosine is decided here, at the boundary, not inside the ranking.
        results = [r if r.chunk_id in ranked.cosine else dataclasses.replace(r, semantic=False) for r in results]
        return SearchResponse(tuple(results), degraded if use_dense else None, coverage)
    finally:
        if own:
            store.close()
