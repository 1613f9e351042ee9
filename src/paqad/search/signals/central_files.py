"""Central files: in an architecture question (how is X organised, which parts are involved), a
file that holds much of the project's code is more likely the answer than a small one that
repeats the question's words (issue 24). A chunk's score is multiplied by
``(chunks of its file / median chunks of the candidates' files) ** central_prior``, the ratio
clipped to [1/4, 4] so one huge file cannot take the list.

``RankingContext.file_chunks`` gives each file's chunk count (the index's ``files`` table, read
once per generation). Only for architecture-shaped prose questions (:data:`ARCHITECTURE_WORDS`);
a "where is X" question asks for one place, which can be a small file.
"""

from __future__ import annotations

import re
from statistics import median
from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

ARCHITECTURE_WORDS = re.compile(
    r"\b(architecture|organi[sz]ed?|organi[sz]ation|structured?|lifecycle|flow|travel\w*|pipeline|wired?|"
    r"involved|overall|stages?|layers?|parts?|components?|design(ed)?|relate|work together)\b", re.IGNORECASE)
MAX_RATIO = 4.0


def applies(context: RankingContext) -> bool:
    """An architecture-shaped prose question (not a symbol query, not a pasted report)."""
    info = context.info
    return info.kind != SYMBOL and not info.long and bool(ARCHITECTURE_WORDS.search(info.text))


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores times the file's size ratio to the candidates' median, to the ``central_prior``."""
    if not context.file_chunks or not applies(context):
        return scores
    sizes = {row.path: context.file_chunks.get(row.path, 1) for cid, row in context.rows.items() if cid in scores}
    middle = median(sizes.values())
    out = dict(scores)
    for cid in scores:
        ratio = min(MAX_RATIO, max(1.0 / MAX_RATIO, sizes[context.rows[cid].path] / middle))
        out[cid] *= ratio ** context.options.central_prior
    return out
