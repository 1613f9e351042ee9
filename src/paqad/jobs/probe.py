"""``rag probe`` as one call: sync the edited files, search, band each result against the floors.

:func:`probe` returns a frozen :class:`ProbeResult`; the CLI only parses its options and prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from paqad.config import Settings
from paqad.errors import IndexMissingError, ProjectPathError
from paqad.project import ProjectPaths
from paqad.jobs.sync_policy import NO_SYNC, PROBE, SyncOutcome, SyncState
from paqad.jobs.sync_search import SearchAsk, search_within_budget
from paqad.search.bands import BandedRow, band_row
from paqad.search.degraded import Degraded

ProbeRow = BandedRow  # the name this module gave it first (kept for callers)
__all__ = ["NOT_SYNCED", "ProbeResult", "ProbeRow", "band_row", "probe"]

NOT_SYNCED = "; index not synced (the previous index is kept)"


def _quiet(message: str) -> None:
    """The default ``warn`` / ``note``: say nothing."""


@dataclass(frozen=True)
class ProbeResult:
    """The query, the floors (``threshold``, ``relief_floor``: confidences in [0, 1]), why the
    search went keyword-only (``degraded``), the share of chunks with a vector and the rows."""

    query: str
    threshold: float
    relief_floor: float
    degraded: Degraded | None
    coverage: float
    rows: tuple[ProbeRow, ...]

    def to_dict(self) -> dict[str, Any]:
        """What ``rag probe --json`` prints."""
        return {"query": self.query, "threshold": self.threshold, "relief_floor": self.relief_floor,
                "degraded": self.degraded.words if self.degraded else None,
                "semantic_coverage": round(self.coverage, 4), "results": [row.to_dict() for row in self.rows]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ProbeResult":
        """A result of a search that was not degraded, from :meth:`to_dict` (the warm process's
        reply). Raises KeyError, TypeError or ValueError when ``data`` is malformed or degraded."""
        if data["degraded"] is not None:
            raise ValueError("a degraded probe is answered in process")
        return cls(str(data["query"]), float(data["threshold"]), float(data["relief_floor"]), None,
                   float(data["semantic_coverage"]), tuple(ProbeRow.from_dict(row) for row in data["results"]))


def probe(paths: ProjectPaths, settings: Settings, text: str, *, top_n: int | None = None,
          path_prefix: str | None = None, no_sync: bool = False, progress=None,
          warn: Callable[[str], None] = _quiet, note: Callable[[str], None] = _quiet,
          embedder=None) -> ProbeResult:
    """Sync the edited files (unless ``no_sync``; ``progress`` reports a slow one), search ``text``
    (under the project-relative ``path_prefix``) and band the ``top_n`` results. ``warn`` and
    ``note`` get, in order, one line each for what went keyword-only, unsynced or partial.
    ``embedder``: one already loaded (the warm process's); else the configured one is loaded here.

    Raises IndexMissingError (no index; IndexBuildingError while the first build runs),
    ProjectPathError for a ``path_prefix`` outside the project or absent, and what
    :func:`paqad.store.require_same_embedding` and :func:`paqad.search.search` raise.
    """
    from paqad.search import load_embedder
    from paqad.status import require_complete_index
    from paqad.store import index_exists, require_same_embedding

    if not index_exists(paths):
        raise IndexMissingError()
    require_same_embedding(paths, settings)  # another provider/model/precision: refuse in one line (README)
    if path_prefix:
        path_prefix = _checked_prefix(paths, path_prefix)
    degraded = None
    if embedder is None:
        embedder, degraded = load_embedder(paths, settings)
    if degraded:
        warn(degraded.words + ("" if no_sync else NOT_SYNCED))

    def ask(synced: SyncOutcome) -> SearchAsk:
        _say_sync(synced, warn, note)
        require_complete_index(paths)  # a first build still running is not "no results"
        return SearchAsk(text, top_n, path_prefix)

    done = search_within_budget(paths, settings, ask, policy=NO_SYNC if no_sync else PROBE, embedder=embedder,
                                degraded=degraded, progress=progress)
    response = done.response
    if response.degraded and not degraded:  # the model failed while embedding the query
        warn(response.degraded.words)
    if response.coverage < 1.0:
        note(f"semantic coverage partial: {int(response.coverage * 100)}% of the chunks have vectors so far; "
             "the rest match by keywords only (no cosine)")
    floor, relief = settings.rag_similarity_threshold, settings.rag_relief_floor
    return ProbeResult(text, floor, relief, response.degraded, response.coverage, done.rows)


def _say_sync(synced: SyncOutcome, warn: Callable[[str], None], note: Callable[[str], None]) -> None:
    """Probe's words for its sync: a read-only ``.paqad/`` warns; files that left the index are noted."""
    error = synced.error
    if synced.state is SyncState.FAILED and isinstance(error, OSError):  # searching needs no write
        warn(f"index not synced ({error.strerror}: {error.filename}); searched the last committed index")
    elif synced.report is not None and synced.report.files_removed:
        note(f"sync: {synced.report.files_removed:,} file(s) left the index (deleted, or now excluded by the "
             "settings or ignore rules: `paqad-ai rag status --explain PATH` says why)")


def _checked_prefix(paths: ProjectPaths, prefix: str) -> str:
    """A ``--path`` value as a project-relative folder; error if outside the project or absent."""
    from paqad.project import project_relative

    rel = project_relative(paths.root, prefix, "--path")
    if not (paths.root / rel).exists():
        raise ProjectPathError(f"--path {prefix}: no such file or folder in the project")
    return rel
