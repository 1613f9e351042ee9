"""The atomic writer cleans up after a writer killed between its temp write and its rename
(a SIGTERM runs no ``finally``): the next write of the same target removes the old temp files,
and only those (a concurrent writer's fresh temp file and other targets' files are kept)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from paqad.atomic import write_text_atomic

# Killed after mkstemp + write, before os.replace: what a SIGTERM in that window leaves.
KILLED_WRITER = """
import os, signal, sys, tempfile
from pathlib import Path
target = Path(sys.argv[1])
fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
os.write(fd, b"half")
os.kill(os.getpid(), signal.SIGTERM)
"""


def test_the_next_write_removes_a_killed_writers_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "context" / "session-context.md"
    write_text_atomic(target, "old\n")
    proc = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(target)], timeout=30)
    assert proc.returncode == -signal.SIGTERM
    (left,) = target.parent.glob(".session-context.md.*.tmp")
    hour_ago = time.time() - 3600
    os.utime(left, (hour_ago, hour_ago))
    fresh = target.parent / ".session-context.md.concurrent.tmp"  # another writer, mid-write
    fresh.write_bytes(b"new")
    other = target.parent / ".last-prompt.json.abc.tmp"  # another target's leftover
    other.write_bytes(b"x")
    os.utime(other, (hour_ago, hour_ago))
    write_text_atomic(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert sorted(p.name for p in target.parent.iterdir()) == [
        ".last-prompt.json.abc.tmp", ".session-context.md.concurrent.tmp", "session-context.md"]
