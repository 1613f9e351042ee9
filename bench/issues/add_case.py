"""Add one issue to ``bench/issues/cases/<project>.json`` (a helper for building the set).

The fix commit gives the gold files (:func:`mine.gold_files`: modified non-test source files
against its first parent) and the parent commit (the tree the case is ranked in). The title and
body are read from a JSON object on stdin: ``{"title": ..., "body": ...}``.

    echo '{"title": "...", "body": "..."}' | .venv/bin/python bench/issues/add_case.py attrs 1479 862696afb5
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import mine  # noqa: E402

CASES = HERE / "cases"


def add(project: str, number: int, commit: str, title: str, body: str) -> None:
    """Write the case (replacing one of the same number) and print its size and gold files."""
    path = CASES / f"{project}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    git_dir = mine.corpora.git_dir(data["repo"])
    full = mine.git(git_dir, "rev-parse", commit).strip()
    gold, _ = mine.gold_files(git_dir, full)
    if not gold:
        raise SystemExit(f"{commit}: no modified non-test source file")
    text = {"title": title.strip(), "body": body.strip()}
    case = {"id": f"{project}-{number}", "issue": number,
            "url": f"https://github.com/{data['repo']}/issues/{number}",
            "title": text["title"], "body": text["body"], "fix_commit": full,
            "parent": mine.git(git_dir, "rev-parse", f"{full}^1").strip(), "gold": gold}
    data["cases"] = [c for c in data["cases"] if c["id"] != case["id"]] + [case]
    data["cases"].sort(key=lambda c: c["issue"])
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{case['id']}: {len(case['title']) + len(case['body'])} chars, gold {' '.join(gold)}")


if __name__ == "__main__":
    given = json.loads(sys.stdin.read())
    add(sys.argv[1], int(sys.argv[2]), sys.argv[3], given["title"], given["body"])
