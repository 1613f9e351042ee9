"""Header declarations (issue 24): a C/C++ header's prototype of a function the query names
(``int buffer_append(buffer *buf, ...);``) ranks right after the ``.c``/``.cc`` definition.

The chunker's symbol table holds definitions with bodies, not prototypes, so a header that only
declares the name gets no definition share and falls below the callers. A candidate header chunk
(``.h``, ``.hh``, ``.hpp``, ``.hxx``) with a prototype of the identifier a symbol query names (not
one embedded in prose), that does not already define it, gains ``header_share`` of the best definition share of the name among the candidates
(1.0 when none is a candidate: the declaration is then the best place the name is described).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from paqad.search.signals.symbol_shares import add_shares

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++")


@lru_cache(maxsize=512)
def prototype_pattern(name: str) -> re.Pattern[str]:
    """A declaration of function ``name``: at the start of a line a return type (words, ``*``,
    ``&``, ``::``, templates, a macro such as libyaml's ``YAML_DECLARE(int)``, possibly on the line
    before), the name, a parameter list without a body, then ``;`` (``const``/``noexcept``/
    ``override`` allowed before it). Not a ``return f(x);`` statement."""
    escaped = re.escape(name)
    return re.compile(
        rf"^[ \t]*(?!return\b|else\b|case\b|goto\b)[A-Za-z_][\w:<>,()*& \t]*?(?:[ \t*&]|[ \t]*\n[ \t]*)"
        rf"{escaped}[ \t]*\([^;{{}}]*\)[ \t\w()=]*;",
        re.MULTILINE,
    )


def declares(text: str, name: str) -> bool:
    """Whether ``text`` holds a prototype of ``name`` (see :func:`prototype_pattern`)."""
    return len(name) >= 2 and name in text and bool(prototype_pattern(name).search(text))


def declaration_shares(context: RankingContext) -> dict[int, float]:
    """Chunk id -> the share this signal adds (header chunks declaring a query identifier)."""
    extra: dict[int, float] = {}
    for identifier in context.info.identifiers:
        if identifier.embedded:
            continue  # a name in prose or a commit message asks about behaviour, not the prototype
        name = identifier.name
        headers = [cid for cid, row in context.rows.items()
                   if row.path.endswith(HEADER_SUFFIXES) and cid not in context.definition_shares
                   and declares(row.text, name)]
        if not headers:
            continue
        top = max((s for cid, s in context.definition_shares.items() if name in context.rows[cid].text),
                  default=1.0)
        for cid in headers:
            extra[cid] = max(extra.get(cid, 0.0), context.options.header_share * top)
    return extra


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores plus the header declaration shares (see the module docstring)."""
    if not context.info.identifiers:
        return scores
    return add_shares(scores, context, declaration_shares(context))
