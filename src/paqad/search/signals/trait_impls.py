"""Rust trait implementations are not the trait's definition (issue 24, round 8).

The definition rule (:func:`~paqad.search.symbols.definition_pattern`, and its strict form) reads
``impl<T: DerefMut> CryptoRng for T {}`` as a line defining ``CryptoRng`` (a keyword, then the
name), and ``let rng2 = &mut rng1.clone() as &mut dyn CryptoRng;`` too (``let`` then the name
within 80 characters). In a cargo workspace a trait is implemented in every crate that has a
type for it: for ``rand::CryptoRng`` (rand 0.9, dev, round 8) the trait's own chunk in
``rand_core/src/lib.rs`` came first, then eight chunks with the same full share: a test's
``let`` in ``rand_chacha``, the blanket ``impl ... CryptoRng for T``, and ``impl CryptoRng for
ThreadRng``/``ReseedingRng``/``BlockRng``/``StdRng`` of other crates and modules, above the
re-export in ``src/lib.rs`` that the qualifier asks for.

In Rust a name ``N`` is *defined* by a line ``[pub] fn|struct|enum|trait|type|union|const|static|mod
N``, ``macro_rules! N``, an inherent ``impl[<..>] N[<..>] {`` (the type's own block), or ``impl
Trait for N`` (N's implementation of a trait: N's code); everything else the loose rule finds is
a *use*: ``impl N for Other`` implements the trait N for another type, ``let``/``fn`` lines name
it as a type. With ``RankingOptions.trait_impl_share`` below 1.0, a Rust chunk whose only lines
for a query name are uses (:func:`defines_rust_name` false, no exact symbol-table match) gets
its definition share x that factor, when another candidate defines the name (so a trait whose
definition is not among the candidates keeps its implementations' shares).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Mapping, Sequence

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext
    from paqad.search.symbols import DefinitionMatch

_VISIBILITY = r"(?:pub(?:\([^)]*\))?\s+)?(?:(?:unsafe|async|const|extern(?:\s+\"[^\"]*\")?|default)\s+)*"
_GENERICS = r"(?:<(?:[^<>]|<[^<>]*>)*>)?"


@lru_cache(maxsize=512)
def _rust_definition(name: str) -> re.Pattern[str]:
    escaped = re.escape(name)
    return re.compile(
        rf"^[ \t]*{_VISIBILITY}(?:fn|struct|enum|trait|type|union|const|static|mod)\s+{escaped}(?!\w)"
        rf"|^[ \t]*macro_rules!\s*{escaped}(?!\w)"
        rf"|^[ \t]*{_VISIBILITY}impl\s*{_GENERICS}\s*(?:[\w:]+::)?{escaped}\s*{_GENERICS}\s*(?:where\b|\{{|$)"  # impl N
        rf"|^[ \t]*{_VISIBILITY}impl\b[^\n]{{0,120}}?\bfor\s+(?:[\w:]+::)?{escaped}(?!\w)",  # impl Trait for N
        re.MULTILINE,
    )


def defines_rust_name(text: str, name: str) -> bool:
    """Whether a Rust chunk's ``text`` defines ``name`` (see the module docstring): ``trait Sink``,
    ``impl Sink {``, ``impl Buf for Sink``; not ``impl Sink for Vec<u8>`` nor ``let s: Sink``."""
    return name in text and bool(_rust_definition(name).search(text))


def prefer_rust_definitions(context: RankingContext, shares: dict[int, float],
                            by_table: Mapping[int, Sequence[DefinitionMatch]]) -> dict[int, float]:
    """Shares x ``trait_impl_share`` for Rust chunks that only use a query name another candidate
    defines (see the module docstring)."""
    factor = context.options.trait_impl_share
    if factor == 1.0 or not context.info.identifiers:
        return shares
    uses: dict[int, set[int]] = {}  # chunk id -> indexes of the identifiers it only uses (it defines none)
    defined: set[int] = set()  # indexes of identifiers some Rust candidate defines
    for cid in shares:
        row = context.rows[cid]
        if row.language != "rust":
            continue
        own_defs, own_uses = set(), set()
        for index, identifier in enumerate(context.info.identifiers):
            exact = any(m.identifier is identifier and m.exact for m in by_table.get(cid, ()))
            if exact or defines_rust_name(row.text, identifier.name):
                own_defs.add(index)
            elif identifier.name in row.text:
                own_uses.add(index)
        defined |= own_defs
        if own_uses and not own_defs:
            uses[cid] = own_uses
    out = dict(shares)
    for cid, indexes in uses.items():
        if indexes <= defined:
            out[cid] = shares[cid] * factor
    return out
