"""A facade's delegate in a pasted report (issue 24, round 7): a Python package's public module
often documents and forwards what a sibling module implements (attrs' ``_next_gen.field`` calls
``_make.attrib``; loguru's ``Logger.add`` explains rotation in its docstring and builds a
``FileSink`` of ``_file_sink.py``). A bug report's prose then matches the facade (its docstring, its
signature) best, while the fix changes the sibling module the facade calls.

In a long prompt whose leading file is Python, its best chunk's enclosing function is read from
the index (``RankingContext.file_lines``: the function's lines, found by indentation). When that
function only forwards (at most :data:`THIN_LINES` statements besides its signature and
docstring), or the chunk that leads is a piece of its docstring's middle
(:func:`~paqad.search.signals.docstring_chunks.is_docstring_chunk`: the report matched its
documentation, not its code), the candidates of a **sibling module** (same folder, not a test)
that define a name the function calls (a forwarder: the name its ``return`` calls) are its
delegates: the best chunk of the best-scored one is raised to ``delegate_share`` x the leading
chunk's score, the others' best chunks in proportion to their own scores (so the delegates keep
their order among themselves; a score is kept when higher). A prompt naming the leading file
keeps it first. (Raising only the best delegate, dev: tomlkit MRR 0.563 / R@5 78.6 against
0.573 / 85.7 for all of them; the other projects equal.)

Switch: ``RankingOptions.delegate_share`` (default 1.05; 0.0 = off, ablation ``no-delegates``).
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Mapping

from paqad.index.tokens import NAME
from paqad.search.priors import is_test_path
from paqad.search.signals.docstring_chunks import docstring_lines, is_docstring_chunk

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# a forwarding function: at most this many statements beside its signature and docstring
# (attrs' _next_gen.field: 3, the last returning attrib(...); loguru's Logger.add: over 100, not a forwarder)
THIN_LINES = 8
# how far the enclosing definition is looked for above the chunk, and how long it may be, in lines
MAX_SCAN = 800
_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)")
_CALL = re.compile(rf"\b({NAME})\s*\(")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def enclosing_function(lines: Mapping[int, str], line: int) -> tuple[int, int, str] | None:
    """``(first line, last line, name)`` of the innermost ``def`` whose body holds ``line`` in a
    Python file (line number -> text, 1-based), or None (module level, or not found within
    :data:`MAX_SCAN` lines). The body ends before the next non-blank line indented no deeper than
    the ``def`` line."""
    here = lines.get(line, "")
    depth = _indent(here) if here.strip() else 1 << 30
    start = None
    for number in range(line, max(0, line - MAX_SCAN), -1):
        text = lines.get(number)
        if text is None:
            continue
        found = _DEF.match(text)
        if found and (number == line or len(found.group(1)) < depth):
            start, indent, name = number, len(found.group(1)), found.group(2)
            break
        if text.strip() and number != line and not text.lstrip().startswith((")", "]", "}")):
            depth = min(depth, _indent(text))  # a multi-line signature's closing "):" is not a block
    if start is None:
        return None
    end = start
    for number in range(start + 1, start + MAX_SCAN):
        text = lines.get(number)
        if text is None:
            if number > max(lines, default=0):
                break
            continue
        if text.strip() and _indent(text) <= indent and not text.lstrip().startswith((")", "#")):
            break
        if text.strip():
            end = number  # the last line of the body (not the blank lines after it)
    return start, end, name


def body_calls(lines: Mapping[int, str], start: int, end: int,
               docstrings: frozenset[int]) -> tuple[frozenset[str], frozenset[str], int]:
    """(names the function's code calls, names its ``return`` statements call, its count of statements):
    the lines ``start..end`` after the signature (up to the line ending in ``:``) without docstring
    lines, comments or blanks."""
    number = start
    while number <= end and not lines.get(number, "").rstrip().endswith(":"):
        number += 1
    calls: set[str] = set()
    returned: set[str] = set()
    count = depth = 0
    for n in range(number + 1, end + 1):
        code = lines.get(n, "").split("#", 1)[0].strip()
        if not code or n in docstrings:
            continue
        count += depth == 0  # a statement, not a continuation line of one (a call's arguments)
        names = [m.group(1) for m in _CALL.finditer(code)]
        calls.update(names)
        if depth == 0 and code.startswith("return ") and names:
            returned.add(names[0])
        depth = max(0, depth + sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}"))
    return frozenset(calls), frozenset(returned), count


def defines(text: str, names: frozenset[str]) -> bool:
    """True when a Python file's text defines one of ``names`` at its top level or in a class
    (``def name``, ``class name``, ``name = ...``)."""
    return any(re.search(rf"^\s*(?:(?:async\s+)?def|class)\s+{re.escape(n)}\b|^{re.escape(n)}\s*[:=]", text, re.M)
               for n in names)


def _implementation(path: str) -> bool:
    """A Python module that may implement (not a stub, not a test)."""
    return path.endswith(".py") and not is_test_path(path)


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with the leading facade's delegates raised over it (long prompts, Python only)."""
    if not context.info.long or context.file_lines is None or context.file_text is None or not scores:
        return scores
    by_file = context.files_best_first(scores)
    lead_path, lead_ids = next(iter(by_file.items()))
    lead = context.rows[lead_ids[0]]
    if not _implementation(lead_path) or lead_path in context.named_paths:
        return scores
    lines = context.file_lines(lead_path)
    found = enclosing_function(lines, lead.start_line)
    if found is None:
        return scores
    start, end, name = found
    docstrings = docstring_lines(lines)
    calls, returned, count = body_calls(lines, start, end, docstrings)
    if is_docstring_chunk(lead.start_line, lead.text, docstrings):
        wanted = calls  # the report matched the facade's documentation: any module its code calls
    elif count <= THIN_LINES:
        wanted = returned  # a forwarder: the module whose function it returns
    else:
        return scores
    wanted = frozenset(n for n in wanted if n != name and len(n) >= 3)
    if not wanted:
        return scores
    folder = posixpath.dirname(lead_path)
    found = [ids[0] for path, ids in by_file.items()  # best-scored sibling first
             if path != lead_path and posixpath.dirname(path) == folder and _implementation(path)
             and defines(context.file_text(path), wanted)]
    if not found:
        return scores
    out = dict(scores)
    top = context.options.delegate_share * scores[lead_ids[0]]
    for cid in found:  # every delegate over the facade, in their own order
        out[cid] = max(scores[cid], top * scores[cid] / scores[found[0]])
    return out
