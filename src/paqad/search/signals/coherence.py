"""File coherence: a file's best chunk gains ``coherence`` x the sum of its other chunks' scores
(several matching chunks say the file is about the query). Measured, off by default (0.0)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with each file's best chunk raised by its siblings' share."""
    by_file = context.files_best_first(scores)
    out = dict(scores)
    for ids in by_file.values():
        if len(ids) > 1:
            out[ids[0]] += context.options.coherence * sum(scores[c] for c in ids[1:])
    return out
