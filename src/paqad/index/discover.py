"""Find the files to index: walk the project once and apply the four filters (DESIGN §5).

The walk uses ``os.scandir``, never follows symlinks, and prunes folders that layer 2 or 3
rejects, so ``node_modules/`` and friends are never entered (unless an ``include:`` glob of
``.paqad/rag.ignore.yaml`` could match inside, or git tracks files inside a git-ignored
folder). A pruned folder is reported once, as a rejected path ending in ``/``. Only files that
pass layers 1-3 are read (layer 2 reads the first 512 bytes of Markdown files for the
generated-file marker).

Example::

    found = discover(Path("."))
    print(len(found.eligible), found.reason_counts())   # 812 {'ignore:default-dir': 2, ...}
    print(explain(Path("."), "node_modules/react/index.js").reason)  # ignore:default-dir
"""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

from paqad.errors import ProjectPathError, UsageError
from paqad.project import ProjectPaths, project_relative
from paqad.index.filters import (
    FilterDecision,
    IgnoreLevel,
    RagIgnore,
    content_reason,
    dir_name_reason,
    git_ignore_reason,
    hard_dir_reason,
    hard_file_reason,
    is_env_file,
    load_rag_ignore,
    read_ignore_file,
    size_reason,
    type_reason,
)
from paqad.index.fs_names import fs_name, text_name
from paqad.index.rows import stat_key_of
from paqad.index.stacks import StackPack, detect_stacks
from paqad.config import DEFAULT_MAX_FILE_SIZE  # bytes; DESIGN §4 `rag_max_file_size`


# Layer-3 reasons a folder passes down to what is inside it: (git's, any other rule's).
Inherited = tuple[Optional[str], Optional[str]]


@dataclass(frozen=True)
class Discovery:
    """The outcome of one walk.

    ``eligible`` and ``rejected`` are sorted by path; ``stacks`` are the active pack names.
    Rejected folders that were not entered appear once with a path ending in ``/``.
    """

    eligible: list[FilterDecision]
    rejected: list[FilterDecision]
    stacks: list[str]

    def reason_counts(self) -> dict[str, int]:
        """Rejected paths per reason code, e.g. ``{"ignore:gitignore": 3, "type:extension": 12}``."""
        counts = Counter(d.reason for d in self.rejected if d.reason)
        return dict(sorted(counts.items()))


# --- Git context -------------------------------------------------------------------------------


def _git_toplevel(root: Path) -> tuple[Path, Path] | None:
    """(work tree top, common git dir) of the repository holding ``root``, or None."""
    for top in (root, *root.parents):
        dot_git = top / ".git"
        if dot_git.is_dir():
            git_dir = dot_git
        elif dot_git.is_file():  # worktree or submodule: "gitdir: <path>"
            try:
                line = dot_git.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if not line.startswith("gitdir:"):
                return None
            git_dir = (top / line[len("gitdir:") :].strip()).resolve()
        else:
            continue
        common = git_dir
        commondir = git_dir / "commondir"
        if commondir.is_file():  # linked worktrees share info/exclude with the main repository
            try:
                common = (git_dir / commondir.read_text(encoding="utf-8").strip()).resolve()
            except OSError:
                pass
        return top, common
    return None


