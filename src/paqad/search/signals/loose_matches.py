"""Loose matches (issue 24): a chunk that only *mentions* a name on a definition line ranks below
a chunk that defines it, when one is among the candidates.

The definition pattern (:func:`~paqad.search.symbols.definition_pattern`) allows 80 characters
between the keyword and the name, so that ``func (c *Cache) Get`` and ``impl Display for Name``
count; it also finds ``Draft`` in ``export function original(value: Draft<any>): any`` and
``Level`` in ``func SetLevel(level Level)``, which then share the full definition share with
``export type Draft<T> = ...``, a definition the chunker's symbol table does not hold (type
aliases are module statements). Here, for each name the query asks for, when some candidate
defines it for sure (a symbol-table match spelled exactly so, or the strict pattern:
:func:`~paqad.search.symbols.strict_definition_pattern`, the name right after its keyword), the
chunks whose only evidence for it is the loose pattern get x ``loose_share``. (The strict
pattern everywhere, ``with-strict-definitions``, loses the loose pattern's real finds when no
strict one is there.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from paqad.search.symbols import defines_in_text

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext
    from paqad.search.symbols import DefinitionMatch


def prefer_strict(context: RankingContext, shares: dict[int, float],
                  by_table: Mapping[int, Sequence[DefinitionMatch]]) -> dict[int, float]:
    """Shares x ``loose_share`` for chunks defining a query name only by the loose pattern, when
    another candidate defines it by the symbol table or the strict pattern."""
    if context.options.loose_share == 1.0 or context.options.strict_definitions:
        return shares
    loose: dict[int, set[int]] = {}  # chunk id -> indexes of the identifiers it matches only loosely
    sure: set[int] = set()  # indexes of identifiers some candidate defines for sure
    for cid in shares:
        text = context.rows[cid].text
        for index, identifier in enumerate(context.info.identifiers):
            table = [m for m in by_table.get(cid, ()) if m.identifier is identifier]
            if any(m.exact for m in table) or defines_in_text(text, identifier.name, strict=True):
                sure.add(index)
            elif not table and defines_in_text(text, identifier.name):
                loose.setdefault(cid, set()).add(index)
    out = dict(shares)
    for cid, indexes in loose.items():
        if indexes & sure and not any(i in sure and _defines_surely(context, cid, i, by_table) for i in indexes):
            out[cid] = shares[cid] * context.options.loose_share
    return out


def _defines_surely(context: RankingContext, cid: int, index: int,
                    by_table: Mapping[int, Sequence[DefinitionMatch]]) -> bool:
    identifier = context.info.identifiers[index]
    return any(m.identifier is identifier and m.exact for m in by_table.get(cid, ())) \
        or defines_in_text(context.rows[cid].text, identifier.name, strict=True)
