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

