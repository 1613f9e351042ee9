"""The confidence floor with relief (DESIGN §8.6), on calibrated confidence.

Results whose confidence reaches the threshold (``rag_similarity_threshold``, 0.75) are
confident and all of them are delivered; with ``companions`` (the prompt path passes
:data:`~paqad.config.MAX_COMPANIONS`), a confident answer of fewer than
:data:`~paqad.config.MAX_PASSAGES` passages is followed by that many of the next results at or
above the relief floor, labelled low confidence (issue 19, round 8). When none is confident, up
to two results at or above the relief floor (``rag_relief_floor``, 0.35) are delivered, labelled
low-confidence. When none of those either, nothing is delivered and the best confidence seen is
reported.

Two rules keep what is delivered honest:

- comparisons use whole percentages, the same rounded value the section prints
  (:func:`percent`), so "match 75%" never appears under "no match reached the 75% floor";
- bands are monotone in rank (:func:`~paqad.search.confidence.monotone_confidence`): within one
  answer a result's confidence is at most that of every better-ranked one, so the confident and
  the relief results are each a prefix of the fused list, listed best first, and no delivered
  result ranks below one that was dropped.

A result's confidence is :attr:`SearchResult.confidence` (the calibrated probability); a result
without one (no calibration shipped for its model) falls back to its cosine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import Enum
from typing import Sequence

from paqad.config import MAX_PASSAGES, MAX_RELIEF_RESULTS
from paqad.search.confidence import monotone_confidence
from paqad.search.degraded import Degraded, DegradedReason
from paqad.search.results import SearchResult

# A keyword-only answer given because the dense side ran out of time (the index has a model and
# the full search would rate the same passages with their cosines). On the ranking benchmark's dev
# half, 45 % of the passages such an answer delivered were rated above the full search's rating
# of the same passage by the keyword-only fit, by a median 30 points (bench/README.md, "Delivered
# passages (issue 19)"): its ratings are not shown (:func:`unrated_keyword_floor`).
TIMING_MISSES = frozenset({DegradedReason.LATE, DegradedReason.NOT_STARTED})


class DeliveryForm(str, Enum):
    """Which form the floor decided for one query; the values are the strings logs and reports
    print (a member compares equal to its value: ``DeliveryForm.NOTHING == "nothing"``)."""

    CONFIDENT = "confident"
    LOW_CONFIDENCE = "low-confidence"
    NOTHING = "nothing"

    def __str__(self) -> str:  # "confident", not "DeliveryForm.CONFIDENT", in f-strings too
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


CONFIDENT = DeliveryForm.CONFIDENT
LOW_CONFIDENCE = DeliveryForm.LOW_CONFIDENCE
NOTHING = DeliveryForm.NOTHING


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

    ``form`` is a :class:`DeliveryForm`. ``results`` holds what is delivered, in fused order
    (best first), with their monotone confidences: every confident result (then, with
    companions, the next relief-band results); at most two relief results; or ``()``. ``best_score`` is the highest confidence among all fused results (the
    first one's, bands being monotone; ``None`` when there were none). ``threshold`` and
    ``relief_floor`` are the confidences the outcome was decided with.
    """

    form: DeliveryForm
    results: tuple[SearchResult, ...]
    best_score: float | None
    threshold: float
    relief_floor: float
    rated: bool = True  # False: keyword matches of a timing miss, shown without a match %


def apply_floor(
    results: Sequence[SearchResult], threshold: float = 0.75, relief_floor: float = 0.35, companions: int = 0
) -> FloorOutcome:
    """Split the fused list ``results`` by confidence (DESIGN §8.6).

    Confidences are first made monotone in fused rank (a result never above a better-ranked
    one), so each band is a prefix of the list. Comparisons are on whole percentages and
    inclusive (a confidence that prints as the threshold is confident; one that prints as the
    relief floor is relief). Defaults 0.75 / 0.35 are the ``rag_similarity_threshold`` /
    ``rag_relief_floor`` defaults. ``companions``: a confident answer of fewer than
    :data:`~paqad.config.MAX_PASSAGES` results gets up to this many of the results right after
    it (the list's next ranks, so still a prefix) that reach the relief floor, without exceeding
    :data:`~paqad.config.MAX_PASSAGES`; their confidence is below the threshold, so the section
    labels them low confidence.
    """
    ordered = monotone_confidence(sorted(results, key=lambda r: r.fused_rank))
    best = confidence_of(ordered[0]) if ordered else None
    confident = [r for r in ordered if percent(confidence_of(r)) >= percent(threshold)]
    if confident:
        room = min(companions, MAX_PASSAGES - len(confident)) if len(confident) < MAX_PASSAGES else 0
        following = ordered[len(confident):len(confident) + max(room, 0)]
        extra = [r for r in following if percent(confidence_of(r)) >= percent(relief_floor)]
        return FloorOutcome(CONFIDENT, tuple(confident + extra), best, threshold, relief_floor)
    relief = [r for r in ordered if percent(confidence_of(r)) >= percent(relief_floor)][:MAX_RELIEF_RESULTS]
    if relief:
        return FloorOutcome(LOW_CONFIDENCE, tuple(relief), best, threshold, relief_floor)
    return FloorOutcome(NOTHING, (), best, threshold, relief_floor)


def is_timing_miss(degraded: Degraded | None) -> bool:
    """True when ``degraded`` says the dense side ran out of the hook's budget (late or not
    started), not that the index has no usable model."""
    return degraded is not None and degraded.reason in TIMING_MISSES


def unrated_keyword_floor(
    results: Sequence[SearchResult], threshold: float = 0.75, relief_floor: float = 0.35
) -> FloorOutcome:
    """The floor for a keyword-only answer of a timing miss (:data:`TIMING_MISSES`): never
    confident, never rated. The keyword-only fit decides only whether anything is shown: when
    :func:`apply_floor` would deliver, the best :data:`~paqad.config.MAX_RELIEF_RESULTS` results
    are the low-confidence form with ``rated`` False (no match %, so the hook never states a
    confidence that ``rag probe`` or the warm process would contradict for the same passage);
    else the nothing form, without a best match %.
    """
    outcome = apply_floor(results, threshold, relief_floor)
    if outcome.form == NOTHING:
        return replace(outcome, best_score=None, rated=False)
    return FloorOutcome(LOW_CONFIDENCE, outcome.results[:MAX_RELIEF_RESULTS], None, threshold, relief_floor,
                        rated=False)
