"""Issue 19, the passage that answers: a file's best chunk is its code, not its doc comment,
import header or a tail piece (search.signals.passage_choice), at query time: the chunker's
output is unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import build_index

from paqad.config import load_settings
from paqad.project import ProjectPaths
from paqad.search import load_embedder, search
from paqad.search.ablations import ablations
from paqad.search.signals.passage_choice import code_lines

HERE = Path(__file__).resolve().parent
JAVADOC = "".join(f" * {line}\n" for line in (
    "A pool of worker slots that limits how many tasks run concurrently.", "",
    "<p>Tasks submitted while every slot is busy wait in a queue, first in first out, and start as",
    "soon as a running task finishes and gives its slot back. The concurrency limit is fixed when the",
    "pool is created; a limit of one runs the tasks one after the other, in submission order.", "",
    "<p>The pool never starts a thread of its own: each task runs on the thread that gave a slot",
    "back, or on the submitting thread when a slot is free at submission time. Callers that need",
    "tasks to run elsewhere wrap them in an executor of their choice before submitting them.", "",
    "<p>Closing the pool rejects further submissions; tasks already waiting in the queue still run,",
    "and {@link #awaitIdle()} returns once the last of them has finished and every slot is free.", "",
    "<p>Instances are safe for use by several threads at once: the queue and the count of busy slots",
    "are guarded by the pool's own lock, and tasks run outside of it so that a slow task never holds",
    "up a submission.",
))
POOL = (
    "package com.example.pool;\n\nimport java.util.ArrayDeque;\nimport java.util.Deque;\n\n/**\n" + JAVADOC + " */\n"
    "public final class Pool {\n    private final int limit;\n    private final Deque<Runnable> waiting = new ArrayDeque<>();\n"
    "    private int busy;\n\n    public Pool(int limit) {\n        this.limit = limit;\n    }\n\n"
    "    /** Runs the task now when a slot is free, else queues it until one is given back. */\n"
    "    public void submit(Runnable task) {\n        synchronized (this) {\n            if (busy >= limit) {\n"
    "                waiting.addLast(task);\n                return;\n            }\n            busy++;\n        }\n"
    "        runAndRelease(task);\n    }\n\n    private void runAndRelease(Runnable task) {\n        Runnable next = task;\n"
    "        while (next != null) {\n            next.run();\n            synchronized (this) {\n"
    "                next = waiting.pollFirst();\n                if (next == null) {\n                    busy--;\n"
    "                }\n            }\n        }\n    }\n}\n"
)
MAIN = ("package com.example.pool;\n\npublic final class Main {\n    public static void main(String[] args) {\n"
        "        Pool pool = new Pool(4);\n        for (int i = 0; i < 10; i++) {\n            int n = i;\n"
        '            pool.submit(() -> System.out.println("task " + n));\n        }\n    }\n}\n')


@pytest.mark.parametrize("language,text,expected", [
    ("java", "/**\n * Docs.\n */\n@Override\npublic int size() {\n    return n;\n}\n", (2, 7)),
    ("python", 'def f(x):\n    """Docs\n    more docs.\n    """\n    return x + 1\n', (2, 5)),
    ("python", "import os\nfrom a import b\n# note\nx = 1\n", (1, 4)),
    ("rust", "/// Docs.\n#[inline]\npub fn len(&self) -> usize {\n    self.len\n}\n", (3, 5)),
    ("c", "#include <stdio.h>\n#define N 4\n/* note */\nint n = N;\n", (2, 4)),
    ("ruby", "# frozen_string_literal: true\nrequire 'set'\n  private\nend\n", (0, 4)),
])
def test_code_lines_leave_out_comments_imports_and_brackets(language, text, expected):
    assert code_lines(text, language) == expected


@pytest.fixture(scope="module")
def pool_project(tmp_path_factory, paqad_home):
    files = {"pom.xml": "<project><modelVersion>4.0.0</modelVersion><groupId>com.example</groupId>"
                        "<artifactId>pool</artifactId><version>1</version></project>\n",
             "src/Pool.java": POOL, "src/Main.java": MAIN}
    return build_index(tmp_path_factory.mktemp("passage") / "pool", files, paqad_home)


def test_the_file_is_delivered_by_its_code_not_its_javadoc_header(pool_project):
    paths = ProjectPaths(pool_project)
    settings = load_settings(paths, environ={})
    embedder, _ = load_embedder(paths, settings)
    query = "how does the pool limit how many tasks run concurrently and queue the rest"

    def first(name):
        results = search(paths, settings, query, embedder=embedder, options=ablations()[name], top_n=5).results
        return [(r.path, r.start_line, r.end_line) for r in results]

    before, after = first("no-passage-choice"), first("default")
    assert before[0] == ("src/Pool.java", 1, 15)  # package, imports and the class's Javadoc
    assert after[0] == ("src/Pool.java", 45, 57)  # runAndRelease: the queue drained slot by slot
    # with trade evidence (measured, off by default) runAndRelease, holding 1 of the 8 query terms,
    # is under 0.3 x the header's 7: the header goes to submit, `if (busy >= limit)
    # waiting.addLast(task)` (3 of 8), the next code chunk
    assert first("with-trade-evidence")[0] == ("src/Pool.java", 33, 43)
    assert sorted(before) == sorted(after)  # the same chunks, and the same files in the same places
    assert [p for p, _, _ in before] == [p for p, _, _ in after]


def test_a_name_lookup_keeps_the_definition_even_when_it_is_thin(pool_project, monkeypatch):
    """ "class Pool" (prose to the query analysis: no identifier-shaped name) must land on the
    class's definition line (DESIGN §6), though that chunk is mostly Javadoc and fields."""
    from paqad.search.signals import passage_choice

    paths = ProjectPaths(pool_project)
    settings = load_settings(paths, environ={})
    embedder, _ = load_embedder(paths, settings)

    def first(name="default"):
        r = search(paths, settings, "class Pool", embedder=embedder, options=ablations()[name], top_n=3).results[0]
        return r.path, r.start_line, r.end_line

    assert first() == ("src/Pool.java", 16, 27)  # `public final class Pool {` is line 24
    monkeypatch.setattr(passage_choice, "MAX_LOOKUP_WORDS", 0)  # without the lookup rule it is traded
    assert first() == ("src/Pool.java", 45, 57)
    # unless a trade needs evidence: no code chunk holds "pool" (with-trade-evidence)
    assert first("with-trade-evidence") == ("src/Pool.java", 16, 27)


