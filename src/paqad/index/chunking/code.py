"""Cut source code at definitions with its tree-sitter grammar (functions, classes, impl blocks)."""

from __future__ import annotations

import re
import threading
import time
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from paqad.index.chunking.chunk import SIGNATURE_MAX_CHARS, SYMBOL_PART_MAX_CHARS
from paqad.index.chunking.cpp_branches import add_heads, reparse_conditionals
from paqad.index.chunking.cpp_macros import MACRO_LANGUAGES, blank_macros
from paqad.index.chunking.cpp_symbols import inner_definitions, typedef_tag
from paqad.index.chunking.grammars import (
    ATTACHED, C_NAME_TYPES, FIXED_NAMES, FUNCTION_VALUES, GRAMMAR_TYPES,
    NAME_NODE_TYPES, WHITESPACE,
)
from paqad.index.chunking.grammar_load import file_grammar, node_key, ts_language
from paqad.index.chunking.packing import Fallback, Lines, Span, clip, line_atoms, pack, paragraph_atoms
from paqad.index.chunking.tags import QueryTags, query_tags
from paqad.index.grammar_files import grammar_files

# Files bigger than this (bytes of UTF-8) are not parsed: line windows.
MAX_PARSE_BYTES = 2_000_000
# Wall-clock limit of one tree-sitter parse, seconds. Only pathological files reach it.
PARSE_TIMEOUT_SECONDS = 5.0
# Deepest syntax-tree descent while cutting; deeper files fall back to line windows.
MAX_DEPTH = 200
# Bytes handed to tree-sitter per read while parsing. A data-file language's query predicates
# (`#match?`, `#any-of?`) read each captured node's text through the same callback, one read per
# node, so those languages read small windows: cutting a 0.9 MB Clojure file took 6.5 s with
# 64 KiB reads, 1.8 s with 1 KiB (Elixir 2.5 -> 1.4 s); the parse itself costs the same.
READ_BYTES = 65536
QUERY_READ_BYTES = 1024

_local = threading.local()


def _parser(language: str) -> Any:
    """A parser for ``language``, made once per thread (parsers are not thread-safe)."""
    from tree_sitter import Parser

    parsers = _local.__dict__.setdefault("parsers", {})
    parser = parsers.get(language)
    if parser is None:
        parser = parsers[language] = Parser(ts_language(language))
    return parser


def _parse(language: str, data: bytes, read_bytes: int = READ_BYTES, old_tree: Any = None) -> Any:
    """Syntax tree of ``data`` (reusing ``old_tree``: an edited earlier parse); Fallback when too big, slow or failed."""
    if len(data) > MAX_PARSE_BYTES:
        raise Fallback
    parser = _parser(language)
    try:
        if hasattr(parser, "timeout_micros"):  # tree-sitter < 0.25
            parser.timeout_micros = int(PARSE_TIMEOUT_SECONDS * 1_000_000)
            tree = parser.parse(data) if old_tree is None else parser.parse(data, old_tree)
        else:  # tree-sitter >= 0.25: cancel through the progress callback
            deadline = time.monotonic() + PARSE_TIMEOUT_SECONDS
            tree = parser.parse(
                lambda offset, _point: data[offset : offset + read_bytes],
                **({} if old_tree is None else {"old_tree": old_tree}),
                progress_callback=lambda _offset, _has_error: time.monotonic() > deadline,
            )
    except Exception as exc:  # "Parsing failed" when cancelled
        parser.reset()
        raise Fallback from exc
    if tree is None:
        parser.reset()
        raise Fallback
    return tree


@dataclass
class _Definition:
    chain: list  # wrapper(s) ... definition ... inner containers to flatten when opened
    symbol: str
    kind: str  # function | method | class | impl
    signature: str | None
    container: bool
    name_row: int | None = None  # the row that names the definition (the signature line)
    body_row: int | None = None  # the first row of its body's content, when it has a body node
    table_symbol: str | None = None  # its symbol-table name when not ``symbol`` (module-qualified)
    also: list = field(default_factory=list)  # more (symbol, row) it defines: `typedef struct tag {} alias;`


@dataclass
class _Item:
    """One member (or several fused on shared lines) of a level, with its rows."""

    lo: int
    hi: int
    nodes: list = field(default_factory=list)
    definition: _Definition | None = None


