"""Reciprocal rank fusion (DESIGN §8.4): several rankings of chunk ids become one score per id,
and :func:`weighted_fusion`, the ranking's first step over one query's pools."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable, Sequence

from paqad.config import RRF_K
from paqad.search.analysis import SYMBOL

if TYPE_CHECKING:
    from paqad.search.analysis import QueryInfo
    from paqad.search.options import RankingOptions
    from paqad.search.ranking import Pools
    from paqad.search.symbols import DefinitionMatch

# the name of an error type: FooException, FooError, UnableToReadFile (issue 24, round 6)
_ERROR_TYPE = re.compile(r"(Exception|Error|Failure|Fault)$|^(UnableTo|FailedTo|CannotBe)[A-Z]")


def reciprocal_rank_fusion(
    rankings: Iterable[Sequence[int]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> dict[int, float]:
    """RRF score per id: sum over rankings of ``weight / (k + rank)`` with 1-based ranks.

    ``weights`` (one per ranking, default all 1.0) let the rankers count differently, e.g. BM25
    more than embeddings for a symbol query. k = 60 from Cormack, Clarke & Buettcher (SIGIR 2009).
    """
    scores: dict[int, float] = {}
    for index, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[index]
        if weight <= 0:
            continue
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores


def is_error_type(name: str) -> bool:
    """True for the name of an error type (the last component of a qualified name):
    ``StreamConstraintsException``, ``yaml::ParserError``, ``UnableToProvideChecksum``."""
    return bool(_ERROR_TYPE.search(re.split(r"::|\\|\.", name)[-1]))


def _definition_weights(pools: Pools, options: RankingOptions) -> list[float]:
    """The symbol-table pool's weight for each of its entries: ``symbol_weight``, x
    ``long_symbol_share`` for an error type's definition in a long prompt (a pasted error quotes
    the exception's name: it is the symptom, not the place the question asks for)."""
    def weight(match: DefinitionMatch) -> float:
        error = pools.info.long and is_error_type(match.symbol or match.identifier.name)
        return options.symbol_weight * (options.long_symbol_share if error else 1.0)

    first: dict[int, DefinitionMatch] = {}  # a chunk matched twice counts at its first place
    for match in pools.definitions:
        first.setdefault(match.chunk_id, match)
    return [weight(m) for m in first.values()]


def is_plain_question(info: QueryInfo) -> bool:
    """A short prose question naming no identifier and no path (``where are retries
    decided``): words only, answered by behaviour rather than by one definition."""
    return info.kind != SYMBOL and not info.long and not info.identifiers and not info.paths


# a question's opening word: an English interrogative or an auxiliary opening a yes/no question
_QUESTION_OPENING = re.compile(r"^\W*(how|where|what|which|why|when|who|whose|is|are|does|do|did|can|could|should|"
                               r"will|would|in\s+which|at\s+what)\b", re.IGNORECASE)


def asks_question(info: QueryInfo) -> bool:
    """A query phrased as a question: it ends with ``?`` or opens with an interrogative ("how does
    ...", "where are ...", "is there ..."); a commit message or a bare topic ("url validation
    regex") is not one (issue 24, round 11: ``RankingOptions.evidence_margin`` acts on questions)."""
    return info.text.rstrip().endswith("?") or bool(_QUESTION_OPENING.match(info.text))


def pool_weights(pools: Pools, options: RankingOptions) -> tuple[float, float]:
    """(dense weight, BM25 weight) of the query's kind: ``symbol_*_weight`` for a query that is
    one identifier, else ``dense_weight`` / ``lexical_weight``, those x ``plain_dense_factor`` /
    ``plain_lexical_factor`` for a plain question (:func:`is_plain_question`)."""
    if pools.info.kind == SYMBOL and options.kind_weights:
        return options.symbol_dense_weight, options.symbol_lexical_weight
    if options.kind_weights and is_plain_question(pools.info):
        return options.dense_weight * options.plain_dense_factor, options.lexical_weight * options.plain_lexical_factor
    return options.dense_weight, options.lexical_weight


def weighted_fusion(pools: Pools, options: RankingOptions) -> dict[int, float]:
    """Fused score per chunk id of the pools in force: dense and BM25 (weights by query kind:
    :func:`pool_weights`), the symbol table's definitions (``symbol_weight``;
    :func:`_definition_weights`) and the chunks of files the query names (``named_file_weight``).
    k of every reciprocal-rank term is ``rrf_k``, or ``prose_rrf_k`` (when > 0) for a query that
    is not one identifier."""
    dense_weight, lexical_weight = pool_weights(pools, options)
    k = options.prose_rrf_k if pools.info.kind != SYMBOL and options.prose_rrf_k > 0 else options.rrf_k
    rankings: list[tuple[list[int], float]] = []
    if options.dense:
        rankings.append((pools.dense, dense_weight))
    if options.lexical:
        rankings.append((pools.lexical, lexical_weight))
    scores = reciprocal_rank_fusion([r for r, _ in rankings], k=k, weights=[w for _, w in rankings])
    if options.symbols and pools.definitions:
        order = list(dict.fromkeys(m.chunk_id for m in pools.definitions))
        for rank, (cid, weight) in enumerate(zip(order, _definition_weights(pools, options)), start=1):
            if weight > 0:
                scores[cid] = scores.get(cid, 0.0) + weight / (k + rank)
    if options.named_files and pools.named and options.named_file_weight > 0:
        for rank, cid in enumerate(pools.named, start=1):
            scores[cid] = scores.get(cid, 0.0) + options.named_file_weight / (k + rank)
    return scores
