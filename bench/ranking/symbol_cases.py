#!/usr/bin/env python3
"""New symbol cases by one fixed rule (issue 24, round 8): names picked from a project's code by
universal-ctags (not paqad's chunker), labelled with the defining file and line range.

The held-out benchmark's symbol queries are single identifiers, bare or qualified (``A::B``,
``a.b``); the hand-written cases saturate def@1 on dev. This script adds, per project, names of
five buckets, each name's gold being one definition (ctags' line .. ctags' ``end``):

- ``C`` type shared: one type definition and >= 1 non-type entry of the same name (a method, a
  constructor, a field, a function, a variable): gold = the type; the query is the bare name;
- ``A`` type: one type definition and no other entry of the name; bare name;
- ``B`` macro/constant: one macro or constant entry, no type or function of the name; bare name;
- ``D`` qualified method: a method whose bare name (not in capitals: a macro call) is defined in
  >= 2 scopes, one entry for its (last scope part, name): the query ``Scope::name`` (Rust, C++, PHP) or ``Scope.name``;
- ``E`` macro + function: a name with a macro entry and exactly one function definition: gold =
  the function; bare name.

Names come from code files of the project's language family outside test/example/bench/doc/
vendor folders, are >= 4 characters (no ctags ``__anon`` names) and are not a token of an
existing query of the project; include guards, ctags' anonymous scopes, types and constants local to a function body are left out, ctags'
``alias`` is a type only in TypeScript, and ``E`` needs a ctags ``macro``.
A C typedef named after its body (``} name;``) starts at the struct/union/enum entry that ends
on that line. Order inside a bucket: sha1 of ``project:name``; selection: round robin C, A, B,
D, E (skipping empty buckets) until ``--dev-count`` (10) per dev project, ``--test-count`` (4)
per test project. Ids continue the project's numbering. Nothing here reads paqad's results.

Usage: python3 bench/ranking/symbol_cases.py [--write] [--projects a,b]
(without ``--write`` it prints the picked cases).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECTS = HERE / "projects"
CACHE_DIR = HERE.parent / ".cache" / "ranking"
sys.path.insert(0, str(HERE))

# the project's language -> ctags' language names of its code files
CTAGS_LANGUAGES = {
    "c": {"C", "C++"}, "cpp": {"C", "C++"}, "rust": {"Rust"}, "go": {"Go"}, "java": {"Java"},
    "python": {"Python"}, "ruby": {"Ruby"}, "php": {"PHP"}, "typescript": {"TypeScript"},
    "javascript": {"JavaScript"},
}
SKIPPED_PATH = re.compile(
    r"(?:^|/)(?:__tests__|__mocks__|tests?|spec|specs|testing|testdata|test_?utils?|examples?|samples?|bench(?:es|marks?)?|docs?|"
    r"vendor|third_party|thirdparty|deps|fuzz|node_modules|dist|build|scripts?|contrib|ci)/"
    r"|(?:_test|_spec|Test|Tests|TestCase|\.test|\.spec)\.\w+$|(?:^|/)test_[^/]*$|\.d\.ts$", re.IGNORECASE)
TYPE_KINDS = {"class", "struct", "interface", "trait", "enum", "union", "typedef", "alias", "record", "talias"}
MACRO_KINDS = {"macro", "constant", "define"}
FUNCTION_KINDS = {"function", "method", "func", "singletonMethod"}
OTHER_KINDS = FUNCTION_KINDS | {"member", "field", "variable", "property", "prototype", "methodSpec", "constructor"}
QUALIFIED_SEPARATOR = {"rust": "::", "cpp": "::", "php": "::"}
ORDER = ("C", "A", "B", "D", "E")


def ctags(folder: Path) -> list[dict]:
    """ctags' tags of every file under ``folder`` (JSON lines: name, path, line, end, kind, scope)."""
    out = subprocess.run(
        ["ctags", "-R", "--output-format=json", "--fields=+n{end}{kind}{scope}{scopeKind}{language}", "-f", "-", "."],
        cwd=folder, capture_output=True, text=True, check=True).stdout
    tags = []
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") == "tag":
            tag["path"] = tag["path"].removeprefix("./")
            tags.append(tag)
    return tags


