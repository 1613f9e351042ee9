"""Build and incrementally sync the index: discover -> filter -> chunk -> embed -> store.

One algorithm serves ``init``, ``rebuild``, ``refresh-context`` and ``probe``: compare the eligible
files on disk with the ``files`` table (size and mtime first, then content hash), chunk and embed
only what changed, and apply all changes in one transaction. A full build is the same with every
file treated as changed. Embeddings are committed to the cache batch by batch *before* the index
transaction, so a killed build keeps what it paid for and leaves the previous index usable.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

import numpy as np

from paqad.config import Settings
from paqad.errors import PaqadError
from paqad.project import ProjectPaths
from paqad.rag import store as store_mod
from paqad.rag.chunking import CHUNKER_VERSION, Chunk, chunk_file, dense_text, keyword_text
from paqad.rag.discover import discover
from paqad.rag.embeddings.base import Embedder
from paqad.rag.languages import language_for_path
from paqad.rag.lexical import index_document

# (stage, done, total). Bar stages: "discover", "chunk", "embed". Info stages, sent once:
# "eligible" (eligible files, files seen) and "cached" (chunks found in the cache, chunks to embed).
Progress = Callable[[str, int, int], None]

EMBED_BATCH = 64  # chunks per local model call and per cache commit
REMOTE_EMBED_BATCH = 1000  # remote providers batch within their own limits; fewer round trips


@dataclass
class IndexReport:
    """What one build or sync did. Times in seconds."""

    full: bool = False
    reason: str = ""
    files_total: int = 0
    files_changed: int = 0
    files_removed: int = 0
    chunks_total: int = 0
    chunks_written: int = 0
    chunks_removed: int = 0
    embedded: int = 0  # distinct texts sent to the model (identical chunks are embedded once)
    embedded_chunks: int = 0  # chunks whose vector was not in the cache
    cached: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    embed_seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.files_changed or self.files_removed or self.full)

    def summary(self) -> str:
        if self.full:
            return (f"indexed {self.files_total} files, {self.chunks_total} chunks "
                    f"({self.embedded_chunks} embedded, {self.cached} cached) in {self.seconds:.1f}s")
        if not self.changed:
            return f"index up to date ({self.files_total} files, {self.chunks_total} chunks)"
        return (f"synced {self.files_changed} changed, {self.files_removed} removed "
                f"({self.embedded_chunks} embedded, {self.cached} cached) in {self.seconds:.2f}s")


def text_hash(text: str) -> str:
    """sha256 hex of the exact embedded text: the embedding cache key (with the model)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def expected_meta(settings: Settings) -> dict[str, str]:
    """What an index must record to be valid for ``settings`` (without loading the model)."""
    return {
        "schema_version": str(store_mod.SCHEMA_VERSION),
        "chunker_version": str(CHUNKER_VERSION),
        "provider": settings.rag_embedding_provider,
        "model": settings.rag_embedding_model,
        "precision": settings.rag_embedding_precision if settings.rag_embedding_provider == "local" else "",
    }


def stale_reasons(meta: dict[str, str], settings: Settings, fingerprint: str | None = None) -> list[str]:
    """Why an index recorded with ``meta`` cannot be used as is with ``settings`` (empty: valid)."""
    if not meta.get("built_at"):
        return ["no complete build yet"]
    reasons = []
    labels = {"schema_version": "schema", "chunker_version": "chunker version", "provider": "provider",
              "model": "model", "precision": "model precision"}
    for key, want in expected_meta(settings).items():
        have = meta.get(key, "")
        if have != want:
            reasons.append(f"{labels[key]} changed: index has {have or 'none'}, settings want {want or 'none'}")
    if fingerprint is not None and meta.get("fingerprint") and meta["fingerprint"] != fingerprint:
        reasons.append(f"embedding model files or runtime changed ({meta['fingerprint']} -> {fingerprint})")
    return reasons


def _now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def sync_index(
    paths: ProjectPaths,
    settings: Settings,
    embedder: Embedder,
    *,
    full: bool = False,
    progress: Progress | None = None,
    blocking: bool = True,
) -> IndexReport | None:
    """Bring the index in line with the files on disk.

    Rebuilds fully when ``full`` is set or the index is stale (schema, chunker, provider, model,
    precision or model fingerprint changed). Returns None when ``blocking`` is False and another
    writer holds the lock. Raises PaqadError for user-fixable problems (unreadable index that
    cannot be recreated, embedder failures such as a missing key).
    """
    started = time.perf_counter()
    report = IndexReport()
    tick = progress or (lambda stage, done, total: None)
    with store_mod.write_lock(paths, blocking=blocking) as held:
        if not held:
            return None
        try:
            store = store_mod.open_store(paths, create=True)
        except PaqadError:
            store = store_mod.recreate_store(paths)
            full, report.reason = True, "index was unreadable; recreated"
        try:
            _sync_locked(paths, settings, embedder, store, full, report, tick)
        finally:
            store.close()
    report.seconds = time.perf_counter() - started
    return report


