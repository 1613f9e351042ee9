"""CLI conventions users of ripgrep, git and llm expect (issue 14.7): help that matches the
output, aligned plain tables that fit the terminal, short flags, ``path:line`` locations,
summaries that do not contradict themselves, headers on every table."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import git, MODEL_FILES, run_cli as run, write_files

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")
LONG_NAME = "reconcile_the_monthly_bank_statement_lines_with_open_invoices_by_amount_reference_and_booking_date"

FILES = {
    "pyproject.toml": '[project]\nname = "ledger"\nversion = "1.0"\ndescription = "bank reconciliation"\n',
    "src/ledger/money.py": (
        "from decimal import Decimal\n\n\n"
        "def to_cents(amount: Decimal) -> int:\n"
        '    """Convert a decimal amount of money to whole cents, rounding half up."""\n'
        "    return int((amount * 100).quantize(Decimal('1')))\n"
    ),
    "src/ledger/reconcile.py": (
        '"""Reconciliation of bank statements."""\n\n\n'
        f"def {LONG_NAME}(lines, invoices):\n"
        '    """Match each bank line with the open invoice of the same amount and reference."""\n'
        "    return [(line, invoices.get(line.reference)) for line in lines]\n"
    ),
    "README.md": "# Ledger\n\nReconciles bank statements with invoices and converts money to cents.\n",
}




@pytest.fixture
def project(git_repo) -> Path:
    root = git_repo(FILES)
    assert run("rag", "init", "--provider", "local", project=root)[0] == 0
    return root


def probe_rows(out: str) -> tuple[list[str], list[list[str]]]:
    lines = out.splitlines()
    return lines[0].split(), [line.split(maxsplit=6) for line in lines[1:]]


def test_probe_table_columns_match_the_help_and_are_aligned(project: Path) -> None:
    help_text = run("rag", "probe", "--help", project=project)[1]
    documented = re.search(r"Columns: ([a-z, ]+)\.", " ".join(help_text.split())).group(1).split(", ")
    code, out, _ = run("rag", "probe", "cents", "-n", "3", project=project)
    header, rows = probe_rows(out)
    assert code == 0 and header == documented == ["rank", "match", "band", "cosine", "location", "lines", "symbol"]
    lines = out.splitlines()
    # Numbers (rank, match, cosine) end where their header ends; words start where theirs starts.
    heads = list(re.finditer(r"\S+", lines[0]))
    for line in lines[1:]:
        cells = list(re.finditer(r"\S+", line))[:6]
        assert [cells[i].end() for i in (0, 1, 3)] == [heads[i].end() for i in (0, 1, 3)]
        assert [cells[i].start() for i in (2, 4, 5)] == [heads[i].start() for i in (2, 4, 5)]
    assert len(rows) == 3 and [r[0] for r in rows] == ["1", "2", "3"]


def test_probe_prints_locations_editors_open(project: Path) -> None:
    data = json.loads(run("rag", "probe", "to_cents", "--json", "-n", "2", project=project)[1])
    _, rows = probe_rows(run("rag", "probe", "to_cents", "-n", "2", project=project)[1])
    for row, result in zip(rows, data["results"]):
        assert row[4] == f"{result['path']}:{result['start_line']}"  # path:line, what editors and terminals open
        assert row[5] == f"{result['start_line']}-{result['end_line']}"
    assert ":L" not in run("rag", "probe", "to_cents", project=project)[1]


def test_short_flags(project: Path) -> None:
    code, out, _ = run("rag", "probe", "money", "-n", "1", "-p", "src/ledger", "--json", project=project)
    results = json.loads(out)["results"]
    assert code == 0 and len(results) == 1 and results[0]["path"].startswith("src/ledger/")


def test_probe_rows_fit_the_terminal(project: Path) -> None:
    import pty

    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS="80", LINES="40")
    proc = subprocess.run([PAQAD_AI, "rag", "probe", "reconcile bank statement lines", "-n", "3", "--project-root", str(project)],
                          stdout=slave, stderr=subprocess.PIPE, env=env, timeout=60)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    assert proc.returncode == 0, proc.stderr
    lines = out.decode().replace("\r\n", "\n").splitlines()
    assert lines and max(len(line) for line in lines) <= 80
    long_row = next(line for line in lines if "src/ledger/reconcile.py:1 " in line)
    assert long_row.endswith("…") and LONG_NAME[:12] in long_row  # the symbol is cut, never the location


def test_refresh_summary_does_not_contradict_itself(project: Path) -> None:
    write_files(project, {"src/ledger/money.py": FILES["src/ledger/money.py"] + "\n\nZERO = Decimal('0')\n"})
    git(project, "commit", "-qam", "zero")  # synced into the index, but nothing left uncommitted
    code, out, _ = run("rag", "refresh-context", project=project)
    assert code == 0
    assert re.fullmatch(
        r"synced 1 changed, 0 removed \(\d+ embedded, \d+ cached\) in \d+\.\d\ds; nothing to search for "
        r"\(no prompt recorded, no uncommitted or branch changes in git\): section left out\n", out), out


def test_refresh_outside_git_says_so_rather_than_no_changes_in_git(tmp_path: Path) -> None:
    # Seen on a `git archive` of tqdm: "no uncommitted or branch changes in git" in a folder
    # that is no git repository (tmp_path holds none: conftest's repositories are made by git_repo).
    root = tmp_path / "plain"
    write_files(root, FILES)
    assert subprocess.run(["git", "rev-parse"], cwd=root, capture_output=True).returncode != 0
    assert run("rag", "init", "--provider", "local", project=root)[0] == 0
    code, out, _ = run("rag", "refresh-context", project=root)
    assert code == 0
    assert re.fullmatch(r"index up to date \(\d+ files, \d+ chunks\); nothing to search for \(no prompt recorded, "
                        r"not a git repository, so no changed files to search for\): section left out\n", out), out


def test_model_list_has_a_header_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAQAD_HOME", str(tmp_path / "home"))
    assert run("rag", "model", "pull")[0] == 0
    code, out, _ = run("rag", "model", "list")
    lines = out.splitlines()
    size = sum(f["size"] for rel, f in MODEL_FILES.items() if rel != "onnx/model.onnx")
    assert code == 0 and len(lines) == 2
    assert lines[0].split("\t") == ["model", "precisions", "dimension", "size", "verified", "path"]
    assert lines[1].split("\t") == ["Xenova/all-MiniLM-L6-v2", "int8", "384", str(size), "verified",
                                    str(tmp_path / "home" / "models" / "Xenova" / "all-MiniLM-L6-v2")]


def test_usage_errors_are_one_line_naming_the_help_to_read(tmp_path: Path) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x\n")
    assert run("rag", "probe", "--bogus", "x") == (
        2, "", "paqad-ai: error: No such option '--bogus' (see `paqad-ai rag probe --help`)\n")
    assert run("rag", "status", "--project-root", str(a_file)) == (
        2, "", f"paqad-ai: error: Invalid value for '--project-root': Directory '{a_file}' is a file "
               "(see `paqad-ai rag status --help`)\n")


def test_ctrl_c_during_init_exits_130_and_says_interrupted(tmp_path: Path) -> None:
    # Seen on urfave/cli: Ctrl-C while `init` embedded printed "paqad-ai: aborted" and exited 2,
    # the code of a user error; a shell, CI or wrapper script tells an interruption by 130.
    import signal

    write_files(tmp_path, {"pyproject.toml": '[project]\nname = "many"\n',
                           **{f"src/many/h{i:03}.py": f"def handle_{i:03}(event):\n    \"\"\"Handle event kind {i}.\"\"\"\n"
                                                    f"    return event.kind == {i}\n" for i in range(400)}})
    git(tmp_path, "init", "-q")
    env = {**os.environ, "PAQAD_RAG_WARM_PROCESS": "false"}
    proc = subprocess.Popen([PAQAD_AI, "rag", "init", "--provider", "local", "--project-root", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("keyword search ready"):
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    lines = [line for line in ("".join(seen) + err).splitlines() if line.strip()]
    # one line says it, naming what is usable (it was two: the job's note, then "paqad-ai: interrupted")
    said = [line for line in lines if "interrupted" in line]
    assert proc.returncode == 130 and said == lines[-1:], lines
    assert re.fullmatch(r"paqad-ai: interrupted: the index is searchable by keywords; \d+ of 400 chunks have vectors "
                        r"\(\d+%\); the next `paqad-ai rag refresh-context` \(each prompt starts one\) or "
                        r"`paqad-ai rag init` continues embedding", lines[-1]), lines
    assert out == ""


@pytest.mark.parametrize("folder, command", [("vectors", "init"), ("state", "refresh-context")])
def test_a_file_where_a_paqad_folder_goes_is_a_user_error_naming_it(tmp_path: Path, folder: str, command: str) -> None:
    # Seen as a new user (round 7): `.paqad/vectors` as a file made `rag init` report
    # "internal error (a bug in paqad-ai ...): FileExistsError", exit 1; `.paqad/state` did the
    # same to the refresh (init needs no state/ folder and builds).
    write_files(tmp_path, {"pyproject.toml": '[project]\nname = "shop"\n',
                           "src/shop/cart.py": "def total(items):\n    return sum(i.price for i in items)\n",
                           f".paqad/{folder}": ""})
    code, _, err = run("rag", "init", "--provider", "local", "--yes", project=tmp_path)
    if command != "init":
        assert code == 0, err
        code, _, err = run("rag", command, project=tmp_path)
    assert code == 2
    assert err.splitlines()[-1] == (
        f"paqad-ai: error: cannot use {tmp_path / '.paqad' / folder}: File exists; a file stands where paqad-ai keeps "
        "a folder: move or delete it, then run the command again (the committed index is unchanged)")


def test_a_file_where_paqad_home_goes_is_named_not_called_a_damaged_model(tmp_path: Path, monkeypatch) -> None:
    # Seen as a new user (round 10): with PAQAD_HOME naming a file, `rag init` said the model
    # "cannot be loaded (NotADirectoryError ...)" and told the user to remove the model folder and
    # run `rag model pull`, which fails the same way; `rag model pull` itself named the real cause.
    home = tmp_path / "home-is-a-file"
    home.write_text("")
    monkeypatch.setenv("PAQAD_HOME", str(home))
    write_files(tmp_path / "proj", {"pyproject.toml": '[project]\nname = "shop"\n',
                                    "src/shop/cart.py": "def total(items):\n    return sum(i.price for i in items)\n"})
    code, _, err = run("rag", "init", "--provider", "local", "--yes", project=tmp_path / "proj")
    assert code == 2
    assert err.splitlines()[-1] == (
        f"paqad-ai: error: cannot use {home / 'models' / '.tmp'}: Not a directory; a file stands where paqad-ai keeps "
        "a folder: move or delete it, then run the command again (the committed index is unchanged)")
    assert not (tmp_path / "proj" / ".paqad" / "vectors").exists()


def test_probe_with_an_unwritable_paqad_home_searches_by_keywords_naming_the_path(project: Path, tmp_path: Path,
                                                                                  monkeypatch) -> None:
    # The other side of the case above: a search never fails for a model store it cannot fill; it
    # answers by keywords and says which path stood in the way.
    home = tmp_path / "home-is-a-file"
    home.write_text("")
    monkeypatch.setenv("PAQAD_HOME", str(home))
    code, out, err = run("rag", "probe", "convert money to cents", "-n", "1", project=project)
    assert code == 0, err
    assert out.splitlines()[1].split()[4] == "src/ledger/money.py:1"
    assert err.splitlines() == [
        f"paqad-ai: warning: semantic search unavailable (the model store cannot be used: {home / 'models' / '.tmp'}: "
        "Not a directory; a file stands where a folder must be: move it away, or set PAQAD_HOME to another folder); "
        "keyword search only; index not synced (the previous index is kept)"]


def test_a_query_longer_than_a_prompt_is_searched_as_the_hook_searches_a_pasted_log(project: Path) -> None:
    # Seen as a new user (round 10) on tornado: `rag probe --query-file` with 400,000 characters of
    # distinct words ran 149 s at 1.3 GB (20,000: 4.9 s; a 600 KB `git diff | rag probe -`, the
    # README's example, 9.5 s), while the hook cuts the same prompt to 20,000 characters and
    # answers within its budget. The probe now searches what the hook would.
    from paqad.deliver.query import MAX_PROMPT_CHARS, PROMPT_HEAD_CHARS

    words = " ".join(f"w{n:06x}" for n in range(60_000))  # 480,000 characters, no two words alike
    query = "convert money to cents\n" + words + "\nTypeError: to_cents() got a str\n" + words
    proc = subprocess.run([PAQAD_AI, "rag", "probe", "-", "--json", "-n", "1", "--project-root", str(project)],
                          input=query, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PAQAD_RAG_WARM_PROCESS": "false"})
    assert proc.returncode == 0, proc.stderr
    searched = json.loads(proc.stdout)["query"]
    assert len(searched) <= MAX_PROMPT_CHARS and searched.startswith(query[:PROMPT_HEAD_CHARS])
    assert "TypeError: to_cents() got a str" in searched.splitlines()
    assert (f"the query has {len(query.strip()):,} characters; searched its first 2,000, last 1,000 "
            f"and its lines naming an error, {len(searched):,} in all, as the prompt hook does") in proc.stderr.splitlines()
