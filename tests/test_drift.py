"""Base drift (DESIGN §10) against a real bare repository as ``origin``."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Sequence

import pytest
from conftest import git, write_files

from paqad.config import DRIFT_INTERVAL_SECONDS, load_settings
from paqad.project import ProjectPaths
from paqad.deliver.session_file import DRIFT_HEADING
from paqad.deliver.drift import MARKER_NAME, DriftResult, check_drift, run_git

T0 = 1_800_000_000.0  # a fixed "now" in seconds; the marker's mtime is set to it


class RecordingGit:
    """Runs git for real and records every argv (and the marker's state at ls-remote time)."""

    def __init__(self, marker: Path) -> None:
        self.calls: list[list[str]] = []
        self.marker = marker
        self.marker_mtime_at_ls_remote: float | None = None

    def __call__(self, args: Sequence[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
        self.calls.append(list(args))
        if args and args[0] == "ls-remote":
            self.marker_mtime_at_ls_remote = self.marker.stat().st_mtime if self.marker.exists() else None
        return run_git(args, cwd, timeout)

    def verbs(self) -> list[str]:
        return [c[0] for c in self.calls]


def commit(repo: Path, name: str, content: str) -> None:
    write_files(repo, {name: content})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"add {name}")


@pytest.fixture
def world(tmp_path: Path, git_repo):
    """``origin`` (bare), ``work`` (the project, a clone on a feature branch) and ``other`` (a
    second clone that pushes to origin's main)."""
    seed = git_repo({"README.md": "seed\n"}, name="seed")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(origin))
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(work))
    git(work, "checkout", "-q", "-b", "feature")
    commit(work, "feature.txt", "feature work\n")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(origin), str(other))
    return origin, work, other


def push_commits(other: Path, n: int, tag: str = "x") -> str:
    for i in range(n):
        commit(other, f"{tag}{i}.txt", f"{tag} {i}\n")
    git(other, "push", "-q", "origin", "HEAD:main")
    return git(other, "rev-parse", "HEAD").strip()


def drift_section(paths: ProjectPaths) -> str | None:
    if not paths.session_context.exists():
        return None
    text = paths.session_context.read_text(encoding="utf-8")
    return text if DRIFT_HEADING in text else None


def test_no_drift_then_ahead_then_throttled_then_unchanged(world) -> None:
    _, work, other = world
    paths = ProjectPaths(work)
    settings = load_settings(paths)
    marker = paths.state_dir / MARKER_NAME
    runner = RecordingGit(marker)

    # 1. origin/main has not moved since the clone: ls-remote, no fetch, ahead 0, no section.
    first = check_drift(paths, settings, now=T0, git_runner=runner)
    seed_tip = git(work, "rev-parse", "origin/main").strip()
    assert first == DriftResult(base="main", remote_tip=seed_tip, merge_base=seed_tip, ahead=0, fetched=False)
    assert "ls-remote" in runner.verbs() and "fetch" not in runner.verbs()
    assert runner.marker_mtime_at_ls_remote == T0  # marker touched before the network call
    assert drift_section(paths) is None

    # 2. Within 10 minutes: no git call at all, even though origin moved meanwhile.
    new_tip = push_commits(other, 3)
    runner.calls.clear()
    assert check_drift(paths, settings, now=T0 + DRIFT_INTERVAL_SECONDS - 1, git_runner=runner) is None
    assert runner.calls == []
    assert marker.stat().st_mtime == T0

    # 3. After 10 minutes: the remote tip differs from origin/main -> fetch; 3 commits ahead.
    runner.calls.clear()
    second = check_drift(paths, settings, now=T0 + DRIFT_INTERVAL_SECONDS, git_runner=runner)
    assert second == DriftResult(base="main", remote_tip=new_tip, merge_base=seed_tip, ahead=3, fetched=True)
    fetches = [c for c in runner.calls if c[0] == "fetch"]
    assert fetches == [["fetch", "--quiet", "--no-tags", "origin", "+refs/heads/main:refs/remotes/origin/main"]]
    assert git(work, "rev-parse", "origin/main").strip() == new_tip
    text = drift_section(paths)
    assert text == (
        "## Base drift\n\n"
        f"`origin/main` is 3 commits ahead of this branch's merge-base (`{seed_tip[:12]}`). Code on `main` "
        f"may differ from what you see here; check `git log {seed_tip[:12]}..origin/main` before relying on it.\n"
    )

    # 4. Another 10 minutes, nothing pushed: ls-remote again but no fetch; still 3 ahead.
    runner.calls.clear()
    third = check_drift(paths, settings, now=T0 + 2 * DRIFT_INTERVAL_SECONDS, git_runner=runner)
    assert third is not None and third.ahead == 3 and third.fetched is False
    assert runner.verbs().count("ls-remote") == 1 and "fetch" not in runner.verbs()

    # 5. The branch catches up (merges origin/main): drift 0 and the section is removed,
    #    other sections of the file are kept.
    paths.session_context.write_text("# Session\n\nnotes\n\n" + text, encoding="utf-8")
    git(work, "merge", "-q", "--no-edit", "origin/main")
    fourth = check_drift(paths, settings, now=T0 + 3 * DRIFT_INTERVAL_SECONDS, git_runner=runner)
    assert fourth is not None and fourth.ahead == 0
    assert paths.session_context.read_text(encoding="utf-8") == "# Session\n\nnotes\n"


