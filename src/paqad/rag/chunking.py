"""Cut a project file into chunks at natural boundaries (DESIGN §6).

One job: text of one file in, ordered list of :class:`Chunk` out. Nothing here reads the disk.

How a file is cut, by language (:func:`paqad.rag.languages.language_for_path`):

* Source code (:data:`~paqad.rag.languages.SOURCE_LANGUAGES`) is parsed with the language's
  tree-sitter grammar. Each top-level function, class, impl block (and Go method) is a chunk,
  with the comments, decorators and attributes directly above it. Consecutive top-level
  statements (imports, constants, calls) form one ``module`` chunk. A class over the budget is
  cut into its header-and-fields chunk (symbol ``Class``) and one chunk per method (symbol
  ``Class.method``); a function over the budget is cut at statement boundaries (else line
  windows) and every part keeps the function's symbol and signature.
* Markdown is cut at headings (symbol is the heading path, ``Install > From source``), YAML and
  JSON at top-level keys, TOML at tables, other text at blank-line paragraphs.

Merging small neighbours: consecutive tiny definitions of the same scope (each under
``max_chars // 8`` characters, e.g. getters or one-line functions) are merged while the result
fits the budget; such a merged chunk has ``kind="block"``, no signature, and the symbol of the
enclosing scope (``Class`` for methods of one class, ``None`` at module level), so it never
names only one of the functions it holds. A lone closing bracket or ``end`` joins the chunk
above it, and the one-line header of a split class (``impl Foo {``) joins its first member. A Markdown heading with little text of its own (under ``max_chars // 4``) takes its
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

import hashlib
import importlib
import json
import logging
import re
import threading
import time
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterator, Sequence

from paqad.rag.languages import SOURCE_LANGUAGES, language_for_path, language_for_shebang

# Bump whenever chunk boundaries, symbols, kinds, signatures, dense_text or keyword_text could change:
# the index records it and rebuilds when it differs (DESIGN §6).
CHUNKER_VERSION = "3"

# Budget for chunk.text, in characters. all-MiniLM-L6-v2 reads 256 word pieces (model card,
# max_seq_length 256). Measured with its tokenizer on Python sources: 3.5 characters per word
# piece on average (10th percentile 2.5); with a ~30-piece header, 800 characters puts a
# median full chunk at the window, 1000 would overflow it in 9 windows out of 10.
MAX_CHUNK_CHARS = 800
SIGNATURE_MAX_CHARS = 200
SYMBOL_PART_MAX_CHARS = 100
# Files bigger than this (bytes of UTF-8) are not parsed: line windows.
MAX_PARSE_BYTES = 2_000_000
# Wall-clock limit of one tree-sitter parse, seconds. Only pathological files reach it.
PARSE_TIMEOUT_SECONDS = 5.0
# Deepest syntax-tree descent while cutting; deeper files fall back to line windows.
MAX_DEPTH = 200

_log = logging.getLogger(__name__)

KINDS = ("function", "method", "class", "impl", "module", "section", "key", "block", "window")


@dataclass(frozen=True)
class Chunk:
    """One passage of one file.

    ``path`` is project-relative with ``/``; ``start_line``/``end_line`` are 1-based and
    inclusive; ``symbol`` is a dotted path (``Session.request``) or None for module-level
    statements and merged blocks; ``kind`` is one of :data:`KINDS`; ``signature`` is the line
    naming the definition, stripped, at most 200 characters; ``text`` is exactly the file's
    lines ``start_line..end_line`` joined with ``"\\n"`` (no ``"\\r"``).
    """

    path: str
    start_line: int
    end_line: int
    language: str
    symbol: str | None
    kind: str
    signature: str | None
    text: str

    @property
    def content_hash(self) -> str:
        """sha256 hex digest (64 characters) of ``text`` encoded as UTF-8."""
        return hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()


def dense_text(chunk: Chunk) -> str:
    """What is embedded for ``chunk``: a short deterministic header, newline, the text.

    Header lines, each only when known: ``symbol: <symbol>`` and ``signature: <signature>``
    (left out when the text already shows it near its top). The path is left out on purpose:
    a renamed or moved file with the same content then hits the embedding cache (issue "Search
    and deliver"); the path goes into :func:`keyword_text`. ``chunk.text`` is what is shown.
    """
    header = []
    if chunk.symbol:
        header.append(f"symbol: {chunk.symbol}")
    if chunk.signature and chunk.signature not in chunk.text[:300]:
        header.append(f"signature: {chunk.signature}")
    return "\n".join(header) + "\n" + chunk.text if header else chunk.text


def keyword_text(chunk: Chunk) -> str:
    """What is keyword-indexed (BM25) for ``chunk``: ``path: <path>`` then :func:`dense_text`."""
    return f"path: {chunk.path}\n" + dense_text(chunk)


def chunk_file(
    path: str, text: str, language: str | None = None, *, max_chars: int = MAX_CHUNK_CHARS
) -> list[Chunk]:
    """Cut ``text`` (the whole content of the file at project-relative ``path``) into chunks.

    ``language`` overrides detection from the path (and from a ``#!`` line for files with no
    known extension). ``max_chars`` is the budget of one chunk's text in characters; a chunk
    is longer only when one of its lines alone is. Returns chunks in line order, ``[]`` for a file
    with no non-blank line. Never raises: any failure to cut a file at natural boundaries
    gives line windows.
    """
    path = path.replace("\\", "/")
    lines = _Lines(text)
    if language is None:
        language = language_for_path(path)
        if language == "text" and lines.lines and lines.lines[0].startswith("#!"):
            language = language_for_shebang(lines.lines[0]) or "text"
    if not any(line.strip() for line in lines.lines):
        return []
    budget = max(1, max_chars)
    try:
        spans = _finish(_spans_for(language, text, lines, budget), lines, budget)
    except _Fallback:
        spans = None
    except Exception:  # noqa: BLE001 - one odd file must never stop an index build
        _log.debug("chunking %s failed, using line windows", path, exc_info=True)
        spans = None
    if spans is None:
        spans = _finish(_window_spans(lines, budget), lines, budget) or []
    return [
        Chunk(
            path=path,
            start_line=span.lo + 1,
            end_line=span.hi + 1,
            language=language,
            symbol=span.symbol,
            kind=span.kind,
            signature=span.signature,
            text=lines.text(span.lo, span.hi),
        )
        for span in spans
    ]


# ---------------------------------------------------------------------------------------------
# Lines and spans
# ---------------------------------------------------------------------------------------------


class _Lines:
    """The file's lines (split on ``\\n``, trailing ``\\r`` dropped) with O(1) sizes."""

    def __init__(self, text: str) -> None:
        raw = text.split("\n")
        if raw and raw[-1] == "":
            raw.pop()
        self.lines = [line[:-1] if line.endswith("\r") else line for line in raw]
        self._prefix = [0]
        for line in self.lines:
            self._prefix.append(self._prefix[-1] + len(line))

    def __len__(self) -> int:
        return len(self.lines)

    def size(self, lo: int, hi: int) -> int:
        """Characters of lines ``lo..hi`` (0-based, inclusive) joined with newlines."""
        return self._prefix[hi + 1] - self._prefix[lo] + (hi - lo)

    def blank(self, row: int) -> bool:
        return not self.lines[row].strip()

    def text(self, lo: int, hi: int) -> str:
        return "\n".join(self.lines[lo : hi + 1])


@dataclass
class _Span:
    """A chunk being built: 0-based inclusive rows plus labels and merge hints."""

    lo: int
    hi: int
    symbol: str | None
    kind: str
    signature: str | None = None
    scope: Any = None  # identity of the level it came from; only equal scopes merge
    scope_symbol: str | None = None  # symbol a merged block of this level gets
    definition: bool = False  # a whole definition, key or section (not glue, not a part)
    glue: bool = False  # statements between definitions (may be a lone bracket)
    header: bool = False  # glue that opens a split class (`class Foo(Base):`)
    nested: bool = False  # glue inside a split class: tiny-glue folding must not leave the class


class _Fallback(Exception):
    """Cutting at natural boundaries is not possible: use line windows."""


def _pack(atoms: Sequence[tuple[int, int]], lines: _Lines, budget: int) -> list[tuple[int, int]]:
    """Greedily group ordered row ranges into ranges of at most ``budget`` characters.

    An atom larger than the budget stays alone. The last two groups are then balanced so that
    a part is not left with only a closing bracket.
    """
    groups: list[list[int]] = []
    for index, (_, hi) in enumerate(atoms):
        if groups and lines.size(atoms[groups[-1][0]][0], hi) <= budget:
            groups[-1][1] = index
        else:
            groups.append([index, index])
    if len(groups) >= 2:
        prev, last = groups[-2], groups[-1]
        while prev[1] > prev[0]:
            moved_last = lines.size(atoms[prev[1]][0], atoms[last[1]][1])
            moved_prev = lines.size(atoms[prev[0]][0], atoms[prev[1] - 1][1])
            if moved_last > budget or moved_last > moved_prev:
                break
            prev[1] -= 1
            last[0] -= 1
    return [(atoms[first][0], atoms[last_index][1]) for first, last_index in groups]


def _line_atoms(lo: int, hi: int) -> list[tuple[int, int]]:
    return [(row, row) for row in range(lo, hi + 1)]


def _paragraph_atoms(lines: _Lines, lo: int, hi: int, budget: int) -> list[tuple[int, int]]:
    """Blank-line separated paragraphs of rows ``lo..hi``; oversized ones become lines."""
    atoms: list[tuple[int, int]] = []
    start = None
    for row in range(lo, hi + 2):
        if row <= hi and not lines.blank(row):
            if start is None:
                start = row
            continue
        if start is not None:
            end = row - 1
            if lines.size(start, end) <= budget:
                atoms.append((start, end))
            else:
                atoms.extend(_line_atoms(start, end))
            start = None
    return atoms


def _window_spans(lines: _Lines, budget: int) -> list[_Span]:
    atoms = [(row, row) for row in range(len(lines)) if not lines.blank(row)]
    return [_Span(lo, hi, None, "window") for lo, hi in _pack(atoms, lines, budget)]


def _split(
    lo: int, hi: int, atoms: Sequence[tuple[int, int]], lines: _Lines, budget: int, **labels: Any
) -> list[_Span]:
    """One span for rows ``lo..hi`` if it fits, else parts packed from ``atoms``."""
    if lines.size(lo, hi) <= budget:
        return [_Span(lo, hi, definition=True, **labels)]
    return [_Span(a, b, **labels) for a, b in _pack(atoms, lines, budget)]


_TRIVIAL = re.compile(r"(?:[\W_]|\bend\b)*")
_CLOSERS = frozenset(")]}")


def _attach_small_glue(spans: list[_Span], lines: _Lines, budget: int) -> list[_Span]:
    """Fold glue that would make a useless chunk of its own into a neighbour, if it fits.

    Glue that is only brackets or ``end`` joins the chunk above (the first one joins the chunk
    below); a one-line header of a split class (``impl Foo {``) joins the class's first member.
    """
    out: list[_Span] = []
    carry: _Span | None = None  # prepended to the next span
    for span in spans:
        if carry is not None:
            if lines.size(carry.lo, span.hi) <= budget:
                span.lo = carry.lo
            else:
                out.append(carry)
            carry = None
        if span.glue:
            if span.header and span.lo == span.hi:
                carry = span
                continue
            if _TRIVIAL.fullmatch(lines.text(span.lo, span.hi)):
                if out and lines.size(out[-1].lo, span.hi) <= budget:
                    out[-1].hi = span.hi
                    continue
                if not out:
                    carry = span
                    continue
        out.append(span)
    if carry is not None:
        out.append(carry)
    return _fold_tiny_glue(out, lines, budget)


def _fold_tiny_glue(spans: list[_Span], lines: _Lines, budget: int) -> list[_Span]:
    """Fold tiny glue (a module docstring, a short import block, one constant) into the next
    chunk, or into the previous one at the end of its scope (the file, or a split class),
    when the result fits the budget.

    A one-line glue chunk is a poor search result: it has little meaning of its own, yet its
    short length makes both BM25 and cosine similarity favour it. The merged chunk keeps the
    neighbour's symbol, kind and signature. Glue that starts with a closing bracket joins the
    chunk above it first. Glue inside a split class only joins chunks of the same class (its
    closing ``}`` must not open the next class or function), and top-level glue at the end of
    the file does not join a method of a split class above it.
    """
    tiny = budget // 8
    out: list[_Span] = []
    pending: _Span | None = None

    def fold_back(glue: _Span) -> None:
        if out and out[-1].scope == glue.scope and lines.size(out[-1].lo, glue.hi) <= budget:
            out[-1].hi = glue.hi
        else:
            out.append(glue)

    for span in spans:
        if pending is not None:
            if pending.nested and span.scope != pending.scope:  # the class ends here
                fold_back(pending)
            elif lines.size(pending.lo, span.hi) <= budget:
                span.lo = pending.lo
            else:
                out.append(pending)
            pending = None
        if span.glue and not span.header and lines.size(span.lo, span.hi) < tiny:
            if (
                lines.lines[span.lo].lstrip()[:1] in _CLOSERS
                and out
                and out[-1].scope == span.scope
                and lines.size(out[-1].lo, span.hi) <= budget
            ):
                out[-1].hi = span.hi  # `}  // namespace users` closes what is above it
                continue
            pending = span
            continue
        out.append(span)
    if pending is not None:
        fold_back(pending)
    return out


def _merge_tiny(spans: list[_Span], lines: _Lines, budget: int) -> list[_Span]:
    """Merge consecutive tiny whole definitions of one scope while they fit the budget."""
    tiny = budget // 8
    out: list[_Span] = []
    open_block = False  # out[-1] may still take tiny neighbours
    for span in spans:
        is_tiny = span.definition and lines.size(span.lo, span.hi) < tiny
        if (
            is_tiny
            and open_block
            and out[-1].scope == span.scope
            and lines.size(out[-1].lo, span.hi) <= budget
        ):
            block = out[-1]
            block.hi = span.hi
            block.symbol = block.scope_symbol
            block.kind = "block"
            block.signature = None
            continue
        out.append(span)
        open_block = is_tiny
    return out


def _finish(spans: list[_Span], lines: _Lines, budget: int) -> list[_Span] | None:
    """Merge neighbours, cover stray lines, trim blank edges; None if spans are inconsistent."""
    spans = _merge_tiny(spans, lines, budget)
    spans = _attach_small_glue(spans, lines, budget)
    previous_hi = -1
    for span in spans:
        if span.lo > span.hi or span.lo <= previous_hi or span.hi >= len(lines):
            return None
        previous_hi = span.hi
    if not spans:
        return None
    # A line no span covers (a grammar that skips text) joins the span above, else below.
    covered = [False] * len(lines)
    for span in spans:
        covered[span.lo : span.hi + 1] = [True] * (span.hi - span.lo + 1)
    his = [span.hi for span in spans]
    for row, is_covered in enumerate(covered):
        if is_covered or lines.blank(row):
            continue
        above = bisect_right(his, row) - 1
        if above >= 0:
            spans[above].hi = his[above] = row
        else:
            spans[0].lo = min(spans[0].lo, row)
    result = []
    for span in spans:
        while span.lo <= span.hi and lines.blank(span.lo):
            span.lo += 1
        while span.hi >= span.lo and lines.blank(span.hi):
            span.hi -= 1
        if span.lo <= span.hi:
            result.append(span)
    return result


def _spans_for(language: str, text: str, lines: _Lines, budget: int) -> list[_Span]:
    if language in SOURCE_LANGUAGES:
        return _CodeCutter(language, text, lines, budget).spans()
    if language == "markdown":
        return _markdown_spans(lines, budget)
    if language == "yaml":
        return _yaml_spans(lines, budget)
    if language == "json":
        return _json_spans(lines, budget)
    if language == "toml":
        return _toml_spans(lines, budget)
    return _text_spans(lines, budget)


def _text_spans(lines: _Lines, budget: int) -> list[_Span]:
    atoms = _paragraph_atoms(lines, 0, len(lines) - 1, budget)
    return [_Span(lo, hi, None, "block") for lo, hi in _pack(atoms, lines, budget)]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------------------------------------
# Source code: tree-sitter
# ---------------------------------------------------------------------------------------------

# Language -> (grammar module, function returning the language pointer).
_GRAMMARS = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "swift": ("tree_sitter_swift", "language"),
    "scala": ("tree_sitter_scala", "language"),
    "bash": ("tree_sitter_bash", "language"),
    "lua": ("tree_sitter_lua", "language"),
}


