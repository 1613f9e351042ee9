#!/usr/bin/env python3
"""Sanity-check ranking benchmark case files (bench/ranking/projects/*.json).

For each project file: valid JSON, required fields, ids in order, kinds valid,
and (when a git dir for the repo is available) every expected/definition path
exists at the pinned commit and definition line ranges are inside the file.
Chunk labels (``lines`` on an expected entry, FORMAT.md): a list of ``[start, end]``
pairs of ints, ``1 <= start <= end <= the file's line count``, counted in the
materialised corpus (bench/.cache/ranking/<name>-<commit10>/, made by corpora.py)
when it exists, else at the commit in the git dir; the entry's path must exist
there. Also: the one chunk rule (metrics.chunk_is_right) passes its self-check.

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
CACHE_DIR = HERE.parent / ".cache" / "ranking"  # corpora.CACHE_DIR (not imported: no paqad needed)


def line_count(text: str) -> int:
    """Lines of ``text`` as an editor numbers them (a final newline opens no new line)."""
    return len(text.splitlines())


def check_lines(where: str, entry: dict, count_of) -> list[str]:
    """Errors of one expected entry's ``lines``; ``count_of(path)`` is the file's line count or
    None when the file cannot be read (then only the shape is checked, unless it is missing)."""
    if "lines" not in entry:
        return []
    p, spans = entry.get("path"), entry["lines"]
    if not isinstance(spans, list) or not spans:
        return [f"{where}: lines of {p} must be a non-empty list of [start, end] pairs"]
    errs = []
    total = count_of(p)
    if total == -1:
        errs.append(f"{where}: lines given for {p}, which is not in the corpus")
    for span in spans:
        ok = (isinstance(span, list) and len(span) == 2 and all(type(v) is int for v in span)
              and 1 <= span[0] <= span[1])
        if not ok:
            errs.append(f"{where}: bad lines {span!r} for {p} (want [start, end], 1 <= start <= end)")
        elif total is not None and total >= 0 and span[1] > total:
            errs.append(f"{where}: lines {span} of {p} end beyond the file ({total} lines)")
    return errs


def corpus_counter(name: str, commit: str, gitdir: str | None):
    """``path -> line count`` at the materialised corpus (else the git dir); -1 when the file is
    absent, None when neither source is available."""
    folder = CACHE_DIR / f"{name}-{commit[:10]}"
    cache: dict[str, int | None] = {}

    def count_of(p: str) -> int | None:
        if p not in cache:
            if (folder / ".materialised").is_file():
                f = folder / p
                cache[p] = line_count(f.read_text(encoding="utf-8", errors="replace")) if f.is_file() else -1
            elif gitdir:
                txt = git(gitdir, "show", f"{commit}:{p}")
                cache[p] = -1 if txt is None else line_count(txt)
            else:
                cache[p] = None
        return cache[p]

    return count_of


def rule_self_check() -> list[str]:
    """The chunk rule on a fixed case, so a broken metrics.chunk_is_right fails the checker."""
    sys.path.insert(0, str(HERE))
    from metrics import chunk_is_right

    case = {"kind": "where", "expected": [{"path": "a.py", "grade": 2, "lines": [[10, 20]]}, {"path": "b.py", "grade": 1}]}
    sym = {"kind": "symbol", "expected": [{"path": "a.py", "grade": 2}],
           "definition": {"path": "a.py", "start_line": 5, "end_line": 9}}
    got = (chunk_is_right(case, "a.py", 20, 30), chunk_is_right(case, "a.py", 21, 30), chunk_is_right(case, "b.py", 1, 99),
           chunk_is_right(sym, "a.py", 1, 5), chunk_is_right(sym, "a.py", 6, 9))
    return [] if got == (True, False, False, True, False) else [f"metrics.chunk_is_right self-check failed: {got}"]


def git(gitdir: str, *args: str) -> str | None:
    r = subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def check_file(path: Path, gitdirs: dict[str, str], mirror_root: Path) -> list[str]:
    """Errors of one project file (printing its summary line and warnings)."""
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

    count_of = corpus_counter(name, data["commit"], gitdir)
    counts = {"symbol": 0, "where": 0, "architecture": 0, "long": 0, "lines": 0}
    for i, c in enumerate(data["cases"], 1):
        errs += check_case(c, f"{name}-{i:02d}", files, lines_of, count_of, counts)
    print(f"{name:20s} {data['split']:4s} cases={len(data['cases'])} "
          f"symbol={counts['symbol']} where={counts['where']} "
          f"architecture={counts['architecture']} long={counts['long']} "
          f"lines={counts['lines']}/{grade2_missing(data)[1]} grade-2 entries labelled")
    missing = grade2_missing(data)[0]
    if counts["lines"] and missing:
        print("  grade-2 entries without lines in:", ", ".join(missing))
    for w in warn:
        print("  warning:", w)
    return errs


def check_case(c: dict, want_id: str, files: set[str] | None, lines_of, count_of, counts: dict[str, int]) -> list[str]:
    """Errors of one case (``want_id``: the id its position asks for); ``counts`` is updated."""
    errs: list[str] = []
    cid = c.get("id")
    where = f"{want_id.rsplit('-', 1)[0]}/{cid}"
    if cid != want_id:
        errs.append(f"{where}: id should be {want_id}")
    kind = c.get("kind")
    if kind not in KINDS:
        return errs + [f"{where}: bad kind {kind!r}"]
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
        errs += check_lines(where, e, count_of)
        counts["lines"] += "lines" in e and e.get("grade") == 2 and kind != "symbol"
    d = c.get("definition")
    if kind == "symbol":
        errs += check_definition(where, d, seen, files, lines_of)
    elif d:
        errs.append(f"{where}: definition on non-symbol case")
    return errs


def check_definition(where: str, d: dict | None, seen: set[str], files: set[str] | None, lines_of) -> list[str]:
    """Errors of a symbol case's ``definition`` (``seen``: the case's expected paths)."""
    if not d:
        return [f"{where}: symbol case without definition"]
    errs = []
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
    return errs


def grade2_missing(data: dict) -> tuple[list[str], int]:
    """(ids of where/architecture cases with a grade-2 entry lacking ``lines``, number of such
    grade-2 entries in total)."""
    missing, total = [], 0
    for c in data["cases"]:
        if c.get("kind") == "symbol":
            continue
        entries = [e for e in c.get("expected", ()) if e.get("grade") == 2]
        total += len(entries)
        if any("lines" not in e for e in entries):
            missing.append(c.get("id"))
    return missing, total


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--mirror-root", default="/work/.mirror")
    ap.add_argument("--git-dir", action="append", default=[], help="owner/name=PATH")
    a = ap.parse_args()
    gitdirs = dict(x.split("=", 1) for x in a.git_dir)
    files = [Path(f) for f in a.files] or sorted((HERE / "projects").glob("*.json"))
    errs: list[str] = rule_self_check()
    for f in files:
        errs += check_file(f, gitdirs, Path(a.mirror_root))
    for e in errs:
        print("ERROR:", e)
    print("OK" if not errs else f"{len(errs)} error(s)")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
