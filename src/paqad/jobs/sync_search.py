"""Sync, then search, as job calls (issue 18).

:func:`sync_then_search` is the MCP server's ``search_code`` sequence in its one order (sync
within the caller's budget, the scope checks against the index as synced, the search) and
returns a frozen :class:`SyncedSearch`. :func:`sync_edited` is the background refresh's sync
step (edited files, or keyword-only on a stale index / without the model); the refresh then
searches through ``deliver`` (stage 5, which jobs must not import), so that half stays there.
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


@dataclass(frozen=True)
class EditedSync:
    """What a sync of the edited files left to search with: ``embedder`` (None: keyword-only,
    ``degraded`` says why), the sync's ``report`` (None: not synced, or another writer held the
    lock), the ``note`` line on what the index reflects, and ``stale``: the refusal when the index
    needs a whole rebuild (searched by keywords only; the caller logs it)."""

    embedder: Any
    degraded: Degraded | None
    report: Any
    note: str
    stale: Exception | None = None


def sync_edited(paths: ProjectPaths, settings: Settings, embedder: Any, degraded: Degraded | None,
                not_synced: str) -> EditedSync:
    """Sync the edited files with ``embedder`` (non-blocking writer lock, never a whole rebuild,
    no backlog embedding); without a model, nothing is synced and ``note`` ends in ``not_synced``.
    A stale index (IndexStaleError) turns the search keyword-only instead of rebuilding.

    Raises what :func:`paqad.build.sync` raises other than IndexStaleError (OSError, a full disk).
    """
    from paqad.build import sync
    from paqad.errors import IndexStaleError
    from paqad.search.degraded import Degraded as Why, DegradedReason

    if embedder is None:  # keyword search on the last committed index; syncing needs the model for new chunks
        return EditedSync(None, degraded, None, f"{degraded.words if degraded else None}; {not_synced}")
    try:
        report = sync(paths, settings, embedder, blocking=False, allow_rebuild=False, backlog=False)
    except IndexStaleError as exc:  # never a whole rebuild on the side: keyword search, say what to run
        return EditedSync(None, Why(DegradedReason.STALE_INDEX, str(exc)), None, f"{exc}; not synced", stale=exc)
    note = "index busy (another writer), searched the last committed index" if report is None else report.summary()
    return EditedSync(embedder, degraded, report, note)
