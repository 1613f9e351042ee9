"""Parallel siblings (issue 24, round 6): in a prose question, a method chunk whose method name a
better-scored chunk of another file of the same folder defines too x ``sibling_share``.

A project with parallel implementations of one contract (jackson-core's ``ReaderBasedJsonParser``,
``UTF8StreamJsonParser`` and ``UTF8DataInputJsonParser``, each with its own ``_decodeBase64``;
``DefaultPrettyPrinter`` and ``MinimalPrettyPrinter``; C event-loop backends) answers a question
with the same method several times: the copies after the first take the places of the files the
question is about (dev jackson-core-09: the three parsers' ``_decodeBase64`` above
``Base64Variant.decode``). The best-scored copy keeps its place; symbol queries are left alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

_METHOD_KINDS = frozenset({"method", "function"})
FAMILY = 3  # parallel implementations: one method in this many files of a folder (2: ws lost on dev)


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


def _method_key(row) -> tuple[str, str] | None:
    """``(folder, method name)`` of a method chunk (``Type.name`` symbols), None otherwise."""
    if row.kind not in _METHOD_KINDS or not row.symbol or "." not in row.symbol:
        return None
    return _folder(row.path), row.symbol.rsplit(".", 1)[-1]


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``sibling_share`` on method chunks repeating a better sibling file's method,
    for methods at least ``FAMILY`` candidate files of one folder define."""
    if context.info.kind == SYMBOL:
        return scores
    files: dict[tuple[str, str], set[str]] = {}
    for cid in scores:
        key = _method_key(context.rows[cid])
        if key:
            files.setdefault(key, set()).add(context.rows[cid].path)
    first: dict[tuple[str, str], str] = {}  # (folder, method name) -> the file of its best chunk
    out = dict(scores)
    for cid in sorted(scores, key=lambda c: -scores[c]):
        row = context.rows[cid]
        key = _method_key(row)
        if key is None or len(files[key]) < FAMILY:
            continue
        owner = first.setdefault(key, row.path)
        if owner != row.path and row.path not in context.named_paths:
            out[cid] = scores[cid] * context.options.sibling_share
    return out
