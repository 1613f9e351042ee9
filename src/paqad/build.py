"""Build and incrementally sync the index: discover -> filter -> chunk -> store -> embed.

Two library calls that the CLI, the prompt hook's refresh and the MCP server share:

- :func:`sync`: bring the index in line with the files on disk. One algorithm serves ``init``,
  ``rebuild``, ``refresh-context`` and ``probe``: plan (compare the eligible files with the
  index as git does: size, mtime, ctime and inode first, racily clean files again, then content
  hash), chunk only what changed, apply the change in
  one transaction (files, chunks and the keyword index, each new chunk with its vector when the
  embedding cache has it), then embed what the cache lacks, committing the vectors batch by
  batch. The index is searchable by keywords from the first commit on (issue 13: seconds after
  ``init`` starts, not after the last chunk is embedded); a killed or interrupted build keeps
  every committed batch, and the next sync embeds only what is still missing. A full build is
  the same with every file treated as changed.
- :func:`init_project`: check provider and model, write the settings, build, switch retrieval on.

:func:`embed_backlog` continues an unfinished embedding in the background (the refresh after a
prompt runs it), taking the writer lock one batch at a time so syncs of edited files interleave.

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
from typing import TYPE_CHECKING, Callable

from paqad.config import Settings, ensure_paqad_gitignore, load_settings, write_local_values
from paqad.embed.base import Embedder
from paqad.errors import FINISH_FIRST_BUILD, IndexStaleError, PaqadError, ProviderResponseError
from paqad.index.chunking import dense_text, keyword_text
from paqad.index.discover import nothing_indexable_note
from paqad.index.filters import shown_as_skipped
from paqad.index.sync import Progress, chunk_changed, chunk_project, plan_sync
from paqad.index.tokens import index_document
from paqad.project import ProjectPaths
from paqad import store as store_mod
from paqad.store import team_cache as team_mod
from paqad.store.state import expected_meta, index_state, stale_reasons
from paqad.store.team_cache import TeamReadThrough

if TYPE_CHECKING:  # imported where used: the thread pool only when embedding
    from concurrent.futures import ThreadPoolExecutor

EMBED_BATCH = 64  # chunks per local model call and per vector commit
REMOTE_EMBED_BATCH = 1000  # remote providers batch within their own limits; fewer round trips
PENDING_PAGE = 512  # chunks without a vector read from the index at a time


@dataclass(frozen=True)
class IndexReport:
    """What one build or sync did. Times in seconds.

    ``embedded`` counts distinct texts sent to the model (identical chunks are embedded once),
    ``embedded_chunks`` chunks that got their vector from the model in this sync, ``cached``
    chunks written with a vector already in the store, ``pending`` chunks of the index still
    without a vector afterwards (an unfinished embedding: keyword search only for them).
    ``searchable_seconds`` is when the keyword index was committed (from the start of the sync).
    ``team_chunks`` chunks whose vector came from the team store (DESIGN §14; counted in
    ``embedded_chunks`` too, shown apart by :meth:`summary`); ``team_note`` the
    one line about it when it could not be used (down, auth, TLS, timeout, a bad vector);
    ``team_seconds`` the time spent talking to it (connect, lookups, writes).
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
    pending: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    large_sources: tuple[tuple[str, int], ...] = ()
    not_utf8: tuple[str, ...] = ()  # files skipped as not valid UTF-8, named with the large ones
    seconds: float = 0.0
    searchable_seconds: float = 0.0
    embed_seconds: float = 0.0
    warning: str = ""
    team_chunks: int = 0
    team_note: str = ""
    team_seconds: float = 0.0

    @property
    def changed(self) -> bool:
        """True when the build or sync changed the index (a file indexed or removed, or a full build)."""
        return bool(self.files_changed or self.files_removed or self.full)

    def summary(self) -> str:
        """One line for people: what was indexed or synced, and how long it took."""
        left = f"; {self.pending:,} chunks not embedded yet (keyword search only for them)" if self.pending else ""
        left += f"; {self.team_note}" if self.team_note else ""
        local = self.embedded_chunks - self.team_chunks  # embedded_chunks counts the team's vectors too
        team = f", {self.team_chunks:,} from the team store" if self.team_chunks else ""
        if self.full:
            return (f"indexed {self.files_total:,} files, {self.chunks_total:,} chunks "
                    f"({local:,} embedded{team}, {self.cached:,} cached) in {self.seconds:.1f}s{left}")
        if not self.changed:
            # "388 chunks, 322 embedded" read as 66 left without vectors (round 8): these got theirs now
            embedded = f", {local:,} of them embedded now{team}" if self.embedded_chunks else ""
            return f"index up to date ({self.files_total:,} files, {self.chunks_total:,} chunks{embedded}){left}"
        return (f"synced {self.files_changed:,} changed, {self.files_removed:,} removed "
                f"({local:,} embedded{team}, {self.cached:,} cached) in {self.seconds:.2f}s{left}")

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
    allow_rebuild: bool = True,
    backlog: bool = True,
) -> IndexReport | None:
    """Bring the index in line with the files on disk (plan, chunk, apply, embed).

    Rebuilds fully when ``full`` is set or the index is stale (schema, chunker, provider, model,
    precision or model fingerprint changed); with ``allow_rebuild=False`` a stale index raises
    :class:`~paqad.errors.IndexStaleError` instead (naming ``paqad-ai rag rebuild``) and nothing
    changes: commands that must not rebuild a whole index on the side (probe, refresh) use it.
    ``backlog=False`` embeds only the chunks this sync wrote, leaving an earlier unfinished
    embedding for :func:`embed_backlog`. Returns None when ``blocking`` is False and another
    writer holds the lock; when ``blocking``, ``notify`` hears that it waits for that writer,
    and when it got the lock. ``progress(stage, done, total)``: see
    :data:`paqad.index.sync.Progress`, plus ``"searchable"`` (chunks with a vector, chunks) once
    the keyword index is committed.

    Raises PaqadError for user-fixable problems (unreadable index that cannot be recreated,
    embedder failures such as a missing key: what was committed before stays).
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
        except PaqadError:  # unreadable, or a schema newer than this paqad-ai
            if not (full or allow_rebuild):  # probe, refresh: never a whole rebuild on the side
                raise
            store = store_mod.recreate_store(paths)
            full, reason = True, "index was unreadable; recreated"
        try:
            report = _sync_locked(paths, settings, embedder, store, full, reason, tick, allow_rebuild, backlog, started)
        finally:
            store.close()
    return dataclasses.replace(report, seconds=time.perf_counter() - started)


def _sync_locked(paths: ProjectPaths, settings: Settings, embedder: Embedder, store: store_mod.IndexStore,
                 full: bool, reason: str, tick: Progress, allow_rebuild: bool, backlog: bool,
                 started: float) -> IndexReport:
    meta = store.meta()
    reasons = stale_reasons(meta, settings, embedder.fingerprint)
    if reasons and not (full or allow_rebuild):
        # A stale index, or one whose first build never committed: building it is `rebuild`'s or
        # `init`'s job, with progress, never a side effect of a probe or a refresh.
        raise IndexStaleError(reasons, command="paqad-ai rag rebuild" if meta.get("built_at") else FINISH_FIRST_BUILD)
    if reasons and meta.get("built_at"):
        reason = "; ".join(reasons)
    full = full or bool(reasons)

    # 1. plan (the start time is taken before any file is looked at: see is_racily_clean)
    tick("discover", 0, 1)
    synced_at_ns = time.time_ns()
    known = {} if full else store.files()
    plan = plan_sync(paths.root, settings.rag_max_file_size, known, full, int(meta.get("synced_at_ns") or 0))
    rejected = plan.discovery.reason_counts()
    tick("discover", 1, 1)
    skipped = sum(1 for d in plan.discovery.rejected if shown_as_skipped(d))  # as `--explain .` counts them
    tick("eligible", len(plan.discovery.eligible), len(plan.discovery.eligible) + skipped)

    # 2. chunk
    files = chunk_changed(paths.root, plan, known, tick)
    if files.chunk_errors:
        rejected["index:chunk-error"] = rejected.get("index:chunk-error", 0) + files.chunk_errors

    report = IndexReport(
        full=full, reason=reason, files_total=len(plan.discovery.eligible), files_changed=len(files.changed),
        files_removed=len(plan.removed), rejected=rejected, large_sources=plan.large_sources,
        not_utf8=plan.not_utf8,
        warning="" if plan.discovery.eligible else nothing_indexable_note(plan.discovery),
    )
    first_new = None
    if files.changed or plan.removed or files.touched or full:
        # 3. apply, in one transaction: the keyword index is searchable from here on
        changes = _change_set(settings, embedder, plan, files, rejected, full, synced_at_ns)
        applied = store.apply(changes)
        first_new = max(0, applied.first_id - 1) if applied.chunks_written else None
        cached = applied.chunks_written - (store.pending_count(after=first_new) if first_new is not None else 0)
        tick("searchable", applied.embedded, applied.chunks_total)
        if applied.chunks_written:
            tick("cached", cached, applied.chunks_written)
        report = dataclasses.replace(report, chunks_written=applied.chunks_written, chunks_removed=applied.chunks_removed,
                                     chunks_total=applied.chunks_total, cached=cached,
                                     searchable_seconds=time.perf_counter() - started)
    else:
        report = dataclasses.replace(report, chunks_total=store.chunk_count(), searchable_seconds=time.perf_counter() - started)

    # 4. embed what the store lacks, batch by batch
    if backlog or first_new is not None:
        report = dataclasses.replace(report, **_embed_read_through(
            paths, settings, store, embedder, tick, after=0 if backlog or first_new is None else first_new))
    store.reclaim()
    return dataclasses.replace(report, pending=store.pending_count())


def _embed_read_through(paths: ProjectPaths, settings: Settings, store: store_mod.IndexStore, embedder: Embedder,
                        tick: Progress, after: int) -> dict[str, float | int | str]:
    """:func:`_embed_pending` through the team store when one is configured (DESIGN §14); adds
    the report's ``team_note``."""
    team = team_mod.open_read_through(paths, settings, embedder)
    try:
        fields: dict[str, float | int | str] = {**_embed_pending(store, embedder, tick, after=after, team=team)}
    finally:
        if team is not None:
            team.close()
    fields["team_note"] = team.note if team is not None else ""
    fields["team_seconds"] = team.seconds if team is not None else 0.0
    return fields


