"""The job layer (issue 18): one sync policy, one sync-then-search-then-band call, typed status, build jobs."""

from __future__ import annotations

import dataclasses
import os
import shutil
import threading
import time
from pathlib import Path

import pytest
from conftest import build_index, write_files

from paqad.config import load_settings
from paqad.errors import IndexMissingError, IndexStaleError
from paqad.jobs import build as build_job
from paqad.jobs import status as status_job
from paqad.jobs.sync_policy import MCP, NO_SYNC, PROBE, REFRESH, BackgroundSync, SyncOutcome, SyncState, sync_within
from paqad.jobs.sync_search import SearchAsk, search_within_budget
from paqad.project import ProjectPaths
from paqad.search import load_embedder
from paqad.search.degraded import DegradedReason
from paqad.status import record_last_refresh
from paqad.store import write_lock

FILES = {
    "pyproject.toml": '[project]\nname = "shop"\nversion = "0.1"\n',
    "src/shop/tax.py": (
        "VAT_RATE = 0.2\n\n\n"
        "def vat(amount, rate=VAT_RATE):\n"
        '    """Value added tax owed on a net amount, rounded to the cent."""\n'
        "    return round(amount * rate, 2)\n"
    ),
    "src/shop/cart.py": (
        "class Cart:\n"
        '    """Items a customer is about to buy, with their quantities."""\n\n'
        "    def __init__(self):\n"
        "        self.items = {}\n"
    ),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, paqad_home: Path) -> Path:
    return build_index(tmp_path_factory.mktemp("jobs") / "shop", FILES, paqad_home)


@pytest.fixture
def project(built: Path, tmp_path: Path) -> ProjectPaths:
    """A copy of the built project each test may edit."""
    root = tmp_path / "shop"
    shutil.copytree(built, root)
    return ProjectPaths(root)


def _model(paths: ProjectPaths):
    embedder, degraded = load_embedder(paths, load_settings(paths))
    assert degraded is None
    return embedder


def test_each_policy_syncs_what_it_says(project: ProjectPaths):
    settings, embedder = load_settings(project), _model(project)
    write_files(project.root, {"src/shop/cart.py": FILES["src/shop/cart.py"] + "\n\ndef empty(cart):\n    cart.items.clear()\n"})
    assert sync_within(project, settings, embedder, NO_SYNC) == SyncOutcome(SyncState.NOT_ASKED)
    assert sync_within(project, settings, None, PROBE) == SyncOutcome(SyncState.NO_MODEL)
    synced = sync_within(project, settings, embedder, PROBE)
    assert (synced.state, synced.report.files_changed, synced.report.files_removed) == (SyncState.SYNCED, 1, 0)
    again = sync_within(project, settings, embedder, MCP, background=BackgroundSync())
    assert again.state is SyncState.SYNCED and not again.report.changed


def test_another_writer_makes_every_policy_search_the_last_committed_index(project: ProjectPaths):
    settings, embedder = load_settings(project), _model(project)
    held, release = threading.Event(), threading.Event()

    def writer() -> None:
        with write_lock(project, blocking=True, job="a test writer"):
            held.set()
            release.wait(10)

    other = threading.Thread(target=writer)
    other.start()
    try:
        assert held.wait(10)
        for policy in (PROBE, REFRESH):
            assert sync_within(project, settings, embedder, policy).state is SyncState.BUSY
        done = search_within_budget(project, settings, SearchAsk("value added tax"), policy=REFRESH,
                                    embedder=embedder)
        assert done.sync.state is SyncState.BUSY and done.rows[0].path == "src/shop/tax.py"
        report = status_job.project_status(project)  # the writer is this process
        assert report.build_pid == os.getpid()
        assert f"  a build is running (pid {os.getpid()})" in report.lines(lambda header, rows: [])
    finally:
        release.set()
        other.join()


