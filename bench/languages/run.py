"""Long-tail languages benchmark (issue 22): 12 real projects, one per data-file language, 10
hand-written queries each, scored like the ranking benchmark (nDCG@10, def@1 for symbol cases).

The projects (``bench/languages/projects/*.json``, the format of bench/ranking/FORMAT.md) are
materialised and indexed under ``$PAQAD_LANGUAGES_CACHE`` (default ``bench/languages/.cache``,
git-ignored), never in the shared ``bench/.cache``: their indexes are built by this branch's
chunker. Everything else is bench/ranking/run.py (same metrics, tables and options).

    PAQAD_LANGUAGES_CACHE=/tmp/lt nice -n 10 .venv/bin/python bench/languages/run.py --split dev
    .venv/bin/python bench/languages/run.py --projects mint,args --json /tmp/lt/scores.json
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("PAQAD_LANGUAGES_CACHE", str(HERE / ".cache")))
os.environ.setdefault("PAQAD_HOME", str(CACHE / "paqad-home"))
sys.path.insert(0, str(HERE.parent / "ranking"))

import corpora  # noqa: E402
import run  # noqa: E402

corpora.PROJECTS_DIR = HERE / "projects"
corpora.CACHE_DIR = CACHE / "corpora"

if __name__ == "__main__":
    raise SystemExit(run.main())