@dataclass(frozen=True)
class _Grammar:
    """Node types of one grammar, checked by parsing samples with the installed wheels.

    functions/classes/impls: definitions; wrappers: nodes around a definition that belong to
    its chunk (export, decorators, templates); transparent: containers whose members are
    chunked as if at the enclosing level (namespaces, #ifdef); bodies: member lists that are
    flattened when a class or a transparent container is opened.
    """

    functions: frozenset[str] = frozenset()
    classes: frozenset[str] = frozenset()
    impls: frozenset[str] = frozenset()
    wrappers: frozenset[str] = frozenset()
    transparent: frozenset[str] = frozenset()
    bodies: frozenset[str] = frozenset()


def _g(**kinds: Sequence[str]) -> _Grammar:
    return _Grammar(**{key: frozenset(value) for key, value in kinds.items()})


_JS = dict(
    functions=["function_declaration", "generator_function_declaration", "method_definition"],
    classes=["class_declaration", "class"],
    wrappers=["export_statement"],
    bodies=["class_body"],
)
_TS = dict(
    functions=_JS["functions"] + ["function_signature", "method_signature", "abstract_method_signature"],
    classes=_JS["classes"]
    + ["abstract_class_declaration", "interface_declaration", "enum_declaration", "internal_module", "module"],
    wrappers=["export_statement", "ambient_declaration", "expression_statement"],
    bodies=["class_body", "interface_body", "enum_body", "object_type", "statement_block"],
)
_C_PREPROC = ["preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "preproc_elifdef"]

_GRAMMAR_TYPES: dict[str, _Grammar] = {
    "python": _g(
        functions=["function_definition"],
        classes=["class_definition"],
        wrappers=["decorated_definition"],
        bodies=["block"],
    ),
    "javascript": _g(**_JS),
    "typescript": _g(**_TS),
    "tsx": _g(**_TS),
    "go": _g(
        functions=["function_declaration", "method_declaration", "method_elem"],
        bodies=["field_declaration_list"],
    ),
    "rust": _g(
        functions=["function_item", "function_signature_item", "macro_definition"],
        classes=["struct_item", "enum_item", "trait_item", "union_item", "mod_item"],
        impls=["impl_item"],
        transparent=["foreign_mod_item"],
        bodies=["declaration_list", "field_declaration_list", "enum_variant_list"],
    ),
    "java": _g(
        functions=["method_declaration", "constructor_declaration", "compact_constructor_declaration"],
        classes=[
            "class_declaration",
            "interface_declaration",
            "enum_declaration",
            "record_declaration",
            "annotation_type_declaration",
        ],
        bodies=["class_body", "interface_body", "enum_body", "enum_body_declarations", "annotation_type_body"],
    ),
    "kotlin": _g(
        functions=["function_declaration", "secondary_constructor"],
        classes=["class_declaration", "object_declaration", "companion_object"],
        bodies=["class_body", "enum_class_body"],
    ),
    "c": _g(
        functions=["function_definition"],
        classes=["struct_specifier", "union_specifier", "enum_specifier"],
        transparent=_C_PREPROC + ["linkage_specification"],
        bodies=["field_declaration_list", "enumerator_list", "declaration_list"],
    ),
    "cpp": _g(
        functions=["function_definition"],
        classes=["class_specifier", "struct_specifier", "union_specifier", "enum_specifier"],
        wrappers=["template_declaration"],
        transparent=_C_PREPROC + ["linkage_specification", "namespace_definition"],
        bodies=["field_declaration_list", "enumerator_list", "declaration_list"],
    ),
    "csharp": _g(
        functions=[
            "method_declaration",
            "constructor_declaration",
            "destructor_declaration",
            "operator_declaration",
            "conversion_operator_declaration",
            "indexer_declaration",
            "property_declaration",
        ],
        classes=[
            "class_declaration",
            "struct_declaration",
            "interface_declaration",
            "record_declaration",
            "enum_declaration",
        ],
        transparent=["namespace_declaration"],
        bodies=["declaration_list", "enum_member_declaration_list"],
    ),
    "ruby": _g(
        functions=["method", "singleton_method"],
        classes=["class", "module"],
        transparent=["singleton_class"],
        bodies=["body_statement"],
    ),
    "php": _g(
        functions=["function_definition", "method_declaration"],
        classes=["class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"],
        transparent=["namespace_definition"],
        bodies=["declaration_list", "enum_declaration_list", "compound_statement"],
    ),
    "swift": _g(
        functions=[
            "function_declaration",
            "init_declaration",
            "deinit_declaration",
            "subscript_declaration",
            "protocol_function_declaration",
        ],
        classes=["class_declaration", "protocol_declaration"],
        bodies=["class_body", "protocol_body", "enum_class_body"],
    ),
    "scala": _g(
        functions=["function_definition", "function_declaration"],
        classes=["class_definition", "object_definition", "trait_definition", "enum_definition"],
        bodies=["template_body", "enum_body"],
    ),
    "bash": _g(functions=["function_definition"]),
    "lua": _g(functions=["function_declaration"]),
}

# Names for definitions that have no name node of their own.
_FIXED_NAMES = {
    "init_declaration": "init",
    "deinit_declaration": "deinit",
    "subscript_declaration": "subscript",
    "secondary_constructor": "constructor",
    "companion_object": "Companion",
    "indexer_declaration": "this",
    "class": "default",  # `export default class { ... }`
}
_NAME_NODE_TYPES = frozenset(
    {"identifier", "type_identifier", "simple_identifier", "constant", "name", "property_identifier", "field_identifier"}
)
# Sibling nodes directly above a definition that belong to its chunk (besides comments).
_ATTACHED = frozenset({"decorator", "attribute_item", "attribute", "annotation", "marker_annotation"})
_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function", "generator_function_expression"}
)
_WHITESPACE = frozenset(b" \t\r\n\x0b\x0c")
_C_NAME_TYPES = frozenset(
    {
        "identifier",
        "field_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "type_identifier",
        "template_function",
        "operator_cast",
    }
)


