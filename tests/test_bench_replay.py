"""bench/passages/replay.py (issue 19, round 11): a ``--configs`` entry names a configuration of
``paqad.search.ablations`` with optional ``+field=value`` changes."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

PASSAGES = Path(__file__).resolve().parents[1] / "bench" / "passages"
sys.path.insert(0, str(PASSAGES))

from replay import configuration  # noqa: E402

from paqad.search.ablations import ablations  # noqa: E402


def test_a_configuration_with_changes_is_that_configuration_with_those_fields() -> None:
    known = ablations()
    assert configuration(known, "default") == known["default"]
    assert configuration(known, "no-passage-choice+docstring_passages=false+passage_bm25_weight=0.5") == replace(
        known["no-passage-choice"], docstring_passages=False, passage_bm25_weight=0.5)


def test_an_unknown_field_is_refused() -> None:
    with pytest.raises(SystemExit, match="no RankingOptions field 'passage_ratio'"):
        configuration(ablations(), "default+passage_ratio=1")
