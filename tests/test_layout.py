"""The source tree follows the data flow (DESIGN §12): stage order, SQL only in store/, small modules."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "paqad"

# Along the data flow. A module may import its own stage, any earlier stage and the shared base
# modules (config, errors, project, secrets, atomic), never a later stage.
STAGES = {
    "index": 0,
    "embed": 1,
    "store": 2,
    "build": 3,
    "search": 3,
    "status": 4,
    "jobs": 4.5,  # one call per job (issue 18): uses build, search, status; deliver, hosts and cli call it
    "deliver": 5,
    "hosts": 6,
    "evaluate": 6,
    "cli": 7,
}
BASE = {"config", "errors", "project", "secrets", "atomic", "__init__"}
MAX_LINES = 600


def _modules() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if "corpus" not in p.relative_to(PACKAGE).parts]


def _stage(parts: tuple[str, ...]) -> str:
    head = parts[0].removesuffix(".py")
    return head


def _imports(path: Path) -> set[str]:
    """Every ``paqad.x`` module imported anywhere in ``path`` (top level or inside functions)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("paqad"):
            found.add(node.module)
            if node.module == "paqad":
                found.update(f"paqad.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("paqad"))
    return found


def test_no_module_imports_a_later_stage():
    wrong = []
    for path in _modules():
        own = _stage(path.relative_to(PACKAGE).parts)
        if own in BASE:
            continue
        for module in _imports(path):
            parts = module.split(".")
            if len(parts) < 2:
                continue
            target = parts[1]
            if target in BASE or target == own or target == "__version__":
                continue
            if target not in STAGES:
                wrong.append(f"{path.relative_to(PACKAGE)} imports unknown top-level module {module}")
            elif STAGES[target] > STAGES[own] or (STAGES[target] == STAGES[own] and target != own):
                wrong.append(f"{path.relative_to(PACKAGE)} ({own}) imports {module} ({target})")
    assert wrong == []


def test_base_modules_import_no_stage():
    for name in BASE - {"__init__"}:
        imported = {m.split(".")[1] for m in _imports(PACKAGE / f"{name}.py") if "." in m}
        assert imported <= BASE, (name, imported)


# What ``rag init|status|rebuild|clear|probe|refresh-context`` may import: parsing and printing
# only (DESIGN §12), each command one job call. ``build`` for ``clear_index``, ``deliver.refresh``
# for ``refresh_context`` (one call each), ``search.floor`` for ``percent`` (how a match prints),
# ``hosts.warm_probe`` for ``rag probe``'s one call (the warm process's answer, else jobs/probe.py).
RAG_COMMANDS_IMPORT = {"paqad.config", "paqad.errors", "paqad.build", "paqad.deliver.refresh", "paqad.search.floor",
                       "paqad.hosts.warm_probe"}


def test_the_index_commands_only_parse_call_one_job_and_print():
    imported = _imports(PACKAGE / "cli" / "rag_commands.py")
    workflow = {m for m in imported if m.split(".")[1] not in ("cli", "jobs") and m not in RAG_COMMANDS_IMPORT}
    assert workflow == set()
    assert "paqad.jobs" in imported  # build and status as ``from paqad.jobs import ...``


def test_sql_lives_only_in_store():
    offenders = []
    for path in _modules():
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] == "store":
            continue
        text = path.read_text(encoding="utf-8")
        if "import sqlite3" in text or ".execute(" in text or "executemany(" in text:
            offenders.append(str(rel))
    assert offenders == []


def test_modules_are_small():
    sizes = {str(p.relative_to(PACKAGE)): len(p.read_text(encoding="utf-8").splitlines()) for p in _modules()}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_evaluation_corpus_is_data_in_one_folder():
    corpus = PACKAGE / "evaluate" / "corpus"
    assert (corpus / "cases.json").is_file() and (corpus / "project" / "README.md").is_file()
    assert not (corpus / "__init__.py").exists()


def test_only_errors_py_makes_the_base_error():
    """Every raise names what went wrong (a subclass in errors.py), so a caller can tell a bad key from "try later"."""
    offenders = []
    for path in _modules():
        if path.name == "errors.py" and path.parent == PACKAGE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "PaqadError":
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert offenders == []


# A file another program writes (SQLite's backup, onnxruntime's optimised model) or a whole folder
# moved into place is replaced here; every file paqad-ai writes itself goes through atomic.py.
REPLACE_ALLOWED = {"atomic.py", "evaluate/runner.py", "embed/local.py", "embed/model_store.py",
                   "hosts/warm.py"}  # warm.py renames its listening socket into place, no file write


def test_files_are_written_by_the_one_atomic_writer():
    offenders = []
    for path in _modules():
        rel = path.relative_to(PACKAGE).as_posix()
        text = path.read_text(encoding="utf-8")
        if rel not in REPLACE_ALLOWED and ("os.replace(" in text or "os.rename(" in text):
            offenders.append(rel)
    assert offenders == []


# ``path:function`` (path relative to src/paqad) still over the limits, each with why.
SHAPE_ALLOWED: set[str] = set()  # rag probe's workflow moved to jobs/probe.py (issue 18)


def test_functions_are_small():
    """No function over 60 lines or complexity 20 anywhere in src/paqad (issue 18; the measure of
    bench/code_shape.py: ``ast`` line span, McCabe complexity), outside ``SHAPE_ALLOWED``."""
    import sys

    sys.path.insert(0, str(PACKAGE.parents[1] / "bench"))
    from code_shape import all_shapes

    found = all_shapes()
    offenders = {f"{s.path}:{s.name}": f"{s.lines} lines, complexity {s.complexity}" for s in found if s.offends}
    assert {k: v for k, v in offenders.items() if k not in SHAPE_ALLOWED} == {}
    assert len(found) > 500  # the whole package was measured, not an empty list
    # An entry whose function now fits (or is gone) leaves the list, so the list only shrinks.
    assert sorted(SHAPE_ALLOWED - set(offenders)) == []