def _change_set(settings: Settings, embedder: Embedder, plan, files, rejected: dict[str, int], full: bool,
                synced_at_ns: int) -> store_mod.ChangeSet:
    """What one sync writes: the changed files' chunks with their embedding keys and keyword
    tokens, the removed and touched files, and the meta values recorded with the commit
    (``synced_at_ns``: when this sync's walk started, for the racily-clean check of the next)."""
    now = _now_iso()
    meta_values: dict[str, object] = {
        **expected_meta(settings),
        "dimension": embedder.dimension,
        "fingerprint": embedder.fingerprint,
        "refreshed_at": now,
        "synced_at_ns": synced_at_ns,
        "rejected": json.dumps(rejected, sort_keys=True),
        "large_sources": json.dumps([list(item) for item in plan.large_sources]),
        "not_utf8": json.dumps(list(plan.not_utf8)),
    }
    if full:
        meta_values["built_at"] = now
        meta_values["team_vectors"] = 0  # counted anew by this build
    return store_mod.ChangeSet(
        full=full,
        removed=plan.removed,
        changed=tuple(
            (row, tuple(store_mod.ChunkEntry(c, text_hash(dense_text(c)), index_document(keyword_text(c))) for c in file_chunks))
            for row, file_chunks in files.changed
        ),
        touched=files.touched,
        meta=meta_values,
        model=embedder.fingerprint,
        dimension=embedder.dimension,
    )


