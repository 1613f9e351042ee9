"""The built-in evaluation set: the shipped project is well formed and every case points at real code."""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from pathlib import Path

import pytest
import tree_sitter
import tree_sitter_typescript
import yaml

from paqad.errors import PaqadError
from paqad.evaluate.cases import CASE_CLASSES, EvalCase, ExpectedPlace, cases_path, load_cases, project_dir

PROJECT = project_dir()
RAW = json.loads(cases_path().read_text(encoding="utf-8"))
CASES = RAW["cases"]
PROJECT_FILES = sorted(p for p in PROJECT.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def _rel(path: Path) -> str:
    return path.relative_to(PROJECT).as_posix()


def _ranged_places() -> list[tuple[str, dict]]:
    return [(c["id"], e) for c in CASES for e in c["expected"] if "start_line" in e]


# ---------------------------------------------------------------- the project


def test_package_paths_point_into_the_installed_package():
    corpus = Path(__import__("paqad.evaluate.cases", fromlist=["x"]).__file__).parent / "corpus"
    assert PROJECT == corpus / "project"
    assert cases_path() == corpus / "cases.json"
    assert PROJECT.is_dir() and cases_path().is_file()


def test_project_size_and_languages():
    assert 40 <= len(PROJECT_FILES) <= 80
    suffixes = Counter(p.suffix for p in PROJECT_FILES)
    assert suffixes[".py"] >= 20
    assert suffixes[".ts"] >= 3 and suffixes[".tsx"] >= 2
    assert suffixes[".md"] >= 5
    assert suffixes[".yaml"] >= 2 and suffixes[".json"] >= 3
    # Stack markers, so discovery turns on the Python and TypeScript packs.
    assert (PROJECT / "pyproject.toml").is_file() and (PROJECT / "web" / "package.json").is_file()
    assert {"Dockerfile", "Makefile"} <= {p.name for p in PROJECT_FILES}


def test_every_project_file_passes_the_indexer_file_checks():
    for path in PROJECT_FILES:
        data = path.read_bytes()
        assert b"\0" not in data[:8192], path
        text = data.decode("utf-8")  # raises on invalid UTF-8
        assert len("".join(text.split())) >= 50, f"{_rel(path)} has fewer than 50 non-whitespace characters"
        assert len(data) < 150 * 1024, path


def test_project_holds_nothing_pytest_would_collect():
    names = {p.name for p in PROJECT_FILES}
    assert "conftest.py" not in names
    assert not [n for n in names if re.fullmatch(r"test_.*\.py|.*_test\.py", n)]


def test_project_sources_parse():
    for path in PROJECT_FILES:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py":
            ast.parse(text, filename=str(path))  # pip byte-compiles package data .py files
        elif path.suffix == ".yaml":
            assert isinstance(yaml.safe_load(text), dict), path
        elif path.suffix == ".json":
            assert isinstance(json.loads(text), dict), path
    languages = {
        ".ts": tree_sitter.Language(tree_sitter_typescript.language_typescript()),
        ".tsx": tree_sitter.Language(tree_sitter_typescript.language_tsx()),
    }
    for path in PROJECT_FILES:
        if path.suffix in languages:
            root = tree_sitter.Parser(languages[path.suffix]).parse(path.read_bytes()).root_node
            assert not root.has_error, f"{_rel(path)} does not parse as {path.suffix}"


# ---------------------------------------------------------------- the cases


def test_case_counts_ids_and_classes():
    assert RAW["version"] == 1
    assert len(CASES) >= 36
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids))
    per_class = Counter(c["class"] for c in CASES)
    assert set(per_class) == set(CASE_CLASSES)
    assert min(per_class.values()) >= 6, per_class
    for case in CASES:
        assert case["query"].strip() and case["notes"].strip(), case["id"]


def test_expected_shape_per_class():
    for case in CASES:
        paths = [e["path"] for e in case["expected"]]
        if case["class"] == "should-skip":
            assert paths == [], case["id"]
        elif case["class"] == "multi-part":
            assert len(set(paths)) >= 2, case["id"]
        else:
            assert len(paths) == 1, case["id"]


def test_every_expected_path_exists_and_is_project_relative():
    for case in CASES:
        for place in case["expected"]:
            path = place["path"]
            assert not path.startswith("/") and "\\" not in path and ".." not in path.split("/"), path
            assert (PROJECT / path).is_file(), f"{case['id']}: {path} missing"


def test_alternatives_and_distractors():
    for case in CASES:
        if case["class"] == "ambiguous":
            assert case["alternatives"], case["id"]
            expected = {e["path"] for e in case["expected"]}
            for path in case["alternatives"]:
                assert (PROJECT / path).is_file() and path not in expected, (case["id"], path)
        if case["class"] == "docs-vs-code":
            # A document paraphrases the behaviour; the code must win, so only code is expected.
            assert case["distractors"], case["id"]
            for path in case["distractors"]:
                assert path.endswith(".md") and (PROJECT / path).is_file(), (case["id"], path)
            for place in case["expected"]:
                assert not place["path"].endswith(".md"), case["id"]


def test_line_ranges_lie_inside_their_files():
    for case_id, place in _ranged_places():
        lines = (PROJECT / place["path"]).read_text(encoding="utf-8").splitlines()
        assert 1 <= place["start_line"] <= place["end_line"] <= len(lines), (case_id, place)


DECLARATION = {
    ".py": re.compile(r"^\s*(async\s+def|def|class)\s+\w+|^[A-Z_][A-Z0-9_]*\s*[:=]"),
    ".ts": re.compile(
        r"^\s*(export\s+)?(async\s+)?(function|const|let|class|interface|type)\s+\w+|^\s+(async\s+)?\w+\s*[<(]"
    ),
    ".yaml": re.compile(r"^[A-Za-z_][\w-]*:"),
}
DECLARATION[".tsx"] = DECLARATION[".ts"]