def _local(tag: dict) -> bool:
    """A tag inside a function body: by ctags' scope, or (JS/TS, whose parser drops the scope of a
    `const` in a method) an indented ``const``/``let`` line."""
    if tag.get("scopeKind") in {"function", "method", "func"}:
        return True
    return (tag.get("language") in {"JavaScript", "TypeScript"} and tag["kind"] in {"constant", "variable"}
            and re.match(r"/\^[ \t]", tag.get("pattern", "")) is not None)


def _include_guard(tag: dict) -> bool:
    """A header's include guard (``#define STORAGE_LEVELDB_INCLUDE_ENV_H_``): no definition one asks for."""
    return tag["kind"] == "macro" and re.search(r"_H(?:_|$)|INCLUDED", tag["name"]) is not None


def _is_type(tag: dict) -> bool:
    """A type's definition: ctags' ``alias`` only in TypeScript (``type X =``; Ruby's and PHP's
    ``alias`` is a method alias or an import), not a type local to a function body."""
    if tag["kind"] == "alias":
        return tag.get("language") == "TypeScript" and not _local(tag)
    return tag["kind"] in TYPE_KINDS and not _local(tag)


def _key(project: str, name: str) -> str:
    return hashlib.sha1(f"{project}:{name}".encode()).hexdigest()


def _gold(tag: dict, by_path: dict[str, list[dict]], lines_of) -> tuple[int, int] | None:
    start, end = tag["line"], tag.get("end", tag["line"])
    pattern = tag.get("pattern", "")
    if tag["kind"] == "typedef" and pattern.startswith("/^") and pattern[2:].lstrip().startswith("}"):
        owners = [t for t in by_path[tag["path"]] if t["kind"] in {"struct", "union", "enum"} and t.get("end") == start]
        if not owners:
            return None
        start = owners[0]["line"]
    return start, max(start, min(end, lines_of(tag["path"])))


