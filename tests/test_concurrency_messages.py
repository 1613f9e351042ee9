"""A second writer says at once that it waits, for whom, and when it got the lock (issue 14.8).

The first writer is this test process holding the real ``flock`` (as ``rag init`` does while it
builds); the second is a real ``paqad-ai rag init`` / ``rebuild`` in a subprocess."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from paqad.cli.main import main
from paqad.project import ProjectPaths
from paqad.store import write_lock

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")
FILES = {
    "pyproject.toml": '[project]\nname = "shop"\nversion = "1.0"\ndescription = "a small shop"\n',
    "src/shop/cart.py": (
        "class Cart:\n"
        '    """A shopping cart: items with quantities and a total price in cents."""\n\n'
        "    def add(self, sku, quantity=1):\n"
        "        self.items[sku] = self.items.get(sku, 0) + quantity\n"
    ),
}


def read_line_within(proc: subprocess.Popen, seconds: float) -> str:
    """The next stderr line of ``proc``, or "" if none arrives within ``seconds``."""
    ready, _, _ = select.select([proc.stderr], [], [], seconds)
    return proc.stderr.readline().decode() if ready else ""


@pytest.mark.parametrize("command", [["rag", "init", "--provider", "local", "--rebuild"], ["rag", "rebuild"]])
def test_second_writer_says_it_waits_and_when_it_got_the_lock(git_repo, command: list[str]) -> None:
    project = git_repo(FILES)
    assert main(["rag", "init", "--provider", "local", "--project-root", str(project)]) == 0
    paths = ProjectPaths(project)
    with write_lock(paths, job="building the index"):
        since = json.loads((paths.vectors_dir / "write.lock").read_text())["since"]
        started = datetime.fromtimestamp(since, timezone.utc).strftime("%H:%M:%S UTC")
        proc = subprocess.Popen([PAQAD_AI, *command, "--project-root", str(project)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=project)
        lines = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(line.startswith("Waiting") for line in lines):
            line = read_line_within(proc, deadline - time.monotonic())
            if not line:
                break
            lines.append(line)
        assert proc.poll() is None  # still waiting: this process holds the lock
        assert lines[-1] == (f"Waiting for another paqad-ai process (pid {os.getpid()}, building the index since "
                             f"{started}) to release .paqad/vectors/write.lock; it goes on by itself when that is done\n")
        time.sleep(0.5)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    got = re.search(r"^Got the index lock after (\d+\.\d)s; going on\n", err.decode(), re.M)
    assert got and float(got.group(1)) >= 0.5


def test_a_free_lock_says_nothing(git_repo) -> None:
    project = git_repo(FILES)
    proc = subprocess.run([PAQAD_AI, "rag", "init", "--provider", "local", "--project-root", str(project)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert "Waiting" not in proc.stderr and "Got the index lock" not in proc.stderr
