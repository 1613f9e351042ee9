"""Build and incrementally sync the index: discover -> filter -> chunk -> embed -> store.

Two library calls that the CLI, the prompt hook's refresh and the MCP server share:

- :func:`sync`: bring the index in line with the files on disk. One algorithm serves ``init``,
  ``rebuild``, ``refresh-context`` and ``probe``: plan (compare the eligible files with the
  index: size and mtime first, then content hash), chunk only what changed, embed what the
  cache lacks, apply every change in one transaction. A full build is the same with every file
  treated as changed. Embeddings are committed to the cache batch by batch *before* the index
  transaction, so a killed build keeps what it paid for and leaves the previous index usable.
- :func:`init_project`: check provider and model, write the settings, build, switch retrieval on.

Example::

    report = sync(ProjectPaths(root), load_settings(root), get_embedder(settings))
    print(report.summary())     # synced 1 changed, 0 removed (1 embedded, 7 cached) in 0.12s
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable, Sequence

import numpy as np

from paqad.config import Settings, ensure_paqad_gitignore, load_settings, write_local_values
from paqad.embed.base import Embedder
from paqad.errors import PaqadError
from paqad.index.chunking import Chunk, dense_text, keyword_text
from paqad.index.discover import nothing_indexable_note
from paqad.index.sync import Progress, chunk_changed, chunk_project, plan_sync
from paqad.index.tokens import index_document
from paqad.project import ProjectPaths
from paqad import store as store_mod
from paqad.store.state import expected_meta, index_state, stale_reasons

EMBED_BATCH = 64  # chunks per local model call and per cache commit
REMOTE_EMBED_BATCH = 1000  # remote providers batch within their own limits; fewer round trips


@dataclass(frozen=True)
class IndexReport:
    """What one build or sync did. Times in seconds.

    ``embedded`` counts distinct texts sent to the model (identical chunks are embedded once),
    ``embedded_chunks`` chunks whose vector was not in the cache, ``cached`` those whose was.
    ``rejected`` counts files left out per reason code (``"check:too-large": 2``);
    ``large_sources`` names the too-large ones that look hand-written, as (path, bytes). ``warning``
    is a line for people when something needs their attention (no file could be indexed).
    """

    full: bool = False
    reason: str = ""
    files_total: int = 0
    files_changed: int = 0
    files_removed: int = 0
    chunks_total: int = 0
    chunks_written: int = 0
    chunks_removed: int = 0
    embedded: int = 0
    embedded_chunks: int = 0
    cached: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    large_sources: tuple[tuple[str, int], ...] = ()
    seconds: float = 0.0
    embed_seconds: float = 0.0
    warning: str = ""

    @property
    def changed(self) -> bool:
        return bool(self.files_changed or self.files_removed or self.full)

    def summary(self) -> str:
        """One line for people: what was indexed or synced, and how long it took."""
        if self.full:
            return (f"indexed {self.files_total} files, {self.chunks_total} chunks "
                    f"({self.embedded_chunks} embedded, {self.cached} cached) in {self.seconds:.1f}s")
        if not self.changed:
            return f"index up to date ({self.files_total} files, {self.chunks_total} chunks)"
        return (f"synced {self.files_changed} changed, {self.files_removed} removed "
                f"({self.embedded_chunks} embedded, {self.cached} cached) in {self.seconds:.2f}s")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def text_hash(text: str) -> str:
    """sha256 hex of the exact embedded text: the embedding cache key (with the model)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


def sync(
    paths: ProjectPaths,
    settings: Settings,
    embedder: Embedder,
    *,
    full: bool = False,
    progress: Progress | None = None,
    blocking: bool = True,
    notify: Callable[[str], None] | None = None,
) -> IndexReport | None:
    """Bring the index in line with the files on disk (plan, chunk, embed, apply).

    Rebuilds fully when ``full`` is set or the index is stale (schema, chunker, provider, model,
    precision or model fingerprint changed). Returns None when ``blocking`` is False and another
    writer holds the lock; when ``blocking``, ``notify`` hears that it waits for that writer,
    and when it got the lock. Raises PaqadError for user-fixable problems (unreadable index that
    cannot be recreated, embedder failures such as a missing key).
    """
    started = time.perf_counter()
    tick = progress or _no_progress
    job = "building the index" if full else "syncing the index"
    with store_mod.write_lock(paths, blocking=blocking, job=job, notify=notify) as held:
        if not held:
            return None
        reason = ""
        try:
            store = store_mod.open_store(paths, create=True)
        except PaqadError:
            store = store_mod.recreate_store(paths)
            full, reason = True, "index was unreadable; recreated"
        try:
            report = _sync_locked(paths, settings, embedder, store, full, reason, tick)
        finally:
            store.close()
    return dataclasses.replace(report, seconds=time.perf_counter() - started)