class CodeCutter:
    """Cuts one source file; holds its bytes, row index and the grammar's node types."""

    def __init__(self, language: str, text: str, lines: Lines, budget: int, path: str = "") -> None:
        self.language = language
        self.path = path  # project-relative; names the file's module in a `file_module: Stem` language
        self.types = GRAMMAR_TYPES.get(language) or file_grammar(language)
        self.attached = ATTACHED
        self._tagged: QueryTags | None = None  # data-file languages: what the query found
        if language not in GRAMMAR_TYPES:
            self.attached = ATTACHED | frozenset(grammar_files()[language].attached)
        self.lines = lines
        self.budget = budget
        try:
            self.data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            self.data = text.encode("utf-8", "replace")
        self.line_starts = [0] + [m.end() for m in re.finditer(b"\n", self.data)]
        self._levels = 0

    # -- entry ------------------------------------------------------------------------------
    def spans(self) -> list[Span]:
        """The file's spans (0-based inclusive rows), cut from its tree-sitter parse within the
        character budget, definitions labelled by their symbol paths: one chunk each."""
        # C/C++: the parse reads the source with macros blanked (same offsets); names, rows, text: the original's.
        parsed = blank_macros(self.data) if self.language in MACRO_LANGUAGES else self.data
        tree, heads = _parse(self.language, parsed, READ_BYTES if self.language in GRAMMAR_TYPES else QUERY_READ_BYTES), []
        if self.language in MACRO_LANGUAGES and tree.root_node.has_error:  # `#if`/`#else` brace splits
            tree, heads = reparse_conditionals(self, parsed, tree)  # heads: definitions in blanked bodies
        if self.language not in GRAMMAR_TYPES:
            self._tagged = query_tags(self.language, tree.root_node, lambda node: _clean_name(self._text(node)),
                                      _file_module(self.path) if grammar_files()[self.language].file_module else None)
        return add_heads(self._level(tree.root_node.children, None, None, 0), heads)

    # -- rows -------------------------------------------------------------------------------
    def _row(self, offset: int) -> int:
        return bisect_right(self.line_starts, offset) - 1

    def _rows(self, node: Any) -> tuple[int, int] | None:
        """First and last row holding a non-blank byte of ``node``; None if it has none."""
        start, end = node.start_byte, node.end_byte
        data = self.data
        if start < end and data[start] not in WHITESPACE and data[end - 1] not in WHITESPACE:
            return node.start_point.row, node.end_point.row  # fast path: no edge whitespace
        while start < end and data[start] in WHITESPACE:
            start += 1
        if start >= end:
            return None
        end -= 1
        while end > start and data[end] in WHITESPACE:
            end -= 1
        return self._row(start), min(self._row(end), len(self.lines) - 1)

    # -- levels -----------------------------------------------------------------------------
    def _members(self, nodes: Sequence[Any], open_nodes: Sequence[Any], depth: int) -> Iterator[Any]:
        """``nodes`` with transparent containers, bodies and ``open_nodes`` replaced by children."""
        types = self.types
        for node in nodes:
            if depth > MAX_DEPTH:
                raise Fallback
            if (
                node.type in types.transparent
                or node.type in types.bodies
                or node.type == "ERROR"
                or any(node == other for other in open_nodes)
            ) and node.child_count:
                yield from self._members(node.children, open_nodes, depth + 1)
            else:
                yield node

    def _level(self, nodes: Sequence[Any], parent: _Definition | None, open_nodes: Any, depth: int) -> list[Span]:
        """Spans for the members of one level (file, or an opened class)."""
        if depth > MAX_DEPTH:
            raise Fallback
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

        spans: list[Span] = []
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
                    if not all("comment" in n.type or n.type in self.attached for n in candidate.nodes):
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
    ) -> list[Span]:
        lo, hi = glue[0].lo, glue[-1].hi
        labels: dict[str, Any] = dict(symbol=None, kind="module", scope=scope_id)
        if parent is not None:
            labels = dict(symbol=parent.symbol, kind=parent.kind, signature=parent.signature, scope=scope_id,
                          name_row=parent.name_row, **_table_entry(parent))
        nested = parent is not None
        if self.lines.size(lo, hi) <= self.budget:
            return [Span(lo, hi, glue=True, header=header, nested=nested, **labels)]
        atoms: list[tuple[int, int]] = []
        for item in glue:
            atoms.extend(self._atoms(item.nodes, item.lo, item.hi, depth + 1))
        return [Span(a, b, glue=True, nested=nested, **labels) for a, b in pack(atoms, self.lines, self.budget)]

    def _definition_spans(self, item: _Item, scope_id: int, scope_symbol: str | None, depth: int) -> list[Span]:
        definition = item.definition
        assert definition is not None
        labels = dict(
            symbol=definition.symbol,
            kind=definition.kind,
            signature=definition.signature,
            scope=scope_id,
            scope_symbol=scope_symbol,
            name_row=definition.name_row,
            **_table_entry(definition),
        )
        if item.lo == item.hi or self.lines.size(item.lo, item.hi) <= self.budget:  # fits or cannot be cut
            labels.update(_table_entry(definition, inner_definitions(self, item.nodes, definition, depth + 1)))
            return [Span(item.lo, item.hi, definition=True, **labels)]
        if definition.container:  # header-and-fields chunk(s) plus one chunk per member
            return self._level(item.nodes, definition, definition.chain, depth + 1)
        atoms = self._atoms(item.nodes, item.lo, item.hi, depth + 1)
        name_row, body_row = definition.name_row, definition.body_row
        if name_row is None or body_row is None or body_row <= name_row:
            return [Span(a, b, **labels) for a, b in pack(atoms, self.lines, self.budget)]
        groups = self._pack_with_body(atoms, name_row, body_row)
        holder = next((g for g in groups if g[0] <= name_row <= g[1]), None)
        start = self._definition_start(item)
        if holder is not None and holder[1] < body_row and item.lo < start <= name_row:
            # The piece with the definition line would hold no body because the comments above
            # it fill the budget: they go in pieces of their own, and the definition line
            # starts a piece that also holds the start of its body.
            code = [n for n in item.nodes if "comment" not in n.type]
            lead = paragraph_atoms(self.lines, item.lo, start - 1, self.budget)
            rest = self._atoms(code, start, item.hi, depth + 1)
            groups = pack(lead, self.lines, self.budget) + self._pack_with_body(rest, name_row, body_row)
        return [Span(a, b, **labels) for a, b in groups]

    def _pack_with_body(self, atoms: list[tuple[int, int]], name_row: int, body_row: int) -> list[tuple[int, int]]:
        """:func:`pack`, then, while the piece holding ``name_row`` ends before ``body_row`` (a
        signature with none of its body), cut the atom after it into lines and pack again."""
        groups = pack(atoms, self.lines, self.budget)
        for _ in range(4):
            holder = next((g for g in groups if g[0] <= name_row <= g[1]), None)
            if holder is None or holder[1] >= body_row:
                break
            following = next((i for i, a in enumerate(atoms) if a[0] > holder[1]), None)
            if following is None or atoms[following][0] == atoms[following][1]:
                break
            lo, hi = atoms[following]
            atoms = atoms[:following] + line_atoms(lo, hi) + atoms[following + 1:]
            groups = pack(atoms, self.lines, self.budget)
        return groups

    def _definition_start(self, item: _Item) -> int:
        """First row of the definition itself in ``item``: below the comments attached above it
        (decorators and attributes stay with it)."""
        for node in item.nodes:
            if "comment" not in node.type:
                rows = self._rows(node)
                if rows is not None:
                    return max(rows[0], item.lo)
        return item.lo

    def _atoms(self, nodes: Sequence[Any], lo: int, hi: int, depth: int) -> list[tuple[int, int]]:
        """Row ranges covering ``lo..hi`` that fit the budget, cut at child-node boundaries.

        A range that does not fit is cut at its nodes' children, recursively; a node without
        children that does not fit is cut into single lines.
        """
        if lo == hi or self.lines.size(lo, hi) <= self.budget:
            return [(lo, hi)]
        if hi - lo == 1:  # two lines: cutting between them is all that is possible
            return line_atoms(lo, hi)
        if depth > MAX_DEPTH:
            raise Fallback
        children = [child for node in nodes for child in (node.children if node.child_count else [node])]
        if all(node.child_count == 0 for node in nodes):
            return line_atoms(lo, hi)
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
            return line_atoms(lo, hi)
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
        if self._tagged is not None:
            return self._tagged_definition(node, scope)
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
            if self.language in ("c", "cpp") and inner.child_by_field_name("body") is None:
                return None  # `class Node;`, `struct mark;`: a forward declaration defines nothing
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

        labelled = self._labelled(inner, chain, base, self._name_text(inner, name_node), name_node, scope)
        if labelled is not None and inner.type == "type_definition" and self.language in MACRO_LANGUAGES:
            labelled.also = typedef_tag(self, inner, labelled.symbol, scope)  # its tag too
        return labelled

    def _tagged_definition(self, node: Any, scope: str | None) -> _Definition | None:
        """The definition ``node`` is by the language's query (data-file languages)."""
        assert self._tagged is not None
        tag = self._tagged.definitions.get(node_key(node))
        if tag is None:
            return None
        base, names = tag
        parts = [_clean_name(self._text(name)) for name in names]
        name = ".".join(part for part in parts if part) or None
        module = self._tagged.module_at(node.start_byte)
        return self._labelled(node, [node], base, name, names[0], scope, module)

    def _labelled(
        self, inner: Any, chain: list, base: str, name: str | None, name_node: Any, scope: str | None,
        module: str | None = None,
    ) -> _Definition | None:
        """The definition of ``inner`` named ``name`` in ``scope``: symbol, kind, signature, rows.

        ``module``: the module header in force (data-file languages): the symbol table names the
        definition ``Parser.Advanced.keyword`` (a qualified query matches it), while the chunk's
        symbol, embedded and keyword-indexed, stays ``keyword``."""
        if name is None:
            return None
        symbol = f"{scope}.{name}" if scope else name
        kind = base
        if base == "function":
            kind = "method" if "." in symbol else "function"
        # The signature is the line that names the definition (not a decorator above it).
        rows = (self._rows(name_node) if name_node is not None else None) or self._rows(inner)
        signature = clip(self.lines.lines[rows[0]].strip(), SIGNATURE_MAX_CHARS) if rows else None
        return _Definition(
            chain=chain,
            symbol=symbol,
            kind=kind,
            signature=signature or None,
            container=base in ("class", "impl"),
            name_row=rows[0] if rows else None,
            body_row=self._body_row(inner),
            table_symbol=f"{module}.{symbol}" if module else None,
        )

    def _body_row(self, inner: Any) -> int | None:
        """The first row of the body's content (the first statement, past an opening ``{``)."""
        body = inner.child_by_field_name("body")
        if body is None:
            return None
        for child in body.named_children:
            if "comment" not in child.type:
                rows = self._rows(child)
                if rows is not None:
                    return rows[0]
        rows = self._rows(body)
        return rows[0] if rows else None

    def _special(self, node: Any) -> tuple[str, Any, list] | None:
        """Definitions that are not plain definition nodes: (kind, name node, nodes to open)."""
        language, kind = self.language, node.type
        if language in ("javascript", "typescript", "tsx") and kind in ("lexical_declaration", "variable_declaration"):
            declarators = [c for c in node.named_children if c.type == "variable_declarator"]
            if len(declarators) == 1:
                value = declarators[0].child_by_field_name("value")
                if value is not None and value.type in FUNCTION_VALUES:
                    return "function", declarators[0].child_by_field_name("name"), []
            return None
        if language in ("javascript", "typescript", "tsx") and kind in ("expression_statement", "assignment_expression"):
            # `res.redirect = function redirect(url) {...}`, `Foo.prototype.bar = () => ...`,
            # `exports.parse = function (s) {...}`: the CommonJS / prototype way to define.
            assignment = node if kind == "assignment_expression" else next(
                (c for c in node.named_children if c.type == "assignment_expression"), None)
            if assignment is not None:
                left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
                if left is not None and right is not None and right.type in FUNCTION_VALUES and left.type in (
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
            if child.type in NAME_NODE_TYPES:
                return child
        return None

    def _function_name_node(self, node: Any) -> Any:
        if self.language in ("c", "cpp") and node.type == "function_definition":
            # int *(*name)(args): follow the declarators down to the name
            declarator = node.child_by_field_name("declarator")
            for _ in range(MAX_DEPTH):
                if declarator is None or declarator.type in C_NAME_TYPES:
                    return declarator
                inner = declarator.child_by_field_name("declarator")
                if inner is None:
                    inner = next(
                        (
                            c
                            for c in declarator.named_children
                            if c.type in C_NAME_TYPES or c.type.endswith("declarator")
                        ),
                        None,
                    )
                declarator = inner
            return None
        return self._name_node(node)

    def _name_text(self, inner: Any, name_node: Any) -> str | None:
        if name_node is None:
            fixed = FIXED_NAMES.get(inner.type)
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


def _file_module(path: str) -> str | None:
    """A file's module named by its file name, capitalised: ``lib/angstrom.ml`` -> ``Angstrom``."""
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    return stem[:1].upper() + stem[1:] if stem[:1].isalpha() else None


def _table_entry(definition: _Definition, inner: Sequence[tuple[str, int]] = ()) -> dict[str, Any]:
    """``Span`` labels: ``definition``'s ``table_symbol``, ``also`` names and ``inner`` ones; ``{}`` if none."""
    if definition.name_row is None or definition.table_symbol is None and not definition.also and not inner:
        return {}
    own = (definition.table_symbol or definition.symbol, definition.name_row)
    return {"defined": [own, *definition.also, *inner]}  # a new list per call


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
    return clip(name, SYMBOL_PART_MAX_CHARS) or None

