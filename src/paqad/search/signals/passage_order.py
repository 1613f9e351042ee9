"""Passage order: within one file, the chunk that holds the query's words comes first (issue 19,
"the passage that answers").

The fused score of a chunk mixes what is true of its file (path words, priors, a definition boost
for a type the question names, saturation) with what is true of the chunk. For a prose question
the first two decide which file ranks where, but not which of the file's chunks answers: a
question that names ``BytesMut`` lifts the struct's doc comment above ``reserve_inner``, whose
body holds the asked words. So each file's candidate chunks are ordered again by their own
evidence and take the file's scores in that order (a permutation within the file: files keep
their places, file-level figures cannot move).

Evidence of a chunk ``c`` of file ``f``, both terms in [0, 1]: ``score(c) / score(f's best)``
(what every signal so far says, saturation included) + ``passage_bm25_weight`` x
``bm25(c) / max bm25 over f's candidates``. A chunk outside the BM25 pool (its best 100) is not
known to lack the query's words, only to score at most the pool's lowest: it is given that
bound (``passage_bm25_unknown``, 1.0; at 0.0 it counts as holding none, which put a long
prompt's answer, found by the dense side alone, below every neighbour in the pool). Runs before ``passage_choice``, which still trades a thin winner (a doc comment,
imports) for code.

Not for symbol queries. A file whose best chunk defines a name the query holds stays as it is
when the query is a name lookup (:data:`~.passage_choice.MAX_LOOKUP_WORDS` words at most) or the
chunk is a function or method (``what does sign_extend return ...``): there the definition is the
answer (DESIGN §6). A named type's chunk (:data:`TYPE_CHUNKS`) is ordered like any other, except
in a name lookup whose plain word names it (``Validator class``, with ``kind_word_share`` on:
:func:`~.passage_choice.defines_named`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL
from paqad.search.signals.passage_choice import MAX_LOOKUP_WORDS, TYPE_CHUNKS, WORD, defines_named

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def evidence(ids: list[int], scores: dict[int, float], context: RankingContext,
             unknown: float = 0.0) -> dict[int, float]:
    """Chunk id -> its evidence within its file (``ids``: the file's candidates, best first;
    ``unknown``: the BM25 of a candidate outside the lexical pool, :func:`unknown_bm25`)."""
    weight = context.options.passage_bm25_weight
    top = scores[ids[0]] or 1.0
    bm25 = {cid: context.bm25.get(cid, unknown) for cid in ids}
    top_bm25 = max(bm25.values(), default=0.0) or 1.0
    return {cid: scores[cid] / top + weight * bm25[cid] / top_bm25 for cid in ids}


def unknown_bm25(context: RankingContext) -> float:
    """The BM25 given to a candidate outside the lexical pool: ``passage_bm25_unknown`` x the
    pool's lowest score when the pool is full (it holds the best ``RankingOptions.pool_depth``, so
    a chunk outside it scores at most that), else 0.0 (a pool that is not full holds every chunk
    with a query term)."""
    if len(context.bm25) < context.options.pool_depth:
        return 0.0
    return context.options.passage_bm25_unknown * min(context.bm25.values(), default=0.0)


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores permuted within each file so its chunks rank by their :func:`evidence`."""
    if context.info.kind == SYMBOL:
        return scores
    lookup = len(context.info.text.split()) <= MAX_LOOKUP_WORDS
    defines = context.definition_shares if context.options.symbols else {}
    by_file = context.files_best_first(scores)
    out = dict(scores)
    unknown = unknown_bm25(context)
    words = {w.lower() for w in WORD.findall(context.info.text)} if lookup and context.options.kind_word_share > 0 else set()
    for ids in by_file.values():
        best = context.rows[ids[0]]
        if len(ids) < 2 or (defines.get(ids[0], 0.0) > 0 and (lookup or best.kind not in TYPE_CHUNKS)):
            continue
        if words and defines_named(best, words):  # `Validator class`: the type's own chunk (kind words)
            continue
        value = evidence(ids, scores, context, unknown)
        place = {cid: i for i, cid in enumerate(ids)}  # ties keep the file's order
        for slot, cid in zip(ids, sorted(ids, key=lambda c: (-value[c], place[c]))):
            out[cid] = scores[slot]
    return out
