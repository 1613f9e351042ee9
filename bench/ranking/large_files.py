"""Chunking and embedding cost of the files the 1 MiB cap admits (issue 24): every file of the
benchmark's corpora over the original's 150 KiB that passes the other filters, with its size,
chunking time, chunk count and the local model's embedding time for its chunks (measured on the
first ``--sample`` chunks and scaled), and whether it looks hand-written (no generated marker, not minified).

    nice -n 10 .venv/bin/python bench/ranking/large_files.py [--sample 64]

Read-only: nothing is written to the shared indexes. Times are of one run on a shared machine:
compare them with each other (per MB), not with other runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(REPO / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402

OLD_CAP = 153600
NEW_CAP = 1048576


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=64, help="chunks embedded per file to time the model")
    args = parser.parse_args()
    from paqad.config import load_settings
    from paqad.embed.factory import get_embedder
    from paqad.index.chunking import chunk_file
    from paqad.index.chunking.chunk import dense_text
    from paqad.index.discover import discover
    from paqad.index.filters import looks_hand_written
    from paqad.project import ProjectPaths

    embedder = None
    print("| project | file | KB | hand-written | chunking s | chunks | embedding s (est.) |")
    print("|---|---|---:|---|---:|---:|---:|")
    totals = [0, 0.0, 0, 0.0]
    for project in corpora.load_projects(None, None):
        root = corpora.materialise(project)
        found = discover(root, max_file_size=NEW_CAP)
        for d in found.eligible:
            if d.size <= OLD_CAP:
                continue
            text = (root / d.path).read_text(encoding="utf-8", errors="replace")
            started = time.perf_counter()
            chunks = chunk_file(d.path, text)
            chunk_s = time.perf_counter() - started
            if embedder is None:
                embedder = get_embedder(load_settings(ProjectPaths(root), environ={}))
            sample = [dense_text(c) for c in chunks[: args.sample]]
            started = time.perf_counter()
            embedder.embed_documents(sample)
            embed_s = (time.perf_counter() - started) * len(chunks) / max(1, len(sample))
            hand = looks_hand_written(root / d.path)
            totals = [totals[0] + d.size, totals[1] + chunk_s, totals[2] + len(chunks), totals[3] + embed_s]
            print(f"| {project.name} | {d.path} | {d.size / 1024:.0f} | {'yes' if hand else 'no'} | {chunk_s:.2f} | "
                  f"{len(chunks)} | {embed_s:.1f} |")
    mb = totals[0] / 1e6
    if mb:
        print(f"\n{mb:.2f} MB over 150 KiB: chunking {totals[1] / mb:.2f} s/MB, {totals[2] / mb:.0f} chunks/MB, "
              f"embedding {totals[3] / mb:.0f} s/MB (local model, this machine)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
