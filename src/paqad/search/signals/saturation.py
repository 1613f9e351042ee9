"""Saturation: the n-th chunk of a file (0-based, in score order) is multiplied by
``saturation ** n``, so one file does not fill the list (the first release's ``diversity`` is
this with 0.7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with each file's later chunks discounted geometrically."""
    out = dict(scores)
    seen: dict[str, int] = {}
    for cid in sorted(scores, key=lambda c: (-scores[c], c)):
        path = context.rows[cid].path
        out[cid] = scores[cid] * (context.options.saturation ** seen.get(path, 0))
        seen[path] = seen.get(path, 0) + 1
    return out
