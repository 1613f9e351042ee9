"""No command crashes on the console's encoding (issue 14.2): a Windows code page
(``PYTHONIOENCODING=cp1252``) or a plain ASCII C locale, with passages, queries and prompts
holding ``☕`` and other non-ASCII text. The prompt hook always answers in UTF-8 JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ANSWER_BUDGET_MS, build_index

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")

FILES = {
    "pyproject.toml": '[project]\nname = "cafe"\nversion = "1.0"\ndescription = "orders at the café"\n',
    "README.md": (
        "# Coffee ☕ café\n\n"
        "The espresso machine needs a pause after every twenty cups ☕; the barista cleans it then.\n"
    ),
    "src/cafe/orders.py": (
        "def brew_espresso(cups: int) -> str:\n"
        '    """Brew espresso ☕ for the café: one shot per cup, a pause after every twenty cups."""\n'
        "    return '☕' * cups\n"
    ),
}

CP1252 = {"PYTHONIOENCODING": "cp1252"}
# An ASCII console: the C locale without Python's UTF-8 mode or locale coercion (PEP 538/540).
ASCII = {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}


@pytest.fixture(scope="module")
def cafe(tmp_path_factory: pytest.TempPathFactory, paqad_home: Path) -> Path:
    return build_index(tmp_path_factory.mktemp("enc") / "cafe", FILES, paqad_home)


def paqad(args: list[str], console: dict[str, str], stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "LANG", "LC_ALL", "LC_CTYPE", "PYTHONUTF8")}
    env.update(console, PAQAD_RAG_HOOK_BUDGET_MS=ANSWER_BUDGET_MS)  # the hook's answer is tested, not its speed
    return subprocess.run([PAQAD_AI, *args], input=stdin, capture_output=True, timeout=60, env=env, cwd="/")


@pytest.mark.parametrize(("console", "symbol"), [
    (CP1252, b"Coffee \\u2615 caf\xe9"),  # what cp1252 cannot show is written as a Python escape
    (ASCII, "Coffee ☕ café".encode()),  # click writes UTF-8 to a console that claims ASCII
], ids=["cp1252", "ascii"])
def test_probe_prints_a_non_ascii_symbol_without_crashing(cafe: Path, console: dict[str, str], symbol: bytes) -> None:
    proc = paqad(["rag", "probe", "coffee break", "--project-root", str(cafe)], console)
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert [line for line in proc.stdout.splitlines() if b"README.md" in line][0].endswith(b"  " + symbol)


@pytest.mark.parametrize("console", [CP1252, ASCII], ids=["cp1252", "ascii"])
def test_probe_with_a_non_ascii_query_argument_and_stdin(cafe: Path, console: dict[str, str]) -> None:
    proc = paqad(["rag", "probe", "café ☕ espresso", "--json", "--project-root", str(cafe)], console)
    assert (proc.returncode, proc.stderr) == (0, b"")
    data = json.loads(proc.stdout)
    assert data["query"] == "café ☕ espresso"
    assert data["results"][0]["symbol"] == "brew_espresso"
    proc = paqad(["rag", "probe", "-", "--json", "--project-root", str(cafe)], console, stdin="café ☕ espresso\n".encode())
    assert proc.returncode == 0 and json.loads(proc.stdout)["query"] == "café ☕ espresso"


@pytest.mark.parametrize("console", [CP1252, ASCII], ids=["cp1252", "ascii"])
def test_hook_answers_utf8_json_whatever_the_locale(cafe: Path, console: dict[str, str]) -> None:
    prompt = "how long is the espresso ☕ pause at the café?"
    payload = json.dumps({"session_id": "s", "cwd": str(cafe), "hook_event_name": "UserPromptSubmit", "prompt": prompt},
                         ensure_ascii=False).encode("utf-8")
    proc = paqad(["hook", "prompt", "--host", "claude", "--project-root", str(cafe)], console, stdin=payload)
    assert (proc.returncode, proc.stderr) == (0, b"")
    section = json.loads(proc.stdout.decode("utf-8"))["hookSpecificOutput"]["additionalContext"]
    # A passage with its heading: rated, or (the dense side late on a busy machine) the keyword
    # match the hook sends unrated (issue 19: the same % as `rag probe` or none).
    assert "☕" in section and ("· match " in section or "· keyword match, not rated" in section)
    assert "☕".encode("utf-8") in proc.stdout  # UTF-8 bytes, not \\u escapes of a lossy console
    record = json.loads((cafe / ".paqad/context/last-prompt.json").read_text(encoding="utf-8"))
    assert record["prompt"] == prompt


@pytest.mark.parametrize("console", [CP1252, ASCII], ids=["cp1252", "ascii"])
def test_status_refresh_and_help_do_not_crash(cafe: Path, console: dict[str, str]) -> None:
    for args in (["rag", "status"], ["rag", "status", "--explain", "README.md"], ["rag", "refresh-context"],
                 ["rag", "probe", "--help"], ["rag", "model", "list"]):
        proc = paqad([*args, *(["--project-root", str(cafe)] if args[1] != "model" and "--help" not in args else [])], console)
        assert proc.returncode == 0, (args, proc.stderr)
        assert b"Traceback" not in proc.stderr and b"internal error" not in proc.stderr


NON_ASCII_NAME = "src/café_日本.js"
NAMED_FILES = {
    "package.json": '{"name": "brew", "version": "1.0.0"}\n',
    NON_ASCII_NAME: "function brewEspressoShots(cups) {\n  // the espresso machine pauses after twenty cups for the barista\n  return cups * 2;\n}\n",
    "src/main.js": "function mainEntryPoint() {\n  // the main entry point of the application: starts the router and listens\n  return 1;\n}\n",
}


def test_non_ascii_file_names_round_trip_under_an_ascii_file_system_encoding(tmp_path: Path, paqad_home: Path) -> None:
    from conftest import git, write_files
    from paqad.project import ProjectPaths
    from paqad.store import open_store

    root = tmp_path / "brew"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_files(root, NAMED_FILES)
    at = ["--project-root", str(root)]
    proc = paqad(["rag", "init", "--provider", "local", *at], ASCII)
    assert proc.returncode == 0, proc.stderr
    proc = paqad(["rag", "probe", "espresso machine pause", "--json", *at], ASCII)
    assert (proc.returncode, proc.stderr) == (0, b"")  # no "1 file(s) left the index"
    assert json.loads(proc.stdout)["results"][0]["path"] == NON_ASCII_NAME
    proc = paqad(["rag", "status", "--explain", NON_ASCII_NAME, *at], ASCII)
    assert proc.returncode == 0 and b"internal error" not in proc.stderr, proc.stderr
    assert proc.stdout.decode("utf-8", "replace").strip().endswith(": indexed")
    proc = paqad(["rag", "refresh-context", *at], ASCII)
    assert proc.returncode == 0, proc.stderr
    with open_store(ProjectPaths(root), readonly=True) as store:
        assert sorted(store.files()) == [NON_ASCII_NAME, "src/main.js"]
