"""What ``rag status`` and the MCP ``index_status`` tool report: one :class:`Status` object.

:func:`status` reads the settings (each with where it came from), the index's recorded meta and
counts (no model is loaded), judges the index against the settings (:func:`stale_reasons`),
and adds the last refresh's record and, for a remote provider, where its key was found (never
the key). :meth:`Status.to_dict` is the JSON both print.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from paqad import store as store_mod
from paqad.config import KEYS, Settings, load_settings
from paqad.errors import NO_INDEX_MESSAGE, IndexBuildingError, IndexMissingError, PaqadError
from paqad.index.chunking import CHUNKER_VERSION
from paqad.project import ProjectPaths, project_relative



NO_BUILD_YET = "no complete build yet"


def expected_meta(settings: Settings) -> dict[str, str]:
    """What an index must record to be valid for ``settings`` (without loading the model)."""
    return {
        "schema_version": str(store_mod.SCHEMA_VERSION),
        "chunker_version": str(CHUNKER_VERSION),
        "provider": settings.rag_embedding_provider,
        "model": settings.rag_embedding_model,
        "precision": settings.rag_embedding_precision if settings.rag_embedding_provider == "local" else "",
    }


_META_LABELS = {"schema_version": "schema", "chunker_version": "chunker version", "provider": "provider",
                "model": "model", "precision": "model precision"}


def stale_reasons(meta: Mapping[str, str], settings: Settings, fingerprint: str | None = None) -> list[str]:
    """Why an index recorded with ``meta`` cannot be used as is with ``settings`` (empty: valid)."""
    if not meta.get("built_at"):
        return [NO_BUILD_YET]
    reasons = []
    for key, want in expected_meta(settings).items():
        have = meta.get(key, "")
        if have != want:
            reasons.append(f"{_META_LABELS[key]} changed: index has {have or 'none'}, settings want {want or 'none'}")
    if fingerprint is not None and meta.get("fingerprint") and meta["fingerprint"] != fingerprint:
        reasons.append(f"embedding model files or runtime changed ({meta['fingerprint']} -> {fingerprint})")
    return reasons


@dataclass(frozen=True)
class IndexState:
    """The index on disk judged against the settings (no model loaded).

    ``reasons`` says why it is not ``valid`` (or that it is missing / unreadable); counts are 0
    and recorded values None when there is no readable index. ``size_bytes`` is everything
    under ``.paqad/vectors/``. Times are ISO-8601 UTC strings.
    """

    present: bool
    valid: bool
    reasons: tuple[str, ...]
    provider: str | None = None
    model: str | None = None
    dimension: int | None = None
    chunker_version: str | None = None
    schema_version: str | None = None
    files: int = 0
    chunks: int = 0
    languages: dict[str, int] = field(default_factory=dict)
    cached_embeddings: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    size_bytes: int = 0
    built_at: str | None = None
    refreshed_at: str | None = None
    build_running: dict | None = None  # {"pid", "since"} of the process writing the index now

    def to_dict(self) -> dict[str, Any]:
        return {
            "present": self.present,
            "valid": self.valid,
            "stale_reasons": list(self.reasons) if self.present else [],
            "provider": self.provider,
            "model": self.model,
            "dimension": self.dimension,
            "chunker_version": self.chunker_version,
            "schema_version": self.schema_version,
            "files": self.files,
            "chunks": self.chunks,
            "languages": dict(self.languages),
            "cached_embeddings": self.cached_embeddings,
            "rejected": dict(self.rejected),
            "size_bytes": self.size_bytes,
            "built_at": self.built_at,
            "refreshed_at": self.refreshed_at,
            "build_running": self.build_running,
        }

    def headline(self) -> str:
        """``Index: ...``: valid, stale and why, or no complete build yet (running or not)."""
        if not self.present:
            return "Index: none (run `paqad-ai rag init`)"
        if self.reasons == (NO_BUILD_YET,) and self.build_running:
            return f"Index: first build running (pid {self.build_running['pid']}); nothing to search until it finishes"
        if self.reasons == (NO_BUILD_YET,):
            return ("Index: no complete build yet (the first build was interrupted or failed); "
                    "run `paqad-ai rag rebuild`")
        return "Index: " + ("valid" if self.valid else "stale: " + "; ".join(self.reasons))


def index_state(paths: ProjectPaths, settings: Settings) -> IndexState:
    """Read the index's meta and counts and judge them against ``settings``."""
    try:
        meta, counts = store_mod.read_summary(paths)
    except IndexMissingError:
        return IndexState(False, False, (NO_INDEX_MESSAGE,))
    except PaqadError as exc:
        return IndexState(True, False, (f"index unreadable: {exc}",), size_bytes=store_mod.index_size_bytes(paths))
    reasons = stale_reasons(meta, settings)
    return IndexState(
        build_running=store_mod.current_writer(paths),
        present=True,
        valid=not reasons,
        reasons=tuple(reasons),
        provider=meta.get("provider"),
        model=meta.get("model"),
        dimension=int(meta["dimension"]) if meta.get("dimension") else None,
        chunker_version=meta.get("chunker_version"),
        schema_version=meta.get("schema_version"),
        files=int(counts.get("files", 0)),
        chunks=int(counts.get("chunks", 0)),
        languages=dict(counts.get("languages", {})),
        cached_embeddings=int(counts.get("cached_embeddings", 0)),
        rejected=json.loads(meta.get("rejected") or "{}"),
        size_bytes=store_mod.index_size_bytes(paths),
        built_at=meta.get("built_at"),
        refreshed_at=meta.get("refreshed_at"),
    )


