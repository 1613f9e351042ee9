"""Base-branch drift: how far ``origin/<base>`` has moved past the branch's merge-base (DESIGN §10).

At most once every :data:`paqad.config.DRIFT_INTERVAL_SECONDS` (a marker file under
``.paqad/state/`` is touched *before* any network call, so a slow or failing remote is not
asked again at the next prompt), ``git ls-remote origin refs/heads/<base>`` reads the remote
tip. ``git fetch`` runs only when that tip differs from the local ``origin/<base>``. The
number of commits ``origin/<base>`` has beyond ``git merge-base HEAD origin/<base>`` goes into a
``## Base drift`` section of ``.paqad/context/session-context.md``; the section is removed when
that number is 0.

Offline, no ``origin`` remote, no ``git`` on PATH, not a repository: silent (``None``, nothing
written). Git is always run with an argument list (never a shell) and a timeout.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from paqad.config import DRIFT_INTERVAL_SECONDS, Settings
from paqad.project import ProjectPaths
from paqad.deliver.session_file import DRIFT_HEADING as SECTION_HEADING  # "## Base drift"
from paqad.deliver.session_file import write_section

MARKER_NAME = "drift-checked"
AUTO_BASE_BRANCHES = ("main", "master")  # DESIGN §4: rag_base_branch auto = main, then master
LOCAL_GIT_TIMEOUT_SECONDS = 10.0
NETWORK_GIT_TIMEOUT_SECONDS = 20.0  # ls-remote / fetch of one branch; drift is best effort

# (argv after "git", working directory, timeout in seconds) -> completed process.
GitRunner = Callable[[Sequence[str], Path, float], "subprocess.CompletedProcess[str]"]


@dataclass(frozen=True)
class DriftResult:
    """Outcome of one drift check.

    Attributes:
        base: branch name on ``origin`` (e.g. ``"main"``).
        remote_tip: sha of ``refs/heads/<base>`` on origin, as ``ls-remote`` reported it.
        merge_base: sha of ``git merge-base HEAD origin/<base>``.
        ahead: commits in ``merge_base..origin/<base>`` (0 = no drift).
        fetched: whether this check ran ``git fetch`` (the remote tip had moved).
    """

    base: str
    remote_tip: str
    merge_base: str
    ahead: int
    fetched: bool


def run_git(args: Sequence[str], cwd: Path, timeout: float) -> "subprocess.CompletedProcess[str]":
    """Run ``git *args`` in ``cwd`` without a shell; never prompts for credentials.

    Raises ``OSError`` (no git on PATH) and ``subprocess.TimeoutExpired``; a non-zero exit is
    returned, not raised.
    """
    env = dict(os.environ)
    env["GIT_TERMINAL_PROMPT"] = "0"  # a background check must never wait for a password
    env.setdefault("LC_ALL", "C")  # stable, parseable messages
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def check_drift(
    paths: ProjectPaths,
    settings: Settings,
    *,
    now: float | None = None,
    git_runner: GitRunner = run_git,
) -> DriftResult | None:
    """Check base drift and write or remove the ``## Base drift`` section.

    ``now`` is a Unix time in seconds (default: the clock); the check is skipped, returning
    ``None`` with no git call at all, when the marker was touched less than
    ``DRIFT_INTERVAL_SECONDS`` before ``now``. ``git_runner`` runs git (tests pass an
    instrumented one). Returns ``None`` when throttled or when drift cannot be known (offline,
    no remote, no git, not a repository); never raises for those.
    """
    now = time.time() if now is None else now
    marker = paths.state_dir / MARKER_NAME
    try:
        last = marker.stat().st_mtime
    except OSError:
        last = None
    if last is not None and 0 <= now - last < DRIFT_INTERVAL_SECONDS:
        return None
    try:
        paths.state_dir.mkdir(parents=True, exist_ok=True)
        marker.touch()
        os.utime(marker, (now, now))
    except OSError:
        return None  # cannot throttle -> do not risk a network call per prompt

    try:
        result = _measure(paths.root, settings.rag_base_branch.strip(), git_runner)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if result is None:
        return None
    write_drift_section(paths, result)
    return result


def _measure(root: Path, configured_base: str, git: GitRunner) -> DriftResult | None:
    def ok(args: Sequence[str], timeout: float = LOCAL_GIT_TIMEOUT_SECONDS) -> str | None:
        proc = git(list(args), root, timeout)
        return proc.stdout.strip() if proc.returncode == 0 else None

    if ok(["rev-parse", "--is-inside-work-tree"]) != "true":
        return None
    if ok(["remote", "get-url", "origin"]) is None:
        return None
    candidates = [configured_base] if configured_base else list(AUTO_BASE_BRANCHES)
    listing = ok(
        ["ls-remote", "--quiet", "origin", *(f"refs/heads/{name}" for name in candidates)],
        NETWORK_GIT_TIMEOUT_SECONDS,
    )
    if not listing:
        return None
    tips: dict[str, str] = {}
    for line in listing.splitlines():
        sha, _, ref = line.partition("\t")
        if ref.startswith("refs/heads/"):
            tips[ref[len("refs/heads/") :]] = sha.strip()
    base = next((name for name in candidates if name in tips), None)
    if base is None:
        return None
    remote_tip = tips[base]
    tracking = f"refs/remotes/origin/{base}"
    local_tip = ok(["rev-parse", "--verify", "--quiet", tracking])
    fetched = False
    if local_tip != remote_tip:
        # Only the base branch, into its remote-tracking ref ('+': the remote may have been rewritten).
        if ok(["fetch", "--quiet", "--no-tags", "origin", f"+refs/heads/{base}:{tracking}"], NETWORK_GIT_TIMEOUT_SECONDS) is None:
            return None
        fetched = True
    merge_base = ok(["merge-base", "HEAD", tracking])
    if not merge_base:
        return None
    count = ok(["rev-list", "--count", f"{merge_base}..{tracking}"])
    if count is None:
        return None
    return DriftResult(base=base, remote_tip=remote_tip, merge_base=merge_base, ahead=int(count), fetched=fetched)


def render_drift_section(result: DriftResult) -> str | None:
    """The body of the ``## Base drift`` section, or ``None`` when there is no drift."""
    if result.ahead <= 0:
        return None
    commits = "commit" if result.ahead == 1 else "commits"
    return (
        f"`origin/{result.base}` is {result.ahead} {commits} ahead of this branch's merge-base "
        f"(`{result.merge_base[:12]}`). Code on `{result.base}` may differ from what you see here; "
        f"check `git log {result.merge_base[:12]}..origin/{result.base}` before relying on it."
    )


def write_drift_section(paths: ProjectPaths, result: DriftResult) -> None:
    """Write (ahead > 0) or remove (ahead == 0) the section in ``session-context.md``.

    Other sections are kept byte for byte; the file is replaced atomically.
    """
    body = render_drift_section(result)
    write_section(paths.session_context, f"{SECTION_HEADING}\n\n{body}\n" if body else None, heading=SECTION_HEADING)
