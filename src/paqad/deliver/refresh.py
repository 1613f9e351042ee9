"""The background refresh behind every prompt (DESIGN §10) and the hook's in-budget answer.

``refresh_context``: sync changed files, choose the query, search, apply the floor (one call:
:func:`paqad.jobs.sync_search.search_within_budget` with the
:data:`~paqad.jobs.sync_policy.REFRESH` policy), write the ``## Retrieved context`` section, check base drift, then continue an unfinished embedding (an
interrupted ``init``) in the background. It never raises for an expected problem: it returns a
one-line reason instead, and logs failures under ``.paqad/logs/``; the previous section is left
as it was when anything fails. It never rebuilds a whole index: a stale one (settings changed)
is searched by keywords and the summary names ``paqad-ai rag rebuild``.

The hook's in-budget answer, :func:`paqad.deliver.answer.section_for_prompt`, lives in a module of
its own that imports no more than a keyword search needs.
"""

from __future__ import annotations

import dataclasses
import fcntl
import logging
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator

from paqad import store as store_mod
from paqad.config import Settings, load_settings
from paqad.errors import NO_INDEX_MESSAGE, PaqadError, RefreshWarning
from paqad.project import ProjectPaths, index_exists
from paqad.build import embed_backlog
from paqad.deliver.delivery import index_terms
from paqad.deliver.intent import Intent, classify
from paqad.deliver.query import Query, choose_query, in_git_work_tree, read_last_prompt
from paqad.deliver.render import render_section
from paqad.deliver.session_file import write_section
from paqad.index.sync import Progress
from paqad.jobs.sync_policy import REFRESH, SyncOutcome, SyncState
from paqad.jobs.sync_search import BudgetedSearch, SearchAsk, search_within_budget
from paqad.search import load_embedder
from paqad.search.degraded import Degraded
from paqad.search.floor import NOTHING, FloorOutcome
from paqad.status import record_last_refresh

MAX_CATCH_UP_ROUNDS = 3  # prompts recorded while a refresh runs are answered by at most 3 more rounds


@dataclass(frozen=True)
class RefreshOutcome:
    """The one-line summary of a refresh and whether it wrote the section."""

    summary: str
    wrote: bool = False
    form: str | None = None
    passages: int = 0
    seconds: float = 0.0
    backlog: bool = False  # chunks are left without vectors: embedding continues after the refresh
    backlog_embedded: int = 0  # chunks that embedding gave a vector, in backlog_seconds
    backlog_seconds: float = 0.0
    backlog_failed: str | None = None  # why embedding those chunks stopped (they stay keyword-only until the next refresh)


class _LogFile(logging.FileHandler):
    """``.paqad/logs/<where>.log``, whose write can fail like the failure it records (a full
    disk): that write is dropped, not shown as logging's "--- Logging error ---" traceback on
    the user's console (seen in `rag refresh-context` on a full disk)."""

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        pass


def log_failure(paths: ProjectPaths, where: str, exc: BaseException) -> None:
    """Append a failure to ``.paqad/logs/<where>.log`` (best effort; never raises)."""
    try:
        paths.logs_dir.mkdir(parents=True, exist_ok=True)
        logger = logging.getLogger(f"paqad.{where}")
        target = str((paths.logs_dir / f"{where}.log").absolute())
        for old in [h for h in logger.handlers if getattr(h, "baseFilename", None) != target]:
            logger.removeHandler(old)  # another project's log (one process may serve several)
            old.close()
        if not logger.handlers:
            handler = _LogFile(target, encoding="utf-8")
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
            logger.addHandler(handler)
            logger.propagate = False
        logger.error("%s: %s", type(exc).__name__, exc, exc_info=not isinstance(exc, PaqadError))
    except Exception:  # noqa: BLE001 - logging must never break a refresh
        pass


