"""Issue 24, round 11: prose questions at file level (bench/README.md "Round 11: prose questions"),
on hand-made candidates with exact scores:

- ``evidence_margin`` / ``evidence_ratio`` / ``evidence_depth`` (:mod:`paqad.search.signals.file_evidence`):
  a close call at the top of a question settled for the runner-up with several times the candidates;
- :func:`paqad.search.fusion.asks_question`.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from paqad.search import RankingOptions
from paqad.search.analysis import analyze
from paqad.search.fusion import asks_question
from paqad.search.signals import RankingContext, file_evidence
from paqad.store import ChunkRow

QUESTION = "how does a negative number get treated as an argument value?"


def _row(cid: int, path: str, language: str = "java") -> ChunkRow:
    return ChunkRow(path=path, start_line=10 * cid, end_line=10 * cid + 9, language=language, symbol=None, kind="block",
                    signature=None, text=f"x = {cid}\n", id=cid)


# Option.java: two candidates leading; DefaultParser.java: six candidates just behind
ROWS = {1: _row(1, "src/Option.java"), 2: _row(2, "src/Option.java"),
        **{c: _row(c, "src/DefaultParser.java") for c in range(3, 9)}, 9: _row(9, "src/Util.java")}
SCORES = {1: 0.040, 2: 0.020, 3: 0.037, 4: 0.030, 5: 0.020, 6: 0.015, 7: 0.012, 8: 0.010, 9: 0.039}


def _context(query: str, options: RankingOptions, rows=ROWS, file_chunks=None) -> RankingContext:
    return RankingContext(info=analyze(query), options=options, rows=rows, best=max(SCORES.values()), definitions=(),
                          named_paths=frozenset(), exempt=frozenset(),
                          file_chunks=file_chunks if file_chunks is not None else {"src/Option.java": 40})


ON = RankingOptions()  # the default: evidence_margin 0.9, evidence_ratio 3.0, evidence_depth 1


def test_a_close_runner_up_with_three_times_the_candidates_is_raised_just_above_the_first_file():
    out = file_evidence.apply(SCORES, _context(QUESTION, ON))
    factor = 1.05 * 0.040 / 0.037
    assert out == pytest.approx({**SCORES, **{c: SCORES[c] * factor for c in range(3, 9)}})
    assert max(out, key=out.get) == 3 and out[3] == pytest.approx(0.042)


def test_no_challenge_below_the_margin_the_ratio_or_of_a_covered_first_file_by_a_less_covered_one():
    assert file_evidence.apply(SCORES, _context(QUESTION, replace(ON, evidence_margin=0.95))) == SCORES  # 0.037 < 0.038
    assert file_evidence.apply(SCORES, _context(QUESTION, replace(ON, evidence_ratio=3.5))) == SCORES  # 6 < 7 candidates
    # Option.java is covered (2 of its 2 chunks, then of 3: two thirds): only a file covered as fully may challenge it
    assert file_evidence.apply(SCORES, _context(QUESTION, ON, file_chunks={"src/Option.java": 2})) == SCORES
    assert file_evidence.apply(SCORES, _context(QUESTION, ON, file_chunks={"src/Option.java": 3,
                                                                          "src/DefaultParser.java": 10})) == SCORES
    covered = file_evidence.apply(SCORES, _context(QUESTION, ON, file_chunks={"src/Option.java": 3,
                                                                             "src/DefaultParser.java": 6}))
    assert max(covered, key=covered.get) == 3
    assert file_evidence.apply(SCORES, _context(QUESTION, RankingOptions(evidence_margin=0.0))) == SCORES  # off
    assert RankingOptions().evidence_margin == 0.9 and RankingOptions().evidence_ratio == 3.0  # the default


def test_only_questions_are_challenged():
    assert file_evidence.apply(SCORES, _context("Treat negative numbers as argument values", ON)) == SCORES
    assert file_evidence.apply(SCORES, _context("DefaultParser", ON)) == SCORES  # a symbol query
    assert [asks_question(analyze(q)) for q in (
        QUESTION, "where are comment lines recognised", "is there a way to skip the header",
        "url validation regex", "Fix handling of negative numbers", "negative numbers as values?")] == [
        True, True, True, False, False, True]


def test_with_a_depth_of_two_the_second_place_is_settled_too():
    rows = {1: _row(1, "src/A.java"), **{c: _row(c, "src/B.java") for c in (2, 3, 4)},
            **{c: _row(c, "src/D.java") for c in (5, 6, 7)}, 8: _row(8, "src/C.java")}
    scores = {1: 0.050, 2: 0.048, 3: 0.01, 4: 0.01, 5: 0.046, 6: 0.01, 7: 0.01, 8: 0.030}
    context = _context(QUESTION, ON, rows, file_chunks={})

    def files(out):
        return list(context.files_best_first(out))

    one = file_evidence.apply(scores, context)
    assert files(one) == ["src/B.java", "src/A.java", "src/D.java", "src/C.java"]  # B: 3 candidates, first of two
    assert one[2] == pytest.approx(1.05 * 0.050)
    deep = replace(context, options=replace(ON, evidence_depth=2))
    two = file_evidence.apply(scores, deep)
    assert files(two) == ["src/B.java", "src/D.java", "src/A.java", "src/C.java"]
    assert two[5] == pytest.approx((0.050 + 1.05 * 0.050) / 2)  # between A and B
