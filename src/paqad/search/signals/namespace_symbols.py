"""Namespace symbols: a C++ namespace is not a symbol a prose word should name (issue 24, round 7).

A C++ header named ``.h`` is cut with the C grammar unless ``languages.CPP_HEADERS_BY_CONTENT`` is
on (it is off: round 6). The C grammar reads ``namespace leveldb {`` as a function named
``leveldb`` and every later piece of that namespace's body carries the symbol ``leveldb``: in
leveldb 206 of 2,218 chunks (every public and internal header), in re2 130 of 2,513 (``re2``), in
yaml-cpp 731 of 11,002 (``YAML``, ``testing``, ``internal``). The project's name is the word its
users say ("how does leveldb compact ..."), so ``symbol_words`` lifted every header chunk above
the ``.cc`` implementation for it: a header's symbol named like the project is no evidence of
what the chunk holds. The C++ grammar (``.cc``, ``.cpp``, ``.hpp``) records no namespace symbol,
so this only removes what the C grammar's misreading added.

:func:`namespace_names` finds, among the candidates' single-component symbols of C/C++ chunks,
those the project declares as ``namespace NAME {`` (in a candidate's own text, else in the text of
one file holding the symbol); ``symbol_words`` gives those no share when
``RankingOptions.namespace_symbols`` is on. No parameter.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# the languages whose chunker may misread a namespace (C) or holds namespaces at all (C++)
_C_FAMILY = frozenset({"c", "cpp"})


@lru_cache(maxsize=256)
def namespace_pattern(name: str) -> re.Pattern[str]:
    """``namespace NAME {`` (``inline namespace`` too) at a line's start; ``NAME`` exactly."""
    return re.compile(rf"^[ \t]*(?:inline[ \t]+)?namespace[ \t]+{re.escape(name)}[ \t]*(?:\{{|$)", re.MULTILINE)


def namespace_names(context: RankingContext, candidates) -> frozenset[str]:
    """The symbols of ``candidates`` (chunk ids of ``context.rows``) that are C++ namespaces.

    Only single-component symbols of C/C++ chunks are tried; one is a namespace when a candidate
    holding it declares ``namespace NAME`` or, failing that, the first such candidate's whole file
    does (``context.file_text``; unknown: not a namespace).
    """
    by_name: dict[str, list[int]] = {}
    for cid in candidates:
        row = context.rows[cid]
        symbol = row.symbol or ""
        if row.language in _C_FAMILY and symbol and "." not in symbol and "::" not in symbol:
            by_name.setdefault(symbol, []).append(cid)
    found = set()
    for name, ids in by_name.items():
        pattern = namespace_pattern(name)
        if any(pattern.search(context.rows[cid].text) for cid in ids):
            found.add(name)
        elif context.file_text is not None and pattern.search(context.file_text(context.rows[ids[0]].path)):
            found.add(name)
    return frozenset(found)
