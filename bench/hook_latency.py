"""Wall time of ``paqad-ai hook prompt`` as a host sees it (process start to exit).

Generates a synthetic project of N files (default 5,000: Python modules in packages plus some
Markdown, about 23k chunks), builds its index with the local model, then runs the hook R times
per scenario and prints p50 / p95 / max, how many answers came over the budget, and what they
carried: a ``## Retrieved context`` section for *that* prompt, split into hybrid answers
(passages with a match %), keyword-only answers (the dense side missed the budget) and the
"nothing above the floor" form. Between runs it waits for the background refresh the hook
started, so each figure is the hook alone (pass --no-wait to measure under that contention).

Scenarios (``--scenarios``, in the order given):
  idle         the hook answers in its own process (``PAQAD_RAG_WARM_PROCESS=false``)
  loaded       the same with ``--load`` CPU-bound processes running (``python -c 'while True: pass'``)
  warm         a warm per-project process answers (started and warmed up before timing)
  warm-loaded  the same under load
  missing      ``.paqad/vectors/`` moved away (index missing)
  ratio        no hook: R cold processes each run the hook's in-process answer with no deadline and
               print the dense side's seconds over the keyword side's (process start to keyword
               answer): the figure paqad.deliver.dense_cost.DEFAULT_RATIO comes from (median, p95)
  ratio-loaded the same under load

``--paqad-ai`` may name several installations (comma-separated, ``label=path`` or a path): each
scenario then runs them in turn, ``--rounds`` times, on the same project, so old and new are
measured under the same load; figures are per installation over all rounds.


Building the index of 5,000 files takes minutes on a 2-core machine; use --files for a
smaller run and --keep DIR to reuse a generated, indexed project.

    python bench/hook_latency.py --files 5000 --runs 40 --keep /tmp/hookbench
    python bench/hook_latency.py --files 500 --runs 5 --rounds 2 --keep /tmp/hookbench --scenarios idle,loaded \
        --paqad-ai main=/tmp/main/bin/paqad-ai,branch=.venv/bin/paqad-ai
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

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")  # --paqad-ai overrides
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


def classify(stdout: bytes) -> str:
    """What one answer carried: ``hybrid``, ``keyword``, ``nothing`` (the section's nothing form) or ``none``."""
    text = stdout.decode("utf-8", errors="replace")
    if "## Retrieved context" not in text:
        return "none"
    # The "Search degraded: ..." line of a keyword answer (rated or not); before round 7 the line of
    # a keyword answer sent after the dense side had started lacked "keyword search only".
    if "keyword search only" in text or "Search degraded:" in text:
        return "keyword"
    if "Nothing above the confidence floor" in text:
        return "nothing"
    return "hybrid"


def run_hooks(root: Path, host: str, runs: int, wait: bool, env: dict | None = None) -> tuple[list[float], list[str]]:
    times: list[float] = []
    kinds: list[str] = []
    for i in range(runs):
        payload = {"session_id": "bench", "cwd": str(root), "hook_event_name": "UserPromptSubmit", "prompt": PROMPTS[i % len(PROMPTS)]}
        since = time.time()
        start = time.monotonic()
        proc = subprocess.run([PAQAD_AI, "hook", "prompt", "--host", host, "--project-root", str(root)],
                              input=json.dumps(payload).encode(), capture_output=True, timeout=120, env=env)
        times.append(time.monotonic() - start)
        if proc.returncode != 0:
            print(f"run {i}: exit {proc.returncode}: {proc.stderr.decode(errors='replace')}", file=sys.stderr)
        kinds.append(classify(proc.stdout))
        if wait:
            wait_refresh(root, since)
    return times, kinds


def report(label: str, times: list[float], kinds: list[str], budget_ms: int) -> str:
    ms = [t * 1000 for t in times]
    over = sum(1 for t in ms if t > budget_ms)
    in_time = [k for k, t in zip(kinds, ms) if t <= budget_ms]
    section = sum(1 for k in in_time if k != "none")
    return (f"{label:<22} runs={len(ms):<3} p50={percentile(ms, 50):6.0f} ms  p95={percentile(ms, 95):6.0f} ms  "
            f"max={max(ms):6.0f} ms  over budget={over}  section in time={section}/{len(ms)} "
            f"(hybrid {in_time.count('hybrid')}, keyword {in_time.count('keyword')}, nothing-form {in_time.count('nothing')})")


class Load:
    """``count`` CPU-bound processes for the duration of a ``with`` block."""

    def __init__(self, count: int):
        self.count = count
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> "Load":
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(self.count)]
        time.sleep(1.0)
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            proc.kill()
        for proc in self.procs:
            proc.wait()