def _sync_locked(paths: ProjectPaths, settings: Settings, embedder: Embedder, store: store_mod.IndexStore,
                 full: bool, reason: str, tick: Progress) -> IndexReport:
    meta = store.meta()
    reasons = stale_reasons(meta, settings, embedder.fingerprint)
    if reasons and meta.get("built_at"):
        reason = "; ".join(reasons)
    full = full or bool(reasons)

    # 1. plan
    tick("discover", 0, 1)
    known = {} if full else store.files()
    plan = plan_sync(paths.root, settings.rag_max_file_size, known, full)
    rejected = plan.discovery.reason_counts()
    tick("discover", 1, 1)
    tick("eligible", len(plan.discovery.eligible), len(plan.discovery.eligible) + len(plan.discovery.rejected))

    # 2. chunk
    files = chunk_changed(paths.root, plan, known, tick)
    if files.chunk_errors:
        rejected["index:chunk-error"] = rejected.get("index:chunk-error", 0) + files.chunk_errors

    # 3. embed
    chunks = [c for _, file_chunks in files.changed for c in file_chunks]
    vectors, embedding = _embed_missing(store, embedder, chunks, tick)

    report = IndexReport(
        full=full, reason=reason, files_total=len(plan.discovery.eligible), files_changed=len(files.changed),
        files_removed=len(plan.removed), rejected=rejected, large_sources=plan.large_sources, **embedding,
        warning="" if plan.discovery.eligible else nothing_indexable_note(plan.discovery),
    )
    if not (files.changed or plan.removed or files.touched or full):
        return dataclasses.replace(report, chunks_total=store.chunk_count())

    # 4. apply, in one transaction
    now = _now_iso()
    meta_values: dict[str, object] = {
        **expected_meta(settings),
        "dimension": embedder.dimension,
        "fingerprint": embedder.fingerprint,
        "refreshed_at": now,
        "rejected": json.dumps(rejected, sort_keys=True),
        "large_sources": json.dumps([list(item) for item in plan.large_sources]),
    }
    if full:
        meta_values["built_at"] = now
    changes = store_mod.ChangeSet(
        full=full,
        removed=plan.removed,
        changed=tuple(
            (row, tuple(store_mod.ChunkEntry(c, text_hash(dense_text(c)), index_document(keyword_text(c))) for c in file_chunks))
            for row, file_chunks in files.changed
        ),
        touched=files.touched,
        meta=meta_values,
    )
    applied = store.apply(changes, vectors, embedder.dimension)
    return dataclasses.replace(report, chunks_written=applied.chunks_written, chunks_removed=applied.chunks_removed,
                               chunks_total=applied.chunks_total)


def _embed_missing(store: store_mod.IndexStore, embedder: Embedder, chunks: Sequence[Chunk],
                   tick: Progress) -> tuple[dict[str, np.ndarray], dict[str, float | int]]:
    """Vectors of every chunk's embedded text by its hash: from the cache, else from the model.

    Each batch is committed to the cache as it arrives, so a killed build keeps what it paid for.
    Returns the vectors and the report fields ``embedded``, ``embedded_chunks``, ``cached`` and
    ``embed_seconds``.
    """
    texts = [dense_text(c) for c in chunks]
    hashes = [text_hash(t) for t in texts]
    model_key = embedder.fingerprint
    have = store.cached_vectors(model_key, hashes)
    todo: dict[str, str] = {}
    for h, t in zip(hashes, texts):
        if h not in have and h not in todo:
            todo[h] = t
    cached = sum(1 for h in hashes if h in have)
    if chunks:
        tick("cached", cached, len(chunks))
    started = time.perf_counter()
    pending = list(todo.items())
    tick("embed", 0, len(pending))
    step = EMBED_BATCH if embedder.provider == "local" else REMOTE_EMBED_BATCH
    embedded = 0
    for start in range(0, len(pending), step):
        batch = pending[start : start + step]
        vectors = embedder.embed_documents([t for _, t in batch])
        if vectors.shape != (len(batch), embedder.dimension):
            raise PaqadError(f"embedding model {embedder.model_id} returned shape {vectors.shape}, expected ({len(batch)}, {embedder.dimension})")
        store.put_vectors_committed(model_key, ((h, v) for (h, _), v in zip(batch, vectors)))
        for (h, _), v in zip(batch, vectors):
            have[h] = v
        embedded += len(batch)
        tick("embed", embedded, len(pending))
    fields = {"embedded": embedded, "embedded_chunks": len(chunks) - cached, "cached": cached,
              "embed_seconds": time.perf_counter() - started}
    return have, fields


