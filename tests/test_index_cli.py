"""End to end through the CLI: init, status, rebuild, clear, probe, refresh-context.

Real model from the mirror, real SQLite file, real git repositories in temp dirs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import git, run_cli as run, write_files
from paqad.config import load_settings
from paqad.project import ProjectPaths
from paqad.embed.factory import get_embedder
from paqad.build import sync as sync_index
from paqad.store import open_store

BILLING = '''"""Billing: invoices and proration."""

from decimal import Decimal


class InvoiceNumberer:
    """Hands out gap-free invoice numbers per year."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.counter = 0

    def next_number(self, year: int) -> str:
        self.counter += 1
        return f"{self.prefix}-{year}-{self.counter:05d}"


def prorate(amount: Decimal, days_used: int, days_in_period: int) -> Decimal:
    """Charge only for the part of the period that was used."""
    if days_in_period <= 0:
        raise ValueError("empty period")
    return (amount * days_used / days_in_period).quantize(Decimal("0.01"))
'''

RETRY = '''"""Calling flaky services again after a pause."""

import random
import time


def call_with_backoff(fn, attempts: int = 5, base: float = 0.5):
    """Call fn, sleeping base * 2**n seconds with jitter between failed attempts."""
    for attempt in range(attempts):
        try:
            return fn()
        except ConnectionError:
            time.sleep(base * (2 ** attempt) * random.random())
    raise RuntimeError("gave up after retries")
'''

AUTH = '''"""Password hashing and session tokens."""

import hashlib
import secrets


def hash_password(password: str, salt: bytes) -> str:
    """Derive a slow hash of the password with PBKDF2-HMAC-SHA256."""
    return hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 200_000).hex()


def new_session_token() -> str:
    """A random URL-safe token for a login session."""
    return secrets.token_urlsafe(32)
