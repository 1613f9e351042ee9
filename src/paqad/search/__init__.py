"""Search the index: dense + lexical rankers, fusion, ranking signals, floor (DESIGN §8).

:func:`search` is the one call the CLI, the prompt hook, the refresh and the MCP server share,
and :func:`load_embedder` the one place that decides how search degrades when the embedding
model cannot be used (missing, corrupt, unloadable, no key): keyword search alone, with the
reason carried in :attr:`SearchResponse.degraded`.
"""

from __future__ import annotations

import errno
from dataclasses import replace

from paqad import store as store_mod
from paqad.config import Settings
from paqad.embed.base import Embedder
from paqad.errors import IndexStaleError, PaqadError, is_environment_error
from paqad.project import ProjectPaths
from paqad.search.degraded import NO_EMBEDDER, SEMANTIC_MIN_COVERAGE, Degraded, DegradedReason
from paqad.search.fusion import reciprocal_rank_fusion
from paqad.search.results import SearchResponse, SearchResult
from paqad.store.state import embedding_changes
from paqad.search.signals import ALL_SIGNALS, DEFAULT_SIGNALS, is_code_like, is_test_path
from paqad.search.confidence import calibration_for, monotone_confidence
from paqad.search.ranking import POOL_SIZE, Pools, RankingOptions, ablations, gather, rank

__all__ = [
    "ALL_SIGNALS", "DEFAULT_SIGNALS", "NO_EMBEDDER", "Degraded", "DegradedReason", "POOL_SIZE", "SEMANTIC_MIN_COVERAGE", "Pools", "RankingOptions", "SearchResponse", "SearchResult",
    "ablations", "gather", "is_code_like", "is_test_path", "load_embedder", "rank", "reciprocal_rank_fusion", "search",
]



def load_embedder(paths: ProjectPaths, settings: Settings, *, fetch: bool = True) -> tuple[Embedder | None, Degraded | None]:
    """The configured embedder with its model loaded, or ``(None, why)`` when it cannot be used.

    ``why`` (its ``words``: one line naming the problem and the fix (e.g. the model files and the
    ``rag model import`` command)). Never raises for a missing, damaged or unloadable model, a
    missing key or runtime. ``fetch=False`` (the prompt hook) never copies or downloads the model.
    """
    from paqad.embed.factory import load_model

    try:
        return load_model(settings, paths, fetch=fetch), None
    except PaqadError as exc:
        return None, Degraded.from_error(exc)
    except OSError as exc:
        if not is_environment_error(exc):
            raise
        # PAQAD_HOME read-only, full or a file: a search goes on by keywords, naming the path
        where = f"{exc.filename}: " if exc.filename else ""
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            fix = "free space on its disk"
        elif exc.errno in (errno.EEXIST, errno.ENOTDIR):
            fix = "a file stands where a folder must be: move it away, or set PAQAD_HOME to another folder"
        else:
            fix = "set PAQAD_HOME to a folder you can write"
        return None, Degraded(DegradedReason.MODEL_MISSING, f"the model store cannot be used: {where}{exc.strerror}; {fix}")


