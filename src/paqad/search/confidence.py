"""Calibrated confidence: the estimated probability that a result is relevant (DESIGN §8.5).

Every ranked result gets ``confidence`` in [0, 1] from its evidence (:class:`Evidence`): its
cosine, its BM25 score relative to the query's best, its ranks in the dense and BM25 pools and
whether both rankers found it, its fused rank and score, whether it defines an identifier the
query names, whether the query names its file or its words name the path, its path priors, the
query's kind and length; and the query's own evidence that the project holds an answer at all
(:class:`QueryEvidence`: its best BM25 against what its terms could reach, the share of its terms
no chunk holds, the top cosine's margin over a background of the index's chunks). A small logistic model maps the evidence to a probability; it is fitted
on the ranking benchmark's dev half with negatives (prompts whose answer is not in the project,
every result labelled 0; ``bench/calibration.py``), versioned, and shipped as JSON
under ``search/calibration/``:

- a fit per local embedding model (cosines of one model mean nothing for another);
- a model-agnostic fit without the cosine's value (ranks and agreement only), for models we
  cannot run here (OpenAI, Voyage);
- a keyword-only fit for degraded search (no model); since round 11 it carries a :class:`QueryCap`
  (a query naming only identifiers the index does not define is rated at most 70 %: low confidence).

:func:`calibration_for` picks the fit; ``rag status`` names it.

The shipped MiniLM fit (``Xenova--all-MiniLM-L6-v2.json``; round 10, issue 19) is round 8's feature
list fitted with the targets "right chunk 1, another chunk of an expected file 0.7, but 0 for a
symbol lookup's definition file" by::

    bench/calibration.py --reuse --features before --partial 0.7 --symbol-partial 0
        --unknown-quantile 75 --only Xenova/all-MiniLM-L6-v2 --before 0fc748d --write --force

Round 10's features (the last group of :data:`FEATURES`) are measured but not listed by it: with
them a 3-line function in a 2-chunk project fell from 63 % to 22 % (bench/README.md).
(its ``fitted_on`` says the same; figures in bench/README.md "Round 10: confidence precision").
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib.resources import files
from typing import Sequence

from paqad.search.results import SearchResult

FEATURES = (
    "cosine", "cosine_gap", "bm25_rel", "inv_dense_rank", "inv_lexical_rank", "both", "inv_fused_rank",
    "fused_rel", "inv_file_rank", "defines", "named_file", "path_words", "log_prior", "symbol_query", "long_prompt",
    "prose", "cosine_x_symbol", "defines_x_symbol",
    "log_lines",
    # query-level "nothing here" evidence (QueryEvidence), the same for every result of one query ...
    "bm25_reach", "absent_terms", "cosine_margin", "background_z", "top_cosine",
    # ... and its products with the rank: a logistic sum cannot otherwise say "the first result
    # is right when the project answers at all" (the query's evidence matters most at the top)
    "margin_x_rank", "reach_x_rank", "margin_x_cosine", "absent_x_rank", "z_x_rank", "cosine_x_rank", "defines_x_rank",
    # passage-level evidence (issue 19, "the passage that answers"): what tells the answering chunk
    # from its file's other chunks
    "inv_chunk_in_file", "file_share", "thin", "term_coverage", "coverage_gap", "symbol_words",
    "first_in_file_x_rank", "coverage_x_rank",
    # the first result's lead over the second (issue 19, round 7): a first passage that barely
    # beats the next is a toss-up; a ratio of the query's own scores, so its scale does not vary
    # by project or model (bench/README.md "Round 7: confidence that transfers")
    "lead_x_rank",
    # query-level evidence measured at every index size (round 8: the keyword-only fit's "nothing
    # here" in small projects, where the five above are unknown): the share of the query's terms
    # no chunk holds, the share of its identifiers no chunk defines, and their products with 1/rank
    "missing_terms", "undefined_names", "missing_x_rank", "undefined_x_rank",
    # the passage's lead over the next chunk of its own file (round 8): right file, but which passage?
    "file_lead_x_rank",
    # round 10 (issue 19, confidence precision): whether the two rankers agree on the first chunk
    # (this result is both pools' first; the pools' first chunks are one chunk / of one file), whether
    # the second result is another chunk of the first's file (right file, which passage?), a thin
    # first passage (a doc comment, a tail piece), and, for questions that are not symbol lookups
    # (where the wrong confident passages are), the lead, the term coverage and the cosine at the top
    "agree_x_rank", "tops_chunk_x_rank", "tops_file_x_rank", "pair_file_x_rank", "thin_x_rank",
    "question_lead_x_rank", "question_coverage_x_rank", "question_cosine_x_rank",
    # a later result when the first already defines the asked identifier: the symbol question is
    # answered above it (round 10: the wrong confident passages of symbol lookups are ranks 2-5)
    "answered_above",
)
# The passage-level features above; a fit without them (``--features base`` in bench/calibration.py)
# is the file-level model of calibration version 2.
PASSAGE_FEATURES = frozenset({"inv_chunk_in_file", "file_share", "thin", "term_coverage", "coverage_gap",
                              "symbol_words", "first_in_file_x_rank", "coverage_x_rank", "file_lead_x_rank",
                              "thin_x_rank", "question_coverage_x_rank"})
DENSE_FEATURES = frozenset({"cosine", "cosine_gap", "inv_dense_rank", "both", "cosine_x_symbol", "cosine_margin",
                            "background_z", "top_cosine", "margin_x_rank", "margin_x_cosine", "z_x_rank",
                            "cosine_x_rank", "agree_x_rank", "tops_chunk_x_rank", "tops_file_x_rank",
                            "question_cosine_x_rank"})
# Values on one model's cosine scale (left out of the model-agnostic fit); background_z is a
# z-score, comparable across models, so the agnostic fit keeps it.
COSINE_FEATURES = frozenset({"cosine", "cosine_gap", "cosine_x_symbol", "cosine_margin", "top_cosine", "margin_x_rank",
                             "margin_x_cosine", "cosine_x_rank", "question_cosine_x_rank"})
CALIBRATION_VERSION = 2  # 2: negatives in the fit, query-level features, chunk-level labels
# The QueryEvidence fields unknown (None) below BACKGROUND_MIN_CHUNKS, in order: what a fit's
# ``unknown_query`` stands in for. The others are measured at every size.
SIZED_FIELDS = ("bm25_reach", "absent_terms", "cosine_margin", "background_z", "top_cosine")
BACKGROUND_SAMPLE = 256  # stored embeddings the query is compared with as a background (fixed, evenly spaced rows)
BACKGROUND_QUANTILE = 95.0  # the background's percentile the top cosine is measured against
# Below this many chunks an index is no background for its own best chunk (in a 5-chunk project
# the 95th percentile is the answer itself, every IDF is small): the query-level features are
# unknown there and add nothing (the fit's mean). The smallest ranking-benchmark index (the data
# the fit saw) has 726 chunks.
BACKGROUND_MIN_CHUNKS = 500
BM25_K1, BM25_B = 1.2, 0.75  # FTS5 bm25() parameters (SQLite FTS5 documentation, "bm25() function")
AGNOSTIC = "model-agnostic"
KEYWORD_ONLY = "keyword-only"


@dataclass(frozen=True)
class QueryEvidence:
    """Query-level evidence that the project answers the query at all (issue 19: "nothing here").

    The per-result features are all relative to the query's own best result, so a project that
    does not hold the answer still yields a "best" that looks like one; these are absolute:

    - ``bm25_reach``: the query's best BM25 score divided by what its terms could reach, the sum
      of every query term's FTS5 IDF (:func:`bm25_ceiling`: a chunk of average length holding each
      term once scores exactly that); absent terms count with the IDF of an unseen term, so a
      query whose words the project lacks reaches little. 0.0 without terms or hits.
    - ``absent_terms``: share of the query's terms (:func:`paqad.index.tokens.query_terms`) that
      no chunk holds (FTS5 document frequency 0); 0.0 without terms.
    - ``cosine_margin``: the top cosine minus the :data:`BACKGROUND_QUANTILE` percentile of the
      query's cosines against :data:`BACKGROUND_SAMPLE` evenly spaced chunks of the index (a
      fixed background: which chunks are "typical" does not depend on the query); 0.0 without
      the dense side, None (unknown) in an index of fewer than :data:`BACKGROUND_MIN_CHUNKS`.
    - ``background_z``: the same top cosine as a z-score over that background (mean, standard
      deviation); model-agnostic where the margin is on one model's cosine scale. 0.0 / None
      as the margin.
    - ``top_cosine``: the best cosine of the query in the index (0.0 without the dense side).

    These five (:data:`SIZED_FIELDS`) are None (unknown) in an index of fewer than
    :data:`BACKGROUND_MIN_CHUNKS` chunks. Two more are measured at every size, because neither
    depends on the index being a background for its own best chunk (round 8: a keyword-only copy
    of loguru, 371 chunks, rated axios' ``setProxy`` 84 % confident):

    - ``missing_terms``: ``absent_terms``' share (query terms of FTS5 document frequency 0), in
      [0, 1], 0.0 without terms;
    - ``undefined_names``: the share of the query's identifiers
      (:attr:`paqad.search.analysis.QueryInfo.identifiers`) that no chunk's symbol-table entry
      defines (:func:`paqad.search.symbols.symbol_pool` found no match), in [0, 1]; 0.0 for a
      query without identifiers.
    """

    bm25_reach: float | None = 0.0
    absent_terms: float | None = 0.0
    cosine_margin: float | None = 0.0
    background_z: float | None = 0.0
    top_cosine: float | None = 0.0
    missing_terms: float = 0.0
    undefined_names: float = 0.0


NO_QUERY_EVIDENCE = QueryEvidence()


def bm25_idf(chunks: int, frequency: int) -> float:
    """FTS5's IDF of a term found in ``frequency`` of ``chunks`` rows:
    ``log((N - n + 0.5) / (n + 0.5))``, floored at 1e-6 as FTS5 does (SQLite fts5_aux.c)."""
    return max(math.log((chunks - frequency + 0.5) / (frequency + 0.5)), 1e-6)


def bm25_ceiling(chunks: int, frequencies: Sequence[int]) -> float:
    """What a query with these terms' document ``frequencies`` could reach in an index of
    ``chunks`` rows: the sum of their IDFs (:func:`bm25_idf`), the BM25 score of a chunk of
    average length holding each term once (``tf (k1 + 1) / (tf + k1)`` is 1 at ``tf = 1``)."""
    return sum(bm25_idf(chunks, n) for n in frequencies)


def background_evidence(sims, top_cosine: float) -> tuple[float | None, float | None]:
    """``(cosine_margin, background_z)`` of a query whose cosines against the index are ``sims``
    ``(n,)`` float32 and whose best cosine is ``top_cosine``: the margin over the
    :data:`BACKGROUND_QUANTILE` percentile and the z-score over the mean of
    :data:`BACKGROUND_SAMPLE` evenly spaced rows (all rows in a smaller index). ``(0, 0)`` when
    ``sims`` is empty, ``(None, None)`` (unknown) for fewer than :data:`BACKGROUND_MIN_CHUNKS`."""
    if sims is None or not len(sims):
        return 0.0, 0.0
    if len(sims) < BACKGROUND_MIN_CHUNKS:
        return None, None
    import numpy as np  # only here: a keyword-only answer (sims None) must not import numpy (the hook's budget)

    rows = np.linspace(0, len(sims) - 1, min(len(sims), BACKGROUND_SAMPLE)).astype(np.int64)
    sample = np.asarray(sims, dtype=np.float64)[rows]
    spread = float(sample.std())
    z = (top_cosine - float(sample.mean())) / spread if spread > 1e-9 else 0.0
    return top_cosine - float(np.percentile(sample, BACKGROUND_QUANTILE)), z


def query_evidence(chunks: int, frequencies: dict[str, int], best_bm25: float, sims=None,
                   undefined: float = 0.0) -> QueryEvidence:
    """The :class:`QueryEvidence` of one query: ``frequencies`` are its terms' document
    frequencies in an index of ``chunks`` rows, ``best_bm25`` its best BM25 score (higher is
    better, 0.0 without hits), ``sims`` ``(n,)`` its cosines against every chunk with a vector
    (None: no dense side), ``undefined`` the share of its identifiers no chunk defines. The
    :data:`SIZED_FIELDS` are None below :data:`BACKGROUND_MIN_CHUNKS` chunks."""
    absent = sum(1 for n in frequencies.values() if n == 0) / len(frequencies) if frequencies else 0.0
    if chunks < BACKGROUND_MIN_CHUNKS:
        return QueryEvidence(None, None, None, None, None, absent, undefined)
    ceiling = bm25_ceiling(chunks, list(frequencies.values())) if chunks else 0.0
    reach = best_bm25 / ceiling if ceiling > 0 else 0.0
    top = float(sims.max()) if sims is not None and len(sims) else 0.0
    margin, z = background_evidence(sims, top)
    return QueryEvidence(reach, absent, margin, z, top, absent, undefined)


@dataclass(frozen=True)
class Evidence:
    """What one ranked result has going for it (inputs of the calibration).

    Ranks are 1-based (``None``: not in that pool); ``bm25_rel`` and ``fused_rel`` are the
    result's BM25 and fused scores divided by the query's best; ``defines`` is 1.0 for a
    definition of a symbol query's identifier, less for weaker matches (see ranking); ``prior``
    is the product of its path priors (1.0: none applied); ``lines`` the chunk's line count
    (a longer chunk more often holds the answering lines); ``query`` is the query-level
    :class:`QueryEvidence` (the same for every result of one query).

    Passage-level evidence (which chunk of a file answers): ``chunk_in_file`` is the result's
    1-based place among the results of its own file; ``file_share`` its final score divided by the
    best final score of its file's candidates (1.0 for the file's best); ``thin`` whether it holds
    too little code to answer (:func:`paqad.search.signals.passage_choice.is_thin`: a doc comment,
    an import header, a tail piece); ``term_coverage`` the share of the query's search terms
    (:func:`paqad.index.tokens.query_terms`) among the chunk's index tokens and ``file_coverage``
    the same over the union of its file's candidates (both 0.0 without terms); ``symbol_words``
    the share of the query's words naming its symbol (:func:`paqad.search.priors.symbol_word_share`).

    ``runner_up``: the second result's fused score divided by the first's (``fused_rel`` of rank
    2; 0.0 when there is no second result), the same for every result of one query: the first
    result's lead is ``1 - runner_up`` (feature ``lead_x_rank``, weighted by 1/rank like the other
    query-level products).

    ``file_next``: the final score of the next candidate of the result's own file (another text)
    divided by the result's (0.0 when its file has none): the passage's lead over its file's next
    chunk is ``1 - file_next`` (feature ``file_lead_x_rank``, times 1/rank; round 8).

    Round 10, the same for every result of one query: ``tops_same_chunk`` whether the dense and the
    lexical pool's first chunks are one chunk, ``tops_same_file`` whether they are of one file
    (False when either pool is empty); ``second_same_file`` whether the second result (the next
    distinct text, as delivered) is of the first result's file; ``first_defines`` the first
    result's ``defines`` (feature ``answered_above``: that value for every later result, 0.0 for
    the first).
    """

    cosine: float
    top_cosine: float
    bm25_rel: float
    dense_rank: int | None
    lexical_rank: int | None
    fused_rank: int
    fused_rel: float
    file_rank: int
    defines: float
    named_file: bool
    path_words: float
    prior: float
    symbol_query: bool
    long_prompt: bool
    prose: bool
    lines: int = 1
    query: QueryEvidence = NO_QUERY_EVIDENCE
    chunk_in_file: int = 1
    file_share: float = 1.0
    thin: bool = False
    term_coverage: float = 0.0
    file_coverage: float = 0.0
    symbol_words: float = 0.0
    runner_up: float = 0.0
    file_next: float = 0.0
    tops_same_chunk: bool = False
    tops_same_file: bool = False
    second_same_file: bool = False
    first_defines: float = 0.0

    def vector(self) -> dict[str, float]:
        """The calibration's inputs by name: every name of :data:`FEATURES` (floats; None for
        an unknown value, see :class:`QueryEvidence`, which :meth:`Calibration.probability` skips)."""
        inv = lambda rank: 0.0 if rank is None else 1.0 / rank  # noqa: E731
        q, top = self.query, 1.0 / self.fused_rank
        times = lambda a, b: None if a is None else a * b  # noqa: E731 - unknown stays unknown
        return {
            "cosine": self.cosine,
            "cosine_gap": self.cosine - self.top_cosine,
            "bm25_rel": self.bm25_rel,
            "inv_dense_rank": inv(self.dense_rank),
            "inv_lexical_rank": inv(self.lexical_rank),
            "both": float(self.dense_rank is not None and self.lexical_rank is not None),
            "inv_fused_rank": 1.0 / self.fused_rank,
            "fused_rel": self.fused_rel,
            "inv_file_rank": 1.0 / self.file_rank,
            "defines": self.defines,
            "named_file": float(self.named_file),
            "path_words": self.path_words,
            "log_prior": math.log(max(self.prior, 1e-6)),
            "symbol_query": float(self.symbol_query),
            "long_prompt": float(self.long_prompt),
            "prose": float(self.prose),
            "cosine_x_symbol": self.cosine * float(self.symbol_query),
            "defines_x_symbol": self.defines * float(self.symbol_query),
            "bm25_reach": q.bm25_reach,
            "absent_terms": q.absent_terms,
            "cosine_margin": q.cosine_margin,
            "background_z": q.background_z,
            "top_cosine": q.top_cosine,
            "log_lines": math.log(max(self.lines, 1)),
            "margin_x_rank": times(q.cosine_margin, top),
            "reach_x_rank": times(q.bm25_reach, top),
            "margin_x_cosine": times(q.cosine_margin, self.cosine),
            "absent_x_rank": times(q.absent_terms, top),
            "z_x_rank": times(q.background_z, top),
            "cosine_x_rank": self.cosine * top,
            "defines_x_rank": self.defines * top,
            "inv_chunk_in_file": 1.0 / self.chunk_in_file,
            "file_share": self.file_share,
            "thin": float(self.thin),
            "term_coverage": self.term_coverage,
            "coverage_gap": max(self.file_coverage - self.term_coverage, 0.0),
            "symbol_words": self.symbol_words,
            "first_in_file_x_rank": float(self.chunk_in_file == 1) * top,
            "coverage_x_rank": self.term_coverage * top,
            "lead_x_rank": (1.0 - self.runner_up) * top,
            "missing_terms": q.missing_terms,
            "undefined_names": q.undefined_names,
            "missing_x_rank": q.missing_terms * top,
            "undefined_x_rank": q.undefined_names * top,
            "file_lead_x_rank": (1.0 - self.file_next) * top,
            **self._round_10(top),
        }

    def _round_10(self, top: float) -> dict[str, float]:
        """Round 10's features (the last group of :data:`FEATURES`); ``top`` is 1/rank."""
        question = float(not self.symbol_query)  # a question in words, not a symbol lookup
        return {
            "agree_x_rank": float(self.dense_rank == 1 and self.lexical_rank == 1) * top,
            "tops_chunk_x_rank": float(self.tops_same_chunk) * top,
            "tops_file_x_rank": float(self.tops_same_file) * top,
            "pair_file_x_rank": float(self.second_same_file) * top,
            "thin_x_rank": float(self.thin) * top,
            "question_lead_x_rank": (1.0 - self.runner_up) * top * question,
            "question_coverage_x_rank": self.term_coverage * top * question,
            "question_cosine_x_rank": self.cosine * top * question,
            "answered_above": self.first_defines * float(self.fused_rank > 1),
        }


