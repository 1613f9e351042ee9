"""Sync, then search, as one call (issue 18): the MCP server's ``search_code`` sequence.

:func:`sync_then_search` runs the steps in their one order (sync within the caller's budget,
then the scope checks against the index as synced, then the search) and returns a frozen
:class:`SyncedSearch`; the caller formats it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from paqad.config import Settings
from paqad.project import ProjectPaths

if TYPE_CHECKING:
    from paqad.search.degraded import Degraded
    from paqad.search.results import SearchResponse


@dataclass(frozen=True)
class SyncedSearch:
    """``note``: one line on what the index reflects after the sync; ``prefix``: the checked
    project-relative folder searched under (None: the whole project); ``response``: the search;
    ``model_failed``: an embedder was given and the search still went keyword-only (the model
    failed while embedding the query)."""

    note: str
    prefix: str | None
    response: SearchResponse
    model_failed: bool


def sync_then_search(paths: ProjectPaths, settings: Settings, text: str, *, sync: Callable[[], str],
                     scope: Callable[[], tuple[str | None, int]],
                     embedder: Callable[[], tuple[Any, Degraded | None]], store: Callable[[], Any]) -> SyncedSearch:
    """``sync()`` (returns the note line), then ``scope()`` (the path prefix, checked against the
    index as synced, and ``top_n``: how many results to rank), then search ``text`` with
    ``embedder()``'s ``(embedder or None, why keyword-only or None)`` on ``store()``'s open index.

    Raises what ``sync``, ``scope`` and :func:`paqad.search.search` raise (IndexMissingError,
    ValueError for bad arguments, the index-of-another-model error).
    """
    from paqad.search import search

    note = sync()
    prefix, top_n = scope()
    model, degraded = embedder()
    response = search(paths, settings, text, top_n=top_n, path_prefix=prefix, embedder=model,
                      degraded=degraded, store=store())
    return SyncedSearch(note, prefix, response, model is not None and response.degraded is not None)