@lru_cache(maxsize=None)
def _ts_language(language: str) -> Any:
    from tree_sitter import Language

    module_name, function_name = _GRAMMARS[language]
    return Language(getattr(importlib.import_module(module_name), function_name)())


_local = threading.local()


def _parser(language: str) -> Any:
    """A parser for ``language``, made once per thread (parsers are not thread-safe)."""
    from tree_sitter import Parser

    parsers = _local.__dict__.setdefault("parsers", {})
    parser = parsers.get(language)
    if parser is None:
        parser = parsers[language] = Parser(_ts_language(language))
    return parser


def _parse(language: str, data: bytes) -> Any:
    """Syntax tree of ``data``; raises _Fallback when too big, too slow or failed."""
    if len(data) > MAX_PARSE_BYTES:
        raise _Fallback
    parser = _parser(language)
    try:
        if hasattr(parser, "timeout_micros"):  # tree-sitter < 0.25
            parser.timeout_micros = int(PARSE_TIMEOUT_SECONDS * 1_000_000)
            tree = parser.parse(data)
        else:  # tree-sitter >= 0.25: cancel through the progress callback
            deadline = time.monotonic() + PARSE_TIMEOUT_SECONDS
            tree = parser.parse(
                lambda offset, _point: data[offset : offset + 65536],
                progress_callback=lambda _offset, _has_error: time.monotonic() > deadline,
            )
    except Exception as exc:  # "Parsing failed" when cancelled
        parser.reset()
        raise _Fallback from exc
    if tree is None:
        parser.reset()
        raise _Fallback
    return tree


