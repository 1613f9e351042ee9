"""Common path words: a query word that names the path of many of the project's files says
nothing about which of them answers (issue 24, round 7).

``path_words`` multiplies a chunk by ``1 + path_word_boost x share`` for the query's words naming
its file or parent folder. The word users say most is the project's own name, and C/C++ projects
put their public headers in a folder of that name: ``include/leveldb/*.h``, ``include/yaml-cpp/*.h``,
``include/CLI/*.hpp``; a few name the main file so (``hiredis.c``). "How does leveldb compact ..."
then lifts every public header over the ``.cc`` that implements it; a library whose every
source sits in such a folder (re2's ``re2/``, jsoup's ``org/jsoup/``) is lifted uniformly, to no
effect. Like a term's document frequency in BM25, a word naming the path of more than
``common_path_share`` of the indexed files (``path_parts``: the stem and the parent folder) is
left out of the path-word share; the other words' shares are unchanged (same denominator).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from paqad.search.priors import path_word_share

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# (the file table's id, size and first path: one index generation; word; share) -> common
_COMMON: dict[tuple[int, int, str, str, float], bool] = {}


def common_words(words: tuple[str, ...], file_chunks: Mapping[str, int], share: float) -> frozenset[str]:
    """The ``words`` that name the stem or parent folder of more than ``share`` of the files of
    ``file_chunks`` (path -> chunk count: every indexed file); none when it is empty or share >= 1."""
    if not file_chunks or share >= 1.0:
        return frozenset()
    found = set()
    table = (id(file_chunks), len(file_chunks), next(iter(file_chunks)))
    for word in words:
        key = (*table, word, share)
        if key not in _COMMON:
            if len(_COMMON) > 4096:
                _COMMON.clear()
            named = sum(1 for path in file_chunks if path_word_share((word,), path))
            _COMMON[key] = named > share * len(file_chunks)
        if _COMMON[key]:
            found.add(word)
    return frozenset(found)


def shares_without_common(context: RankingContext, shares: dict[int, float]) -> dict[int, float]:
    """``shares`` (chunk id -> path-word share) recomputed without the query's common words."""
    words = context.info.words
    common = common_words(words, context.file_chunks, context.options.common_path_share)
    if not common:
        return shares
    rest = tuple(w for w in words if w not in common)
    out = {}
    for cid in shares:
        share = path_word_share(rest, context.rows[cid].path) * len(rest) / len(words) if rest else 0.0
        if share:
            out[cid] = share
    return out
