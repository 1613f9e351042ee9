"""Collect the calibration rows (bench/calibration.py's per-project caches,
``bench/.cache/calibration-rows/TAG-SPLIT-NAME.pickle``) of the projects whose ranking index is
already built, so that ``bench/calibration.py --reuse-projects`` later collects only the rest.

A project is taken only when it is named on the command line (the caller knows which indexes are
complete: never open an index that is still being built, ``_open`` would sync it).

    python bench/confidence10/collect_ready.py minilm axios bytes ...
    python bench/confidence10/collect_ready.py keyword axios bytes ...
"""
import pickle
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import calibration as C  # noqa: E402


def main(tag: str, names: list[str]) -> None:
    from paqad.deliver.intent import classify
    from paqad.search import RankingOptions, gather
    from paqad.search.ranking import rank_with_evidence

    dense = tag == "minilm"
    options = RankingOptions() if dense else replace(RankingOptions(), dense=False)
    projects = {p.name: p for p in C.corpora.load_projects()}
    for split in ("dev", "test"):
        todo = C.split_prompts(split, projects)
        for name in sorted({t[1] for t in todo} & set(names)):
            cache = C.ROWS_CACHE / f"{tag}-{split}-{name}.pickle"
            if cache.exists():
                continue
            own_prompts, own_rows = [], []
            embedder, store = C._open(projects[name], None)
            with store:
                known = lambda words: {w for w, n in store.document_frequencies(sorted(words)).items() if n}  # noqa: E731
                for key, target, group, text, case in (t for t in todo if t[1] == name):
                    skipped = not classify(text, known_terms=known).needs_retrieval
                    own_prompts.append(C.Prompt(key, target, group, text, case, skipped))
                    if skipped:
                        continue
                    pools = gather(store, embedder if dense else None, text)
                    results, evidence = rank_with_evidence(store, pools, top_n=C.TOP_N, options=options)
                    own_rows += [C.Row(key, r.fused_rank, r.path, r.start_line, r.end_line, ev, r.text, r.symbol,
                                       r.language) for r, ev in zip(results, evidence)]
            C.ROWS_CACHE.mkdir(parents=True, exist_ok=True)
            cache.write_bytes(pickle.dumps((own_prompts, own_rows)))
            print(f"  {tag} {split} {name}: {len(own_prompts)} prompts, {len(own_rows)} rows", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