@dataclass
class _Definition:
    chain: list  # wrapper(s) ... definition ... inner containers to flatten when opened
    symbol: str
    kind: str  # function | method | class | impl
    signature: str | None
    container: bool


@dataclass
class _Item:
    """One member (or several fused on shared lines) of a level, with its rows."""

    lo: int
    hi: int
    nodes: list = field(default_factory=list)
    definition: _Definition | None = None


class _CodeCutter:
    """Cuts one source file; holds its bytes, row index and the grammar's node types."""

    def __init__(self, language: str, text: str, lines: _Lines, budget: int) -> None:
        self.language = language
        self.types = _GRAMMAR_TYPES[language]
        self.lines = lines
        self.budget = budget
        try:
            self.data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            self.data = text.encode("utf-8", "replace")
        self.line_starts = [0] + [m.end() for m in re.finditer(b"\n", self.data)]
        self._levels = 0

    # -- entry ------------------------------------------------------------------------------
    def spans(self) -> list[_Span]:
        tree = _parse(self.language, self.data)
        return self._level(tree.root_node.children, None, None, 0)

    # -- rows -------------------------------------------------------------------------------
    def _row(self, offset: int) -> int:
        return bisect_right(self.line_starts, offset) - 1

    def _rows(self, node: Any) -> tuple[int, int] | None:
        """First and last row holding a non-blank byte of ``node``; None if it has none."""
        start, end = node.start_byte, node.end_byte
        data = self.data
        if start < end and data[start] not in _WHITESPACE and data[end - 1] not in _WHITESPACE:
            return node.start_point.row, node.end_point.row  # fast path: no edge whitespace
        while start < end and data[start] in _WHITESPACE:
            start += 1
        if start >= end:
            return None
        end -= 1
        while end > start and data[end] in _WHITESPACE:
            end -= 1
        return self._row(start), min(self._row(end), len(self.lines) - 1)

    # -- levels -----------------------------------------------------------------------------
    def _members(self, nodes: Sequence[Any], open_nodes: Sequence[Any], depth: int) -> Iterator[Any]:
        """``nodes`` with transparent containers, bodies and ``open_nodes`` replaced by children."""
        types = self.types
        for node in nodes:
            if depth > MAX_DEPTH:
                raise _Fallback
            if (
                node.type in types.transparent
                or node.type in types.bodies
                or node.type == "ERROR"
                or any(node == other for other in open_nodes)
            ) and node.child_count:
                yield from self._members(node.children, open_nodes, depth + 1)
            else:
                yield node

    def _level(self, nodes: Sequence[Any], parent: _Definition | None, open_nodes: Any, depth: int) -> list[_Span]:
        """Spans for the members of one level (file, or an opened class)."""
        if depth > MAX_DEPTH:
            raise _Fallback
        self._levels += 1
        scope_id = self._levels
        scope_symbol = parent.symbol if parent else None
        items: list[_Item] = []
        for node in self._members(nodes, open_nodes or (), depth):
            rows = self._rows(node)
            if rows is None:
                continue
            item = _Item(rows[0], rows[1], [node], self._definition(node, scope_symbol))
            if items and item.lo <= items[-1].hi:  # shares a line with the previous member
                previous = items[-1]
                previous.hi = max(previous.hi, item.hi)
                previous.nodes.extend(item.nodes)
                previous.definition = previous.definition or item.definition
            else:
                items.append(item)
        items = self._attach_leading(items)

        spans: list[_Span] = []
        glue: list[_Item] = []
        for item in items + [None]:  # type: ignore[list-item]
            if item is not None and item.definition is None:
                glue.append(item)
                continue
            if glue:
                header = parent is not None and not spans
                spans.extend(self._glue_spans(glue, parent, scope_id, depth, header))
                glue = []
            if item is not None:
                spans.extend(self._definition_spans(item, scope_id, scope_symbol, depth))
        return spans

    def _attach_leading(self, items: list[_Item]) -> list[_Item]:
        """Comments/decorators directly above a definition (no blank line) join its item.

        A ``/** doc comment */`` ending one blank line above the definition joins it too.
        """
        out: list[_Item] = []
        for item in items:
            if item.definition is not None:
                first = len(out)
                next_lo = item.lo
                while first > 0:
                    candidate = out[first - 1]
                    if candidate.definition is not None or candidate.hi + 1 < next_lo and not (
                        # a /** doc comment */ one blank line above its definition (express style)
                        first == len(out) and candidate.hi + 2 == next_lo and self.lines.blank(candidate.hi + 1)
                        and self.lines.lines[candidate.lo].lstrip().startswith("/**")
                    ):
                        break
                    if not all("comment" in n.type or n.type in _ATTACHED for n in candidate.nodes):
                        break
                    first -= 1
                    next_lo = candidate.lo
                if first < len(out):
                    attached = out[first:]
                    del out[first:]
                    item.lo = attached[0].lo
                    item.nodes = [n for a in attached for n in a.nodes] + item.nodes
            out.append(item)
        return out

    def _glue_spans(
        self, glue: list[_Item], parent: _Definition | None, scope_id: int, depth: int, header: bool
    ) -> list[_Span]:
        lo, hi = glue[0].lo, glue[-1].hi
        labels: dict[str, Any] = dict(symbol=None, kind="module", scope=scope_id)
        if parent is not None:
            labels = dict(symbol=parent.symbol, kind=parent.kind, signature=parent.signature, scope=scope_id)
        nested = parent is not None
        if self.lines.size(lo, hi) <= self.budget:
            return [_Span(lo, hi, glue=True, header=header, nested=nested, **labels)]
        atoms: list[tuple[int, int]] = []
        for item in glue:
            atoms.extend(self._atoms(item.nodes, item.lo, item.hi, depth + 1))
        return [_Span(a, b, glue=True, nested=nested, **labels) for a, b in _pack(atoms, self.lines, self.budget)]

    def _definition_spans(self, item: _Item, scope_id: int, scope_symbol: str | None, depth: int) -> list[_Span]:
        definition = item.definition
        assert definition is not None
        labels = dict(
            symbol=definition.symbol,
            kind=definition.kind,
            signature=definition.signature,
            scope=scope_id,
            scope_symbol=scope_symbol,
        )
        if item.lo == item.hi or self.lines.size(item.lo, item.hi) <= self.budget:  # fits or cannot be cut
            return [_Span(item.lo, item.hi, definition=True, **labels)]
        if definition.container:  # header-and-fields chunk(s) plus one chunk per member
            return self._level(item.nodes, definition, definition.chain, depth + 1)
        atoms = self._atoms(item.nodes, item.lo, item.hi, depth + 1)
        return [_Span(a, b, **labels) for a, b in _pack(atoms, self.lines, self.budget)]

    def _atoms(self, nodes: Sequence[Any], lo: int, hi: int, depth: int) -> list[tuple[int, int]]:
        """Row ranges covering ``lo..hi`` that fit the budget, cut at child-node boundaries.

        A range that does not fit is cut at its nodes' children, recursively; a node without
        children that does not fit is cut into single lines.
        """
        if lo == hi or self.lines.size(lo, hi) <= self.budget:
            return [(lo, hi)]
        if hi - lo == 1:  # two lines: cutting between them is all that is possible
            return _line_atoms(lo, hi)
        if depth > MAX_DEPTH:
            raise _Fallback
        children = [child for node in nodes for child in (node.children if node.child_count else [node])]
        if all(node.child_count == 0 for node in nodes):
            return _line_atoms(lo, hi)
        groups: list[list[Any]] = []  # [lo, hi, nodes, only comments so far]
        for child in children:
            rows = self._rows(child)
            if rows is None:
                continue
            start, end = max(rows[0], lo), min(rows[1], hi)
            if start > end:
                continue
            comment = "comment" in child.type
            # Children sharing a line stay together; a comment stays with the code below it.
            if groups and (start <= groups[-1][1] or groups[-1][3]):
                groups[-1][1] = max(groups[-1][1], end)
                groups[-1][2].append(child)
                groups[-1][3] = groups[-1][3] and comment
            else:
                groups.append([start, end, [child], comment])
        if not groups:
            return _line_atoms(lo, hi)
        groups[0][0] = lo
        for previous, group in zip(groups, groups[1:]):
            group[0] = previous[1] + 1
        groups[-1][1] = hi
        atoms: list[tuple[int, int]] = []
        for start, end, group_nodes, _ in groups:
            atoms.extend(self._atoms(group_nodes, start, end, depth + 1))
        return atoms

    # -- definitions ------------------------------------------------------------------------
    def _definition(self, node: Any, scope: str | None) -> _Definition | None:
        """The definition ``node`` is (possibly through wrappers), or None for a statement."""
        if not node.is_named:  # keywords such as `class` share names with node types
            return None
        types = self.types
        chain = [node]
        inner = node
        for _ in range(3):
            if inner.type not in types.wrappers:
                break
            candidate = None
            for child in inner.named_children:
                if (
                    child.type in types.functions
                    or child.type in types.classes
                    or child.type in types.impls
                    or child.type in types.wrappers
                    or self._special(child) is not None
                ):
                    candidate = child
                    break
            if candidate is None:
                return None
            inner = candidate
            chain.append(inner)
        if inner.type in types.wrappers:
            return None

        special = self._special(inner)
        if inner.type in types.functions:
            base, name_node = "function", self._function_name_node(inner)
        elif inner.type in types.classes:
            base, name_node = "class", self._name_node(inner)
            if self.language == "swift" and inner.child_count and inner.children[0].type == "extension":
                base = "impl"
        elif inner.type in types.impls:
            base, name_node = "impl", inner.child_by_field_name("type")
        elif special is not None:
            base, name_node, extra_chain = special
            chain.extend(extra_chain)
        else:
            return None

        name = self._name_text(inner, name_node)
        if name is None:
            return None
        symbol = f"{scope}.{name}" if scope else name
        kind = base
        if base == "function":
            kind = "method" if "." in symbol else "function"
        # The signature is the line that names the definition (not a decorator above it).
        rows = (self._rows(name_node) if name_node is not None else None) or self._rows(inner)
        signature = _clip(self.lines.lines[rows[0]].strip(), SIGNATURE_MAX_CHARS) if rows else None
        return _Definition(
            chain=chain,
            symbol=symbol,
            kind=kind,
            signature=signature or None,
            container=base in ("class", "impl"),
        )

    def _special(self, node: Any) -> tuple[str, Any, list] | None:
        """Definitions that are not plain definition nodes: (kind, name node, nodes to open)."""
        language, kind = self.language, node.type
        if language in ("javascript", "typescript", "tsx") and kind in ("lexical_declaration", "variable_declaration"):
            declarators = [c for c in node.named_children if c.type == "variable_declarator"]
            if len(declarators) == 1:
                value = declarators[0].child_by_field_name("value")
                if value is not None and value.type in _FUNCTION_VALUES:
                    return "function", declarators[0].child_by_field_name("name"), []
            return None
        if language in ("javascript", "typescript", "tsx") and kind in ("expression_statement", "assignment_expression"):
            # `res.redirect = function redirect(url) {...}`, `Foo.prototype.bar = () => ...`,
            # `exports.parse = function (s) {...}`: the CommonJS / prototype way to define.
            assignment = node if kind == "assignment_expression" else next(
                (c for c in node.named_children if c.type == "assignment_expression"), None)
            if assignment is not None:
                left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
                if left is not None and right is not None and right.type in _FUNCTION_VALUES and left.type in (
                        "member_expression", "identifier"):
                    return "function", left, []
            return None
        if language == "go" and kind == "type_declaration":
            specs = [c for c in node.named_children if c.type == "type_spec"]
            if len(specs) == 1:
                value = specs[0].child_by_field_name("type")
                if value is not None and value.type in ("struct_type", "interface_type"):
                    return "class", specs[0].child_by_field_name("name"), [specs[0], value]
            return None
        if language in ("c", "cpp") and kind == "type_definition":
            value = node.child_by_field_name("type")
            declarator = node.child_by_field_name("declarator")
            if (
                value is not None
                and value.type in ("struct_specifier", "union_specifier", "enum_specifier", "class_specifier")
                and value.child_by_field_name("body") is not None
                and declarator is not None
                and declarator.type == "type_identifier"
            ):
                return "class", declarator, [value]
        return None

    def _name_node(self, node: Any) -> Any:
        name = node.child_by_field_name("name")
        if name is not None:
            return name
        for child in node.named_children:
            if child.type in _NAME_NODE_TYPES:
                return child
        return None

    def _function_name_node(self, node: Any) -> Any:
        if self.language in ("c", "cpp") and node.type == "function_definition":
            # int *(*name)(args): follow the declarators down to the name
            declarator = node.child_by_field_name("declarator")
            for _ in range(MAX_DEPTH):
                if declarator is None or declarator.type in _C_NAME_TYPES:
                    return declarator
                inner = declarator.child_by_field_name("declarator")
                if inner is None:
                    inner = next(
                        (
                            c
                            for c in declarator.named_children
                            if c.type in _C_NAME_TYPES or c.type.endswith("declarator")
                        ),
                        None,
                    )
                declarator = inner
            return None
        return self._name_node(node)

    def _name_text(self, inner: Any, name_node: Any) -> str | None:
        if name_node is None:
            fixed = _FIXED_NAMES.get(inner.type)
            return fixed
        name = self._text(name_node)
        language, kind = self.language, inner.type
        if language == "go" and kind == "method_declaration":
            receiver = self._go_receiver(inner)
            if receiver:
                name = f"{receiver}.{name}"
        elif language == "ruby" and kind == "singleton_method":
            target = inner.child_by_field_name("object")
            if target is not None and target.type != "self":
                name = f"{self._text(target)}.{name}"
        elif language in ("javascript", "typescript", "tsx") and name_node.type == "member_expression":
            # Foo.prototype.bar -> Foo.bar; module.exports.x / exports.x -> x
            name = re.sub(r"\.prototype\b", "", name)
            name = re.sub(r"^(module\.)?exports\.", "", name) or name
        elif language == "csharp" and kind == "destructor_declaration":
            name = "~" + name
        elif language == "rust" and kind == "impl_item" and name_node.type == "generic_type":
            base = name_node.child_by_field_name("type")
            name = self._text(base) if base is not None else name
        return _clean_name(name)

    def _go_receiver(self, method: Any) -> str | None:
        receiver = method.child_by_field_name("receiver")
        if receiver is None:
            return None
        stack = [receiver]
        while stack:  # first type_identifier, left to right (skips *, [T] and the variable)
            node = stack.pop()
            if node.type == "type_identifier":
                return self._text(node)
            stack.extend(reversed(node.named_children))
        return None

    def _text(self, node: Any) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")


