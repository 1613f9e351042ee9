"""Docstring chunks in a pasted report (issue 24, round 6): a Python facade module documents
the whole API in its docstrings (loguru's ``Logger.add`` explains rotation, retention and
sinks in 400 lines), so a bug report's prose matches the facade's docstring chunks better than
the implementation module the fix changes (``_file_sink.py``). A chunk inside a docstring that
does not hold its opening quotes is counted as code by ``passage_choice.code_lines``; here the
file's lines (from the index, by line number) are scanned for triple-quoted strings, and in a
long prompt a Python chunk whose non-blank lines are at least :data:`DOCSTRING_SHARE` docstring
lines is multiplied by ``docstring_prior``, unless the prompt names its file.

Switch: ``RankingOptions.docstring_prior`` (1.0 = off; ablation ``with-docstring-chunks``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

DOCSTRING_SHARE = 0.8
_QUOTES = re.compile(r'"""|\'\'\'')
_OPENS = re.compile(r'^[rRbBuUfF]{0,2}("""|\'\'\')')
_DEFINES = re.compile(r"^(async\s+def|def|class)\s")


def docstring_lines(lines: Mapping[int, str]) -> frozenset[int]:
    """Numbers of the lines of a Python file (line number -> text) that are inside a
    triple-quoted string or start one (``\"\"\"Doc...``): docstrings, and string blocks in code."""
    out: set[int] = set()
    inside: str | None = None
    for number in sorted(lines):
        line = lines[number]
        if inside is not None:
            out.add(number)
            if line.count(inside) % 2 == 1:
                inside = None
            continue
        marks = _QUOTES.findall(line)
        if _OPENS.match(line.strip()):
            out.add(number)
        for quote in ('"""', "'''"):
            if marks.count(quote) % 2 == 1:
                inside = quote
                break
    return frozenset(out)


def is_docstring_chunk(start_line: int, text: str, docstrings: frozenset[int]) -> bool:
    """True when at least :data:`DOCSTRING_SHARE` of the chunk's non-blank lines are docstring lines
    and none is a definition line or opens the docstring: a piece of a docstring's middle, not a
    function with its own documentation."""
    lines = [(start_line + i, line.strip()) for i, line in enumerate(text.split("\n")) if line.strip()]
    if not lines or any(_DEFINES.match(line) or _OPENS.match(line) for _, line in lines):
        return False
    return sum(1 for n, _ in lines if n in docstrings) >= DOCSTRING_SHARE * len(lines)


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores x ``docstring_prior`` for the docstring chunks of Python files (long prompts only)."""
    if not context.info.long or context.file_lines is None:
        return scores
    maps: dict[str, frozenset[int]] = {}
    out = dict(scores)
    for cid in scores:
        row = context.rows[cid]
        if row.language != "python" or row.path in context.named_paths:
            continue
        if row.path not in maps:
            maps[row.path] = docstring_lines(context.file_lines(row.path))
        if is_docstring_chunk(row.start_line, row.text, maps[row.path]):
            out[cid] *= context.options.docstring_prior
    return out
