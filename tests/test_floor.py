"""The confidence floor with relief (DESIGN §8 step 4): exact boundaries, relief cap, best score."""

from __future__ import annotations

import pytest

from paqad.deliver.render import render_section
from paqad.search.floor import DeliveryForm, FloorOutcome, apply_floor
from paqad.search.results import SearchResult


def hit(rank: int, score: float, path: str | None = None) -> SearchResult:
    return SearchResult(
        path=path or f"src/m{rank}.py", start_line=1, end_line=3, symbol=f"f{rank}", language="python",
        text=f"def f{rank}():\n    pass\n", score=score, fused_rank=rank, dense_rank=rank, lexical_rank=None,
    )


def paths(outcome: FloorOutcome) -> list[str]:
    return [r.path for r in outcome.results]


def test_score_exactly_at_threshold_is_confident():
    outcome = apply_floor([hit(1, 0.75), hit(2, 0.7449)])
    assert outcome.form == "confident"
    assert paths(outcome) == ["src/m1.py"]
    assert outcome.best_score == 0.75
    assert (outcome.threshold, outcome.relief_floor) == (0.75, 0.35)


def test_a_score_that_prints_as_the_threshold_is_confident():
    # 0.7499 is shown as "match 75%": it must not sit under "no match reached the 75% floor".
    outcome = apply_floor([hit(1, 0.7499)])
    assert outcome.form == "confident"
    assert render_section(outcome, "this prompt").splitlines()[3] == "1 match at or above the 75% confidence floor."
    assert "· match 75%" in render_section(outcome, "this prompt")


def test_just_below_threshold_falls_to_relief():
    outcome = apply_floor([hit(1, 0.7449)])
    assert outcome.form == "low-confidence"
    assert paths(outcome) == ["src/m1.py"]


def test_score_exactly_at_relief_floor_is_delivered_and_below_is_not():
    outcome = apply_floor([hit(1, 0.35), hit(2, 0.3449)])
    assert outcome.form == "low-confidence"
    assert paths(outcome) == ["src/m1.py"]
    assert outcome.best_score == 0.35


def test_relief_is_capped_at_two_in_fused_order():
    # Given out of order: the floor works on fused rank, not input order or cosine.
    results = [hit(4, 0.70), hit(2, 0.40), hit(1, 0.50), hit(3, 0.60), hit(5, 0.74)]
    outcome = apply_floor(results)
    assert outcome.form == "low-confidence"
    assert paths(outcome) == ["src/m1.py", "src/m2.py"]
    assert [r.confidence for r in outcome.results] == [0.50, 0.40]
    assert outcome.best_score == 0.50


def test_confidence_never_rises_with_rank_so_bands_are_prefixes():
    # The "86 %, 95 %, 80 %" and "rank 2 at 52 % dropped while rank 12 at 80 % is delivered".
    results = [hit(rank, score) for rank, score in enumerate([0.9, 0.5, 0.8, 0.76, 0.2, 0.75, 0.95, 0.99], start=1)]
    outcome = apply_floor(results)
    assert outcome.form == "confident"
    assert paths(outcome) == ["src/m1.py"]
    assert outcome.best_score == 0.9
    ranked = apply_floor([hit(1, 0.86), hit(2, 0.95), hit(3, 0.80)])
    assert [r.confidence for r in ranked.results] == [0.86, 0.86, 0.80]
    section = render_section(ranked, "this prompt")
    assert [line.rsplit("match ", 1)[1] for line in section.splitlines() if line.startswith("### ")] == ["86%", "86%", "80%"]


def test_relief_never_delivers_a_rank_below_a_dropped_one():
    outcome = apply_floor([hit(1, 0.30), hit(2, 0.60), hit(3, 0.70)])
    assert (outcome.form, paths(outcome), outcome.best_score) == ("nothing", [], 0.30)


def test_nothing_reports_the_best_confidence_of_the_list():
    outcome = apply_floor([hit(1, 0.34), hit(2, 0.12), hit(3, -0.2)])
    assert outcome == FloorOutcome("nothing", (), 0.34, 0.75, 0.35)


def test_empty_list_is_nothing_without_best_score():
    assert apply_floor([]) == FloorOutcome("nothing", (), None, 0.75, 0.35)


def test_custom_threshold_and_relief_floor():
    results = [hit(1, 0.61), hit(2, 0.6), hit(3, 0.59)]
    assert paths(apply_floor(results, threshold=0.6, relief_floor=0.2)) == ["src/m1.py", "src/m2.py"]
    low = apply_floor(results, threshold=0.62, relief_floor=0.6)
    assert (low.form, paths(low), low.threshold, low.relief_floor) == ("low-confidence", ["src/m1.py", "src/m2.py"], 0.62, 0.6)
    none = apply_floor(results, threshold=0.9, relief_floor=0.8)
    assert (none.form, none.best_score) == ("nothing", 0.61)


@pytest.mark.parametrize("score,form", [(1.0, "confident"), (0.75, "confident"), (0.35, "low-confidence"), (-1.0, "nothing")])
def test_single_result_forms(score: float, form: str):
    assert apply_floor([hit(1, score)]).form == form


def test_confidence_decides_and_the_cosine_is_only_a_fallback():
    calibrated = [SearchResult(**{**hit(1, 0.2).__dict__, "confidence": 0.9}), SearchResult(**{**hit(2, 0.9).__dict__, "confidence": 0.1})]
    outcome = apply_floor(calibrated)
    assert (outcome.form, paths(outcome), outcome.best_score) == ("confident", ["src/m1.py"], 0.9)


def test_lower_ranked_prose_is_not_delivered_when_the_best_ranked_code_is_dropped():
    # fuse.py ranks first below the relief floor: the README and design note below it stay out.
    code = SearchResult(**{**hit(1, 0.346, "src/fuse.py").__dict__, "confidence": 0.30})
    readme = SearchResult(**{**hit(2, 0.5, "README.md").__dict__, "language": "markdown", "confidence": 0.5})
    note = SearchResult(**{**hit(3, 0.5, "docs/design.md").__dict__, "language": "markdown", "confidence": 0.45})
    outcome = apply_floor([code, readme, note])
    assert (outcome.form, paths(outcome), outcome.best_score) == ("nothing", [], 0.30)
    assert "best match 30%" in render_section(outcome, "this prompt")


def test_delivery_form_is_an_enum_that_prints_and_compares_as_its_string():
    outcome = apply_floor([hit(1, 0.9)])
    assert outcome.form is DeliveryForm.CONFIDENT and outcome.form == "confident"
    assert f"{outcome.form}: 1" == "confident: 1" and str(DeliveryForm.LOW_CONFIDENCE) == "low-confidence"


def test_location_property():
    assert hit(1, 0.5).location == "src/m1.py:L1-3"
