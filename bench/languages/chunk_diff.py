"""The seventeen grammar-wheel languages, byte for byte: this code's chunks against another
commit's on the ranking benchmark's projects (issue 22: "the seventeen current languages keep
their chunks byte for byte").

Every file of each materialised project under bench/.cache/ranking/ whose language (by either
side's ``language_for_path``) is one of the seventeen wheel languages is cut by both chunkers in
two processes (the other side with ``PYTHONPATH=<OTHER>/src``); a chunk is its range, language,
symbol, kind, signature, ``defines``, ``definitions`` and text. Prints, per project, the files
compared and those whose chunks differ (with the first difference), and the totals.

    git archive d325bcf src | tar -x -C /work/tmp/old
    nice -n 5 .venv/bin/python bench/languages/chunk_diff.py --other /work/tmp/old [--projects a,b]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RANKING = HERE.parent / ".cache" / "ranking"
SEVENTEEN = frozenset("python javascript typescript go rust java kotlin c cpp csharp ruby php swift scala bash lua"
                      " tsx".split())
SKIP_DIRS = frozenset({".git", ".paqad", "node_modules"})
MAX_BYTES = 1_048_576  # the product's rag_max_file_size


def _files(root: Path) -> list[str]:
    """Project-relative paths of the regular files under ``root`` (not in .git/.paqad), sorted."""
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in names:
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= MAX_BYTES:
                found.append(path.relative_to(root).as_posix())
    return sorted(found)


def cut(root: Path, paths: list[str]) -> dict[str, list]:
    """``{path: [language, [chunk digest, first chunk as a tuple]...]}`` for the files of the
    seventeen languages, by the ``paqad`` this interpreter imports."""
    from paqad.index.chunking import chunk_file
    from paqad.index.languages import language_for_path
    out: dict[str, list] = {}
    for rel in paths:
        language = language_for_path(rel)
        try:
            text = (root / rel).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        chunks = [(c.start_line, c.end_line, c.language, c.symbol, c.kind, c.signature, c.defines,
                   list(c.definitions), c.text) for c in chunk_file(rel, text)]
        digest = hashlib.sha256(json.dumps(chunks).encode()).hexdigest()
        out[rel] = [language, digest, [list(c[:8]) for c in chunks]]
    return out


def side(other: Path | None, root: Path, paths: list[str]) -> dict[str, list]:
    """:func:`cut` in a fresh interpreter importing ``other``'s src (this checkout's when None)."""
    src = str(other / "src") if other else str(HERE.parent.parent / "src")
    env = {**os.environ, "PYTHONPATH": src}
    code = (f"import json, sys; sys.path.insert(0, {str(HERE)!r}); import chunk_diff; "
            f"print(json.dumps(chunk_diff.cut(__import__('pathlib').Path(sys.argv[1]), json.load(sys.stdin))))")
    done = subprocess.run([sys.executable, "-c", code, str(root)], input=json.dumps(paths), env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def compare(root: Path, other: Path) -> tuple[int, list[str]]:
    """(files of the seventeen compared, descriptions of those whose chunks differ)."""
    paths = _files(root)
    new, old = side(None, root, paths), side(other, root, paths)
    differ, compared = [], 0
    for rel in paths:
        languages = {x[rel][0] for x in (new, old) if rel in x}
        if not languages & SEVENTEEN:
            continue
        compared += 1
        a, b = new.get(rel), old.get(rel)
        if a is None or b is None or a[:2] != b[:2]:
            first = next((f"{x} | {y}" for x, y in zip(a[2] if a else [], b[2] if b else []) if x != y), "")
            differ.append(f"{rel}: {a[0] if a else None} vs {b[0] if b else None} {first}"[:300])
    return compared, differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, required=True, help="a tree holding the other commit's src/")
    parser.add_argument("--projects", default="", help="comma-separated folder-name prefixes (default: all)")
    args = parser.parse_args()
    wanted = [p for p in args.projects.split(",") if p]
    total_files, total_differ = 0, 0
    for root in sorted(p for p in RANKING.iterdir() if p.is_dir()):
        if wanted and not any(root.name.startswith(w + "-") for w in wanted):
            continue
        compared, differ = compare(root.resolve(), args.other)
        total_files, total_differ = total_files + compared, total_differ + len(differ)
        print(f"{root.name}: {compared} files of the seventeen, {len(differ)} differ", flush=True)
        for line in differ:
            print("   ", line, flush=True)
    print(f"total: {total_files} files, {total_differ} differ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
