"""Should-skip rules (src/paqad/deliver/intent.py): share of no-retrieval prompts skipped, and
share of real retrieval queries (ranking benchmark, built-in eval targeted cases) wrongly skipped.

    .venv/bin/python bench/should_skip/run.py            # dev and test lists, benchmark queries
    .venv/bin/python bench/should_skip/run.py --show     # also print each misclassified prompt
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def prompts(name: str) -> list[str]:
    lines = (HERE / name).read_text(encoding="utf-8").splitlines()
    return [line.replace("\\n", "\n") for line in lines if line.strip() and not line.startswith("#")]


def main() -> int:
    from paqad.deliver.intent import classify
    from paqad.evaluate.cases import load_cases

    show = "--show" in sys.argv
    builtin = load_cases()
    sets = {
        "dev list": prompts("dev.txt"),
        "built-in should-skip": [c.query for c in builtin if c.case_class == "should-skip"],
        "test list (held out)": prompts("test.txt"),
    }
    for label, items in sets.items():
        wrong = [p for p in items if classify(p).needs_retrieval]
        print(f"{label}: {len(items) - len(wrong)}/{len(items)} skipped ({(len(items) - len(wrong)) / len(items):.2f})")
        if show:
            for p in wrong:
                print(f"    not skipped: {p!r}")
    queries = [c["query"] for f in sorted((HERE.parent / "ranking" / "projects").glob("*.json"))
               for c in json.loads(f.read_text(encoding="utf-8"))["cases"]]
    queries += [c.query for c in builtin if c.expected]
    skipped = [(q, classify(q).reason) for q in queries if not classify(q).needs_retrieval]
    print(f"retrieval queries wrongly skipped: {len(skipped)}/{len(queries)}")
    if show:
        for q, reason in skipped:
            print(f"    skipped ({reason}): {q[:100]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