class _EmbedPipeline:
    """The state of one :func:`_embed_pending` run: the batches sent to the model (at most two in
    flight), the texts they carry, and the chunks committed so far."""

    def __init__(self, store: store_mod.IndexStore, embedder: Embedder, tick: Progress, total: int,
                 team: TeamReadThrough | None) -> None:
        from collections import deque

        self.store, self.embedder, self.tick, self.total, self.team = store, embedder, tick, total, team
        self.model, self.dimension = embedder.fingerprint, embedder.dimension
        self.counts = {"texts": 0, "chunks": 0, "team": 0}
        self.inflight: dict[str, list[int]] = {}  # text hash -> chunk ids, for texts sent and not committed yet
        self.queue: deque = deque()  # (batch of (hash, text, chunk ids), Future of its (n, d) vectors)

    def commit_oldest(self) -> None:
        """Wait for the oldest batch's vectors and commit them; raises ProviderResponseError on a wrong shape."""
        batch, future = self.queue.popleft()
        vectors = future.result()
        if vectors.shape != (len(batch), self.dimension):
            raise ProviderResponseError(f"embedding model {self.embedder.model_id} returned shape {vectors.shape}, "
                                        f"expected ({len(batch)}, {self.dimension})")
        self.counts["chunks"] += self.store.commit_vectors(self.model, self.dimension,
                                                           [(h, v, ids) for (h, _, ids), v in zip(batch, vectors)])
        self.counts["texts"] += len(batch)
        if self.team is not None:
            self.team.publish([(h, v) for (h, _, _), v in zip(batch, vectors)])
        for h, _, _ in batch:
            self.inflight.pop(h, None)
        self.tick("embed", self.counts["chunks"], self.total)

    def still_to_embed(self, page: list[store_mod.PendingChunk]) -> list[tuple[str, str, list[int]]]:
        """Commit what ``page`` can take without a model call (the store's own or the team's vectors
        of the same text); returns the ``(hash, text, chunk ids)`` left for the model."""
        by_hash = _page_texts(page, self.inflight)
        have = self.store.cached_rows(self.model, list(by_hash))
        if have:  # the same text embedded before (another file, an earlier batch): no model call
            self.counts["chunks"] += self.store.commit_vectors(self.model, self.dimension,
                                                               [(h, None, by_hash[h][1]) for h in have])
            self.tick("embed", self.counts["chunks"], self.total)
        todo = [(h, text, ids) for h, (text, ids) in by_hash.items() if h not in have]
        if self.team is not None and todo:  # a teammate embedded it already: no model call either
            todo = _take_from_team(self.store, self.team, self.model, self.dimension, todo, self.counts)
            self.tick("embed", self.counts["chunks"], self.total)
        return todo

    def send(self, ahead: ThreadPoolExecutor, todo: list[tuple[str, str, list[int]]], step: int) -> None:
        """Send ``todo`` to the model in batches of ``step`` on ``ahead``, committing all but the newest batch."""
        for start in range(0, len(todo), step):
            batch = todo[start : start + step]
            for h, _, ids in batch:
                self.inflight[h] = ids
            self.queue.append((batch, ahead.submit(self.embedder.embed_documents, [text for _, text, _ in batch])))
            while len(self.queue) > 1:
                self.commit_oldest()


