"""Cut a project file into chunks at natural boundaries (DESIGN §6).

One job: text of one file in, ordered list of :class:`Chunk` out. Nothing here reads the disk.

How a file is cut, by language (:func:`paqad.index.languages.language_for_path`):

* Source code (:data:`~paqad.index.languages.SOURCE_LANGUAGES`) is parsed with the language's
  tree-sitter grammar. Each top-level function, class, impl block (and Go method) is a chunk,
  with the comments, decorators and attributes directly above it. Consecutive top-level
  statements (imports, constants, calls) form one ``module`` chunk. A class over the budget is
  cut into its header-and-fields chunk (symbol ``Class``) and one chunk per method (symbol
  ``Class.method``); a function over the budget is cut at statement boundaries (else line
  windows) and every part keeps the function's symbol and signature. The part that holds the
  definition line always holds the start of the body too (never a signature alone): when the
  comments above a definition fill the budget they become parts of their own, and the statement
  after a lone signature is cut into lines so its first lines join it. Each chunk records
  whether it holds its symbol's definition line (``Chunk.defines``) and every symbol whose
  definition line it holds (``Chunk.definitions``), which the index's symbol table is built from.
* Markdown is cut at headings (symbol is the heading path, ``Install > From source``), YAML and
  JSON at top-level keys, TOML at tables, other text at blank-line paragraphs.

Merging small neighbours: consecutive tiny definitions of the same scope (each under
``max_chars // 8`` characters, e.g. getters or one-line functions) are merged while the result
fits the budget; such a merged chunk has ``kind="block"``, no signature, and the symbol of the
enclosing scope (``Class`` for methods of one class, ``None`` at module level), so it never
names only one of the functions it holds. A lone closing bracket or ``end`` joins the chunk
above it, and the header of a split class (``impl Foo {`` with nothing but brackets below its
line) joins its first member, up to ``HEADER_OVERFLOW_CHARS`` over the budget if it must. A Markdown heading with little text of its own (under ``max_chars // 4``) takes its
subsections into its chunk while the whole fits; the symbol stays that heading's path.
Tiny glue (under ``max_chars // 8``: a module docstring, a short import block, one constant,
the comments above a data file's first key) joins the next chunk, or the previous one at the
end of the file or of a split class, when the result fits; the chunk keeps that neighbour's
symbol, kind and signature. Glue never leaves its class this way, glue that starts with a
closing bracket joins the chunk above first, and TOML keys above the first table are not glue.

Guarantees: chunks are in line order and do not overlap; every non-blank line of the file is
in exactly one chunk (blank lines at chunk edges are dropped); ``text`` is exactly the lines
``start_line..end_line`` joined with ``"\\n"``; output is deterministic for a given file text
and chunker version. Lines are split on ``"\\n"`` only (the way tree-sitter counts rows) and a
trailing ``"\\r"`` is dropped, so CRLF files chunk like LF files. A file whose parse fails,
exceeds :data:`MAX_PARSE_BYTES`, takes longer than :data:`PARSE_TIMEOUT_SECONDS`, or nests
deeper than :data:`MAX_DEPTH` falls back to line windows (``kind="window"``); parse errors
inside the tree (ERROR nodes) are chunked as well as they can be. :func:`chunk_file` never
raises.
"""

from __future__ import annotations

import logging

from paqad.index.chunking.chunk import (
    CHUNKER_VERSION, KINDS, MAX_CHUNK_CHARS, SIGNATURE_MAX_CHARS, SYMBOL_PART_MAX_CHARS, Chunk, dense_text, keyword_text,
)
from paqad.index.chunking.code import MAX_DEPTH, MAX_PARSE_BYTES, PARSE_TIMEOUT_SECONDS, CodeCutter
from paqad.index.chunking.components import component_spans, is_component
from paqad.index.chunking.data import json_spans, toml_spans, yaml_spans
from paqad.index.chunking.markup import markdown_spans
from paqad.index.chunking.packing import HEADER_OVERFLOW_CHARS, Fallback, Lines, Span, finish, text_spans, window_spans
from paqad.index.languages import SOURCE_LANGUAGES, language_for_file, language_for_shebang

__all__ = [
    "CHUNKER_VERSION", "HEADER_OVERFLOW_CHARS", "KINDS", "MAX_CHUNK_CHARS", "MAX_DEPTH", "MAX_PARSE_BYTES", "PARSE_TIMEOUT_SECONDS",
    "SIGNATURE_MAX_CHARS", "SYMBOL_PART_MAX_CHARS", "Chunk", "chunk_file", "dense_text", "keyword_text",
]

_log = logging.getLogger(__name__)


def chunk_file(
    path: str, text: str, language: str | None = None, *, max_chars: int = MAX_CHUNK_CHARS
) -> list[Chunk]:
    """Cut ``text`` (the whole content of the file at project-relative ``path``) into chunks.

    ``language`` overrides detection from the path (and from a ``#!`` line for files with no
    known extension). ``max_chars`` is the budget of one chunk's text in characters; a chunk
    is longer only when one of its lines alone is, or by at most ``HEADER_OVERFLOW_CHARS`` (and a
    quarter of the budget) when a split class's header line opens its first member. Returns chunks in line order, ``[]`` for a file
    with no non-blank line. Never raises: any failure to cut a file at natural boundaries
    gives line windows.
    """
    path = path.replace("\\", "/")
    lines = Lines(text)
    if language is None:
        language = language_for_file(path, text)
        if language == "text" and lines.lines and lines.lines[0].startswith("#!"):
            language = language_for_shebang(lines.lines[0]) or "text"
    if not any(line.strip() for line in lines.lines):
        return []
    budget = max(1, max_chars)
    try:
        spans = finish(_spans_for(language, text, lines, budget, path), lines, budget)
    except Fallback:
        spans = None
    except Exception:  # noqa: BLE001 - one odd file must never stop an index build
        _log.debug("chunking %s failed, using line windows", path, exc_info=True)
        spans = None
    if spans is None:
        spans = finish(window_spans(lines, budget), lines, budget) or []
    chunks = []
    for span in spans:
        named = [(symbol, row) for symbol, row in span.defined if span.lo <= row <= span.hi]
        chunks.append(Chunk(
            path=path,
            start_line=span.lo + 1,
            end_line=span.hi + 1,
            language=language,
            symbol=span.symbol,
            kind=span.kind,
            signature=span.signature,
            text=lines.text(span.lo, span.hi),
            defines=span.name_row is not None and span.lo <= span.name_row <= span.hi,
            definitions=tuple(dict.fromkeys(symbol for symbol, _ in named)),
        ))
    return chunks


def _spans_for(language: str, text: str, lines: Lines, budget: int, path: str) -> list[Span]:
    if language in SOURCE_LANGUAGES:
        if is_component(language):  # Vue, Svelte: the scripts by their own cutter, the template as text
            return component_spans(language, text, lines, budget, path)
        return CodeCutter(language, text, lines, budget, path).spans()
    if language == "markdown":
        return markdown_spans(lines, budget)
    if language == "yaml":
        return yaml_spans(lines, budget)
    if language == "json":
        return json_spans(lines, budget)
    if language == "toml":
        return toml_spans(lines, budget)
    return text_spans(lines, budget)

