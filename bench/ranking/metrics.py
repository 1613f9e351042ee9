"""Metrics of the ranking benchmark: graded file-level nDCG@10, recall@5, MRR; definition hits;
chunk-level labels (:func:`chunk_is_right`, the one rule) and the passage rank.

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


# Chunk level (issue 19; format: bench/ranking/FORMAT.md, "Chunk-level labels").


def has_chunk_labels(case: dict) -> bool:
    """True when ``case`` is labelled at chunk level: a symbol case with a ``definition``, or a
    where/architecture case with ``lines`` on at least one expected entry."""
    if case.get("kind") == "symbol":
        return bool(case.get("definition"))
    return any(entry.get("lines") for entry in case.get("expected", ()))


def chunk_is_right(case: dict, path: str, start: int, end: int) -> bool:
    """Whether the chunk ``path:start-end`` (1-based inclusive lines) answers ``case``.

    The one rule of the benchmark (FORMAT.md), for every bench that labels chunks:

    - symbol case with a ``definition``: the chunk is in the definition's file and its range holds
      the definition's ``start_line``;
    - case with ``lines`` on any expected entry: the chunk's file is an expected entry carrying
      ``lines`` and its range overlaps one of those ``[start, end]`` ranges by at least one line
      (an expected file without ``lines`` in such a case never has a right chunk);
    - a case without any chunk label (see :func:`has_chunk_labels`) falls back to file level:
      the chunk is right when its file is one of the expected files (any grade), the label
      bench/calibration.py used before chunk labels existed.

    >>> case = {"kind": "where", "expected": [{"path": "a.py", "grade": 2, "lines": [[10, 20]]},
    ...                                         {"path": "b.py", "grade": 1}]}
    >>> chunk_is_right(case, "a.py", 18, 40), chunk_is_right(case, "a.py", 1, 9)
    (True, False)
    >>> chunk_is_right(case, "b.py", 1, 100)
    False
    """
    definition = case.get("definition") if case.get("kind") == "symbol" else None
    if definition:
        return path == definition["path"] and start <= definition["start_line"] <= end
    entries = case.get("expected", ())
    if not has_chunk_labels(case):
        return any(entry["path"] == path for entry in entries)
    for entry in entries:
        if entry["path"] == path:
            return any(start <= hi and lo <= end for lo, hi in entry.get("lines") or ())
    return False


def passage_rank(case: dict, chunks: Sequence[tuple[str, int, int]]) -> int | None:
    """1-based rank of the first chunk ``(path, start, end)`` right for ``case``
    (:func:`chunk_is_right`), None when none is or the case has no chunk labels."""
    if not has_chunk_labels(case):
        return None
    for rank, (path, start, end) in enumerate(chunks, start=1):
        if chunk_is_right(case, path, start, end):
            return rank
    return None
