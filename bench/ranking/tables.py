"""Compact Markdown tables from ``run.py --json`` files: ablations (configuration x split x kind)
and nDCG@10 by language, for bench/README.md.

    .venv/bin/python bench/ranking/tables.py bench/.cache/ranking-final.json [--baseline old.json:default]
"""

from __future__ import annotations

import json
import sys
from statistics import fmean


def load(path: str) -> dict:
    return json.loads(open(path, encoding="utf-8").read())


def configs_of(data: dict) -> list[str]:
    first = next(iter(data.values()))
    return [k for k in first if k != "info"]


def mean(data: dict, config: str, pick) -> str:
    values = [case[config]["ndcg"] for case in data.values() if pick(case["info"])]
    return f"{fmean(values):.3f}" if values else "-"


def def_at_1(data: dict, config: str, split: str) -> str:
    values = [1.0 if case[config]["def_rank"] == 1 else 0.0 for case in data.values()
              if case["info"][0] == split and case["info"][1] == "symbol"]
    return f"{fmean(values):.2f}" if values else "-"


def ablation_table(data: dict, extra: list[tuple[str, dict, str]] = ()) -> str:
    kinds = ("symbol", "where", "architecture")
    head = ["configuration"]
    for split in ("dev", "test"):
        head += [f"{split} all", *(f"{split} {k[:4]}" for k in kinds), f"{split} long", f"{split} def@1"]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    rows = [(name, data, name) for name in configs_of(data)] + list(extra)
    for label, source, config in rows:
        cells = [label]
        for split in ("dev", "test"):
            cells.append(mean(source, config, lambda i, s=split: i[0] == s))
            cells += [mean(source, config, lambda i, s=split, k=k: i[0] == s and i[1] == k) for k in kinds]
            cells.append(mean(source, config, lambda i, s=split: i[0] == s and i[3]))
            cells.append(def_at_1(source, config, split))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def language_table(columns: list[tuple[str, dict, str]]) -> str:
    langs = sorted({case["info"][2] for _, data, _ in columns for case in data.values()})
    head = ["language"] + [f"{label} {split}" for label, _, _ in columns for split in ("dev", "test")]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for lang in langs + ["all"]:
        cells = [lang]
        for _, data, config in columns:
            for split in ("dev", "test"):
                cells.append(mean(data, config, lambda i, s=split, l=lang: i[0] == s and (l == "all" or i[2] == l)))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    final = load(sys.argv[1])
    extra = []
    baseline = None
    for arg in sys.argv[2:]:
        if arg.startswith("--baseline="):
            path, _, config = arg.split("=", 1)[1].partition(":")
            baseline = (f"first release ({config}, chunker v3)", load(path), config)
            extra.append(baseline)
    print(ablation_table(final, extra))
    print()
    columns = ([baseline] if baseline else []) + [("default", final, "default")]
    print(language_table(columns))
