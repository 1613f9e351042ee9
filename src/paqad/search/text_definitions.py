"""Text definitions (issue 24, round 8): chunks that define a symbol query's name by their text,
found when the symbol table does not hold the name.

The chunker's symbol table holds functions, methods and types; constants, macros, class-level
assignments and type aliases are statements inside a bigger chunk (Ruby's ``METHODS = Set.new
...`` in the first chunk of ``class Connection``, a C ``#define FLUSH(...)``). The definitions
signal finds them by the definition pattern, but only among the candidates, and a candidate they
are only when BM25 or the dense pool ranks them in its first :data:`~paqad.search.ranking.POOL_SIZE`:
a name whose parts are common words (``METHODS``: "methods" in 180 chunks of faraday) puts its
definition far below that.

:func:`text_definition_pool`: for each identifier of a symbol query (the whole query, bare or
qualified; not one embedded in prose) that the symbol table does not hold and no candidate of
the fusion defines by its text, the first :data:`TEXT_DEFINITION_DEPTH` BM25 hits of its own name
are read and those whose text defines it are kept (:func:`~paqad.search.symbols.defines_constant_in_text` for a constant-shaped
name, else the strict pattern :func:`~paqad.search.symbols.strict_definition_pattern`: the name
right after its keyword or as an assignment's target). ``RankingOptions.text_definitions`` adds
them to the fused candidates as the symbol table's entries are added (``symbol_weight``), after
them (at ranking time: no cost with the option off; their cosine is unknown, 0.0).

Round 10 (``RankingOptions.member_table_types``, issue 24's "a bare type name where a same-named
method wins"): a type-shaped name (an upper-case initial, not constant-shaped) that the table holds
only as something else (methods ``Level.Level`` of other types, ``Logger.level`` in another case;
no type chunk named so) is looked up the same way for a chunk whose text defines it *as a type*
(:func:`~paqad.search.symbols.defines_type_in_text`): logrus's ``type Level uint32`` closes the
file's first chunk, which the chunker records without a symbol, so ``Level`` found only the methods
``Level()`` of the slog hook's types.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import AbstractSet, Callable, Mapping, Sequence

from paqad import store as store_mod
from paqad.index.tokens import identifier_parts
from paqad.search.analysis import SYMBOL, Identifier, QueryInfo
from paqad.search.symbols import (_BARE_WORD, _KEYWORD_GROUP, _MODIFIERS, DefinitionMatch, defines_constant_in_text,
                                  defines_in_text, defines_type_in_text, is_constant_shape)
from paqad.search.signals.definitions import TYPE_KINDS
from paqad.store import fts_match_expression

# BM25 hits of the name read for a definition line: "methods" in faraday's 999 chunks ranks the
# chunk defining METHODS 152nd; the rows of 300 hits are read in a few milliseconds (bench/README.md)
TEXT_DEFINITION_DEPTH = 300
MAX_TEXT_DEFINITIONS = 8  # a name defined by text in more chunks than this: the first ones by BM25
BATCH = 100  # hits whose rows are read at a time (decompressing a row is most of the cost)


def defines_by_text(text: str, name: str) -> bool:
    """Whether ``text`` defines ``name`` for sure: a constant-shaped name right after its keyword
    or as a property/assignment at a line's start, any other name by the strict pattern."""
    if is_constant_shape(name):
        return defines_constant_in_text(text, name)
    return defines_in_text(text, name, strict=True)


def _held_only_as_members(name: str, matches: Sequence[DefinitionMatch], rows: Mapping[int, store_mod.ChunkRow]) -> bool:
    """Whether the type-shaped ``name``'s table matches are all something else than a type named so:
    a member of another scope (``Level.Level``), another case (``Logger.level``), a chunk of a kind
    not a type's (:data:`~paqad.search.signals.definitions.TYPE_KINDS`); a candidate row unknown here counts as a type (left alone)."""
    if not name[:1].isupper() or is_constant_shape(name):
        return False
    for match in matches:
        row = rows.get(match.chunk_id)
        if row is None or (match.exact and row.kind in TYPE_KINDS
                           and re.split(r"::|\.|#", match.symbol or row.symbol or "")[-1] == name):
            return False
    return True


def _text_hits(store: store_mod.IndexStore, name: str, exclude: Mapping[int, object],
               allowed: AbstractSet[int] | None) -> list[int]:
    """The first :data:`TEXT_DEFINITION_DEPTH` BM25 hits of ``name``'s words, ``exclude`` left out."""
    parts = identifier_parts(name)
    joined = name.replace("_", "").lower()
    expression = fts_match_expression([joined] if len(parts) > 1 else parts)
    if not expression:
        return []
    return [cid for cid, _ in store.bm25(expression, TEXT_DEFINITION_DEPTH, None if allowed is None else list(allowed))
            if cid not in exclude]


