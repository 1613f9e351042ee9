"""The negative prompt sets of issue 19, in one place: prompts whose answer is not in the project.

- the off-project lists (``dev.txt``, ``test.txt``: general knowledge, arithmetic, time/date,
  editor/shell/git how-tos, other well-known projects, chat), asked in every project of
  :data:`PROJECTS` for the split;
- cross-project negatives: each project's ranking-benchmark questions asked in another project of
  the same split with a different subject (:data:`PAIRS`).

Used by ``bench/offproject/run.py`` (what the prompt path delivers) and ``bench/calibration.py``
(negatives in the confidence fit: dev only; the test half is reported, never fitted on).
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent

# Projects the off-project list is asked in, per split (>= 5 languages each).
PROJECTS = {
    "dev": ("marshmallow", "logrus", "guzzle", "javapoet", "libyaml", "immer"),
    "test": ("structlog", "echo", "slim", "jsoup", "leveldb", "axios"),
}
# Cross-project negatives: the first project's questions asked in the second (subjects apart).
PAIRS = {
    "dev": (("bytes", "marshmallow"), ("faraday", "libyaml"), ("guzzle", "immer"), ("immer", "logrus"),
            ("javapoet", "ws"), ("libyaml", "guzzle"), ("logrus", "javapoet"), ("marshmallow", "bytes"),
            ("ws", "yaml-cpp"), ("yaml-cpp", "faraday")),
    "test": (("axios", "leveldb"), ("echo", "jsoup"), ("got", "hiredis"), ("hiredis", "thor"),
             ("hyperium-http", "structlog"), ("jsoup", "slim"), ("leveldb", "axios"), ("slim", "hiredis"),
             ("structlog", "jsoup"), ("thor", "hyperium-http")),
}


def prompts(split: str) -> list[tuple[str, str]]:
    """(class, prompt) of the split's off-project list."""
    lines = (HERE / f"{split}.txt").read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("\t", 1)) for line in lines if line.strip() and not line.startswith("#")]


def off_project(split: str) -> list[tuple[str, str, str]]:
    """(class, target project, prompt): the split's off-project list asked in each of its projects."""
    return [(cls, project, prompt) for project in PROJECTS[split] for cls, prompt in prompts(split)]


def cross_project(split: str, projects: dict) -> list[tuple[str, str, dict]]:
    """(source project, target project, case) for every pair of :data:`PAIRS`: the source's
    benchmark case asked in the target. ``projects`` maps names to ``corpora.Project``."""
    return [(source, target, case) for source, target in PAIRS[split] for case in projects[source].cases]