@contextmanager
def _refresh_lock(paths: ProjectPaths, name: str = "refresh.lock") -> Iterator[bool]:
    """Non-blocking lock so that prompts in a row do not stack refreshes (or backlog embedders)."""
    paths.state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(paths.state_dir / name, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


NOT_SYNCED = "index not synced (the previous index is kept)"


def _log_refresh_warning(paths: ProjectPaths, why: str) -> None:
    log_failure(paths, "refresh", RefreshWarning(why))


def _prompt_stamp(paths: ProjectPaths) -> str | None:
    record = read_last_prompt(paths)
    return record.get("recorded_at") if record else None


def refresh_context(paths: ProjectPaths, settings: Settings | None = None, *,
                    announce: Callable[[RefreshOutcome], None] | None = None,
                    progress: Progress | None = None) -> RefreshOutcome:
    """Sync, choose the query, search, write the section; then, when chunks are left without
    vectors (an interrupted build), embed them. Returns the outcome and its one-line summary.

    ``announce`` hears the outcome once, as soon as it is known and before that embedding starts
    (the CLI prints it then); the returned outcome's ``backlog_embedded`` and ``summary``, and the
    last-refresh record, add what the embedding did. ``progress(stage, done, total)`` hears the
    sync and that embedding (:data:`paqad.index.sync.Progress`; a refresh run by hand after a
    large change embeds for minutes).
    """
    outcome, settings = _refresh(paths, settings, progress)
    if announce is not None:
        announce(outcome)
    if outcome.backlog and settings is not None:
        began = time.perf_counter()
        done, failure = _continue_embedding(paths, settings, progress)
        if failure is not None:
            why = embedding_stopped(paths, failure)
            outcome = dataclasses.replace(outcome, summary=f"{outcome.summary}; {why}", backlog_failed=why,
                                          backlog_embedded=done, backlog_seconds=time.perf_counter() - began)
            record_last_refresh(paths, outcome.summary, outcome.seconds + outcome.backlog_seconds)
        elif done:
            seconds = time.perf_counter() - began
            outcome = dataclasses.replace(
                outcome, summary=f"{outcome.summary}; then embedded {done:,} chunks left without vectors in {seconds:.1f}s",
                backlog=False, backlog_embedded=done, backlog_seconds=seconds)
            record_last_refresh(paths, outcome.summary, outcome.seconds + seconds)
    return outcome


def drop_retrieved_section(paths: ProjectPaths) -> None:
    """Remove the ``## Retrieved context`` section from ``.paqad/context/session-context.md`` (other
    sections kept byte for byte; best effort). For retrieval switched off or an index cleared: the
    passages came from an index that no longer answers, and Cursor's rule still told the agent to
    read them (round 11: `rag clear --yes` left them, and every refresh after said "nothing to do")."""
    try:
        write_section(paths.session_context, None)
    except OSError as exc:
        log_failure(paths, "refresh", exc)


def _refresh(paths: ProjectPaths, settings: Settings | None,
             progress: Progress | None = None) -> tuple[RefreshOutcome, Settings | None]:
    started = time.perf_counter()
    try:
        settings = settings or load_settings(paths)
    except PaqadError as exc:
        log_failure(paths, "refresh", exc)
        return RefreshOutcome(f"config error, nothing done: {exc}"), None
    if not settings.rag_enabled:
        drop_retrieved_section(paths)
        return RefreshOutcome("retrieval is off (rag_enabled=false); nothing to do"), settings
    if not index_exists(paths):
        return RefreshOutcome(NO_INDEX_MESSAGE), settings
    with _refresh_lock(paths) as held:
        if not held:
            return RefreshOutcome("another refresh is running; it will pick up the latest prompt"), settings
        outcome = RefreshOutcome("nothing done")
        for _ in range(MAX_CATCH_UP_ROUNDS):
            stamp = _prompt_stamp(paths)
            outcome = _refresh_once(paths, settings, started, progress)
            if _prompt_stamp(paths) == stamp:
                break
    record_last_refresh(paths, outcome.summary, outcome.seconds)
    return outcome, settings


def _continue_embedding(paths: ProjectPaths, settings: Settings,
                        progress: Progress | None = None) -> tuple[int, BaseException | None]:
    """Embed the chunks an interrupted build left without vectors, after the section is written;
    returns how many got a vector (0 when another process embeds or no model loads) and the
    failure that stopped it, if any (logged; the next refresh tries again).

    One embedder at a time (``state/embed.lock``); it lets go of the writer lock between
    batches, so the next prompts' refreshes still sync edited files.
    """
    with _refresh_lock(paths, "embed.lock") as held:
        if not held:
            return 0, None
        embedder, _ = load_embedder(paths, settings)
        if embedder is None:
            return 0, None
        try:
            return embed_backlog(paths, settings, embedder, progress=progress), None
        except Exception as exc:  # noqa: BLE001 - the next refresh tries again
            log_failure(paths, "refresh", exc)
            return 0, exc


def embedding_stopped(paths: ProjectPaths, exc: BaseException) -> str:
    """The refresh's words for embedding that stopped; a full disk says what to do and where."""
    line = f"embedding the chunks without vectors stopped ({exc}); they match by keywords until the next refresh"
    if store_mod.is_disk_full(exc):
        line += f"; free space on the disk holding {paths.paqad_dir} (see `df -h {paths.paqad_dir}`)"
    return line


def sync_failed_summary(paths: ProjectPaths, exc: BaseException) -> str:
    """The refresh's line for a failed sync; a full disk says what to do and where."""
    line = f"sync failed, previous index and section kept: {exc}"
    if store_mod.is_disk_full(exc):
        line += f"; free space on the disk holding {paths.paqad_dir} (see `df -h {paths.paqad_dir}`), then refresh again"
    return line


def _refresh_once(paths: ProjectPaths, settings: Settings, started: float,
                  progress: Progress | None = None) -> RefreshOutcome:
    embedder, degraded = load_embedder(paths, settings)
    if embedder is None:
        _log_refresh_warning(paths, degraded.words if degraded else "embedding model unavailable")
    round_ = _Round(paths, settings, degraded)
    try:
        done = search_within_budget(paths, settings, round_.ask, policy=REFRESH, embedder=embedder, degraded=degraded,
                                    progress=progress)
        if done.sync.error is not None:  # logged; a stale index was searched by keywords, any other failure stops
            log_failure(paths, "refresh", done.sync.error)
        if done.sync.state is SyncState.FAILED:  # keep the previous index and section
            return RefreshOutcome(sync_failed_summary(paths, done.sync.error), seconds=time.perf_counter() - started)
        return round_.write(done, started)
    except Exception as exc:  # noqa: BLE001 - keep the previous section
        log_failure(paths, "refresh", exc)
        if round_.synced is None:
            return RefreshOutcome(sync_failed_summary(paths, exc), seconds=time.perf_counter() - started)
        return RefreshOutcome(f"{round_.note}; search failed, previous section kept: {exc}",
                              seconds=time.perf_counter() - started)


class _Round:
    """One refresh round: the query, decided after the sync (:meth:`ask`), and the section it writes
    (:meth:`write`). ``degraded``: why the model is not there (the note of a round without a sync)."""

    def __init__(self, paths: ProjectPaths, settings: Settings, degraded: Degraded | None) -> None:
        self.paths, self.settings, self.degraded = paths, settings, degraded
        self.synced: SyncOutcome | None = None
        self.note = ""  # what the index reflects after the sync, then what went keyword-only
        self.empty = False  # the index holds no chunks (nothing indexable)
        self.query: Query | None = None
        self.intent = Intent(True)

    def ask(self, synced: SyncOutcome) -> SearchAsk | None:
        """After the sync: None (no search) for an index without chunks, no query, or a prompt
        that needs no retrieval (:mod:`paqad.deliver.intent`); else the query."""
        self.synced, self.note = synced, _sync_note(synced, self.degraded)
        self.empty = (synced.report.chunks_total if synced.report is not None else _chunks_in_index(self.paths)) == 0
        if self.empty:
            return None
        self.query = choose_query(self.paths, self.settings)
        if self.query is None:
            return None
        if self.query.source == "prompt":
            self.intent = classify(self.query.text, known_terms=index_terms(self.paths, None))
        return SearchAsk(self.query.text) if self.intent.needs_retrieval else None

    def write(self, done: BudgetedSearch, started: float) -> RefreshOutcome:
        """Write the section (or leave it out), check drift, and say what was done."""
        report, query = done.sync.report, self.query
        backlog = bool(report and report.pending)
        if query is None:
            write_section(self.paths.session_context, None)  # nothing to find: no section rather than noise
            _check_drift(self.paths, self.settings)
            if self.empty:
                return RefreshOutcome(f"{self.note}; the index holds no chunks (nothing indexable): section left out",
                                      wrote=True, seconds=time.perf_counter() - started)
            why = ("no uncommitted or branch changes in git" if in_git_work_tree(self.paths.root)
                   else "not a git repository, so no changed files to search for")
            return RefreshOutcome(f"{self.note}; nothing to search for (no prompt recorded, {why}): section left out",
                                  wrote=True, seconds=time.perf_counter() - started, backlog=backlog)
        threshold, relief = self.settings.rag_similarity_threshold, self.settings.rag_relief_floor
        if done.response is None:  # the prompt needs no retrieval
            outcome = FloorOutcome(NOTHING, (), None, threshold, relief)
            section = render_section(outcome, query.label, skipped=self.intent.reason)
        else:
            outcome, words = done.floor, done.response.degraded.words if done.response.degraded else None
            section = render_section(outcome, query.label, words, coverage=done.response.coverage)
        if done.model_failed:  # the model failed while embedding the query
            _log_refresh_warning(self.paths, done.response.degraded.words)
            self.note = f"{self.note}; {done.response.degraded.words}"
        write_section(self.paths.session_context, section)
        _check_drift(self.paths, self.settings)
        seconds = time.perf_counter() - started
        return RefreshOutcome(
            f"{self.note}; query from {query.source}; {outcome.form}: {len(outcome.results)} result(s) in {seconds:.2f}s",
            wrote=True, form=outcome.form, passages=len(outcome.results), seconds=seconds, backlog=backlog)


def _sync_note(synced: SyncOutcome, degraded: Degraded | None) -> str:
    """The refresh's words for its sync (the summary's first part)."""
    if synced.state is SyncState.NO_MODEL:  # keyword search on the last committed index
        return f"{degraded.words if degraded else None}; {NOT_SYNCED}"
    if synced.state is SyncState.STALE:  # never a whole rebuild on the side: keyword search, say what to run
        return f"{synced.error}; not synced"
    if synced.state is SyncState.BUSY:
        return "index busy (another writer), searched the last committed index"
    return synced.report.summary()


def _chunks_in_index(paths: ProjectPaths) -> int:
    with store_mod.open_store(paths, readonly=True) as store:
        return store.chunk_count()


def _check_drift(paths: ProjectPaths, settings: Settings) -> None:
    try:
        from paqad.deliver.drift import check_drift
    except ImportError:
        return
    try:
        check_drift(paths, settings)
    except Exception as exc:  # noqa: BLE001 - drift is best effort and silent offline
        log_failure(paths, "drift", exc)
