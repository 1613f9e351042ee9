"""Symbol words: a prose query's words that name parts of the chunk's symbol multiply its score by
``1 + symbol_word_boost x share`` ("how is the retry delay calculated" -> ``calculateRetryDelay``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.search.priors import symbol_word_share
from paqad.search.signals.namespace_symbols import namespace_names
from paqad.search.signals.path_words import applies

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores times ``1 + symbol_word_boost x share`` for chunks with a symbol (none for a C++
    namespace's name with ``namespace_symbols`` on: signals.namespace_symbols)."""
    boost = context.options.symbol_word_boost
    if not boost or not applies(context):
        return scores
    shares = {cid: symbol_word_share(context.info.words, row.symbol)
              for cid, row in context.rows.items() if row.symbol}
    shares = {cid: share for cid, share in shares.items() if share}
    if shares and context.options.namespace_symbols and "namespace_symbols" not in context.options.off:
        namespaces = namespace_names(context, shares)
        shares = {cid: share for cid, share in shares.items() if context.rows[cid].symbol not in namespaces}
    out = dict(scores)
    for cid, share in shares.items():
        out[cid] *= 1.0 + boost * share
    return out
