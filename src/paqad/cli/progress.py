"""Build progress as plain lines, for stderr that is not a terminal (a CI log, a pipe, a file).

A terminal gets rich's bars (:class:`paqad.cli.rag_commands.BuildProgress`); anything else gets
one line per stage change and, while chunking or embedding runs, one line every
:data:`INTERVAL_SECONDS` (DESIGN §10: no long build is silent)::

    47 files eligible, 34 skipped (`paqad-ai rag status --explain .` says which and why)
    keyword search ready: 1,024 chunks (0 with vectors); embedding continues
    embedding 0/1,024 chunks
    embedding 420/1,024 chunks, 84/s, ~7s left
    embedding 1,024/1,024 chunks, 85/s, done in 12s
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

INTERVAL_SECONDS = 5.0


def duration(seconds: float) -> str:
    """``2m19s``, ``1h02m``, ``7s``: whole seconds, the two largest units."""
    seconds = max(0, int(round(seconds)))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


class PlainProgress:
    """A :data:`paqad.index.sync.Progress` callback that writes plain lines to ``stream``.

    ``interval``: seconds between two lines of the same stage (0: a line per tick, for tests);
    ``chatty=False`` (``probe``'s sync of edited files): no stage lines, and progress lines only
    once a stage has run for ``interval`` seconds, so a quick sync prints nothing;
    ``clock``: monotonic seconds.
    """

    def __init__(self, stream: TextIO | None = None, interval: float = INTERVAL_SECONDS,
                 clock: Callable[[], float] = time.monotonic, chatty: bool = True):
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.clock = clock
        self.chatty = chatty
        self.spoke: set[str] = set()
        self.started: dict[str, float] = {}
        self.last_line: dict[str, float] = {}
        self.finished: set[str] = set()

    def __enter__(self) -> "PlainProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def say(self, line: str) -> None:
        print(line, file=self.stream, flush=True)

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.chatty and stage not in ("chunk", "embed"):
            return
        if stage == "eligible":
            self.say(f"{done:,} files eligible, {total - done:,} skipped (`paqad-ai rag status --explain .` says which and why)")
        elif stage == "cached":
            self.say(f"{total:,} chunks to index: {done:,} from the embedding cache, {total - done:,} to embed")
        elif stage == "searchable":
            more = "; embedding continues" if done < total else ""
            self.say(f"keyword search ready: {total:,} chunks ({done:,} with vectors){more}")
        elif stage in ("chunk", "embed"):
            self._tick(stage, done, total)

    def _tick(self, stage: str, done: int, total: int) -> None:
        now = self.clock()
        if stage not in self.started or (done == 0 and stage in self.finished):
            self.started[stage] = now
            self.finished.discard(stage)
            self.last_line[stage] = now
            if stage == "embed" and total and self.chatty:
                self.say(f"embedding {done:,}/{total:,} chunks")
                self.spoke.add(stage)
            return
        if stage in self.finished:
            return
        if done >= total:
            self.finished.add(stage)
            if not self.chatty and stage not in self.spoke:
                return
        elif now - self.last_line[stage] < self.interval:
            return
        self.last_line[stage] = now
        self.spoke.add(stage)
        self.say(self.line(stage, done, total, now - self.started[stage]))

    @staticmethod
    def line(stage: str, done: int, total: int, elapsed: float) -> str:
        """``embedding 1,200/13,000 chunks, 85/s, ~2m19s left`` (or ``..., done in 2m33s``)."""
        if stage == "chunk":
            text = f"chunking {done:,}/{total:,} files"
            return text + (f", done in {duration(elapsed)}" if done >= total else "")
        rate = done / elapsed if elapsed > 0 else 0.0
        text = f"embedding {done:,}/{total:,} chunks, {rate:.0f}/s"
        if done >= total:
            return f"{text}, done in {duration(elapsed)}"
        if rate > 0:
            return f"{text}, ~{duration((total - done) / rate)} left"
        return text
