"""The index on disk judged against the settings: valid, or stale and why (no model loaded).

An index records what it was built with (schema, chunker version, provider, model, precision,
model fingerprint); :func:`stale_reasons` lists every difference with the settings in force.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Mapping

from paqad.config import Settings
from paqad.errors import NO_COMPLETE_BUILD_MESSAGE, NO_INDEX_MESSAGE, IndexMissingError, IndexStaleError, PaqadError
from paqad.project import ProjectPaths
from paqad.store.index_store import index_size_bytes, open_store, read_summary
from paqad.store.lock import current_writer
from paqad.store.schema import READABLE_FROM, SCHEMA_VERSION

NO_BUILD_YET = "no complete build yet"


def expected_meta(settings: Settings) -> dict[str, str]:
    """What an index must record to be valid for ``settings`` (without loading the model)."""
    from paqad.index.chunking import CHUNKER_VERSION  # here: the prompt hook's search never needs the chunker

    return {
        "schema_version": str(SCHEMA_VERSION),
        "chunker_version": str(CHUNKER_VERSION),
        **_embedding_meta(settings),
    }


def _embedding_meta(settings: Settings) -> dict[str, str]:
    return {
        "provider": settings.rag_embedding_provider,
        "model": settings.rag_embedding_model,
        "precision": settings.rag_embedding_precision if settings.rag_embedding_provider == "local" else "",
    }


def embedding_changes(meta: Mapping[str, str], settings: Settings) -> list[str]:
    """The stale reasons that come from the embedding settings alone (provider, model,
    precision), in :func:`stale_reasons`' words; cheap (what a search checks before using the
    dense side). Empty for an index with no complete build (nothing recorded to compare)."""
    if not meta.get("built_at"):
        return []
    return _differences(meta, _embedding_meta(settings))


def _differences(meta: Mapping[str, str], wanted: Mapping[str, str]) -> list[str]:
    """One reason per change, in the settings' terms. A provider or model switch is one reason,
    naming both (``embedding model changed: index has local Xenova/all-MiniLM-L6-v2, settings want
    openai text-embedding-3-small``); precision is compared only within one provider and model (an
    OpenAI model has none: "int8 -> none" would be noise) and only for an ONNX model (a static one
    has no precision variants)."""
    reasons = []
    switched = any(meta.get(key, "") != wanted[key] for key in ("provider", "model") if key in wanted)
    for key, want in wanted.items():
        have = meta.get(key, "")
        if key == "provider" and switched:
            reasons.append(f"embedding model changed: index has {_named_model(meta)}, settings want {_named_model(wanted)}")
        elif key == "precision" and (switched or not _precision_applies(wanted)):
            continue
        elif have != want and key not in ("provider", "model"):
            reasons.append(f"{_META_LABELS[key]} changed: index has {have or 'none'}, settings want {want or 'none'}")
    return reasons


def _precision_applies(wanted: Mapping[str, str]) -> bool:
    """Whether the precision setting changes the vectors of the wanted model: only a local ONNX
    model has an int8 and an fp32 file; a static one (``ModelSpec.family``) has one table."""
    if wanted.get("provider") != "local":
        return True  # recorded as "" for a remote provider: nothing to differ
    from paqad.embed.model_store import ModelFamily, spec_for  # here: the hook's search rarely needs it

    return spec_for(wanted.get("model", "")).family != ModelFamily.STATIC


def _named_model(values: Mapping[str, str]) -> str:
    return f"{values.get('provider') or 'unknown provider'} {values.get('model') or 'unknown model'}"


def require_same_embedding(paths: ProjectPaths, settings: Settings) -> None:
    """Raise :class:`~paqad.errors.IndexStaleError` (naming ``paqad-ai rag rebuild``) when the
    index was built with another provider, model or precision than ``settings``: what ``probe``
    checks first, so it refuses in one line instead of answering by keywords (README). A missing
    or unreadable index is left to the caller's own checks."""
    try:
        with open_store(paths, readonly=True) as store:
            meta = store.meta()
    except (PaqadError, sqlite3.Error):
        return
    changed = embedding_changes(meta, settings)
    if changed:
        raise IndexStaleError(changed)


_META_LABELS = {"schema_version": "schema", "chunker_version": "chunker version", "provider": "provider",
                "model": "model", "precision": "model precision"}


def stale_reasons(meta: Mapping[str, str], settings: Settings, fingerprint: str | None = None) -> list[str]:
    """Why an index recorded with ``meta`` cannot be used as is with ``settings`` (empty: valid)."""
    if not meta.get("built_at"):
        return [NO_BUILD_YET]
    wanted = expected_meta(settings)
    have = meta.get("schema_version", "")
    if have.isdigit() and READABLE_FROM <= int(have) < SCHEMA_VERSION:
        wanted["schema_version"] = meta["schema_version"]  # served as is; the next sync migrates it in place
    reasons = _differences(meta, wanted)
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
    only keyword search covers the rest. ``size_bytes`` is everything
    under ``.paqad/vectors/``. Times are ISO-8601 UTC strings. ``large_sources``: files skipped
    as larger than ``rag_max_file_size`` that look hand-written, as (path, bytes).
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
    large_sources: tuple[tuple[str, int], ...] = ()
    not_utf8: tuple[str, ...] = ()  # files skipped as not valid UTF-8 (check:not-utf8)
    size_bytes: int = 0
    built_at: str | None = None
    refreshed_at: str | None = None
    build_running: dict | None = None  # {"pid", "since"} of the process writing the index now

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
            "semantic_coverage": round(self.coverage, 4) if self.chunks or self.valid else None,
            "languages": dict(self.languages),
            "cached_embeddings": self.cached_embeddings,
            "rejected": dict(self.rejected),
            "large_sources": [{"path": p, "bytes": n} for p, n in self.large_sources],
            "not_utf8": list(self.not_utf8),
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
            return "Index: " + NO_COMPLETE_BUILD_MESSAGE.removeprefix("the index has ")
        return "Index: " + ("valid" if self.valid else "stale: " + "; ".join(self.reasons))


def index_state(paths: ProjectPaths, settings: Settings) -> IndexState:
    """Read the index's meta and counts and judge them against ``settings``."""
    try:
        meta, counts = read_summary(paths)
    except IndexMissingError:
        return IndexState(False, False, (NO_INDEX_MESSAGE,))
    except IndexStaleError as exc:  # an older schema: any sync upgrades it in place
        return IndexState(True, False, exc.reasons, size_bytes=index_size_bytes(paths))
    except PaqadError as exc:
        return IndexState(True, False, (f"index unreadable: {exc}",), size_bytes=index_size_bytes(paths))
    reasons = stale_reasons(meta, settings)
    return IndexState(
        build_running=current_writer(paths),
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
        large_sources=tuple((p, int(n)) for p, n in json.loads(meta.get("large_sources") or "[]")),
        not_utf8=tuple(json.loads(meta.get("not_utf8") or "[]")),
        size_bytes=index_size_bytes(paths),
        built_at=meta.get("built_at"),
        refreshed_at=meta.get("refreshed_at"),
    )
