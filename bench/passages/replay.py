"""Delivery of several rankings from one gather per prompt (issue 19, round 11: iterate fast).

For each answerable case of one split (the ranking benchmark's prompts, ``bench/ranking/projects``),
the prompt path's steps that do not depend on the ranking are done once: the intent check with
the index's evidence, then :func:`paqad.search.ranking.gather` (the query vector, the BM25 pool,
the symbol table; the default's ``gather_depth``). Each configuration (``--configs``: names of
:func:`paqad.search.ablations`) then ranks those pools with the shipped calibration, makes
confidence monotone and applies the floor with ``--companions`` as
:func:`paqad.search.search` and :func:`paqad.deliver.delivery.deliver` do with no deadline, and the
delivered passages are judged by the benchmark's one chunk rule (``bench/delivery.py``'s table:
targeted, confident, conf. precision, ...). ``--misses`` puts each prompt whose delivery holds no
right chunk in one class (``bench/passages/delivered_misses.py``'s): skipped, no right chunk in the
20 results, right file but wrong chunk, right chunk ranked below the delivered prefix, nothing
delivered. A configuration whose gather depth or long-prompt handling differs from the default's
is ranked on the default's pools (cut to its depth). Tune on dev only.

    .venv/bin/python bench/passages/replay.py --split dev --configs default,no-round-11-passages --misses
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "bench" / "ranking"))
sys.path.append(str(REPO / "bench"))  # delivery.py (after ranking/: bench/corpora.py is another module)


def configuration(known: dict, spec: str):
    """The RankingOptions a ``--configs`` entry names: a configuration, optionally followed by
    ``+field=value`` changes (``default+passage_trade_ratio=0.1``; numbers, ``true``/``false``)."""
    from dataclasses import fields

    name, *changes = spec.split("+")
    options = known[name]
    kinds = {f.name: f.type for f in fields(options)}
    for change in changes:
        field_name, value = change.split("=", 1)
        if field_name not in kinds:
            raise SystemExit(f"no RankingOptions field {field_name!r}")
        parsed = value.lower() == "true" if value.lower() in ("true", "false") else float(value)
        options = replace(options, **{field_name: parsed})
    return options


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), required=True)
    parser.add_argument("--projects", default="", help="comma-separated project names (default: the split's)")
    parser.add_argument("--configs", default="default", help="comma-separated RankingOptions configurations")
    parser.add_argument("--companions", type=int, default=None, help="the floor's companions (default MAX_COMPANIONS)")
    parser.add_argument("--misses", action="store_true", help="classify the prompts whose delivery holds no right chunk")
    parser.add_argument("--show", action="store_true", help="list each miss of each configuration")
    parser.add_argument("--diff", action="store_true", help="list the prompts each configuration delivers otherwise than the first")
    args = parser.parse_args()
    # set here, not on import (tests import configuration): the benchmark's model mirror and home
    os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
    os.environ.setdefault("PAQAD_HOME", str(REPO / "bench" / ".cache" / "paqad-home"))

    from delivered_misses import classify, split_projects

    from paqad import store as store_mod
    from paqad.config import MAX_COMPANIONS
    from paqad.deliver.delivery import index_terms
    from paqad.deliver.intent import classify as intent_of
    from paqad.embed.factory import get_embedder
    from paqad.search import ablations
    from paqad.search.confidence import calibration_for, monotone_confidence
    from paqad.search.floor import apply_floor
    from paqad.search.ranking import RankingOptions, gather, rank

    import delivery  # bench/delivery.py: the judge and the table

    configs = {name: configuration(ablations(), name) for name in args.configs.split(",")}
    companions = MAX_COMPANIONS if args.companions is None else args.companions
    wanted = set(filter(None, args.projects.split(",")))
    base = RankingOptions()
    embedder = None
    judged: dict[str, list] = {name: [] for name in configs}
    classes: dict[str, list] = {name: [] for name in configs}
    for project, paths, settings in split_projects(args.split, wanted):
        embedder = embedder or get_embedder(settings, paths)
        calibration = calibration_for(embedder.model_id)
        threshold, relief = settings.rag_similarity_threshold, settings.rag_relief_floor
        with store_mod.open_store(paths, readonly=True) as store:
            for case in project.cases:
                intent = intent_of(case["query"], known_terms=index_terms(paths, store))
                pools = (gather(store, embedder, case["query"], long_prompts=base.long_prompts, pool=base.gather_depth)
                         if intent.needs_retrieval else None)
                for name, options in configs.items():
                    results = []
                    if pools is not None:
                        results = rank(store, pools, top_n=settings.rag_top_n, options=options, calibration=calibration)
                        results = monotone_confidence([r if r.chunk_id in pools.cosine else replace(r, semantic=False)
                                                       for r in results])
                    outcome = apply_floor(results, threshold, relief, companions)
                    judged[name].append(delivery.judge(case, project.language, SimpleNamespace(outcome=outcome)))
                    cls, first = classify(case, pools is None, results, delivery.shown(outcome))
                    classes[name].append((case["id"], cls, first, str(outcome.form), judged[name][-1].shown))
    for name in configs:
        print(f"\n### {args.split}: {name}, companions {companions} ({len(judged[name])} prompts)\n")
        delivery.table(judged[name])
        if args.misses:
            counts = Counter(c[1] for c in classes[name])
            print("\n| class | n |\n|---|---:|")
            for cls, k in counts.most_common():
                print(f"| {cls} | {k} |")
            firsts = Counter("none" if c[2] is None else "1" if c[2] == 1 else "2" if c[2] == 2 else "3-5" if c[2] <= 5
                             else "6-20" for c in classes[name])
            by = Counter((c[1], "none" if c[2] is None else "1" if c[2] == 1 else "2+") for c in classes[name])
            print("\nfirst right rank: " + ", ".join(f"{k} {firsts[k]}" for k in ("1", "2", "3-5", "6-20", "none")))
            print("class x first right (1 / 2+): " + "; ".join(f"{cls} {by[(cls, '1')]} / {by[(cls, '2+')]}"
                                                             for cls in counts))
        if args.show:
            for case_id, cls, first, form, shown in classes[name]:
                if cls != "targeted" or (form == "confident" and " ok" not in shown.split(",")[0]):
                    print(f"    {cls:<24} {case_id:<18} first right {first}; {form}: {shown or '(nothing)'}")
    if args.diff:
        first = next(iter(configs))
        for name in list(configs)[1:]:
            print(f"\n{name} against {first}:")
            for a, b in zip(judged[first], judged[name]):
                if (a.form, a.right, a.shown) != (b.form, b.right, b.shown):
                    print(f"    {a.case_id:<18} {a.form} {a.right} -> {b.form} {b.right}: {a.shown[:90]} -> {b.shown[:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
