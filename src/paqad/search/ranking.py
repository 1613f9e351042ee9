"""The ranking pipeline in two steps, so a benchmark can rank one query many ways (DESIGN §8):

- :func:`gather`: everything that needs the model or the index, done once per query: the query's
  analysis (kind, identifiers, paths), the dense pool with cosines, the BM25 pool with scores,
  the symbol table's definitions of the query's identifiers, and the chunks of files the query
  names;
- :func:`rank`: weighted reciprocal rank fusion of those pools (weights by query kind), then the
  ranking signals of :class:`RankingOptions`: definitions, path priors, path words, file
  coherence and saturation.

:func:`ablations` names the configurations ``bench/ranking/run.py`` compares: each technique
alone off (and the old signal set) against the default.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields, replace

from paqad import store as store_mod
from paqad.embed.base import Embedder
from paqad.search.analysis import SYMBOL, QueryInfo, analyze
from paqad.search.confidence import Calibration, Evidence
from paqad.config import RRF_K
from paqad.search.dense import finish_dense, start_query_vector
from paqad.search.fusion import reciprocal_rank_fusion
from paqad.search.lexical import lexical_hits
from paqad.search.priors import PRIOR_KINDS, exempt_kinds, path_kinds, path_word_share, symbol_word_share
from paqad.search.results import SearchResult
from paqad.search.signals import apply_signals
from paqad.search.symbols import DefinitionMatch, defines_in_text, symbol_pool

POOL_SIZE = 100  # candidates taken from each ranker before fusion
MAX_NAMED_FILE_CHUNKS = 200  # chunks scanned from files the query names


@dataclass(frozen=True)
class RankingOptions:
    """The rankers, fusion weights and ranking signals in force (defaults: what the product runs).

    Weights multiply each pool's reciprocal-rank term (``w / (k + rank)``, k = 60). Boosts and
    factors are relative to the fused scores; priors multiply a chunk's score (``1.0`` = off).
    """

    dense: bool = True
    lexical: bool = True
    # fusion weights: prose queries, symbol queries (a query that is one identifier)
    dense_weight: float = 1.0
    lexical_weight: float = 1.3
    symbol_dense_weight: float = 0.6
    symbol_lexical_weight: float = 1.4
    kind_weights: bool = True
    rrf_k: int = RRF_K
    # symbols: the symbol table's definitions of the query's identifiers join as a pool, and a
    # chunk that defines one gets `definition_boost` x the best fused score (embedded identifiers
    # in prose get `embedded_share` of it; a bare name match of a qualified identifier
    # `unqualified_share`; the file named like the symbol x `file_name_boost` more)
    symbols: bool = True
    symbol_weight: float = 1.0
    definition_boost: float = 5.0
    embedded_share: float = 0.5
    long_prompt_share: float = 0.0  # and x this in a long prompt (many names, most not the answer)
    unqualified_share: float = 0.5
    file_name_boost: float = 1.0
    # files the query names (paths, traceback frames, identifiers that are file names)
    named_files: bool = True
    named_file_weight: float = 0.0
    # path priors (multiplicative)
    priors: bool = True
    tests_prior: float = 0.1
    examples_prior: float = 0.3
    vendored_prior: float = 0.3
    compat_prior: float = 0.3
    barrel_prior: float = 0.5
    stub_prior: float = 0.7
    changelog_prior: float = 0.5
    prose_prior: float = 0.5
    data_prior: float = 0.5
    # prose queries: words naming the file or its folder
    path_words: bool = True
    path_word_boost: float = 1.0
    symbol_word_boost: float = 0.5  # and words naming parts of the chunk's symbol
    # per-file coherence and saturation
    coherence: float = 0.0
    saturation: float = 0.5
    # the earlier signal set (paqad.search.signals), kept measurable
    signals: frozenset[str] = frozenset({"code"})
    # long prompts: BM25 over identifiers, paths and prose without frames; embedding of the head
    long_prompts: bool = True

    @property
    def rankers(self) -> tuple[str, ...]:
        return tuple(name for name, on in (("dense", self.dense), ("lexical", self.lexical)) if on)


@dataclass(frozen=True)
class Pools:
    """What :func:`gather` found for one query.

    ``dense``/``lexical``: chunk ids best first; ``cosine``: every candidate's cosine (empty
    without a model); ``bm25``: BM25 score of the lexical pool's chunks (higher is better);
    ``definitions``: symbol-table matches; ``named``: chunk ids of files the query names;
    ``seconds``: time spent, by step; ``dense_missing``: why the dense pool is empty, when a
    deadline or a model error left it out.
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
    dense_missing: str | None = None  # why the dense pool was left out (a deadline, a model error)


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
        definitions = tuple(m for m in symbol_pool(store, info) if allowed_set is None or m.chunk_id in allowed_set)
        named_paths = _named_paths(store, info)
        named = tuple(c for c in store.chunk_ids_of_files(named_paths, MAX_NAMED_FILE_CHUNKS)
                      if allowed_set is None or c in allowed_set)
    except BaseException:
        if job is not None:
            job.cancel()
        raise
    side = finish_dense(store, job, pool, allowed, deadline)
    lexical = [cid for cid, _ in hits]
    cosine = side.cosines(set(side.ranking) | set(lexical) | {m.chunk_id for m in definitions} | set(named))
    return Pools(info, side.ranking, lexical, cosine, dict(hits), definitions, named, frozenset(named_paths),
                 {"gather": time.perf_counter() - started}, side.missing)


