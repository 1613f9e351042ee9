"""Docstring passages: a Python file is not delivered by the middle of a docstring (issue 19,
round 8, "the passage that answers").

A long docstring is split into several chunks; the pieces after the first do not hold the
opening quotes, so :func:`~paqad.search.signals.passage_choice.code_lines` counts their lines
(``auto_refresh (bool, optional): Automatic refresh ...``) as code and the piece is not thin.
Such a piece shares a question's words (it documents the parameters) and wins its file: on
Textualize/rich "how are progress bars refreshed while a task runs" delivered ``wrap_file``'s
``Args:`` list, not the loop that refreshes. Here the file's lines (from the index, by line number:
:attr:`~paqad.search.signals.context.RankingContext.file_lines`) are scanned for triple-quoted
strings (:func:`~paqad.search.signals.docstring_chunks.docstring_lines`), and when a Python file's
best candidate is a docstring piece (:func:`~paqad.search.signals.docstring_chunks.is_docstring_chunk`:
at least 0.8 of its non-blank lines inside a docstring, no definition line, no opening quotes) it
trades scores with the file's best candidate that is neither such a piece nor thin: files keep
their places (a permutation within the file, like ``passage_choice``). A piece holding the
definition of a symbol the query names is not traded (it holds none: pieces have no definition
line), and nothing is traded for a symbol query (its answer is the definition, DESIGN §6).

Runs after ``passage_order`` and before ``passage_choice`` (which then sees code first and leaves
it). Switch: ``RankingOptions.docstring_passages`` (ablation ``no-docstring-passages``). Cost: the
lines of each Python file whose best candidate holds no definition line, read from the index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL
from paqad.search.signals.docstring_chunks import docstring_lines, is_docstring_chunk
from paqad.search.signals.passage_choice import is_thin

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores where each Python file whose best chunk is a docstring piece has traded it for the
    file's best candidate of code (when the file has one among the candidates)."""
    if context.info.kind == SYMBOL or context.file_lines is None:
        return scores
    out = dict(scores)
    for path, ids in context.files_best_first(scores).items():
        best = context.rows[ids[0]]
        if len(ids) < 2 or best.language != "python" or best.defines:  # a piece holds no definition line
            continue
        docstrings = docstring_lines(context.file_lines(path))
        if not is_docstring_chunk(best.start_line, best.text, docstrings):
            continue
        other = next((cid for cid in ids[1:] if not is_thin(context.rows[cid])
                      and not is_docstring_chunk(context.rows[cid].start_line, context.rows[cid].text, docstrings)),
                     None)
        if other is not None:
            out[ids[0]], out[other] = scores[other], scores[ids[0]]
    return out
