"""Reopenings (issue 24): in Ruby, a scope reopened only to nest another definition in it is not
where the scope is defined.

Ruby files nest a class by reopening its namespace: ``lib/faraday/request/json.rb`` says
``module Faraday; class Request; class Json < Middleware``, so every such file defines
``Request`` to the symbol table (its first chunk lists ``Faraday.Request``) and to the definition
pattern (``class Request``), and a lookup of ``Request`` ties them with, or ranks them over, the
real definition, ``Request = Struct.new(...)`` in ``lib/faraday/request.rb``. A Ruby chunk
reopens a name when
- its every table match of the name is the scope of a type nested in it (the chunk's own symbol
  is ``Faraday.Request.Json``, a class or module, for the match ``Faraday.Request``; a class header
  merged into its first *method*'s chunk is the definition and is not touched), or
- without a table match, every line of its text that defines the name is ``class Name`` or
  ``module Name`` (no superclass) whose next line of code opens another ``class`` or ``module``;
and its share of the name is then x ``reopening_share``. Ruby only: a Python ``class Schema:``
whose first member is ``class Meta:`` is the definition.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Mapping, Sequence

from paqad.search.signals.symbol_shares import symbol_parts

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext
    from paqad.search.symbols import DefinitionMatch
    from paqad.store import ChunkRow

LANGUAGES = frozenset({"ruby"})
# kinds of a chunk whose symbol is a nested type (the chunker's kinds for classes and modules)
NESTED_KINDS = frozenset({"class", "module"})
_OPENER = re.compile(r"^[ \t]*(?:class|module)[ \t]+([A-Z]\w*(?:::[A-Z]\w*)*)[ \t]*(<)?")


def reopens(match: DefinitionMatch, row: ChunkRow) -> bool:
    """Whether ``row`` holds ``match``'s symbol only as the scope of a type nested in it."""
    scope, own = symbol_parts(match.symbol), symbol_parts(row.symbol)
    return bool(scope) and row.kind in NESTED_KINDS and len(own) > len(scope) and own[:len(scope)] == scope


def reopens_in_text(text: str, name: str) -> bool:
    """Whether every ``class``/``module`` line of ``text`` naming ``name`` (at least one) only opens
    it to nest another ``class``/``module`` (the next line that is not blank or a comment)."""
    lines = text.split("\n")
    found = False
    for i, line in enumerate(lines):
        m = _OPENER.match(line)
        if not m or m.group(1).rsplit("::", 1)[-1] != name:
            continue
        if m.group(2):  # `class Name < Base`: a definition with a superclass
            return False
        following = next((x for x in lines[i + 1:] if x.strip() and not x.lstrip().startswith("#")), "")
        if not _OPENER.match(following):
            return False
        found = True
    return found


def discount_reopenings(context: RankingContext, shares: dict[int, float],
                        by_table: Mapping[int, Sequence[DefinitionMatch]]) -> dict[int, float]:
    """Shares x ``reopening_share`` for Ruby chunks that only reopen a query name (see the module)."""
    if context.options.reopening_share == 1.0:
        return shares
    names = [i.name for i in context.info.identifiers]
    out = dict(shares)
    for cid, share in shares.items():
        row = context.rows[cid]
        if row.language not in LANGUAGES:
            continue
        matches = by_table.get(cid, ())
        if matches:
            reopened = all(reopens(m, row) for m in matches)
        else:
            reopened = any(name in row.text and reopens_in_text(row.text, name) for name in names)
        if reopened:
            out[cid] = share * context.options.reopening_share
    return out
