"""Time from starting ``paqad-ai mcp`` to its answer to ``initialize`` (what a host waits for
before it can offer the tools), idle and with CPU-bound processes beside it.

    python bench/mcp_start.py --runs 20 --load 0 --load 4

Each run starts a fresh server process on a small indexed project (a temp folder; the model
comes from PAQAD_MODEL_MIRROR / PAQAD_HOME as for the tests), sends ``initialize`` and waits
for the reply line. ``--load N`` starts N ``while True: pass`` processes (nice 0) for that
series and stops them after. Prints p50 / p90 / max in seconds per series.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}


def one_start(root: Path) -> float:
    """Seconds from Popen to the ``initialize`` reply."""
    started = time.perf_counter()
    proc = subprocess.Popen([PAQAD_AI, "mcp", "--project-root", str(root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin and proc.stdout
    proc.stdin.write(json.dumps(INITIALIZE) + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - started
    proc.stdin.close()
    proc.wait(timeout=60)
    assert json.loads(line)["id"] == 1, line
    return elapsed


def series(root: Path, runs: int, load: int) -> list[float]:
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load)]
    try:
        time.sleep(1.0 if load else 0.0)
        return [one_start(root) for _ in range(runs)]
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--load", type=int, action="append", help="CPU-bound processes beside it (repeatable); default 0")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        (root / "src").mkdir(parents=True)
        (root / "src" / "retry.py").write_text("def with_retries(fn):\n    return fn()\n", encoding="utf-8")
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        subprocess.run([PAQAD_AI, "rag", "init", "--provider", "local", "--project-root", str(root)], check=True,
                       capture_output=True)
        one_start(root)  # page cache warm, as after any first start
        for load in args.load or [0]:
            times = sorted(series(root, args.runs, load))
            p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
            print(f"load {load}: {args.runs} starts, initialize answered p50 {statistics.median(times):.2f} s, "
                  f"p90 {p90:.2f} s, max {times[-1]:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
