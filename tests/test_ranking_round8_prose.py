"""Issue 24, round 8: the fusion fundamentals of prose questions (bench/README.md "Round 8: prose
questions"), on hand-made pools with the exact reciprocal-rank terms:

- ``pool_depth`` / ``long_pool_depth`` / ``agreement_depth``: how many candidates of the dense
  and BM25 pools join the fusion (:func:`paqad.search.ranking.cut_pools`);
- ``plain_dense_factor`` / ``plain_lexical_factor``: a plain question's pool weights
  (:func:`paqad.search.fusion.pool_weights`);
- ``prose_rrf_k``: k of a prose query's reciprocal-rank terms.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from paqad.search import RankingOptions
from paqad.search.analysis import analyze
from paqad.search.fusion import is_plain_question, pool_weights, weighted_fusion
from paqad.search.ranking import Pools, cut_pools


def _pools(query: str, dense: list[int], lexical: list[int]) -> Pools:
    return Pools(analyze(query), dense, lexical, {c: 0.5 for c in dense}, {c: 10.0 - i for i, c in enumerate(lexical)},
                 (), ())


def test_a_pool_is_cut_to_its_depth_and_the_bm25_scores_to_the_kept_candidates():
    pools = _pools("where are retries decided", [1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1])
    cut = cut_pools(pools, 3)
    assert (cut.dense, cut.lexical, cut.bm25) == ([1, 2, 3], [6, 5, 4], {6: 10.0, 5: 9.0, 4: 8.0})
    assert cut_pools(pools, 6) is pools  # nothing to cut


def test_past_the_depth_only_the_candidates_both_pools_hold_are_kept():
    pools = _pools("where are retries decided", [1, 2, 3, 4, 5, 6], [7, 8, 9, 5, 10, 2])
    cut = cut_pools(pools, 2, agreement=6)
    # dense 3..6: 5 is in the BM25 pool (4th), 3, 4, 6 are not; BM25 9..2: 5 and 2 are dense candidates
    assert (cut.dense, cut.lexical) == ([1, 2, 5], [7, 8, 5, 2])


def test_a_plain_question_is_words_only_and_short():
    assert [is_plain_question(analyze(q)) for q in (
        "where are retries decided", "how does mergeOptions treat arrays", "where is lib/retry.js read",
        "RetryMiddleware", "where are retries decided\n" + "and why\n" * 6)] == [True, False, False, False, False]


def test_a_plain_questions_weights_are_the_prose_weights_times_its_factors():
    options = replace(RankingOptions(), plain_dense_factor=1.5, plain_lexical_factor=0.5)
    assert pool_weights(_pools("where are retries decided", [], []), options) == (1.5, pytest.approx(0.65))
    # a question naming an identifier keeps the prose weights, a symbol query its own
    assert pool_weights(_pools("how does mergeOptions treat arrays", [], []), options) == (1.0, 1.3)
    assert pool_weights(_pools("mergeOptions", [], []), options) == (0.6, 1.4)


def test_the_fused_scores_of_a_plain_question_with_its_factor_and_k():
    pools = _pools("where are retries decided", [1, 2], [2, 3])
    scores = weighted_fusion(pools, replace(RankingOptions(), plain_dense_factor=1.5, prose_rrf_k=40))
    assert scores == pytest.approx({1: 1.5 / 41, 2: 1.5 / 42 + 1.3 / 41, 3: 1.3 / 42})
    # prose_rrf_k 0 is rrf_k (60), and a symbol query always uses rrf_k
    assert weighted_fusion(pools, RankingOptions()) == pytest.approx({1: 1 / 61, 2: 1 / 62 + 1.3 / 61, 3: 1.3 / 62})
    symbol = _pools("RetryMiddleware", [1], [1])
    assert weighted_fusion(symbol, replace(RankingOptions(), prose_rrf_k=40)) == pytest.approx({1: 0.6 / 61 + 1.4 / 61})
