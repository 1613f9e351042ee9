"""Query speed: in-process search, `probe` end to end, and `refresh-context` on a large project.

Builds one growing project in a temp folder from the pinned corpora (bench/corpora.py): first
requests alone (about 1k chunks), then copies of all four corpora under ``copyN/`` folders
until the index holds about 10k and then 50k chunks. Copies hit the embedding cache (the
embedded text carries no path), so only the first copy costs model time. At each size it times:

- ``search()`` in process, query embedding included (median, p95 over the quality-set queries);
- ``paqad-ai rag probe QUERY --json`` as a child process, sync included (median, p95): answered in
  its own process (``rag_warm_process`` off), then served by the project's warm process;

and on a project of at least 5,000 files, ``paqad-ai rag refresh-context`` with nothing changed
and with one file changed (child process, and in process).

    python bench/query_speed.py                      # 1k, 10k, 50k chunks; 5,000 files
    python bench/query_speed.py --sizes 1000,10000 --refresh-files 2000
    python bench/query_speed.py --sizes 50000 --probe-runs 0 --refresh-files 0 --configs default,no-symbols-def3 --symbol-queries
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(BENCH / ".cache" / "paqad-home"))

import corpora  # noqa: E402

from paqad.config import load_settings, write_local_values  # noqa: E402
from paqad.project import ProjectPaths  # noqa: E402
from paqad.embed.factory import get_embedder  # noqa: E402
from paqad.build import sync as sync_index  # noqa: E402
from paqad.deliver.query import record_prompt  # noqa: E402
from paqad.deliver.refresh import refresh_context  # noqa: E402
from paqad.search import search  # noqa: E402
from paqad.store import open_store  # noqa: E402


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:7.1f} ms   p95 {pct(values, 0.95) * 1000:7.1f} ms"


# identifiers of the requests corpus (issue 24, round 8: symbol lookups, the constants among them
# missing from the symbol table, so text_definitions reads BM25 hits' rows for them)
SYMBOL_QUERIES = ["Session", "HTTPAdapter", "PreparedRequest.prepare_body", "DEFAULT_POOLSIZE", "REDIRECT_STATI",
                  "CaseInsensitiveDict", "merge_setting", "get_netrc_auth", "Response.iter_content", "DEFAULT_RETRIES"]


def queries() -> list[str]:
    data = json.loads((BENCH / "quality_cases.json").read_text())
    return [c["query"] for c in data["cases"]]


def counts(paths: ProjectPaths) -> tuple[int, int]:
    with open_store(paths, readonly=True) as store:
        c = store.counts()
    return int(c["files"]), int(c["chunks"])


def add_copy(project: Path, n: int) -> None:
    for name in corpora.CORPORA:
        src = corpora.fetch(name)
        shutil.copytree(src, project / f"copy{n}" / name, ignore=shutil.ignore_patterns(".paqad"))


def cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paqad.cli.main", *args], capture_output=True, text=True,
                          env=dict(os.environ, **env))


def time_probes(project: Path, qs: list[str], **env: str) -> list[float]:
    """Seconds per ``rag probe`` child process, one per query."""
    times = []
    for q in qs:
        t0 = time.perf_counter()
        out = cli("rag", "probe", q, "--json", "--project-root", str(project), **env)
        times.append(time.perf_counter() - t0)
        assert out.returncode == 0, out.stderr
    return times


def start_warm(paths: ProjectPaths) -> subprocess.Popen:
    """The project's warm process, once it answers (the model and the index loaded)."""
    from paqad.hosts import warm

    server = subprocess.Popen([sys.executable, "-m", "paqad.hosts.warm", "--project-root", str(paths.root)])
    for _ in range(600):
        try:
            warm.ask(paths, "ping", time.monotonic() + 5.0)
            return server
        except warm.Miss:
            time.sleep(0.1)
    raise SystemExit("the warm process did not come up")


def time_configs(paths, settings, embedder, store, qs: list[str], configs: dict, rounds: int = 3) -> dict[str, list[float]]:
    """Seconds of ``search()`` per ranking configuration, the configurations interleaved query by
    query (so the shared machine's load falls on all of them alike), ``rounds`` times each."""
    out: dict[str, list[float]] = {name: [] for name in configs}
    for _ in range(rounds if configs else 0):
        for q in qs:
            for name, options in configs.items():
                t0 = time.perf_counter()
                search(paths, settings, q, embedder=embedder, store=store, options=options)
                out[name].append(time.perf_counter() - t0)
    return out


