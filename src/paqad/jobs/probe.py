"""``rag probe`` as one call: sync the edited files, search, band each result against the floors.

:func:`probe` returns a frozen :class:`ProbeResult`; the CLI only parses its options and prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from paqad.config import Settings
from paqad.errors import IndexMissingError, ProjectPathError
from paqad.project import ProjectPaths
from paqad.search.degraded import Degraded

if TYPE_CHECKING:
    from paqad.search.results import SearchResult

NOT_SYNCED = "; index not synced (the previous index is kept)"


def _quiet(message: str) -> None:
    """The default ``warn`` / ``note``: say nothing."""


@dataclass(frozen=True)
class ProbeRow:
    """One result as probe shows it: ``band`` is ``confident`` (match at or above the floor),
    ``relief`` (at or above the relief floor) or ``below``; ``confidence`` the calibrated match
    (else the cosine), ``cosine`` None for a keyword-only result; lines are 1-based, inclusive."""

    rank: int
    path: str
    start_line: int
    end_line: int
    symbol: str | None
    confidence: float
    cosine: float | None
    score: float
    dense_rank: int | None
    lexical_rank: int | None
    band: str
    gap_to_floor: float
    semantic: bool

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` row (16 keys, in this order; ``fused_rank`` repeats ``rank``)."""
        return {
            "rank": self.rank, "path": self.path, "start_line": self.start_line, "end_line": self.end_line,
            "symbol": self.symbol, "confidence": self.confidence, "cosine": self.cosine, "score": self.score,
            "fused_rank": self.rank, "dense_rank": self.dense_rank, "lexical_rank": self.lexical_rank,
            "band": self.band, "above_floor": self.band == "confident", "above_relief": self.band != "below",
            "gap_to_floor": self.gap_to_floor, "semantic": self.semantic,
        }

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> "ProbeRow":
        """The row :meth:`to_dict` gave (the warm process's reply); KeyError/TypeError when malformed."""
        return cls(int(row["rank"]), str(row["path"]), int(row["start_line"]), int(row["end_line"]), row["symbol"],
                   float(row["confidence"]), row["cosine"], float(row["score"]), row["dense_rank"],
                   row["lexical_rank"], str(row["band"]), float(row["gap_to_floor"]), bool(row["semantic"]))


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


def band_row(result: SearchResult, floor: float, relief: float) -> ProbeRow:
    """``result`` banded against ``floor`` and ``relief``, compared as whole percentages (what people see)."""
    from paqad.search.floor import confidence_of, percent

    confidence = confidence_of(result)
    band = ("confident" if percent(confidence) >= percent(floor)
            else "relief" if percent(confidence) >= percent(relief) else "below")
    return ProbeRow(result.fused_rank, result.path, result.start_line, result.end_line, result.symbol,
                    round(confidence, 4), round(result.score, 4) if result.semantic else None, round(result.score, 4),
                    result.dense_rank, result.lexical_rank, band, round(confidence - floor, 4), result.semantic)


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
    from paqad.search import load_embedder, search
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
    elif not no_sync:
        _sync_edited(paths, settings, embedder, progress, warn, note)
    require_complete_index(paths)  # a first build still running is not "no results"
    response = search(paths, settings, text, top_n=top_n, path_prefix=path_prefix, embedder=embedder, degraded=degraded)
    if response.degraded and not degraded:  # the model failed while embedding the query
        warn(response.degraded.words)
    if response.coverage < 1.0:
        note(f"semantic coverage partial: {int(response.coverage * 100)}% of the chunks have vectors so far; "
             "the rest match by keywords only (no cosine)")
    floor, relief = settings.rag_similarity_threshold, settings.rag_relief_floor
    rows = tuple(band_row(r, floor, relief) for r in response.results)
    return ProbeResult(text, floor, relief, response.degraded, response.coverage, rows)


def _sync_edited(paths: ProjectPaths, settings: Settings, embedder, progress, warn, note) -> None:
    """Edited files only: a stale index is refused (IndexStaleError names `rag rebuild`), an
    unfinished embedding is left to refresh/init, and a slow sync reports to ``progress``."""
    from paqad.build import sync

    try:
        report = sync(paths, settings, embedder, blocking=False, allow_rebuild=False, backlog=False,
                      progress=progress)
    except OSError as exc:  # a read-only .paqad/: searching needs no write
        warn(f"index not synced ({exc.strerror}: {exc.filename}); searched the last committed index")
        return
    if report is not None and report.files_removed:
        note(f"sync: {report.files_removed} file(s) left the index (deleted, or now excluded by the "
             "settings or ignore rules: `paqad-ai rag status --explain PATH` says why)")


def _checked_prefix(paths: ProjectPaths, prefix: str) -> str:
    """A ``--path`` value as a project-relative folder; error if outside the project or absent."""
    from paqad.project import project_relative

    rel = project_relative(paths.root, prefix, "--path")
    if not (paths.root / rel).exists():
        raise ProjectPathError(f"--path {prefix}: no such file or folder in the project")
    return rel
