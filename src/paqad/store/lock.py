"""One writer at a time: an exclusive ``flock`` on ``.paqad/vectors/write.lock`` (DESIGN §11)."""

from __future__ import annotations

import fcntl
import json
import os
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Callable, Iterator

from paqad.project import ProjectPaths


LOCK_NAME = "write.lock"


@contextmanager
def write_lock(paths: ProjectPaths, *, blocking: bool = True, job: str = "writing the index",
               notify: Callable[[str], None] | None = None) -> Iterator[bool]:
    """Hold the single-writer lock (``flock`` on ``.paqad/vectors/write.lock``).

    Yields True when held; with ``blocking=False`` yields False at once if another writer has it.
    A blocking wait first tries without blocking: when another writer holds the lock,
    ``notify`` hears at once who (pid, ``job``, since when) and, once the lock is ours, how long
    the wait took. ``job`` (e.g. ``"building the index"``) is recorded for the next one to wait.
    The OS releases the lock if the process dies, so a killed build never leaves it stuck.
    """
    paths.vectors_dir.mkdir(parents=True, exist_ok=True)
    path = paths.vectors_dir / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not blocking:
                yield False
                return
            waited = time.monotonic()
            if notify:
                notify(f"Waiting for {_holder(path)} to release .paqad/vectors/{LOCK_NAME}; "
                       "it goes on by itself when that is done")
            fcntl.flock(fd, fcntl.LOCK_EX)
            if notify:
                notify(f"Got the index lock after {time.monotonic() - waited:.1f}s; going on")
        try:
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps({"pid": os.getpid(), "since": time.time(), "job": job}).encode())
        except OSError:
            pass
        yield True
    finally:
        os.close(fd)


def _holder(path) -> str:
    """Who holds the lock, from its record: ``another paqad-ai process (pid 12, building the index since 10:41:07 UTC)``."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        since = datetime.fromtimestamp(float(record["since"]), timezone.utc).strftime("%H:%M:%S UTC")
        return f"another paqad-ai process (pid {int(record['pid'])}, {record.get('job') or 'writing the index'} since {since})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another paqad-ai process"



def current_writer(paths: ProjectPaths) -> dict | None:
    """``{"pid", "since"}`` (epoch seconds) of the process holding the writer lock, or None.

    The lock file keeps the last holder's record; it counts only while that process lives and
    the lock is taken (checked with a shared, non-blocking ``flock`` released at once).
    """
    path = paths.vectors_dir / LOCK_NAME
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        pid = int(record["pid"])
        os.kill(pid, 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return {"pid": pid, "since": record.get("since")}
    else:
        return None
    finally:
        os.close(fd)  # also releases a shared lock taken above
