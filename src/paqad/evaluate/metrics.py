"""File-level retrieval metrics for quality evaluation (``bench/quality.py``, ``rag eval``).

A search returns chunks; a person opens files. Every metric here works on the *distinct files*
of a result list, in the order their first chunk appears, against a set of expected files with
binary relevance. Definitions follow Manning, Raghavan & Schütze, *Introduction to Information
Retrieval* (2008), §8.4 (recall, MRR) and Järvelin & Kekäläinen (2002) for nDCG with the
``1 / log2(rank + 1)`` discount.
"""

from __future__ import annotations

import math
from typing import Iterable, Protocol, Sequence


class HasPath(Protocol):
    path: str


def distinct_files(results: Iterable[HasPath]) -> list[str]:
    """The distinct ``path`` values of ``results`` in order of first appearance.

    ``[a.py:L1-9, b.py:L3-4, a.py:L20-30]`` -> ``["a.py", "b.py"]``.
    """
    seen: dict[str, None] = {}
    for result in results:
        seen.setdefault(result.path, None)
    return list(seen)


def recall_at_k(ranked_files: Sequence[str], expected: Iterable[str], k: int) -> float:
    """Fraction of ``expected`` files found among the first ``k`` of ``ranked_files``, in [0, 1].

    Raises ValueError when ``expected`` is empty (recall is undefined).
    """
    wanted = set(expected)
    if not wanted:
        raise ValueError("recall needs at least one expected file")
    return len(wanted.intersection(ranked_files[:k])) / len(wanted)


def reciprocal_rank(ranked_files: Sequence[str], expected: Iterable[str]) -> float:
    """``1 / rank`` (1-based) of the first expected file in ``ranked_files``; 0.0 when none is there.

    The mean over queries is the MRR; the list's length is the cut-off (e.g. ``top_n = 20``).
    """
    wanted = set(expected)
    for rank, path in enumerate(ranked_files, start=1):
        if path in wanted:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(ranked_files: Sequence[str], expected: Iterable[str], k: int) -> float:
    """Normalised discounted cumulative gain at ``k`` with binary relevance, in [0, 1].

    DCG = sum over the first ``k`` files of ``rel / log2(rank + 1)``; the ideal DCG puts all
    ``min(len(expected), k)`` relevant files first. Raises ValueError when ``expected`` is empty.
    """
    wanted = set(expected)
    if not wanted:
        raise ValueError("nDCG needs at least one expected file")
    dcg = sum(1.0 / math.log2(rank + 1) for rank, path in enumerate(ranked_files[:k], start=1) if path in wanted)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(wanted), k) + 1))
    return dcg / ideal
