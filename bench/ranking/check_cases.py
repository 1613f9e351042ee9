#!/usr/bin/env python3
"""Sanity-check ranking benchmark case files (bench/ranking/projects/*.json).

For each project file: valid JSON, required fields, ids in order, kinds valid,
and (when a git dir for the repo is available) every expected/definition path
exists at the pinned commit and definition line ranges are inside the file.

Git dirs are looked up as <mirror-root>/<owner>+<name>/repo (default
/work/.mirror), or passed explicitly with --git-dir owner/name=PATH.

Usage: python3 bench/ranking/check_cases.py [files...] [--mirror-root DIR]
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

KINDS = {"symbol", "where", "architecture"}
HERE = Path(__file__).resolve().parent


def git(gitdir: str, *args: str) -> str | None:
    r = subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def check_file(path: Path, gitdirs: dict[str, str], mirror_root: Path) -> list[str]:
    errs: list[str] = []
    warn: list[str] = []
    try:
        data = json.loads(path.read_text())
    except Exception as e:  # noqa: BLE001
        return [f"{path.name}: invalid JSON: {e}"]
    for key in ("name", "language", "repo", "commit", "split", "cases"):
        if key not in data:
            errs.append(f"{path.name}: missing top-level key {key!r}")
    if errs:
        return errs
    name = data["name"]
    if not re.fullmatch(r"[0-9a-f]{40}", data["commit"]):
        errs.append(f"{name}: commit is not 40 hex digits")
    if data["split"] not in ("dev", "test"):
        errs.append(f"{name}: split must be dev or test")
    gitdir = gitdirs.get(data["repo"])
    if gitdir is None:
        cand = mirror_root / data["repo"].replace("/", "+") / "repo"
        if cand.exists():
            gitdir = str(cand)
    files: set[str] | None = None
    if gitdir:
        out = git(gitdir, "ls-tree", "-r", "--name-only", data["commit"])
        if out is None:
            errs.append(f"{name}: commit {data['commit']} not found in {gitdir}")
        else:
            files = set(out.splitlines())
    else:
        warn.append(f"{name}: no git dir for {data['repo']}; paths not checked")
    line_cache: dict[str, list[str]] = {}

    def lines_of(p: str) -> list[str]:
        if p not in line_cache:
            txt = git(gitdir, "show", f"{data['commit']}:{p}") or ""
            line_cache[p] = txt.split("\n")
        return line_cache[p]

    counts = {"symbol": 0, "where": 0, "architecture": 0, "long": 0}
    for i, c in enumerate(data["cases"], 1):
        cid = c.get("id")
        where = f"{name}/{cid}"
        if cid != f"{name}-{i:02d}":
            errs.append(f"{where}: id should be {name}-{i:02d}")
        kind = c.get("kind")
        if kind not in KINDS:
            errs.append(f"{where}: bad kind {kind!r}")
            continue
        counts[kind] += 1
        q = c.get("query")
        if not isinstance(q, str) or not q.strip():
            errs.append(f"{where}: empty query")
            q = ""
        if c.get("long"):
            counts["long"] += 1
            if kind == "symbol":
                errs.append(f"{where}: long must be where/architecture")
            if not 300 <= len(q) <= 2500:
                errs.append(f"{where}: long query length {len(q)} outside 300-2500")
        exp = c.get("expected")
        if not isinstance(exp, list) or not 1 <= len(exp) <= 3:
            errs.append(f"{where}: expected must list 1-3 files")
            exp = []
        if exp and not any(e.get("grade") == 2 for e in exp):
            errs.append(f"{where}: no grade-2 file")
        seen = set()
        for e in exp:
            p = e.get("path")
            if e.get("grade") not in (1, 2):
                errs.append(f"{where}: bad grade for {p}")
            if p in seen:
                errs.append(f"{where}: duplicate path {p}")
            seen.add(p)
            if files is not None and p not in files:
                errs.append(f"{where}: path not at commit: {p}")
        d = c.get("definition")
        if kind == "symbol":
            if not d:
                errs.append(f"{where}: symbol case without definition")
            else:
                p, s, e_ = d.get("path"), d.get("start_line"), d.get("end_line")
                if p not in seen:
                    errs.append(f"{where}: definition path not in expected")
                if not (isinstance(s, int) and isinstance(e_, int) and 1 <= s <= e_):
                    errs.append(f"{where}: bad definition lines {s}-{e_}")
                elif files is not None:
                    if p not in files:
                        errs.append(f"{where}: definition path not at commit: {p}")
                    else:
                        ls = lines_of(p)
                        if e_ > len(ls):
                            errs.append(f"{where}: end_line {e_} beyond file ({len(ls)} lines)")
        elif d:
            errs.append(f"{where}: definition on non-symbol case")
    print(f"{name:20s} {data['split']:4s} cases={len(data['cases'])} "
          f"symbol={counts['symbol']} where={counts['where']} "
          f"architecture={counts['architecture']} long={counts['long']}")
    for w in warn:
        print("  warning:", w)
    return errs


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--mirror-root", default="/work/.mirror")
    ap.add_argument("--git-dir", action="append", default=[], help="owner/name=PATH")
    a = ap.parse_args()
    gitdirs = dict(x.split("=", 1) for x in a.git_dir)
    files = [Path(f) for f in a.files] or sorted((HERE / "projects").glob("*.json"))
    errs: list[str] = []
    for f in files:
        errs += check_file(f, gitdirs, Path(a.mirror_root))
    for e in errs:
        print("ERROR:", e)
    print("OK" if not errs else f"{len(errs)} error(s)")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
