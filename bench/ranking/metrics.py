"""Metrics of the ranking benchmark: graded file-level nDCG@10, recall@5, MRR; definition hits.

A ranked list of chunks becomes its distinct files in order of first appearance. Gains are the
labels' grades (2: the file to open first, 1: also useful); the ideal ranking sorts the labelled
files by grade (Järvelin & Kekäläinen 2002, linear gains, ``1/log2(rank+1)`` discount).
"""

from __future__ import annotations

import math
from typing import Sequence


def distinct_files(paths: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(paths))


def ndcg_at_k(ranked_files: Sequence[str], grades: dict[str, int], k: int = 10) -> float:
    """Graded nDCG@k of ``ranked_files`` against ``grades`` (path -> gain > 0), in [0, 1]."""
    dcg = sum(grades.get(path, 0) / math.log2(rank + 1) for rank, path in enumerate(ranked_files[:k], start=1))
    ideal = sum(g / math.log2(rank + 1) for rank, g in enumerate(sorted(grades.values(), reverse=True)[:k], start=1))
    return dcg / ideal if ideal else 0.0


def recall_at_k(ranked_files: Sequence[str], relevant: set[str], k: int = 5) -> float:
    return len(relevant.intersection(ranked_files[:k])) / len(relevant) if relevant else 0.0


def reciprocal_rank(ranked_files: Sequence[str], relevant: set[str]) -> float:
    for rank, path in enumerate(ranked_files, start=1):
        if path in relevant:
            return 1.0 / rank
    return 0.0


def definition_rank(chunks: Sequence[tuple[str, int, int]], path: str, line: int) -> int | None:
    """1-based rank of the first chunk ``(path, start, end)`` holding ``path:line``, else None."""
    for rank, (p, start, end) in enumerate(chunks, start=1):
        if p == path and start <= line <= end:
            return rank
    return None