_GENERIC_ARGS = re.compile(r"<[^<>]*>")


def _clean_name(name: str) -> str | None:
    """One symbol component: no whitespace, generics, quotes; ``::``/``:`` become ``.``."""
    name = re.sub(r"\s+", "", name)
    for _ in range(8):
        stripped = _GENERIC_ARGS.sub("", name)
        if stripped == name:
            break
        name = stripped
    name = name.replace("::", ".").replace(":", ".").strip("\"'`").lstrip("*&").strip(".")
    return _clip(name, SYMBOL_PART_MAX_CHARS) or None


# ---------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_NOT_SETEXT_TITLE = re.compile(r"^\s*(?:[-*+>|]|\d+[.)])(?:\s|$)")


def _markdown_spans(lines: _Lines, budget: int) -> list[_Span]:
    rows = lines.lines
    headings: list[tuple[int, int, str]] = []  # (row, level, title)
    fence: str | None = None
    fenced = [False] * len(rows)
    start = 0
    if rows and rows[0].strip() == "---":  # YAML front matter
        for row in range(1, len(rows)):
            if rows[row].strip() in ("---", "..."):
                start = row + 1
                break
    for row in range(start, len(rows)):
        line = rows[row]
        if fence is not None:
            fenced[row] = True
            stripped = line.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = None
            continue
        match = _FENCE.match(line)
        if match:
            fence = match.group(1)
            fenced[row] = True
            continue
        match = _ATX.match(line)
        if match:
            headings.append((row, len(match.group(1)), (match.group(2) or "").strip()))
            continue
        match = _SETEXT.match(line)
        if (
            match
            and row > start
            and not lines.blank(row - 1)
            and not fenced[row - 1]
            and (not headings or headings[-1][0] != row - 1)
            and (row - 1 == start or lines.blank(row - 2) or (headings and headings[-1][0] == row - 2))
            and not _NOT_SETEXT_TITLE.match(rows[row - 1])
        ):
            headings.append((row - 1, 1 if match.group(1)[0] == "=" else 2, rows[row - 1].strip()))

    sections: list[tuple[int, int, int, str | None]] = []  # (lo, hi, level, path)
    if not headings or headings[0][0] > 0:
        sections.append((0, (headings[0][0] - 1) if headings else len(rows) - 1, 0, None))
    stack: list[tuple[int, str]] = []
    for index, (row, level, title) in enumerate(headings):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, _clip(re.sub(r"\s+", " ", title), SYMBOL_PART_MAX_CHARS)))
        hi = headings[index + 1][0] - 1 if index + 1 < len(headings) else len(rows) - 1
        sections.append((row, hi, level, " > ".join(t for _, t in stack)))

    def atoms(lo: int, hi: int) -> list[tuple[int, int]]:
        # Paragraphs, with a fenced block kept whole (its blank lines included).
        result: list[tuple[int, int]] = []
        row = lo
        while row <= hi:
            end = row
            if fenced[row]:
                while end + 1 <= hi and fenced[end + 1]:
                    end += 1
            elif lines.blank(row):
                row += 1
                continue
            else:
                while end + 1 <= hi and not fenced[end + 1] and not lines.blank(end + 1):
                    end += 1
            if lines.size(row, end) <= budget:
                result.append((row, end))
            else:
                result.extend(_line_atoms(row, end))
            row = end + 1
        return result

    spans: list[_Span] = []
    small = budget // 4
    group: tuple[int, str] | None = None  # (own size of the heading that takes subsections, path)
    for lo, hi, level, path in sections:
        if (
            group is not None
            and path is not None
            and path.startswith(group[1] + " > ")
            and group[0] < small
            and lines.size(spans[-1].lo, hi) <= budget
        ):
            spans[-1].hi = hi
            continue
        parts = _split(lo, hi, atoms(lo, hi), lines, budget, symbol=path, kind="section")
        spans.extend(parts)
        whole = len(parts) == 1 and parts[0].definition
        group = (lines.size(lo, hi), path) if whole and path is not None else None
    for span in spans:
        span.definition = False  # sections merge by the heading rule above, not as tiny blocks
    return spans