def text_definition_pool(store: store_mod.IndexStore, info: QueryInfo, definitions: Sequence[DefinitionMatch],
                         candidates: Mapping[int, store_mod.ChunkRow],
                         allowed: AbstractSet[int] | None = None, *,
                         member_table_types: bool = False) -> dict[int, store_mod.ChunkRow]:
    """The chunks (id -> row), outside ``candidates``, whose text defines a name the symbol query
    asks for and the symbol table does not hold, best BM25 first (see the module docstring);
    ``{}`` for a prose query, and for a name some candidate already defines by its text. With
    ``member_table_types`` (round 10), also the chunks defining as a type a type-shaped name the
    table holds only as members or in another case (:func:`_held_only_as_members`).

    Cost: nothing for a name the table holds; else one FTS5 query and the rows of at most
    :data:`TEXT_DEFINITION_DEPTH` hits, read :data:`BATCH` at a time until a batch has a
    definition (the candidates' rows are not read again)."""
    if info.kind != SYMBOL:
        return {}
    named = {m.identifier.name for m in definitions}
    found: dict[int, store_mod.ChunkRow] = {}
    for identifier in info.identifiers:
        name = identifier.name
        if identifier.embedded or len(name) < 3:
            continue
        if name in named:
            # round 10: a type-shaped name the table holds only as other things: its type definitions by text
            matches = [m for m in definitions if m.identifier.name == name]
            if member_table_types and _held_only_as_members(name, matches, candidates):
                _read_definitions(store, _text_hits(store, name, {**candidates, **found}, allowed), name,
                                  defines_type_in_text, found)
            continue
        if any(name in row.text and defines_by_text(row.text, name) for row in candidates.values()):
            continue
        _read_definitions(store, _text_hits(store, name, {**candidates, **found}, allowed), name, defines_by_text, found)
    return found


def _read_definitions(store: store_mod.IndexStore, hits: Sequence[int], name: str,
                      defines: Callable[[str, str], bool], found: dict[int, store_mod.ChunkRow]) -> None:
    """Add to ``found`` the first :data:`MAX_TEXT_DEFINITIONS` of ``hits`` whose text ``defines``
    ``name``, reading :data:`BATCH` rows at a time until a batch has one."""
    kept = 0
    for start in range(0, len(hits), BATCH):
        rows = store.chunks_by_id(list(hits[start:start + BATCH]))
        for cid in hits[start:start + BATCH]:
            row = rows.get(cid)
            if row is not None and name in row.text and defines(row.text, name) and kept < MAX_TEXT_DEFINITIONS:
                found[cid] = row
                kept += 1
        if kept:
            break


BARE_WORD_ROWS = 30  # BM25 hits of a one-word query read for a keyword definition of the word


@lru_cache(maxsize=512)
def keyword_definition_pattern(name: str) -> re.Pattern[str]:
    """``name`` defined by a keyword right before it, or a C macro: the strict pattern's keyword
    form and ``#define`` (``#define hashpointer(t,p)``, ``local function usage``), not an
    assignment (``retry = 3`` is how a plain word is also used)."""
    escaped = re.escape(name)
    return re.compile(
        rf"^[ \t]*{_MODIFIERS}{_KEYWORD_GROUP}(?:\s*<[^>\n]*>)?\s+(?:\([^)\n]*\)\s*)?(?:[\w$]+(?:\.|::|:))*"
        rf"{escaped}(?![\w$])|^[ \t]*#[ \t]*define[ \t]+{escaped}\b",
        re.MULTILINE,
    )


def with_text_bare_word(store: store_mod.IndexStore, info: QueryInfo,
                        hits: Sequence[tuple[int, float]]) -> QueryInfo | None:
    """``info`` as a symbol query of its one lower-case word when the symbol table did not make it
    one (:func:`~paqad.search.symbols.with_bare_word_symbol`) but one of the first
    :data:`BARE_WORD_ROWS` BM25 ``hits`` defines the word by a keyword or as a C macro (lua's
    ``#define hashpointer(t,p)``, which the table does not hold); else None.

    ``RankingOptions.text_bare_words`` ranks with it (:attr:`~paqad.search.ranking.Pools.text_info`)."""
    if info.identifiers or info.kind == SYMBOL or not _BARE_WORD.fullmatch(info.text) or len(info.text) < 3:
        return None
    name = info.text
    pattern = keyword_definition_pattern(name)
    ids = [cid for cid, _ in hits[:BARE_WORD_ROWS]]
    rows = store.chunks_by_id(ids)
    if not any(name in row.text and pattern.search(row.text) for row in rows.values()):
        return None
    return replace(info, kind=SYMBOL, identifiers=(Identifier(name, (name,), embedded=False),))