def plan_upload(paths: ProjectPaths, settings: Settings) -> tuple[int, int]:
    """How many chunks and characters a full build would embed: ``(chunks, characters)``.

    Used to tell the user what a remote provider will receive before the first remote build.
    """
    chunks = chunk_project(paths.root, settings.rag_max_file_size)
    return len(chunks), sum(len(dense_text(c)) for c in chunks)


# --- init ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InitResult:
    """What :func:`init_project` did: the settings now in force, the build report, and whether an
    existing valid index was kept (synced) rather than rebuilt."""

    settings: Settings
    report: IndexReport
    kept_index: bool


ConfirmUpload = Callable[[Settings, int, int], bool]
"""Asked before a full remote build: (settings, chunks, characters) -> go ahead?"""


def init_project(
    paths: ProjectPaths,
    *,
    provider: str | None = None,
    model: str | None = None,
    rebuild: bool = False,
    interactive: bool = False,
    confirm_upload: ConfirmUpload | None = None,
    notify: Callable[[str], None] | None = None,
    progress: Progress | None = None,
) -> InitResult:
    """Switch retrieval on for the project at ``paths`` and build its index.

    Checks provider and model first (fetching the local model into the store; for a remote
    provider the key, asked for on a terminal when ``interactive``) before writing any setting,
    so a mistyped model never leaves a working index configured for a missing one. A valid index
    is kept and synced unless ``rebuild``. Before a full remote build, ``confirm_upload`` (when
    given) is asked; a False answer raises :class:`UploadDeclined` with nothing written or sent.
    ``notify`` receives one-line notes; ``progress`` the build's progress. Retrieval is switched
    on (``rag_enabled=true``) only once the index exists.

    Raises PaqadError (ConfigError, ModelMissingError, KeyMissingError, UploadDeclined, ...).
    """
    from paqad.config import DEFAULT_MODELS
    from paqad.embed.factory import load_model

    say = notify or (lambda message: None)
    current = load_settings(paths)
    provider = provider or current.rag_embedding_provider
    if model is None:
        model = current.rag_embedding_model if provider == current.rag_embedding_provider else DEFAULT_MODELS[provider]
    if provider != "local":
        from paqad.secrets import require_key

        require_key(paths, provider, interactive=interactive)
    candidate = dataclasses.replace(current, rag_embedding_provider=provider, rag_embedding_model=model)
    embedder = load_model(candidate, paths)  # fetches and loads the local model, or raises a clear error
    state = index_state(paths, candidate)
    rebuild_all = rebuild or not state.valid
    if rebuild_all and provider != "local" and confirm_upload is not None:
        chunks, chars = plan_upload(paths, candidate)
        if not confirm_upload(candidate, chunks, chars):
            raise UploadDeclined("nothing sent, nothing changed")
    write_local_values(paths, {"rag_embedding_provider": provider, "rag_embedding_model": model})
    ensure_paqad_gitignore(paths)
    settings = load_settings(paths)
    if not rebuild_all:
        say(f"Index already built ({state.files} files, {state.chunks} chunks); kept and synced. "
            "Use --yes to rebuild from scratch.")
    report = sync(paths, settings, embedder, full=rebuild_all, progress=progress, notify=notify)
    assert report is not None  # blocking sync always returns a report
    # Switched on only once an index exists: hooks never search a half-built one.
    write_local_values(paths, {"rag_enabled": True})
    return InitResult(load_settings(paths), report, kept_index=not rebuild_all)


class UploadDeclined(PaqadError):
    """The user declined to send the project to a remote embedding provider."""


def clear_index(paths: ProjectPaths, notify: Callable[[str], None] | None = None) -> bool:
    """Delete ``.paqad/vectors/`` (waiting for a running writer; ``notify`` hears of the wait) and
    set ``rag_enabled=false``.

    Secrets, other settings and the rest of ``.paqad/`` are kept. Returns whether an index existed.
    """
    import shutil

    existed = paths.vectors_dir.exists()
    if existed:
        with store_mod.write_lock(paths, blocking=True, job="deleting the index", notify=notify):
            shutil.rmtree(paths.vectors_dir)
    write_local_values(paths, {"rag_enabled": False})
    return existed
