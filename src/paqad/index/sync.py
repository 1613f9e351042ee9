"""The index side of a sync (DESIGN §10): plan what changed, then chunk it.

A sync runs four steps; the first two live here and touch neither the model nor the database:

1. :func:`plan_sync`: walk the project (:func:`~paqad.index.discover.discover`) and compare every
   eligible file's stat with what the index recorded, as git does (size, mtime, ctime, inode;
   a racily clean file, one whose mtime is not older than the last sync, is read again), so an
   unchanged file is never read and an edit that keeps size and mtime is still seen;
2. :func:`chunk_changed`: read the files whose stat moved, skip those whose content hash is
   unchanged (only their row is refreshed), and cut the rest into chunks;
3. embed what the embedding cache lacks, and 4. apply the change set in one transaction
   (:func:`paqad.build.sync` runs both with :mod:`paqad.embed` and :mod:`paqad.store`).

Example::

    plan = plan_sync(root, 153600, known={}, full=True, synced_at_ns=0)
    files = chunk_changed(root, plan, known={})
    print(len(files.changed), sum(len(c) for _, c in files.changed))   # 47 1024
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from paqad.index.chunking import Chunk, chunk_file
from paqad.index.discover import Discovery, discover
from paqad.index.filters import FilterDecision, looks_hand_written
from paqad.index.fs_names import fs_name
from paqad.index.languages import language_for_file
from paqad.index.redact import redact_credentials
from paqad.index.rows import FileRow, is_racily_clean  # FileRow lives there so the store can import it cheaply

# (stage, done, total). Bar stages: "discover", "chunk", "embed". Info stages, sent once:
# "eligible" (eligible files, files seen) and "cached" (chunks found in the cache, chunks to embed).
Progress = Callable[[str, int, int], None]

MAX_LARGE_CHECKED = 50  # too-large files read to tell hand-written source from generated data


@dataclass(frozen=True)
class SyncPlan:
    """What a sync must look at.

    ``discovery``: the walk; ``full``: rebuild everything; ``removed``: indexed paths that are no
    longer eligible (deleted, now ignored or filtered out); ``to_read``: eligible files whose size
    or mtime differ from the index (every eligible file when ``full``); ``large_sources``: files
    skipped as larger than ``rag_max_file_size`` that look hand-written, as (path, bytes).
    """

    discovery: Discovery
    full: bool
    removed: tuple[str, ...]
    to_read: tuple[FilterDecision, ...]
    large_sources: tuple[tuple[str, int], ...] = ()
    not_utf8: tuple[str, ...] = ()  # files skipped as not valid UTF-8 (check:not-utf8), named by init and status


@dataclass(frozen=True)
class ChunkedFiles:
    """The outcome of :func:`chunk_changed`.

    ``changed``: files whose content changed, with their chunks in line order; ``touched``:
    files whose bytes are unchanged (only their stat moved, or they were racily clean); ``chunk_errors``: files the chunker
    failed on (left out, counted as ``index:chunk-error``).
    """

    changed: tuple[tuple[FileRow, tuple[Chunk, ...]], ...]
    touched: tuple[FileRow, ...]
    chunk_errors: int = 0


def plan_sync(root: Path, max_file_size: int, known: Mapping[str, FileRow], full: bool,
              synced_at_ns: int = 0) -> SyncPlan:
    """Walk ``root`` and decide which files a sync must read; ``max_file_size`` in bytes.

    ``known`` holds the index's file rows (empty for a full build); ``synced_at_ns`` is when the
    sync that recorded them started (``time.time_ns()``, 0: unknown): a file whose mtime is not
    older than that (:func:`~paqad.index.rows.is_racily_clean`) is read again even if its stat
    matches. Raises PaqadError like :func:`~paqad.index.discover.discover`.
    """
    stats = {path: row.stat_key for path, row in known.items() if not is_racily_clean(row.mtime_ns, synced_at_ns)}
    found = discover(root, max_file_size=max_file_size, known=stats)
    eligible = {d.path for d in found.eligible}
    removed = tuple(sorted(set(known) - eligible))
    to_read = tuple(
        d for d in found.eligible
        if full or stats.get(d.path) != (d.size, d.mtime_ns, d.ctime_ns, d.inode)
    )
    too_large = [d for d in found.rejected if d.reason == "check:too-large"][:MAX_LARGE_CHECKED]
    large = tuple((d.path, d.size) for d in too_large if looks_hand_written(root / fs_name(d.path)))
    not_utf8 = tuple(d.path for d in found.rejected if d.reason == "check:not-utf8")
    return SyncPlan(found, full, removed, to_read, large, not_utf8)


def chunk_changed(
    root: Path, plan: SyncPlan, known: Mapping[str, FileRow], tick: Progress | None = None
) -> ChunkedFiles:
    """Read and chunk the files of ``plan.to_read``; ``tick("chunk", done, total)`` reports progress.

    A file that vanished or became unreadable since the walk is skipped (the next sync picks it
    up); one the chunker fails on is counted, never fatal.
    """
    report = tick or (lambda stage, done, total: None)
    total = len(plan.discovery.eligible)
    changed: list[tuple[FileRow, tuple[Chunk, ...]]] = []
    touched: list[FileRow] = []
    errors = 0
    for i, decision in enumerate(plan.to_read):
        old = None if plan.full else known.get(decision.path)
        try:
            data = (root / fs_name(decision.path)).read_bytes()
        except OSError:
            continue
        digest = hashlib.sha256(data).hexdigest()
        if old and old.sha256 == digest:  # the language its chunks were cut as (a .h may be cpp)
            touched.append(FileRow(decision.path, len(data), decision.mtime_ns, digest, old.language, old.chunk_count,
                                   decision.ctime_ns, decision.inode))
            continue
        # Credentials in the file never reach the index, the model, the team store or the agent.
        text = redact_credentials(data.decode("utf-8", errors="replace").removeprefix("\ufeff"))
        language = language_for_file(decision.path, text)  # (a C++ header named .h: measured, left off)
        try:
            chunks = tuple(chunk_file(decision.path, text, language))
        except Exception:  # noqa: BLE001 - one bad file never stops a build
            errors += 1
            continue
        row = FileRow(decision.path, len(data), decision.mtime_ns, digest, language, len(chunks), decision.ctime_ns, decision.inode)
        changed.append((row, chunks))
        report("chunk", i + 1, total)
    report("chunk", total, total)
    return ChunkedFiles(tuple(changed), tuple(touched), errors)


def size_to_include(sizes: list[int]) -> int:
    """The smallest ``rag_max_file_size`` (bytes, rounded up to 10 KiB) that includes every size."""
    step = 10 * 1024
    return -(-max(sizes) // step) * step


def large_sources_note(large: list[tuple[str, int]] | tuple[tuple[str, int], ...], max_file_size: int,
                       too_large: int = 0) -> str | None:
    """One line naming every skipped hand-written source file (``large``: (path, bytes), none left
    out: issue 24 wants each one named) and the setting that includes them. ``too_large``: every
    file the size check rejected (``check:too-large``), so the line also says how many others over
    the cap were judged generated or not source, and where they are listed. None when nothing is over."""
    others = max(too_large - len(large), 0)
    if not large and not others:
        return None
    why = ("look generated or are not source" if too_large <= MAX_LARGE_CHECKED else
           f"look generated, are not source or were not checked (the first {MAX_LARGE_CHECKED} are)")
    cap = "other file(s) over the cap" if large else f"file(s) over rag_max_file_size={max_file_size}"
    rest = (f"{others:,} {cap} {why}, "
            "so are not named here (`paqad-ai rag status --explain . --json` lists them)") if others else ""
    if not large:
        return rest
    shown = ", ".join(f"{path} ({size / 1024:,.0f} KB)" for path, size in large)
    return (f"{len(large):,} source file(s) larger than rag_max_file_size={max_file_size} were skipped: {shown}; "
            f"run `paqad-ai config set rag_max_file_size {size_to_include([s for _, s in large])}` to index them"
            + (f"; {rest}" if rest else ""))


NOT_UTF8_SHOWN = 10  # files a not-UTF-8 line names; `rag status --explain . --json` lists every one


def not_utf8_note(files: list[str] | tuple[str, ...]) -> str | None:
    """One line naming the files skipped as not valid UTF-8 (a Latin-1 source: round 8, a new user
    found it skipped without a word) and how to index them; None when there are none."""
    if not files:
        return None
    shown = ", ".join(files[:NOT_UTF8_SHOWN])
    more = (f" and {len(files) - NOT_UTF8_SHOWN:,} more (`paqad-ai rag status --explain . --json` lists them)"
            if len(files) > NOT_UTF8_SHOWN else "")
    return (f"{len(files):,} file(s) not valid UTF-8 were skipped: {shown}{more}; paqad-ai indexes UTF-8 text only: "
            "convert them (`iconv -f latin1 -t utf-8`, or the encoding they were written in) to index them")


def chunk_project(root: Path, max_file_size: int) -> list[Chunk]:
    """Every chunk a full build of ``root`` would index (no model, no database)."""
    files = chunk_changed(root, plan_sync(root, max_file_size, {}, full=True), {})
    return [chunk for _, chunks in files.changed for chunk in chunks]