def _tracked_files(root: Path) -> frozenset[str]:
    """Paths (relative to ``root``) that git tracks; git never ignores them. Empty if no git."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached"],
            cwd=root,
            capture_output=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(p for p in out.decode("utf-8", errors="surrogateescape").split("\0") if p)


def _base_levels(root: Path) -> tuple[list[IgnoreLevel], frozenset[str]]:
    """Ignore files that apply from outside the walk: ``info/exclude`` and ``.gitignore`` files
    of folders between the git work tree top and ``root``; plus the tracked paths."""
    found = _git_toplevel(root)
    if found is None:
        return [], frozenset()
    top, common = found
    levels: list[IgnoreLevel] = []
    rel_root = root.relative_to(top).as_posix() if root != top else ""
    prefix = rel_root + "/" if rel_root else ""
    exclude = read_ignore_file(common / "info" / "exclude", "", "git-info-exclude", prefix)
    if exclude:
        levels.append(exclude)
    if rel_root:
        parts = rel_root.split("/")
        for i in range(len(parts)):
            folder = top.joinpath(*parts[:i])
            level = read_ignore_file(folder / ".gitignore", "", "gitignore", "/".join(parts[i:]) + "/")
            if level:
                levels.append(level)
    return levels, _tracked_files(root)


# --- Rules for one project ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Rules:
    root: Path
    stacks: tuple[StackPack, ...]
    extensions: frozenset[str]
    filenames: frozenset[str]
    stack_dirs: frozenset[str]
    base_levels: tuple[IgnoreLevel, ...]
    tracked: frozenset[str]
    tracked_dirs: frozenset[str]
    rag: RagIgnore
    max_file_size: int
    known: Mapping[str, tuple[int, int, int, int]]

    @classmethod
    def load(cls, root: Path, max_file_size: int, known: Mapping[str, tuple[int, int, int, int]] | None = None) -> _Rules:
        stacks = tuple(detect_stacks(root))
        levels, tracked = _base_levels(root)
        tracked_dirs = {
            path[: i + 1] for path in tracked for i, ch in enumerate(path) if ch == "/"
        }
        return cls(
            root=root,
            stacks=stacks,
            extensions=frozenset().union(*(p.extensions for p in stacks)),
            filenames=frozenset().union(*(p.filenames for p in stacks)),
            stack_dirs=frozenset().union(*(p.excluded_dirs for p in stacks)),
            base_levels=tuple(levels),
            tracked=tracked,
            tracked_dirs=frozenset(tracked_dirs),
            rag=load_rag_ignore(ProjectPaths(root).ignore_yaml),
            max_file_size=max_file_size,
            known=known or {},
        )

    def dir_layer3(
        self, rel_dir: str, name: str, levels: list[IgnoreLevel], inherited: Inherited
    ) -> Inherited:
        """(git reason, other reason) for the folder ``rel_dir`` (ending with ``/``)."""
        git_inh, other_inh = inherited
        git_r = git_inh or git_ignore_reason(levels, rel_dir[:-1], True)
        other_r = other_inh or dir_name_reason(name, self.stack_dirs)
        if other_r is None and self.rag.excludes_dir(rel_dir):
            other_r = "ignore:rag-ignore-yaml"
        return git_r, other_r

    def must_enter(self, rel_dir: str, git_r: str | None, other_r: str | None) -> bool:
        """Whether a folder rejected by layer 3 may still hold an indexable file."""
        if self.rag.include and self.rag.could_include_under(rel_dir):
            return True
        return other_r is None and rel_dir in self.tracked_dirs

    def file_layer3(
        self,
        rel: str,
        name: str,
        levels: list[IgnoreLevel],
        inherited: Inherited,
        is_dir_link: bool = False,
    ) -> str | None:
        """Layer-3 reason for a file (or a symlink), after ``include:`` globs had their say."""
        if is_env_file(name):  # may hold secrets: no include: glob and no git tracking re-admits it
            return "ignore:env-file"
        git_inh, other_inh = inherited
        git_r = git_inh or git_ignore_reason(levels, rel, False)
        if rel in self.tracked:  # git never ignores a tracked file
            git_r = None
        other_r = other_inh
        if other_r is None and is_dir_link:
            other_r = dir_name_reason(name, self.stack_dirs)
        if other_r is None and is_env_file(name):
            other_r = "ignore:env-file"
        if other_r is None and self.rag.excludes(rel):
            other_r = "ignore:rag-ignore-yaml"
        reason = git_r or other_r
        if reason and self.rag.includes(rel):
            return None
        return reason

    def decide_file(
        self,
        rel: str,
        path: str,
        is_symlink: bool,
        levels: list[IgnoreLevel],
        inherited: Inherited,
        link_ancestor: bool = False,
    ) -> FilterDecision:
        """The decision for one non-folder entry (a file or a symlink) at filesystem ``path``.

        A file whose (size, mtime, ctime, inode) matches ``known`` (it was indexed with that content) skips
        every content read: the generated-entry marker of layer 2 and the content checks of
        layer 4. Everything a setting decides still runs, since settings may have changed since
        it was indexed: the rule-based layers and the size limit (``rag_max_file_size``).
        """
        name = rel.rsplit("/", 1)[-1]
        dir_link = is_symlink and os.path.isdir(path)
        reason = None if dir_link else type_reason(name, self.extensions, self.filenames)
        if reason is not None and self.rag.includes(rel):  # an include: glob adds a type layer 1 lacks
            reason = None
        st = None
        if reason is None and not (is_symlink or link_ancestor):
            try:
                st = os.lstat(path)
            except OSError:
                return FilterDecision(rel, False, "check:unreadable")
        unchanged = st is not None and self.known.get(rel) == stat_key_of(st)
        if reason is None:
            if dir_link:
                reason = hard_dir_reason(name)
            else:
                # unchanged content cannot have gained the marker; symlinks are never read
                reason = hard_file_reason(path, name, is_symlink or link_ancestor or unchanged, rel)
        if reason is None:
            reason = self.file_layer3(rel, name, levels, inherited, dir_link)
        if reason is None and (is_symlink or link_ancestor):
            reason = "check:symlink"
        if reason is not None:
            return FilterDecision(rel + "/" if dir_link else rel, False, reason)
        if not _is_utf8_path(rel):
            # A name that is not UTF-8 cannot be stored or shown as a project path.
            return FilterDecision(rel, False, "check:not-utf8-name")
        if unchanged:  # same bytes as when indexed: only the size limit can have moved
            reason = size_reason(st.st_size, self.max_file_size)
        else:
            reason = content_reason(Path(path), st.st_size, self.max_file_size)
        if reason is not None:
            return FilterDecision(rel, False, reason, st.st_size if reason == "check:too-large" else 0)
        return FilterDecision(rel, True, None, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _is_utf8_path(rel: str) -> bool:
    """False for a path holding bytes that are not UTF-8 (``os`` decodes them as surrogates)."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _push_gitignore(levels: list[IgnoreLevel], folder: Path, rel_dir: str) -> list[IgnoreLevel]:
    """``levels`` plus the ``.gitignore`` in ``folder`` if it is a regular file (git does not
    follow a symlinked ``.gitignore``)."""
    candidate = folder / ".gitignore"
    if candidate.is_file() and not candidate.is_symlink():
        level = read_ignore_file(candidate, rel_dir, "gitignore")
        if level:
            return [*levels, level]
    return levels


