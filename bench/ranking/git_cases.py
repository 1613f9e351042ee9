"""Cases mined from each benchmark project's git history: a commit's message as the query, the
non-test source files it modified as the expected files (issue 10's git-mined set).

Commits are taken from the first-parent history before the pinned commit, newest first: not
merges, with a descriptive message (15+ characters, not a version bump, dependency update,
formatting, lint, CI or release chore), modifying 1-5 non-test source files that still exist at
the pinned commit (so the pinned tree's index can hold them; more than 5 files no top 5 can
hold). At most :data:`PER_PROJECT` per project. PR numbers (``(#123)``) and trailers
(``Signed-off-by:``) are dropped from the message.

    .venv/bin/python bench/ranking/run.py --git --configs previous,default
"""

from __future__ import annotations

import re
import subprocess

import corpora

PER_PROJECT = 15
SCAN = 400
MAX_FILES = 5
_CHORE = re.compile(
    r"^\s*(merge\b|bump\b|release\b|prepare (for )?release|v?\d+\.\d+(\.\d+)?\b|update (dependenc|deps|changelog|readme)|"
    r"chore|ci\b|ci:|build\(deps|docs?\b|typo|format|fmt\b|lint|style|revert\b|cleanup|clean up|whitespace|"
    r"changelog|version\b|deps\b|update copyright|\[ci|prepare for|automated code change|update [\w./-]+$|"
    r"update (app |the )?version|switch to `?actions/|upgrade (sa |static analysis )?tools)", re.IGNORECASE)
_TRAILER = re.compile(r"^(signed-off-by|co-authored-by|reviewed-by|cc|fixes|closes|change-id|pr-url):", re.IGNORECASE)


def _git(git_dir, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True, check=True).stdout


def _message(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if not _TRAILER.match(line.strip())]
    message = "\n".join(lines).strip()
    message = re.sub(r"\s*\(#\d+\)", "", message)
    return message[:1500]


def load(project: corpora.Project) -> list[dict]:
    """The git cases of ``project`` (dicts like the hand-written cases, kind ``git``)."""
    from paqad.index.languages import SOURCE_LANGUAGES, language_for_path
    from paqad.search.priors import path_kinds

    git_dir = corpora.git_dir(project.repo)
    present = set(_git(git_dir, "ls-tree", "-r", "--name-only", project.commit).split("\n"))
    revs = _git(git_dir, "rev-list", "--first-parent", "--no-merges", f"--max-count={SCAN}", f"{project.commit}~1").split()
    cases: list[dict] = []
    for commit in revs:
        raw = _git(git_dir, "log", "-1", "--format=%B", commit)
        message = _message(raw)
        subject = message.splitlines()[0] if message else ""
        if len(subject) < 15 or _CHORE.match(subject):
            continue
        changed = _git(git_dir, "diff-tree", "-r", "--no-commit-id", "--name-only", "--no-renames", "--diff-filter=M",
                       commit).split()
        files = [p for p in changed if p in present and language_for_path(p) in SOURCE_LANGUAGES
                 and not ({"tests", "examples", "vendored"} & path_kinds(p, "", ""))]
        if not 1 <= len(files) <= MAX_FILES or len(files) != len([p for p in changed if language_for_path(p) in SOURCE_LANGUAGES
                                                                     and not ({"tests"} & path_kinds(p, "", ""))]):
            continue
        cases.append({"id": f"{project.name}-git-{commit[:10]}", "kind": "git", "query": message,
                      "expected": [{"path": p, "grade": 2} for p in files]})
        if len(cases) == PER_PROJECT:
            break
    return cases
