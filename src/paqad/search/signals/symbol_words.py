"""Symbol words: a prose query's words that name parts of the chunk's symbol multiply its score by
``1 + symbol_word_boost x share`` ("how is the retry delay calculated" -> ``calculateRetryDelay``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.search.priors import symbol_word_share
from paqad.search.signals.path_words import applies

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores times ``1 + symbol_word_boost x share`` for chunks with a symbol."""
    boost = context.options.symbol_word_boost
    if not boost or not applies(context):
        return scores
    out = dict(scores)
    for cid, row in context.rows.items():
        if row.symbol:
            named = symbol_word_share(context.info.words, row.symbol)
            if named:
                out[cid] *= 1.0 + boost * named
    return out
