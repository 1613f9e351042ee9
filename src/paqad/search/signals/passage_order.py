"""Passage order: within one file, the chunk that holds the query's words comes first (issue 19,
"the passage that answers").

The fused score of a chunk mixes what is true of its file (path words, priors, a definition boost
for a type the question names, saturation) with what is true of the chunk. For a prose question
the first two decide which file ranks where, but not which of the file's chunks answers: a
question that names ``BytesMut`` lifts the struct's doc comment above ``reserve_inner``, whose
body holds the asked words. So each file's candidate chunks are ordered again by their own
evidence and take the file's scores in that order (a permutation within the file: files keep
their places, file-level figures cannot move).

Evidence of a chunk ``c`` of file ``f`` (each term in [0, 1] but the last):
``final(c) / final(f's best)`` + ``passage_bm25_weight`` x ``bm25(c) / bm25(f's best)`` +
``passage_symbol_weight`` x the share of the query's words naming parts of ``c``'s symbol −
``passage_thin_weight`` when ``c`` is a thin passage (:func:`~.passage_choice.is_thin`).

Not for symbol queries, and a file whose best chunk defines a name of a short query (a name
lookup, :data:`~.passage_choice.MAX_LOOKUP_WORDS` words) is left as it is: a lookup lands on the
definition line (DESIGN §6).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL
from paqad.search.priors import symbol_word_share
from paqad.search.signals.passage_choice import MAX_LOOKUP_WORDS, is_thin

# Chunk kinds of a type's definition (its doc comment, fields, the head of its impl): a question
# that names the type asks what it does, which its methods hold.
TYPE_CHUNKS = frozenset({"class", "impl"})

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def evidence(ids: list[int], scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Chunk id -> its evidence within its file (``ids``: the file's candidates, best first)."""
    options = context.options
    top = scores[ids[0]] or 1.0
    top_bm25 = max((context.bm25.get(cid, 0.0) for cid in ids), default=0.0) or 1.0
    out = {}
    for cid in ids:
        row = context.rows[cid]
        value = scores[cid] / top + options.passage_bm25_weight * context.bm25.get(cid, 0.0) / top_bm25
        if options.passage_symbol_weight and row.symbol:
            value += options.passage_symbol_weight * symbol_word_share(context.info.words, row.symbol)
        if options.passage_thin_weight and is_thin(row):
            value -= options.passage_thin_weight
        out[cid] = value
    return out


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores permuted within each file so its chunks rank by their :func:`evidence`."""
    if context.info.kind == SYMBOL:
        return scores
    lookup = len(context.info.text.split()) <= MAX_LOOKUP_WORDS
    defines = context.definition_shares if context.options.symbols else {}
    by_file: dict[str, list[int]] = {}
    for cid in sorted(scores, key=lambda c: (-scores[c], c)):
        by_file.setdefault(context.rows[cid].path, []).append(cid)
    out = dict(scores)
    for ids in by_file.values():
        if len(ids) < 2 or (defines.get(ids[0], 0.0) > 0 and (lookup or context.rows[ids[0]].kind not in TYPE_CHUNKS)):
            continue
        value = evidence(ids, scores, context)
        for slot, cid in zip(ids, sorted(ids, key=lambda c: (-value[c], ids.index(c)))):
            out[cid] = scores[slot]
    return out
