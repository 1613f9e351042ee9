"""Reopenings (issue 24): a scope reopened only to nest another definition in it is not where the
scope is defined.

Ruby (and Crystal) files nest a class by reopening its namespace: ``lib/faraday/request/json.rb``
says ``module Faraday; class Request; class Json < Middleware``, so the symbol table lists
``Faraday.Request`` on every such file's first chunk, and a lookup of ``Request`` ties them with
(or ranks them over) the real definition, ``Request = Struct.new(...)`` in ``lib/faraday/request.rb``.
A chunk whose own symbol is a type nested in the matched one (chunk symbol
``Faraday.Request.Json``, a class, for the match ``Faraday.Request``) holds the reopening line,
not the definition: its share of that name x ``reopening_share``. A chunk whose own symbol is a
*method* of the matched type (a class header merged into its first method's chunk) is the
definition and keeps its share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from paqad.search.signals.symbol_shares import symbol_parts

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext
    from paqad.search.symbols import DefinitionMatch
    from paqad.store import ChunkRow

# kinds of a chunk whose symbol is a nested type (the chunker's kinds for classes, modules, structs)
NESTED_KINDS = frozenset({"class", "module", "struct", "interface", "trait", "enum"})


def reopens(match: DefinitionMatch, row: ChunkRow) -> bool:
    """Whether ``row`` holds ``match``'s symbol only as the scope of a type nested in it."""
    scope, own = symbol_parts(match.symbol), symbol_parts(row.symbol)
    return bool(scope) and row.kind in NESTED_KINDS and len(own) > len(scope) and own[:len(scope)] == scope


def discount_reopenings(context: RankingContext, shares: dict[int, float],
                        by_table: Mapping[int, Sequence[DefinitionMatch]]) -> dict[int, float]:
    """Shares x ``reopening_share`` for chunks whose every table match only reopens the matched scope."""
    if context.options.reopening_share == 1.0:
        return shares
    out = dict(shares)
    for cid, matches in by_table.items():
        if cid in shares and matches and all(reopens(m, context.rows[cid]) for m in matches):
            out[cid] = shares[cid] * context.options.reopening_share
    return out
