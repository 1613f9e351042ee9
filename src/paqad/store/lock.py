"""One writer at a time: an exclusive ``flock`` on ``.paqad/vectors/write.lock`` (DESIGN §11)."""

from __future__ import annotations

import fcntl
import json
import os
import time
from contextlib import contextmanager
from typing import Iterator

from paqad.project import ProjectPaths


@contextmanager
def write_lock(paths: ProjectPaths, *, blocking: bool = True) -> Iterator[bool]:
    """Hold the single-writer lock (``flock`` on ``.paqad/vectors/write.lock``).

    Yields True when held; with ``blocking=False`` yields False at once if another writer has it.
    The OS releases the lock if the process dies, so a killed build never leaves it stuck.
    """
    paths.vectors_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(paths.vectors_dir / "write.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps({"pid": os.getpid(), "since": time.time()}).encode())
        except OSError:
            pass
        yield True
    finally:
        os.close(fd)



def current_writer(paths: ProjectPaths) -> dict | None:
    """``{"pid", "since"}`` (epoch seconds) of the process holding the writer lock, or None.

    The lock file keeps the last holder's record; it counts only while that process lives and
    the lock is taken (checked with a shared, non-blocking ``flock`` released at once).
    """
    path = paths.vectors_dir / "write.lock"
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
