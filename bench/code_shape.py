"""Function length and cyclomatic complexity over src/paqad (issue 18): prints the offenders.

Length: the lines a function's ``def`` spans (decorators excluded, its docstring included), from
``ast``. Complexity: McCabe's, from the ``mccabe`` package (the flake8 plugin's own graph). Limits:
60 lines, complexity 20 (STYLE: "no function over 60 lines or cyclomatic complexity over 20").
The evaluation corpus (``evaluate/corpus``, code the tool is tested on) is not ours to shape.

    python bench/code_shape.py            # offenders, worst first
    python bench/code_shape.py --all      # every function
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import mccabe

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "paqad"
MAX_FUNCTION_LINES = 60
MAX_COMPLEXITY = 20


@dataclass(frozen=True)
class Shape:
    """One function: ``where`` (``path:line name``, path relative to src/paqad), lines, complexity."""

    path: str
    line: int
    name: str
    lines: int
    complexity: int

    @property
    def offends(self) -> bool:
        return self.lines > MAX_FUNCTION_LINES or self.complexity > MAX_COMPLEXITY


def shapes(path: Path) -> list[Shape]:
    """Every function and method of ``path`` (nested ones too), with its length and complexity."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    visitor = mccabe.PathGraphingAstVisitor()
    visitor.preorder(tree, visitor)
    complexity = {(graph.lineno, graph.entity.rsplit(".", 1)[-1]): graph.complexity() for graph in visitor.graphs.values()}
    rel = path.relative_to(PACKAGE).as_posix()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append(Shape(rel, node.lineno, node.name, node.end_lineno - node.lineno + 1,
                               complexity.get((node.lineno, node.name), 1)))
    return found


def all_shapes(files: list[Path] | None = None) -> list[Shape]:
    """:func:`shapes` of ``files`` (default: every module of src/paqad outside evaluate/corpus)."""
    files = files or [p for p in sorted(PACKAGE.rglob("*.py")) if "corpus" not in p.relative_to(PACKAGE).parts]
    return [shape for path in files for shape in shapes(path)]


def main(argv: list[str]) -> int:
    found = all_shapes()
    shown = found if "--all" in argv else [s for s in found if s.offends]
    for s in sorted(shown, key=lambda s: (-max(s.lines / MAX_FUNCTION_LINES, s.complexity / MAX_COMPLEXITY), s.path)):
        print(f"{s.path}:{s.line} {s.name}: {s.lines} lines, complexity {s.complexity}")
    print(f"{len([s for s in found if s.offends])} of {len(found)} functions over {MAX_FUNCTION_LINES} lines "
          f"or complexity {MAX_COMPLEXITY}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
