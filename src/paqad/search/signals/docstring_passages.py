"""Docstring passages: a Python file is not delivered by the middle of a docstring (issue 19,
round 8, "the passage that answers").

A long docstring is split into several chunks; the pieces after the first do not hold the
opening quotes, so :func:`~paqad.search.signals.passage_choice.code_lines` counts their lines
(``auto_refresh (bool, optional): Automatic refresh ...``) as code and the piece is not thin.
Such a piece shares a question's words (it documents the parameters) and wins its file, or is
what ``passage_choice`` trades a thin definition head for: on Textualize/rich "how are progress
bars refreshed while a task runs" delivered ``wrap_file``'s ``Args:`` list, not the loop that
refreshes. :func:`piece_test` tells them apart with the file's lines (from the index, by line
number: :attr:`~paqad.search.signals.context.RankingContext.file_lines`), scanned for
triple-quoted strings (:func:`~paqad.search.signals.docstring_chunks.docstring_lines`): a piece is
a Python chunk without a definition line whose non-blank lines are at least 0.8 docstring lines
and that does not open the docstring
(:func:`~paqad.search.signals.docstring_chunks.is_docstring_chunk`).

Not a pipeline step of its own: ``passage_choice`` counts a piece as thin (so a file's piece is
traded for its code, and a thin head is never traded for a piece) when
``RankingOptions.docstring_passages`` is on (ablation ``no-docstring-passages``). Cost: the lines of
each Python file whose thin best chunk or first chunks are tested, read from the index once per
query.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from paqad.search.signals.docstring_chunks import docstring_lines, is_docstring_chunk

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext


def piece_test(context: RankingContext) -> Callable[[int], bool]:
    """A test of one candidate's chunk id: True when it is a piece of a Python docstring's middle
    (always False when the index's file lines are not known). Each file's lines are read and
    scanned once, on the first test of one of its chunks."""
    if context.file_lines is None:
        return lambda cid: False
    maps: dict[str, frozenset[int]] = {}

    def is_piece(cid: int) -> bool:
        row = context.rows[cid]
        if row.language != "python" or row.defines:  # a piece holds no definition line
            return False
        if row.path not in maps:
            maps[row.path] = docstring_lines(context.file_lines(row.path))
        return is_docstring_chunk(row.start_line, row.text, maps[row.path])

    return is_piece
