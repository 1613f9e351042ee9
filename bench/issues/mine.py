"""Candidate fix commits of a project for the issue-localisation benchmark (a helper for building
``bench/issues/cases/*.json``, not part of a run).

A candidate is a first-parent commit of the mirror's default branch whose message says it fixes
an issue (``fix #12``, ``fixes #12``, ``closes #12``, ``resolves #12``, ``fix for #12``; a merge
commit's PR body is part of its message) or whose changelog diff adds a line naming ``#12`` /
``issues/12`` (loguru and rich record the fixed issue only there). Gold files are the non-test
source files the commit changes against its first parent (tests excluded; added files cannot be found in the
parent's tree, so a commit whose every source file is new is skipped); 1-5 of them.

    .venv/bin/python bench/issues/mine.py python-attrs/attrs --limit 40
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "ranking"))

import corpora  # noqa: E402

_FIXES = re.compile(r"\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)(?:\s+for)?\s*:?\s+(?:[\w.-]+/[\w.-]+)?#(\d+)", re.I)
_CHANGELOG = re.compile(r"(?i)(changelog|changes|history|news)[^/]*$")
_ISSUE_REF = re.compile(r"(?:issues/|pull/|#)(\d{2,5})\b")
MAX_FILES = 5


def git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True,
                          errors="replace", check=True).stdout  # binary diffs (scrapy) are not UTF-8


def gold_files(git_dir: Path, commit: str) -> tuple[list[str], list[str]]:
    """(modified non-test source files, every changed path) of ``commit`` against its first parent."""
    from paqad.index.languages import SOURCE_LANGUAGES, language_for_path
    from paqad.search.priors import path_kinds

    out = git(git_dir, "diff", "--name-status", "--no-renames", f"{commit}^1", commit)
    changed, modified = [], []
    for line in out.splitlines():
        status, path = line.split("\t", 1)
        changed.append(path)
        if status == "M" and language_for_path(path) in SOURCE_LANGUAGES and not (
                "tests" in path_kinds(path, "", "")):
            modified.append(path)
    return modified, changed


def candidates(repo: str, limit: int) -> list[dict]:
    git_dir = corpora.git_dir(repo)
    revs = git(git_dir, "rev-list", "--first-parent", "HEAD").split()
    found: list[dict] = []
    for commit in revs:
        message = git(git_dir, "log", "-1", "--format=%B", commit)
        numbers = _FIXES.findall(message)
        if not numbers:
            try:
                diff = git(git_dir, "diff", "--unified=0", f"{commit}^1", commit, "--", ".")
            except subprocess.CalledProcessError:  # the root commit
                continue
            current = ""
            for line in diff.splitlines():
                if line.startswith("+++ "):
                    current = line[6:]
                elif line.startswith("+") and _CHANGELOG.search(current):
                    numbers += _ISSUE_REF.findall(line)
        if not numbers:
            continue
        try:
            files, changed = gold_files(git_dir, commit)
        except subprocess.CalledProcessError:  # root commit
            continue
        if not 1 <= len(files) <= MAX_FILES:
            continue
        found.append({"commit": commit, "parent": git(git_dir, "rev-parse", f"{commit}^1").strip(),
                      "issues": sorted(set(numbers), key=int), "subject": message.splitlines()[0][:100],
                      "gold": files, "date": git(git_dir, "log", "-1", "--format=%cs", commit).strip()})
        if len(found) >= limit:
            break
    return found


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo")
    parser.add_argument("--limit", type=int, default=40)
    args = parser.parse_args()
    for c in candidates(args.repo, args.limit):
        print(f"{c['date']} {c['commit'][:10]} #{','.join(c['issues'])} {c['subject']!r} -> {' '.join(c['gold'])}")
