"""The ranking pipeline in two steps, so a benchmark can rank one query many ways (DESIGN §8):

- :func:`gather`: everything that needs the model or the index, done once per query: the query's
  analysis (kind, identifiers, paths), the dense pool with cosines, the BM25 pool with scores,
  the symbol table's definitions of the query's identifiers, and the chunks of files the query
  names;
- :func:`rank`: weighted reciprocal rank fusion of those pools (:mod:`~paqad.search.fusion`),
  the ranking signals in force (:mod:`paqad.search.signals`, one module each), then result
  assembly (:mod:`~paqad.search.assembly`).

:class:`RankingOptions` and :func:`~paqad.search.ablations.ablations` (the configurations ``bench/ranking/run.py``
compares) live in :mod:`paqad.search.options` and are re-exported here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable, TypeVar

from paqad import store as store_mod
from paqad.embed.base import Embedder
from paqad.search.analysis import QueryInfo, analyze
from paqad.search.assembly import assemble
from paqad.index.tokens import query_terms
from paqad.search.confidence import NO_QUERY_EVIDENCE, Calibration, Evidence, QueryEvidence, query_evidence
from paqad.search.definition_heads import definition_heads
from paqad.search.degraded import Degraded
from paqad.search.dense import finish_dense, start_query_vector
from paqad.search.fusion import weighted_fusion
from paqad.search.lexical import lexical_hits, lone_identifier_hits
from paqad.search.text_definitions import text_definition_pool, with_text_bare_word
from paqad.search.ablations import ablations
from paqad.search.options import RankingOptions, option_names
from paqad.search.packages import Packages, package_names, read_packages
from paqad.search.priors import exempt_kinds
from paqad.search.results import SearchResult
from paqad.search.signals import RankingContext, apply_pipeline
from paqad.search.symbols import (DefinitionMatch, qualified_overflow, symbol_pool, with_bare_word_symbol,
                                  with_phrase_name)

__all__ = ["MAX_NAMED_FILE_CHUNKS", "POOL_SIZE", "Pools", "RankingOptions", "ablations", "cut_pools", "gather",
           "option_names", "rank", "rank_with_evidence"]

POOL_SIZE = RankingOptions.pool_depth  # candidates taken from each ranker before fusion (the default's depth)
MAX_NAMED_FILE_CHUNKS = 200  # chunks scanned from files the query names


@dataclass(frozen=True)
class Pools:
    """What :func:`gather` found for one query.

    ``dense``/``lexical``: chunk ids best first; ``cosine``: every candidate's cosine (empty
    without a model); ``bm25``: BM25 score of the lexical pool's chunks (higher is better);
    ``definitions``: symbol-table matches; ``named``: chunk ids of files the query names;
    ``seconds``: time spent, by step; ``dense_missing``: why the dense pool is empty, when a
    deadline or a model error left it out; ``heads``: table chunk -> its definition's first
    piece (``RankingOptions.definition_heads`` moves the table's match there).
    """

    info: QueryInfo
    dense: list[int]
    lexical: list[int]
    cosine: dict[int, float]
    bm25: dict[int, float]
    definitions: tuple[DefinitionMatch, ...]
    named: tuple[int, ...]
    named_paths: frozenset[str] = frozenset()
    seconds: dict[str, float] = field(default_factory=dict)
    dense_missing: Degraded | None = None  # why the dense pool was left out (a deadline, a model error)
    query_evidence: QueryEvidence = NO_QUERY_EVIDENCE  # does the project answer at all (confidence)
    # symbol-table chunk id -> the first piece of its definition, for definitions named on their
    # last line (C `typedef struct {...} name;`; paqad.search.definition_heads)
    heads: dict[int, int] = field(default_factory=dict)
    # a query of one identifier spelled like a question word (`METHODS`): BM25 of that word, which
    # the lexical pool leaves out as a stopword (RankingOptions.lone_identifiers; search.lexical)
    lone_hits: tuple[tuple[int, float], ...] = ()
    # the chunk ids a path prefix allows (None: all), for a lookup at ranking time (text_definitions)
    allowed: frozenset[int] | None = None
    # a one-word query the symbol table does not make a symbol query, whose word a BM25 hit defines
    # by a keyword or a macro: the symbol query it is (RankingOptions.text_bare_words; text_definitions)
    text_info: QueryInfo | None = None
    # a short definition question's one plain-word name the symbol table spells exactly ("where is Level
    # defined?"): the query with it as an embedded identifier (RankingOptions.definition_phrases; its table
    # matches are in `definitions`, left out without the option; symbols.with_phrase_name)
    phrase_info: QueryInfo | None = None
    # round 11 (RankingOptions.qualified_rows): table matches of a qualified name past the per-name cap whose
    # file a qualifier part names (symbols.qualified_overflow); added to `definitions` only with the option
    overflow: tuple[DefinitionMatch, ...] = ()


def _named_paths(store: store_mod.IndexStore, info: QueryInfo) -> list[str]:
    """Indexed files the query names: by a path or its tail (an absolute path from a traceback
    matches the indexed file with the longest common tail), or whose name is an identifier."""
    found: dict[str, None] = {}
    all_paths = store.file_paths() if info.paths or info.identifiers else ()
    for named in info.paths:
        parts = [p for p in named.split("/") if p]
        for start in range(len(parts)):
            tail = "/".join(parts[start:])
            hits = [p for p in all_paths if p == tail or p.endswith("/" + tail)]
            if hits:
                found.update(dict.fromkeys(hits[:5]))
                break
    keys = {store_mod.symbol_key(i.name) for i in info.identifiers}
    stems = _stem_index(store) if keys else {}
    for key in keys:
        if len(key) >= 3:
            found.update(dict.fromkeys(stems.get(key, ())))
    return list(found)[:20]


_STEMS: dict[tuple[int, int], dict[str, list[str]]] = {}


def _stem_index(store: store_mod.IndexStore) -> dict[str, list[str]]:
    """Indexed paths by the symbol key of their file name's stem, once per index generation."""
    key = (id(store), store.generation)
    if key not in _STEMS:
        index: dict[str, list[str]] = {}
        for path in store.file_paths():
            stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
            index.setdefault(store_mod.symbol_key(stem), []).append(path)
        _STEMS.clear()
        _STEMS[key] = index
    return _STEMS[key]


def gather(store: store_mod.IndexStore, embedder: Embedder | None, query: str, *,
           path_prefix: str | None = None, pool: int = POOL_SIZE, long_prompts: bool = True,
           deadline: float | None = None) -> Pools:
    """Run every ranker once for ``query`` (the dense pool only with an ``embedder``).

    ``path_prefix`` limits every pool to one folder or file before its top-``pool`` cut.
    ``deadline`` (a ``time.monotonic()`` value, the prompt hook's budget): the dense pool joins
    only if the query vector is ready by then, else :attr:`Pools.dense_missing` says why
    (:func:`~paqad.search.dense.finish_dense`). Without one, embedding errors are raised.
    """
    started = time.perf_counter()
    info = analyze(query)
    dense_text = info.dense_text if long_prompts else info.text
    lexical_text = info.lexical_text if long_prompts else info.text
    allowed = store.prefix_ids(path_prefix.strip("/")) if path_prefix else None
    allowed_set = None if allowed is None else set(allowed.tolist())
    # The query vector is computed in a second thread while SQLite answers the keyword side.
    job = None if embedder is None else start_query_vector(embedder, dense_text, None, store.meta().get("fingerprint"))
    try:
        hits = lexical_hits(store, lexical_text, pool, None if allowed is None else list(allowed_set))
        lone = () if hits else tuple(lone_identifier_hits(store, info.text, pool,
                                                          None if allowed is None else list(allowed_set)))
        info = with_bare_word_symbol(store, info)
        text_info = with_text_bare_word(store, info, hits)
        phrase_info = with_phrase_name(store, info)
        definitions = tuple(m for m in symbol_pool(store, info) + (symbol_pool(store, phrase_info) if phrase_info else [])
                            if allowed_set is None or m.chunk_id in allowed_set)
        overflow = tuple(m for m in qualified_overflow(store, info, list(definitions))
                         if allowed_set is None or m.chunk_id in allowed_set)
        heads = {tail: head for tail, head in definition_heads(store, (m.chunk_id for m in definitions + overflow)).items()
                 if allowed_set is None or head in allowed_set}
        named_paths = _named_paths(store, info)
        named = tuple(c for c in store.chunk_ids_of_files(named_paths, MAX_NAMED_FILE_CHUNKS)
                      if allowed_set is None or c in allowed_set)
    except BaseException:
        if job is not None:
            job.cancel()
        raise
    side = finish_dense(store, job, pool, allowed, deadline)
    lexical = [cid for cid, _ in hits]
    cosine = side.cosines(set(side.ranking) | set(lexical) | {m.chunk_id for m in definitions + overflow} | set(heads.values())
                          | set(named) | {cid for cid, _ in lone})
    own = _without_phrase(definitions, phrase_info)  # the confidence evidence of the query as written
    defined = {m.identifier.name for m in own}
    undefined = (sum(1 for i in info.identifiers if i.name not in defined) / len(info.identifiers)
                 if info.identifiers else 0.0)
    evidence = query_evidence(store.chunk_count(), store.document_frequencies(query_terms(lexical_text)),
                              max((s for _, s in hits), default=0.0), side.sims, undefined)
    return Pools(info, side.ranking, lexical, cosine, dict(hits), definitions, named, frozenset(named_paths),
                 {"gather": time.perf_counter() - started}, side.missing, evidence, heads, lone,
                 None if allowed_set is None else frozenset(allowed_set), text_info, phrase_info, overflow)


def _without_phrase(definitions: tuple[DefinitionMatch, ...], phrase_info: QueryInfo | None,
                    keep: bool = False) -> tuple[DefinitionMatch, ...]:
    """``definitions`` without the matches of the symbol query :func:`~paqad.search.symbols.with_phrase_name`
    read (``keep``: only those)."""
    if phrase_info is None:
        return definitions
    added = phrase_info.identifiers
    return tuple(m for m in definitions if any(m.identifier is a for a in added) == keep)


_EXEMPT: dict[tuple[str, int, int], frozenset[str]] = {}
MAX_FILE_TEXT_CHUNKS = 400  # a file's chunks read for its text (signals.canonical's inheritance lines)
# Files whose text is kept between queries (per index generation): signals.canonical reads the
# files of tied definitions, the same few for a name asked again (the MCP server, the warm process).
MAX_CACHED_FILE_TEXTS = 256
_FILE_TEXTS: dict[tuple[str, int, int], dict[str, str]] = {}


def _file_text(store: store_mod.IndexStore, path: str) -> str:
    """An indexed file's text: its chunks in line order, joined (a signal reads a few files).
    Kept per generation of the index, for at most :data:`MAX_CACHED_FILE_TEXTS` files."""
    key = store.generation_key()
    texts = _FILE_TEXTS.get(key)
    if texts is None:
        _FILE_TEXTS.clear()
        texts = _FILE_TEXTS[key] = {}
    if path not in texts:
        if len(texts) >= MAX_CACHED_FILE_TEXTS:
            texts.pop(next(iter(texts)))  # the oldest
        ids = store.chunk_ids_of_files([path], MAX_FILE_TEXT_CHUNKS)
        rows = store.chunks_by_id(ids)
        texts[path] = "\n".join(rows[cid].text for cid in ids if cid in rows)
    return texts[path]


def _file_lines(store: store_mod.IndexStore, path: str) -> dict[int, str]:
    """An indexed file's lines by 1-based number, each chunk's text placed at its ``start_line``
    (overlapping chunks agree; lines no chunk holds are absent)."""
    ids = store.chunk_ids_of_files([path], MAX_FILE_TEXT_CHUNKS)
    lines: dict[int, str] = {}
    for row in store.chunks_by_id(ids).values():
        for offset, line in enumerate(row.text.split("\n")):
            lines.setdefault(row.start_line + offset, line)
    return lines


T = TypeVar("T")


def _per_generation(cache: dict, store: store_mod.IndexStore, compute: Callable[[], T]) -> T:
    """``compute()`` once per generation of ``store``'s index: ``cache`` holds the current
    generation's value only (an older one is dropped when the index changes)."""
    key = store.generation_key()
    if key not in cache:
        cache.clear()
        cache[key] = compute()
    return cache[key]


def _exempt(store: store_mod.IndexStore) -> frozenset[str]:
    """:func:`~paqad.search.priors.exempt_kinds` of the index, computed once per generation."""
    return _per_generation(_EXEMPT, store, lambda: exempt_kinds(store.file_paths()))


_MAIN_LANGUAGES: dict[tuple[str, int, int], frozenset[str]] = {}


def _main_languages(store: store_mod.IndexStore) -> frozenset[str]:
    """:func:`~paqad.search.signals.docs_code.main_languages` of the index, once per generation."""
    from paqad.search.signals.docs_code import main_languages

    return _per_generation(_MAIN_LANGUAGES, store, lambda: main_languages(store.file_paths()))


_FILE_CHUNKS: dict[tuple[str, int, int], dict[str, int]] = {}
_PACKAGES: dict[tuple[str, int, int], Packages] = {}


def _packages(store: store_mod.IndexStore) -> Packages:
    """The index's package manifests (:func:`~paqad.search.packages.read_packages`), once per generation."""
    return _per_generation(_PACKAGES, store, lambda: read_packages(store.file_paths(), lambda p: _file_text(store, p)))


def _file_chunks(store: store_mod.IndexStore) -> dict[str, int]:
    """Every indexed file's chunk count (the central-files signal), read once per generation."""
    return _per_generation(_FILE_CHUNKS, store,
                           lambda: {path: row.chunk_count for path, row in store.files().items()})


def cut_pools(pools: Pools, depth: int, agreement: int = 0) -> Pools:
    """``pools`` with the dense and BM25 pools cut to their first ``depth`` candidates (the BM25
    scores to the kept ones): a deeper gather ranked as a ``depth``-deep one would be. With
    ``agreement`` > ``depth``, a candidate at ranks ``depth``+1 .. ``agreement`` of one pool is
    kept too when the other pool holds it within its first ``agreement`` (after the first
    ``depth``, in its order). The symbol table's and the named files' pools are not cut.
    ``pools`` itself when nothing is cut."""
    if len(pools.dense) <= depth and len(pools.lexical) <= depth:
        return pools
    dense, lexical = pools.dense[:depth], pools.lexical[:depth]
    if agreement > depth:
        deep_dense, deep_lexical = set(pools.dense[:agreement]), set(pools.lexical[:agreement])
        dense += [c for c in pools.dense[depth:agreement] if c in deep_lexical]
        lexical += [c for c in pools.lexical[depth:agreement] if c in deep_dense]
    return replace(pools, dense=dense, lexical=lexical, bm25={c: pools.bm25[c] for c in lexical if c in pools.bm25})


def rank(store: store_mod.IndexStore, pools: Pools, *, top_n: int,
         options: RankingOptions = RankingOptions(), calibration: Calibration | None = None) -> list[SearchResult]:
    """Fuse ``pools`` under ``options`` and return the best ``top_n`` results (distinct texts).

    With a ``calibration``, every result carries its ``confidence``; :func:`rank_with_evidence`
    also returns the inputs it was computed from.
    """
    results, _ = rank_with_evidence(store, pools, top_n=top_n, options=options, calibration=calibration)
    return results


def rank_with_evidence(store: store_mod.IndexStore, pools: Pools, *, top_n: int,
                       options: RankingOptions = RankingOptions(),
                       calibration: Calibration | None = None) -> tuple[list[SearchResult], list[Evidence]]:
    """:func:`rank`, and the :class:`~paqad.search.confidence.Evidence` of each result (same order):
    weighted RRF of the pools, the signals of :data:`~paqad.search.signals.PIPELINE` in force,
    then result assembly."""
    depth = options.long_pool_depth if pools.info.long and options.long_pool_depth > 0 else options.pool_depth
    pools = cut_pools(pools, depth, options.agreement_depth)
    if options.qualified_rows and pools.overflow:  # round 11: a qualified name's matches past the table's cap
        pools = replace(pools, definitions=pools.definitions + pools.overflow)
    if options.definition_heads and pools.heads:
        pools = replace(pools, definitions=tuple(replace(m, chunk_id=pools.heads.get(m.chunk_id, m.chunk_id))
                                                 for m in pools.definitions))
    if options.text_bare_words and pools.text_info is not None:
        pools = replace(pools, info=pools.text_info)
    if pools.phrase_info is not None:  # round 10: a definition question's plain-word name
        phrase = options.definition_phrases and options.symbols
        pools = replace(pools, info=pools.phrase_info if phrase else pools.info,
                        definitions=_without_phrase(pools.definitions, pools.phrase_info, keep=phrase))
    if options.lone_identifiers and pools.lone_hits and not pools.lexical:
        pools = replace(pools, lexical=[cid for cid, _ in pools.lone_hits], bm25=dict(pools.lone_hits))
    scores = weighted_fusion(pools, options)
    if not scores:
        return [], []
    rows = store.chunks_by_id(list(scores))
    scores = {cid: s for cid, s in scores.items() if cid in rows}
    if options.text_definitions and options.symbols:
        # a name the symbol table lacks, defined by no candidate: its definitions by text join the
        # candidates after the table's entries, as if the table had listed them last
        found = text_definition_pool(store, pools.info, pools.definitions, rows, pools.allowed,
                                     member_table_types=options.member_table_types)
        start = len({m.chunk_id for m in pools.definitions})
        for rank, (cid, row) in enumerate(found.items(), start=start + 1):
            scores[cid] = options.symbol_weight / (options.rrf_k + rank)
            rows[cid] = row
    context = RankingContext(
        info=pools.info, options=options, rows=rows, best=max(scores.values()),
        definitions=pools.definitions if options.symbols else (), named_paths=pools.named_paths,
        exempt=_exempt(store), file_text=lambda path: _file_text(store, path), bm25=pools.bm25,
        # the files table is read for file_evidence (on), central_files and common_path_words (both off)
        file_chunks=(_file_chunks(store) if (options.priors and options.central_prior != 0.0)
                     or options.common_path_share < 1.0 or options.evidence_margin > 0.0 else {}),
        file_lines=lambda path: _file_lines(store, path),
        main_languages=_main_languages(store) if options.docs_code and options.priors else frozenset(),
        # round 11: read on a qualifier rule's first question only (the manifests, once per generation)
        package_names=package_names(lambda: _packages(store), lambda path: _file_text(store, path)),
    )
    return assemble(apply_pipeline(scores, context), pools, context, top_n=top_n, calibration=calibration)
