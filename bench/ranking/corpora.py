"""The ranking benchmark's corpora: each project's tree at its pinned commit, rebuilt offline.

Data recipe. Every project file (``bench/ranking/projects/<name>.json``) names a public GitHub
repository and a commit. The tree is taken from a local bare clone of that repository:

- ``$PAQAD_BENCH_MIRROR/<owner>+<name>/repo`` (default mirror root ``/work/.mirror``, where this
  workplace's ``fetch`` tool puts ``github:<owner>/<name>``), or
- any bare or normal clone named with ``--git-dir owner/name=PATH``.

Anywhere else: ``git clone --bare https://github.com/<owner>/<name> <root>/<owner>+<name>/repo``
once, after which nothing needs the network. The files are written with ``git read-tree`` +
``checkout-index`` through a temporary index file (the clone is not modified, and
``export-ignore`` attributes do not drop tests or docs the way ``git archive`` would) into
``bench/.cache/ranking/<name>-<commit[:10]>/``. No ``.git`` is written: the indexer sees the
project's ``.gitignore`` files but no tracked-file list.

    python bench/ranking/corpora.py              # materialise every project, print its folder
    python bench/ranking/corpora.py ws leveldb   # only these
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECTS_DIR = HERE / "projects"
CACHE_DIR = HERE.parent / ".cache" / "ranking"
MIRROR_ROOT = Path(os.environ.get("PAQAD_BENCH_MIRROR", "/work/.mirror"))


@dataclass(frozen=True)
class Project:
    """One benchmark project: its metadata and cases as in the JSON file."""

    name: str
    language: str
    repo: str
    commit: str
    split: str
    cases: tuple[dict, ...]
    leave_out: tuple[str, ...] = ()  # optional "leave_out" of the JSON: blobs the mirror lacks

    @property
    def folder(self) -> Path:
        return CACHE_DIR / f"{self.name}-{self.commit[:10]}"


def load_projects(names: list[str] | None = None, split: str | None = None) -> list[Project]:
    """Projects from ``projects/*.json`` (sorted by name), optionally only ``names`` / one ``split``."""
    found = []
    for path in sorted(PROJECTS_DIR.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        project = Project(data["name"], data["language"], data["repo"], data["commit"], data["split"],
                          tuple(data["cases"]), tuple(data.get("leave_out", ())))
        if names and project.name not in names:
            continue
        if split and project.split != split:
            continue
        found.append(project)
    if names:
        missing = set(names) - {p.name for p in found}
        if missing:
            raise SystemExit(f"unknown project(s): {', '.join(sorted(missing))}")
    return found


def git_dir(repo: str, overrides: dict[str, str] | None = None) -> Path:
    """The local clone of ``owner/name``; SystemExit with the command to make it when absent."""
    if overrides and repo in overrides:
        return Path(overrides[repo])
    candidate = MIRROR_ROOT / repo.replace("/", "+") / "repo"
    if candidate.exists():
        return candidate
    raise SystemExit(
        f"no clone of {repo} under {MIRROR_ROOT}; run `git clone --bare https://github.com/{repo} "
        f"{candidate}` (or the fetch tool: github:{repo}) or pass --git-dir {repo}=PATH"
    )


def materialise(project: Project, overrides: dict[str, str] | None = None) -> Path:
    """The project's tree at its commit in :attr:`Project.folder` (idempotent)."""
    return materialise_tree(project.repo, project.commit, project.folder, overrides,
                            leave_out=project.leave_out)


def materialise_tree(repo: str, commit: str, target: Path, overrides: dict[str, str] | None = None,
                     seed: Path | None = None, leave_out: tuple[str, ...] = ()) -> Path:
    """The tree of ``repo`` at ``commit`` written into ``target`` from the local clone (idempotent:
    a folder holding ``.materialised`` is returned as it is). ``seed``: a corpus whose ``.paqad/``
    index is copied in first (locks and the context folder left out), so a sync embeds only the
    files that differ. ``leave_out``: paths of the tree not written (blobs a snapshot lacks).
    Written in a ``.<name>.partial`` sibling and renamed, so an interrupted run
    leaves no half tree. Raises SystemExit when there is no clone (:func:`git_dir`)."""
    if (target / ".materialised").is_file():
        return target
    source = git_dir(repo, overrides)
    staging = target.with_name(f".{target.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        base = ["git", "--git-dir", str(source), "--work-tree", str(staging)]
        subprocess.run([*base, "read-tree", commit], check=True, env=env)
        if leave_out:
            subprocess.run([*base, "rm", "--cached", "--quiet", "--", *leave_out], check=True, env=env, capture_output=True)
        subprocess.run([*base, "checkout-index", "--all", "--force"], check=True, env=env)
    if seed is not None and (seed / ".paqad").is_dir():
        shutil.copytree(seed / ".paqad", staging / ".paqad", ignore=shutil.ignore_patterns("*.lock", "context"))
    (staging / ".materialised").write_text(commit + "\n", encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return target


if __name__ == "__main__":
    for item in load_projects(sys.argv[1:] or None):
        print(f"{item.name}\t{item.split}\t{item.language}\t{materialise(item)}")