RATIO_SCRIPT = """
import math, sys, time
from pathlib import Path
from paqad.config import load_settings
from paqad.deliver.answer import section_for_prompt
from paqad.hosts.prompt_hook import process_age_seconds
from paqad.project import ProjectPaths
started = time.monotonic() - process_age_seconds()
paths = ProjectPaths(Path(sys.argv[1]))
marks = []
section = section_for_prompt(paths, load_settings(paths), sys.argv[2], math.inf, started=started,
                             keyword_first=lambda text: marks.append(time.monotonic()))
done = time.monotonic()
print(marks[0] - started, done - marks[0], "keyword search only" in (section or ""))
"""


def run_ratios(root: Path, runs: int) -> list[tuple[float, float]]:
    """``(keyword_seconds, dense_seconds)`` of ``runs`` cold processes answering as the hook does in
    its own process, with no deadline (the dense side always runs); the learnt-ratio file the runs
    write is removed so that it does not steer the hooks measured after."""
    python = str(Path(PAQAD_AI).parent / "python")
    pairs = []
    for i in range(runs):
        proc = subprocess.run([python, "-P", "-c", RATIO_SCRIPT, str(root), PROMPTS[i % len(PROMPTS)]],
                              capture_output=True, timeout=120, cwd=root)
        fields = proc.stdout.split()
        if proc.returncode != 0 or len(fields) != 3 or fields[2] != b"False":
            print(f"ratio run {i}: exit {proc.returncode}: {proc.stdout!r} {proc.stderr.decode(errors='replace')[-500:]}",
                  file=sys.stderr)
            continue
        pairs.append((float(fields[0]), float(fields[1])))
    (root / ".paqad/state/dense-cost.json").unlink(missing_ok=True)
    return pairs


def report_ratios(label: str, pairs: list[tuple[float, float]]) -> str:
    if not pairs:
        return f"{label:<22} no run finished"
    ratios = [d / k for k, d in pairs]
    return (f"{label:<22} runs={len(pairs):<3} keyword side p50={percentile([k * 1000 for k, _ in pairs], 50):6.0f} ms  "
            f"dense side p50={percentile([d * 1000 for _, d in pairs], 50):6.0f} ms  "
            f"ratio p50={percentile(ratios, 50):.2f} p95={percentile(ratios, 95):.2f} max={max(ratios):.2f}")


def warm_env(on: bool) -> dict:
    return dict(os.environ, PAQAD_RAG_WARM_PROCESS="true" if on else "false")


def stop_warm(root: Path) -> None:
    """Stop the project's warm process, if this installation has one (a no-op for older ones)."""
    python = Path(PAQAD_AI).parent / "python"
    subprocess.run([str(python), "-c", "import sys\ntry:\n from paqad.hosts import warm\nexcept ImportError:\n sys.exit(0)\n"
                    "from paqad.project import ProjectPaths\nwarm.stop(ProjectPaths(__import__('pathlib').Path(sys.argv[1])))",
                    str(root)], capture_output=True, timeout=60)


def start_warm(root: Path, host: str) -> None:
    """One untimed prompt starts the warm process; wait until it answers."""
    run_hooks(root, host, 1, wait=True, env=warm_env(True))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (root / ".paqad/state/warm.sock").exists():
        time.sleep(0.1)
    run_hooks(root, host, 1, wait=True, env=warm_env(True))  # the model is loaded once it has answered