def search(
    paths: ProjectPaths,
    settings: Settings,
    query: str,
    *,
    top_n: int | None = None,
    path_prefix: str | None = None,
    embedder: Embedder | None = None,
    degraded: Degraded | None = None,
    options: RankingOptions = RankingOptions(),
    store: store_mod.IndexStore | None = None,
    deadline: float | None = None,
) -> SearchResponse:
    """Search the project's index for ``query``: the ranked list cut to ``top_n`` (default
    ``rag_top_n``), each result with its calibrated ``confidence`` and its ``score`` (cosine).

    ``embedder`` None means keyword and symbol search only, with ``degraded`` (or a default
    line) as the reason; a model that fails while embedding the query degrades the same way.
    ``options`` choose rankers and signals (the defaults are the product's). ``store`` is an open
    index to reuse (else one is opened read-only for the call). While fewer than
    :data:`SEMANTIC_MIN_COVERAGE` of the chunks have vectors (embedding still running), the
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
        use_dense = options.dense
        embedded, chunks = store.coverage(meta := store.meta())
        coverage = embedded / chunks if chunks else 1.0
        if use_dense:
            embedder, degraded = _dense_embedder(paths, settings, meta, coverage, embedder, degraded, deadline)
        model, depth = (embedder if use_dense else None), options.gather_depth
        try:
            pools = gather(store, model, query, path_prefix=path_prefix, long_prompts=options.long_prompts,
                           pool=depth, deadline=deadline)
        except PaqadError as exc:
            if model is None or isinstance(exc, IndexStaleError):
                raise
            degraded, model = Degraded.from_error(exc), None
            pools = gather(store, None, query, path_prefix=path_prefix, long_prompts=options.long_prompts, pool=depth)
        if pools.dense_missing is not None:  # the deadline or the model left the dense pool out
            degraded, model = pools.dense_missing, None
        ranking = options if model is not None else replace(options, dense=False)
        calibration = calibration_for(model.model_id if model is not None else None)
        results = rank(store, pools, top_n=top_n or settings.rag_top_n, options=ranking, calibration=calibration)
        results = [r if r.chunk_id in pools.cosine else replace(r, semantic=False) for r in results]  # cosine known?
        results = monotone_confidence(results) if calibration is not None else results  # DESIGN §8.5
        return SearchResponse(tuple(results), degraded if use_dense else None, coverage)
    finally:
        if own:
            store.close()


def _who_embeds(paths: ProjectPaths) -> str:
    """Who finishes the embedding of an index short of vectors: the writer holding the lock now,
    else the next refresh or init (issue 20 item 11: a stopped build is not "continuing")."""
    writer = store_mod.current_writer(paths)
    if writer is not None:
        return f"embedding continues in process {writer['pid']}"
    return ("no process is embedding now: the next `paqad-ai rag refresh-context` (the prompt hook starts one on "
            "every prompt) or `paqad-ai rag init` finishes it")


def _dense_embedder(paths: ProjectPaths, settings: Settings, meta: dict, coverage: float, embedder: Embedder | None,
                    degraded: Degraded | None, deadline: float | None) -> tuple[Embedder | None, Degraded | None]:
    """The embedder the dense side may use on this index, and the degraded line when none: too
    few chunks with vectors, settings changed since the build, or no embedder given. Raises
    IndexStaleError (without a deadline) for an embedder the index was not built with."""
    # Under the coverage minimum the dense side is left out whatever else holds, so a keyword
    # answer the hook gave for lack of time (not started, late) is this one: rated as `rag probe`
    # rates it, not "not rated" (round 7's leftover, issue 19: one prompt, one answer).
    timing_miss = degraded is not None and degraded.reason in (DegradedReason.LATE, DegradedReason.NOT_STARTED)
    if (embedder is not None or timing_miss) and coverage < SEMANTIC_MIN_COVERAGE:
        embedder, degraded = None, Degraded(DegradedReason.STILL_EMBEDDING,
                                            f"{int(coverage * 100)}% so far; {_who_embeds(paths)}")
    changed = embedding_changes(meta, settings)
    if changed:  # settings changed since the build: say it in the user's terms, not fingerprints
        if deadline is None and embedder is not None:
            raise IndexStaleError(changed)
        embedder, degraded = None, Degraded(DegradedReason.STALE_SETTINGS, "; ".join(changed))
    if embedder is not None and deadline is None:
        if meta.get("fingerprint") and meta["fingerprint"] != embedder.fingerprint:
            raise IndexStaleError([f"index was built with {meta.get('model')} ({meta.get('fingerprint')}), "
                                   f"not {embedder.model_id}"])
    if embedder is None:
        degraded = degraded or Degraded(DegradedReason.NO_MODEL)
    return embedder, degraded
