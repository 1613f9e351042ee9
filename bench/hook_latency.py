"""Wall time of ``paqad-ai hook prompt`` as a host sees it (process start to exit).

Generates a synthetic project of N files (default 5,000: Python modules in packages plus some
Markdown), builds its index with the local model, then runs the hook R times with a warm index
and R times with the index missing, and prints p50 / p95 / max and how many answers carried
the retrieved-context section. Between runs it waits for the background refresh the hook
started, so each figure is the hook alone (pass --no-wait to measure under that contention).

Building the index of 5,000 files takes minutes on a 2-core machine; use --files for a
smaller run and --keep DIR to reuse a generated, indexed project.

    python bench/hook_latency.py --files 5000 --runs 20
    python bench/hook_latency.py --files 1000 --runs 10 --keep /tmp/hookbench
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")
BENCH = Path(__file__).resolve().parent
# Same defaults as the other benches: the offline mirror next to the repository, a bench-local store.
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(BENCH.parent.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(BENCH / ".cache" / "paqad-home"))

NOUNS = ("invoice", "customer", "order", "payment", "session", "token", "cache", "queue", "report", "user",
         "account", "ledger", "shipment", "coupon", "cart", "product", "review", "address", "webhook", "retry",
         "schedule", "backup", "tenant", "quota", "metric", "alert", "upload", "thumbnail", "search", "index")
VERBS = ("load", "save", "validate", "render", "compute", "merge", "refresh", "expire", "publish", "parse",
         "encode", "decode", "sync", "archive", "notify", "reconcile", "normalize", "schedule", "retry", "resolve")
PROMPTS = (
    "where do we validate the payment token before charging?",
    "how are expired sessions refreshed?",
    "fix the bug in invoice rendering when the customer has no address",
    "which function reconciles the ledger with shipments?",
    "add a retry with backoff to webhook publishing",
    "why does the cache expire coupons too early?",
    "where is the quota of a tenant computed?",
    "how do we archive old reports?",
    "explain how thumbnails are encoded after upload",
    "where are search index metrics published?",
)


def generate(root: Path, files: int, seed: int = 7) -> None:
    """Write ``files`` files under ``root``: ~90% Python modules (3-6 functions each), ~10% Markdown."""
    rng = random.Random(seed)
    (root / "pyproject.toml").write_text('[project]\nname = "bench"\nversion = "0.1"\n', encoding="utf-8")
    for i in range(files - 1):
        package = root / "src" / f"pkg_{i // 100:03d}"
        package.mkdir(parents=True, exist_ok=True)
        if i % 10 == 9:
            noun = rng.choice(NOUNS)
            body = [f"# {noun.title()} notes {i}", ""]
            for _ in range(rng.randint(3, 6)):
                verb, other = rng.choice(VERBS), rng.choice(NOUNS)
                body += [f"## {verb.title()} {other}", "", f"We {verb} the {other} of each {noun} nightly; see `{verb}_{other}`.", ""]
            (package / f"notes_{i}.md").write_text("\n".join(body), encoding="utf-8")
            continue
        lines = ['"""Module %d: helpers for %s and %s."""' % (i, rng.choice(NOUNS), rng.choice(NOUNS)), "", "import logging", "",
                 "log = logging.getLogger(__name__)", ""]
        for _ in range(rng.randint(3, 6)):
            verb, noun, other = rng.choice(VERBS), rng.choice(NOUNS), rng.choice(NOUNS)
            lines += [
                "",
                f"def {verb}_{noun}({noun}, {other}=None, *, limit={rng.randint(1, 500)}):",
                f'    """{verb.title()} the {noun} for the given {other}; at most ``limit`` items."""',
                f"    if {noun} is None:",
                f'        raise ValueError("{noun} is required")',
                f"    items = [x for x in {noun} if x is not None][:limit]",
                f'    log.debug("{verb} %d {noun} items", len(items))',
                "    return items",
            ]
        (package / f"mod_{i}.py").write_text("\n".join(lines) + "\n", encoding="utf-8")


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of ``values``."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def last_refresh_at(root: Path) -> float:
    try:
        return json.loads((root / ".paqad/state/last-refresh.json").read_text(encoding="utf-8"))["at"]
    except (OSError, ValueError, KeyError):
        return 0.0


def wait_refresh(root: Path, since: float, timeout: float = 300.0) -> None:
    lock = root / ".paqad/state/refresh.lock"
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if last_refresh_at(root) >= since:
            return
        if not (root / ".paqad/vectors/index.sqlite").exists():
            time.sleep(1.0)  # no index: the refresh exits at once without a record
            return
        time.sleep(0.05)
    print(f"warning: no refresh finished within {timeout:.0f}s ({lock})", file=sys.stderr)


def run_hooks(root: Path, host: str, runs: int, wait: bool) -> tuple[list[float], int]:
    times: list[float] = []
    delivered = 0
    for i in range(runs):
        payload = {"session_id": "bench", "cwd": str(root), "hook_event_name": "UserPromptSubmit", "prompt": PROMPTS[i % len(PROMPTS)]}
        since = time.time()
        start = time.monotonic()
        proc = subprocess.run([PAQAD_AI, "hook", "prompt", "--host", host, "--project-root", str(root)],
                              input=json.dumps(payload).encode(), capture_output=True, timeout=120)
        times.append(time.monotonic() - start)
        if proc.returncode != 0:
            print(f"run {i}: exit {proc.returncode}: {proc.stderr.decode(errors='replace')}", file=sys.stderr)
        if proc.stdout.strip() not in (b"", b"{}", b'{"continue": true}'):
            delivered += 1
        if wait:
            wait_refresh(root, since)
    return times, delivered


def report(label: str, times: list[float], delivered: int, budget_ms: int) -> str:
    ms = [t * 1000 for t in times]
    over = sum(1 for t in ms if t > budget_ms)
    return (f"{label:<16} runs={len(ms):<3} p50={percentile(ms, 50):6.0f} ms  p95={percentile(ms, 95):6.0f} ms  "
            f"max={max(ms):6.0f} ms  mean={statistics.fmean(ms):6.0f} ms  over budget={over}  with context={delivered}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=5000, help="files in the generated project (default 5000)")
    parser.add_argument("--runs", type=int, default=20, help="hook runs per scenario (default 20)")
    parser.add_argument("--host", default="claude", choices=("claude", "gemini", "codex", "cursor"))
    parser.add_argument("--keep", type=Path, default=None, help="generate/index here and keep it (reused when already indexed)")
    parser.add_argument("--no-wait", action="store_true", help="do not wait for the background refresh between runs")
    args = parser.parse_args(argv)

    workdir = args.keep or Path(tempfile.mkdtemp(prefix="paqad-hook-bench-"))
    root = workdir / "project"
    env_note = f"PAQAD_HOME={os.environ.get('PAQAD_HOME', '~/.paqad')} PAQAD_MODEL_MIRROR={os.environ.get('PAQAD_MODEL_MIRROR', '')}"
    try:
        if not (root / ".paqad/vectors/index.sqlite").exists():
            root.mkdir(parents=True, exist_ok=True)
            t0 = time.monotonic()
            generate(root, args.files)
            print(f"generated {args.files} files in {time.monotonic() - t0:.1f}s under {root}", file=sys.stderr)
            t0 = time.monotonic()
            subprocess.run([PAQAD_AI, "rag", "init", "--provider", "local", "--yes", "--project-root", str(root)], check=True)
            print(f"indexed in {time.monotonic() - t0:.1f}s ({env_note})", file=sys.stderr)
        budget_ms = 1500
        config = root / ".paqad/.config"
        for line in config.read_text(encoding="utf-8").splitlines():
            if line.startswith("rag_hook_budget_ms="):
                budget_ms = int(line.split("=", 1)[1])
        status = json.loads(subprocess.run([PAQAD_AI, "rag", "status", "--json", "--project-root", str(root)],
                                           capture_output=True, check=True).stdout)
        idx = status["index"]
        print(f"index: {idx['files']} files, {idx['chunks']} chunks, {idx['size_bytes'] / 1e6:.1f} MB; "
              f"budget {budget_ms} ms; host {args.host}; cores {os.cpu_count()}")

        warm, warm_delivered = run_hooks(root, args.host, args.runs, wait=not args.no_wait)
        print(report("warm index", warm, warm_delivered, budget_ms))

        vectors = root / ".paqad/vectors"
        hidden = root / ".paqad/vectors-hidden"
        vectors.rename(hidden)
        try:
            missing, missing_delivered = run_hooks(root, args.host, args.runs, wait=not args.no_wait)
        finally:
            hidden.rename(vectors)
        print(report("index missing", missing, missing_delivered, budget_ms))
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