def test_a_stale_index_raises_for_probe_and_goes_keyword_only_for_the_refresh(project: ProjectPaths):
    settings, embedder = load_settings(project), _model(project)
    other = dataclasses.replace(settings, rag_embedding_precision="fp32")  # the index holds int8 vectors
    with pytest.raises(IndexStaleError, match="model precision"):
        search_within_budget(project, other, SearchAsk("vat"), policy=PROBE, embedder=embedder)
    done = search_within_budget(project, other, SearchAsk("vat"), policy=REFRESH, embedder=embedder)
    assert done.sync.state is SyncState.STALE and done.embedder is None
    assert done.degraded.reason is DegradedReason.STALE_INDEX
    assert done.degraded.words.startswith("index is stale (model precision")
    assert done.rows[0].path == "src/shop/tax.py" and done.rows[0].cosine is None  # keyword-only


def test_the_rows_are_the_search_banded_against_the_floors(project: ProjectPaths):
    settings = load_settings(project)
    done = search_within_budget(project, settings, SearchAsk("value added tax owed on an amount", top_n=2),
                                policy=NO_SYNC, embedder=_model(project))
    assert [(r.rank, r.path) for r in done.rows] == [(r.fused_rank, r.path) for r in done.response.results]
    top = done.rows[0]
    assert top.path == "src/shop/tax.py" and top.semantic and top.cosine == round(done.response.results[0].score, 4)
    assert top.gap_to_floor == round(top.confidence - settings.rag_similarity_threshold, 4)
    assert done.floor.threshold == 0.75 and done.floor.relief_floor == 0.35
    # The ask may look at the index as synced and decline: no search, no rows.
    asked: list[SyncState] = []
    nothing = search_within_budget(project, settings, lambda synced: asked.append(synced.state), policy=NO_SYNC,
                                   embedder=None)
    assert asked == [SyncState.NOT_ASKED] and nothing.response is None and nothing.rows == ()


def test_a_sync_past_its_budget_goes_on_and_is_joined_again_not_restarted():
    runs: list[float] = []

    def slow() -> SyncOutcome:
        runs.append(time.monotonic())
        time.sleep(0.5)
        return SyncOutcome(SyncState.BUSY)

    background = BackgroundSync()
    assert background.run(slow, 0.01) == SyncOutcome(SyncState.RUNNING)
    assert background.run(slow, 5.0) == SyncOutcome(SyncState.BUSY)
    assert len(runs) == 1


def test_status_is_typed_for_the_lines_people_read(project: ProjectPaths):
    record_last_refresh(project, "index up to date (3 files, 4 chunks)", 1.25)
    report = status_job.project_status(project)
    assert report.max_file_size == 1048576 and report.build_pid is None
    assert report.last_refresh.summary == "index up to date (3 files, 4 chunks)" and report.last_refresh.seconds == 1.25
    last = [line for line in report.lines(lambda header, rows: ["table"]) if line.startswith("Last refresh: ")]
    assert len(last) == 1 and last[0].endswith(", 1.25s — index up to date (3 files, 4 chunks)")
    assert report.to_dict()["last_refresh"]["summary"] == "index up to date (3 files, 4 chunks)"
    assert status_job._fmt_time(10) == "1970-01-01T00:00:10+00:00" and status_job._fmt_time(None) == "never"
    assert status_job.explain(project, "src/shop/cart.py").describe() == "src/shop/cart.py: indexed"


def test_rebuild_refuses_a_project_without_retrieval(tmp_path: Path):
    paths = ProjectPaths(tmp_path)
    with pytest.raises(IndexMissingError, match="run `paqad-ai rag init` first"):
        build_job.rebuild(paths, load_settings(paths))
    assert not paths.vectors_dir.exists()


def test_rebuild_returns_the_report_and_its_warnings(project: ProjectPaths):
    notes: list[str] = []
    ticks: list[str] = []
    done = build_job.rebuild(project, load_settings(project), notify=notes.append,
                             progress=lambda stage, n, total: ticks.append(stage))
    assert done.report.full and done.report.files_total == 2 and done.report.cached == done.report.chunks_total
    assert done.summary.startswith("indexed 2 files, 2 chunks") and done.warnings == () and notes == []
    assert "searchable" in ticks
