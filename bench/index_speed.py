"""Index speed and size: total build time vs the model alone, time to searchable, index bytes.

For each project: copy it to a temp folder (your own .paqad/ is never touched), run
``paqad-ai rag init --provider local --yes`` in a child process with an empty index, then, in
another child, embed the distinct chunk texts the build embeds with the model alone (model
loaded first, not timed). Prints total seconds, seconds until the "keyword search ready" line
(installations that print one), model seconds, their ratio (goal <= 1.1), chunks/s, the peak
RSS of the build, the index size and its ratio to the indexed source bytes (goal <= 3), build
seconds per MB of indexed source (under the ``rag_max_file_size`` in force: 1 MiB by default) and
the largest eligible file with its chunking time (issue 24).

``--python`` runs another installation's interpreter (e.g. the previous release's venv) for
the children, so old and new can be measured in one run, alternating.

    python bench/index_speed.py requests flask rich     # pinned PyPI sdists (bench/corpora.py)
    python bench/index_speed.py --self                  # this repository
    python bench/index_speed.py /path/to/project
    python bench/index_speed.py requests --python ../wt-speed-base/.venv/bin/python

PAQAD_MODEL_MIRROR is used when set (default: ../shared/models next to this repository).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

MODEL_ONLY = r"""
import json, sys, time
from pathlib import Path
from paqad.config import load_settings
from paqad.project import ProjectPaths
from paqad.index.chunking import chunk_file
from paqad.index.discover import discover
from paqad.embed.factory import get_embedder
from paqad.index.chunking import dense_text
from paqad.index.languages import language_for_path

root = Path(sys.argv[1])
paths = ProjectPaths(root)
settings = load_settings(paths)
texts = []
source = 0
largest = (0, "", 0.0)  # bytes, path, chunking seconds of the largest eligible file
for d in discover(root, settings.rag_max_file_size).eligible:
    data = (root / d.path).read_bytes()
    source += len(data)
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    started = time.perf_counter()
    chunks = chunk_file(d.path, text, language_for_path(d.path))
    if len(data) > largest[0]:
        largest = (len(data), d.path, time.perf_counter() - started)
    texts.extend(dense_text(c) for c in chunks)
distinct = list(dict.fromkeys(texts))  # a build embeds each distinct text once
embedder = get_embedder(settings, paths)
embedder.embed_documents(["warm up the session"])
started = time.perf_counter()
embedder.embed_documents(distinct)
print(json.dumps({"chunks": len(texts), "distinct": len(distinct), "source_bytes": source,
                  "seconds": time.perf_counter() - started, "largest": largest}))
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
    env.setdefault("PAQAD_HOME", str(BENCH / ".cache" / "paqad-home"))
    return env


def _copy(project: Path, dest: Path) -> Path:
    shutil.copytree(project, dest, symlinks=True, ignore=shutil.ignore_patterns(".paqad", ".ci"))
    return dest


