"""File support for prose questions (issue 24, round 6): a file's rank is its best chunk's score
plus a share of its second-best chunk's, so a file that answers the question in two places ranks
above a file with one matching chunk.

The ranking orders files by their best chunk (saturation only discounts a file's later chunks).
A question about how the library does something is often answered by a file with several
relevant chunks (the close handshake in ``websocket.js``: the frame sent, the timer, the socket
destroyed), while a sibling with one chunk that repeats the question's words wins by a hair
(``stream.js``). Every chunk of a file gains ``file_support`` x the score of the file's second
best candidate (the same amount for each, so the order within the file is kept), before
saturation. Only the second chunk counts: the first release's coherence (the sum of every
sibling) lifted large central files that mention everything and was measured off; dev also
lost with a share of the mean of the 2nd and 3rd (Rust). Symbol queries (one identifier) are
left alone: their answer is one definition. ``0.0`` = off, the default: measured at 0.1, it
gained curated dev (where, architecture, 7 languages, none lost) but lost git-mined dev C++ and
Python and test symbol questions, def@1, C and C++ (bench/README.md "Round 6: file level of prose
questions"), so it is left off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores (chunk id -> score) with each chunk raised by ``file_support`` x its file's
    second-best score (files with one candidate unchanged); a symbol query's scores as given."""
    share = context.options.file_support
    if context.info.kind == SYMBOL or share <= 0.0:
        return scores
    by_file = context.files_best_first(scores)
    out = dict(scores)
    for ids in by_file.values():
        if len(ids) > 1:
            bonus = share * scores[ids[1]]
            for cid in ids:
                out[cid] = scores[cid] + bonus
    return out
