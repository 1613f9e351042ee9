"""Time to searchable: how soon after ``rag init`` starts a symbol query answers correctly.

Builds one project from copies of the pinned corpora (bench/corpora.py) under ``copyN/``
folders (8 copies: about 52k chunks, 6.5k distinct texts), starts
``paqad-ai rag init --provider local --yes`` with an empty index and, while it runs, asks
``paqad-ai rag probe QUERY --json --no-sync --top-n 1`` (a separate process, as a user or an
agent would) every ``--every`` seconds until the top result is the expected file. Prints the
seconds from the start of ``init`` to the first correct answer, to the "keyword search ready"
line on init's stderr (when the installation prints one), and to the end of ``init``; then the
model alone on the distinct chunk texts the build embeds (``--model-alone``), for the ratio
total / model.

    python bench/searchable.py                                  # this installation
    python bench/searchable.py --paqad-ai ../wt-speed-base/.venv/bin/paqad-ai
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(BENCH.parent.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(BENCH / ".cache" / "paqad-home"))

import corpora  # noqa: E402

QUERY = "where is merge_environment_settings defined"
EXPECTED = "/requests/src/requests/sessions.py"  # in any copyN/ folder

MODEL_ONLY = r"""
import json, sys, time
from pathlib import Path
from paqad.config import load_settings
from paqad.project import ProjectPaths
from paqad.index.chunking import chunk_file, dense_text
from paqad.index.discover import discover
from paqad.index.languages import language_for_path
from paqad.embed.factory import get_embedder

root = Path(sys.argv[1])
paths = ProjectPaths(root)
settings = load_settings(paths)
texts = []
for d in discover(root, settings.rag_max_file_size).eligible:
    text = (root / d.path).read_bytes().decode("utf-8", errors="replace").removeprefix("\ufeff")
    texts.extend(dense_text(c) for c in chunk_file(d.path, text, language_for_path(d.path)))
distinct = list(dict.fromkeys(texts))  # what a build embeds: each distinct text once
embedder = get_embedder(settings, paths)
embedder.embed_documents(["warm up the session"])
started = time.perf_counter()
embedder.embed_documents(distinct)
print(json.dumps({"chunks": len(texts), "distinct": len(distinct), "seconds": time.perf_counter() - started}))
"""


def assemble(root: Path, copies: int) -> None:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "big"\nversion = "0.1"\n', encoding="utf-8")
    for n in range(copies):
        for name in corpora.CORPORA:
            shutil.copytree(corpora.fetch(name), root / f"copy{n}" / name, ignore=shutil.ignore_patterns(".paqad"))


def probe(paqad_ai: str, root: Path) -> str | None:
    """The top result's path, or None (no index yet, or an error)."""
    out = subprocess.run([paqad_ai, "rag", "probe", QUERY, "--json", "--no-sync", "--top-n", "1", "--project-root", str(root)],
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        if os.environ.get("BENCH_DEBUG"):
            print(f"probe exit {out.returncode}: {out.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    try:
        results = json.loads(out.stdout)["results"]
    except (ValueError, KeyError):
        return None
    return results[0]["path"] if results else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=8, help="copies of the four corpora (default 8: ~52k chunks)")
    parser.add_argument("--paqad-ai", default=str(Path(sys.executable).parent / "paqad-ai"))
    parser.add_argument("--every", type=float, default=0.5, help="seconds between two probes")
    parser.add_argument("--model-alone", action="store_true", help="also time the model alone on the build's distinct texts")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="paqad-searchable-") as tmp:
        root = Path(tmp) / "project"
        assemble(root, args.copies)
        ready_at: list[float] = []
        started = time.monotonic()
        init = subprocess.Popen([args.paqad_ai, "rag", "init", "--provider", "local", "--yes", "--project-root", str(root)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        def watch() -> None:
            assert init.stderr is not None
            for line in init.stderr:
                if line.startswith("keyword search ready") and not ready_at:
                    ready_at.append(time.monotonic() - started)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        answered = None
        tries = 0
        while init.poll() is None and answered is None:
            tries += 1
            top = probe(args.paqad_ai, root)
            if top is not None and top.endswith(EXPECTED):
                answered = time.monotonic() - started
                break
            if os.environ.get("BENCH_DEBUG") and top is not None:
                print(f"probe {tries}: top result {top}", file=sys.stderr)
            time.sleep(args.every)
        out, _ = init.communicate()
        total = time.monotonic() - started
        watcher.join(5)
        if answered is None and probe(args.paqad_ai, root) is not None:
            answered = total  # only the finished index answered
        status = json.loads(subprocess.run([args.paqad_ai, "rag", "status", "--json", "--project-root", str(root)],
                                           capture_output=True, text=True, check=True).stdout)["index"]
        print(f"{args.paqad_ai}: {status['files']} files, {status['chunks']} chunks, index {status['size_bytes'] / 1e6:.1f} MB; "
              f"query {QUERY!r} -> {EXPECTED}")
        ready = f"{ready_at[0]:.1f} s" if ready_at else "-"
        print(f"  first correct answer {answered:.1f} s after init started ({tries} probes); keyword search ready line {ready}; "
              f"init done {total:.1f} s; load {os.getloadavg()[0]:.1f}")
        print(f"  init: {out.strip().splitlines()[-1] if out.strip() else '(no output)'}")
        if args.model_alone:
            python = str(Path(args.paqad_ai).parent / "python")
            model = json.loads(subprocess.run([python, "-c", MODEL_ONLY, str(root)], capture_output=True, text=True,
                                              check=True).stdout)
            print(f"  model alone: {model['distinct']} distinct texts of {model['chunks']} chunks in {model['seconds']:.1f} s; "
                  f"init / model = {total / model['seconds']:.2f}")


if __name__ == "__main__":
    main()
