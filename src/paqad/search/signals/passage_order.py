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
``bm25(c) / max bm25 over f's candidates`` (0 for a chunk outside the BM25 pool). Runs before
``passage_choice``, which still trades a thin winner (a doc comment, imports) for code.

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
from paqad.search.signals.passage_choice import MAX_LOOKUP_WORDS, WORD, defines_named

# Chunk kinds of a type's definition (its doc comment, fields, the head of its impl): a question
# that names the type asks what it does, which its methods hold.
TYPE_CHUNKS = frozenset({"class", "impl"})

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def evidence(ids: list[int], scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Chunk id -> its evidence within its file (``ids``: the file's candidates, best first)."""
    weight = context.options.passage_bm25_weight
    top = scores[ids[0]] or 1.0
    top_bm25 = max((context.bm25.get(cid, 0.0) for cid in ids), default=0.0) or 1.0
    return {cid: scores[cid] / top + weight * context.bm25.get(cid, 0.0) / top_bm25 for cid in ids}


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
    words = {w.lower() for w in WORD.findall(context.info.text)} if lookup and context.options.kind_word_share > 0 else set()
    for ids in by_file.values():
        best = context.rows[ids[0]]
        if len(ids) < 2 or (defines.get(ids[0], 0.0) > 0 and (lookup or best.kind not in TYPE_CHUNKS)):
            continue
        if words and defines_named(best, words):  # `Validator class`: the type's own chunk (kind words)
            continue
        value = evidence(ids, scores, context)
        place = {cid: i for i, cid in enumerate(ids)}  # ties keep the file's order
        for slot, cid in zip(ids, sorted(ids, key=lambda c: (-value[c], place[c]))):
            out[cid] = scores[slot]
    return out
