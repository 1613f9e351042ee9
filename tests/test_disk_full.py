"""A refresh whose sync hits a full disk says what to do and names the folder (issue 20 leftovers)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from paqad.deliver.refresh import sync_failed_summary
from paqad.project import ProjectPaths


def _sqlite_full_error(tmp_path: Path) -> sqlite3.Error:
    """SQLite's own SQLITE_FULL: a database capped at a few pages, filled."""
    db = sqlite3.connect(tmp_path / "capped.db")
    db.execute("PRAGMA max_page_count = 3")
    db.execute("CREATE TABLE t (x BLOB)")
    with pytest.raises(sqlite3.OperationalError) as caught:
        for _ in range(100):
            db.execute("INSERT INTO t VALUES (zeroblob(4096))")
    db.close()
    return caught.value


def _enospc_error() -> OSError:
    """The kernel's ENOSPC: /dev/full refuses every write."""
    with pytest.raises(OSError) as caught:
        with open("/dev/full", "wb", buffering=0) as handle:
            handle.write(b"x")
    return caught.value


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_names_the_folder_to_free_space_on(tmp_path: Path) -> None:
    paths = ProjectPaths(tmp_path)
    advice = f"; free space on the disk holding {tmp_path / '.paqad'} (see `df -h {tmp_path / '.paqad'}`), then refresh again"
    assert sync_failed_summary(paths, _sqlite_full_error(tmp_path)) == (
        "sync failed, previous index and section kept: database or disk is full" + advice)
    assert sync_failed_summary(paths, _enospc_error()) == (
        "sync failed, previous index and section kept: [Errno 28] No space left on device" + advice)
    assert sync_failed_summary(paths, sqlite3.OperationalError("database is locked")) == (
        "sync failed, previous index and section kept: database is locked")
