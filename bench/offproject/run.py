"""Off-project prompts and cross-project negatives: what the prompt path delivers (issue 19).

Every prompt goes through :func:`paqad.deliver.delivery.deliver` (intent check with the index's
evidence, hybrid search with the default local model, calibrated confidence, floor) on the shared
ranking-benchmark indexes (``bench/.cache/ranking/``; built by ``bench/ranking/run.py``):

- the off-project list (``dev.txt`` or ``test.txt``: general knowledge, arithmetic, time/date,
  editor/shell/git how-tos, other well-known projects, chat) asked in every project of the
  split's set; goal: >= 0.95 nothing form, <= 2 % confident;
- cross-project negatives: each project's benchmark questions asked in another project of the
  same split with a different subject (``negatives.PAIRS``); goal <= 5 % confident.

    .venv/bin/python bench/offproject/run.py --split dev
    .venv/bin/python bench/offproject/run.py --split test --show
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "bench" / "ranking"))
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(REPO / "bench" / ".cache" / "paqad-home"))

import corpora  # noqa: E402

sys.path.insert(0, str(HERE))
import negatives  # noqa: E402  (the prompt sets and pairs, shared with bench/calibration.py)


class Asker:
    """Delivers prompts in benchmark projects, one open index and one model for all."""

    def __init__(self) -> None:
        from paqad.config import load_settings
        from paqad.embed.factory import get_embedder
        from paqad.project import ProjectPaths

        self.projects = {p.name: p for p in corpora.load_projects()}
        self.embedder, self.open = None, {}
        self._paths, self._settings, self._get_embedder = ProjectPaths, load_settings, get_embedder

    def ask(self, project: str, prompt: str, **options):
        """:func:`paqad.deliver.delivery.deliver` of ``prompt`` in ``project`` (``options``: its
        keyword arguments, e.g. ``companions``)."""
        from paqad import store as store_mod
        from paqad.deliver.delivery import deliver

        if project not in self.open:
            paths = self._paths(corpora.materialise(self.projects[project]))
            settings = self._settings(paths, environ={})
            self.embedder = self.embedder or self._get_embedder(settings, paths)
            self.open[project] = (paths, settings, store_mod.open_store(paths, readonly=True))
        paths, settings, store = self.open[project]
        return deliver(paths, settings, prompt, "bench", embedder=self.embedder, store=store, **options)


def tally(label: str, outcomes: list[tuple[str, str, str, object]], show: bool) -> None:
    """Print the share of each form for ``outcomes`` (class, project, prompt, delivery), per class."""
    classes = sorted({c for c, *_ in outcomes})
    for cls in [None, *classes] if len(classes) > 1 else [None]:
        rows = [o for o in outcomes if cls is None or o[0] == cls]
        nothing = sum(1 for *_, d in rows if d.outcome.form == "nothing")
        confident = sum(1 for *_, d in rows if d.outcome.form == "confident")
        print(f"{label} {cls or 'all'}: {len(rows)} prompts; nothing {nothing / len(rows):.3f}, "
              f"low-confidence {(len(rows) - nothing - confident) / len(rows):.3f}, confident {confident / len(rows):.3f}")
    if show:
        for cls, project, prompt, d in outcomes:
            if d.outcome.form != "nothing":
                top = d.outcome.results[0]
                print(f"    {d.outcome.form} {project}: {prompt[:70]!r} -> {top.location} {top.confidence:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), required=True)
    parser.add_argument("--show", action="store_true", help="print every prompt that was not given the nothing form")
    args = parser.parse_args()
    asker = Asker()
    off = [(cls, project, prompt, asker.ask(project, prompt)) for cls, project, prompt in negatives.off_project(args.split)]
    tally(f"off-project {args.split}", off, args.show)
    cross = [("cross", target, case["query"], asker.ask(target, case["query"]))
             for _, target, case in negatives.cross_project(args.split, asker.projects)]
    tally(f"cross-project {args.split}", cross, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
