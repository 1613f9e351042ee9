"""The confidence floor with relief (DESIGN §8 step 4).

Scores at or above the threshold are confident and all of them are delivered. When none is,
up to two results at or above the relief floor are delivered, labelled low-confidence. When
none of those either, nothing is delivered and the best cosine seen is reported.

Results without a cosine (``semantic`` False: the dense side was left out, e.g. it missed the
hook's budget or the model is unavailable, or the chunk has no vector yet) cannot be judged by
the floor. When no semantic result is delivered, the two best-fused of them are delivered as
keyword matches (form ``"keyword"``), labelled as such: keyword evidence for *this* query
rather than nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from paqad.config import MAX_RELIEF_RESULTS
from paqad.search.results import SearchResult

CONFIDENT = "confident"
LOW_CONFIDENCE = "low-confidence"
KEYWORD = "keyword"
NOTHING = "nothing"


@dataclass(frozen=True)
class FloorOutcome:
    """What the floor lets through for one query.

    ``form`` is ``"confident"``, ``"low-confidence"``, ``"keyword"`` or ``"nothing"``.
    ``results`` holds what is delivered, in fused order: every confident result; at most two
    relief results; at most two keyword matches (results without a cosine); or ``()``.
    ``best_score`` is the highest cosine among the fused results that have one (``None`` when
    there were none). ``threshold`` and ``relief_floor`` are the cosines the outcome was decided with.
    """

    form: str
    results: tuple[SearchResult, ...]
    best_score: float | None
    threshold: float
    relief_floor: float


def apply_floor(
    results: Sequence[SearchResult], threshold: float = 0.75, relief_floor: float = 0.35
) -> FloorOutcome:
    """Split the fused list ``results`` by cosine ``score`` (DESIGN §8 step 4).

    Comparisons are inclusive (a score exactly at the threshold is confident, one exactly at
    the relief floor is relief). Results are taken in fused order (``fused_rank``), so the
    relief pair is the two best-fused results in the relief band, not the two highest cosines.
    Defaults 0.75 / 0.35 are the ``rag_similarity_threshold`` / ``rag_relief_floor`` defaults.
    """
    ordered = sorted(results, key=lambda r: r.fused_rank)
    semantic = [r for r in ordered if r.semantic]
    best = max((r.score for r in semantic), default=None)
    confident = tuple(r for r in semantic if r.score >= threshold)
    if confident:
        return FloorOutcome(CONFIDENT, confident, best, threshold, relief_floor)
    relief = tuple(r for r in semantic if r.score >= relief_floor)[:MAX_RELIEF_RESULTS]
    if relief:
        return FloorOutcome(LOW_CONFIDENCE, relief, best, threshold, relief_floor)
    keyword = tuple(r for r in ordered if not r.semantic)[:MAX_RELIEF_RESULTS]
    if keyword:
        return FloorOutcome(KEYWORD, keyword, best, threshold, relief_floor)
    return FloorOutcome(NOTHING, (), best, threshold, relief_floor)
