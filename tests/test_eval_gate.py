"""The eval runner with other retrievers in place of the product: the built-in set, the real model, real indexes."""

from __future__ import annotations

import random
import pytest

from conftest import MODEL_MIRROR
from paqad.config import load_settings
from paqad.embed.factory import get_embedder
from paqad.evaluate import Delivery, EvalIndex, EvalReport, deliver, run_eval
from paqad.evaluate.cases import load_cases
from paqad.project import ProjectPaths
from paqad.search.results import SearchResult


def random_chunks(index: EvalIndex, query: str) -> Delivery:
    """``rag_top_n`` chunks of the index drawn at random (seeded by the query), each with a score
    drawn inside the relief band: the product's usual delivery shape (two low-confidence
    passages), random content."""
    ids = index.store.chunk_ids_of_files(sorted(index.store.files()), limit=1_000_000)  # path and line order
    rows = index.store.chunks_by_id(ids)
    rng = random.Random(f"random-chunks:{query}")
    settings = index.settings
    results = [
        SearchResult(path=rows[i].path, start_line=rows[i].start_line, end_line=rows[i].end_line, symbol=rows[i].symbol,
                     language=rows[i].language, text=rows[i].text,
                     score=rng.uniform(settings.rag_relief_floor, settings.rag_similarity_threshold),
                     fused_rank=rank, dense_rank=None, lexical_rank=None, chunk_id=i)
        for rank, i in enumerate(rng.sample(ids, settings.rag_top_n), start=1)
    ]
    return deliver(results, settings)


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
               for name, retriever in (("product", None), ("random", random_chunks))}


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
    assert runs["product"].overall[1].hit_at_5 == 27 / 45
