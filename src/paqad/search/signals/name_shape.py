"""Exact-name disambiguation by the query's shape (issue 24), four signals of one module:

- ``qualified_members`` (``Foo.bar``, ``Foo::bar``): a chunk that defines ``bar`` inside ``Foo``
  (its symbol path names ``Foo``: a class field ``produce = (...) =>`` of ``class Immer``; with
  ``member_fields``, a field declared in ``Foo``'s body: Go ``DataKey string``) gets
  the full share a qualified symbol-table match gets, over other files' bare ``bar``;
- ``type_members`` (``CurlMultiHandler tick``: a type name then one word, a short query): the
  chunk whose symbol is that member (``CurlMultiHandler.tick``) is asked for, as ``Foo.bar``, and
  the type's own chunks lose the share they got for the type's name;
- ``macro_or_function``: a name a C macro (``#define name``) and a function both define ranks the
  function first unless the query says "macro" (``macro_share`` on the macro's score; then, with
  ``asked_macros``, round 8, on the function's);
- ``free_functions`` (round 6): a bare lower-case name (``isTerminal``, ``split_up()``) that a free
  function and a type's method both define with a full share ranks the free function first
  (``member_share`` on the methods' scores): a method is named by its type (``Foo.bar``);
- ``kind_words`` (round 6): a two-word query naming a type and its kind (``Validator class``,
  ``struct Header``), whose name alone is a plain word to the analysis (one hump: no identifier),
  gives the chunk defining that type (:func:`~paqad.search.symbols.text_type`; without one among
  the candidates, the type's chunks) the share of a name embedded in prose (``kind_word_share``);
- ``root_package``: a bare name defined with a full share in several folders (``Hook`` in
  ``hooks.go`` and ``hooks/slog/slog.go``) ranks the definition nearest the project root first
  (``root_package_share`` on the deeper ones' scores).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.index.tokens import NAME, name_start
from paqad.search.analysis import SYMBOL
from paqad.search.signals.definitions import TYPE_KINDS
from paqad.search.signals.symbol_shares import add_shares, identifier_factor, symbol_parts
from paqad.search.symbols import (OWNER_KINDS, SIGNATURE_LANGUAGES, declares_field, declares_method,
                                  defines_in_text, defines_signature_in_text, text_type)

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

FUNCTION_KINDS = frozenset({"function", "method"})
_MACRO_WORDS = re.compile(r"\bmacros?\b|#\s*define", re.IGNORECASE)


def _full_share(context: RankingContext, cid: int, qualifier: str, name: str) -> bool:
    """The chunk's symbol path names ``qualifier`` and it defines ``name``: a member named so
    (``Immer.produce``), or a type chunk of ``qualifier`` whose text defines it."""
    row = context.rows[cid]
    parts = [p.lower() for p in symbol_parts(row.symbol)]
    if qualifier.lower() not in parts:
        return False
    # the name right after its keyword or as an assignment's target (symbols.strict_definition_pattern):
    # `produce: IProduce = (...) =>`, not `const result = this.produce(...)` in the same class
    if parts[-1] == qualifier.lower():  # the chunk is Foo itself: a class body, not a namespace's forward declarations
        if row.kind not in OWNER_KINDS:
            return False
        # round 6 (`member_fields`): a field of Foo's body (Go `DataKey string`, `private int count;`)
        return defines_in_text(row.text, name, strict=True) or (
            context.options.member_fields and declares_field(row, qualifier, name)) or (
            context.options.member_heads and declares_method(row, qualifier, name))
    if parts[-1] == name.lower() or defines_in_text(row.text, name, strict=True):
        return True
    # round 8 (qualified_signatures): a C++ method head the table named after its return type
    # (`CLI11_NODISCARD const std::string &get_group() const {` as `OptionBase.std`)
    return (context.options.qualified_signatures and row.language in SIGNATURE_LANGUAGES
            and defines_signature_in_text(row.text, name))


def qualified_members(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores plus the share a ``Foo.bar`` query's member definitions inside ``Foo`` lack."""
    extra: dict[int, float] = {}
    for identifier in (i for i in context.info.identifiers if i.qualified):
        factor = identifier_factor(context, identifier)
        for cid, share in context.definition_shares.items():
            if share < factor and _full_share(context, cid, identifier.parts[-2], identifier.name):
                extra[cid] = max(extra.get(cid, 0.0), factor - share)
    return add_shares(scores, context, extra) if extra else scores


def _member_query(context: RankingContext) -> tuple[str, str] | None:
    """``(type, member)`` for a short query that is a type name then one word."""
    info = context.info
    tokens = info.text.split()
    if info.kind == SYMBOL or len(tokens) != 2:  # longer prose names members by accident
        return None
    names = {i.name for i in info.identifiers if not i.qualified}
    if tokens[0] in names and re.fullmatch(NAME, tokens[1]):
        return tokens[0], tokens[1]
    return None


