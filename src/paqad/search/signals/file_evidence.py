"""Close calls settled by a file's evidence (issue 24, round 11): a short prose question's first
file is challenged by a runner-up that scores nearly as well and that many more of the pools'
candidates come from.

In most dev where/architecture misses the first file is a sibling with one or two matching chunks
(``Option.java``'s option attributes, a 2-chunk ``PrefixPublicUrlGenerator.php`` named like the
question's words) while the file that answers holds several candidates a little lower
(``DefaultParser.java``, ``Filesystem.php``): the ranking orders files by their best chunk
alone. Summing the siblings (coherence) or adding the second-best chunk (file_support) lifted
large central files everywhere and lost languages (rounds 5, 6, 8); this acts only on a close
call at the top: among files 2 to :data:`CHALLENGERS` + 1, one whose best score is at least
``evidence_margin`` x the first file's and whose candidate chunks number at least
``evidence_ratio`` x the first file's (the most such candidates wins) is raised just above the
first file (every chunk of it x the same factor, so its own order is kept), unless every chunk
of the first file is a candidate (a small file all about the question: bytes' ``serde.rs``).
Only questions (:func:`~paqad.search.fusion.asks_question`): symbol queries, long prompts and
statements (a commit message: the git-mined set lost C++ and PHP cases to the rule) are left alone. ``evidence_margin`` 0.0 = off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL
from paqad.search.fusion import asks_question

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

CHALLENGERS = 4  # runner-up files that may challenge the first (files 2-5)
LEAD = 1.05  # the challenger's best chunk is raised to this x the first file's best score


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with a close call at the top settled for the file with more candidates (see the module)."""
    margin, ratio = context.options.evidence_margin, context.options.evidence_ratio
    info = context.info
    if margin <= 0.0 or info.kind == SYMBOL or info.long or not scores or not asks_question(info):
        return scores
    by_file = context.files_best_first(scores)
    files = list(by_file)
    if len(files) < 2:
        return scores
    first = by_file[files[0]]
    if context.file_chunks and len(first) >= context.file_chunks.get(files[0], len(first) + 1):
        return scores  # every chunk of the first file is a candidate: a small file all about the question
    top = scores[first[0]]
    best: str | None = None
    for path in files[1:1 + CHALLENGERS]:
        ids = by_file[path]
        if scores[ids[0]] >= margin * top and len(ids) >= ratio * len(first):
            if best is None or len(ids) > len(by_file[best]):
                best = path
    if best is None:
        return scores
    ids = by_file[best]
    factor = LEAD * top / scores[ids[0]] if scores[ids[0]] > 0 else 1.0
    out = dict(scores)
    for cid in ids:
        out[cid] = scores[cid] * factor
    return out
