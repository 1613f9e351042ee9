"""What ``rag status`` and the MCP ``index_status`` tool report: one :class:`Status` object.

:func:`status` reads the settings (each with where it came from), the index's state (recorded
meta and counts, judged against the settings by :mod:`paqad.store.state`; no model is loaded),
the confidence calibration in force, the last refresh's record and, for a remote provider,
where its key was found (never the key). :meth:`Status.to_dict` is the JSON both print.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paqad.config import KEYS, Settings, load_settings
from paqad import store as store_mod
from paqad.index.fs_names import fs_name, shown_name
from paqad.index.rows import FileRow, is_racily_clean
from paqad.errors import NO_COMPLETE_BUILD_MESSAGE, IndexBuildingError, IndexMissingError, PaqadError, ProjectPathError
from paqad.project import ProjectPaths, project_relative
from paqad.store.state import IndexState, index_state
from paqad.atomic import write_text_atomic

if TYPE_CHECKING:
    from paqad.index.filters import FilterDecision
    from paqad.store.team_cache import TeamStoreInfo

__all__ = ["IndexState", "KeyInfo", "SettingValue", "Status", "index_state", "last_refresh", "record_last_refresh", "status"]



# --- one path: the filters' verdict and what the index holds (`rag status --explain PATH`) -----

NEXT_SYNC = "the next sync (refresh-context, probe)"


@dataclass(frozen=True)
class Explanation:
    """Whether one path is indexed: what the filters decide about it today, and what the index
    holds. ``path`` is project-relative (a folder ends with ``/``); ``eligible``: the filters
    let it in; ``reason``: the code of the rule that rejects it; ``in_index``: the index holds
    it (None: no readable index); ``changed``: indexed, but its bytes differ since (the sync's rule).
    The two disagree only until the next sync, and :meth:`describe` says so."""

    path: str
    eligible: bool
    reason: str | None
    in_index: bool | None
    changed: bool = False
    folder: bool = False
    indexed_files: int | None = None  # indexed files at or under the path (None: no readable index)
    # a folder the walk enters: what it skips under it, ((reason, count, every path), ...), most
    # first; describe() shows the first SKIPPED_EXAMPLES of each, to_dict() all of them
    skipped: tuple[tuple[str, int, tuple[str, ...]], ...] = ()
    # an indexed file that git tracks although an ignore rule matches it: that rule, `.gitignore:1:tests/`
    tracked_despite: str | None = None
    # a file a check rejects: what the check found and what to do (index.filters.check_detail)
    detail: str = ""

    def describe(self) -> str:
        """One line for people, e.g. ``src/app.py: not indexed (check:too-large)``."""
        if self.folder:
            return self._describe_folder()
        path = shown_name(self.path)  # `caf\xe9.py`, not `caf\udce9.py`
        if not self.eligible:
            text = f"{path}: not indexed ({self.reason})"
            if self.in_index:
                text += f", but the index still holds it from before; {NEXT_SYNC} removes it"
            return text + (f"\n  {self.detail}" if self.detail else "")  # what the check found, what to do
        if self.in_index is None:
            return f"{path}: eligible; there is no index yet (`paqad-ai rag init` builds it)"
        if not self.in_index:
            return f"{path}: eligible, but not in the index yet; {NEXT_SYNC} adds it"
        if self.changed:
            text = f"{path}: indexed; changed on disk since, {NEXT_SYNC} re-indexes it"
        else:
            text = f"{path}: indexed"
        if self.tracked_despite:
            text += (f" (git tracks it, so the ignore rule {self.tracked_despite} does not apply, as in git: "
                     "`git rm --cached` it, or exclude it in .paqad/rag.ignore.yaml)")
        return text

    def _describe_folder(self) -> str:
        held = self.indexed_files or 0
        if not self.eligible:
            text = f"{self.path}: a folder the walk skips ({self.reason}); nothing under it is indexed"
            if held:
                text += f", but the index still holds {held} file(s) under it from before; {NEXT_SYNC} removes them"
            return text
        count = "no index yet" if self.indexed_files is None else f"{held:,} indexed"
        total = sum(n for _, n, _ in self.skipped)
        if total:
            count += f", {total:,} skipped"
        lines = [f"{self.path}: a folder; the walk enters it and decides each file in it ({count})"]
        for reason, n, found in self.skipped:
            first = found[:SKIPPED_EXAMPLES]
            more = f" (and {n - len(first):,} more; `--json` lists every path)" if n > len(first) else ""
            lines.append(f"  {reason} {n:,}: {', '.join(map(shown_name, first))}{more}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "folder": self.folder, "eligible": self.eligible, "reason": self.reason,
                "in_index": self.in_index, "changed": self.changed, "indexed_files": self.indexed_files,
                **({"tracked_despite": self.tracked_despite} if self.tracked_despite else {}),
                **({"detail": self.detail} if self.detail else {}),
                **({"skipped": {reason: {"count": n, "paths": list(first)} for reason, n, first in self.skipped}}
                   if self.folder and self.eligible else {})}


# What a folder's one-line-per-reason explanation shows of its skipped paths: this many per reason
# (the JSON has them all: a new user could not find out which "5 more" were skipped).
SKIPPED_EXAMPLES = 3


def skipped_under(root: Path, folder: str, max_file_size: int) -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    """What the walk (:func:`paqad.index.discover.discover`) rejects at or under the
    project-relative ``folder`` (``""``: the whole project; else ending in ``/``): per reason
    code, the count and every path in walk order (a folder not entered counts
    once, as ``name/``), the most frequent reason first; ``.git`` and ``.paqad`` are left out,
    folders or a git worktree's ``.git`` file. ``max_file_size`` in bytes."""
    from paqad.index.discover import discover
    from paqad.index.filters import shown_as_skipped

    grouped: dict[str, list[str]] = {}
    for decision in discover(root, max_file_size=max_file_size).rejected:
        if shown_as_skipped(decision) and decision.path.startswith(folder):
            grouped.setdefault(decision.reason, []).append(decision.path)
    ordered = sorted(grouped.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return tuple((reason, len(found), tuple(found)) for reason, found in ordered)


def explain_path(paths: ProjectPaths, settings: Settings, value: str, what: str = "") -> Explanation:
    """Why the path ``value`` (project-relative or absolute, any spelling that stays inside the
    project) is or is not indexed, checked against the index. ``what`` names the option in errors.

    Raises OutsideProjectError for a path outside the project, PaqadError for one that does not exist.
    """
    from paqad.index.discover import explain
    from paqad.index.filters import check_detail

    rel = project_relative(paths.root, value, what)
    if not rel:  # the project root (`.`): the walk starts there
        try:
            with store_mod.open_store(paths, readonly=True) as store:
                count: int | None = store.count_files_under("")
        except PaqadError:
            count = None
        return Explanation("./", True, None, bool(count) if count is not None else None, folder=True, indexed_files=count,
                           skipped=skipped_under(paths.root, "", settings.rag_max_file_size))
    if not os.path.lexists(paths.root / rel):
        raise ProjectPathError(f"{what + ' ' if what else ''}{value}: no such file or folder in the project")
    decision = explain(paths.root, rel, max_file_size=settings.rag_max_file_size)
    folder = decision.path.endswith("/")
    detail = "" if folder or decision.reason is None else check_detail(paths.root / fs_name(rel), decision.reason,
                                                                         settings.rag_max_file_size)
    skipped = skipped_under(paths.root, decision.path, settings.rag_max_file_size) if folder and decision.eligible else ()
    try:
        with store_mod.open_store(paths, readonly=True) as store:
            if folder:
                count = store.count_files_under(decision.path.rstrip("/"))
                return Explanation(decision.path, decision.eligible, decision.reason, count > 0, folder=True,
                                   indexed_files=count, skipped=skipped)
            row = store.file_row(decision.path)
            synced_at_ns = int(store.meta().get("synced_at_ns") or 0)
    except PaqadError:
        return Explanation(decision.path, decision.eligible, decision.reason, None, folder=folder, skipped=skipped,
                           detail=detail)
    changed = row is not None and decision.eligible and _changed_since_indexed(paths.root, row, decision, synced_at_ns)
    despite = tracked_despite_ignore(paths.root, decision.path) if decision.eligible else None
    return Explanation(decision.path, decision.eligible, decision.reason, row is not None, changed,
                       indexed_files=int(row is not None), tracked_despite=despite, detail=detail)


def tracked_despite_ignore(root: Path, rel: str) -> str | None:
    """The git ignore rule that matches the project-relative file ``rel`` although git tracks it
    (so, as in git, the rule does not apply), as ``source:line:pattern`` (``.gitignore:1:tests/``);
    None when no rule matches, git does not track it (an ``include:`` glob re-admitted it), outside
    git, or git fails (``git check-ignore --no-index``, then ``git ls-files``: at most 5 s each)."""
    import subprocess

    try:
        done = subprocess.run(["git", "check-ignore", "-v", "--no-index", "--", fs_name(rel)], cwd=root,
                              capture_output=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0 or b"\t" not in done.stdout:
        return None
    rule = os.fsdecode(done.stdout.split(b"\t", 1)[0])
    if ":!" in rule:  # a negation: the file is not ignored
        return None
    try:  # eligible although ignored: tracked, or re-admitted by an include: glob (not git's doing)
        tracked = subprocess.run(["git", "ls-files", "--", fs_name(rel)], cwd=root, capture_output=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return rule if tracked.returncode == 0 and tracked.stdout.strip() else None


def _changed_since_indexed(root: Path, row: FileRow, decision: FilterDecision, synced_at_ns: int) -> bool:
    """Whether the next sync re-indexes the file: its bytes differ from the indexed ones. As the
    sync does (index/sync.py), the stat key (size, mtime_ns, ctime_ns, inode) is trusted unless the
    row is racily clean; otherwise the bytes are hashed (a touched file is not "changed")."""
    stat_key = (decision.size, decision.mtime_ns, decision.ctime_ns, decision.inode)
    if row.stat_key == stat_key and not is_racily_clean(row.mtime_ns, synced_at_ns):
        return False
    try:
        with open(root / fs_name(row.path), "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest() != row.sha256
    except OSError:  # gone or unreadable since the walk: the sync will drop or reject it
        return True


def require_complete_index(paths: ProjectPaths) -> None:
    """Raise IndexMissingError unless the index has completed a build (IndexBuildingError while
    the first one runs), so a search of a half-built index is never reported as "no results"."""
    with store_mod.open_store(paths, readonly=True) as store:
        if store.meta().get("built_at"):
            return
    writer = store_mod.current_writer(paths)
    if writer:
        raise IndexBuildingError(f"the first index build is still running (pid {writer['pid']}); nothing to search "
                                 "yet: try again when `paqad-ai rag status` shows it done")
    raise IndexMissingError(NO_COMPLETE_BUILD_MESSAGE)


# --- the last refresh's record (written by `rag refresh-context`) -----------------------------


def record_last_refresh(paths: ProjectPaths, summary: str, seconds: float) -> None:
    """Write ``.paqad/state/last-refresh.json`` (``at`` epoch seconds, ``seconds``, ``summary``). Best effort."""
    try:
        paths.state_dir.mkdir(parents=True, exist_ok=True)
        record = {"at": time.time(), "seconds": round(seconds, 3), "summary": summary}
        write_text_atomic(paths.state_dir / "last-refresh.json", json.dumps(record))
    except OSError:
        pass


def last_refresh(paths: ProjectPaths) -> dict | None:
    """The record of the last refresh (``at`` epoch seconds, ``seconds``, ``summary``), or None."""
    try:
        return json.loads((paths.state_dir / "last-refresh.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


# --- the whole report --------------------------------------------------------------------------


@dataclass(frozen=True)
class SettingValue:
    """One resolved setting and where it came from (``default``, a file, ``env PAQAD_X``)."""

    name: str
    value: Any
    source: str


@dataclass(frozen=True)
class KeyInfo:
    """Where a remote provider's key was found: the variable and ``found_in`` (None: nowhere)."""

    variable: str
    found_in: str | None


@dataclass(frozen=True)
class Status:
    """Everything ``rag status`` shows, and what the MCP ``index_status`` tool returns.

    ``calibration`` names the confidence fit in force for the configured model (its own, or the
    model-agnostic fallback; see :mod:`paqad.search.confidence`), ``None`` when none ships.
    """

    project_root: Path
    retrieval_enabled: bool
    settings: tuple[SettingValue, ...]
    index: IndexState
    last_refresh: dict | None
    api_key: KeyInfo | None = None
    calibration: str | None = None
    team_store: TeamStoreInfo | None = None  # when rag_team_store is set (DESIGN §14)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "project_root": str(self.project_root),
            "retrieval_enabled": self.retrieval_enabled,
            "settings": {s.name: {"value": s.value, "source": s.source} for s in self.settings},
            "index": self.index.to_dict(),
            "last_refresh": self.last_refresh,
            "calibration": self.calibration,
        }
        from paqad.index.languages import chunking_for

        # How each indexed language is cut (issue 22): "grammar", "grammar (language pack)", ...
        data["index"]["chunking"] = {lang: chunking_for(lang).value for lang in data["index"].get("languages") or {}}
        if self.team_store is not None:
            data["team_store"] = self.team_store.to_dict()
        if self.api_key is not None:
            data["api_key"] = {"variable": self.api_key.variable, "found_in": self.api_key.found_in}
        return data


def status(paths: ProjectPaths, settings: Settings | None = None) -> Status:
    """The project's settings, index state and last refresh. Raises ConfigError for bad settings."""
    settings = settings or load_settings(paths)
    api_key = None
    if settings.rag_embedding_provider != "local":
        from paqad.secrets import find_key

        lookup = find_key(paths, settings.rag_embedding_provider)
        api_key = KeyInfo(lookup.variable, lookup.source)
    from paqad.search.confidence import calibration_for

    fit = calibration_for(settings.rag_embedding_model)
    return Status(
        project_root=paths.root,
        retrieval_enabled=settings.rag_enabled,
        settings=tuple(SettingValue(name, _shown(name, getattr(settings, name)), settings.sources[name]) for name in KEYS),
        index=index_state(paths, settings),
        last_refresh=last_refresh(paths),
        api_key=api_key,
        calibration=fit.name if fit is not None else None,
        team_store=_team_store(paths, settings),
    )


def _shown(name: str, value: Any) -> Any:
    """A setting as status shows it: the team store URL without a password (one in PAQAD_RAG_TEAM_STORE)."""
    if name == "rag_team_store" and value:
        from paqad.config import redacted_url

        return redacted_url(value)
    return value


def _team_store(paths: ProjectPaths, settings: Settings) -> TeamStoreInfo | None:
    """The team store's reachability and share of this index (DESIGN §14), or None when not configured."""
    if not settings.rag_team_store:
        return None
    from paqad.store.team_cache import team_store_info

    try:
        meta, _ = store_mod.read_summary(paths)
    except PaqadError:
        meta = {}
    return team_store_info(paths, settings, meta)