def type_members(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores plus a full share for the chunk whose symbol is ``Type.member`` of a ``Type member``
    query (the member's definition, over the type's other chunks)."""
    asked = _member_query(context)
    if asked is None:
        return scores
    owner, member = asked[0].lower(), asked[1].lower()
    extra = {}
    for cid, row in context.rows.items():
        parts = [p.lower() for p in symbol_parts(row.symbol)]
        if len(parts) >= 2 and parts[-1] == member and parts[-2] == owner:
            extra[cid] = 1.0 - context.definition_shares.get(cid, 0.0)
    if not extra:
        return scores
    # the type's own chunks got the definitions signal's share for naming the type; here the type
    # is the qualifier, not what is asked for: that share is taken back
    taken = {cid: -share for cid, share in context.definition_shares.items()
             if cid not in extra and [p.lower() for p in symbol_parts(context.rows[cid].symbol)][-1:] == [owner]}
    return add_shares(scores, context, {**extra, **taken})


def _is_macro(row_text: str, name: str) -> bool:
    return re.search(rf"^[ \t]*#[ \t]*define[ \t]+{re.escape(name)}\b", row_text, re.MULTILINE) is not None


def macro_or_function(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``macro_share`` on chunks that define a query name as a macro when a function
    chunk defines it too (and the query does not ask for a macro); when the query says "macro"
    (``asked_macros``, round 8), on the function chunks instead."""
    asked = _MACRO_WORDS.search(context.info.text) is not None
    if asked and not context.options.asked_macros:
        return scores
    out = dict(scores)
    for identifier in context.info.identifiers:
        name = identifier.name
        defining = {cid: context.rows[cid] for cid in context.definition_shares if name in context.rows[cid].text}
        functions = [cid for cid, row in defining.items()
                     if row.kind in FUNCTION_KINDS and symbol_parts(row.symbol)[-1:] == [name]]
        if not functions:
            continue
        macros = [cid for cid, row in defining.items() if cid not in functions and _is_macro(row.text, name)]
        if asked:  # round 8 (asked_macros): "the buffer_used macro": the function of the name below it
            if macros:
                for cid in functions:
                    out[cid] *= context.options.macro_share
            continue
        for cid in macros:
            out[cid] *= context.options.macro_share
    return out


def free_functions(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``member_share`` on the method definitions of a bare lower-case query name
    when a free function of the same name has a full share too."""
    out = dict(scores)
    for identifier in (i for i in context.info.identifiers if not i.qualified and i.name[:1].islower()):
        factor = identifier_factor(context, identifier)
        full = {cid: symbol_parts(context.rows[cid].symbol) for cid, share in context.definition_shares.items()
                if share >= factor and context.rows[cid].kind in FUNCTION_KINDS}
        named = {cid: parts for cid, parts in full.items() if parts[-1:] == [identifier.name]}
        if not any(len(parts) == 1 for parts in named.values()):
            continue
        for cid, parts in named.items():
            if len(parts) > 1:
                out[cid] *= context.options.member_share
    return out


_TYPE_WORDS = "class|struct|enum|interface|trait|type|union|record|protocol"
_KIND_QUERY = re.compile(rf"(?:(?:{_TYPE_WORDS})\s+(?P<a>{name_start('$')}[\w$]*)|(?P<b>{name_start('$')}[\w$]*)\s+(?:{_TYPE_WORDS}))",
                         re.IGNORECASE)


def kind_words(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores plus ``kind_word_share`` for the chunks defining the type a ``Name class`` query
    names, when the analysis found no identifier in it."""
    match = _KIND_QUERY.fullmatch(context.info.text.strip())
    if match is None or context.info.identifiers:
        return scores
    name = match.group("a") or match.group("b")
    fresh = {cid: row for cid, row in context.rows.items() if cid not in context.definition_shares}
    # the chunk with the type's definition line; else (no such candidate) the type's chunks
    heads = [cid for cid, row in fresh.items() if text_type(row, {name})]
    picked = heads or [cid for cid, row in fresh.items()
                       if row.kind in TYPE_KINDS and symbol_parts(row.symbol)[-1:] == [name]]
    extra = dict.fromkeys(picked, context.options.kind_word_share)
    return add_shares(scores, context, extra) if extra else scores


def root_package(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``root_package_share`` on full-share definitions of a bare query name in
    deeper folders than the shallowest one defining it."""
    out = dict(scores)
    for identifier in (i for i in context.info.identifiers if not i.qualified):
        factor = identifier_factor(context, identifier)
        full = [cid for cid, share in context.definition_shares.items()
                if share >= factor and symbol_parts(context.rows[cid].symbol)[-1:] == [identifier.name]]
        depths = {cid: context.rows[cid].path.count("/") for cid in full}
        if len({context.rows[cid].path for cid in full}) < 2:
            continue
        shallowest = min(depths.values())
        for cid, depth in depths.items():
            if depth > shallowest:
                out[cid] *= context.options.root_package_share
    return out
