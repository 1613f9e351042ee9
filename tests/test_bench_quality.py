"""File-level retrieval metrics (paqad.evaluate.metrics) on hand-made rankings, exact values."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import pytest

from paqad.evaluate.metrics import distinct_files, ndcg_at_k, recall_at_k, reciprocal_rank


@dataclass(frozen=True)
class Hit:
    path: str


RANKED = ["a.py", "b.py", "c.py", "d.py", "e.py", "f.py", "g.py"]


def test_distinct_files_keeps_first_appearance_order() -> None:
    hits = [Hit("b.py"), Hit("a.py"), Hit("b.py"), Hit("c.py"), Hit("a.py")]
    assert distinct_files(hits) == ["b.py", "a.py", "c.py"]
    assert distinct_files([]) == []


def test_recall_at_k_counts_expected_files_in_the_first_k() -> None:
    assert recall_at_k(RANKED, ["b.py", "f.py"], 5) == 0.5
    assert recall_at_k(RANKED, ["b.py", "f.py"], 6) == 1.0
    assert recall_at_k(RANKED, ["z.py"], 5) == 0.0
    assert recall_at_k(RANKED, ["a.py", "c.py", "z.py"], 5) == pytest.approx(2 / 3)
    with pytest.raises(ValueError):
        recall_at_k(RANKED, [], 5)


def test_reciprocal_rank_of_the_first_expected_file() -> None:
    assert reciprocal_rank(RANKED, ["c.py", "f.py"]) == pytest.approx(1 / 3)
    assert reciprocal_rank(RANKED, ["a.py"]) == 1.0
    assert reciprocal_rank(RANKED, ["z.py"]) == 0.0
    assert reciprocal_rank([], ["a.py"]) == 0.0


def test_ndcg_at_k_binary_relevance() -> None:
    # one relevant file at rank 3: (1/log2 4) / (1/log2 2) = 0.5
    assert ndcg_at_k(RANKED, ["c.py"], 10) == pytest.approx(0.5)
    # two relevant at ranks 1 and 4: (1 + 1/log2 5) / (1 + 1/log2 3)
    assert ndcg_at_k(RANKED, ["a.py", "d.py"], 10) == pytest.approx((1 + 1 / math.log2(5)) / (1 + 1 / math.log2(3)))
    # relevant file beyond the cut-off scores nothing
    assert ndcg_at_k(RANKED, ["g.py"], 5) == 0.0
    assert ndcg_at_k(RANKED, ["a.py", "b.py"], 10) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        ndcg_at_k(RANKED, [], 10)


def test_quality_cases_file_is_well_formed() -> None:
    data = json.loads((Path(__file__).resolve().parents[1] / "bench" / "quality_cases.json").read_text("utf-8"))
    assert data["version"] == 1
    cases = data["cases"]
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids))
    per_project: dict[str, int] = {}
    for case in cases:
        assert case["kind"] in {"symbol", "where", "architecture"}, case["id"]
        assert 1 <= len(case["expected"]) <= 3, case["id"]
        assert all("\\" not in p and not p.startswith("/") for p in case["expected"]), case["id"]
        per_project[case["project"]] = per_project.get(case["project"], 0) + 1
    assert set(per_project) == {"requests", "flask", "rich", "click"}
    assert min(per_project.values()) >= 16
