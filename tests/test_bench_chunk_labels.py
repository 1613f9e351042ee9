"""Chunk-level labels of the ranking benchmark (issue 19): the one rule in
bench/ranking/metrics.py (``chunk_is_right``), the passage rank, and the ``lines`` checker of
bench/ranking/check_cases.py, on hand-made cases with exact answers; plus the shape of every
committed ``lines`` label."""

from __future__ import annotations

import json
import sys
from pathlib import Path

RANKING = Path(__file__).resolve().parents[1] / "bench" / "ranking"
sys.path.insert(0, str(RANKING))

from check_cases import check_lines  # noqa: E402
from metrics import chunk_is_right, has_chunk_labels, passage_rank  # noqa: E402

WHERE = {"id": "p-07", "kind": "where", "query": "q", "expected": [
    {"path": "src/a.py", "grade": 2, "lines": [[10, 20], [40, 45]]},
    {"path": "src/b.py", "grade": 2},
    {"path": "src/c.py", "grade": 1, "lines": [[3, 4]]},
]}
SYMBOL = {"id": "p-01", "kind": "symbol", "query": "f", "expected": [{"path": "src/a.py", "grade": 2}],
          "definition": {"path": "src/a.py", "start_line": 12, "end_line": 30}}
FILE_ONLY = {"id": "p-08", "kind": "architecture", "query": "q",
             "expected": [{"path": "src/a.py", "grade": 2}, {"path": "src/d.py", "grade": 1}]}


def test_a_chunk_is_right_when_it_overlaps_a_labelled_range_by_one_line() -> None:
    assert chunk_is_right(WHERE, "src/a.py", 1, 10)  # first line of [10, 20]
    assert chunk_is_right(WHERE, "src/a.py", 20, 39)  # last line of [10, 20]
    assert chunk_is_right(WHERE, "src/a.py", 44, 90)
    assert not chunk_is_right(WHERE, "src/a.py", 1, 9)  # the doc comment above
    assert not chunk_is_right(WHERE, "src/a.py", 21, 39)  # between the ranges
    assert chunk_is_right(WHERE, "src/c.py", 4, 8)  # a labelled grade-1 entry counts too


def test_an_expected_file_without_lines_in_a_labelled_case_has_no_right_chunk() -> None:
    assert not chunk_is_right(WHERE, "src/b.py", 1, 1000)
    assert not chunk_is_right(WHERE, "src/z.py", 10, 20)


def test_symbol_cases_need_the_definition_start_line_inside_the_chunk() -> None:
    assert chunk_is_right(SYMBOL, "src/a.py", 1, 12)
    assert not chunk_is_right(SYMBOL, "src/a.py", 13, 30)  # the body's tail, not the definition
    assert not chunk_is_right(SYMBOL, "src/b.py", 1, 100)


def test_cases_without_chunk_labels_fall_back_to_the_file_and_have_no_passage_rank() -> None:
    assert not has_chunk_labels(FILE_ONLY)
    assert has_chunk_labels(WHERE) and has_chunk_labels(SYMBOL)
    assert chunk_is_right(FILE_ONLY, "src/d.py", 1, 2)
    assert not chunk_is_right(FILE_ONLY, "src/e.py", 1, 2)
    assert passage_rank(FILE_ONLY, [("src/a.py", 1, 5)]) is None


def test_passage_rank_is_the_rank_of_the_first_right_chunk() -> None:
    chunks = [("src/b.py", 1, 50), ("src/a.py", 1, 9), ("src/a.py", 41, 60), ("src/a.py", 10, 20)]
    assert passage_rank(WHERE, chunks) == 3
    assert passage_rank(WHERE, chunks[:2]) is None
    assert passage_rank(SYMBOL, [("src/a.py", 13, 30), ("src/a.py", 1, 12)]) == 2


def test_check_lines_reports_bad_shapes_ranges_past_the_end_and_missing_files() -> None:
    counts = {"src/a.py": 50}.get
    assert check_lines("p/p-07", {"path": "src/a.py", "grade": 2, "lines": [[1, 50]]}, counts) == []
    assert check_lines("p/p-07", {"path": "src/a.py", "grade": 2, "lines": [[9, 3], [1, 51]]}, counts) == [
        "p/p-07: bad lines [9, 3] for src/a.py (want [start, end], 1 <= start <= end)",
        "p/p-07: lines [1, 51] of src/a.py end beyond the file (50 lines)",
    ]
    assert check_lines("p/p-07", {"path": "gone.py", "grade": 2, "lines": [[1, 2]]}, lambda p: -1) == [
        "p/p-07: lines given for gone.py, which is not in the corpus"]
    assert check_lines("p/p-07", {"path": "src/a.py", "grade": 2, "lines": []}, counts) == [
        "p/p-07: lines of src/a.py must be a non-empty list of [start, end] pairs"]


def test_every_committed_lines_label_is_a_list_of_ordered_int_pairs() -> None:
    seen = 0
    for path in sorted((RANKING / "projects").glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            for entry in case["expected"]:
                for span in entry.get("lines", ()):
                    seen += 1
                    assert isinstance(span, list) and len(span) == 2, (case["id"], span)
                    assert all(type(v) is int for v in span) and 1 <= span[0] <= span[1], (case["id"], span)
    # Every dev and test project is labelled (issue 19: 609 ranges at the end of round 3); the
    # floor catches a project file that lost its labels in a merge.
    assert seen >= 500
