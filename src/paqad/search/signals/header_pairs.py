"""Header/implementation pairs for questions (issue 24): in a prose question (not a symbol query),
a C/C++ header (``.h``, ``.hh``, ``.hpp``, ``.hxx``) whose implementation file of the same stem
(``scanner.h`` / ``scanner.cpp``) is a candidate too x ``header_pair_prior``: "where/how does X
happen" is answered by the body, and the header's declarations repeat the question's names. Waived
when the question asks for declarations (header, declared, API, prototype, interface) or names
the header.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL
from paqad.search.signals.header_declarations import HEADER_SUFFIXES

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

IMPLEMENTATION_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".m", ".mm")
DECLARATION_WORDS = re.compile(r"\b(headers?|declar\w*|api|apis|prototypes?|interfaces?|public)\b", re.IGNORECASE)


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].split(".", 1)[0].lower()


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``header_pair_prior`` on headers whose implementation is a candidate too."""
    info = context.info
    if info.kind == SYMBOL or DECLARATION_WORDS.search(info.text):
        return scores
    implemented = {_stem(row.path) for cid, row in context.rows.items()
                   if cid in scores and row.path.endswith(IMPLEMENTATION_SUFFIXES)}
    if not implemented:
        return scores
    out = dict(scores)
    for cid in scores:
        path = context.rows[cid].path
        if path.endswith(HEADER_SUFFIXES) and _stem(path) in implemented and path not in context.named_paths:
            out[cid] *= context.options.header_pair_prior
    return out
