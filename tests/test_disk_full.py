"""A refresh whose sync hits a full disk says what to do and names the folder (issue 20 leftovers)."""

from __future__ import annotations

import os
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


def test_a_full_disk_in_a_store_write_is_an_enospc_naming_the_index_and_rolls_back(tmp_path: Path) -> None:
    # Seen on a tmpfs (newcomer round 7): `rag init` said "internal error (a bug in paqad-ai ...):
    # OperationalError: database or disk is full", exit 1. SQLite's SQLITE_FULL, here from a
    # database capped at its current size (PRAGMA max_page_count), is the disk's ENOSPC.
    import errno

    from paqad import store as store_mod

    paths = ProjectPaths(tmp_path)
    with store_mod.open_store(paths, create=True) as store:
        store.apply(store_mod.ChangeSet(full=True, meta={"note": "before"}))
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(OSError) as caught:
            store.apply(store_mod.ChangeSet(full=True, meta={"note": "x" * 200_000}))
        assert (caught.value.errno, caught.value.filename) == (errno.ENOSPC, str(paths.index_db))
        assert store_mod.is_disk_full(caught.value)
        assert store.meta()["note"] == "before"  # rolled back: the committed index is unchanged
    assert sync_failed_summary(paths, caught.value) == (
        f"sync failed, previous index and section kept: [Errno 28] No space left on device: '{paths.index_db}'"
        f"; free space on the disk holding {tmp_path / '.paqad'} (see `df -h {tmp_path / '.paqad'}`), then refresh again")


def test_an_atomic_write_that_fails_names_the_file_not_nothing(tmp_path: Path) -> None:
    # `rag init` on a full disk said "cannot use: No space left on device" (no file): the write
    # of the temp file names none. Here the write fails for its size (RLIMIT_FSIZE, EFBIG).
    import subprocess
    import sys

    target = tmp_path / ".paqad" / ".config"
    code = ("import resource, signal, sys\nfrom pathlib import Path\nfrom paqad.atomic import write_text_atomic\n"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\nresource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
            "try:\n    write_text_atomic(Path(sys.argv[1]), 'x' * 100_000)\n"
            "except OSError as exc:\n    print(exc.errno, exc.filename)\n")
    done = subprocess.run([sys.executable, "-c", code, str(target)], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["27", str(target)]  # EFBIG, the file the user knows
    assert sorted(p.name for p in target.parent.iterdir()) == []  # no temp file left


def _can_mount_tmpfs(folder: Path) -> bool:
    import subprocess

    folder.mkdir(parents=True, exist_ok=True)
    return os.geteuid() == 0 and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=450k", "tmpfs", str(folder)], capture_output=True).returncode == 0


def test_init_and_refresh_on_a_full_disk_say_where_to_free_space(tmp_path: Path) -> None:
    # The whole path on a real full disk (a 450 KB tmpfs under .paqad/: room for the keyword
    # index, not for the vectors): one line naming the file and `df -h`, exit 2, no traceback;
    # the refresh says embedding stopped, rather than nothing (or logging's traceback).
    import subprocess

    from conftest import run_cli, write_files

    root = tmp_path / "proj"
    write_files(root, {"pyproject.toml": '[project]\nname = "bulk"\n', **{
        f"src/bulk/tier_{n}.py": "".join(f"def tier_{n}_{k}(x):\n    \"\"\"Wholesale tier {n}.{k} for {k} pallets.\"\"\"\n"
                                         f"    return x * {k} + {n}\n\n\n" for k in range(40)) for n in range(30)}})
    paqad_dir = root / ".paqad"
    if not _can_mount_tmpfs(paqad_dir):
        pytest.skip("needs root and a tmpfs mount")
    try:
        code, out, err = run_cli("rag", "init", "--provider", "local", "--yes", project=root)
        vectors = paqad_dir / "vectors"
        assert code == 2 and "Traceback" not in err and "internal error" not in err
        assert err.splitlines()[-1] == (
            f"paqad-ai: error: cannot use {vectors / 'index.sqlite'}: No space left on device; free space on the disk "
            f"holding {vectors} (see `df -h {vectors}`), then run the command again (the committed index is unchanged)")
        code, out, err = run_cli("rag", "refresh-context", project=root)
        assert code == 0 and "Traceback" not in err and "Logging error" not in err
        assert err.splitlines()[-1] == (
            f"embedding the chunks without vectors stopped ([Errno 28] No space left on device: '{vectors / 'index.sqlite'}'); "
            f"they match by keywords until the next refresh; free space on the disk holding {paqad_dir} "
            f"(see `df -h {paqad_dir}`)")
    finally:
        subprocess.run(["umount", "-l", str(paqad_dir)], capture_output=True)
