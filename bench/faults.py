"""Fault injection beyond kill -9 (issue 20): SIGTERM in every stage of a refresh, a full disk
while committing, a truncated index file. Each trial checks that the previous index stays usable
(status answers, probe finds a known passage), that the section file is whole, that the user is
told what to run, and that following it (or the next refresh) brings the edit in.

Prints ``survived/run`` per fault. Real processes, real model, real SQLite; the disk-full trials
need root for a small tmpfs (``mount -t tmpfs -o size=2m``); without it they fall back to
RLIMIT_FSIZE and say so.

    PAQAD_MODEL_MIRROR=../shared/models nice -n 10 .venv/bin/python bench/faults.py --trials 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PAQAD_AI = str(Path(sys.executable).parent / "paqad-ai")
QUERY = "which function computes the shipping rate per kilogram"
KNOWN = "src/shop/rates.py"

# A child process that runs `rag refresh-context` and sends itself SIGTERM when the refresh reaches
# a stage: Python's default SIGTERM action ends the process there, no cleanup code runs.
CHILD = r"""
import os, signal, sys
stage, root = sys.argv[1], sys.argv[2]
def die(*a, **k):
    os.kill(os.getpid(), signal.SIGTERM)
import paqad.build as build, paqad.store.index_store as index_store, paqad.store.vectors as vectors
import paqad.atomic as atomic
if stage == "sync":
    build.plan_sync = die
elif stage == "chunk":
    build.chunk_changed = die
elif stage == "apply":      # inside apply's transaction: chunks inserted, file rows not yet
    index_store.IndexStore.upsert_file = die
elif stage == "embed":      # inside commit_vectors' transaction
    vectors.append_vectors = die
elif stage == "write-section":  # the temp file written, the rename not done
    real = os.replace
    def replace(src, dst, *a, **k):
        if str(dst).endswith("session-context.md"):
            die()
        return real(src, dst, *a, **k)
    atomic.os.replace = replace
