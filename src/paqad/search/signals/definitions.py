"""Definitions: a chunk that defines an identifier the query names gains ``definition_boost``
times the best fused score, scaled by how sure the match is (DESIGN §8.3).

The share is 1.0 for a symbol-table match whose qualifier agrees (or a definition line of a bare
name), ``unqualified_share`` for a bare name match of a qualified identifier, times
``embedded_share`` for an identifier found inside prose (and ``long_prompt_share`` in a long
prompt), times ``file_name_boost`` when the file is named like the symbol, times ``inexact_case_share``
for a symbol spelled with another case, and times ``declaration_share`` in a declaration file
(``.mli``, ``.h``, ``.d.ts``, ``.pyi``) beside an implementation file of the same name that defines
it too, and times ``constructor_share`` for a non-type chunk defining a PascalCase name when
the type's own chunk is a candidate (Julia outer constructors, Dart factories), and times
``overload_share`` for a body-less overload signature beside its implementation
(:mod:`~paqad.search.signals.overloads`), and times ``reopening_share`` for a Ruby namespace
reopened only to nest another class (:mod:`~paqad.search.signals.reopenings`), and times
``loose_share`` for a name found only by the loose pattern when a candidate defines it for sure
(:mod:`~paqad.search.signals.loose_matches`), and times
``canonical_share`` for a definition of a name defined in several modules that is not the
canonical one (an override, a submodule's, a wrapper: :mod:`~paqad.search.signals.canonical`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad import store as store_mod
from paqad.search.analysis import Identifier
from paqad.search.signals.canonical import prefer_canonical
from paqad.search.signals.header_types import keeps_share
from paqad.search.signals.loose_matches import prefer_strict
from paqad.search.signals.overloads import prefer_bodies
from paqad.search.signals.reopenings import discount_reopenings
from paqad.search.signals.trait_impls import prefer_rust_definitions
from paqad.search.symbols import (SIGNATURE_LANGUAGES, DefinitionMatch, declares_field, declares_method,
                                  defines_constant_in_text, defines_in_text, defines_signature_in_text, go_spec_pattern,
                                  is_constant_shape, only_type_uses, text_type)

if TYPE_CHECKING:
    from paqad.search.options import RankingOptions
    from paqad.search.signals.context import RankingContext


def _file_key(path: str) -> str:
    return store_mod.symbol_key(path.rsplit("/", 1)[-1].split(".", 1)[0])


# interface/declaration files: their definition of a name is the declaration, not the body
DECLARATION_SUFFIXES = (".mli", ".h", ".hh", ".hpp", ".hxx", ".d.ts", ".d.mts", ".d.cts", ".pyi")


def _share(context: RankingContext, row: store_mod.ChunkRow, identifier: Identifier,
           table: list[DefinitionMatch]) -> float:
    """How strongly ``row`` defines ``identifier`` (0.0: not at all)."""
    options = context.options
    if table:
        share = 1.0 if table[0].qualified else options.unqualified_share
        if not any(m.exact for m in table):
            share *= options.inexact_case_share
    elif _defines(row, identifier.name, options):
        share = options.unqualified_share if identifier.qualified else 1.0
    elif options.member_fields and identifier.qualified and declares_field(row, identifier.parts[-2], identifier.name):
        share = options.unqualified_share  # `Foo.bar`: a field of Foo's body (qualified_members lifts it)
    elif options.member_heads and identifier.qualified and declares_method(row, identifier.parts[-2], identifier.name):
        share = options.unqualified_share  # round 8: `TimeoutError.constructor` in the class's own chunk
    elif options.qualified_signatures and identifier.qualified and _member_head(row, identifier):
        share = options.unqualified_share  # round 8: a C++ method head of Foo's, its line led by a macro
    else:
        return 0.0
    if identifier.embedded:
        share *= options.embedded_share
        if context.info.long:
            share *= options.long_prompt_share
    if _file_key(row.path) == store_mod.symbol_key(identifier.name):
        share *= options.file_name_boost
    return share


def _member_head(row: store_mod.ChunkRow, identifier: Identifier) -> bool:
    """A C/C++ chunk whose symbol path names the qualifier of ``Foo::bar`` and whose text holds a
    definition head of ``bar`` without a keyword (``CLI11_NODISCARD const std::string &get_group()
    const {``, which the table names ``OptionBase.std`` after its return type)."""
    parts = [p.lower() for p in re.split(r"::|\.|#", row.symbol or "")]
    return (row.language in SIGNATURE_LANGUAGES and identifier.parts[-2].lower() in parts
            and defines_signature_in_text(row.text, identifier.name))


def _defines(row: store_mod.ChunkRow, name: str, options: RankingOptions) -> bool:
    """The text rule of a definition: a constant-shaped name (``MAX_VEC_POS``, ``GUID``) by
    :func:`~paqad.search.symbols.defines_constant_in_text` (``constant_shapes``: the name right
    after its keyword, or a property at a line's start, not inside a longer line), else
    :func:`~paqad.search.symbols.defines_in_text`, and in C/C++ (``c_signatures``) a function
    definition's head without a keyword (``inline _Indent Indent(int value) {``:
    :func:`~paqad.search.symbols.defines_signature_in_text`), and in Go (``go_specs``) a typed
    spec of a ``const``/``var`` block (``PanicLevel Level = iota``). In C/C++ (``c_type_uses``,
    round 8) lines that only declare something of the type (``struct locfile* f(...)``:
    :func:`~paqad.search.symbols.only_type_uses`) define nothing."""
    if options.constant_shapes and is_constant_shape(name):
        return defines_constant_in_text(row.text, name)
    if defines_in_text(row.text, name, options.strict_definitions):
        # round 8 (c_type_uses): `struct locfile* locfile_init(...)` declares a function returning one
        return not (options.c_type_uses and row.language in SIGNATURE_LANGUAGES and only_type_uses(row.text, name))
    if options.go_specs and row.language == "go" and name in row.text and go_spec_pattern(name).search(row.text):
        return True
    return (options.c_signatures and row.language in SIGNATURE_LANGUAGES
            and defines_signature_in_text(row.text, name))


def definition_shares(context: RankingContext) -> dict[int, float]:
    """Chunk id -> its best share over the query's identifiers (chunks with none left out)."""
    if not context.info.identifiers:
        return {}
    by_table: dict[int, list[DefinitionMatch]] = {}
    for match in context.definitions:
        by_table.setdefault(match.chunk_id, []).append(match)
    shares: dict[int, float] = {}
    for cid, row in context.rows.items():
        boost = 0.0
        matches = by_table.get(cid, ())
        for identifier in context.info.identifiers:
            table = [m for m in matches if m.identifier is identifier]
            if table or identifier.name in row.text:  # else it cannot define it (a fast exit)
                boost = max(boost, _share(context, row, identifier, table))
        if boost:
            shares[cid] = boost
    shares = prefer_strict(context, discount_reopenings(context, shares, by_table), by_table)
    shares = prefer_rust_definitions(context, shares, by_table)  # issue 24, round 8
    return prefer_canonical(context, _prefer_types(context, prefer_bodies(context, _prefer_implementations(context, shares))))


def _stem(path: str) -> str:
    """A file's name without folder and extensions (``lib/parser.mli`` -> ``parser``)."""
    return path.rsplit("/", 1)[-1].split(".", 1)[0]


def _prefer_implementations(context: RankingContext, shares: dict[int, float]) -> dict[int, float]:
    """Shares x ``declaration_share`` for a declaration file (``parser.mli``, ``slice.h``) whose
    implementation file of the same name (``parser.ml``, ``slice.cc``) defines a query name too;
    a header alone (a C++ class defined in its ``.h``) keeps its share, and so (``header_types``)
    does a header chunk defining a type-shaped query name as a type
    (:mod:`~paqad.search.signals.header_types`)."""
    if context.options.declaration_share == 1.0:
        return shares
    # round 8 (header_types): a class/struct body in a header is the type's definition, not a declaration
    declared = {cid for cid in shares if context.rows[cid].path.endswith(DECLARATION_SUFFIXES)
                and not keeps_share(context, cid)}
    implemented = {_stem(context.rows[cid].path) for cid in shares if cid not in declared}
    return {cid: share * (context.options.declaration_share
                          if cid in declared and _stem(context.rows[cid].path) in implemented else 1.0)
            for cid, share in shares.items()}


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores plus ``definition_boost`` x best fused score x share for each defining chunk."""
    out = dict(scores)
    for cid, share in context.definition_shares.items():
        out[cid] += context.options.definition_boost * context.best * share
    return out


TYPE_KINDS = frozenset({"class", "struct", "interface", "type", "enum", "trait", "protocol", "record"})


def _prefer_types(context: RankingContext, shares: dict[int, float]) -> dict[int, float]:
    """For a PascalCase name, bare or qualified (``Trie``, ``bytes_mut::Shared``): shares x
    ``constructor_share`` for the chunks that define it but are not a type definition (Julia outer
    constructors, a Dart factory, a Rust ``impl Shared`` block, a method ``Level.Level``, a
    parameter typed ``Level``), when a type chunk named so is among the candidates too: by the
    symbol table, or (``text_types``) by its text (:func:`~paqad.search.symbols.text_type`)."""
    names = {i.name for i in context.info.identifiers
             if i.name[:1].isupper() and (not i.qualified or context.options.qualified_types)}
    if context.options.constructor_share == 1.0 or not names:
        return shares

    def is_type(cid: int) -> bool:
        row = context.rows[cid]
        if row.kind in TYPE_KINDS and (row.symbol or "").replace("::", ".").rsplit(".", 1)[-1] in names:
            return True
        return context.options.text_types and text_type(row, names)

    if not any(is_type(cid) for cid in shares):
        return shares
    return {cid: share * (1.0 if is_type(cid) else context.options.constructor_share)
            for cid, share in shares.items()}
