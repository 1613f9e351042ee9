"""Sync within a budget, then search, then band the results: written once (issue 18).

:func:`search_within_budget` is the one path ``rag probe`` (:mod:`paqad.jobs.probe`), the
background refresh (:mod:`paqad.deliver.refresh`) and the MCP server's ``search_code`` take. Each
passes its :class:`~paqad.jobs.sync_policy.SyncPolicy` and what to search, decided after the sync
(a :class:`SearchAsk`, or a function of the :class:`~paqad.jobs.sync_policy.SyncOutcome` that
checks the index as synced); the frozen :class:`BudgetedSearch` holds the sync's outcome, the
search, the floor's decision and every result banded. The callers only word and print it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from paqad.config import Settings
from paqad.jobs.sync_policy import BackgroundSync, OnFailure, SyncOutcome, SyncPolicy, SyncState, sync_within
from paqad.project import ProjectPaths
from paqad.search.bands import BandedRow, band_row
from paqad.search.degraded import Degraded, DegradedReason

if TYPE_CHECKING:
    from paqad.search.floor import FloorOutcome
    from paqad.search.results import SearchResponse


@dataclass(frozen=True)
class SearchAsk:
    """What to search: ``text``; ``top_n`` results to rank (None: ``rag_top_n``); under the
    project-relative ``path_prefix`` (None: everywhere); on the open index ``store`` (None: open one)."""

    text: str
    top_n: int | None = None
    path_prefix: str | None = None
    store: Any = None


@dataclass(frozen=True)
class BudgetedSearch:
    """``sync``: how the sync ended; ``ask``: what was searched (None: nothing, the caller said so
    after the sync, or the sync failed under ``OnFailure.STOP``); ``embedder`` / ``degraded``: what
    the search ran with (None / why keyword-only); ``response``, ``floor`` (the floor's decision at
    the settings' floors) and ``rows`` (every result banded) are None / () without a search."""

    sync: SyncOutcome
    ask: SearchAsk | None
    embedder: Any
    degraded: Degraded | None
    response: SearchResponse | None = None
    floor: FloorOutcome | None = None
    rows: tuple[BandedRow, ...] = ()

    @property
    def model_failed(self) -> bool:
        """An embedder was used and the search still went keyword-only: the model failed on the query."""
        return self.embedder is not None and self.response is not None and self.response.degraded is not None


def search_within_budget(paths: ProjectPaths, settings: Settings,
                         ask: SearchAsk | Callable[[SyncOutcome], SearchAsk | None], *, policy: SyncPolicy,
                         embedder: Any, degraded: Degraded | None = None, background: BackgroundSync | None = None,
                         progress=None) -> BudgetedSearch:
    """Sync as ``policy`` says (:func:`~paqad.jobs.sync_policy.sync_within`; ``background`` and
    ``progress`` go to it), then search ``ask`` (or what ``ask(outcome)`` returns; None: no search)
    with ``embedder`` (None: keyword-only, ``degraded`` says why), then band each result.

    Raises the sync's error under ``OnFailure.RAISE`` (not an OSError), what ``ask`` raises, and
    what :func:`paqad.search.search` raises.
    """
    from paqad.search import search
    from paqad.config import MAX_COMPANIONS
    from paqad.search.floor import apply_floor

    synced = sync_within(paths, settings, embedder, policy, background=background, progress=progress)
    if synced.state is SyncState.STALE and policy.stale_keyword_only:  # never a whole rebuild on the side
        embedder, degraded = None, Degraded(DegradedReason.STALE_INDEX, str(synced.error))
    elif synced.error is not None and policy.on_failure is OnFailure.RAISE and not isinstance(synced.error, OSError):
        raise synced.error
    elif synced.error is not None and policy.on_failure is OnFailure.STOP:
        return BudgetedSearch(synced, None, embedder, degraded)
    asked = ask(synced) if callable(ask) else ask
    if asked is None:
        return BudgetedSearch(synced, None, embedder, degraded)
    response = search(paths, settings, asked.text, top_n=asked.top_n, path_prefix=asked.path_prefix,
                      embedder=embedder, degraded=degraded, store=asked.store)
    floor, relief = settings.rag_similarity_threshold, settings.rag_relief_floor
    return BudgetedSearch(synced, asked, embedder, degraded, response, apply_floor(response.results, floor, relief, MAX_COMPANIONS),
                          tuple(band_row(r, floor, relief) for r in response.results))