def discover(
    root: Path,
    max_file_size: int = DEFAULT_MAX_FILE_SIZE,
    known: Mapping[str, tuple[int, int, int, int]] | None = None,
) -> Discovery:
    """Walk ``root`` and decide every file (DESIGN §5). ``max_file_size`` is in bytes.

    ``known`` maps already-indexed paths to their ``(size bytes, mtime_ns, ctime_ns, inode)``
    (:func:`~paqad.index.rows.stat_key_of`); a file whose stat still matches skips the layer-4 content read (a sync with nothing changed reads no file).

    Raises :class:`~paqad.errors.PaqadError` if ``root`` is not a folder or
    ``.paqad/rag.ignore.yaml`` is malformed. Unreadable folders are skipped silently.
    """
    root = Path(root).resolve()
    if not root.is_dir():
        raise UsageError(f"{root}: project root is not a folder; pass --project-root PATH")
    rules = _Rules.load(root, max_file_size, known)
    eligible: list[FilterDecision] = []
    rejected: list[FilterDecision] = []
    root_levels = _push_gitignore(list(rules.base_levels), root, "")
    # (folder path, rel prefix "" or "a/b/", ignore levels, (git reason, other reason) inherited)
    todo: list[tuple[Path, str, list[IgnoreLevel], Inherited]] = [
        (root, "", root_levels, (None, None))
    ]
    while todo:
        folder, prefix, levels, inherited = todo.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            rel = prefix + text_name(entry.name)  # UTF-8 text whatever the locale; entry.path stays the OS's
            try:
                is_symlink = entry.is_symlink()
                is_dir = not is_symlink and entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if not is_dir:
                decision = rules.decide_file(rel, entry.path, is_symlink, levels, inherited)
                (eligible if decision.eligible else rejected).append(decision)
                continue
            rel_dir = rel + "/"
            hard = hard_dir_reason(entry.name)
            if hard:
                rejected.append(FilterDecision(rel_dir, False, hard))
                continue
            git_r, other_r = rules.dir_layer3(rel_dir, entry.name, levels, inherited)
            if (git_r or other_r) and not rules.must_enter(rel_dir, git_r, other_r):
                rejected.append(FilterDecision(rel_dir, False, git_r or other_r))
                continue
            # git reads no .gitignore inside a folder it ignores
            sub_levels = levels if git_r else _push_gitignore(levels, Path(entry.path), rel_dir)
            todo.append((Path(entry.path), rel_dir, sub_levels, (git_r, other_r)))
    eligible.sort(key=lambda d: d.path)
    rejected.sort(key=lambda d: d.path)
    return Discovery(eligible=eligible, rejected=rejected, stacks=[p.name for p in rules.stacks])


# Folders every project has that say nothing about why no file was indexed.
_ALWAYS_REJECTED = frozenset({"hard:vcs-dir", "hard:paqad-dir"})


