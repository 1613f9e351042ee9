"""The prompt hook (a real process) against ``rag probe`` on the same prompts in one index.

For each prompt (one a line in ``--prompts``), runs ``paqad-ai hook prompt --host claude`` in the
project (warm process off unless ``--warm``; ``PAQAD_RAG_HOOK_BUDGET_MS`` from the environment)
and ``rag probe --json --no-sync -n 20``, and prints the delivered passages whose match % is not
probe's for the same lines. Timing misses print no % (issue 19), so they count as agreeing.

    PAQAD_RAG_HOOK_BUDGET_MS=450 .venv/bin/python bench/passages/hook_vs_probe.py --project DIR --prompts FILE
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")
HEADING = re.compile(r"^### (\S+?):L(\d+)-(\d+) .*?match (\d+)%", re.M)


def hook_passages(root: Path, prompt: str, warm: bool) -> list[tuple[str, int, int, int]]:
    env = dict(os.environ, PAQAD_RAG_WARM_PROCESS="true" if warm else "false")
    out = subprocess.run([PAQAD_AI, "hook", "prompt", "--host", "claude"], input=json.dumps({"prompt": prompt, "cwd": str(root)}),
                         capture_output=True, text=True, cwd=root, env=env, timeout=120).stdout
    section = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""
    return [(p, int(a), int(b), int(m)) for p, a, b, m in HEADING.findall(section)]


def probe_matches(root: Path, prompt: str) -> dict[tuple[str, int, int], tuple[int, int]]:
    out = subprocess.run([PAQAD_AI, "rag", "probe", "--json", "--no-sync", "-n", "20", prompt], capture_output=True,
                         text=True, cwd=root, timeout=120).stdout
    return {(r["path"], r["start_line"], r["end_line"]): (r["rank"], int(r["confidence"] * 100 + 0.5))
            for r in json.loads(out)["results"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--prompts", type=Path, required=True)
    parser.add_argument("--warm", action="store_true", help="let the hook ask the warm process")
    args = parser.parse_args()
    root = args.project.resolve()
    prompts = [line.strip() for line in args.prompts.read_text(encoding="utf-8").splitlines() if line.strip()]
    differ = 0
    for prompt in prompts:
        probe = probe_matches(root, prompt)
        bad = [(h, probe.get(h[:3])) for h in hook_passages(root, prompt, args.warm) if probe.get(h[:3], (0, None))[1] != h[3]]
        differ += bool(bad)
        print(("DIFF " if bad else "same ") + prompt[:70])
        for (path, start, end, match), seen in bad:
            print(f"     hook {path}:{start}-{end} {match}%; probe: " + (f"rank {seen[0]} at {seen[1]}%" if seen else "not in its top 20"))
    print(f"\n{len(prompts) - differ} of {len(prompts)} prompts agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