'''

README = """# Demo service

A tiny service used by the tests. It bills customers, retries flaky calls and logs people in.

## Billing

Invoices are numbered per year and partial months are prorated.
"""

PROJECT = {
    "pyproject.toml": "[project]\nname = 'demo'\nversion = '0.1.0'\ndescription = 'demo service for tests'\n",
    "src/demo/billing.py": BILLING,
    "src/demo/retry.py": RETRY,
    "src/demo/auth.py": AUTH,
    "README.md": README,
    ".env": "API_TOKEN=sk-this-must-never-be-indexed-0123456789abcdef\n",
    "config/.env.production.yaml": "api_token: sk-this-must-never-be-indexed-0123456789abcdef\n",
    "node_modules/left-pad/index.js": "module.exports = function leftPad(s, n) { return s.padStart(n); };\n",
    ".gitignore": "build/\n",
    "build/generated.py": "def generated_function_that_is_ignored():\n    return 'ignored by .gitignore'\n",
}




def status_json(project: Path) -> dict:
    code, out, _ = run("rag", "status", "--json", project=project)
    assert code == 0
    return json.loads(out)


@pytest.fixture
def project(git_repo) -> Path:
    return git_repo(PROJECT)


def test_status_shows_settings_as_they_are_written_in_a_config_file(project, monkeypatch):
    # Seen as a new user: `rag_enabled  True` (Python's spelling; the file takes `true`) and an
    # empty rag_base_branch / rag_team_store, where the README says "auto" and "empty (off)".
    assert run("rag", "init", "--provider", "local", project=project)[0] == 0
    monkeypatch.setenv("PAQAD_RAG_WARM_PROCESS", "false")
    code, out, _ = run("rag", "status", project=project)
    assert code == 0
    rows = {line.split()[0]: line.split(None, 2)[1:] for line in out.splitlines()[2:15]}
    assert rows["rag_enabled"] == ["true", ".paqad/.config"]
    assert rows["rag_warm_process"] == ["false", "env PAQAD_RAG_WARM_PROCESS"]
    assert rows["rag_base_branch"] == ["(auto)", "default"]
    assert rows["rag_team_store"] == ["(off)", "default"]
    assert rows["rag_top_n"] == ["20", "default"]
    assert json.loads(run("rag", "status", "--json", project=project)[1])["settings"]["rag_base_branch"] == {
        "value": "", "source": "default"}  # the JSON keeps the value itself
    skipped = [line for line in out.splitlines() if line.startswith("  skipped: ")]
    assert len(skipped) == 1 and skipped[0].endswith("; `paqad-ai rag status --explain .` lists them)")


def test_status_says_how_many_languages_it_leaves_out(git_repo):
    # The languages line showed the first 8 and dropped the rest without a word.
    files = {
        "pyproject.toml": '[project]\nname = "poly"\nversion = "1.0"\ndescription = "many languages"\n',
        "package.json": '{"name": "poly", "version": "1.0.0", "description": "many languages"}\n',
        "go.mod": "module example.com/poly\n\ngo 1.21\n",
        "Cargo.toml": '[package]\nname = "poly"\nversion = "0.1.0"\nedition = "2021"\n',
        "README.md": "# Poly\n\nA project written in many languages, one small file each, for the status line.\n",
        "config.yaml": "service:\n  name: poly\n  port: 8080\n  description: one service in many languages\n",
        "src/app.py": "def python_handler(request):\n    return {'language': 'python', 'request': request}\n",
        "src/app.js": "function javascriptHandler(request) {\n  return { language: 'javascript', request };\n}\n",
        "src/app.ts": "export function typescriptHandler(request: string): string {\n  return 'typescript ' + request;\n}\n",
        "src/app.go": "package poly\n\nfunc GoHandler(request string) string {\n\treturn \"go \" + request\n}\n",
        "src/lib.rs": "pub fn rust_handler(request: &str) -> String {\n    format!(\"rust {}\", request)\n}\n",
    }
    root = git_repo(files)
    assert run("rag", "init", "--provider", "local", project=root)[0] == 0
    languages = json.loads(run("rag", "status", "--json", project=root)[1])["index"]["languages"]
    assert len(languages) > 8, languages
    line = next(line for line in run("rag", "status", project=root)[1].splitlines() if line.startswith("  languages: "))
    assert line.endswith(f", and {len(languages) - 8} more (`rag status --json` lists all)")


def test_init_builds_the_index_and_status_reports_it(project):
    code, out, err = run("rag", "init", "--provider", "local", project=project)
    assert code == 0, err
    assert out.startswith("Retrieval on (local, Xenova/all-MiniLM-L6-v2): indexed 5 files, ")
    data = status_json(project)
    assert data["settings"]["rag_enabled"] == {"value": True, "source": ".paqad/.config"}
    idx = data["index"]
    assert (idx["present"], idx["valid"], idx["provider"], idx["model"], idx["dimension"]) == (
        True, True, "local", "Xenova/all-MiniLM-L6-v2", 384)
    assert idx["files"] == 5
    assert idx["languages"] == {"python": 3, "markdown": 1, "toml": 1}
    assert idx["rejected"]["ignore:env-file"] == 1
    assert idx["rejected"]["ignore:gitignore"] == 1
    assert idx["rejected"]["ignore:default-dir"] == 1
    gitignore = (project / ".paqad" / ".gitignore").read_text().splitlines()
    assert "vectors/" in gitignore and "secrets.env" in gitignore
    with open_store(ProjectPaths(project), readonly=True) as store:
        paths = sorted(r[0] for r in store.db.execute("SELECT DISTINCT path FROM chunks"))
        ids = [r[0] for r in store.db.execute("SELECT id FROM chunks")]
        texts = " ".join(row.text for row in store.chunks_by_id(ids).values())
        rows = store.db.execute(
            "SELECT start_line, end_line, symbol FROM chunks WHERE path = 'src/demo/retry.py' ORDER BY start_line").fetchall()
    assert paths == ["README.md", "pyproject.toml", "src/demo/auth.py", "src/demo/billing.py", "src/demo/retry.py"]
    assert "sk-this-must-never-be-indexed" not in texts and "ignored by .gitignore" not in texts
    assert rows[-1][1] == 14 and rows[0][0] == 1  # every line of the file is covered
    assert ("call_with_backoff" in {r[2] for r in rows})


def test_init_twice_keeps_the_index_unless_rebuild(project):
    assert run("rag", "init", project=project)[0] == 0
    built = status_json(project)["index"]["built_at"]
    code, out, err = run("rag", "init", project=project)
    assert code == 0
    assert "Index already built (5 files" in err
    # Said before the sync (which may wait for another process's lock): not "kept and synced".
    assert "chunks); kept, syncing what changed. Use" in err
    # It named --yes, which only answers questions (the --yes run below keeps the index).
    assert "Use `paqad-ai rag init --rebuild` to rebuild from scratch." in err and "--yes" not in err
    assert out.endswith("index up to date (5 files, " + str(status_json(project)["index"]["chunks"]) + " chunks)\n")
    assert status_json(project)["index"]["built_at"] == built
    code, out, err = run("rag", "init", "--yes", project=project)  # --yes answers questions, nothing more
    assert code == 0 and "Index already built (5 files" in err
    assert status_json(project)["index"]["built_at"] == built
    code, out, _ = run("rag", "init", "--rebuild", project=project)
    chunks = status_json(project)["index"]["chunks"]
    assert out.rstrip().endswith(f"indexed 5 files, {chunks} chunks (0 embedded, {chunks} cached) in " + out.rstrip().split(" in ")[-1])


def test_clear_deletes_vectors_only_and_keeps_secrets(project):
    paths = ProjectPaths(project)
    assert run("rag", "init", project=project)[0] == 0
    write_files(project, {".paqad/secrets.env": "OPENAI_API_KEY=sk-keep-me\n", ".paqad/.config": paths.local_config.read_text() + "rag_top_n=7\n"})
    code, _, err = run("rag", "clear", project=project)
    assert code == 2 and "without --yes" in err and paths.vectors_dir.exists()
    code, out, _ = run("rag", "clear", "--yes", project=project)
    assert code == 0 and not paths.vectors_dir.exists()
    assert paths.secrets_file.read_text() == "OPENAI_API_KEY=sk-keep-me\n"
    settings = load_settings(paths)
    assert settings.rag_enabled is False and settings.rag_top_n == 7


def test_clear_takes_the_deleted_index_s_passages_out_of_the_session_file_and_status(project):
    # Seen as a new user (round 11): after `rag clear --yes`, session-context.md still held the
    # passages (Cursor's rule tells the agent to read it), every refresh said "nothing to do", and
    # `rag status` said "Index: none" then "Last refresh: ... index up to date".
    from paqad.deliver.query import record_prompt

    paths = ProjectPaths(project)
    assert run("rag", "init", project=project)[0] == 0
    record_prompt(paths, "where are invoice numbers assigned")
    assert run("rag", "refresh-context", project=project)[0] == 0
    text = paths.session_context.read_text(encoding="utf-8")
    assert text.startswith("## Retrieved context\n") and "billing.py" in text
    paths.session_context.write_text(text + "\n## My notes\n\nkept as written\n", encoding="utf-8")
    assert run("rag", "clear", "--yes", project=project)[0] == 0
    assert paths.session_context.read_text(encoding="utf-8") == "## My notes\n\nkept as written\n"
    assert not (paths.state_dir / "last-refresh.json").exists()
    code, out, _ = run("rag", "status", project=project)
    assert code == 0 and "Index: none (run `paqad-ai rag init`)" in out and "Last refresh" not in out
    # retrieval switched off by hand: the next refresh takes the section out too
    assert run("rag", "init", project=project)[0] == 0
    assert run("rag", "refresh-context", project=project)[0] == 0
    assert "## Retrieved context" in paths.session_context.read_text(encoding="utf-8")
    assert run("config", "set", "rag_enabled", "false", project=project)[0] == 0
    assert run("rag", "refresh-context", project=project) == (0, "retrieval is off (rag_enabled=false); nothing to do\n", "")
    assert paths.session_context.read_text(encoding="utf-8") == "## My notes\n\nkept as written\n"


def test_precision_change_makes_the_index_stale_then_rebuild_is_clean(project, monkeypatch):
    assert run("rag", "init", project=project)[0] == 0
    monkeypatch.setenv("PAQAD_RAG_EMBEDDING_PRECISION", "fp32")
    idx = status_json(project)["index"]
    assert idx["valid"] is False
    assert idx["stale_reasons"] == ["model precision changed: index has int8, settings want fp32"]
    code, out, _ = run("rag", "rebuild", project=project)
    assert code == 0
    idx = status_json(project)["index"]
    assert idx["valid"] is True and idx["stale_reasons"] == []
    with open_store(ProjectPaths(project), readonly=True) as store:
        meta = store.meta()
        unembedded = store.db.execute("SELECT COUNT(*) FROM chunks WHERE vec IS NULL").fetchone()[0]
        models = dict(store.db.execute("SELECT fingerprint, rows FROM models").fetchall())
        rows_used = store.db.execute("SELECT MAX(vec) FROM chunks").fetchone()[0]
    assert meta["fingerprint"].startswith("Xenova/all-MiniLM-L6-v2|onnx/model.onnx|")
    # both models' vectors are kept (switching back is free), the chunks point into the fp32 ones only
    assert len(models) == 2 and unembedded == 0 and rows_used < models[meta["fingerprint"]]


def test_dimension_change_via_provider_switch_never_mixes_vectors(project, monkeypatch):
    """384-d local index, then OpenAI (1536-d, fake server on 127.0.0.1), then back to local."""
    from fake_providers import FakeEmbeddingServer

    assert run("rag", "init", project=project)[0] == 0
    with FakeEmbeddingServer("openai", 1536, "sk-test-key-for-fake-server") as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-for-fake-server")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code, out, err = run("rag", "init", "--provider", "openai", "--yes", project=project)
        assert code == 0, err
        idx = status_json(project)["index"]
        assert (idx["provider"], idx["model"], idx["dimension"], idx["valid"]) == ("openai", "text-embedding-3-small", 1536, True)
    monkeypatch.setenv("PAQAD_RAG_EMBEDDING_PROVIDER", "local")
    monkeypatch.setenv("PAQAD_RAG_EMBEDDING_MODEL", "Xenova/all-MiniLM-L6-v2")
    idx = status_json(project)["index"]
    assert idx["valid"] is False
    assert idx["stale_reasons"][0] == "embedding model changed: index has openai text-embedding-3-small, settings want local Xenova/all-MiniLM-L6-v2"
    # probe never rebuilds a whole index on the side: one line naming the command, nothing changed
    code, out, err = run("rag", "probe", "prorate a partial month", "--json", project=project)
    assert (code, out) == (2, "")
    assert err.startswith("paqad-ai: error: index is stale (embedding model changed: index has openai text-embedding-3-small, settings want local Xenova/all-MiniLM-L6-v2")
    assert err.endswith("; run `paqad-ai rag rebuild`\n") and err.count("\n") == 1
    assert status_json(project)["index"]["dimension"] == 1536
    code, out, _ = run("rag", "rebuild", project=project)
    chunks = status_json(project)["index"]["chunks"]
    assert code == 0 and f"({0} embedded, {chunks} cached)" in out  # the 384-d vectors were kept in the store
    idx = status_json(project)["index"]
    assert (idx["dimension"], idx["valid"]) == (384, True)
    code, out, _ = run("rag", "probe", "prorate a partial month", "--json", project=project)
    top = json.loads(out)["results"][0]
    assert (code, top["path"], top["symbol"]) == (0, "src/demo/billing.py", "prorate")


def test_probe_json_rows_and_floor_fields(project):
    assert run("rag", "init", project=project)[0] == 0
    code, out, _ = run("rag", "probe", "hash_password", "--json", "--top-n", "3", project=project)
    assert code == 0
    data = json.loads(out)
    assert (data["threshold"], data["relief_floor"]) == (0.75, 0.35)
    first = data["results"][0]
    assert (first["rank"], first["path"], first["symbol"], first["start_line"], first["end_line"]) == (
        1, "src/demo/auth.py", "hash_password", 1, 9)  # the module docstring and imports are folded in
    assert set(first) >= {"confidence", "cosine", "score", "fused_rank", "band", "above_floor", "above_relief", "gap_to_floor"}
    # the floor compares the calibrated confidence, not the cosine
    assert first["gap_to_floor"] == round(first["confidence"] - 0.75, 4)
    assert first["band"] == "confident" and first["above_floor"] is True
    assert first["cosine"] == first["score"] and first["confidence"] != first["cosine"]
    assert len(data["results"]) == 3


def test_mistyped_model_changes_nothing(project):
    assert run("rag", "init", project=project)[0] == 0
    config = (project / ".paqad" / ".config").read_bytes()
    code, _, err = run("rag", "init", "--model", "foo/bar", "--yes", project=project)
    assert code == 2 and "foo/bar" in err.splitlines()[-1]
    assert (project / ".paqad" / ".config").read_bytes() == config
    assert status_json(project)["index"]["valid"] is True


def test_clear_without_an_index_says_so(project):
    code, out, _ = run("rag", "clear", "--yes", project=project)
    assert (code, out) == (0, "No index to delete; retrieval is off (rag_enabled=false).\n")


def test_probe_user_errors_exit_2_with_one_line(project, tmp_path):
    code, _, err = run("rag", "probe", "anything", project=project)
    assert code == 2 and err == "paqad-ai: error: no index at .paqad/vectors/index.sqlite; run `paqad-ai rag init` first\n"
    code, _, err = run("rag", "probe", "--query-file", str(tmp_path / "missing.txt"), project=project)
    assert code == 2 and err.startswith("paqad-ai: error: --query-file ") and err.count("\n") == 1


def test_edit_rename_and_delete_are_seen_at_once(project):
    paths = ProjectPaths(project)
    assert run("rag", "init", project=project)[0] == 0
    retry = project / "src/demo/retry.py"
    retry.write_text(RETRY.replace("call_with_backoff", "call_patiently"))
    (project / "src/demo/auth.py").unlink()
    code, out, _ = run("rag", "probe", "call_patiently", "--json", "--top-n", "1", project=project)
    top = json.loads(out)["results"][0]
    assert (top["path"], top["symbol"]) == ("src/demo/retry.py", "call_patiently")
    with open_store(paths, readonly=True) as store:
        assert store.db.execute("SELECT COUNT(*) FROM chunks WHERE path = 'src/demo/auth.py'").fetchone()[0] == 0
        assert store.db.execute("SELECT COUNT(*) FROM files WHERE path = 'src/demo/auth.py'").fetchone()[0] == 0
        symbols = {r[0] for r in store.db.execute("SELECT symbol FROM chunks WHERE path = 'src/demo/retry.py'")}
    assert "call_patiently" in symbols and "call_with_backoff" not in symbols


def _index_snapshot(paths: ProjectPaths) -> list[tuple]:
    with open_store(paths, readonly=True) as store:
        return store.db.execute(
            "SELECT path, start_line, end_line, symbol, text, vec IS NOT NULL FROM chunks ORDER BY path, start_line").fetchall()


def test_branch_switch_equals_a_fresh_build_and_embeds_nothing_seen_before(project, tmp_path):
    paths = ProjectPaths(project)
    assert run("rag", "init", project=project)[0] == 0
    settings = load_settings(paths)
    embedder = get_embedder(settings, paths)
    git(project, "checkout", "-q", "-b", "feature")
    write_files(project, {"src/demo/refunds.py": '"""Refunds."""\n\n\ndef refund(invoice_id: str, cents: int) -> dict:\n    """Give money back for an invoice."""\n    return {"invoice": invoice_id, "cents": -cents}\n'})
    (project / "src/demo/retry.py").write_text(RETRY.replace("attempts: int = 5", "attempts: int = 8"))
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "refunds")
    on_feature = sync_index(paths, settings, embedder)
    assert (on_feature.files_changed, on_feature.files_removed) == (2, 0)
    assert on_feature.embedded > 0
    git(project, "checkout", "-q", "main")
    back = sync_index(paths, settings, embedder)
    assert (back.files_changed, back.files_removed, back.embedded) == (1, 1, 0)
    main_snapshot = _index_snapshot(paths)
    git(project, "checkout", "-q", "feature")
    again = sync_index(paths, settings, embedder)
    assert again.embedded == 0
    feature_snapshot = _index_snapshot(paths)
    fresh = git_fresh_copy(project, tmp_path / "fresh")
    fresh_paths = ProjectPaths(fresh)
    sync_index(fresh_paths, settings, embedder, full=True)
    assert _index_snapshot(fresh_paths) == feature_snapshot
    assert main_snapshot != feature_snapshot


def git_fresh_copy(project: Path, dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(project), str(dest)], check=True)
    return dest


def test_renamed_file_costs_no_embedding(project):
    paths = ProjectPaths(project)
    assert run("rag", "init", project=project)[0] == 0
    settings = load_settings(paths)
    (project / "src/demo/retry.py").rename(project / "src/demo/resilience.py")
    report = sync_index(paths, settings, get_embedder(settings, paths))
    assert (report.files_changed, report.files_removed, report.embedded) == (1, 1, 0)


def test_refresh_context_writes_the_section_for_the_last_prompt(project):
    from paqad.deliver.query import record_prompt

    paths = ProjectPaths(project)
    assert run("rag", "init", project=project)[0] == 0
    write_files(project, {".paqad/context/session-context.md": "# Session\n\n## Notes\nkeep me\n"})
    record_prompt(paths, "where do we retry flaky calls with exponential backoff?")
    code, out, _ = run("rag", "refresh-context", project=project)
    assert code == 0
    assert "query from prompt" in out
    text = paths.session_context.read_text()
    assert text.startswith("# Session\n\n## Notes\nkeep me\n")
    section = text[text.index("## Retrieved context"):]
    assert "src/demo/retry.py:L" in section
    assert "call_with_backoff" in section


def test_refresh_context_with_retrieval_off_says_why(project):
    code, out, _ = run("rag", "refresh-context", project=project)
    assert (code, out) == (0, "retrieval is off (rag_enabled=false); nothing to do\n")


def test_killed_rebuild_is_searchable_and_the_next_sync_embeds_only_the_rest(project, tmp_path):
    """SIGKILL a full rebuild half-way through embedding: files, chunks and the keyword index were
    committed first, so the index answers (a symbol query finds a chunk not embedded yet), says
    its semantic coverage, and the next sync embeds only what is missing (issue 13)."""
    paths = ProjectPaths(project)
    many = {f"src/demo/handlers/h{i:03d}.py": f'def handle_{i:03d}(event):\n    """Handle event kind {i} for the demo service."""\n    return {{"kind": {i}, "ok": True, "note": "handler number {i}"}}\n' for i in range(400)}
    assert run("rag", "init", project=project)[0] == 0
    write_files(project, many)
    proc = subprocess.Popen([sys.executable, "-m", "paqad.cli.main", "rag", "rebuild", "--project-root", str(project)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    total = embedded = 0
    while time.monotonic() < deadline:  # until the new chunks are committed and some vector batches too
        try:
            with open_store(paths, readonly=True) as store:
                total, embedded = store.db.execute("SELECT COUNT(*), COUNT(vec) FROM chunks").fetchone()
        except Exception:  # noqa: BLE001 - the writer may hold the file for a moment
            pass
        if (total > 400 and embedded >= 100) or proc.poll() is not None:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    idx = status_json(project)["index"]
    assert (idx["valid"], idx["files"], idx["chunks"]) == (True, 405, total)
    assert 100 <= idx["embedded_chunks"] < total and idx["semantic_coverage"] < 1
    code, out, err = run("rag", "probe", "handle_399", "--json", "--no-sync", "--top-n", "1", project=project)
    data = json.loads(out)
    assert code == 0 and data["semantic_coverage"] < 0.8 and "semantic coverage partial" in err
    # under 80% coverage the search is keyword-only: the symbol is found though it has no vector yet
    assert (data["results"][0]["symbol"], data["results"][0]["semantic"]) == ("handle_399", False)
    settings = load_settings(paths)
    report = sync_index(paths, settings, get_embedder(settings, paths))
    assert (report.files_changed, report.embedded_chunks, report.pending) == (0, total - idx["embedded_chunks"], 0)
    assert status_json(project)["index"]["semantic_coverage"] == 1


def test_remote_init_without_a_key_fails_cleanly_and_writes_nothing(project):
    code, out, err = run("rag", "init", "--provider", "openai", project=project)
    assert code == 2 and out == ""
    assert err.splitlines()[0] == f"Project root: {project}"
    assert err.splitlines()[1].startswith("paqad-ai: error: OPENAI_API_KEY is not set") and err.count("\n") == 2
    assert not (project / ".paqad" / ".config").exists()
    assert not (project / ".paqad" / "vectors").exists()


def test_probe_path_outside_or_missing_is_a_user_error(project):
    assert run("rag", "init", project=project)[0] == 0
    code, _, err = run("rag", "probe", "x", "--path", "../..", project=project)
    assert code == 2 and err.startswith("paqad-ai: error: --path ../..: outside the project")
    code, _, err = run("rag", "probe", "x", "--path", "nowhere", project=project)
    assert (code, err) == (2, "paqad-ai: error: --path nowhere: no such file or folder in the project\n")
    code, out, _ = run("rag", "probe", "prorate", "--path", "src/demo", "--json", project=project)
    assert code == 0 and {r["path"] for r in json.loads(out)["results"]} <= {"src/demo/billing.py", "src/demo/retry.py", "src/demo/auth.py"}


def test_remote_build_on_a_terminal_says_what_is_sent_and_asks_first(project):
    """On a TTY the first remote build states chunks, characters and provider, then asks."""
    import pty

    from fake_providers import FakeEmbeddingServer

    with FakeEmbeddingServer("openai", 1536, "sk-test-key-for-fake-server") as server:
        env = dict(os.environ, OPENAI_API_KEY="sk-test-key-for-fake-server", OPENAI_BASE_URL=server.base_url)
        master, slave = pty.openpty()
        proc = subprocess.Popen(
            [sys.executable, "-m", "paqad.cli.main", "rag", "init", "--provider", "openai", "--project-root", str(project)],
            stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        )
        os.close(slave)
        os.write(master, b"n\n")
        out, err = proc.communicate(timeout=120)
        os.close(master)
        assert proc.returncode == 2
        assert "This will send " in err.decode() and " chunks (" in err.decode()
        assert "characters) of this project to openai (text-embedding-3-small). Continue?" in err.decode()
        assert server.requests == []  # nothing was sent
        assert not (project / ".paqad" / "vectors").exists()
        assert not (project / ".paqad" / ".config").exists()  # declining changes no setting


def test_vectors_after_edits_are_those_of_a_fresh_embedding(project):
    """After edits, every chunk's stored vector (int8 with a scale) is its text's embedding
    (cosine >= 0.9999), in chunk-id order, and each distinct text is stored once."""
    import numpy as np

    from paqad.index.chunking import dense_text

    paths = ProjectPaths(project)
    assert run("rag", "init", project=project)[0] == 0
    settings = load_settings(paths)
    embedder = get_embedder(settings, paths)
    (project / "src/demo/retry.py").write_text(RETRY.replace("call_with_backoff", "call_patiently"))
    (project / "src/demo/auth.py").unlink()
    write_files(project, {"src/demo/extra.py": '"""Extra."""\n\n\ndef extra_total(a: int, b: int) -> int:\n    """Add two amounts in cents."""\n    return a + b\n'})
    sync_index(paths, settings, embedder)
    with open_store(paths, readonly=True) as store:
        view = store.dense_view()
        db_ids = [r[0] for r in store.db.execute("SELECT id FROM chunks ORDER BY id")]
        chunks = store.chunks_by_id(db_ids)
        keys = store.db.execute("SELECT COUNT(*) FROM vector_keys").fetchone()[0]
        rows = store.db.execute("SELECT SUM(rows) FROM models").fetchone()[0]
    assert view.ids.tolist() == db_ids
    stored = view.vectors.astype(np.float32) * view.scales[:, None]
    fresh = embedder.embed_documents([dense_text(chunks[i]) for i in db_ids])
    assert np.allclose(np.linalg.norm(stored, axis=1), 1.0, atol=1e-5)
    assert (stored * fresh).sum(axis=1).min() >= 0.9999
    assert keys == rows  # every stored vector has exactly one key: nothing stored twice


def test_init_and_status_name_skipped_hand_written_source(project, monkeypatch):
    # the original's 150 KiB, one setting away: a central hand-written module over it is named,
    # a generated one is not
    monkeypatch.setenv("PAQAD_RAG_MAX_FILE_SIZE", "153600")
    big = "\n\n".join(f"def route_{i}(request):\n    \"\"\"Route number {i}.\"\"\"\n    return dispatch(request, {i})"
                      for i in range(2600))
    (project / "src" / "demo" / "routing.py").write_text(big, encoding="utf-8")
    (project / "src" / "demo" / "tables.py").write_text("# Code generated by tablegen. DO NOT EDIT.\n" + big, encoding="utf-8")
    size = (project / "src" / "demo" / "routing.py").stat().st_size
    assert size > 153600
    code, _, err = run("rag", "init", project=project)
    assert code == 0
    want = (f"paqad-ai: warning: 1 source file(s) larger than rag_max_file_size=153600 were skipped: src/demo/routing.py "
            f"({size / 1024:.0f} KB); run `paqad-ai config set rag_max_file_size {-(-size // 10240) * 10240}` to index them; "
            "1 other file(s) over the cap look generated or are not source, so are not named here "
            "(`paqad-ai rag status --explain . --json` lists them)")  # round 8: the generated one is counted
    assert want in err.splitlines()
    assert status_json(project)["index"]["large_sources"] == [{"path": "src/demo/routing.py", "bytes": size}]


def test_init_help_names_the_model_store_of_paqad_home(monkeypatch, tmp_path):
    """issue 20 item 13: with PAQAD_HOME set, `init --help` must not promise ~/.paqad/models alone."""
    code, out, _ = run("rag", "init", "--help")
    assert code == 0 and "PAQAD_HOME/models" in " ".join(out.split())
    assert "--rebuild" in out