def test_configured_base_branch_and_master_fallback(world) -> None:
    origin, work, other = world
    # origin gets a "develop" branch two commits past main.
    git(other, "checkout", "-q", "-b", "develop")
    commit(other, "d1.txt", "d1\n")
    commit(other, "d2.txt", "d2\n")
    git(other, "push", "-q", "origin", "develop")
    (work / ".paqad").mkdir()
    (work / ".paqad" / ".config").write_text("rag_base_branch=develop\n", encoding="utf-8")
    paths = ProjectPaths(work)
    result = check_drift(paths, load_settings(paths), now=T0)
    assert result is not None and (result.base, result.ahead, result.fetched) == ("develop", 2, True)
    assert "`origin/develop` is 2 commits ahead" in (drift_section(paths) or "")

    # A repository whose origin only has "master": auto picks master.
    legacy_origin = origin.parent / "legacy.git"
    git(origin.parent, "init", "-q", "--bare", "-b", "master", str(legacy_origin))
    git(other, "push", "-q", str(legacy_origin), "main:master")
    legacy = origin.parent / "legacy"
    git(origin.parent, "clone", "-q", str(legacy_origin), str(legacy))
    lpaths = ProjectPaths(legacy)
    lresult = check_drift(lpaths, load_settings(lpaths), now=T0)
    assert lresult is not None and (lresult.base, lresult.ahead, lresult.fetched) == ("master", 0, False)


def test_one_commit_is_singular(world) -> None:
    _, work, other = world
    push_commits(other, 1)
    paths = ProjectPaths(work)
    result = check_drift(paths, load_settings(paths), now=T0)
    assert result is not None and result.ahead == 1
    assert "`origin/main` is 1 commit ahead" in (drift_section(paths) or "")


@pytest.mark.parametrize("case", ["offline", "no-remote", "not-a-repo", "no-git", "unknown-branch"])
def test_silent_when_drift_cannot_be_known(case: str, world, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    origin, work, _ = world
    root = work
    if case == "offline":
        origin.rename(origin.with_name("moved.git"))  # the URL no longer answers
    elif case == "no-remote":
        git(work, "remote", "remove", "origin")
    elif case == "not-a-repo":
        root = tmp_path / "plain"
        root.mkdir()
    elif case == "no-git":
        empty_bin = tmp_path / "empty-bin"
        empty_bin.mkdir()
        monkeypatch.setenv("PATH", str(empty_bin))
    elif case == "unknown-branch":
        (work / ".paqad").mkdir()
        (work / ".paqad" / ".config").write_text("rag_base_branch=nope\n", encoding="utf-8")
    paths = ProjectPaths(root)
    settings = load_settings(paths)
    runner = RecordingGit(paths.state_dir / MARKER_NAME)
    assert check_drift(paths, settings, now=T0, git_runner=runner) is None
    assert not paths.session_context.exists()
    # ...and it is throttled like a successful check: no second attempt within 10 minutes.
    runner.calls.clear()
    assert check_drift(paths, settings, now=T0 + 60, git_runner=runner) is None
    assert runner.calls == []


def test_git_is_called_with_argument_lists_only(world) -> None:
    _, work, _ = world
    paths = ProjectPaths(work)
    seen: list[object] = []

    def runner(args, cwd, timeout):
        seen.append((type(args), cwd, timeout))
        return run_git(args, cwd, timeout)

    check_drift(paths, load_settings(paths), now=T0, git_runner=runner)
    assert seen and all(kind is list and cwd == work and 0 < timeout <= 20 for kind, cwd, timeout in seen)