def _embed_pending(store: store_mod.IndexStore, embedder: Embedder, tick: Progress, after: int = 0,
                   max_chunks: int | None = None, team: TeamReadThrough | None = None) -> dict[str, float | int]:
    """Give the chunks without a vector (ids above ``after``) their vectors: from the store when
    another chunk already has the same text, else from the model, committed batch by batch.

    The next batch is embedded while the previous one is committed (the model's threads never
    wait for SQLite), and a text already in flight is not embedded again: its chunks join the
    batch that carries it. Reports ``tick("embed", chunks done, chunks pending)``. Stops after
    about ``max_chunks`` chunks when given. Returns the report fields ``embedded``,
    ``embedded_chunks`` and ``embed_seconds``.
    """
    from concurrent.futures import ThreadPoolExecutor

    total = store.pending_count(after=after)
    if max_chunks is not None:
        total = min(total, max_chunks)
    started = time.perf_counter()
    step = EMBED_BATCH if embedder.provider == "local" else REMOTE_EMBED_BATCH
    pipeline = _EmbedPipeline(store, embedder, tick, total, team)
    if total:
        tick("embed", 0, total)
    ahead = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paqad-embed-ahead")
    try:
        cursor, fetched = after, 0
        while fetched < total:
            page = store.pending_chunks(min(PENDING_PAGE, total - fetched), after=cursor)
            if not page:
                break
            cursor, fetched = page[-1].id, fetched + len(page)
            pipeline.send(ahead, pipeline.still_to_embed(page), step)
        while pipeline.queue:
            pipeline.commit_oldest()
    finally:
        ahead.shutdown(wait=not pipeline.queue, cancel_futures=True)  # on an error or Ctrl-C, do not wait for the model
    counts = pipeline.counts
    return {"embedded": counts["texts"], "embedded_chunks": counts["chunks"], "team_chunks": counts["team"],
            "embed_seconds": time.perf_counter() - started}


