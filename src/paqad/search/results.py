"""The search result type shared by search, the floor, delivery, probe and the MCP server."""

from __future__ import annotations

from dataclasses import dataclass

from paqad.search.degraded import Degraded


@dataclass(frozen=True)
class SearchResult:
    """One chunk from the fused (final) result list of a query (DESIGN §8).

    ``path`` is project-relative with ``/``; ``start_line``/``end_line`` are 1-based and
    inclusive; ``text`` is the chunk as shown (without the embedding header); ``score`` is the
    cosine similarity of query and chunk in [-1, 1]; ``fused_rank`` is the 1-based rank after
    reciprocal rank fusion; ``dense_rank``/``lexical_rank`` are the 1-based ranks in the dense
    and BM25 pools, ``None`` when the chunk was not in that pool. ``semantic`` is False when the
    chunk has no cosine (no vector yet, or the dense side was left out): ``score`` is then 0.0
    and only keyword evidence ranked it.
    """

    path: str
    start_line: int
    end_line: int
    symbol: str | None
    language: str
    text: str
    score: float
    fused_rank: int
    dense_rank: int | None
    lexical_rank: int | None
    chunk_id: int = 0
    confidence: float | None = None  # calibrated probability of relevance in [0, 1] (search.confidence)
    semantic: bool = True

    @property
    def location(self) -> str:
        """``path:Lstart-end``, the form every delivery and report uses."""
        return f"{self.path}:L{self.start_line}-{self.end_line}"


@dataclass(frozen=True)
class SearchResponse:
    """What :func:`paqad.search.search` returns: the fused ``results`` (best first) and, when
    semantic search could not be used, ``degraded``: why, typed (its ``words`` for people; keyword and symbol
    search only; cosines are then 0). ``coverage`` is the share of the index's chunks that have
    a vector (below 1.0 while embedding still runs: the rest can only match by keywords)."""

    results: tuple[SearchResult, ...]
    degraded: Degraded | None = None
    coverage: float = 1.0

    def to_dict(self) -> dict:
        return {
            "degraded": self.degraded.words if self.degraded is not None else None,
            "semantic_coverage": round(self.coverage, 4),
            "results": [
                {"path": r.path, "start_line": r.start_line, "end_line": r.end_line, "symbol": r.symbol,
                 "language": r.language, "score": r.score, "fused_rank": r.fused_rank, "dense_rank": r.dense_rank,
                 "lexical_rank": r.lexical_rank, "semantic": r.semantic, "text": r.text}
                for r in self.results
            ],
        }