def test_ranges_start_at_a_declaration_naming_the_symbol():
    for case_id, place in _ranged_places():
        suffix = Path(place["path"]).suffix
        lines = (PROJECT / place["path"]).read_text(encoding="utf-8").splitlines()
        first = lines[place["start_line"] - 1]
        assert DECLARATION[suffix].search(first), f"{case_id}: line {place['start_line']} is {first!r}"
        first_symbol = place["symbol"].split("..")[0].split(".")[-1]
        assert re.search(rf"\b{re.escape(first_symbol)}\b", first), (case_id, first)


def _python_bodies(tree: ast.Module) -> list[list[ast.stmt]]:
    bodies = [tree.body]
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bodies.append(node.body)
    return bodies


def test_python_ranges_cover_whole_definitions():
    """Start = first line of a def/class/assignment, end = last line of a later sibling (or itself)."""
    for case_id, place in _ranged_places():
        if not place["path"].endswith(".py"):
            continue
        tree = ast.parse((PROJECT / place["path"]).read_text(encoding="utf-8"))
        spans = []
        for body in _python_bodies(tree):
            starts = [i for i, n in enumerate(body) if n.lineno == place["start_line"]]
            ends = [i for i, n in enumerate(body) if n.end_lineno == place["end_line"]]
            spans += [(s, e) for s in starts for e in ends if s <= e]
        assert spans, f"{case_id}: {place} does not span whole definitions"


def test_typescript_and_yaml_ranges_are_closed_blocks():
    for case_id, place in _ranged_places():
        path = place["path"]
        lines = (PROJECT / path).read_text(encoding="utf-8").splitlines()
        block = lines[place["start_line"] - 1 : place["end_line"]]
        if path.endswith((".ts", ".tsx")):
            text = "\n".join(block)
            assert text.count("{") == text.count("}"), case_id
            assert block[-1].rstrip().endswith(("}", ";")), (case_id, block[-1])
        elif path.endswith(".yaml"):
            assert all(not line or line[0] in " #" for line in block[1:]), case_id
            after = lines[place["end_line"]] if place["end_line"] < len(lines) else ""
            assert not after or not after[0].isspace(), (case_id, after)


def test_known_ranges():
    by_id = {c["id"]: c for c in CASES}

    def text(case_id: str, index: int = 0) -> tuple[str, str]:
        place = by_id[case_id]["expected"][index]
        lines = (PROJECT / place["path"]).read_text(encoding="utf-8").splitlines()
        return lines[place["start_line"] - 1].strip(), lines[place["end_line"] - 1].strip()

    assert text("lex-01") == (
        "def next_invoice_number(db: Database, issued_on: date) -> str:",
        'return f"{NUMBER_PREFIX}-{issued_on.year}-{value:06d}"',
    )
    assert text("dvc-06")[0] == "TOLERANCE_SECONDS = 300"
    assert text("dvc-09")[0] == "export const REFRESH_LEAD_MS = 60_000;"
    assert text("mp-02", 0)[0].startswith("listInvoices(cursor?: string")
    assert text("mp-04", 1) == ("password_reset:", "$link")


def test_docs_vs_code_cases_really_disagree():
    """Each doc states a different value than the code, so a doc-only answer is wrong."""
    pairs = {
        "dvc-01": ("30 days", "timedelta(days=14)"),
        "dvc-03": ("24 hours", "timedelta(minutes=30)"),
        "dvc-04": ("3, 5 and 7 days", "(1, 3, 7, 14)"),
        "dvc-06": ("10 minutes", "TOLERANCE_SECONDS = 300"),
        "dvc-08": ("7 days", "timedelta(hours=24)"),
        "dvc-09": ("five minutes", "REFRESH_LEAD_MS = 60_000"),
    }
    by_id = {c["id"]: c for c in CASES}
    for case_id, (doc_claim, code_fact) in pairs.items():
        case = by_id[case_id]
        doc = (PROJECT / case["distractors"][0]).read_text(encoding="utf-8")
        place = case["expected"][0]
        code = "\n".join(
            (PROJECT / place["path"]).read_text(encoding="utf-8").splitlines()[place["start_line"] - 1 : place["end_line"]]
        )
        assert doc_claim in doc and code_fact not in doc, case_id
        assert code_fact in code and doc_claim not in code, case_id


def test_load_cases_returns_records_in_file_order():
    cases = load_cases()
    assert [c.id for c in cases] == [c["id"] for c in CASES]
    assert all(isinstance(c, EvalCase) for c in cases)
    first = cases[0]
    assert first.case_class == "lexical"
    assert first.expected == (
        ExpectedPlace("src/ledgerly/billing/invoices.py", 45, 54, "next_invoice_number"),
    )
    whole_file = next(c for c in cases if c.id == "amb-05")
    assert whole_file.expected == (ExpectedPlace("config/rate_limits.json"),)
    assert whole_file.alternatives == ("config/plans.json", "src/ledgerly/http/pagination.py")


def test_load_cases_rejects_unknown_version_and_class(tmp_path: Path):
    bad_version = tmp_path / "v2.json"
    bad_version.write_text(json.dumps({"version": 2, "cases": []}), encoding="utf-8")
    with pytest.raises(PaqadError, match="version 2"):
        load_cases(bad_version)
    bad_class = tmp_path / "class.json"
    bad_class.write_text(
        json.dumps({"version": 1, "cases": [{"id": "x", "class": "fuzzy", "query": "q", "expected": []}]}),
        encoding="utf-8",
    )
    with pytest.raises(PaqadError, match="unknown class 'fuzzy'"):
        load_cases(bad_class)
