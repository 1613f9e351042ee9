"""The eval gate can fail: the built-in set run with retrievers in place of the product (the real
model, real indexes), one returning random chunks and one delivering on every should-skip prompt."""

from __future__ import annotations

import math
import random
from dataclasses import replace
import pytest

from conftest import MODEL_MIRROR
from paqad.config import load_settings
from paqad.embed.factory import get_embedder
from paqad.evaluate import Delivery, EvalIndex, EvalReport, deliver_results as deliver, run_eval
from paqad.evaluate.cases import load_cases
from paqad.project import ProjectPaths
from paqad.search import search
from paqad.search.results import SearchResult


def random_chunks(index: EvalIndex, query: str) -> Delivery:
    """``rag_top_n`` chunks of the index drawn at random (seeded by the query), each with a score
    (and confidence) drawn inside the relief band: the product's usual delivery shape (two
    low-confidence passages), random content."""
    ids = index.store.chunk_ids_of_files(sorted(index.store.files()), limit=1_000_000)  # path and line order
    rows = index.store.chunks_by_id(ids)
    rng = random.Random(f"random-chunks:{query}")
    settings = index.settings
    results = []
    for rank, i in enumerate(rng.sample(ids, settings.rag_top_n), start=1):
        score = rng.uniform(settings.rag_relief_floor, settings.rag_similarity_threshold - 0.01)  # 35-74 %
        results.append(SearchResult(
            path=rows[i].path, start_line=rows[i].start_line, end_line=rows[i].end_line, symbol=rows[i].symbol,
            language=rows[i].language, text=rows[i].text, score=score, fused_rank=rank, dense_rank=None,
            lexical_rank=None, chunk_id=i, confidence=score))
    return deliver(results, settings)


def always_deliver(index: EvalIndex, query: str) -> Delivery:
    """The product's ranking without the nothing form: with the relief floor at 0 the best two
    results reach the agent on every prompt, those that need no retrieval included."""
    results = search(index.paths, index.settings, query, embedder=index.embedder, store=index.store).results
    return deliver(results, replace(index.settings, rag_relief_floor=0.0))


@pytest.fixture(scope="module")
def runs(tmp_path_factory, paqad_home) -> dict[str, EvalReport]:
    """The built-in feature-off-vs-on run once per retriever (the module-scoped fixture sets the env itself)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PAQAD_HOME", str(paqad_home))
        mp.setenv("PAQAD_MODEL_MIRROR", str(MODEL_MIRROR))
        mp.setenv("HF_HUB_OFFLINE", "1")
        for name in ("PAQAD_RAG_SIMILARITY_THRESHOLD", "PAQAD_RAG_RELIEF_FLOOR", "PAQAD_RAG_TOP_N",
                     "PAQAD_RAG_EMBEDDING_PROVIDER", "PAQAD_RAG_EMBEDDING_MODEL"):
            mp.delenv(name, raising=False)
        paths = ProjectPaths(tmp_path_factory.mktemp("user"))
        settings = load_settings(paths)
        embedder = get_embedder(settings, paths)
        yield {name: run_eval(paths, settings=settings, embedder=embedder, retriever=retriever)
               for name, retriever in (("product", None), ("random", random_chunks), ("always", always_deliver))}


def test_a_plugged_retriever_replaces_the_product_in_the_candidate_arm_only(runs):
    report = runs["random"]
    off, on = report.arm_results("off"), report.arm_results("on")
    assert [r.case_id for r in on] == [r.case_id for r in off] == [c.id for c in load_cases()]
    assert all(r.form == "off" and r.delivered == () for r in off)
    assert report.overall[0] == runs["product"].overall[0]  # the baseline does not depend on the retriever
    # Every case gets the relief pair of its random draw: two passages, from the index's 67 files.
    assert {r.form for r in on} == {"low-confidence"} and {len(r.delivered) for r in on} == {2}
    assert len({loc for r in on for loc in r.delivered}) > 53
    hits = [r.case_id for r in on if r.hit]
    assert hits == ["voc-03"]  # one lucky draw in 45
    summary = report.overall[1]
    assert (summary.hit_at_5, summary.success) == (1 / 45, 1 / 53)


def _checks(report: EvalReport) -> dict:
    assert report.gate is not None
    return {c.name: c for c in report.gate.checks}


def _failed(report: EvalReport) -> list[str]:
    assert report.gate is not None
    return [c.name for c in report.gate.checks if not c.passed]


def test_the_product_passes_the_built_in_gate_with_the_default_model(runs):
    report = runs["product"]
    assert report.meta["model"] == "Xenova/all-MiniLM-L6-v2" and report.meta["index"]["files"] == 67
    assert report.gate.passed and _failed(report) == [] and not report.failed
    checks = _checks(report)
    assert (checks["hit@5 minimum"].candidate, checks["task success minimum"].candidate,
            checks["should-skip success minimum"].candidate) == (24 / 45, 32 / 53, 8 / 8)


def test_the_gate_fails_for_a_retriever_returning_random_chunks(runs):
    report = runs["random"]
    assert report.failed
    assert _failed(report) == ["task success gain", "correction turns drop", "prompt tokens rise", "hit@5 minimum",
                               "task success minimum", "should-skip success minimum"]
    checks = _checks(report)
    # The seed's hit@5 rule passes on the one lucky hit (0 -> 1/45 is +inf); the minimum does not.
    assert checks["hit@5 gain"].passed and checks["hit@5 gain"].change == math.inf
    assert (checks["hit@5 minimum"].candidate, checks["hit@5 minimum"].note) == (1 / 45, "1 of 45 targeted cases hit")
    assert checks["task success minimum"].candidate == 1 / 53
    assert checks["should-skip success minimum"].note == "0 of 8 should-skip cases delivered nothing"
    assert checks["prompt tokens rise"].note == "not waived: task success rose -87.5% (< +15.0%)"


def test_the_gate_fails_for_a_retriever_that_delivers_on_every_should_skip_prompt(runs):
    report = runs["always"]
    skip = [r for r in report.arm_results("on") if r.case_class == "should-skip"]
    assert len(skip) == 8 and all(r.form != "nothing" and r.delivered for r in skip)
    # Every seed rule passes (with no relief floor the best-ranked results under 0.35 reach the
    # agent too); the skip minimum fails.
    assert _failed(report) == ["should-skip success minimum"]
    checks = _checks(report)
    assert [checks[name].passed for name in ("hit@5 gain", "task success gain", "correction turns drop",
                                             "prompt tokens rise")] == [True, True, True, True]
    assert checks["hit@5 minimum"].candidate >= runs["product"].overall[1].hit_at_5
    skip_check = checks["should-skip success minimum"]
    assert (skip_check.baseline, skip_check.candidate, skip_check.threshold) == (1.0, 0.0, 0.75)
