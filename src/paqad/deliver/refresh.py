"""The background refresh behind every prompt (DESIGN §10) and the hook's in-budget answer.

``refresh_context``: sync changed files, choose the query, search, apply the floor, write the
``## Retrieved context`` section, check base drift. It never raises for an expected problem:
it returns a one-line reason instead, and logs failures under ``.paqad/logs/``; the previous
section is left as it was when anything fails.
"""

from __future__ import annotations

import fcntl
import logging
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator

from paqad import store as store_mod
from paqad.config import Settings, load_settings
from paqad.errors import NO_INDEX_MESSAGE, PaqadError
from paqad.project import ProjectPaths, index_exists
from paqad.build import IndexReport, sync
from paqad.deliver.delivery import deliver
from paqad.deliver.query import choose_query, prompt_words, read_last_prompt
from paqad.deliver.session_file import write_section
from paqad.search import load_embedder
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


def log_failure(paths: ProjectPaths, where: str, exc: BaseException) -> None:
    """Append a failure to ``.paqad/logs/<where>.log`` (best effort; never raises)."""
    try:
        paths.logs_dir.mkdir(parents=True, exist_ok=True)
        logger = logging.getLogger(f"paqad.{where}")
        if not logger.handlers:
            handler = logging.FileHandler(paths.logs_dir / f"{where}.log", encoding="utf-8")
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
            logger.addHandler(handler)
            logger.propagate = False
        logger.error("%s: %s", type(exc).__name__, exc, exc_info=not isinstance(exc, PaqadError))
    except Exception:  # noqa: BLE001 - logging must never break a refresh
        pass


@contextmanager
def _refresh_lock(paths: ProjectPaths) -> Iterator[bool]:
    """Non-blocking lock so that prompts in a row do not stack refreshes."""
    paths.state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(paths.state_dir / "refresh.lock", os.O_RDWR | os.O_CREAT, 0o644)
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
    log_failure(paths, "refresh", PaqadError(why))


def _prompt_stamp(paths: ProjectPaths) -> str | None:
    record = read_last_prompt(paths)
    return record.get("recorded_at") if record else None


def refresh_context(paths: ProjectPaths, settings: Settings | None = None) -> RefreshOutcome:
    """Sync, choose the query, search, write the section. Returns a one-line summary."""
    started = time.perf_counter()
    try:
        settings = settings or load_settings(paths)
    except PaqadError as exc:
        log_failure(paths, "refresh", exc)
        return RefreshOutcome(f"config error, nothing done: {exc}")
    if not settings.rag_enabled:
        return RefreshOutcome("retrieval is off (rag_enabled=false); nothing to do")
    if not index_exists(paths):
        return RefreshOutcome(NO_INDEX_MESSAGE)
    with _refresh_lock(paths) as held:
        if not held:
            return RefreshOutcome("another refresh is running; it will pick up the latest prompt")
        outcome = RefreshOutcome("nothing done")
        for _ in range(MAX_CATCH_UP_ROUNDS):
            stamp = _prompt_stamp(paths)
            outcome = _refresh_once(paths, settings, started)
            if _prompt_stamp(paths) == stamp:
                break
    record_last_refresh(paths, outcome.summary, outcome.seconds)
    return outcome


def _refresh_once(paths: ProjectPaths, settings: Settings, started: float) -> RefreshOutcome:
    embedder, degraded = load_embedder(paths, settings)
    report: IndexReport | None = None
    if embedder is None:
        # Keyword search on the last committed index; syncing needs the model for new chunks.
        _log_refresh_warning(paths, degraded or "embedding model unavailable")
        sync_note = f"{degraded}; {NOT_SYNCED}"
    else:
        try:
            report = sync(paths, settings, embedder, blocking=False)
        except Exception as exc:  # noqa: BLE001 - keep the previous index and section
            log_failure(paths, "refresh", exc)
            return RefreshOutcome(f"sync failed, previous index and section kept: {exc}", seconds=time.perf_counter() - started)
        sync_note = "index busy (another writer), searched the last committed index" if report is None else report.summary()
    try:
        if (report.chunks_total if report is not None else _chunks_in_index(paths)) == 0:
            write_section(paths.session_context, None)  # nothing to find: no section rather than noise
            _check_drift(paths, settings)
            return RefreshOutcome(f"{sync_note}; the index holds no chunks (nothing indexable): section left out",
                                  wrote=True, seconds=time.perf_counter() - started)
        query = choose_query(paths, settings)
        if query is None:
            write_section(paths.session_context, None)
            _check_drift(paths, settings)
            return RefreshOutcome(f"{sync_note}; nothing to search for (no prompt recorded, no uncommitted or branch "
                                  "changes in git): section left out", wrote=True,
                                  seconds=time.perf_counter() - started)
        delivery = deliver(paths, settings, query.text, query.label, embedder=embedder, degraded=degraded,
                           is_prompt=query.source == "prompt")
        if delivery.degraded and embedder is not None:  # the model failed while embedding the query
            _log_refresh_warning(paths, delivery.degraded)
            sync_note = f"{sync_note}; {delivery.degraded}"
        outcome = delivery.outcome
        write_section(paths.session_context, delivery.section)
        _check_drift(paths, settings)
    except Exception as exc:  # noqa: BLE001
        log_failure(paths, "refresh", exc)
        return RefreshOutcome(f"{sync_note}; search failed, previous section kept: {exc}", seconds=time.perf_counter() - started)
    seconds = time.perf_counter() - started
    return RefreshOutcome(
        f"{sync_note}; query from {query.source}; {outcome.form}: {len(outcome.results)} result(s) in {seconds:.2f}s",
        wrote=True, form=outcome.form, passages=len(outcome.results), seconds=seconds,
    )


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


def section_for_prompt(paths: ProjectPaths, settings: Settings, prompt: str, deadline: float,
                       warn: Callable[[str], None] | None = None) -> str | None:
    """The ``## Retrieved context`` section for ``prompt`` from the current index (no sync).

    Returns None when retrieval is off, there is no usable index, or ``deadline`` (a
    ``time.monotonic()`` value) passes before the answer is ready. Never fetches the model:
    without it the search is keyword-only, the section says so, and ``warn`` (default: the
    refresh log) gets the reason once.
    """
    if not settings.rag_enabled or not index_exists(paths) or not prompt.strip():
        return None
    with store_mod.open_store(paths, readonly=True) as store:
        if store.chunk_count() == 0:  # nothing indexable: no section rather than a "no matches" one
            return None
        embedder, degraded = load_embedder(paths, settings, fetch=False)
        if time.monotonic() > deadline:
            return None
        delivery = deliver(paths, settings, prompt, f"this prompt {prompt_words(prompt)}", embedder=embedder,
                           degraded=degraded, store=store)
    if delivery.degraded:
        (warn or (lambda why: _log_refresh_warning(paths, why)))(delivery.degraded)
    if time.monotonic() > deadline:
        return None
    return delivery.section
