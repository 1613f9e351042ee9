"""The built-in evaluation set: a small web-service codebase and retrieval cases over it.

``project_dir()`` is "Ledgerly", a subscription billing service written for this purpose
(Python backend, TypeScript/React dashboard, Markdown docs, YAML/JSON config, Dockerfile,
Makefile; 67 files). ``cases_path()`` is ``cases.json``, schema version 1::

    {"version": 1, "cases": [{
        "id": "lex-01",
        "class": "lexical",            # one of CASE_CLASSES
        "query": "...",                # a prompt as a developer would type it
        "expected": [{"path": "src/ledgerly/billing/invoices.py",  # project-relative, '/'
                      "start_line": 45, "end_line": 54,           # 1-based inclusive, optional
                      "symbol": "next_invoice_number"}],          # optional
        "notes": "...",
        "alternatives": ["..."],      # ambiguous only: other plausible paths
        "distractors": ["docs/..."]   # docs-vs-code only: the doc that paraphrases (and
    }]}                               #   contradicts) the code; the code must rank above it

Class semantics: ``multi-part`` cases need every expected place; ``should-skip`` cases have no
expected place (the prompt needs no retrieval); the others have one place. A line range, when
present, spans whole definitions (from a ``def``/``class``/constant/``export`` line to the end
of a definition); without one the whole file is the target.

The project files and ``cases.json`` are package data under ``paqad/evaluate/corpus/``: they are
read, never imported, and contain no tests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from paqad.errors import ToolMissingError, UserFileError

CASES_VERSION = 1
CASE_CLASSES = ("lexical", "vocabulary-mismatch", "ambiguous", "multi-part", "should-skip", "docs-vs-code")
SHOULD_SKIP = "should-skip"  # the class whose prompts need no retrieval: success is delivering nothing


@dataclass(frozen=True)
class ExpectedPlace:
    """One place an answer must come from; ``start_line``/``end_line`` are None for a whole file."""

    path: str
    start_line: int | None = None
    end_line: int | None = None
    symbol: str | None = None


@dataclass(frozen=True)
class EvalCase:
    """One query of the evaluation set (see the module docstring for the meaning of each class)."""

    id: str
    case_class: str
    query: str
    expected: tuple[ExpectedPlace, ...]
    notes: str = ""
    alternatives: tuple[str, ...] = ()
    distractors: tuple[str, ...] = ()


def _package_dir() -> Path:
    """``corpus/`` of this package: the project folder and ``cases.json`` (package data)."""
    root = files("paqad.evaluate") / "corpus"
    if not isinstance(root, Path):
        # Only a zipped install gets here; the evaluation needs real files to index.
        raise ToolMissingError(f"the evaluation data of paqad.evaluate is not on disk ({root}); reinstall paqad-ai from a wheel")
    return root


def project_dir() -> Path:
    """The folder of the shipped evaluation codebase (read-only package data; copy it before indexing)."""
    return _package_dir() / "project"


def cases_path() -> Path:
    """The path of ``cases.json`` (schema in the module docstring)."""
    return _package_dir() / "cases.json"


def load_cases(path: Path | None = None) -> tuple[EvalCase, ...]:
    """Parse ``cases.json`` (default: the shipped one) into EvalCase records, in file order.

    Raises PaqadError for an unknown schema version or case class.
    """
    source = path or cases_path()
    data = json.loads(source.read_text(encoding="utf-8"))
    if data.get("version") != CASES_VERSION:
        raise UserFileError(f"{source}: cases version {data.get('version')!r} is not supported; expected {CASES_VERSION}")
    cases = []
    for raw in data["cases"]:
        if raw["class"] not in CASE_CLASSES:
            raise UserFileError(f"{source}: case {raw['id']} has unknown class {raw['class']!r}; use one of {CASE_CLASSES}")
        expected = tuple(
            ExpectedPlace(e["path"], e.get("start_line"), e.get("end_line"), e.get("symbol")) for e in raw["expected"]
        )
        cases.append(
            EvalCase(
                id=raw["id"],
                case_class=raw["class"],
                query=raw["query"],
                expected=expected,
                notes=raw.get("notes", ""),
                alternatives=tuple(raw.get("alternatives", ())),
                distractors=tuple(raw.get("distractors", ())),
            )
        )
    return tuple(cases)