# ---------------------------------------------------------------------------------------------
# YAML, JSON, TOML: top-level keys / tables
# ---------------------------------------------------------------------------------------------

_YAML_KEY = re.compile(r"""^(?!---|\.\.\.)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#'"\-?:%&*!|>@`{\[][^#]*?)\s*:(?:\s|$)""")


def _keyed_spans(
    lines: _Lines,
    budget: int,
    starts: list[tuple[int, str | None]],
    boundary: Callable[[int, int, int], list[int]],
    attach_comments: str | None,
) -> list[_Span]:
    """Spans for sections that start at ``starts`` rows (row, symbol).

    Comment lines (starting with ``attach_comments``) directly above a start belong to it;
    rows before the first start are a glue block; an oversized section is cut at the rows
    ``boundary(lo, hi, key_row)`` returns.
    """
    rows = lines.lines
    begins = []
    for row, symbol in starts:
        begin = row
        while (
            attach_comments
            and begin - 1 >= 0
            and rows[begin - 1].startswith(attach_comments)
            and (not begins or begin - 1 > begins[-1][1])
        ):
            begin -= 1
        begins.append((begin, row, symbol))
    spans: list[_Span] = []
    if begins[0][0] > 0:
        preamble = _paragraph_atoms(lines, 0, begins[0][0] - 1, budget)
        spans.extend(_Span(lo, hi, None, "block", glue=True) for lo, hi in _pack(preamble, lines, budget))
    for index, (begin, key_row, symbol) in enumerate(begins):
        hi = begins[index + 1][0] - 1 if index + 1 < len(begins) else len(rows) - 1
        cuts = [row for row in boundary(begin, hi, key_row) if begin < row <= hi]
        edges = [begin] + cuts + [hi + 1]
        atoms: list[tuple[int, int]] = []
        for a, b in zip(edges, edges[1:]):
            if b - 1 < a:
                continue
            atoms.extend([(a, b - 1)] if lines.size(a, b - 1) <= budget else _line_atoms(a, b - 1))
        kind = "key" if symbol is not None else "block"
        spans.extend(_split(begin, hi, atoms, lines, budget, symbol=symbol, kind=kind, scope="keys"))
    return spans


