"""C header/implementation pairs for questions (issue 24, round 8): in a prose question, a C
header's chunk (``deflate.h``, ``lz4frame.h``) whose ``.c`` file of the same stem is a candidate
too x ``c_header_pair_prior``, unless the chunk holds a function body (a ``static inline``
helper defined in the header answers the question itself).

Round 4's ``header_pairs`` (every C/C++ header beside its ``.c``/``.cc``/``.cpp``) lost C++ on
dev: a C++ header holds the classes a question asks about (snappy's ``snappy-sinksource.h``, the
``Source``/``Sink`` interfaces) and inline definitions (crc32c's ``Crc32c(const std::string&)``),
while a C library's public header (zlib's ``zlib.h`` and ``deflate.h``, lz4's ``lz4.h``) is
prototypes, structs and long usage comments that repeat the question's words, so it outranked
the ``.c`` that does the work (zlib dev cases 11, 12; lz4 12, 17). Only a pair whose
implementation is a ``.c`` file counts here; the waivers are ``header_pairs``' (the question asks
for declarations, a header, the API, or names the header), and a long prompt is left alone (a
pasted report quotes the API it calls; dev long prompts 0.846 -> 0.843 with them in, lua-22).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL
from paqad.search.signals.header_declarations import HEADER_SUFFIXES
from paqad.search.signals.header_pairs import DECLARATION_WORDS

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# a function body's opening: a parameter list's `)` then `{` (same line or the next), not a
# struct or enum body, not an `extern "C" {` block
_BODY = re.compile(r"\)[ \t]*(?:\n[ \t]*)?\{", re.MULTILINE)


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].split(".", 1)[0].lower()


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``c_header_pair_prior`` on C header chunks without a function body whose
    ``.c`` implementation is a candidate too (module docstring)."""
    info = context.info
    if info.kind == SYMBOL or DECLARATION_WORDS.search(info.text) or info.long:
        return scores
    implemented = {_stem(row.path) for cid, row in context.rows.items()
                   if cid in scores and row.path.endswith(".c")}
    if not implemented:
        return scores
    out = dict(scores)
    for cid in scores:
        row = context.rows[cid]
        if (row.path.endswith(HEADER_SUFFIXES) and _stem(row.path) in implemented
                and row.path not in context.named_paths and not _BODY.search(row.text)):
            out[cid] *= context.options.c_header_pair_prior
    return out
