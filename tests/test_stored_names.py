"""Stored paths (UTF-8 text) reach the file system and the query text safely whatever the locale
(edges-index "Left / known"): the MCP grep opens a non-ASCII stored name under an ASCII file system
encoding, and a changed file whose name is not UTF-8 does not break the refresh's search."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import build_index, git

# An ASCII file system encoding: the C locale without Python's UTF-8 mode or locale coercion.
ASCII = {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
NON_ASCII_NAME = "src/café_日本.js"

GREP_SCRIPT = """
import json, sys
from pathlib import Path
from paqad.hosts.mcp_tools import compile_pattern, grep_files, check_prefix
root = Path(sys.argv[1])
name = "src/caf\\u00e9_\\u65e5\\u672c.js"  # the script itself stays ASCII for the C locale's argv
check_prefix(root, "src", [name])
matches, searched, truncated = grep_files(root, [name], compile_pattern("espresso", False, False), 10)
print(json.dumps([[m.path, m.line, m.text] for m in matches] + [searched, truncated], ensure_ascii=True))
"""


def ascii_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "LANG", "LC_ALL", "LC_CTYPE", "PYTHONUTF8")}
    env.update(ASCII)
    return env


def test_mcp_grep_opens_a_non_ascii_stored_name_under_an_ascii_file_system_encoding(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    with open(os.fsencode(tmp_path) + b"/" + NON_ASCII_NAME.encode("utf-8"), "wb") as handle:
        handle.write(b"const a = 1;\n// pull the espresso shot\n")
    proc = subprocess.run([sys.executable, "-c", GREP_SCRIPT, str(tmp_path)], capture_output=True, timeout=60,
                          env=ascii_env(), cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().strip() == '[["src/caf\\u00e9_\\u65e5\\u672c.js", 2, "// pull the espresso shot"], 1, false]'


def test_a_changed_file_whose_name_is_not_utf8_does_not_break_the_refresh(tmp_path: Path, paqad_home: Path) -> None:
    from paqad.deliver.query import choose_query
    from paqad.config import load_settings
    from paqad.project import ProjectPaths

    root = build_index(tmp_path / "brew", {
        "package.json": '{"name": "brew", "version": "1.0.0"}\n',
        "src/main.js": "function brewEspressoShots(cups) {\n  // the espresso machine pauses after twenty cups\n  return cups * 2;\n}\n",
    }, paqad_home)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    with open(os.fsencode(root) + b"/src/caf\xe9_espresso.js", "wb") as handle:
        handle.write(b"function pauseMachine() { return 1; }\n")
    paths = ProjectPaths(root)
    query = choose_query(paths, load_settings(paths))
    assert query is not None and query.text == "Changed files: src/caf\\xe9_espresso.js\ncaf xe 9 espresso"
    proc = subprocess.run([str(Path(sys.executable).parent / "paqad-ai"), "rag", "refresh-context", "--project-root", str(root)],
                          capture_output=True, timeout=120, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert b"TextInputSequence" not in proc.stderr and b"search failed" not in proc.stderr, proc.stderr
    section = paths.session_context.read_text(encoding="utf-8")
    assert "changed files (1): src/caf\\xe9_espresso.js" in section and "src/main.js" in section, section