def _yaml_spans(lines: _Lines, budget: int) -> list[_Span]:
    rows = lines.lines
    starts: list[tuple[int, str]] = []
    for row, line in enumerate(rows):
        match = _YAML_KEY.match(line)
        if match:
            starts.append((row, _clip(match.group(1).strip().strip("\"'"), SYMBOL_PART_MAX_CHARS)))
    if not starts:
        return _text_spans(lines, budget)

    def boundary(lo: int, hi: int, key_row: int) -> list[int]:
        body = [r for r in range(key_row + 1, hi + 1) if rows[r].strip() and not rows[r].lstrip().startswith("#")]
        if not body:
            return []
        indent = min(len(rows[r]) - len(rows[r].lstrip()) for r in body)
        return [r for r in body if len(rows[r]) - len(rows[r].lstrip()) == indent]

    return _keyed_spans(lines, budget, starts, boundary, "#")


def _json_spans(lines: _Lines, budget: int) -> list[_Span]:
    rows = lines.lines
    depth_at_line = [0] * len(rows)
    starts: list[tuple[int, str | None]] = []
    depth = 0
    first_char = None
    pending_key: tuple[int, str] | None = None  # a string at depth 1 that may be a key
    in_block_comment = False
    for row, line in enumerate(rows):
        depth_at_line[row] = depth
        col = 0
        n = len(line)
        while col < n:
            ch = line[col]
            if in_block_comment:
                end = line.find("*/", col)
                if end < 0:
                    col = n
                    continue
                in_block_comment = False
                col = end + 2
                continue
            if ch in " \t":
                col += 1
                continue
            if ch == "/" and line.startswith("//", col):
                break
            if ch == "/" and line.startswith("/*", col):
                in_block_comment = True
                col += 2
                continue
            if first_char is None:
                first_char = ch
                if ch != "{":
                    return _text_spans(lines, budget)
            if ch == '"':
                end = col + 1
                while end < n and line[end] != '"':
                    end += 2 if line[end] == "\\" else 1
                literal = line[col : end + 1]
                if depth == 1:
                    pending_key = (row, literal)
                col = end + 1
                continue
            if ch == ":" and pending_key is not None and depth == 1:
                try:
                    key = str(json.loads(pending_key[1]))
                except ValueError:
                    key = pending_key[1].strip('"')
                if starts and starts[-1][0] == pending_key[0]:  # several keys on one line
                    starts[-1] = (pending_key[0], None)
                else:
                    starts.append((pending_key[0], _clip(key, SYMBOL_PART_MAX_CHARS)))
            elif ch in "{[":
                depth += 1
            elif ch in "}]":
                depth -= 1
            pending_key = None
            col += 1
    if not starts:
        return _text_spans(lines, budget)

    def boundary(lo: int, hi: int, key_row: int) -> list[int]:
        return [r for r in range(key_row + 1, hi + 1) if depth_at_line[r] <= 2]

    return _keyed_spans(lines, budget, starts, boundary, None)


