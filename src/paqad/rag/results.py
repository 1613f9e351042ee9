"""The search result type shared by search, the floor, delivery, probe and the MCP server."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SearchResult:
    """One chunk from the fused (final) result list of a query (DESIGN §8).

    ``path`` is project-relative with ``/``; ``start_line``/``end_line`` are 1-based and
    inclusive; ``text`` is the chunk as shown (without the embedding header); ``score`` is the
    cosine similarity of query and chunk in [-1, 1]; ``fused_rank`` is the 1-based rank after
    reciprocal rank fusion; ``dense_rank``/``lexical_rank`` are the 1-based ranks in the dense
    and BM25 pools, ``None`` when the chunk was not in that pool.
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

    @property
    def location(self) -> str:
        """``path:Lstart-end``, the form every delivery and report uses."""
        return f"{self.path}:L{self.start_line}-{self.end_line}"