_EXEMPT: dict[tuple[int, int], frozenset[str]] = {}


def _exempt(store: store_mod.IndexStore) -> frozenset[str]:
    """:func:`~paqad.search.priors.exempt_kinds` of the index, computed once per generation."""
    key = (id(store), store.generation)
    if key not in _EXEMPT:
        _EXEMPT.clear()
        _EXEMPT[key] = exempt_kinds(store.file_paths())
    return _EXEMPT[key]


def _file_key(path: str) -> str:
    return store_mod.symbol_key(path.rsplit("/", 1)[-1].split(".", 1)[0])


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
    """:func:`rank`, and the :class:`~paqad.search.confidence.Evidence` of each result (same order)."""
    info = pools.info
    symbol_query = info.kind == SYMBOL and options.kind_weights
    definitions = pools.definitions if options.symbols else ()
    rankings: list[tuple[list[int], float]] = []
    if options.dense:
        rankings.append((pools.dense, options.symbol_dense_weight if symbol_query else options.dense_weight))
    if options.lexical:
        rankings.append((pools.lexical, options.symbol_lexical_weight if symbol_query else options.lexical_weight))
    if definitions:
        rankings.append((list(dict.fromkeys(m.chunk_id for m in definitions)), options.symbol_weight))
    if options.named_files and pools.named:
        rankings.append((list(pools.named), options.named_file_weight))
    scores = reciprocal_rank_fusion([r for r, _ in rankings], k=options.rrf_k, weights=[w for _, w in rankings])
    if not scores:
        return [], []
    rows = store.chunks_by_id(list(scores))
    scores = {cid: s for cid, s in scores.items() if cid in rows}
    best = max(scores.values())

    defines: dict[int, float] = {}
    prior: dict[int, float] = {}
    words: dict[int, float] = {}
    if options.symbols and info.identifiers:
        by_table: dict[int, list[DefinitionMatch]] = {}
        for match in definitions:
            by_table.setdefault(match.chunk_id, []).append(match)
        for cid, row in rows.items():
            boost = 0.0
            for identifier in info.identifiers:
                table = [m for m in by_table.get(cid, ()) if m.identifier is identifier]
                if table:
                    share = 1.0 if table[0].qualified else options.unqualified_share
                elif defines_in_text(row.text, identifier.name):
                    share = options.unqualified_share if identifier.qualified else 1.0
                else:
                    continue
                if identifier.embedded:
                    share *= options.embedded_share
                    if info.long:
                        share *= options.long_prompt_share
                if _file_key(row.path) == store_mod.symbol_key(identifier.name):
                    share *= options.file_name_boost
                boost = max(boost, share)
            if boost:
                scores[cid] += options.definition_boost * best * boost
                defines[cid] = boost

    if options.priors:
        factors = {
            "tests": 1.0 if info.mentions_tests else options.tests_prior,
            "examples": options.examples_prior,
            "vendored": options.vendored_prior,
            "compat": options.compat_prior,
            "barrel": options.barrel_prior,
            "stub": options.stub_prior,
            "changelog": options.changelog_prior,
            "prose": 1.0 if info.mentions_docs else options.prose_prior,
            "data": 1.0 if info.mentions_config else options.data_prior,
        }
        for kind in _exempt(store):
            factors[kind] = 1.0
        for cid, row in rows.items():
            if row.path in pools.named_paths:
                continue  # the query named this file: no prior overrides that
            for kind in path_kinds(row.path, row.language, row.text):
                scores[cid] *= factors[kind]
                prior[cid] = prior.get(cid, 1.0) * factors[kind]

    if options.path_words and info.kind != SYMBOL and info.words:
        for cid, row in rows.items():
            share = path_word_share(info.words, row.path)
            if share:
                scores[cid] *= 1.0 + options.path_word_boost * share
                words[cid] = share
            if options.symbol_word_boost and row.symbol:
                named = symbol_word_share(info.words, row.symbol)
                if named:
                    scores[cid] *= 1.0 + options.symbol_word_boost * named

    if options.signals:
        order = apply_signals(scores, rows, info.text, options.signals - {"diversity"})
    if options.coherence:
        by_file: dict[str, list[int]] = {}
        for cid in sorted(scores, key=lambda c: (-scores[c], c)):
            by_file.setdefault(rows[cid].path, []).append(cid)
        for ids in by_file.values():
            if len(ids) > 1:
                scores[ids[0]] += options.coherence * sum(scores[c] for c in ids[1:])
    order = sorted(scores, key=lambda c: (-scores[c], c))
    final = dict(scores)
    if options.saturation < 1.0:
        seen: dict[str, int] = {}
        for cid in order:
            path = rows[cid].path
            final[cid] = scores[cid] * (options.saturation ** seen.get(path, 0))
            seen[path] = seen.get(path, 0) + 1
        order = sorted(final, key=lambda c: (-final[c], c))

    dense_rank = {cid: i for i, cid in enumerate(pools.dense, start=1)}
    lexical_rank = {cid: i for i, cid in enumerate(pools.lexical, start=1)}
    top_cosine = max(pools.cosine.values(), default=0.0)
    top_bm25 = max(pools.bm25.values(), default=0.0)
    top_final = final[order[0]] if order else 1.0
    results: list[SearchResult] = []
    evidence: list[Evidence] = []
    seen_texts: set[str] = set()
    file_ranks: dict[str, int] = {}
    for cid in order:
        if len(results) == top_n:
            break
        row = rows[cid]
        if row.text in seen_texts:
            continue  # the same code again (a .d.ts twin, a bundled copy): show it once, best-ranked
        seen_texts.add(row.text)
        file_ranks.setdefault(row.path, len(file_ranks) + 1)
        cosine = float(pools.cosine.get(cid, 0.0))
        ev = Evidence(
            cosine=cosine, top_cosine=top_cosine,
            bm25_rel=pools.bm25.get(cid, 0.0) / top_bm25 if top_bm25 > 0 else 0.0,
            dense_rank=dense_rank.get(cid) if options.dense else None,
            lexical_rank=lexical_rank.get(cid) if options.lexical else None,
            fused_rank=len(results) + 1, fused_rel=final[cid] / top_final if top_final > 0 else 0.0,
            file_rank=file_ranks[row.path], defines=defines.get(cid, 0.0), named_file=row.path in pools.named_paths,
            path_words=words.get(cid, 0.0), prior=prior.get(cid, 1.0), symbol_query=info.kind == SYMBOL,
            long_prompt=info.long, prose=row.language in ("markdown", "text"),
        )
        evidence.append(ev)
        results.append(SearchResult(
            path=row.path, start_line=row.start_line, end_line=row.end_line, symbol=row.symbol,
            language=row.language, text=row.text, score=cosine,
            fused_rank=len(results) + 1, dense_rank=dense_rank.get(cid), lexical_rank=lexical_rank.get(cid),
            chunk_id=cid, confidence=None if calibration is None else calibration.probability(ev),
        ))
    return results, evidence


