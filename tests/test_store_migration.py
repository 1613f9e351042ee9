"""Schema v3 (issue 13): an index built by the previous release (schema v1, chunker 3) is upgraded
in place, keeping its chunks and every embedding; the contentless keyword index deletes rows by
recomputed tokens. The chunker changed since (v4, issue 10), so the upgraded index is then rebuilt
by the next sync, from the embeddings it kept: nothing is embedded again."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from paqad.build import sync
from paqad.config import load_settings
from paqad.embed.factory import get_embedder
from paqad.errors import IndexStaleError
from paqad.project import ProjectPaths
from paqad.status import index_state
from paqad.store import SCHEMA_VERSION, fts_match_expression, open_store

FIXTURE = Path(__file__).parent / "fixtures" / "index-v1"


@pytest.fixture
def v1_project(tmp_path: Path) -> ProjectPaths:
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE / "project", root)
    paths = ProjectPaths(root)
    paths.vectors_dir.mkdir(parents=True)
    shutil.copyfile(FIXTURE / "index-v1.sqlite", paths.index_db)
    (paths.vectors_dir / "matrix-1.npy").write_bytes(b"v1's derived matrix")
    paths.local_config.write_text("rag_enabled=true\n", encoding="utf-8")
    return paths


def _v1_content(db_file: Path) -> tuple[dict, dict]:
    db = sqlite3.connect(db_file)
    chunks = {r[0]: (r[1], r[2]) for r in db.execute("SELECT id, text, embed_hash FROM chunks")}
    vectors = {r[0]: np.frombuffer(r[1], dtype=np.float32) for r in db.execute("SELECT text_hash, vector FROM embeddings")}
    db.close()
    return chunks, vectors


def test_readers_of_a_v1_index_are_told_how_to_upgrade(v1_project: ProjectPaths):
    with pytest.raises(IndexStaleError, match=r"index schema v1 is older than this paqad-ai .*run `paqad-ai rag refresh-context`"):
        open_store(v1_project, readonly=True)
    state = index_state(v1_project, load_settings(v1_project))
    assert state.present and not state.valid and "schema v1" in state.reasons[0]


def test_a_v1_index_is_upgraded_in_place_keeping_chunks_and_vectors(v1_project: ProjectPaths):
    chunks, old_vectors = _v1_content(v1_project.index_db)
    with open_store(v1_project, create=True) as store:
        assert int(store.db.execute("PRAGMA user_version").fetchone()[0]) == SCHEMA_VERSION == 4
        assert store.meta()["schema_version"] == "4"
        tables = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "embeddings" not in tables and {"models", "vector_keys", "vector_blocks"} <= tables
        rows = store.chunks_by_id(list(chunks))
        assert {i: r.text for i, r in rows.items()} == {i: text for i, (text, _) in chunks.items()}
        view = store.dense_view()
        assert view is not None and view.ids.tolist() == sorted(chunks)
        stored = view.vectors.astype(np.float32) * view.scales[:, None]
        original = np.stack([old_vectors[chunks[i][1]] for i in view.ids.tolist()])
        assert (stored * original).sum(axis=1).min() >= 0.9999
        assert [cid for cid, _ in store.bm25(fts_match_expression(["invoicenumberer"]), 5)] == [
            i for i, (text, _) in chunks.items() if "class InvoiceNumberer" in text]
    assert not list(v1_project.vectors_dir.glob("*.npy"))
    state = index_state(v1_project, load_settings(v1_project))
    assert state.reasons == ("chunker version changed: index has 3, settings want 8",)  # CHUNKER_VERSION 8 (cxx11, round 11)


def test_after_the_upgrade_a_sync_embeds_nothing_again(v1_project: ProjectPaths):
    settings = load_settings(v1_project)
    embedder = get_embedder(settings, v1_project)
    with sqlite3.connect(v1_project.index_db) as db:
        built_with = dict(db.execute("SELECT key, value FROM meta"))["fingerprint"]
    if built_with != embedder.fingerprint:
        pytest.skip(f"fixture built with {built_with}; this runtime is {embedder.fingerprint}")
    report = sync(v1_project, settings, embedder)
    assert (report.full, report.reason) == (True, "chunker version changed: index has 3, settings want 8")  # CHUNKER_VERSION 8
    assert (report.embedded, report.cached, report.pending, report.chunks_total) == (0, 5, 0, 5)
    assert index_state(v1_project, settings).valid


def test_keyword_rows_of_edited_files_are_deleted_by_their_recomputed_tokens(v1_project: ProjectPaths):
    settings = load_settings(v1_project)
    embedder = get_embedder(settings, v1_project)
    sync(v1_project, settings, embedder)
    retry = v1_project.root / "src/demo/retry.py"
    retry.write_text(retry.read_text().replace("call_with_backoff", "call_patiently"))
    sync(v1_project, settings, embedder)
    with open_store(v1_project, readonly=True) as store:
        assert store.bm25(fts_match_expression(["backoff"]), 5) == []
        assert len(store.bm25(fts_match_expression(["patiently"]), 5)) == 1
        # the FTS5 row count matches the chunks: nothing left behind by the delete
        assert store.db.execute("SELECT COUNT(*) FROM chunks_fts_docsize").fetchone()[0] == store.chunk_count()


def test_tokens_that_no_longer_match_rebuild_the_keyword_index(v1_project: ProjectPaths):
    """A row whose tokens cannot be recomputed (the token rules changed) is never deleted with
    wrong tokens, which would corrupt FTS5: the keyword index is rebuilt from the chunks instead."""
    settings = load_settings(v1_project)
    embedder = get_embedder(settings, v1_project)
    sync(v1_project, settings, embedder)
    with open_store(v1_project, create=True) as store:
        store.db.execute("UPDATE chunks SET fts_hash = 1 WHERE path = 'src/demo/retry.py'")
    retry = v1_project.root / "src/demo/retry.py"
    retry.write_text(retry.read_text().replace("call_with_backoff", "call_patiently"))
    sync(v1_project, settings, embedder)
    with open_store(v1_project, readonly=True) as store:
        assert store.bm25(fts_match_expression(["backoff"]), 5) == []
        assert len(store.bm25(fts_match_expression(["patiently"]), 5)) == 1
        assert len(store.bm25(fts_match_expression(["invoicenumberer"]), 5)) == 1
        assert store.db.execute("SELECT COUNT(*) FROM chunks_fts_docsize").fetchone()[0] == store.chunk_count()