def _sync_locked(paths, settings, embedder, store, full, report, tick) -> None:
    meta = store.meta()
    reasons = stale_reasons(meta, settings, embedder.fingerprint)
    if reasons and meta.get("built_at"):
        report.reason = "; ".join(reasons)
    report.full = full = full or bool(reasons)

    tick("discover", 0, 1)
    existing = {} if full else store.files()
    known = {path: (row.size, row.mtime_ns) for path, row in existing.items()}
    found = discover(paths.root, max_file_size=settings.rag_max_file_size, known=known)
    report.rejected = found.reason_counts()
    report.files_total = len(found.eligible)
    tick("discover", 1, 1)
    tick("eligible", len(found.eligible), len(found.eligible) + len(found.rejected))

    eligible_paths = {d.path for d in found.eligible}
    removed = sorted(set(existing) - eligible_paths)
    changed: list[tuple[store_mod.FileRow, list[Chunk]]] = []
    touched: list[store_mod.FileRow] = []
    for i, decision in enumerate(found.eligible):
        old = existing.get(decision.path)
        if old and old.size == decision.size and old.mtime_ns == decision.mtime_ns:
            continue
        try:
            data = (paths.root / decision.path).read_bytes()
        except OSError:
            continue  # vanished or unreadable since discovery: picked up by the next sync
        digest = hashlib.sha256(data).hexdigest()
        language = language_for_path(decision.path)
        if old and old.sha256 == digest:
            touched.append(store_mod.FileRow(decision.path, len(data), decision.mtime_ns, digest, language, old.chunk_count))
            continue
        text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
        try:
            chunks = chunk_file(decision.path, text, language)
        except Exception:  # noqa: BLE001 - one bad file never stops a build
            report.rejected["index:chunk-error"] = report.rejected.get("index:chunk-error", 0) + 1
            continue
        changed.append((store_mod.FileRow(decision.path, len(data), decision.mtime_ns, digest, language, len(chunks)), chunks))
        tick("chunk", i + 1, len(found.eligible))
    tick("chunk", len(found.eligible), len(found.eligible))
    report.files_changed = len(changed)
    report.files_removed = len(removed)

    # Embed what the cache does not have, committing each batch so a killed build keeps it.
    all_chunks = [c for _, chunks in changed for c in chunks]
    texts = [dense_text(c) for c in all_chunks]
    hashes = [text_hash(t) for t in texts]
    model_key = embedder.fingerprint
    have = store.cached_vectors(model_key, hashes)
    todo: dict[str, str] = {}
    for h, t in zip(hashes, texts):
        if h not in have and h not in todo:
            todo[h] = t
    report.cached = sum(1 for h in hashes if h in have)
    report.embedded_chunks = len(all_chunks) - report.cached
    if all_chunks:
        tick("cached", report.cached, len(all_chunks))
    embed_started = time.perf_counter()
    pending = list(todo.items())
    tick("embed", 0, len(pending))
    step = EMBED_BATCH if embedder.provider == "local" else REMOTE_EMBED_BATCH
    for start in range(0, len(pending), step):
        batch = pending[start : start + step]
        vectors = embedder.embed_documents([t for _, t in batch])
        if vectors.shape != (len(batch), embedder.dimension):
            raise PaqadError(f"embedding model {embedder.model_id} returned shape {vectors.shape}, expected ({len(batch)}, {embedder.dimension})")
        store.db.execute("BEGIN IMMEDIATE")
        store.put_vectors(model_key, ((h, v) for (h, _), v in zip(batch, vectors)))
        store.db.execute("COMMIT")
        for (h, _), v in zip(batch, vectors):
            have[h] = v
        report.embedded += len(batch)
        tick("embed", report.embedded, len(pending))
    report.embed_seconds = time.perf_counter() - embed_started

    if not (changed or removed or touched or full):
        report.chunks_total = store.counts()["chunks"]
        return

    # One transaction: readers see the old index or the new one, never half of it.
    old_generation = store.generation
    store.db.execute("BEGIN IMMEDIATE")
    try:
        if full:
            removed_ids = np.array([r[0] for r in store.db.execute("SELECT id FROM chunks")], dtype=np.int64)
            store.db.execute("DELETE FROM chunks")
            store.db.execute("DELETE FROM chunks_fts")
            store.db.execute("DELETE FROM files")
        else:
            gone = removed + [row.path for row, _ in changed]
            marks = ",".join("?" * len(gone))
            removed_ids = np.array(
                [r[0] for r in store.db.execute(f"SELECT id FROM chunks WHERE path IN ({marks})", gone)] if gone else [],
                dtype=np.int64,
            )
            report.chunks_removed = store.delete_files(gone)
        new_ids, new_vectors = [], []
        for row, chunks in changed:
            for chunk in chunks:
                h = text_hash(dense_text(chunk))
                new_ids.append(store.insert_chunk(chunk, h, index_document(keyword_text(chunk))))
                new_vectors.append(have[h])
            store.upsert_file(row)
        for row in touched:
            store.upsert_file(row)
        report.chunks_written = len(new_ids)
        now = _now_iso()
        values: dict[str, object] = {
            **expected_meta(settings),
            "dimension": embedder.dimension,
            "fingerprint": embedder.fingerprint,
            "refreshed_at": now,
            "generation": old_generation + 1,
            "rejected": json.dumps(report.rejected, sort_keys=True),
        }
        if full:
            values["built_at"] = now
        store.set_meta(values)
        store.set_meta({"chunks": store.db.execute("SELECT count(*) FROM chunks").fetchone()[0]})
        store.db.execute("COMMIT")
    except BaseException:
        store.db.execute("ROLLBACK")
        raise
    report.chunks_total = store.counts()["chunks"]
    _update_matrix(store, old_generation, removed_ids, full, new_ids, new_vectors, embedder)


