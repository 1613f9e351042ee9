"""Evaluation cases from a project's own git history: a commit's message as the query, the
non-test source files it changed as the expected places (``rag eval --from-git N``).

A commit that changed more source files than hit@5 looks at (:data:`MAX_GOLD_FILES` = 5) makes
no case: no top 5 can hold its gold set, so it could only count as a miss. It is ignored (it
does not count towards N) and reported."""

from __future__ import annotations

import re
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from paqad.errors import EvaluationError, ToolMissingError, UsageError
from paqad.evaluate.cases import EvalCase, ExpectedPlace
from paqad.evaluate.gate import HIT_K
from paqad.index.languages import SOURCE_LANGUAGES, language_for_path
from paqad.search.signals import is_test_path

GIT_SCAN_FACTOR = 10  # --from-git N looks at most at 10 N first-parent commits to find N usable ones
GIT_NAMED, GIT_UNNAMED = "git-named", "git-unnamed"
MAX_GOLD_FILES = HIT_K  # a commit changing more source files than this cannot be a hit@5


@dataclass(frozen=True)
class GitCase:
    """A case made from one commit: ``case.query`` is its message, ``case.expected`` the non-test
    source files it changed that existed at ``parent``; ``named`` when the message names one of
    them (its path, file name or stem as a word)."""

    case: EvalCase
    commit: str
    parent: str
    named: bool


@dataclass(frozen=True)
class IgnoredCommit:
    """A commit left out because it changed ``files`` (> :data:`MAX_GOLD_FILES`) non-test source
    files that existed at its parent; ``subject`` is its message's first line."""

    commit: str
    files: int
    subject: str


@dataclass(frozen=True)
class GitScan:
    """What :func:`git_cases` found: the ``cases`` (oldest first), the commits ``ignored`` on the
    way for changing too many source files (oldest first), and how many commits it ``scanned``."""

    cases: tuple[GitCase, ...]
    ignored: tuple[IgnoredCommit, ...] = ()
    scanned: int = 0


def _git(repo: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise ToolMissingError(f"--from-git: cannot run git ({exc}); install git") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise EvaluationError(f"--from-git: `git {' '.join(args)}` failed in {repo}: {last}")
    return done.stdout


def git_toplevel(root: Path) -> Path:
    """The work tree top of the git repository holding ``root``; PaqadError when there is none."""
    try:
        out = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise ToolMissingError(f"--from-git: cannot run git ({exc}); install git") from None
    if out.returncode != 0:
        raise UsageError(f"--from-git: {root} is not in a git repository; run it inside one or pass --project-root")
    return Path(out.stdout.strip())


def is_source_file(path: str) -> bool:
    """A non-test source file: a language parsed with tree-sitter (``SOURCE_LANGUAGES``) and not
    a test path (:func:`paqad.search.is_test_path`)."""
    return language_for_path(path) in SOURCE_LANGUAGES and not is_test_path(path)


def message_names(message: str, path: str) -> bool:
    """True when ``message`` names ``path``: the path, the file name, or the stem (>= 3 letters)
    as a whole word, case-insensitive (``store: ...`` names ``src/paqad/store/lock.py``)."""
    low = message.lower()
    name = path.rsplit("/", 1)[-1].lower()
    stem = name.rsplit(".", 1)[0]
    if path.lower() in low or name in low:
        return True
    return len(stem) >= 3 and re.search(rf"(?<![\w]){re.escape(stem)}(?![\w])", low) is not None


def git_cases(repo: Path, count: int) -> GitScan:
    """Cases from the last ``count`` first-parent commits of ``repo`` (HEAD) that change a non-test
    source file which existed at the parent (modified, deleted or renamed away; ``--no-renames``),
    and at most :data:`MAX_GOLD_FILES` of them; commits changing more are listed as ignored.

    Oldest first. Root commits are skipped; at most ``10 * count`` commits are looked at.
    Raises PaqadError when ``repo`` is not a git repository or ``count < 1``.
    """
    if count < 1:
        raise UsageError(f"--from-git {count}: give a number of commits of at least 1")
    top = git_toplevel(repo)
    revs = _git(top, "rev-list", "--first-parent", f"--max-count={count * GIT_SCAN_FACTOR}", "HEAD").split()
    found: list[GitCase] = []
    ignored: list[IgnoredCommit] = []
    scanned = 0
    for scanned, commit in enumerate(revs, start=1):
        parents = _git(top, "rev-list", "--parents", "-n", "1", commit).split()[1:]
        if not parents:
            continue
        parent = parents[0]
        changed = _git(top, "diff", "--name-only", "--no-renames", "--diff-filter=MDT", "-z", parent, commit).split("\0")
        expected = tuple(p for p in changed if p and is_source_file(p))
        if not expected:
            continue
        message = _git(top, "log", "-1", "--format=%B", commit).strip()
        if len(expected) > MAX_GOLD_FILES:
            ignored.append(IgnoredCommit(commit, len(expected), message.splitlines()[0] if message else ""))
            continue
        named = any(message_names(message, p) for p in expected)
        case = EvalCase(
            id=f"git-{commit[:10]}", case_class=GIT_NAMED if named else GIT_UNNAMED, query=message,
            expected=tuple(ExpectedPlace(p) for p in expected), notes=message.splitlines()[0] if message else "",
        )
        found.append(GitCase(case, commit, parent, named))
        if len(found) == count:
            break
    return GitScan(tuple(reversed(found)), tuple(reversed(ignored)), scanned)


def checkout_into(repo: Path, commit: str, target: Path) -> None:
    """Replace everything in ``target`` except ``.paqad/`` with the tree of ``commit`` (``git archive``;
    the repository is not touched)."""
    for child in target.iterdir():
        if child.name == ".paqad":
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()

    def safe(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
        if member.name.split("/", 1)[0] == ".paqad":
            return None
        try:
            return tarfile.data_filter(member, dest)
        except tarfile.FilterError:
            return None  # e.g. a symlink pointing outside the tree: not indexed anyway

    proc = subprocess.Popen(["git", "archive", "--format=tar", commit], cwd=repo, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        with tarfile.open(fileobj=proc.stdout, mode="r|") as archive:
            archive.extractall(target, filter=safe)
    finally:
        if proc.stdout is not None:
            proc.stdout.close()
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        if proc.stderr is not None:
            proc.stderr.close()
        if proc.wait() != 0:
            raise EvaluationError(f"--from-git: `git archive {commit[:10]}` failed: {err.strip()}")

