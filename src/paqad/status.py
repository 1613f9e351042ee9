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
from paqad.errors import NO_INDEX_MESSAGE, IndexMissingError, IndexStaleError, PaqadError
from paqad.index.chunking import CHUNKER_VERSION
from paqad.project import ProjectPaths



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
        return ["no complete build yet"]
    reasons = []
    for key, want in expected_meta(settings).items():
        have = meta.get(key, "")
        if have != want:
            reasons.append(f"{_META_LABELS[key]} changed: index has {have or 'none'}, settings want {want or 'none'}")
    # A changed model or precision changes the fingerprint too: say only what the user changed.
    if not reasons and fingerprint is not None and meta.get("fingerprint") and meta["fingerprint"] != fingerprint:
        reasons.append(f"embedding model files or runtime changed ({meta['fingerprint']} -> {fingerprint})")
    return reasons


@dataclass(frozen=True)
class IndexState:
    """The index on disk judged against the settings (no model loaded).

    ``reasons`` says why it is not ``valid`` (or that it is missing / unreadable); counts are 0
    and recorded values None when there is no readable index. ``embedded`` counts the chunks
    that have a vector: below ``chunks`` while embedding still runs (or was interrupted), when
    only keyword search covers the rest. ``size_bytes`` is everything under ``.paqad/vectors/``.
    Times are ISO-8601 UTC strings.
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
    embedded: int = 0
    languages: dict[str, int] = field(default_factory=dict)
    cached_embeddings: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    size_bytes: int = 0
    built_at: str | None = None
    refreshed_at: str | None = None

    @property
    def coverage(self) -> float:
        """Share of the chunks that have a vector (1.0 for an empty or complete index)."""
        return self.embedded / self.chunks if self.chunks else 1.0

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
            "embedded_chunks": self.embedded,
            "semantic_coverage": round(self.coverage, 4),
            "languages": dict(self.languages),
            "cached_embeddings": self.cached_embeddings,
            "rejected": dict(self.rejected),
            "size_bytes": self.size_bytes,
            "built_at": self.built_at,
            "refreshed_at": self.refreshed_at,
        }


def index_state(paths: ProjectPaths, settings: Settings) -> IndexState:
    """Read the index's meta and counts and judge them against ``settings``."""
    try:
        meta, counts = store_mod.read_summary(paths)
    except IndexMissingError:
        return IndexState(False, False, (NO_INDEX_MESSAGE,))
    except IndexStaleError as exc:  # an older schema: any sync upgrades it in place
        return IndexState(True, False, exc.reasons, size_bytes=store_mod.index_size_bytes(paths))
    except PaqadError as exc:
        return IndexState(True, False, (f"index unreadable: {exc}",), size_bytes=store_mod.index_size_bytes(paths))
    reasons = stale_reasons(meta, settings)
    return IndexState(
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
        embedded=int(counts.get("embedded", 0)),
        languages=dict(counts.get("languages", {})),
        cached_embeddings=int(counts.get("cached_embeddings", 0)),
        rejected=json.loads(meta.get("rejected") or "{}"),
        size_bytes=store_mod.index_size_bytes(paths),
        built_at=meta.get("built_at"),
        refreshed_at=meta.get("refreshed_at"),
    )


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
