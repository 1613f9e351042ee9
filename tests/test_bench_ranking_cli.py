"""``bench/ranking/run.py --help`` and ``--list`` as a contributor reads them: the counts in the
help are those of ``bench/ranking/projects/*.json`` (counted, never typed), and ``--list`` shows
each configuration by name with only the fields it changes from ``default``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUN = REPO / "bench" / "ranking" / "run.py"


def _run(*args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run([sys.executable, str(RUN), *args], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_help_counts_the_projects_languages_and_queries_of_the_case_files() -> None:
    data = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((RUN.parent / "projects").glob("*.json"))]
    queries = sum(len(d["cases"]) for d in data)
    dev = [d for d in data if d["split"] == "dev"]
    expected = (f"Ranking benchmark: {len(data)} real projects in {len({d['language'] for d in data})} languages, "
                f"{queries} hand-labelled queries (dev {len(dev)} projects / {sum(len(d['cases']) for d in dev)}, "
                f"test {len(data) - len(dev)} projects / {queries - sum(len(d['cases']) for d in dev)}).")
    assert " ".join(_run("--help").split()).count(expected) == 1
    assert queries == 1097  # today's files (round 8: rand 26 + commons-csv 24; snappy, crc32c, zlib, lz4 74; symbols-def 246; round 10 symbols10 35; round 11 defs11 13); a new case changes both sides of the line above


def test_list_names_each_configuration_with_only_what_it_changes() -> None:
    sys.path.insert(0, str(REPO / "src"))
    from paqad.search import ablations

    lines = _run("--list").splitlines()
    assert len(lines) == len(ablations())
    assert "default: the reference (what the product runs)" in lines
    assert "no-reexports: off={reexports}" in lines
    assert "no-saturation: saturation=1.0" in lines
    assert "no-symbols: symbols=False" in lines
    assert not any("RankingOptions(" in line for line in lines)
    assert all(len(line) < 1400 for line in lines)  # round-4-default, the longest, turns off four rounds of fields
