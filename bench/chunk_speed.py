"""Chunking time of source trees: every file with one of ``--suffixes`` under each folder, read as
text, cut by :func:`paqad.index.chunking.chunk_file`, timed with ``time.perf_counter`` (seconds, one
process, no embedding). Prints files, megabytes, chunks and definitions per folder and in all.

Compare two chunkers as a ratio in one sitting (the machine is shared): run this script with the
working tree's ``src`` and then with an older commit's ``src`` on the path, one after the other::

    .venv/bin/python bench/chunk_speed.py /tmp/re2 /tmp/libevent
    git worktree add /tmp/old 0fc748d && PYTHONPATH=/tmp/old/src .venv/bin/python bench/chunk_speed.py /tmp/re2 /tmp/libevent

(bench/README.md "Round 10: the lead's run": chunker 7 against 6 on four C/C++ projects.)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

C_CPP_SUFFIXES = ".c,.h,.cc,.cpp,.cxx,.hpp,.hh"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="source trees to chunk")
    parser.add_argument("--suffixes", default=C_CPP_SUFFIXES, help=f"comma-separated (default: {C_CPP_SUFFIXES})")
    args = parser.parse_args()
    from paqad.index.chunking import chunk_file

    suffixes = {s.strip() for s in args.suffixes.split(",") if s.strip()}
    totals = [0, 0, 0, 0, 0.0]  # files, characters, chunks, definitions, seconds
    for folder in args.folders:
        if not folder.is_dir():
            print(f"chunk_speed: {folder} is not a folder", file=sys.stderr)
            return 2
        texts = [(path.relative_to(folder).as_posix(), path.read_text(encoding="utf-8", errors="replace"))
                 for path in sorted(folder.rglob("*")) if path.suffix in suffixes and path.is_file()]
        started = time.perf_counter()
        chunks = [chunk for rel, text in texts for chunk in chunk_file(rel, text)]
        seconds = time.perf_counter() - started
        row = [len(texts), sum(len(text) for _, text in texts), len(chunks),
               sum(len(chunk.definitions) for chunk in chunks), seconds]
        totals = [a + b for a, b in zip(totals, row)]
        print(f"{folder}: {row[0]} files, {row[1] / 1e6:.1f} MB, {row[2]:,} chunks, {row[3]:,} definitions, {row[4]:.2f} s")
    print(f"all: {totals[0]} files, {totals[1] / 1e6:.1f} MB, {totals[2]:,} chunks, {totals[3]:,} definitions, {totals[4]:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
