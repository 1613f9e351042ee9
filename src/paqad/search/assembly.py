"""Result assembly, the ranking's last step: final scores become :class:`SearchResult` rows, each
with the :class:`~paqad.search.confidence.Evidence` its confidence is computed from (DESIGN §8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.index.tokens import query_terms
from paqad.search.analysis import SYMBOL
from paqad.search.confidence import Calibration, Evidence
from paqad.search.priors import PROSE_LANGUAGES, symbol_word_share
from paqad.search.results import SearchResult
from paqad.search.signals import RankingContext, in_force
from paqad.search.signals.passage_choice import is_thin
from paqad.search.signals.path_priors import prior_of
from paqad.search.signals.trade_evidence import held_terms

if TYPE_CHECKING:
    from paqad.search.ranking import Pools


def _signal_evidence(context: RankingContext) -> tuple[dict[int, float], dict[int, float], dict[int, float]]:
    """``(definition shares, prior products, path-word shares)`` of the signals in force."""
    names = in_force(context.options)
    defines = context.definition_shares if "definitions" in names else {}
    priors = {cid: prior_of(f) for cid, f in context.prior_factors.items()} if "path_priors" in names else {}
    words = context.path_word_shares if "path_words" in names else {}
    return defines, priors, words


class _Coverage:
    """Which of the query's search terms a chunk, and its file's candidates together, hold
    (the passage-level evidence ``term_coverage`` / ``file_coverage``). A term is held when it
    occurs in the lowercased text (a substring test: the index's tokens are lowercased identifier
    parts and joined identifiers, ``retryDelay`` -> ``retrydelay``), which costs a fraction of
    tokenising every candidate (this runs on the prompt path); files' unions only for files that
    reach the results."""

    def __init__(self, terms: list[str], context: RankingContext, final: dict[int, float]):
        self.terms = tuple(terms)
        self.context = context
        self.by_file: dict[str, list[int]] = {}
        for cid in final:
            self.by_file.setdefault(context.rows[cid].path, []).append(cid)
        self._held: dict[int, frozenset[str]] = {}
        self._file: dict[str, float] = {}

    def held(self, cid: int) -> frozenset[str]:
        if cid not in self._held:
            self._held[cid] = held_terms(self.context.rows[cid].text, self.terms)
        return self._held[cid]

    def chunk(self, cid: int) -> float:
        return len(self.held(cid)) / len(self.terms) if self.terms else 0.0

    def file(self, path: str) -> float:
        if path not in self._file:
            union: set[str] = set()
            for cid in self.by_file.get(path, ()):
                union |= self.held(cid)
                if len(union) == len(self.terms):
                    break
            self._file[path] = len(union) / len(self.terms) if self.terms else 0.0
        return self._file[path]


class _Passages:
    """The passage-level evidence of the results of one query (:class:`Evidence`'s ``chunk_in_file``,
    ``file_share``, ``thin``, ``term_coverage``, ``file_coverage``, ``symbol_words``), computed only
    when ``wanted``: the loaded fit uses a passage-level feature, or no fit is given (the calibration
    bench collects every input). Otherwise :meth:`of` returns no values and the Evidence keeps its
    defaults, which a fit without those features never reads."""

    def __init__(self, wanted: bool, order: list[int], final: dict[int, float], context: RankingContext):
        self.wanted = wanted
        self.final, self.context = final, context
        self.file_best: dict[str, float] = {}  # best final score of each file's candidates (order is best first)
        self.in_file: dict[str, int] = {}
        self.next_in_file: dict[int, int] = {}  # a candidate -> its file's next candidate of another text
        if wanted:
            last: dict[str, int] = {}
            for cid in order:
                row = context.rows[cid]
                self.file_best.setdefault(row.path, final[cid])
                before = last.get(row.path)
                if before is not None and context.rows[before].text == row.text:
                    continue  # the same text again is shown once (assemble): not a competitor
                if before is not None:
                    self.next_in_file[before] = cid
                last[row.path] = cid
            self.coverage = _Coverage(query_terms(context.info.lexical_text), context, final)

    def of(self, cid: int) -> dict:
        """The passage-level Evidence fields of chunk ``cid`` (call once per delivered result, best
        first: ``chunk_in_file`` counts the calls per file); ``{}`` when not wanted."""
        if not self.wanted:
            return {}
        row = self.context.rows[cid]
        self.in_file[row.path] = self.in_file.get(row.path, 0) + 1
        best = self.file_best[row.path]
        after = self.next_in_file.get(cid)
        own = self.final[cid]
        return {"chunk_in_file": self.in_file[row.path],
                "file_next": self.final[after] / own if after is not None and own > 0 else 0.0,
                "file_share": self.final[cid] / best if best > 0 else 1.0, "thin": is_thin(row),
                "term_coverage": self.coverage.chunk(cid), "file_coverage": self.coverage.file(row.path),
                "symbol_words": symbol_word_share(self.context.info.words, row.symbol or "")}


def _runner_up(order: list[int], final: dict[int, float], context: RankingContext, top_final: float) -> float:
    """The second delivered result's score over the first's (:attr:`Evidence.runner_up`): the
    second chunk of ``order`` (best first) whose text differs from the first's, as :func:`assemble`
    shows each text once; 0.0 when there is none or the best score is not positive."""
    if not order or top_final <= 0:
        return 0.0
    first = context.rows[order[0]].text
    second = next((cid for cid in order[1:] if context.rows[cid].text != first), None)
    return final[second] / top_final if second is not None else 0.0


def _pair_evidence(order: list[int], pools: Pools, context: RankingContext, defines: dict[int, float]) -> dict:
    """The round-10 query-level Evidence fields: whether the dense and lexical pools' first chunks
    are one chunk (``tops_same_chunk``) or of one file (``tops_same_file``), and whether the second
    distinct text of ``order`` is of the first's file (``second_same_file``), and the first's
    definition share (``first_defines``, of ``defines``: chunk id -> share)."""
    rows = context.rows
    out = {"tops_same_chunk": False, "tops_same_file": False, "second_same_file": False, "first_defines": 0.0}
    if pools.dense and pools.lexical:
        d, l = pools.dense[0], pools.lexical[0]
        out["tops_same_chunk"] = d == l
        out["tops_same_file"] = d == l or (d in rows and l in rows and rows[d].path == rows[l].path)
    if order:
        first = rows[order[0]]
        second = next((cid for cid in order[1:] if rows[cid].text != first.text), None)
        out["second_same_file"] = second is not None and rows[second].path == first.path
        out["first_defines"] = defines.get(order[0], 0.0)
    return out


def assemble(final: dict[int, float], pools: Pools, context: RankingContext, *, top_n: int,
             calibration: Calibration | None) -> tuple[list[SearchResult], list[Evidence]]:
    """The best ``top_n`` results of ``final`` (chunk id -> score; ties by id), one per distinct
    text, with their evidence (same order); ``confidence`` set when a ``calibration`` is given.
    The passage-level evidence is computed only when ``calibration`` is None or uses it
    (:attr:`~paqad.search.confidence.Calibration.uses_passage`)."""
    options, info = context.options, context.info
    order = sorted(final, key=lambda c: (-final[c], c))
    defines, prior, words = _signal_evidence(context)
    dense_rank = {cid: i for i, cid in enumerate(pools.dense, start=1)}
    lexical_rank = {cid: i for i, cid in enumerate(pools.lexical, start=1)}
    top_cosine = max(pools.cosine.values(), default=0.0)
    top_bm25 = max(pools.bm25.values(), default=0.0)
    top_final = final[order[0]] if order else 1.0
    runner_up = _runner_up(order, final, context, top_final)
    pair = _pair_evidence(order, pools, context, defines)
    results: list[SearchResult] = []
    evidence: list[Evidence] = []
    seen_texts: set[str] = set()
    file_ranks: dict[str, int] = {}
    passages = _Passages(calibration is None or calibration.uses_passage, order, final, context)
    for cid in order:
        if len(results) == top_n:
            break
        row = context.rows[cid]
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
            long_prompt=info.long, prose=row.language in PROSE_LANGUAGES,
            lines=row.end_line - row.start_line + 1, query=pools.query_evidence, runner_up=runner_up,
            **pair, **passages.of(cid),
        )
        evidence.append(ev)
        results.append(SearchResult(
            path=row.path, start_line=row.start_line, end_line=row.end_line, symbol=row.symbol,
            language=row.language, text=row.text, score=cosine,
            fused_rank=len(results) + 1, dense_rank=dense_rank.get(cid), lexical_rank=lexical_rank.get(cid),
            chunk_id=cid, confidence=None if calibration is None else calibration.probability(ev),
        ))
    return results, evidence