OLD_SIGNALS = frozenset({"name", "definition", "code", "diversity", "tests", "changelog"})


def ablations() -> dict[str, RankingOptions]:
    """Named configurations for the benchmark: baselines, the previous ranking, the default, and
    the default with each technique switched off."""
    default = RankingOptions()
    nothing_new = replace(default, kind_weights=False, symbols=False, named_files=False, priors=False,
                          path_words=False, coherence=0.0, saturation=1.0, long_prompts=False, lexical_weight=1.0)
    configs = {
        "bm25": replace(nothing_new, dense=False, signals=frozenset()),
        "dense": replace(nothing_new, lexical=False, signals=frozenset()),
        "rrf": replace(nothing_new, signals=frozenset()),
        "previous": replace(nothing_new, signals=OLD_SIGNALS, saturation=0.7),
        "default": default,
        "no-kind-weights": replace(default, kind_weights=False),
        "no-symbols": replace(default, symbols=False),
        "with-named-file-pool": replace(default, named_file_weight=0.25),  # measured, left off
        "no-priors": replace(default, priors=False),
        "no-path-words": replace(default, path_word_boost=0.0),
        "no-symbol-words": replace(default, symbol_word_boost=0.0),
        "with-coherence": replace(default, coherence=0.05),  # measured, left off
        "no-saturation": replace(default, saturation=1.0),
        "no-code-signal": replace(default, signals=frozenset()),
        "no-long-prompts": replace(default, long_prompts=False),
    }
    for kind in PRIOR_KINDS:
        configs[f"no-prior-{kind}"] = replace(default, **{f"{kind}_prior": 1.0})
    return configs


def option_names() -> list[str]:
    """Every field of :class:`RankingOptions` (for ``--set name=value`` in the benchmark)."""
    return [f.name for f in fields(RankingOptions)]
