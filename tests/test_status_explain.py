"""``rag status`` while no build is complete, and ``--explain`` for folders and for paths written
any way that stays inside the project (issue 14.6). Real index, real lock, real git repository."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import run_cli as run

from paqad.hosts.mcp_server import confine_path_prefix
from paqad.project import ProjectPaths
from paqad.store import open_store, write_lock

FILES = {
    "pyproject.toml": '[project]\nname = "shop"\nversion = "1.0"\ndescription = "a small shop"\n',
    "pkg/cart.py": (
        "class Cart:\n"
        '    """A shopping cart: items with quantities and a total price in cents."""\n\n'
        "    def add(self, sku, quantity=1):\n"
        "        self.items[sku] = self.items.get(sku, 0) + quantity\n"
    ),
    "pkg/prices.py": (
        "def total(prices, items):\n"
        '    """The price of every item times its quantity, summed, in cents."""\n'
        "    return sum(prices[sku] * n for sku, n in items.items())\n"
    ),
    "node_modules/left-pad/index.js": "module.exports = function leftPad(s, n) { return s.padStart(n, ' '); };\n",
}




@pytest.fixture
def project(git_repo) -> Path:
    return git_repo(FILES)


@pytest.fixture
def indexed(project: Path) -> Path:
    assert run("rag", "init", "--provider", "local", project=project)[0] == 0
    return project


def test_status_and_probe_while_the_first_build_runs(project: Path) -> None:
    paths = ProjectPaths(project)
    with write_lock(paths):  # what `rag init` holds while it builds: the index file exists, no build is complete
        open_store(paths, create=True).close()
        since = json.loads((paths.vectors_dir / "write.lock").read_text())["since"]
        code, out, _ = run("rag", "status", project=project)
        assert code == 0 and "None" not in out
        index_lines = [line for line in out.splitlines() if line.startswith("Index")]
        assert index_lines == [f"Index: first build running (pid {os.getpid()}); nothing to search until it finishes"]
        data = json.loads(run("rag", "status", "--json", project=project)[1])["index"]
        assert data["build_running"] == {"pid": os.getpid(), "since": since}
        assert (data["provider"], data["model"], data["stale_reasons"]) == (None, None, ["no complete build yet"])

        code, out, err = run("rag", "probe", "cart total", project=project)
        assert (code, out) == (2, "")
        assert err == (f"paqad-ai: error: the first index build is still running (pid {os.getpid()}); "
                       "nothing to search yet: try again when `paqad-ai rag status` shows it done\n")

    # The builder died before its first commit: say so, and what to run.
    out = run("rag", "status", project=project)[1]
    assert [line for line in out.splitlines() if line.startswith("Index")] == [
        "Index: no complete build yet (the first build was interrupted or failed); run `paqad-ai rag init` to finish it"]
    assert json.loads(run("rag", "status", "--json", project=project)[1])["index"]["build_running"] is None


def test_explain_a_folder_says_whether_the_walk_enters_it(indexed: Path) -> None:
    assert run("rag", "status", "--explain", "pkg", project=indexed)[1] == (
        "pkg/: a folder; the walk enters it and decides each file in it (2 indexed)\n")
    assert run("rag", "status", "--explain", "node_modules/", project=indexed)[1] == (
        "node_modules/: a folder the walk skips (ignore:default-dir); nothing under it is indexed\n")
    data = json.loads(run("rag", "status", "--explain", "pkg", "--json", project=indexed)[1])
    assert (data["path"], data["folder"], data["eligible"], data["indexed_files"]) == ("pkg/", True, True, 2)


def test_explain_a_folder_lists_what_it_skips_and_why(indexed: Path) -> None:
    # Seen on Textualize/rich: init said "224 skipped (see `rag status --json`)", the JSON gave
    # only counts per reason, and `--explain .` "(330 indexed)": nothing said which 180 files were
    # "minified" (benchmark result JSON files). A folder now lists them, per reason, most first.
    pkg = indexed / "pkg"
    (pkg / "empty.py").write_text("")
    (pkg / "blob.py").write_bytes(bytes(range(256)) * 8)
    for name in ("notes.txt", "todo.txt", "a.cfg", "b.ini"):
        (pkg / name).write_text("plain words about the shop and its carts\n" * 3)
    code, out, err = run("rag", "status", "--explain", "pkg", project=indexed)
    assert (code, err) == (0, "")
    assert out == (
        "pkg/: a folder; the walk enters it and decides each file in it (2 indexed, 6 skipped)\n"
        "  type:extension 4: pkg/a.cfg, pkg/b.ini, pkg/notes.txt (and 1 more; `--json` lists every path)\n"
        "  check:binary 1: pkg/blob.py\n"
        "  check:empty 1: pkg/empty.py\n")
    data = json.loads(run("rag", "status", "--explain", "pkg", "--json", project=indexed)[1])
    # the JSON has every path (round 7: a new user could not find out which was the "1 more")
    assert data["skipped"] == {"type:extension": {"count": 4, "paths": ["pkg/a.cfg", "pkg/b.ini", "pkg/notes.txt",
                                                                        "pkg/todo.txt"]},
                               "check:binary": {"count": 1, "paths": ["pkg/blob.py"]},
                               "check:empty": {"count": 1, "paths": ["pkg/empty.py"]}}
    # a folder the walk skips lists nothing under it (the one reason is the folder's)
    assert "skipped" not in json.loads(run("rag", "status", "--explain", "node_modules", "--json", project=indexed)[1])


def test_explain_accepts_any_spelling_inside_the_project(indexed: Path) -> None:
    for spelling in ("./pkg/../pkg/cart.py", "pkg//cart.py", str(indexed / "pkg" / ".." / "pkg" / "cart.py")):
        assert run("rag", "status", "--explain", spelling, project=indexed) == (0, "pkg/cart.py: indexed\n", "")


def test_explain_the_root_and_paths_from_a_subfolder(indexed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Seen on urfave/cli: `--explain .` said "no such file or folder in the project", and from
    # docs/ `--explain index.md` (docs/index.md) said the same, `--explain ../flag.go` "outside
    # the project": paths were read from the root whatever the current folder.
    assert run("rag", "status", "--explain", ".", project=indexed) == (
        0, "./: a folder; the walk enters it and decides each file in it (3 indexed, 1 skipped)\n"
           "  ignore:default-dir 1: node_modules/\n", "")
    monkeypatch.chdir(indexed / "pkg")
    assert run("rag", "status", "--explain", "cart.py", project=indexed) == (0, "pkg/cart.py: indexed\n", "")
    assert run("rag", "status", "--explain", "../pyproject.toml", project=indexed) == (0, "pyproject.toml: indexed\n", "")
    assert run("rag", "status", "--explain", "pkg/prices.py", project=indexed) == (0, "pkg/prices.py: indexed\n", "")
    assert run("rag", "status", "--explain", "..", project=indexed)[1].startswith("./: a folder;")


def test_probe_path_from_a_subfolder_is_read_from_there(indexed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Seen on tqdm: in tqdm/contrib/, `rag probe thread_map -p .` searched the whole project
    # (tqdm/_monitor.py second) while `--explain .` there meant tqdm/contrib/.
    (indexed / "shop.py").write_text('def cart_total_for_shop(cart):\n    """The cart total in cents."""\n'
                                     "    return sum(cart.values())\n")
    monkeypatch.chdir(indexed / "pkg")

    def paths_of(*args: str) -> set[str]:
        code, out, err = run("rag", "probe", "cart total", "--json", *args, project=indexed)
        assert code == 0, err
        return {r["path"] for r in json.loads(out)["results"]}

    assert paths_of("-p", ".") == {"pkg/cart.py", "pkg/prices.py"}
    assert paths_of("-p", "prices.py") == {"pkg/prices.py"}
    assert paths_of("-p", "pkg/cart.py") == {"pkg/cart.py"}  # not under pkg/: from the project root
    assert paths_of("-p", "..") == {"pkg/cart.py", "pkg/prices.py", "shop.py", "pyproject.toml"}


def test_explain_says_when_git_tracks_a_file_an_ignore_rule_matches(indexed: Path) -> None:
    # Seen on tqdm: `tests/` added to .gitignore, and tests/ stayed indexed with "indexed" and no
    # word of why (git never ignores a tracked file; paqad-ai follows git).
    (indexed / ".gitignore").write_text("pkg/*.py\n!pkg/prices.py\nextra/\n")
    (indexed / "extra").mkdir()
    (indexed / "extra" / "tool.py").write_text('def extra_tool(cart):\n    """An extra tool of the shop: it counts '
                                               'the items of a cart."""\n    return len(cart.items)\n')
    (indexed / ".paqad" / "rag.ignore.yaml").write_text('include: ["extra/**"]\n')
    assert run("rag", "status", "--explain", "pkg/cart.py", project=indexed) == (0, (
        "pkg/cart.py: indexed (git tracks it, so the ignore rule .gitignore:1:pkg/*.py does not apply, as in git: "
        "`git rm --cached` it, or exclude it in .paqad/rag.ignore.yaml)\n"), "")
    assert json.loads(run("rag", "status", "--explain", "pkg/cart.py", "--json", project=indexed)[1])[
        "tracked_despite"] == ".gitignore:1:pkg/*.py"
    assert run("rag", "status", "--explain", "pkg/prices.py", project=indexed)[1] == "pkg/prices.py: indexed\n"
    # ignored and untracked, let in by an include: glob: not git's doing, no note
    assert run("rag", "status", "--explain", "extra/tool.py", project=indexed)[1] == (
        "extra/tool.py: eligible, but not in the index yet; the next sync (refresh-context, probe) adds it\n")