def _page_texts(page: list[store_mod.PendingChunk], inflight: dict[str, list[int]]) -> dict[str, tuple[str, list[int]]]:
    """A page's texts to embed: text hash -> (text, chunk ids); chunks of a text already in
    flight join its ids in ``inflight`` instead (attached when its batch commits)."""
    by_hash: dict[str, tuple[str, list[int]]] = {}
    for item in page:
        text = dense_text(item.chunk)
        h = text_hash(text)
        if h in inflight:
            inflight[h].append(item.id)
        else:
            by_hash.setdefault(h, (text, []))[1].append(item.id)
    return by_hash


def _take_from_team(store: store_mod.IndexStore, team: TeamReadThrough, model: str, dimension: int,
                    todo: list[tuple[str, str, list[int]]], counts: dict[str, int]) -> list[tuple[str, str, list[int]]]:
    """Commit the team store's vectors of ``todo`` (one lookup); returns what is still to embed."""
    found = team.lookup([h for h, _, _ in todo])
    if not found:
        return todo
    attached = store.commit_vectors(model, dimension, [(h, found[h], ids) for h, _, ids in todo if h in found])
    team_mod.record_team_vectors(store, attached)
    counts["chunks"] += attached
    counts["team"] += attached
    return [item for item in todo if item[0] not in found]


def embed_backlog(paths: ProjectPaths, settings: Settings, embedder: Embedder, *, progress: Progress | None = None,
                  batch_chunks: int = PENDING_PAGE) -> int:
    """Embed the index's chunks that have no vector yet (an interrupted or left ``init``/``rebuild``).

    Takes the writer lock for ``batch_chunks`` chunks at a time and lets go in between, so a sync
    of edited files never waits long. Stops when nothing is pending, when the index is stale for
    ``settings`` or ``embedder`` (a rebuild is the user's call), or when it vanishes. Returns the
    chunks that got a vector.
    """
    team = team_mod.open_read_through(paths, settings, embedder)  # one per backlog: a fault is met once
    try:
        return _embed_backlog_batches(paths, settings, embedder, progress or _no_progress, batch_chunks, team)
    finally:
        if team is not None:
            team.close()


