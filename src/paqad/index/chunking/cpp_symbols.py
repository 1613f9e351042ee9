"""C/C++ symbols a definition's chunk holds besides its own name (the symbol table's entries).

* ``typedef struct tag {...} alias;``: code names the type both ways (``struct tag *p`` and
  ``alias``), so both are symbols of the chunk (chunker 6 named only ``alias``).
* A class that fits one chunk: the methods defined in its body (``Table.size``) are symbols of
  that chunk, the names they would get if the class were cut per member (chunker 6 named only
  the class, so ``App.get_name`` had no definition when ``App`` was short).
"""

from __future__ import annotations

from typing import Any, Sequence

from paqad.index.chunking.cpp_macros import MACRO_LANGUAGES


def typedef_tag(cutter: Any, node: Any, alias: str, scope: str | None) -> list[tuple[str, int]]:
    """``[(tag symbol, row)]`` of the ``type_definition`` ``node`` (``cutter``: the file's
    :class:`~paqad.index.chunking.code.CodeCutter`), or ``[]`` when it has no tag or the tag is ``alias``."""
    value = node.child_by_field_name("type")
    tag = value.child_by_field_name("name") if value is not None else None
    rows = cutter._rows(tag) if tag is not None else None
    name = cutter._name_text(value, tag) if rows is not None else None
    if name is None:
        return []
    symbol = f"{scope}.{name}" if scope else name
    return [] if symbol == alias else [(symbol, rows[0])]


def inner_definitions(cutter: Any, nodes: Sequence[Any], definition: Any, depth: int) -> list[tuple[str, int]]:
    """(symbol, name row) of every definition inside the C/C++ class ``definition`` whose chunk
    holds ``nodes``, those of classes defined inside it included, in order; ``[]`` for a
    definition that is no class and for every other language (their chunks stay chunker 6's)."""
    from paqad.index.chunking.code import MAX_DEPTH, Fallback

    if not definition.container or cutter.language not in MACRO_LANGUAGES:
        return []
    if depth > MAX_DEPTH:
        raise Fallback
    found: list[tuple[str, int]] = []
    for node in cutter._members(nodes, definition.chain, depth):
        inner = cutter._definition(node, definition.symbol)
        if inner is None or inner.name_row is None:
            continue
        found.append((inner.symbol, inner.name_row))
        found.extend(inner.also)
        if inner.container:
            found.extend(inner_definitions(cutter, [node], inner, depth + 1))
    return found