def _update_matrix(store, old_gen, removed_ids, full, new_ids, new_vectors, embedder) -> None:
    """Derive the new generation's vector matrix from the old one plus the change (no full reload).

    The old matrix is copied run by run (contiguous slices of kept rows, no fancy indexing) into
    the new file, then the new rows are appended: one pass over the data, which matters at 100k
    chunks (a 150 MB matrix). Rows stay sorted by chunk id, as search expects.
    """
    vec_dir = store.paths.vectors_dir
    new_gen = store.generation
    dim = embedder.dimension
    add_ids = np.asarray(new_ids, dtype=np.int64)
    add_mat = np.asarray(new_vectors, dtype=np.float32).reshape(len(new_ids), dim)
    if full:
        store_mod._save_matrix(vec_dir, new_gen, add_ids, add_mat)
        return
    try:
        old_ids = np.load(vec_dir / f"ids-{old_gen}.npy")
        old_mat = np.load(vec_dir / f"matrix-{old_gen}.npy", mmap_mode="r")
    except (OSError, ValueError):
        return  # the next search rebuilds it from SQLite
    if old_mat.shape != (len(old_ids), dim):
        return
    keep = ~np.isin(old_ids, removed_ids)
    ids = np.concatenate([old_ids[keep], add_ids])
    if len(ids) > 1 and not np.all(ids[1:] > ids[:-1]):
        # A reused row id (SQLite may reuse the largest one after a delete): sort in memory.
        order = np.argsort(ids, kind="stable")
        mat = np.concatenate([np.asarray(old_mat[keep]), add_mat])
        store_mod._save_matrix(vec_dir, new_gen, ids[order], mat[order])
        return
    store_mod._write_matrix_runs(vec_dir, new_gen, ids, old_mat, keep, add_mat)


@dataclass(frozen=True)
class IndexState:
    """What ``status`` reports about the index on disk (no model loaded)."""

    present: bool
    valid: bool
    reasons: tuple[str, ...]
    meta: dict[str, str]
    counts: dict[str, object]
    size_bytes: int


def index_state(paths: ProjectPaths, settings: Settings) -> IndexState:
    """Read the index's meta and counts and judge it against ``settings``."""
    if not paths.index_db.exists():
        return IndexState(False, False, ("no index; run `paqad-ai rag init`",), {}, {}, 0)
    try:
        with store_mod.open_store(paths, readonly=True) as store:
            meta, counts = store.meta(), store.counts()
    except (PaqadError, Exception) as exc:  # sqlite errors on a damaged file
        return IndexState(True, False, (f"index unreadable: {exc}",), {}, {}, store_mod.index_size_bytes(paths))
    reasons = stale_reasons(meta, settings)
    return IndexState(True, not reasons, tuple(reasons), meta, counts, store_mod.index_size_bytes(paths))


def plan_upload(paths: ProjectPaths, settings: Settings) -> tuple[int, int]:
    """How many chunks and characters a full build would embed: ``(chunks, characters)``.

    Used to tell the user what a remote provider will receive before the first remote build.
    """
    found = discover(paths.root, max_file_size=settings.rag_max_file_size)
    chunks = chars = 0
    for decision in found.eligible:
        try:
            text = (paths.root / decision.path).read_bytes().decode("utf-8", errors="replace").removeprefix("\ufeff")
        except OSError:
            continue
        for chunk in chunk_file(decision.path, text, language_for_path(decision.path)):
            chunks += 1
            chars += len(dense_text(chunk))
    return chunks, chars