from paqad.cli.main import main
sys.exit(main(["rag", "refresh-context", "--project-root", root]))
"""


def _run(args: list[str], root: Path, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([PAQAD_AI, *args, "--project-root", str(root)], capture_output=True, text=True, timeout=300, **kw)


def make_base(where: Path) -> Path:
    """A small Python project (40 files) with its index built and a section written."""
    root = where / "base"
    (root / "src/shop").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "shop"\nversion = "1.0"\n')
    (root / KNOWN).write_text(
        "def shipping_rate(weight_kg: float) -> float:\n"
        '    """Shipping rate for a parcel: seven euros per kilogram, twelve euros at least."""\n'
        "    return max(12.0, weight_kg * 7)\n")
    for i in range(40):
        (root / f"src/shop/module_{i}.py").write_text("".join(
            f"def handler_{i}_{j}(order):\n    \"\"\"Handle step {j} of order workflow {i}: validate, price, reserve stock.\"\"\"\n"
            f"    return order.total * {j + 1} + {i}\n\n\n" for j in range(6)))
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base"], cwd=root, check=True)
    assert _run(["rag", "init", "--provider", "local"], root).returncode == 0
    (root / ".paqad/context").mkdir(parents=True, exist_ok=True)
    (root / ".paqad/context/last-prompt.json").write_text(json.dumps({"prompt": QUERY, "at": 0}))
    assert _run(["rag", "refresh-context"], root).returncode == 0
    return root


def _edit(root: Path, word: str) -> None:
    with open(root / "src/shop/module_3.py", "a", encoding="utf-8") as f:
        f.write(f"\n\ndef {word}(order):\n    \"\"\"Apply the {word} discount to loyal customers' orders.\"\"\"\n    return order.total * 0.9\n")


def usable(root: Path) -> tuple[bool, str]:
    """(previous index usable, why not): status answers, probe finds the known passage."""
    status = _run(["rag", "status", "--json"], root)
    if status.returncode != 0 or "Traceback" in status.stderr:
        return False, f"status exit {status.returncode}: {status.stderr.strip()[:200]}"
    probe = _run(["rag", "probe", QUERY, "--json", "--no-sync"], root)
    if probe.returncode != 0:
        return False, f"probe exit {probe.returncode}: {probe.stderr.strip()[:200]}"
    results = json.loads(probe.stdout)["results"]
    if not results or results[0]["path"] != KNOWN:
        return False, f"probe top {results[0]['path'] if results else None}"
    section = root / ".paqad/context/session-context.md"
    if section.exists() and "## Retrieved context" not in section.read_text(encoding="utf-8"):
        return False, "session-context.md lost its section"
    return True, ""


def edit_arrives(root: Path, word: str) -> tuple[bool, str]:
    """The next refresh (what the next prompt starts) syncs the edit the fault interrupted."""
    refresh = _run(["rag", "refresh-context"], root)
    if refresh.returncode != 0:
        return False, f"refresh exit {refresh.returncode}: {refresh.stderr.strip()[:200]}"
    probe = _run(["rag", "probe", f"{word} discount loyal customers", "--json", "--no-sync"], root)
    paths = [r["path"] for r in json.loads(probe.stdout)["results"][:3]] if probe.returncode == 0 else []
    return ("src/shop/module_3.py" in paths), f"after refresh, top 3 {paths}"


def sigterm_trial(base: Path, work: Path, stage: str, n: int) -> tuple[bool, str]:
    root = work / f"term-{stage}-{n}"
    shutil.copytree(base, root, symlinks=True)
    word = f"markdown_{stage.replace('-', '_')}_{n}"
    _edit(root, word)
    prompt = {"prompt": f"how is the {word} discount applied to orders", "at": 0}  # a new section to write
    (root / ".paqad/context/last-prompt.json").write_text(json.dumps(prompt))
    proc = subprocess.run([sys.executable, "-c", CHILD, stage, str(root)], capture_output=True, text=True, timeout=300)
    if proc.returncode != -15:
        return False, f"child ended {proc.returncode}, not by SIGTERM: {proc.stderr.strip()[-200:]}"
    ok, why = usable(root)
    if not ok:
        return ok, why
    return edit_arrives(root, word)


def _mount_tmpfs(where: Path, size: str) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    return os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                                               capture_output=True).returncode == 0


def disk_full_trial(base: Path, work: Path, free_kb: int, n: int) -> tuple[bool, str]:
    """The project on a 2 MB tmpfs filled to ``free_kb`` free; a refresh that adds ~150 KB of chunks."""
    mnt = work / f"full-{free_kb}-{n}"
    if not _mount_tmpfs(mnt, "2m"):
        return False, "no tmpfs (not root or mount refused)"
    try:
        root = mnt / "p"
        shutil.copytree(base, root, symlinks=True)
        big = "".join(f"def bulk_{k}(x):\n    \"\"\"Bulk pricing tier {k} for wholesale orders of {k} pallets.\"\"\"\n    return x * {k}\n\n\n"
                      for k in range(1500))
        (root / "src/shop/bulk.py").write_text(big)
        st = os.statvfs(mnt)
        fill = st.f_bavail * st.f_frsize - free_kb * 1024
        if fill > 0:
            with open(mnt / "filler", "wb") as f:
                f.write(b"\0" * fill)
        refresh = _run(["rag", "refresh-context"], root)
        said = (refresh.stderr + refresh.stdout).strip()
        if "Traceback" in said or "internal error" in said:
            return False, f"refresh: {said[-200:]}"
        (root / "src/shop/bulk.py").unlink()  # give the space back: the old index must still answer
        (mnt / "filler").unlink(missing_ok=True)
        ok, why = usable(root)
        if not ok:
            return ok, f"{why} (refresh said: {said[:160]})"
        return True, said.splitlines()[-1][:160] if said else "refresh said nothing"
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def truncated_trial(base: Path, work: Path, keep: float, n: int) -> tuple[bool, str]:
    """The index file cut to ``keep`` of its size: every command says what to run, that works."""
    root = work / f"trunc-{int(keep * 100)}-{n}"
    shutil.copytree(base, root, symlinks=True)
    db = root / ".paqad/vectors/index.sqlite"
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    size = db.stat().st_size
    with open(db, "r+b") as f:
        f.truncate(int(size * keep))
    told = set()
    for args in (["rag", "status"], ["rag", "probe", QUERY], ["rag", "refresh-context"]):
        proc = _run(args, root)
        text = proc.stdout + proc.stderr
        if "Traceback" in text or "internal error" in text:
            return False, f"{args[1]}: {text.strip()[-200:]}"
        told |= {command for command in ("rebuild", "init") if f"`paqad-ai rag {command}" in text}
    if len(told) != 1:
        return False, f"commands named {sorted(told) or 'nothing'} (one fix expected)"
    command = told.pop()
    fix = _run(["rag", command, *(["--provider", "local"] if command == "init" else [])], root)
    if fix.returncode != 0:
        return False, f"{command} exit {fix.returncode}: {fix.stderr.strip()[:200]}"
    _run(["rag", "refresh-context"], root)  # an empty file is no index at all: the section comes back here
    ok, why = usable(root)
    return ok, why or f"told `rag {command}`, which worked"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="paqad-faults-"))
    try:
        base = make_base(work)
        plans = [(f"SIGTERM during {stage}", lambda n, s=stage: sigterm_trial(base, work, s, n))
                 for stage in ("sync", "chunk", "apply", "embed", "write-section")]
        plans += [(f"disk full while committing ({kb} KB free)", lambda n, kb=kb: disk_full_trial(base, work, kb, n))
                  for kb in (16, 64, 256)]
        plans += [(f"index file truncated to {int(k * 100)}%", lambda n, k=k: truncated_trial(base, work, k, n))
                  for k in (0.0, 0.5, 0.9)]
        total_ok = total = 0
        for name, trial in plans:
            results = [trial(n) for n in range(args.trials)]
            ok = sum(1 for r, _ in results if r)
            total_ok, total = total_ok + ok, total + len(results)
            notes = "; ".join(sorted({why for r, why in results if not r or why}))[:300]
            print(f"{name:45s} {ok}/{len(results)}  {notes}", flush=True)
        print(f"{'all faults':45s} {total_ok}/{total}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