@dataclass(frozen=True)
class QueryCap:
    """A ceiling on a fit's probability when the query's own evidence says the project may not
    hold the answer (issue 19, round 11: the keyword-only fit, fitted without negatives, rated
    another project's ``setProxy`` 84 % confident in loguru; refits and penalties that fixed it
    lost a built-in ``rag eval`` hit, bench/README.md "Round 11: keyword-only confidence").

    Every result of a query whose :attr:`QueryEvidence.undefined_names` is at least
    ``undefined_names`` (the query names identifiers and the index defines none of them), or whose
    :attr:`QueryEvidence.missing_terms` is at least ``missing_terms``, is rated at most
    ``ceiling``. ``ceiling`` lies between the relief floor and the confident floor: the capped
    passages are still delivered (low confidence, at most two), so a cap never takes a passage
    away, it only stops the answer from being stated as confident. A bound of ``inf`` never caps.
    """

    undefined_names: float = math.inf
    missing_terms: float = math.inf
    ceiling: float = 0.70

    def applies(self, query: QueryEvidence) -> bool:
        """Whether ``query``'s evidence reaches either bound."""
        return query.undefined_names >= self.undefined_names or query.missing_terms >= self.missing_terms

    def to_dict(self) -> dict:
        """JSON-ready (``inf`` as None)."""
        bound = lambda v: None if math.isinf(v) else v  # noqa: E731
        return {"undefined_names": bound(self.undefined_names), "missing_terms": bound(self.missing_terms),
                "ceiling": self.ceiling}

    @classmethod
    def from_dict(cls, data: dict) -> "QueryCap":
        """The cap :meth:`to_dict` wrote; ``ValueError``/``TypeError`` on a non-number."""
        bound = lambda v: math.inf if v is None else float(v)  # noqa: E731
        return cls(bound(data.get("undefined_names")), bound(data.get("missing_terms")), float(data["ceiling"]))