def test_one_wording_for_paths_outside_the_project(indexed: Path) -> None:
    root = indexed.resolve()
    for value in ("../elsewhere.py", "pkg/../../elsewhere.py", "/etc/passwd"):
        assert run("rag", "status", "--explain", value, project=indexed) == (
            2, "", f"paqad-ai: error: --explain {value}: outside the project {root}\n")
        assert run("rag", "probe", "cart", "--path", value, project=indexed) == (
            2, "", f"paqad-ai: error: --path {value}: outside the project {root}\n")
        with pytest.raises(ValueError) as err:
            confine_path_prefix(root, value)
        assert str(err.value) == f"path_prefix {value}: outside the project {root}"
    assert run("rag", "status", "--explain", "pkg/nope.py", project=indexed) == (
        2, "", "paqad-ai: error: --explain pkg/nope.py: no such file or folder in the project\n")


def test_status_of_an_unreadable_index_says_so(project: Path) -> None:
    paths = ProjectPaths(project)
    paths.vectors_dir.mkdir(parents=True)
    paths.index_db.write_bytes(b"\x00garbage" * 100)
    out = run("rag", "status", project=project)[1]
    assert [line for line in out.splitlines() if line.startswith("Index")] == [
        "Index: stale: index unreadable: .paqad/vectors/index.sqlite: index is unreadable (file is not a database); "
        "run `paqad-ai rag rebuild`"]
