"""Definitions of a data-file language found by its query (``chunking/queries/<language>.scm``)."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from paqad.index.chunking.grammar_load import definition_query, node_key
from paqad.index.chunking.grammars import CONTAINER_CAPTURES, FUNCTION_CAPTURES

NodeKey = tuple[int, int, str]  # grammar_load.node_key: (start byte, end byte, node type)


@dataclass(frozen=True)
class QueryTags:
    """What the query found in one file.

    ``definitions``: definition node key -> (base kind ``function``/``class``, its ``@name``
    nodes in byte order); ``modules``: (start byte, name) of each ``@module`` capture, a module
    header (Elm's ``module Parser.Advanced exposing``, Perl's ``package URI::mailto;``), in byte
    order; ``named_modules``: byte ranges of ``@definition.module`` nodes (``package Foo {...}``).
    """

    definitions: Mapping[NodeKey, tuple[str, list]]
    modules: tuple[tuple[int, str], ...] = ()
    named_modules: tuple[tuple[int, int], ...] = ()
    file_module: str | None = None  # the file's own module (``file_module: Stem``): nested ones are inside it

    def module_at(self, offset: int) -> str | None:
        """The module in force at byte ``offset``: the file's module if it has one, else the last
        header above it; None above the first header or inside a named module (its name is its
        own, not under the header's: Perl's ``package Foo {...}``)."""
        if self.file_module:
            return self.file_module
        at = bisect_right(self.modules, (offset, "\uffff")) - 1
        if at < 0 or any(start <= offset < end for start, end in self.named_modules):
            return None
        return self.modules[at][1]


def query_tags(language: str, root: Any, name_of: Callable[[Any], str | None], file_module: str | None = None) -> QueryTags:
    """Run ``language``'s definition query over the tree ``root``: the first pattern to match a
    node wins; ``name_of`` gives a ``@module`` node's cleaned name (None: left out);
    ``file_module``: the file's own module name, when its language names modules by file."""
    from tree_sitter import QueryCursor

    tagged: dict[NodeKey, tuple[int, str, list]] = {}
    modules: dict[int, str | None] = {}
    named: list[tuple[int, int]] = []
    for pattern, captures in QueryCursor(definition_query(language)).matches(root):
        for node in captures.get("module", ()):
            modules.setdefault(node.start_byte, name_of(node))
        names = sorted(captures.get("name", []), key=lambda n: n.start_byte)
        for capture, nodes in captures.items():
            base = "function" if capture in FUNCTION_CAPTURES else "class" if capture in CONTAINER_CAPTURES else None
            if base is None or not names:
                continue
            for node in nodes:
                key = node_key(node)
                if key not in tagged or tagged[key][0] > pattern:
                    tagged[key] = (pattern, base, names)
                if capture == "definition.module":
                    named.append((node.start_byte, node.end_byte))
    return QueryTags(
        definitions={key: (base, names) for key, (_, base, names) in tagged.items()},
        modules=tuple(sorted((start, name) for start, name in modules.items() if name)),
        named_modules=tuple(named),
        file_module=file_module,
    )