# --- one path: the filters' verdict and what the index holds (`rag status --explain PATH`) -----

NEXT_SYNC = "the next sync (refresh-context, probe)"


@dataclass(frozen=True)
class Explanation:
    """Whether one path is indexed: what the filters decide about it today, and what the index
    holds. ``path`` is project-relative (a folder ends with ``/``); ``eligible``: the filters
    let it in; ``reason``: the code of the rule that rejects it; ``in_index``: the index holds
    it (None: no readable index); ``changed``: indexed, but its size or mtime moved since.
    The two disagree only until the next sync, and :meth:`describe` says so."""

    path: str
    eligible: bool
    reason: str | None
    in_index: bool | None
    changed: bool = False
    folder: bool = False
    indexed_files: int | None = None  # indexed files at or under the path (None: no readable index)

    def describe(self) -> str:
        """One line for people, e.g. ``src/app.py: not indexed (check:too-large)``."""
        if self.folder:
            return self._describe_folder()
        if not self.eligible:
            text = f"{self.path}: not indexed ({self.reason})"
            if self.in_index:
                text += f", but the index still holds it from before; {NEXT_SYNC} removes it"
            return text
        if self.in_index is None:
            return f"{self.path}: eligible; there is no index yet (`paqad-ai rag init` builds it)"
        if not self.in_index:
            return f"{self.path}: eligible, but not in the index yet; {NEXT_SYNC} adds it"
        if self.changed:
            return f"{self.path}: indexed; changed on disk since, {NEXT_SYNC} re-indexes it"
        return f"{self.path}: indexed"

    def _describe_folder(self) -> str:
        held = self.indexed_files or 0
        if not self.eligible:
            text = f"{self.path}: a folder the walk skips ({self.reason}); nothing under it is indexed"
            if held:
                text += f", but the index still holds {held} file(s) under it from before; {NEXT_SYNC} removes them"
            return text
        count = "no index yet" if self.indexed_files is None else f"{held} indexed"
        return f"{self.path}: a folder; the walk enters it and decides each file in it ({count})"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "folder": self.folder, "eligible": self.eligible, "reason": self.reason,
                "in_index": self.in_index, "changed": self.changed, "indexed_files": self.indexed_files}


def explain_path(paths: ProjectPaths, settings: Settings, value: str, what: str = "") -> Explanation:
    """Why the path ``value`` (project-relative or absolute, any spelling that stays inside the
    project) is or is not indexed, checked against the index. ``what`` names the option in errors.

    Raises OutsideProjectError for a path outside the project, PaqadError for one that does not exist.
    """
    from paqad.index.discover import explain

    rel = project_relative(paths.root, value, what)
    if not rel or not os.path.lexists(paths.root / rel):
        raise PaqadError(f"{what + ' ' if what else ''}{value}: no such file or folder in the project")
    decision = explain(paths.root, rel, max_file_size=settings.rag_max_file_size)
    folder = decision.path.endswith("/")
    try:
        with store_mod.open_store(paths, readonly=True) as store:
            if folder:
                count = store.count_files_under(decision.path.rstrip("/"))
                return Explanation(decision.path, decision.eligible, decision.reason, count > 0, folder=True,
                                   indexed_files=count)
            row = store.file_row(decision.path)
    except PaqadError:
        return Explanation(decision.path, decision.eligible, decision.reason, None, folder=folder)
    changed = row is not None and decision.eligible and (row.size, row.mtime_ns) != (decision.size, decision.mtime_ns)
    return Explanation(decision.path, decision.eligible, decision.reason, row is not None, changed,
                       indexed_files=int(row is not None))


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
    raise IndexMissingError("the index has no complete build yet (the first build was interrupted or failed); "
                            "run `paqad-ai rag rebuild`")


# --- the last refresh's record (written by `rag refresh-context`) -----------------------------


def record_last_refresh(paths: ProjectPaths, summary: str, seconds: float) -> None:
    """Write ``.paqad/state/last-refresh.json`` (``at`` epoch seconds, ``seconds``, ``summary``). Best effort."""
    try:
        paths.state_dir.mkdir(parents=True, exist_ok=True)
        record = {"at": time.time(), "seconds": round(seconds, 3), "summary": summary}
        tmp = paths.state_dir / "last-refresh.json.tmp"
        tmp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(tmp, paths.state_dir / "last-refresh.json")
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
    """Everything ``rag status`` shows, and what the MCP ``index_status`` tool returns."""

    project_root: Path
    retrieval_enabled: bool
    settings: tuple[SettingValue, ...]
    index: IndexState
    last_refresh: dict | None
    api_key: KeyInfo | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "project_root": str(self.project_root),
            "retrieval_enabled": self.retrieval_enabled,
            "settings": {s.name: {"value": s.value, "source": s.source} for s in self.settings},
            "index": self.index.to_dict(),
            "last_refresh": self.last_refresh,
        }
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
    return Status(
        project_root=paths.root,
        retrieval_enabled=settings.rag_enabled,
        settings=tuple(SettingValue(name, getattr(settings, name), settings.sources[name]) for name in KEYS),
        index=index_state(paths, settings),
        last_refresh=last_refresh(paths),
        api_key=api_key,
    )
