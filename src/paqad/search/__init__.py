"""Search the index: dense + lexical rankers, fusion, ranking signals, floor (DESIGN §8).

:func:`search` is the one call the CLI, the prompt hook, the refresh and the MCP server share,
and :func:`load_embedder` the one place that decides how search degrades when the embedding
model cannot be used (missing, corrupt, unloadable, no key): keyword search alone, with the
reason carried in :attr:`SearchResponse.degraded`.
"""

from __future__ import annotations

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


def load_embedder(paths: ProjectPaths, settings: Settings, *, fetch: bool = True) -> tuple[Embedder | None, str | None]:
    """The configured embedder with its model loaded, or ``(None, why)`` when it cannot be used.

    ``why`` is one line naming the problem and the fix (e.g. the model files and the
    ``rag model import`` command). Never raises for a missing, damaged or unloadable model, a
    missing key or runtime. ``fetch=False`` (the prompt hook) never copies or downloads the model.
    """
    from paqad.embed.factory import load_model

    try:
        return load_model(settings, paths, fetch=fetch), None
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
) -> SearchResponse:
    """Search the project's index for ``query``: the fused list cut to ``top_n`` (default ``rag_top_n``).

    ``embedder`` None means keyword search only, with ``degraded`` (or a default line) as the
    reason; a model that fails while embedding the query degrades the same way. Each result
    carries its cosine as ``score``. ``store`` is an open index to reuse (else one is opened
    read-only for the call). Raises IndexMissingError / IndexCorruptError, and IndexStaleError
    when the index was built with another model than ``embedder``.
    """
    own = store is None
    store = store or store_mod.open_store(paths, readonly=True)
    try:
        use_dense = "dense" in rankers
        if use_dense and embedder is not None:
            meta = store.meta()
            if meta.get("fingerprint") and meta["fingerprint"] != embedder.fingerprint:
                raise IndexStaleError([f"index was built with {meta.get('model')} ({meta.get('fingerprint')}), "
                                       f"not {embedder.model_id}"])
        if use_dense and embedder is None:
            degraded = degraded or NO_EMBEDDER
        try:
            ranked = rank_candidates(store, embedder if use_dense else None, query, path_prefix=path_prefix)
        except PaqadError as exc:
            if embedder is None or not use_dense or isinstance(exc, IndexStaleError):
                raise
            degraded = f"semantic search unavailable ({exc}); keyword search only"
            ranked = rank_candidates(store, None, query, path_prefix=path_prefix)
        results = fuse(store, ranked, query, top_n=top_n or settings.rag_top_n, signals=signals, rankers=rankers)
        return SearchResponse(tuple(results), degraded if use_dense else None)
    finally:
        if own:
            store.close()