def pick(project: dict, count: int) -> list[dict]:
    """The project's new cases (without ids), in selection order."""
    folder = CACHE_DIR / f"{project['name']}-{project['commit'][:10]}"
    if not (folder / ".materialised").is_file():
        # the same tree from the local clone, outside the cache (an index may be building there)
        import corpora

        folder = corpora.materialise_tree(project["repo"], project["commit"],
                                          Path(tempfile.gettempdir()) / "symbol_cases" / folder.name)
    languages = CTAGS_LANGUAGES[project["language"]]
    taken = {t for c in project["cases"] for t in re.findall(r"[\w$]+", c["query"])}
    tags = [t for t in ctags(folder) if t.get("language") in languages and not SKIPPED_PATH.search(t["path"])
            and "line" in t]
    by_name: dict[str, list[dict]] = defaultdict(list)
    by_path: dict[str, list[dict]] = defaultdict(list)
    for t in tags:
        by_name[t["name"]].append(t)
        by_path[t["path"]].append(t)
    counts: dict[str, int] = {}

    def lines_of(path: str) -> int:
        if path not in counts:
            counts[path] = len((folder / path).read_text(encoding="utf-8", errors="replace").splitlines())
        return counts[path]

    buckets: dict[str, list[tuple[str, str, dict]]] = {b: [] for b in ORDER}
    for name, entries in by_name.items():
        if len(name) < 4 or name.startswith("__anon") or name in taken or not re.fullmatch(r"[A-Za-z_][\w]*", name):
            continue
        types = [t for t in entries if _is_type(t)]
        # a local `const x` of a function body (ctags' JS/TS "constant") is no definition one asks for
        macros = [t for t in entries if t["kind"] in MACRO_KINDS and not _local(t) and not _include_guard(t)]
        functions = [t for t in entries if t["kind"] in FUNCTION_KINDS]
        others = [t for t in entries if t["kind"] in OTHER_KINDS]
        if len(types) == 1:
            buckets["C" if others else "A"].append((name, name, types[0]))
        elif not types and len(macros) == 1 and not functions:
            buckets["B"].append((name, name, macros[0]))
        elif not types and any(t["kind"] == "macro" for t in macros) and len(functions) == 1:
            buckets["E"].append((name, name, functions[0]))
        scoped = [t for t in functions if t.get("scope")]
        owners = defaultdict(list)
        for t in scoped:
            owners[re.split(r"::|\.", t["scope"])[-1]].append(t)
        # not a macro call the parser took for a method (`CLI11_ERROR_DEF(...)` in a class body)
        if len(owners) >= 2 and not types and not re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
            sep = QUALIFIED_SEPARATOR.get(project["language"], ".")
            for owner, group in owners.items():
                if (len(group) == 1 and re.fullmatch(r"[A-Za-z_]\w*", owner) and owner not in taken
                        and not owner.startswith(("Anonymous", "__anon"))):
                    buckets["D"].append((f"{owner}{sep}{name}", f"{owner}:{name}", group[0]))
    for b in ORDER:
        buckets[b].sort(key=lambda item: _key(project["name"], item[1]))
    picked: list[dict] = []
    seen: set[str] = set()
    while len(picked) < count and any(buckets.values()):
        for b in ORDER:
            while buckets[b] and len(picked) < count:
                query, _, tag = buckets[b].pop(0)
                bare = re.split(r"::|\.", query)[-1]
                gold = _gold(tag, by_path, lines_of)
                if gold is None or bare in seen:
                    continue
                seen.add(bare)
                picked.append({"kind": "symbol", "query": query, "bucket": b,
                               "expected": [{"path": tag["path"], "grade": 2}],
                               "definition": {"path": tag["path"], "start_line": gold[0], "end_line": gold[1]}})
                break
    return picked


def _indent(text: str, by: int) -> str:
    return "\n".join(" " * by + line for line in text.splitlines())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", default="")
    parser.add_argument("--dev-count", type=int, default=10)
    parser.add_argument("--test-count", type=int, default=4)
    parser.add_argument("--write", action="store_true", help="append the cases to the project files")
    args = parser.parse_args()
    names = {n for n in args.projects.split(",") if n}
    for path in sorted(PROJECTS.glob("*.json")):
        project = json.loads(path.read_text(encoding="utf-8"))
        if names and project["name"] not in names:
            continue
        if any(c.get("round") == 8 for c in project["cases"]):
            print(f"{project['name']}: round-8 cases already there")
            continue
        cases = pick(project, args.dev_count if project["split"] == "dev" else args.test_count)
        width = len(project["cases"][-1]["id"].rsplit("-", 1)[1])
        for n, case in enumerate(cases, start=len(project["cases"]) + 1):
            bucket = case.pop("bucket")
            case_out = {"id": f"{project['name']}-{n:0{width}d}", **case, "round": 8, "bucket": bucket}
            project["cases"].append(case_out)
            print(f"{project['name']:14} {bucket} {case_out['query']:40} {case['definition']['path']}:"
                  f"{case['definition']['start_line']}-{case['definition']['end_line']}")
        if args.write and cases:
            # spliced in as text: the file's own layout (one-line `lines` labels) stays as it is
            text = path.read_text(encoding="utf-8")
            tail = text.rstrip().removesuffix("}").rstrip().removesuffix("]").rstrip()
            added = ",\n".join(_indent(json.dumps(c, indent=2, ensure_ascii=False), 4)
                                for c in project["cases"][-len(cases):])
            path.write_text(f"{tail},\n{added}\n  ]\n}}\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
