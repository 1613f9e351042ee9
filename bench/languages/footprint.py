"""What the long-tail grammars cost: installed size, import and load times (issue 22).

Prints the installed size of tree-sitter-language-pack against the seventeen grammar wheels, the
time to import the pack (paid only by a process that cuts a long-tail file), the time to load each
data-file language's grammar and compile its definition query, and the time to read the data
files' headers (paid by every process that imports paqad.index.languages, the hook's included).

    nice -n 10 .venv/bin/python bench/languages/footprint.py
"""

from __future__ import annotations

import importlib.util
import statistics
import subprocess
import sys
import time
from pathlib import Path

WHEELS = ("python javascript typescript go rust java kotlin c cpp c_sharp ruby php swift scala bash lua").split()


def folder_bytes(module: str) -> int:
    spec = importlib.util.find_spec(module)
    root = Path(spec.origin).parent  # type: ignore[union-attr, arg-type]
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def fresh_import_ms(statement: str, runs: int = 5) -> float:
    """Median wall time of ``statement`` in a new interpreter, minus an empty interpreter's."""
    def once(code: str) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - started
    base = statistics.median(once("pass") for _ in range(runs))
    return 1000 * (statistics.median(once(statement) for _ in range(runs)) - base)


def main() -> None:
    pack = folder_bytes("tree_sitter_language_pack")
    wheels = sum(folder_bytes(f"tree_sitter_{name}") for name in WHEELS)
    print(f"installed: tree_sitter_language_pack {pack / 1e6:.1f} MB; the 17 grammar wheels {wheels / 1e6:.1f} MB")
    print(f"import tree_sitter_language_pack: {fresh_import_ms('import tree_sitter_language_pack'):.0f} ms "
          f"(import tree_sitter alone: {fresh_import_ms('import tree_sitter'):.0f} ms)")
    from paqad.index.chunking.grammar_load import definition_query
    from paqad.index.grammar_files import grammar_files

    started = time.perf_counter()
    grammar_files.cache_clear()
    files = grammar_files()
    print(f"read {len(files)} data-file headers: {1000 * (time.perf_counter() - started):.2f} ms")
    for language in files:
        started = time.perf_counter()
        definition_query(language)  # loads the grammar and compiles the query
        print(f"  {language}: grammar + query {1000 * (time.perf_counter() - started):.1f} ms")


if __name__ == "__main__":
    main()