def time_search(paths, settings, embedder, qs: list[str], configs: dict, chunks: int, symbols: bool = False) -> None:
    """Print ``search()`` in process with the index held open and opened per call (and per ranking
    configuration, interleaved, when ``configs`` names some; with ``symbols``, also over
    :data:`SYMBOL_QUERIES` per configuration)."""
    search(paths, settings, qs[0], embedder=embedder)  # derived matrix + page cache warm
    held = open_store(paths, readonly=True)  # as the MCP server keeps it
    times, opening = [], []
    for q in qs:
        t0 = time.perf_counter()
        search(paths, settings, q, embedder=embedder, store=held)
        times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        search(paths, settings, q, embedder=embedder)
        opening.append(time.perf_counter() - t0)
    by_config = time_configs(paths, settings, embedder, held, qs, configs)
    by_config_symbols = time_configs(paths, settings, embedder, held, SYMBOL_QUERIES, configs) if symbols else {}
    held.close()
    print(f"search in process   {chunks:>6} chunks: {ms(times)}   ({len(qs)} queries, index open, query embedding included)")
    print(f"  same, opening the index per call:  {ms(opening)}")
    for name, values in by_config.items():
        print(f"  configuration {name:<20} {ms(values)}   (index open, interleaved, {len(values)} runs)")
    for name, values in by_config_symbols.items():
        print(f"  symbol queries {name:<19} {ms(values)}   (index open, interleaved, {len(values)} runs)")


def time_probe_modes(project: Path, paths, probe_qs: list[str], chunks: int) -> None:
    """Print ``rag probe`` end to end in its own process, then served by the warm process."""
    probe_times = time_probes(project, probe_qs, PAQAD_RAG_WARM_PROCESS="false")
    print(f"probe end to end    {chunks:>6} chunks: {ms(probe_times)}   ({len(probe_times)} runs, sync included, own process)")
    server = start_warm(paths)
    try:
        warm_times = time_probes(project, probe_qs, PAQAD_RAG_WARM_PROCESS="true")
    finally:
        from paqad.hosts import warm

        warm.stop(paths)
        server.wait(timeout=30)
    print(f"  same, warm process running:        {ms(warm_times)}   ({len(warm_times)} runs)")


def time_refresh(project: Path, paths, settings, embedder, refresh_files: int, copies: int) -> None:
    """Grow the project to ``refresh_files`` files, then print ``refresh-context`` timings."""
    while counts(paths)[0] < refresh_files:
        copies += 1
        add_copy(project, copies)
        sync_index(paths, settings, embedder)
    files, chunks = counts(paths)
    record_prompt(paths, "where are redirects handled and auth headers stripped?")
    target = project / "src" / "requests" / "help.py"
    for label, change in (("nothing changed", False), ("one file changed", True)):
        child, inproc = [], []
        for i in range(5):
            if change:
                target.write_text(target.read_text() + f"\n# edit {label} {i}\n")
            t0 = time.perf_counter()
            out = cli("rag", "refresh-context", "--project-root", str(project))
            child.append(time.perf_counter() - t0)
            assert out.returncode == 0, out.stderr
            if change:
                target.write_text(target.read_text() + f"\n# in-process edit {i}\n")
            t0 = time.perf_counter()
            refresh_context(paths, settings)
            inproc.append(time.perf_counter() - t0)
        print(f"refresh-context {label:<17} {files} files / {chunks} chunks: child {ms(child)}; in process {ms(inproc)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,50000", help="chunk counts to time search at")
    parser.add_argument("--refresh-files", type=int, default=5000, help="files in the project for the refresh timing")
    parser.add_argument("--probe-runs", type=int, default=10)
    parser.add_argument("--configs", default="", help="also time search() in process under these ranking "
                        "configurations (bench/ranking/run.py --list), interleaved query by query in the same run")
    parser.add_argument("--symbol-queries", action="store_true",
                        help="with --configs: also time the identifier lookups of SYMBOL_QUERIES per configuration")
    args = parser.parse_args()
    from paqad.search import ablations

    configs = {name: ablations()[name] for name in args.configs.split(",") if name}
    sizes = [int(s) for s in args.sizes.split(",")]
    qs = queries()
    with tempfile.TemporaryDirectory(prefix="paqad-qspeed-") as tmp:
        project = Path(tmp) / "project"
        shutil.copytree(corpora.fetch("requests"), project)
        (project / "pyproject.toml").touch()
        paths = ProjectPaths(project)
        write_local_values(paths, {"rag_enabled": True})
        settings = load_settings(paths)
        embedder = get_embedder(settings, paths)
        copies = 0
        for size in sizes:
            while True:
                started = time.perf_counter()
                report = sync_index(paths, settings, embedder)
                files, chunks = counts(paths)
                print(f"  index: {files} files, {chunks} chunks (+{report.embedded} embedded, {time.perf_counter() - started:.1f}s)", file=sys.stderr)
                if chunks >= size * 0.9 or copies > 200:
                    break
                copies += 1
                add_copy(project, copies)
            time_search(paths, settings, embedder, qs, configs, chunks, args.symbol_queries)
            if args.probe_runs > 0:
                time_probe_modes(project, paths, qs[: args.probe_runs], chunks)
        if args.refresh_files > 0:
            time_refresh(project, paths, settings, embedder, args.refresh_files, copies)


if __name__ == "__main__":
    main()