def test_each_result_carries_its_passage_evidence(pool_project):
    """The confidence's passage-level inputs (search/assembly.py): place among its file's results,
    share of the file's best score, thin or not, and the query terms the chunk and its file hold."""
    from paqad import store as store_mod
    from paqad.search import RankingOptions, gather
    from paqad.search.ranking import rank_with_evidence

    paths = ProjectPaths(pool_project)
    settings = load_settings(paths, environ={})
    embedder, _ = load_embedder(paths, settings)
    query = "how does the pool limit how many tasks run concurrently and queue the rest"
    with store_mod.open_store(paths, readonly=True) as store:
        results, evidence = rank_with_evidence(store, gather(store, embedder, query), top_n=10,
                                               options=RankingOptions())
    got = {(r.path, r.start_line, r.end_line): (ev.chunk_in_file, round(ev.file_share, 3), ev.thin,
                                                 round(ev.term_coverage, 3), round(ev.file_coverage, 3))
           for r, ev in zip(results, evidence)}
    # 8 query terms (pool limit many tasks run concurrently queue rest); the Javadoc header holds 7
    # of them but is thin, and the code that answers (runAndRelease, traded up by passage choice)
    # holds one: coverage alone would pick the wrong passage, the place in the file the right one.
    assert got == {
        ("src/Pool.java", 45, 57): (1, 1.0, False, 0.125, 0.875),
        ("src/Main.java", 1, 11): (1, 1.0, False, 0.125, 0.125),
        ("src/Pool.java", 16, 27): (2, 0.488, True, 0.625, 0.875),
        ("src/Pool.java", 1, 15): (3, 0.238, True, 0.875, 0.875),
        ("src/Pool.java", 29, 31): (4, 0.117, True, 0.25, 0.875),
        ("src/Pool.java", 33, 43): (5, 0.057, False, 0.375, 0.875),
    }
    vector = evidence[0].vector()
    assert (vector["inv_chunk_in_file"], vector["first_in_file_x_rank"], vector["coverage_gap"]) == (1.0, 1.0, 0.75)


