"""Path words: a prose query's words that name the chunk's file or its folder multiply its score
by ``1 + path_word_boost x share`` ("thread" -> ``thread.c``; DESIGN §8.4). Not for symbol queries."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL
from paqad.search.priors import path_word_share

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def applies(context: RankingContext) -> bool:
    """Whether the query is prose with words to match (path and symbol words both need that)."""
    return context.info.kind != SYMBOL and bool(context.info.words)


def path_word_shares(context: RankingContext) -> dict[int, float]:
    """Chunk id -> share of the query's words naming its file or folder (none: left out)."""
    if not applies(context):
        return {}
    shares = {cid: path_word_share(context.info.words, row.path) for cid, row in context.rows.items()}
    shares = {cid: share for cid, share in shares.items() if share}
    if shares and context.options.common_path_share < 1.0 and "common_path_words" not in context.options.off:
        from paqad.search.signals.common_path_words import shares_without_common

        shares = shares_without_common(context, shares)
    return shares


def supports(context: RankingContext) -> dict[str, float]:
    """Path -> ``min(1, its candidate chunks / path_word_support)`` for the files of the candidates
    (issue 24, round 11): a file named like the question's words whose one chunk matched is less
    sure than one several of whose chunks did (faraday's ``options/env.rb`` over ``connection.rb``).
    Empty with ``path_word_support`` 0, the default (measured at 3, left off: it lost dev Go and PHP)."""
    need = context.options.path_word_support
    if need <= 0:
        return {}
    counts: dict[str, int] = {}
    for row in context.rows.values():
        counts[row.path] = counts.get(row.path, 0) + 1
    return {path: min(1.0, n / need) for path, n in counts.items()}


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores times ``1 + path_word_boost x share`` (the share x the file's support, :func:`supports`)."""
    out = dict(scores)
    support = supports(context)
    for cid, share in context.path_word_shares.items():
        if support:
            share *= support[context.rows[cid].path]
        out[cid] *= 1.0 + context.options.path_word_boost * share
    return out
