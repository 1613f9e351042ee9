"""Inline implementation pairs (issue 24, round 6): a C++ header that only declares what its inline
implementation file defines (``include/CLI/App.hpp`` and ``include/CLI/impl/App_inl.hpp``; a
forward-declaration header ``FormatterFwd.hpp`` and ``impl/Formatter_inl.hpp``; abseil's
``x.h`` / ``x-inl.h``; ``x.hpp`` / ``x.ipp``, ``x.tcc``, ``x.inl``) in a prose question: the
header x ``inline_pair_prior``, and the implementation's best candidate chunk raised to the
header's best score (``inline_pair_lift`` = 1.0; 0.0 = no raise). "How is the usage line put
together" is answered by the body; the header's declarations and doc comments repeat the
question's words (dev cli11-10: ``FormatterFwd.hpp`` first, ``Formatter_inl.hpp`` 12th).

Unlike ``header_pairs`` (a header beside a same-stem ``.c``/``.cpp``, measured and left off: such
headers are often the answer, yaml-cpp's ``depthguard.h``), an inline file exists only to hold a
header's bodies, so the pair is unambiguous. Waived when the question asks for declarations or
names the header or a type kind ("the Validator class": its declaration is the header's), and for
a header defining a name the query says (a commit message naming ``detail::value_string``, a
template defined in the header); symbol queries are left to the definitions.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL
from paqad.search.signals.header_pairs import DECLARATION_WORDS

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# "the Validator class": a question about a type asks for its declaration, which is the header's
TYPE_WORDS = re.compile(r"\b(class|struct|union|enum)\b", re.IGNORECASE)
# the bodies of header `stem`: impl/stem_inl.hpp, stem-inl.h, stem.ipp, stem.tcc, stem.tpp, stem.inl
_INLINE = re.compile(r"^(?P<stem>.+?)(?:[_-]inl\.(?:h|hh|hpp|hxx)|\.(?:ipp|tcc|tpp|inl))$", re.IGNORECASE)
# a header: stem.h / .hh / .hpp / .hxx, or its forward declarations stemFwd.hpp, stem_fwd.h
_HEADER = re.compile(r"^(?P<stem>.+?)(?:[_-]?fwd)?\.(?:h|hh|hpp|hxx)$", re.IGNORECASE)


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def inline_stem(path: str) -> str | None:
    """The header stem whose bodies ``path`` holds (``impl/App_inl.hpp`` -> ``app``), else None."""
    match = _INLINE.match(_name(path))
    return match.group("stem").lower() if match else None


def header_stem(path: str) -> str | None:
    """The stem a header declares (``App.hpp`` -> ``app``, ``FormatterFwd.hpp`` -> ``formatter``;
    None for an inline file or a non-header)."""
    if inline_stem(path):
        return None
    match = _HEADER.match(_name(path))
    return match.group("stem").lower() if match else None


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with headers of a candidate inline file x ``inline_pair_prior`` and that file's best
    chunk raised to ``inline_pair_lift`` x the header's best score."""
    info = context.info
    if info.kind == SYMBOL or DECLARATION_WORDS.search(info.text) or TYPE_WORDS.search(info.text):
        return scores
    bodies: dict[str, int] = {}  # stem -> the inline file's best candidate chunk
    for cid in scores:
        stem = inline_stem(context.rows[cid].path)
        if stem and (stem not in bodies or scores[cid] > scores[bodies[stem]]):
            bodies[stem] = cid
    if not bodies:
        return scores
    # a header holding a definition the query names is an answer itself (a template body in TypeTools.hpp)
    defining = {context.rows[m.chunk_id].path for m in context.definitions if m.chunk_id in context.rows}
    out = dict(scores)
    header_best: dict[str, float] = {}
    for cid, score in scores.items():
        path = context.rows[cid].path
        stem = header_stem(path)
        if stem in bodies and path not in context.named_paths and path not in defining:
            header_best[stem] = max(header_best.get(stem, 0.0), score)
            out[cid] = score * context.options.inline_pair_prior
    for stem, best in header_best.items():
        body = bodies[stem]
        out[body] = max(out[body], best * context.options.inline_pair_lift)
    return out