def test_passage_evidence_is_computed_only_for_a_fit_that_uses_it(pool_project):
    """search/assembly.py computes the passage-level evidence only when the loaded fit reads it
    (or no fit is given, as bench/calibration.py collects): a fit without those features gets the
    Evidence defaults, the same ranking and the same confidences."""
    from dataclasses import replace

    from paqad import store as store_mod
    from paqad.search import RankingOptions, gather
    from paqad.search.confidence import PASSAGE_FEATURES, load_calibration
    from paqad.search.ranking import rank_with_evidence

    paths = ProjectPaths(pool_project)
    settings = load_settings(paths, environ={})
    embedder, _ = load_embedder(paths, settings)
    shipped = load_calibration("model-agnostic")
    keep = [i for i, f in enumerate(shipped.features) if f not in PASSAGE_FEATURES]
    base = replace(shipped, features=tuple(shipped.features[i] for i in keep),
                   weights=tuple(shipped.weights[i] for i in keep), means=tuple(shipped.means[i] for i in keep),
                   scales=tuple(shipped.scales[i] for i in keep))
    uses = replace(base, features=base.features + ("term_coverage",), weights=base.weights + (1.0,),
                   means=base.means + (0.0,), scales=base.scales + (1.0,))
    assert (base.uses_passage, uses.uses_passage) == (False, True)
    query = "how does the pool limit how many tasks run concurrently and queue the rest"
    with store_mod.open_store(paths, readonly=True) as store:
        pools = gather(store, embedder, query)
        runs = {name: rank_with_evidence(store, pools, top_n=10, options=RankingOptions(), calibration=fit)
                for name, fit in (("none", None), ("base", base), ("uses", uses))}
    passage = lambda ev: (ev.chunk_in_file, round(ev.file_share, 3), ev.thin, round(ev.term_coverage, 3),  # noqa: E731
                          round(ev.file_coverage, 3), ev.symbol_words)
    assert [passage(ev) for ev in runs["base"][1]] == [(1, 1.0, False, 0.0, 0.0, 0.0)] * 6
    assert [passage(ev) for ev in runs["uses"][1]] == [passage(ev) for ev in runs["none"][1]]
    assert passage(runs["uses"][1][2]) == (2, 0.488, True, 0.625, 0.875, 0.125)  # src/Pool.java:16-27, "Pool"
    where = lambda run: [(r.path, r.start_line) for r in run[0]]  # noqa: E731
    assert where(runs["base"]) == where(runs["uses"]) == where(runs["none"])
    assert [r.confidence for r in runs["base"][0]] == [base.probability(ev) for ev in runs["none"][1]]
    assert [r.confidence for r in runs["uses"][0]] == [uses.probability(ev) for ev in runs["none"][1]]


def test_a_small_index_is_rated_with_the_fits_assumed_query_evidence(pool_project):
    """Under 500 chunks the query-level evidence is unknown; a fit that carries ``unknown_query``
    rates the result exactly as if its query had that evidence."""
    from dataclasses import replace

    from paqad import store as store_mod
    from paqad.search import RankingOptions, gather
    from paqad.search.confidence import QueryEvidence, load_calibration
    from paqad.search.ranking import rank_with_evidence

    paths = ProjectPaths(pool_project)
    settings = load_settings(paths, environ={})
    embedder, _ = load_embedder(paths, settings)
    with store_mod.open_store(paths, readonly=True) as store:
        _, evidence = rank_with_evidence(store, gather(store, embedder, "where are waiting tasks started"), top_n=3,
                                         options=RankingOptions())
    # the five sized fields unknown; the two measured at every size (round 8) measured: every term
    # of the query is in the index, and it names no identifier
    assert evidence[0].query == QueryEvidence(None, None, None, None, None, missing_terms=0.0, undefined_names=0.0)
    shipped = load_calibration("Xenova/all-MiniLM-L6-v2")
    assumed = (0.9, 0.05, 0.2, 3.7, 0.6)
    fit = replace(shipped, unknown_query=assumed)
    known = replace(evidence[0], query=QueryEvidence(*assumed, missing_terms=0.0, undefined_names=0.0))
    assert fit.probability(evidence[0]) == fit.probability(known) == replace(shipped, unknown_query=None).probability(known)
    assert replace(shipped, unknown_query=None).probability(evidence[0]) != fit.probability(evidence[0])
