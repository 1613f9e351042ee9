"""Single-file components (Vue ``.vue``, Svelte ``.svelte``): a template around a script.

The component's own grammar (tree-sitter-language-pack) finds each ``<script>`` element's text
(the data file's ``@script`` captures, with the element's ``@tag``); that text is cut by the
script's own cutter (the ``script:`` header's language, or TypeScript for ``lang="ts"``) as if
the rest of the file were blank, so its functions, classes and constants are chunks and symbols
with the file's own line numbers. The template and the styles around the scripts are cut at
blank-line paragraphs, as text, and tiny pieces (``<script setup>`` alone) join a neighbour.
"""

from __future__ import annotations

import re
from paqad.index.chunking.code import QUERY_READ_BYTES, CodeCutter, _parse
from paqad.index.chunking.grammar_load import definition_query
from paqad.index.chunking.packing import Lines, Span, pack, paragraph_atoms
from paqad.index.grammar_files import grammar_files

# a <script> element's `lang` attribute -> the language its text is cut as
SCRIPT_LANGS = {"ts": "typescript", "typescript": "typescript", "tsx": "tsx", "js": "javascript",
                "javascript": "javascript", "jsx": "javascript"}
_LANG = re.compile(rb"""\blang\s*=\s*["']?([A-Za-z]+)""")


def _scripts(language: str, data: bytes) -> list[tuple[int, int, str]]:
    """``(start byte, end byte, script language)`` of each ``<script>`` element's text, in order."""
    from tree_sitter import QueryCursor

    tree = _parse(language, data, QUERY_READ_BYTES)
    default = grammar_files()[language].script
    found: dict[int, tuple[int, int, str]] = {}
    for _, captures in QueryCursor(definition_query(language)).matches(tree.root_node):
        for node in captures.get("script", ()):
            tags = captures.get("tag", ())
            lang = _LANG.search(data[tags[0].start_byte:tags[0].end_byte]) if tags else None
            script = SCRIPT_LANGS.get(lang.group(1).decode().lower(), default) if lang else default
            found[node.start_byte] = (node.start_byte, node.end_byte, script)
    return [found[start] for start in sorted(found)]


def _masked(data: bytes, start: int, end: int) -> str:
    """The file's text with every byte outside ``start..end`` blank but its newlines kept, so a
    cutter of the script sees the file's rows."""
    blank = re.sub(rb"[^\n]", b" ", data[:start]), re.sub(rb"[^\n]", b" ", data[end:])
    return (blank[0] + data[start:end] + blank[1]).decode("utf-8", "surrogateescape")


def component_spans(language: str, text: str, lines: Lines, budget: int, path: str) -> list[Span]:
    """Spans of a single-file component: its scripts' definitions (their cutter's spans), the rest
    as paragraphs; raises :class:`~paqad.index.chunking.packing.Fallback` as the cutters do."""
    data = text.encode("utf-8", "surrogateescape")
    spans: list[Span] = []
    for number, (start, end, script) in enumerate(_scripts(language, data)):
        masked = _masked(data, start, end)
        for span in CodeCutter(script, masked, Lines(masked), budget, path).spans():
            span.scope = (number, span.scope)  # two scripts' levels never merge
            spans.append(span)
    covered = [False] * len(lines)
    for span in spans:
        covered[span.lo:span.hi + 1] = [True] * (span.hi - span.lo + 1)
    row = 0
    while row < len(lines):  # the template and styles: each run of rows no script span holds
        if covered[row]:
            row += 1
            continue
        end = row
        while end + 1 < len(lines) and not covered[end + 1]:
            end += 1
        atoms = paragraph_atoms(lines, row, end, budget)
        spans.extend(Span(lo, hi, None, "block", scope=("markup", row), glue=True) for lo, hi in pack(atoms, lines, budget))
        row = end + 1
    return sorted(spans, key=lambda s: s.lo)


def is_component(language: str) -> bool:
    """Whether ``language`` is a single-file component language (its data file names a script)."""
    data = grammar_files().get(language)
    return data is not None and bool(data.script)

