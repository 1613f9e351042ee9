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
import subprocess
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
_materialise = corpora.materialise


def materialise_present(project: corpora.Project, overrides: dict[str, str] | None = None) -> Path:
    """:func:`corpora.materialise`, except that files whose blobs the clone lacks (a snapshot's
    largest files, e.g. pagila's data dumps) are left out and named, instead of failing."""
    if (project.folder / ".materialised").is_file():
        return project.folder
    source = corpora.git_dir(project.repo, overrides)
    listing = subprocess.run(["git", "--git-dir", str(source), "ls-tree", "-r", project.commit],
                             capture_output=True, text=True, check=True).stdout.splitlines()
    blobs = [line.split(None, 3) for line in listing if line.split(None, 3)[1] == "blob"]
    present = subprocess.run(["git", "--git-dir", str(source), "cat-file", "--batch-check"],
                             input="".join(f"{b[2]}\n" for b in blobs), capture_output=True, text=True).stdout
    missing = [b[3] for b, line in zip(blobs, present.splitlines()) if line.endswith("missing")]
    if not missing:
        return _materialise(project, overrides)
    print(f"  left out (not in the clone): {', '.join(missing)}", flush=True)
    return corpora.materialise_tree(project.repo, project.commit, project.folder, overrides, leave_out=tuple(missing))


corpora.materialise = materialise_present

if __name__ == "__main__":
    raise SystemExit(run.main())
