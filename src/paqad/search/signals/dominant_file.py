"""Dominant file: when the first file leads the second by far, its second chunk is listed second
(issue 19, "the passage that answers": two passages of the file that answers, not one).

Saturation halves every further chunk of a file, so the first five results hold five files even
when the first file is the only one that matters and its best chunk is a neighbour of the
answer. When the first file's best score is at least ``dominant_file_lead`` times the second
file's, that file's second-best chunk is raised to the geometric mean of the two files' best
scores: between them, so it is listed second and no file changes places (``0.0`` = off).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with the dominant first file's second chunk raised between the first two files."""
    lead = context.options.dominant_file_lead
    by_file = context.files_best_first(scores)
    if len(by_file) < 2:
        return scores
    first, second = list(by_file.values())[:2]
    best, runner_up = scores[first[0]], scores[second[0]]
    if len(first) < 2 or runner_up <= 0 or best < lead * runner_up:
        return scores
    out = dict(scores)
    out[first[1]] = max(scores[first[1]], math.sqrt(best * runner_up))
    return out