_TOML_TABLE = re.compile(r"^\[\[?\s*([A-Za-z0-9_\-.\"' ]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_KEY = re.compile(r"^[A-Za-z0-9_\-\"'.]+\s*=")


def _toml_spans(lines: _Lines, budget: int) -> list[_Span]:
    rows = lines.lines
    starts = []
    multiline: str | None = None  # inside a """ or ''' string
    for row, line in enumerate(rows):
        if multiline is None:
            match = _TOML_TABLE.match(line)
            if match:
                starts.append((row, _clip(match.group(1).replace('"', "").replace("'", ""), SYMBOL_PART_MAX_CHARS)))
        for quote in ('"""', "'''"):
            if line.count(quote) % 2 == 1 and multiline in (None, quote):
                multiline = None if multiline else quote
    if not starts:
        return _text_spans(lines, budget)

    def boundary(lo: int, hi: int, key_row: int) -> list[int]:
        return [r for r in range(key_row + 1, hi + 1) if _TOML_KEY.match(rows[r])]

    spans = _keyed_spans(lines, budget, starts, boundary, "#")
    for span in spans:
        # Keys above the first table belong to the root table, not to the first table: they are
        # content of their own, so tiny-glue folding must not label them with that table.
        if span.glue and any(_TOML_KEY.match(rows[row]) for row in range(span.lo, span.hi + 1)):
            span.glue = False
    return spans