def measure(project: Path, python: str = sys.executable) -> dict:
    """Build a fresh index of a copy of ``project`` and time the model alone on the same chunks."""
    with tempfile.TemporaryDirectory(prefix="paqad-bench-") as tmp:
        copy = _copy(project, Path(tmp) / project.name)
        env = _env()
        started = time.perf_counter()
        build = subprocess.Popen(
            [python, "-m", "paqad.cli.main", "rag", "init", "--provider", "local", "--yes", "--project-root", str(copy)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        searchable = None
        assert build.stderr is not None
        for line in build.stderr:  # plain progress lines: stderr is a pipe
            if searchable is None and line.startswith("keyword search ready"):
                searchable = time.perf_counter() - started
        build.wait()
        total = time.perf_counter() - started
        if build.returncode != 0:
            raise SystemExit(f"build failed for {project}")
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        status = json.loads(subprocess.run(
            [python, "-m", "paqad.cli.main", "rag", "status", "--json", "--project-root", str(copy)],
            env=env, capture_output=True, text=True, check=True).stdout)["index"]
        model = json.loads(subprocess.run([python, "-c", MODEL_ONLY, str(copy)], env=env,
                                          capture_output=True, text=True, check=True).stdout)
    return {
        "project": project.name, "files": status["files"], "chunks": status["chunks"], "distinct": model["distinct"],
        "total_s": round(total, 2), "searchable_s": round(searchable, 2) if searchable is not None else None,
        "model_s": round(model["seconds"], 2),
        "ratio": round(total / model["seconds"], 3) if model["seconds"] else None,
        "model_ms_per_chunk": round(model["seconds"] / model["distinct"] * 1000, 2) if model["distinct"] else None,
        "chunks_per_s": round(status["chunks"] / total, 1), "peak_rss_mb": round(peak_kib / 1024, 1),
        "index_mb": round(status["size_bytes"] / 1e6, 2), "source_mb": round(model["source_bytes"] / 1e6, 2),
        "size_ratio": round(status["size_bytes"] / model["source_bytes"], 2) if model["source_bytes"] else None,
        # build seconds per MB of indexed source (the rag_max_file_size in force), and the largest
        # eligible file: its KB and its chunking seconds (chunk_file alone, in the model-alone child)
        "s_per_mb": round(total / (model["source_bytes"] / 1e6), 1) if model["source_bytes"] else None,
        "largest_path": model["largest"][1], "largest_kb": round(model["largest"][0] / 1024),
        "largest_chunk_s": round(model["largest"][2], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("projects", nargs="*", help="corpus names (requests, flask, rich, click) or folders")
    parser.add_argument("--self", dest="self_repo", action="store_true", help="also index this repository")
    parser.add_argument("--json", type=Path, help="write the rows as JSON here")
    parser.add_argument("--python", default=sys.executable, help="interpreter of the installation to measure")
    args = parser.parse_args()
    import corpora

    targets: list[Path] = []
    for item in args.projects:
        targets.append(Path(item) if Path(item).is_dir() else corpora.fetch(item))
    if args.self_repo:
        targets.append(REPO)
    if not targets:
        parser.error("name at least one project, or --self")
    rows = []
    header = (f"{'project':<22}{'files':>7}{'chunks':>8}{'total s':>9}{'search. s':>10}{'model s':>9}{'ratio':>7}"
              f"{'ms/chunk':>9}{'chunks/s':>10}{'RSS MB':>8}{'index MB':>10}{'src MB':>8}{'size x':>8}{'s/MB':>7}"
              f"{'largest KB':>11}{'chunk s':>8}  largest file")
    print(f"{args.python}\n{header}", flush=True)
    for target in targets:
        # ru_maxrss of children is a high-water mark across all children: measure each project
        # in its own interpreter so the figure is that build's own peak.
        if len(targets) > 1:
            out = subprocess.run([sys.executable, __file__, str(target), "--json", "/dev/stdout", "--python", args.python],
                                 capture_output=True, text=True, check=True).stdout
            row = json.loads(out[out.index("\n["):])[0]
        else:
            row = measure(target, args.python)
        rows.append(row)
        print(f"{row['project']:<22}{row['files']:>7}{row['chunks']:>8}{row['total_s']:>9}{str(row['searchable_s'] or '-'):>10}"
              f"{row['model_s']:>9}{row['ratio']:>7}{row['model_ms_per_chunk']:>9}{row['chunks_per_s']:>10}"
              f"{row['peak_rss_mb']:>8}{row['index_mb']:>10}{row['source_mb']:>8}{row['size_ratio']:>8}{row['s_per_mb']:>7}"
              f"{row['largest_kb']:>11}{row['largest_chunk_s']:>8}  {row['largest_path']}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2)) if str(args.json) != "/dev/stdout" else print(json.dumps(rows))


if __name__ == "__main__":
    main()
