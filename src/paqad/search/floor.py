"""The confidence floor with relief (DESIGN §8.6), on calibrated confidence.

Results whose confidence reaches the threshold (``rag_similarity_threshold``, 0.75) are
confident and all of them are delivered. When none is, up to two results at or above the relief
floor (``rag_relief_floor``, 0.35) are delivered, labelled low-confidence. When none of those
either, nothing is delivered and the best confidence seen is reported.

Two rules keep what is delivered honest:

- comparisons use whole percentages, the same rounded value the section prints
  (:func:`percent`), so "match 75%" never appears under "no match reached the 75% floor";
- the best-ranked result is never dropped for lower-ranked prose: when only Markdown/text passes
  the floor below a better-ranked code result, the code result is delivered first (labelled with
  its own, lower, confidence).

A result's confidence is :attr:`SearchResult.confidence` (the calibrated probability); a result
without one (no calibration shipped for its model) falls back to its cosine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from paqad.config import MAX_RELIEF_RESULTS
from paqad.search.results import SearchResult

CONFIDENT = "confident"
LOW_CONFIDENCE = "low-confidence"
NOTHING = "nothing"
PROSE_LANGUAGES = frozenset({"markdown", "text"})


def percent(value: float) -> int:
    """A confidence or floor as the whole percentage people and agents see, rounded half up:
    ``0.7499`` -> ``75``, ``0.7449`` -> ``74``."""
    return math.floor(value * 100 + 0.5)


def confidence_of(result: SearchResult) -> float:
    """The result's calibrated confidence, else (no calibration for its model) its cosine."""
    return result.confidence if result.confidence is not None else result.score


@dataclass(frozen=True)
class FloorOutcome:
    """What the floor lets through for one query.

    ``form`` is ``"confident"``, ``"low-confidence"`` or ``"nothing"``. ``results`` holds what
    is delivered, in fused order: every confident result (plus a better-ranked code result, see
    the module docstring); at most two relief results; or ``()``. ``best_score`` is the highest
    confidence among all fused results (``None`` when there were none). ``threshold`` and
    ``relief_floor`` are the confidences the outcome was decided with.
    """

    form: str
    results: tuple[SearchResult, ...]
    best_score: float | None
    threshold: float
    relief_floor: float


def _keep_best_ranked(ordered: list[SearchResult], chosen: list[SearchResult]) -> list[SearchResult]:
    """``chosen`` with the best-ranked result first when only lower-ranked prose made it."""
    if not chosen or not ordered or ordered[0] in chosen:
        return chosen
    first = ordered[0]
    if first.language in PROSE_LANGUAGES:
        return chosen
    if all(r.language in PROSE_LANGUAGES for r in chosen):
        return [first, *chosen]
    return chosen


def apply_floor(
    results: Sequence[SearchResult], threshold: float = 0.75, relief_floor: float = 0.35
) -> FloorOutcome:
    """Split the fused list ``results`` by confidence (DESIGN §8.6).

    Comparisons are on whole percentages and inclusive (a confidence that prints as the
    threshold is confident; one that prints as the relief floor is relief). Results are taken in
    fused order (``fused_rank``), so the relief pair is the two best-fused results in the relief
    band, not the two most confident. Defaults 0.75 / 0.35 are the ``rag_similarity_threshold`` /
    ``rag_relief_floor`` defaults.
    """
    ordered = sorted(results, key=lambda r: r.fused_rank)
    best = max((confidence_of(r) for r in ordered), default=None)
    confident = [r for r in ordered if percent(confidence_of(r)) >= percent(threshold)]
    if confident:
        return FloorOutcome(CONFIDENT, tuple(_keep_best_ranked(ordered, confident)), best, threshold,
                            relief_floor)
    relief = [r for r in ordered if percent(confidence_of(r)) >= percent(relief_floor)][:MAX_RELIEF_RESULTS]
    if relief:
        kept = _keep_best_ranked(ordered, relief)[:MAX_RELIEF_RESULTS]
        return FloorOutcome(LOW_CONFIDENCE, tuple(kept), best, threshold, relief_floor)
    return FloorOutcome(NOTHING, (), best, threshold, relief_floor)