def run_scenario(root: Path, scenario: str, args: argparse.Namespace) -> tuple[list, list]:
    """One block of ``args.runs`` runs of ``scenario`` with the installation in :data:`PAQAD_AI`:
    ``(seconds, kinds)`` of the hooks, or ``(pairs, [])`` of the ``ratio`` runs."""
    warm = scenario.startswith("warm")
    stop_warm(root)
    if warm:
        start_warm(root, args.host)
    if scenario.startswith("ratio"):
        if scenario.endswith("loaded"):
            with Load(args.load):
                return run_ratios(root, args.runs), []
        return run_ratios(root, args.runs), []
    if scenario == "missing":
        vectors, hidden = root / ".paqad/vectors", root / ".paqad/vectors-hidden"
        vectors.rename(hidden)
        try:
            return run_hooks(root, args.host, args.runs, not args.no_wait, warm_env(False))
        finally:
            hidden.rename(vectors)
    if scenario.endswith("loaded"):
        with Load(args.load):
            return run_hooks(root, args.host, args.runs, not args.no_wait, warm_env(warm))
    return run_hooks(root, args.host, args.runs, not args.no_wait, warm_env(warm))


def main(argv: list[str] | None = None) -> int:
    global PAQAD_AI
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=5000, help="files in the generated project (default 5000)")
    parser.add_argument("--runs", type=int, default=20, help="hook runs per scenario (default 20)")
    parser.add_argument("--host", default="claude", choices=("claude", "gemini", "codex", "cursor"))
    parser.add_argument("--keep", type=Path, default=None, help="generate/index here and keep it (reused when already indexed)")
    parser.add_argument("--no-wait", action="store_true", help="do not wait for the background refresh between runs")
    parser.add_argument("--scenarios", default="idle,loaded,warm,warm-loaded,missing")
    parser.add_argument("--load", type=int, default=4, help="CPU-bound processes in the loaded scenarios (default 4)")
    parser.add_argument("--paqad-ai", default=PAQAD_AI,
                        help="the paqad-ai executable(s) to measure, comma-separated, each LABEL=PATH or PATH (default: this venv's)")
    parser.add_argument("--budget-ms", type=int, default=None,
                        help="rag_hook_budget_ms for the hooks measured (default: the project's setting, 1500)")
    parser.add_argument("--rounds", type=int, default=1, help="times each scenario runs every installation in turn (default 1)")
    args = parser.parse_args(argv)
    installs = [tuple(item.split("=", 1)) if "=" in item else (Path(item).parent.parent.name or item, item)
                for item in args.paqad_ai.split(",")]
    PAQAD_AI = installs[0][1]

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
        if args.budget_ms is not None:  # the hooks read it from the environment (HOOK_SIDE_VARIABLES)
            budget_ms = args.budget_ms
            os.environ["PAQAD_RAG_HOOK_BUDGET_MS"] = str(budget_ms)
        status = json.loads(subprocess.run([PAQAD_AI, "rag", "status", "--json", "--project-root", str(root)],
                                           capture_output=True, check=True).stdout)
        idx = status["index"]
        print(f"{PAQAD_AI}: index {idx['files']} files, {idx['chunks']} chunks, {idx['size_bytes'] / 1e6:.1f} MB; "
              f"budget {budget_ms} ms; host {args.host}; cores {os.cpu_count()}; load processes {args.load}", flush=True)

        for scenario in args.scenarios.split(","):
            figures: dict[str, tuple[list, list]] = {label: ([], []) for label, _ in installs}
            for _ in range(args.rounds):
                for label, exe in installs:
                    PAQAD_AI = exe
                    times, kinds = run_scenario(root, scenario, args)
                    figures[label][0].extend(times)
                    figures[label][1].extend(kinds)
            for label, (times, kinds) in figures.items():
                name = f"{scenario} {label}" if len(installs) > 1 else scenario
                line = report_ratios(name, times) if scenario.startswith("ratio") else report(name, times, kinds, budget_ms)
                print(line, flush=True)
        for _, exe in installs:
            PAQAD_AI = exe
            stop_warm(root)
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
