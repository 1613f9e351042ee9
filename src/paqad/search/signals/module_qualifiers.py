"""Module qualifiers (issue 24): a qualified name whose qualifier names the definition's module,
package or folder rather than an enclosing type (Rust ``bytes_mut::Shared``, Python
``validate.Email``, Go ``slog.Level``) picks the definition in that module.

The symbol table's qualifier test (:func:`~paqad.search.symbols.symbol_pool`) compares the
query's qualifier with the symbol path alone, so every module's ``Shared`` gets the bare-name
share (``unqualified_share``) and the right one ties with its namesakes. Here a candidate whose
symbol is the asked name, and whose symbol path's owners (if any) are the qualifier's last parts,
gets the share of a qualified match (its bare-name share / ``unqualified_share``, at most the
identifier's factor) when each remaining qualifier part is a folder or the file stem of its path
(:func:`~paqad.search.signals.symbol_shares.path_components`, lower case, ``-`` as ``_``):
``bytes_mut::Shared`` -> ``Shared`` in ``src/bytes_mut.rs``, not ``Shared`` in ``src/bytes.rs``;
``utils.get_value`` -> ``get_value`` in ``utils.py``, not ``Field.get_value`` in ``fields.py``.
A candidate the table already matched with its qualifier (``Angstrom.Buffered.state_to_result``
in ``lib/angstrom.mli``, from the file-module header) gains nothing here: its share lacks no
bare-name discount, only the other rules' (the declaration file's), which stay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, AbstractSet, Callable

from paqad.search.analysis import Identifier
from paqad.search.symbols import text_type
from paqad.search.signals.symbol_shares import add_shares, identifier_factor, module_names, path_components, symbol_parts

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext
    from paqad.store import ChunkRow


def _norm(part: str) -> str:
    return part.lower().replace("-", "_")


def qualified_by_path(identifier: Identifier, row: ChunkRow, text_types: bool = False,
                      names: Callable[[str], AbstractSet[str]] = path_components, impl_types: bool = False) -> bool:
    """Whether ``row``'s symbol is ``identifier``'s name and the qualifier is its module path plus
    its owners: the symbol's owner parts end the qualifier, and every qualifier part before them
    (at least one) is one of ``names(row.path)`` (its folders and stem; with round 11's
    ``package_qualifiers``, its package's names too: :func:`~paqad.search.signals.symbol_shares.module_names`).
    With ``text_types``, a chunk whose text defines the name as a type
    (:func:`~paqad.search.symbols.text_type`: Go's ``type Level logrus.Level`` in a chunk without
    a symbol) counts as named so, without owners; with ``impl_types`` (round 11,
    ``RankingOptions.rust_impl_types``) not a Rust ``impl`` chunk, whose ``type Error = Error;`` binds
    the impl's associated type and defines no type of the module."""
    parts = symbol_parts(row.symbol)
    if (not parts or parts[-1] != identifier.name) and text_types and text_type(row, {identifier.name}) and not (
            impl_types and row.language == "rust" and row.kind == "impl"):
        parts = [identifier.name]
    if not parts or parts[-1] != identifier.name:
        return False
    owners = [_norm(p) for p in parts[:-1]]
    qualifier = [_norm(p) for p in identifier.parts[:-1]]
    if len(owners) >= len(qualifier) or (owners and qualifier[-len(owners):] != owners):
        return False
    modules = qualifier[:len(qualifier) - len(owners)]
    components = names(row.path)
    return all(m in components for m in modules)


def module_shares(context: RankingContext) -> dict[int, float]:
    """Chunk id -> the share this signal adds (what a path-qualified definition lacks of a full share)."""
    extra: dict[int, float] = {}
    names = module_names(context)
    for identifier in (i for i in context.info.identifiers if i.qualified):
        factor = identifier_factor(context, identifier)
        # the table matched the qualifier already: no bare-name discount to take back (what it
        # lacks is another rule's, e.g. an OCaml `.mli` declaration beside its `.ml`)
        named = {m.chunk_id for m in context.definitions if m.identifier is identifier and m.qualified}
        for cid, share in context.definition_shares.items():
            if cid not in named and share < factor and qualified_by_path(identifier, context.rows[cid], context.options.text_types, names,
                                                                                   context.options.rust_impl_types):
                # as if the table had matched the qualifier: the bare-name discount taken back, the
                # others (another case, an impl block below its type) kept
                target = min(factor, share / context.options.unqualified_share)
                extra[cid] = max(extra.get(cid, 0.0), target - share)
    return extra


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores plus the module-qualifier shares (see the module docstring)."""
    if not any(i.qualified for i in context.info.identifiers):
        return scores
    extra = module_shares(context)
    return add_shares(scores, context, extra) if extra else scores
