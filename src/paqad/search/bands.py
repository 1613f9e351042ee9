"""Each result's band against the floors, as ``rag probe`` shows it (DESIGN §8.6).

Pure: a :class:`~paqad.search.results.SearchResult` and the two floors in, a frozen
:class:`BandedRow` out. Used by :func:`paqad.jobs.sync_search.search_within_budget`, the one
"sync within a budget, then search, then band" path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paqad.search.floor import confidence_of, percent
from paqad.search.results import SearchResult


@dataclass(frozen=True)
class BandedRow:
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
    def from_dict(cls, row: dict[str, Any]) -> "BandedRow":
        """The row :meth:`to_dict` gave (the warm process's reply); KeyError/TypeError when malformed."""
        return cls(int(row["rank"]), str(row["path"]), int(row["start_line"]), int(row["end_line"]), row["symbol"],
                   float(row["confidence"]), row["cosine"], float(row["score"]), row["dense_rank"],
                   row["lexical_rank"], str(row["band"]), float(row["gap_to_floor"]), bool(row["semantic"]))


def band_row(result: SearchResult, floor: float, relief: float) -> BandedRow:
    """``result`` banded against ``floor`` and ``relief`` (confidences in [0, 1]), compared as whole
    percentages (what people see); confidences and scores rounded to 4 places."""
    confidence = confidence_of(result)
    band = ("confident" if percent(confidence) >= percent(floor)
            else "relief" if percent(confidence) >= percent(relief) else "below")
    return BandedRow(result.fused_rank, result.path, result.start_line, result.end_line, result.symbol,
                     round(confidence, 4), round(result.score, 4) if result.semantic else None, round(result.score, 4),
                     result.dense_rank, result.lexical_rank, band, round(confidence - floor, 4), result.semantic)