@dataclass(frozen=True)
class Calibration:
    """A fitted logistic model: ``P(relevant) = 1 / (1 + exp(-(bias + sum w_f * x_f)))``.

    ``name`` is the model id it was fitted for (or :data:`AGNOSTIC` / :data:`KEYWORD_ONLY`);
    ``features`` are the inputs it uses with their ``weights``; ``means``/``scales`` standardise
    them first; ``fitted_on`` says on what (benchmark, split, cases, results).

    ``unknown_query``: the :class:`QueryEvidence` values (its :data:`SIZED_FIELDS`, in order) assumed for a
    query whose index is too small to measure them (fewer than :data:`BACKGROUND_MIN_CHUNKS`
    chunks: every field None): the mean first result's evidence of the answerable prompts the fit
    saw, so the products with the rank keep their meaning (the training mean of
    ``margin_x_rank`` is over every rank and would rate a small project's first result as if its
    project barely answered). None (fits before issue 19's chunk round): an unknown input adds
    nothing (as if it were the training mean).

    ``query_cap``: a :class:`QueryCap` applied after the logistic model (None: no cap; round 11
    ships one with the keyword-only fit).
    """

    name: str
    version: int
    features: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    means: tuple[float, ...]
    scales: tuple[float, ...]
    fitted_on: str = ""
    unknown_query: tuple[float, ...] | None = None
    query_cap: QueryCap | None = None

    @property
    def uses_passage(self) -> bool:
        """Whether any of :attr:`features` is passage-level (:data:`PASSAGE_FEATURES`); result
        assembly computes that evidence only then (``search/assembly.py``)."""
        return not PASSAGE_FEATURES.isdisjoint(self.features)

    def probability(self, evidence: Evidence) -> float:
        """The fitted probability for ``evidence``; unknown query-level evidence is
        :attr:`unknown_query` when the fit carries it, else an unknown (None) input adds nothing
        (as if it were the training mean). With :attr:`query_cap`, at most its ceiling when its
        bounds are reached."""
        if self.unknown_query is not None and evidence.query.bm25_reach is None:
            evidence = replace(evidence, query=replace(evidence.query, **dict(zip(SIZED_FIELDS, self.unknown_query))))
        x = evidence.vector()
        z = self.bias
        for name, w, m, s in zip(self.features, self.weights, self.means, self.scales):
            if x[name] is not None:
                z += w * (x[name] - m) / s
        p = 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))
        if self.query_cap is not None and self.query_cap.applies(evidence.query):
            return min(p, self.query_cap.ceiling)
        return p

    def to_dict(self) -> dict:
        """The fit as JSON-ready data (the shipped ``calibration/*.json`` layout; :meth:`from_dict` reads it back)."""
        out = {"name": self.name, "version": self.version, "features": list(self.features),
               "weights": list(self.weights), "bias": self.bias, "means": list(self.means),
               "scales": list(self.scales), "fitted_on": self.fitted_on}
        if self.unknown_query is not None:
            out["unknown_query"] = list(self.unknown_query)
        if self.query_cap is not None:
            out["query_cap"] = self.query_cap.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "Calibration":
        """The fit :meth:`to_dict` wrote. Raises ``KeyError``/``ValueError`` on a file missing a field
        or holding a non-number."""
        unknown, cap = data.get("unknown_query"), data.get("query_cap")
        return cls(data["name"], int(data["version"]), tuple(data["features"]), tuple(data["weights"]),
                   float(data["bias"]), tuple(data["means"]), tuple(data["scales"]), data.get("fitted_on", ""),
                   None if unknown is None else tuple(float(v) for v in unknown),
                   None if cap is None else QueryCap.from_dict(cap))


