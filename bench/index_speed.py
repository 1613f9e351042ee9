"""Index speed: total build time vs the model alone, chunks/s and peak memory.

For each project: copy it to a temp folder (your own .paqad/ is never touched), run
``paqad-ai rag init --provider local --yes`` in a child process with an empty index, then, in
another child, embed the very same chunk texts with the model alone (model loaded first, not
timed). Prints total seconds, model seconds, their ratio (goal <= 1.15), chunks/s and the peak
RSS of the build.

    python bench/index_speed.py requests flask rich     # pinned PyPI sdists (bench/corpora.py)
    python bench/index_speed.py --self                  # this repository
    python bench/index_speed.py /path/to/project

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
for d in discover(root, settings.rag_max_file_size).eligible:
    text = (root / d.path).read_bytes().decode("utf-8", errors="replace").removeprefix("\ufeff")
    texts.extend(dense_text(c) for c in chunk_file(d.path, text, language_for_path(d.path)))
embedder = get_embedder(settings, paths)
embedder.embed_documents(["warm up the session"])
started = time.perf_counter()
embedder.embed_documents(texts)
print(json.dumps({"chunks": len(texts), "seconds": time.perf_counter() - started}))
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
    env.setdefault("PAQAD_HOME", str(BENCH / ".cache" / "paqad-home"))
    return env


def _copy(project: Path, dest: Path) -> Path:
    shutil.copytree(project, dest, symlinks=True, ignore=shutil.ignore_patterns(".paqad", ".ci"))
    return dest


def measure(project: Path) -> dict:
    """Build a fresh index of a copy of ``project`` and time the model alone on the same chunks."""
    with tempfile.TemporaryDirectory(prefix="paqad-bench-") as tmp:
        copy = _copy(project, Path(tmp) / project.name)
        env = _env()
        started = time.perf_counter()
        build = subprocess.run(
            [sys.executable, "-m", "paqad.cli.main", "rag", "init", "--provider", "local", "--yes", "--project-root", str(copy)],
            env=env, capture_output=True, text=True,
        )
        total = time.perf_counter() - started
        if build.returncode != 0:
            raise SystemExit(f"build failed for {project}: {build.stderr.strip()[-500:]}")
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        status = json.loads(subprocess.run(
            [sys.executable, "-m", "paqad.cli.main", "rag", "status", "--json", "--project-root", str(copy)],
            env=env, capture_output=True, text=True, check=True).stdout)["index"]
        model = json.loads(subprocess.run([sys.executable, "-c", MODEL_ONLY, str(copy)], env=env,
                                          capture_output=True, text=True, check=True).stdout)
    return {
        "project": project.name, "files": status["files"], "chunks": status["chunks"],
        "total_s": round(total, 2), "model_s": round(model["seconds"], 2),
        "ratio": round(total / model["seconds"], 3) if model["seconds"] else None,
        "chunks_per_s": round(status["chunks"] / total, 1), "peak_rss_mb": round(peak_kib / 1024, 1),
        "index_mb": round(status["size_bytes"] / 1e6, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("projects", nargs="*", help="corpus names (requests, flask, rich, click) or folders")
    parser.add_argument("--self", dest="self_repo", action="store_true", help="also index this repository")
    parser.add_argument("--json", type=Path, help="write the rows as JSON here")
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
    header = f"{'project':<22}{'files':>7}{'chunks':>8}{'total s':>9}{'model s':>9}{'ratio':>7}{'chunks/s':>10}{'peak RSS MB':>13}"
    print(header)
    for target in targets:
        # ru_maxrss of children is a high-water mark across all children: measure each project
        # in its own interpreter so the figure is that build's own peak.
        if len(targets) > 1:
            out = subprocess.run([sys.executable, __file__, str(target), "--json", "/dev/stdout"],
                                 capture_output=True, text=True, check=True).stdout
            row = json.loads(out[out.index("["):])[0]
        else:
            row = measure(target)
        rows.append(row)
        print(f"{row['project']:<22}{row['files']:>7}{row['chunks']:>8}{row['total_s']:>9}{row['model_s']:>9}"
              f"{row['ratio']:>7}{row['chunks_per_s']:>10}{row['peak_rss_mb']:>13}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2)) if str(args.json) != "/dev/stdout" else print(json.dumps(rows))


if __name__ == "__main__":
    main()
