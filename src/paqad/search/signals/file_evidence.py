"""Close calls settled by a file's evidence (issue 24, round 11): a question's first file is
challenged by a runner-up that scores nearly as well and that many more of the pools' candidates
come from.

In most dev where/architecture misses a sibling file is first and the file that answers ranks 2-5
(bench/README.md "Round 10: prose questions"): the ranking orders files by their best chunk alone,
and a small file whose one or two chunks repeat the question's words (glog's ``raw_logging.cc``,
faraday's ``options/env.rb``) edges out the file several of whose chunks the pools hold
(``logging.cc``, ``connection.rb``). Summing the siblings (coherence) or adding the second-best
chunk (file_support) lifted large central files everywhere and lost languages (rounds 5, 6, 8);
this acts only on a close call at the top: among files 2 to :data:`CHALLENGERS` + 1, one whose
best score is at least ``evidence_margin`` x the first file's and whose candidate chunks number at
least ``evidence_ratio`` x the first file's (the most such candidates wins) is raised just above
the first file (every chunk of it x the same factor, so its own order is kept). A first file two
thirds or more of whose indexed chunks are candidates (:data:`COVERED`: a small file all about the
question, bytes' ``serde.rs`` 5 of 5, logrus' ``alt_exit.go`` 5 of 7) yields only to a file
covered as fully. Only questions (:func:`~paqad.search.fusion.asks_question`): symbol queries,
long prompts and statements (commit messages: the git-mined set lost C++ and PHP cases to the
rule) are left alone. ``evidence_margin`` 0.0 = off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL
from paqad.search.fusion import asks_question

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

CHALLENGERS = 4  # runner-up files that may challenge the first (files 2-5)
LEAD = 1.05  # the challenger's best chunk is raised to this x the first file's best score
# a held file with this share of its chunks among the candidates yields only to a file covered as fully
COVERED = 2 / 3


def _coverage(context: RankingContext, path: str, candidates: int) -> float:
    """Share of ``path``'s indexed chunks that are candidates (0.0 when its chunk count is unknown)."""
    chunks = context.file_chunks.get(path, 0)
    return min(1.0, candidates / chunks) if chunks else 0.0


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with the close calls at the first ``evidence_depth`` places settled for the file with more
    candidates (see the module)."""
    info = context.info
    if context.options.evidence_margin <= 0.0 or info.kind == SYMBOL or info.long or not scores \
            or not asks_question(info):
        return scores
    out = scores
    for place in range(max(1, context.options.evidence_depth)):
        out = _settle(out, context, place)
    return out


def _settle(scores: dict[int, float], context: RankingContext, place: int) -> dict[int, float]:
    """``scores`` with the close call at file ``place`` (0-based) settled: the challenger among the next
    :data:`CHALLENGERS` files with the most candidates, raised to :data:`LEAD` x the held file's best score
    (at a later place: halfway between it and the file above)."""
    margin, ratio = context.options.evidence_margin, context.options.evidence_ratio
    by_file = context.files_best_first(scores)
    files = list(by_file)
    if len(files) < place + 2:
        return scores
    held = by_file[files[place]]
    held_cover = _coverage(context, files[place], len(held))
    top = scores[held[0]]
    best: str | None = None
    for path in files[place + 1:place + 1 + CHALLENGERS]:
        ids = by_file[path]
        if held_cover >= COVERED and _coverage(context, path, len(ids)) < held_cover:
            continue  # most of the held file is a candidate: a small file about the question keeps its place
        if scores[ids[0]] >= margin * top and len(ids) >= ratio * len(held):
            if best is None or len(ids) > len(by_file[best]):
                best = path
    if best is None:
        return scores
    ids = by_file[best]
    # raised just above the held file, and below the file above it (a later place keeps the earlier ones)
    target = LEAD * top if place == 0 else (top + scores[by_file[files[place - 1]][0]]) / 2
    factor = target / scores[ids[0]] if scores[ids[0]] > 0 else 1.0
    out = dict(scores)
    for cid in ids:
        out[cid] = scores[cid] * factor
    return out