def _embed_backlog_batches(paths: ProjectPaths, settings: Settings, embedder: Embedder, tick: Progress,
                           batch_chunks: int, team: TeamReadThrough | None) -> int:
    done = 0
    while True:
        with store_mod.write_lock(paths, blocking=True):
            if not paths.index_db.exists():
                return done
            store = store_mod.open_store(paths, create=True)
            try:
                if stale_reasons(store.meta(), settings, embedder.fingerprint) or not store.pending_count():
                    return done
                fields = _embed_pending(store, embedder, tick, max_chunks=batch_chunks, team=team)
                store.reclaim()
            finally:
                store.close()
        if not fields["embedded_chunks"]:
            return done
        done += int(fields["embedded_chunks"])


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


def _init_candidate(paths: ProjectPaths, provider: str | None, model: str | None, interactive: bool) -> Settings:
    """The project's settings with the provider and model ``init`` asked for (default: the current
    ones; a new provider's default model), after making sure a remote provider's key is there
    (asked for on a terminal when ``interactive``; raises KeyMissingError). Nothing is written."""
    from paqad.config import DEFAULT_MODELS

    current = load_settings(paths)
    provider = provider or current.rag_embedding_provider
    if model is None:
        model = current.rag_embedding_model if provider == current.rag_embedding_provider else DEFAULT_MODELS[provider]
    if provider != "local":
        from paqad.secrets import require_key

        require_key(paths, provider, interactive=interactive)
    return dataclasses.replace(current, rag_embedding_provider=provider, rag_embedding_model=model)


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
    on (``rag_enabled=true``) once the keyword index is committed, so an init interrupted while
    embedding leaves a searchable index that the next refresh finishes.

    Raises PaqadError (ConfigError, ModelMissingError, KeyMissingError, UploadDeclined, ...).
    """
    from paqad.embed.factory import load_model

    say = notify or (lambda message: None)
    candidate = _init_candidate(paths, provider, model, interactive)
    provider, model = candidate.rag_embedding_provider, candidate.rag_embedding_model
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
        # "built" is the keyword index: say when vectors are still missing (another init may be
        # embedding them right now; this one then waits for it, then embeds what is left)
        vectors = f", {state.embedded:,} with vectors so far" if state.embedded < state.chunks else ""
        say(f"Index already built ({state.files:,} files, {state.chunks:,} chunks{vectors}); kept, syncing what changed. "
            "Use `paqad-ai rag init --rebuild` to rebuild from scratch.")  # --yes only answers questions
    tick = progress or _no_progress

    def switch_on(stage: str, done: int, total: int) -> None:
        # Switched on as soon as the keyword index is committed (searchable, and consistent), not
        # at the end: an init interrupted while embedding leaves retrieval on, and the refresh
        # behind the next prompt continues the embedding. Never before: no half-written index.
        if stage == "searchable":
            write_local_values(paths, {"rag_enabled": True})
        tick(stage, done, total)

    report = sync(paths, settings, embedder, full=rebuild_all, progress=switch_on, notify=notify)
    assert report is not None  # blocking sync always returns a report
    write_local_values(paths, {"rag_enabled": True})  # also when nothing changed (no commit)
    return InitResult(load_settings(paths), report, kept_index=not rebuild_all)


class UploadDeclined(PaqadError):
    """The user declined to send the project to a remote embedding provider."""


def clear_index(paths: ProjectPaths, notify: Callable[[str], None] | None = None) -> bool:
    """Delete ``.paqad/vectors/`` (waiting for a running writer; ``notify`` hears of the wait) and
    set ``rag_enabled=false``.

    Secrets, other settings and the rest of ``.paqad/`` are kept, but for the record of the last
    refresh (``rag status`` showed "Last refresh: ... index up to date" under "Index: none").
    Returns whether an index existed.
    """
    import shutil

    existed = paths.vectors_dir.exists()
    if existed:
        with store_mod.write_lock(paths, blocking=True, job="deleting the index", notify=notify):
            shutil.rmtree(paths.vectors_dir)
    (paths.state_dir / "last-refresh.json").unlink(missing_ok=True)
    write_local_values(paths, {"rag_enabled": False})
    return existed