def file_name(name: str) -> str:
    """The JSON file of the fit called ``name`` (``Xenova/all-MiniLM-L6-v2`` -> ``Xenova--all-MiniLM-L6-v2.json``)."""
    return name.replace("/", "--") + ".json"


@lru_cache(maxsize=16)
def load_calibration(name: str) -> Calibration | None:
    """The shipped fit called ``name``, or None when there is none."""
    try:
        text = (files("paqad.search") / "calibration" / file_name(name)).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return None
    return Calibration.from_dict(json.loads(text))


def calibration_for(model_id: str | None) -> Calibration | None:
    """The fit for results of ``model_id``'s embeddings: its own, else the model-agnostic one;
    the keyword-only fit when there is no model (degraded search)."""
    if model_id is None:
        return load_calibration(KEYWORD_ONLY)
    return load_calibration(model_id) or load_calibration(AGNOSTIC)


def monotone_confidence(results: Sequence[SearchResult]) -> list[SearchResult]:
    """``results`` (best first, as ranked) with confidence made non-increasing in rank.

    Each result's confidence becomes the minimum of its own and every better-ranked result's
    (a cumulative minimum): "match %" never rises down the list, so the floor's bands are
    prefixes of the ranking and no delivered passage ranks below a dropped one (DESIGN §8.5).
    The minimum, not a pooled mean, because a lower-ranked result's higher estimate is no
    evidence for the one above it. A result without a calibrated confidence is capped on its
    cosine (the floor's fallback) and then carries the capped value as its confidence.
    """
    out: list[SearchResult] = []
    cap = math.inf
    for result in results:
        own = result.confidence if result.confidence is not None else result.score
        cap = min(cap, own)
        out.append(result if result.confidence == cap else replace(result, confidence=cap))
    return out