def nothing_indexable_note(found: Discovery) -> str:
    """Why a walk found no eligible file, and how to add a file type: one line for ``init``."""
    from paqad.index.filters import ALWAYS_EXTENSIONS
    from paqad.index.stacks import pack_by_name, suffix

    stacks = "; ".join(f"{name}: {' '.join(sorted(pack_by_name(name).extensions))}" for name in found.stacks)
    by_type = Counter(suffix(d.path.rsplit("/", 1)[-1]) or "(no extension)"
                      for d in found.rejected if d.reason == "type:extension")
    others = Counter(d.reason for d in found.rejected if d.reason not in _ALWAYS_REJECTED and d.reason != "type:extension")
    if by_type:
        listed = ", ".join(f"{ext} {n}" for ext, n in sorted(by_type.items(), key=lambda kv: (-kv[1], kv[0])))
        skipped = f"{sum(by_type.values())} files were skipped for their type ({listed})"
    else:
        skipped = "no file was skipped for its type"
    if others:
        listed = ", ".join(f"{reason} {n}" for reason, n in sorted(others.items(), key=lambda kv: (-kv[1], kv[0])))
        skipped += f", {sum(others.values())} by other filters ({listed})"
    example = next((ext for ext, _ in sorted(by_type.items(), key=lambda kv: (-kv[1], kv[0])) if ext.startswith(".")), ".txt")
    return (
        f"nothing here can be indexed, so retrieval will find nothing: paqad-ai looked for "
        f"{' '.join(sorted(ALWAYS_EXTENSIONS))} files, named files such as Dockerfile and Makefile, and the files "
        f"of the stacks it detected ({stacks or 'none'}); {skipped}. A manifest (pyproject.toml, package.json, "
        "go.mod, Cargo.toml, CMakeLists.txt, ...) adds its language's files; for any other type add a glob to "
        f".paqad/rag.ignore.yaml, e.g. `include: [\"**/*{example}\"]`, then run `paqad-ai rag rebuild`"
    )


def explain(root: Path, rel_path: str, max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> FilterDecision:
    """Why one project-relative path is or is not indexed (the ``--explain PATH`` diagnostic).

    A file gets the reason of the first layer that rejects it, checking its folders too (a
    file under ``node_modules/`` reports ``ignore:default-dir``; a ``.txt`` there reports
    ``type:extension``, the earlier layer). A folder gets its layer-2/3 verdict, path ending in
    ``/``; ``eligible=True`` means the walk enters it. ``rel_path`` may be spelled any way that
    stays inside ``root`` (``./a/../a/b.py``, absolute). Raises :class:`~paqad.errors.PaqadError`
    when the path does not exist, OutsideProjectError when it lies outside ``root``.
    """
    root = Path(root).resolve()
    rel = text_name(project_relative(root, rel_path))
    if not rel:
        raise ProjectPathError(f"{rel_path}: give a file or folder inside the project {root}, not the project itself")
    parts = rel.split("/")
    target = root / fs_name(rel)
    if not os.path.lexists(target):
        raise ProjectPathError(f"{rel_path}: no such file or folder in the project")
    rules = _Rules.load(root, max_file_size)
    levels = _push_gitignore(list(rules.base_levels), root, "")
    inherited: Inherited = (None, None)
    hard: str | None = None
    link_ancestor = False
    for i, name in enumerate(parts[:-1]):
        rel_dir = "/".join(parts[: i + 1]) + "/"
        folder = root / fs_name("/".join(parts[: i + 1]))
        if folder.is_symlink():
            link_ancestor = True  # the walk never follows it
            break
        hard = hard or hard_dir_reason(name)
        git_r, other_r = rules.dir_layer3(rel_dir, name, levels, inherited)
        if not git_r:
            levels = _push_gitignore(levels, folder, rel_dir)
        inherited = (git_r, other_r)
    is_dir = target.is_dir() and not target.is_symlink()
    if is_dir:
        rel_dir = "/".join(parts) + "/"
        reason = hard or hard_dir_reason(parts[-1])
        if reason is None:
            git_r, other_r = rules.dir_layer3(rel_dir, parts[-1], levels, inherited)
            if (git_r or other_r) and not rules.must_enter(rel_dir, git_r, other_r):
                reason = git_r or other_r
        if reason is None and link_ancestor:
            reason = "check:symlink"
        return FilterDecision(rel_dir, reason is None, reason)
    rel_file = "/".join(parts)
    decision = rules.decide_file(
        rel_file, str(target), target.is_symlink(), levels, inherited, link_ancestor
    )
    if hard and (decision.reason is None or not decision.reason.startswith("type:")):
        return FilterDecision(rel_file, False, hard)
    return decision
