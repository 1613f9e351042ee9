"""How a job syncs before it searches: one policy object, one sync step (issue 18).

``rag probe``, the background refresh and the MCP server each pass a :class:`SyncPolicy` to
:func:`sync_within` (through :func:`paqad.jobs.sync_search.search_within_budget`) instead of
holding a sync of their own. The step returns a typed :class:`SyncOutcome`; each caller says it in
its own words (the CLI's warnings, the refresh's summary, the MCP answer's ``index`` line).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Callable

from paqad.config import Settings
from paqad.project import ProjectPaths

if TYPE_CHECKING:
    from paqad.build import IndexReport


class SyncScope(Enum):
    """What the sync before a search brings up to date."""

    NONE = "none"  # search the index as it is (`rag probe --no-sync`)
    EDITED = "edited"  # the edited files only; an earlier unfinished embedding is left to refresh/init
    PROJECT = "project"  # the edited files, then the chunks an earlier build left without vectors


class OnFailure(Enum):
    """What a failed sync does to the search after it."""

    RAISE = "raise"  # the job raises it (probe); an OSError (a read-only .paqad/) only reports, searching needs no write
    STOP = "stop"  # no search; the caller keeps what it showed before (the refresh's previous section)
    SEARCH = "search"  # search the index as last committed; the outcome says why (the MCP server)


@dataclass(frozen=True)
class SyncPolicy:
    """``scope``: what to sync; ``budget_s``: seconds to wait for the sync (None: until it is done;
    else it runs in a :class:`BackgroundSync` thread that goes on after the wait); ``on_failure``:
    see :class:`OnFailure`; ``stale_keyword_only``: a stale index (settings changed since the build)
    is searched by keywords only, whatever ``on_failure`` says. Every sync is non-blocking (another
    writer: :attr:`SyncState.BUSY`) and never rebuilds a whole index on the side."""

    scope: SyncScope
    budget_s: float | None = None
    on_failure: OnFailure = OnFailure.RAISE
    stale_keyword_only: bool = False


NO_SYNC = SyncPolicy(SyncScope.NONE)
PROBE = SyncPolicy(SyncScope.EDITED)
REFRESH = SyncPolicy(SyncScope.EDITED, on_failure=OnFailure.STOP, stale_keyword_only=True)
MCP_BUDGET_S = 2.0  # the MCP server's wait for a sync before it searches the index as last committed
MCP = SyncPolicy(SyncScope.PROJECT, budget_s=MCP_BUDGET_S, on_failure=OnFailure.SEARCH)


class SyncState(Enum):
    """How the sync before a search ended."""

    NOT_ASKED = "not asked"  # SyncScope.NONE
    NO_MODEL = "no model"  # no embedder: changed chunks could not get vectors, nothing synced
    SYNCED = "synced"  # ``report`` says what changed
    BUSY = "busy"  # another writer held the lock; the last committed index is searched
    STALE = "stale"  # ``error`` is the IndexStaleError: the index needs `rag rebuild`
    FAILED = "failed"  # ``error`` says why; the last committed index is kept
    RUNNING = "running"  # still running after the budget (it goes on in the background)


@dataclass(frozen=True)
class SyncOutcome:
    """One sync's ``state``, its ``report`` (SYNCED) and its ``error`` (STALE, FAILED)."""

    state: SyncState
    report: IndexReport | None = None
    error: Exception | None = None


class BackgroundSync:
    """The one sync thread a long-lived caller (the MCP server) keeps across calls: a sync still
    running when the budget ran out is joined again by the next call, never started twice."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._outcome: SyncOutcome | None = None

    def run(self, work: Callable[[], SyncOutcome], budget_s: float) -> SyncOutcome:
        """Start ``work`` unless it still runs, wait up to ``budget_s`` seconds for its outcome."""
        if self._thread is None or not self._thread.is_alive():
            self._outcome = None
            self._thread = threading.Thread(target=self._keep, args=(work,), name="paqad-mcp-sync", daemon=True)
            self._thread.start()
        self._thread.join(budget_s)
        if self._thread.is_alive() or self._outcome is None:
            return SyncOutcome(SyncState.RUNNING)
        return self._outcome

    def _keep(self, work: Callable[[], SyncOutcome]) -> None:
        self._outcome = work()


def sync_within(paths: ProjectPaths, settings: Settings, embedder: Any, policy: SyncPolicy, *,
                background: BackgroundSync | None = None, progress=None) -> SyncOutcome:
    """Sync as ``policy`` says with ``embedder`` (None: nothing is synced, :attr:`SyncState.NO_MODEL`);
    ``progress(stage, done, total)`` hears a slow sync. With ``policy.budget_s``, the sync runs in
    ``background`` (a new one when None) and this waits at most that long.

    Never raises for a failed sync: the error is in the outcome (:func:`search_within_budget`
    applies ``policy.on_failure``).
    """
    if policy.scope is SyncScope.NONE:
        return SyncOutcome(SyncState.NOT_ASKED)
    if embedder is None:  # new chunks need the model; keyword search on the last committed index
        return SyncOutcome(SyncState.NO_MODEL)

    def work() -> SyncOutcome:
        from paqad.build import sync

        try:
            report = sync(paths, settings, embedder, blocking=False, allow_rebuild=False,
                          backlog=policy.scope is SyncScope.PROJECT, progress=progress)
        except Exception as exc:  # noqa: BLE001 - the policy decides; an outcome, never a raise here
            return _failed(exc)
        return SyncOutcome(SyncState.BUSY) if report is None else SyncOutcome(SyncState.SYNCED, report)

    if policy.budget_s is None:
        return work()
    return (background or BackgroundSync()).run(work, policy.budget_s)


def _failed(exc: Exception) -> SyncOutcome:
    from paqad.errors import IndexStaleError

    return SyncOutcome(SyncState.STALE if isinstance(exc, IndexStaleError) else SyncState.FAILED, error=exc)
