"""``rag status --explain PATH`` says "changed on disk since" by the sync's own rule (index/rows.py
``stat_key_of``, racily clean files hashed): an edit keeping size and mtime is a change, a touch
that keeps the bytes is not."""

from __future__ import annotations

import os
import time
from pathlib import Path

from conftest import run_cli

OLD = "def shipping_rate(weight):\n    \"\"\"Flat shipping rate for a parcel: seven euros per kilogram.\"\"\"\n    return weight * 7\n"
NEW = OLD.replace("seven euros", "eight euros").replace("* 7", "* 8")
DAY_AGO_NS = time.time_ns() - 86_400 * 10**9
CHANGED = "src/rates.py: indexed; changed on disk since"


def _project(git_repo) -> Path:
    root = git_repo({"pyproject.toml": '[project]\nname = "parcels"\n', "src/rates.py": OLD})
    os.utime(root / "src/rates.py", ns=(DAY_AGO_NS, DAY_AGO_NS))  # an old file: not racily clean
    assert run_cli("rag", "init", "--provider", "local", project=root)[0] == 0
    return root


def _explain(root: Path) -> str:
    code, out, err = run_cli("rag", "status", "--explain", "src/rates.py", project=root)
    assert code == 0, err
    return out.strip()


def test_an_edit_that_keeps_size_and_mtime_is_changed_and_a_touch_is_not(git_repo) -> None:
    root = _project(git_repo)
    target = root / "src/rates.py"
    assert _explain(root) == "src/rates.py: indexed"
    os.utime(target, ns=(time.time_ns(), time.time_ns()))  # touch: same bytes, the sync only re-stats it
    assert _explain(root) == "src/rates.py: indexed"
    (root / "src/.rates.tmp").write_text(NEW, encoding="utf-8")  # sed -i, then touch -d "$old"
    os.replace(root / "src/.rates.tmp", target)
    os.utime(target, ns=(DAY_AGO_NS, DAY_AGO_NS))
    assert _explain(root).startswith(CHANGED)
