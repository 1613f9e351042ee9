"""Changes are detected as git does (issue 20.2): size, mtime, ctime and inode, and a racily
clean file (mtime not older than the last sync) is hashed again. An edit that keeps size and
mtime (``sed -i`` then ``touch -d "$old"``, as ``rsync -a``, ``cp -p`` and ``tar -x`` leave
files) is synced; schema v4 adds the columns in place, keeping every chunk and vector."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from conftest import git, run_cli

from paqad.build import sync
from paqad.config import load_settings
from paqad.embed.factory import get_embedder
from paqad.index.rows import FileRow
from paqad.index.sync import plan_sync
from paqad.project import ProjectPaths
from paqad.status import index_state
from paqad.store import SCHEMA_VERSION, open_store

OLD = "def shipping_rate(weight):\n    \"\"\"Flat shipping rate for a parcel: seven euros per kilogram.\"\"\"\n    return weight * 7\n"
NEW = OLD.replace("seven euros", "eight euros").replace("* 7", "* 8")
DAY_AGO_NS = time.time_ns() - 86_400 * 10**9


def _project(git_repo) -> Path:
    root = git_repo({"pyproject.toml": '[project]\nname = "parcels"\n', "src/rates.py": OLD})
    os.utime(root / "src/rates.py", ns=(DAY_AGO_NS, DAY_AGO_NS))  # an old file: not racily clean
    assert run_cli("rag", "init", "--provider", "local", project=root)[0] == 0
    return root


def _indexed_text(root: Path) -> str:
    with open_store(ProjectPaths(root), readonly=True) as store:
        ids = store.chunk_ids_of_files(["src/rates.py"])
        return "".join(c.text for c in store.chunks_by_id(ids).values())


def test_an_edit_that_keeps_size_and_mtime_is_synced(git_repo) -> None:
    root = _project(git_repo)
    target = root / "src/rates.py"
    assert len(NEW) == len(OLD)
    # sed -i: a new file renamed over the old one; then touch -d "$old"
    (root / "src/.rates.tmp").write_text(NEW, encoding="utf-8")
    os.replace(root / "src/.rates.tmp", target)
    os.utime(target, ns=(DAY_AGO_NS, DAY_AGO_NS))
    assert "src/rates.py" in git(root, "status", "--porcelain")
    code, out, err = run_cli("rag", "refresh-context", project=root)
    assert code == 0, err
    assert "eight euros" in _indexed_text(root)


def test_an_in_place_rewrite_with_the_old_mtime_is_synced(git_repo) -> None:
    root = _project(git_repo)
    target = root / "src/rates.py"
    inode = target.stat().st_ino
    with open(target, "r+", encoding="utf-8") as handle:  # cp -p over an existing file: same inode
        handle.write(NEW)
    os.utime(target, ns=(DAY_AGO_NS, DAY_AGO_NS))
    assert target.stat().st_ino == inode
    paths = ProjectPaths(root)
    settings = load_settings(paths)
    report = sync(paths, settings, get_embedder(settings, paths), allow_rebuild=False)
    assert (report.files_changed, report.embedded) == (1, 1)
    assert "eight euros" in _indexed_text(root)
    again = sync(paths, settings, get_embedder(settings, paths), allow_rebuild=False)
    assert (again.files_changed, again.changed) == (0, False)


def test_a_racily_clean_file_is_read_again(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n')
    target = root / "src/rates.py"
    target.write_text(OLD)
    st = target.stat()
    row = FileRow("src/rates.py", st.st_size, st.st_mtime_ns, "0" * 64, "python", 1, st.st_ctime_ns, st.st_ino)
    # recorded by a sync that started before the file's mtime (within the margin): read again
    racy = plan_sync(root, 10**6, {"src/rates.py": row}, full=False, synced_at_ns=st.st_mtime_ns)
    assert [d.path for d in racy.to_read] == ["src/rates.py"]
    clean = plan_sync(root, 10**6, {"src/rates.py": row}, full=False, synced_at_ns=st.st_mtime_ns + 3 * 10**9)
    assert [d.path for d in clean.to_read] == []


def _as_v3(db_file: Path) -> None:
    """Turn a v4 index into what schema v3 wrote (no files.ctime_ns / files.inode)."""
    db = sqlite3.connect(db_file)
    db.execute("ALTER TABLE files DROP COLUMN ctime_ns")
    db.execute("ALTER TABLE files DROP COLUMN inode")
    db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    db.execute("DELETE FROM meta WHERE key = 'synced_at_ns'")
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()


def test_a_v3_index_is_read_as_is_and_migrated_in_place_by_a_sync(git_repo) -> None:
    root = _project(git_repo)
    paths = ProjectPaths(root)
    _as_v3(paths.index_db)
    settings = load_settings(paths)
    assert index_state(paths, settings).valid  # readers need no migration: the hook, probe --no-sync
    with open_store(paths, readonly=True) as store:
        assert store.file_row("src/rates.py").ctime_ns == 0
        assert list(store.files()) == ["src/rates.py"]
    code, out, err = run_cli("rag", "probe", "shipping rate per kilogram", "--no-sync", "--json", project=root)
    assert code == 0 and '"src/rates.py"' in out, err
    report = sync(paths, settings, get_embedder(settings, paths), allow_rebuild=False)
    assert (report.full, report.files_changed, report.embedded) == (False, 0, 0)  # hashed again, nothing re-embedded
    with open_store(paths, readonly=True) as store:
        assert int(store.db.execute("PRAGMA user_version").fetchone()[0]) == SCHEMA_VERSION == 4
        assert store.file_row("src/rates.py").inode == (root / "src/rates.py").stat().st_ino
    assert index_state(paths, settings).valid
