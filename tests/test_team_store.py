"""The team's shared embedding store (issue 21, DESIGN §14) against a real PostgreSQL server.

A session fixture starts a throwaway cluster (tests/pg_cluster.py) on 127.0.0.1; every test gets
a database of its own. Skipped only where no PostgreSQL binaries exist; ``.ci/run`` sets
``PAQAD_POSTGRES=required`` so CI fails instead of skipping.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import git, run_cli

import pg_cluster

PASSWORD = "s3cret-team"
WRITER, READER = "team_writer", "team_reader"

FILES = {
    "pyproject.toml": "[project]\nname = 'shop'\nversion = '0.1.0'\n",
    "shop/cart.py": (
        "class Cart:\n    \"\"\"A shopping cart holding items and their quantities.\"\"\"\n\n"
        "    def __init__(self):\n        self.items = {}\n\n"
        "    def add(self, sku: str, quantity: int = 1) -> None:\n        \"\"\"Add quantity of sku to the cart.\"\"\"\n"
        "        self.items[sku] = self.items.get(sku, 0) + quantity\n\n"
        "    def total(self, prices: dict) -> float:\n        \"\"\"Sum of price times quantity over the items.\"\"\"\n"
        "        return sum(prices[s] * q for s, q in self.items.items())\n"),
    "shop/tax.py": (
        "RATES = {'de': 0.19, 'fr': 0.20, 'nl': 0.21}\n\n\n"
        "def vat(amount: float, country: str) -> float:\n    \"\"\"Value added tax owed on amount in the given country.\"\"\"\n"
        "    return round(amount * RATES[country], 2)\n"),
    "README.md": "# Shop\n\nA tiny shop library: carts, prices and value added tax for a few countries.\n",
    **{f"shop/{name}.py": (f"def {name}_report(orders: list) -> dict:\n    \"\"\"Summarise the {name} of the given orders.\"\"\"\n"
                           f"    return {{'{name}': sum(o.get('{name}', 0) for o in orders), 'count': len(orders)}}\n")
       for name in ("shipping", "discounts", "returns", "invoices", "payments", "stock")},
}

_counter = itertools.count()
# Read at import: the autouse fixture of conftest.py drops every PAQAD_* variable for each test.
POSTGRES_REQUIRED = os.environ.get("PAQAD_POSTGRES") == "required"
PG_BIN = pg_cluster.pg_bin()


@pytest.fixture(scope="session")
def cluster():
    bindir = PG_BIN
    if bindir is None:
        if POSTGRES_REQUIRED:
            pytest.fail("PostgreSQL binaries not found, but PAQAD_POSTGRES=required (.ci/run): the team store tests must run")
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found: set PAQAD_PG_BIN")
    server = pg_cluster.create_cluster(bindir)
    try:
        pg_cluster.create_team_roles(server, WRITER, READER, PASSWORD)
        yield server
    finally:
        server.remove()


@pytest.fixture
def db(cluster):
    """A fresh database owned by the writer; its name."""
    name = f"t{next(_counter)}"
    cluster.sql(f"CREATE DATABASE {name} OWNER {WRITER}")
    return name


def _team_env(monkeypatch, url: str, home: Path, write: bool = True) -> None:
    monkeypatch.setenv("PAQAD_HOME", str(home))
    monkeypatch.setenv("PAQAD_RAG_TEAM_STORE", url)
    monkeypatch.setenv("PAQAD_RAG_TEAM_STORE_WRITE", "true" if write else "false")
    monkeypatch.setenv("PAQAD_TEAM_STORE_PASSWORD", PASSWORD)


def _init(root: Path):
    from paqad.build import init_project
    from paqad.project import ProjectPaths

    return init_project(ProjectPaths(root), provider="local", rebuild=True).report


def _index(root: Path) -> list[tuple]:
    """Every chunk of the index with its stored vector record: (path, start, end, text, record bytes)."""
    from paqad.store import codec, vectors

    con = sqlite3.connect(root / ".paqad" / "vectors" / "index.sqlite")
    try:
        (fingerprint,) = con.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        model = vectors.model_id(con, fingerprint)
        records = vectors.load_records(con, model, vectors.model_dimension(con, model))
        rows = con.execute("SELECT path, start_line, end_line, text, vec FROM chunks ORDER BY path, start_line").fetchall()
    finally:
        con.close()
    return [(p, s, e, codec.unpack_text(t), None if v is None else records[v].tobytes()) for p, s, e, t, v in rows]


@pytest.fixture
def first_clone(git_repo, tmp_path, db, cluster, monkeypatch):
    """Clone 1 built with the team store (empty: a local build that writes its vectors back)."""
    root = git_repo(FILES, name="clone1")
    _team_env(monkeypatch, cluster.url(WRITER, db), tmp_path / "home1")
    assert run_cli("rag", "team", "init", project=root)[0] == 0
    report = _init(root)
    return root, report


def test_teammate_init_embeds_nothing_the_first_published(first_clone, tmp_path, cluster, db, monkeypatch):
    root1, report1 = first_clone
    assert report1.embedded == report1.chunks_total > 5 and report1.team_chunks == 0 and report1.team_note == ""
    stored = cluster.sql("SELECT count(*), min(length(text_hash)), min(length(vector)) FROM paqad_team_vectors", database=db)
    assert stored == [(report1.embedded, 32, 388)]
    # Nothing but hashes and vectors on the server: no path or text appears in any column.
    dump = cluster.sql("SELECT string_agg(encode(vector, 'escape'), '') FROM paqad_team_vectors", database=db)[0][0]
    assert "Cart" not in dump and "shop/" not in dump
    code, out, _ = run_cli("rag", "publish", project=root1)
    assert code == 0 and out.startswith(f"published 0 of {report1.embedded} vectors")

    root2 = tmp_path / "clone2"
    git(tmp_path, "clone", "-q", str(root1), str(root2))
    _team_env(monkeypatch, cluster.url(WRITER, db), tmp_path / "home2")
    monkeypatch.delenv("PAQAD_TEAM_STORE_PASSWORD")  # this teammate keeps it in .paqad/secrets.env
    (root2 / ".paqad").mkdir(exist_ok=True)
    (root2 / ".paqad" / "secrets.env").write_text(f"PAQAD_TEAM_STORE_PASSWORD={PASSWORD}\n", encoding="utf-8")
    (root2 / ".paqad" / "secrets.env").chmod(0o600)
    report2 = _init(root2)
    assert (report2.embedded, report2.team_chunks, report2.pending) == (0, report1.chunks_total, 0)
    assert report2.team_note == ""
    n = report1.chunks_total
    assert f"{n} chunks (0 embedded, {n} from the team store, 0 cached)" in report2.summary()
    assert _index(root2) == _index(root1)  # same chunks, the same int8 vectors byte for byte
    code, out, _ = run_cli("rag", "status", "--json", project=root2)
    import json

    team = json.loads(out)["team_store"]
    assert code == 0 and team == {"url": cluster.url(WRITER, db), "write": True, "reachable": True,
                                  "detail": "schema v1", "vectors_from_team": report1.chunks_total}
    code, out, _ = run_cli("rag", "team", "status", project=root2)
    assert out.strip() == (f"Team store: {cluster.url(WRITER, db)} (read-write), reachable, schema v1; "
                           f"{report1.chunks_total} of this index's vectors came from it")


def test_the_background_refresh_reads_through_too(first_clone, tmp_path, db, cluster, monkeypatch):
    root1, report1 = first_clone
    root2 = tmp_path / "clone2"
    git(tmp_path, "clone", "-q", str(root1), str(root2))
    new_file = ("def audit(trail: list) -> list:\n    \"\"\"Entries of the audit trail that changed a price.\"\"\"\n"
                "    return [entry for entry in trail if entry.get('field') == 'price']\n")
    (root1 / "shop" / "audit.py").write_text(new_file, encoding="utf-8")
    code, out, _ = run_cli("rag", "refresh-context", project=root1)  # embeds it, writes it back
    assert code == 0 and "synced 1 changed, 0 removed (1 embedded, 0 cached)" in out, out
    _team_env(monkeypatch, cluster.url(WRITER, db), tmp_path / "home2")
    assert _init(root2).embedded == 0
    (root2 / "shop" / "audit.py").write_text(new_file, encoding="utf-8")  # the teammate pulls it
    code, out, _ = run_cli("rag", "refresh-context", project=root2)
    assert code == 0 and "synced 1 changed, 0 removed (0 embedded, 1 from the team store, 0 cached)" in out, out
    assert _index(root2) == _index(root1)


def test_publish_from_ci_and_a_select_only_developer(git_repo, tmp_path, db, cluster, monkeypatch):
    root1 = git_repo(FILES, name="ci")
    _team_env(monkeypatch, cluster.url(WRITER, db), tmp_path / "home1", write=False)  # the build writes nothing
    assert run_cli("rag", "team", "init", project=root1)[0] == 0
    report1 = _init(root1)
    assert cluster.sql("SELECT count(*) FROM paqad_team_vectors", database=db) == [(0,)]
    code, out, _ = run_cli("rag", "publish", project=root1)
    assert code == 0 and out.startswith(f"published {report1.embedded} of {report1.embedded} vectors"), out
    assert run_cli("rag", "publish", project=root1)[1].startswith(f"published 0 of {report1.embedded}")
    cluster.sql(f"GRANT CONNECT ON DATABASE {db} TO {READER}")
    cluster.sql(f"GRANT SELECT ON paqad_team_meta, paqad_team_fingerprints, paqad_team_vectors TO {READER}", database=db)

    root2 = tmp_path / "dev"
    git(tmp_path, "clone", "-q", str(root1), str(root2))
    (root2 / "shop" / "refund.py").write_text(
        "def refund(order_id: str, amount: float) -> dict:\n    \"\"\"Refund part of an order to the customer.\"\"\"\n"
        "    return {'order': order_id, 'refunded': amount}\n", encoding="utf-8")
    _team_env(monkeypatch, cluster.url(READER, db), tmp_path / "home2", write=True)
    report2 = _init(root2)
    assert report2.team_chunks == report1.chunks_total and report2.embedded == report2.chunks_total - report1.chunks_total == 1
    assert "permission denied" in report2.team_note and "rag_team_store_write=false" in report2.team_note
    root3 = tmp_path / "dev2"  # read-only as configured: no write is even tried, nothing to say
    git(tmp_path, "clone", "-q", str(root1), str(root3))
    (root3 / "shop" / "refund.py").write_text((root2 / "shop" / "refund.py").read_text(encoding="utf-8"), encoding="utf-8")
    _team_env(monkeypatch, cluster.url(READER, db), tmp_path / "home3", write=False)
    report3 = _init(root3)
    assert (report3.team_note, report3.team_chunks, report3.embedded) == ("", report1.chunks_total, 1)
    assert cluster.sql("SELECT count(*) FROM paqad_team_vectors", database=db) == [(report1.embedded,)]


@pytest.mark.parametrize("fault", ["down", "password", "tls", "no-schema", "dimension"])
def test_a_broken_team_store_never_stops_a_build(fault, git_repo, tmp_path, db, cluster, monkeypatch):
    root = git_repo(FILES, name="proj")
    url = {"down": f"postgresql://{WRITER}@127.0.0.1:{pg_cluster._free_port()}/{db}",
           "password": cluster.url(WRITER, db), "tls": cluster.url(WRITER, db, sslmode="require"),
           "no-schema": cluster.url(WRITER, db), "dimension": cluster.url(WRITER, db)}[fault]
    _team_env(monkeypatch, url, tmp_path / "home")
    if fault == "password":
        monkeypatch.setenv("PAQAD_TEAM_STORE_PASSWORD", "wrong")
    if fault == "dimension":  # this model's fingerprint registered with another dimension
        from paqad.embed.fingerprint import team_fingerprint
        from paqad.embed.local import LocalEmbedder

        assert run_cli("rag", "team", "init", project=root)[0] == 0
        fingerprint = team_fingerprint(LocalEmbedder())
        cluster.sql(f"INSERT INTO paqad_team_fingerprints(fingerprint, dimension) VALUES ('{fingerprint}', 768)", database=db)
    report = _init(root)
    words = {"down": "unreachable", "password": "authentication failed", "tls": "TLS failed",
             "no-schema": "has no schema yet: run `paqad-ai rag team init`",
             "dimension": "is registered with dimension 768, this model has 384"}[fault]
    assert words in report.team_note and report.team_note.endswith("embedded locally"), report.team_note
    assert "\n" not in report.team_note and "wrong" not in report.team_note and PASSWORD not in report.team_note
    assert report.embedded == report.chunks_total and report.pending == 0 and report.team_chunks == 0
    assert report.team_note in report.summary()


def test_wrong_vectors_in_the_store_are_never_mixed_in(first_clone, tmp_path, db, cluster, monkeypatch):
    root1, report1 = first_clone
    # One row cut to the wrong dimension, one with a zeroed scale, and a foreign fingerprint
    # (same text hashes, other vectors) that must never be read.
    cluster.sql("UPDATE paqad_team_vectors SET vector = substring(vector from 1 for 200) "
                "WHERE text_hash = (SELECT text_hash FROM paqad_team_vectors ORDER BY text_hash LIMIT 1)", database=db)
    cluster.sql("UPDATE paqad_team_vectors SET vector = overlay(vector placing '\\x00000000'::bytea from 385) "
                "WHERE text_hash = (SELECT text_hash FROM paqad_team_vectors ORDER BY text_hash DESC LIMIT 1)", database=db)
    cluster.sql("INSERT INTO paqad_team_fingerprints(fingerprint, dimension) VALUES ('local|other-model|int8|384|p1w256', 384)", database=db)
    cluster.sql("INSERT INTO paqad_team_vectors(fingerprint_id, text_hash, vector) SELECT f.id, v.text_hash, "
                "overlay(v.vector placing '\\x7f7f7f7f'::bytea from 1) FROM paqad_team_vectors v, paqad_team_fingerprints f "
                "WHERE f.fingerprint LIKE 'local|other-model%'", database=db)
    root2 = tmp_path / "clone2"
    git(tmp_path, "clone", "-q", str(root1), str(root2))
    _team_env(monkeypatch, cluster.url(WRITER, db), tmp_path / "home2", write=False)
    report2 = _init(root2)
    assert (report2.embedded, report2.team_chunks) == (2, report1.chunks_total - 2)
    assert "2 stored vector(s) did not fit this model (384-d) and were ignored; embedded locally" in report2.team_note
    assert _index(root2) == _index(root1)


def test_a_statement_timeout_and_a_locked_table_fall_back_to_local(git_repo, tmp_path, db, cluster, monkeypatch):
    import psycopg

    root = git_repo(FILES, name="proj")
    _team_env(monkeypatch, cluster.url(WRITER, db, options="-c%20statement_timeout%3D300"), tmp_path / "home")
    assert run_cli("rag", "team", "init", project=root)[0] == 0
    with psycopg.connect(cluster.admin_url(db)) as holder:  # a migration holding the table
        holder.execute("LOCK TABLE paqad_team_vectors IN ACCESS EXCLUSIVE MODE")
        report = _init(root)
    assert "statement timed out" in report.team_note and report.embedded == report.chunks_total, report.team_note


def test_concurrent_writers_of_the_same_keys_keep_one_row_each(db, cluster):
    import hashlib

    import numpy as np

    from paqad.store import team, vectors

    url = cluster.url(WRITER, db)
    with team.connect(url, PASSWORD, "t") as store:
        store.migrate()
        fp, _ = store.fingerprint_id("local|m|int8|8|p1", 8)
    keys = [hashlib.sha256(str(i).encode()).digest() for i in range(400)]
    rng = np.random.default_rng(7)
    records = vectors.quantize(rng.normal(size=(400, 8)).astype(np.float32))
    rows = [(k, records[i].tobytes()) for i, k in enumerate(keys)]
    written, errors = [], []

    def writer(offset: int) -> None:
        try:
            with team.connect(url, PASSWORD, "t", pool_size=1) as store:
                for start in range(offset, 400, 50):
                    written.append(store.insert(fp, rows[start:start + 100]))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(i * 25 % 100,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and sum(written) == 400
    with team.connect(url, PASSWORD, "t") as store:
        assert store.lookup(fp, keys) == dict(rows) and store.count(fp) == 400


def test_team_init_is_idempotent_and_versioned(git_repo, tmp_path, db, cluster, monkeypatch):
    root = git_repo(FILES, name="proj")
    _team_env(monkeypatch, cluster.url(WRITER, db), tmp_path / "home")
    code, out, _ = run_cli("rag", "team", "init", project=root)
    assert code == 0 and out.strip().endswith("schema v1 created")
    code, out, _ = run_cli("rag", "team", "init", project=root)
    assert code == 0 and out.strip().endswith("schema v1 already in place")
    cluster.sql("UPDATE paqad_team_meta SET value = '9' WHERE key = 'schema_version'", database=db)
    code, _, err = run_cli("rag", "team", "init", project=root)
    assert code == 2 and err.count("\n") == 1 and "schema v9 is newer than this paqad-ai (v1); upgrade paqad-ai" in err
    code, _, err = run_cli("rag", "publish", project=root)
    assert code == 2 and err.count("\n") == 1


def test_a_password_never_sits_in_a_settings_file(git_repo, tmp_path, monkeypatch):
    root = git_repo(FILES, name="proj")
    (root / ".paqad" / "configs").mkdir(parents=True)
    (root / ".paqad" / "configs" / ".config.team").write_text(
        "rag_team_store=postgresql://dev:hunter2@db.example:5432/paqad\n", encoding="utf-8")
    code, _, err = run_cli("rag", "status", project=root)
    assert code == 2 and err.count("\n") == 1 and "hunter2" not in err
    assert ".paqad/configs/.config.team: rag_team_store holds a password" in err and "PAQAD_TEAM_STORE_PASSWORD" in err
    (root / ".paqad" / "configs" / ".config.team").write_text("rag_team_store=mysql://db/paqad\n", encoding="utf-8")
    code, _, err = run_cli("rag", "status", project=root)
    assert code == 2 and "rag_team_store='mysql://db/paqad' is not valid" in err
    (root / ".paqad" / "configs" / ".config.team").unlink()
    # In the environment a password is accepted, and status never shows it.
    monkeypatch.setenv("PAQAD_RAG_TEAM_STORE", f"postgresql://dev:hunter2@127.0.0.1:{pg_cluster._free_port()}/paqad")
    code, out, _ = run_cli("rag", "status", "--json", project=root)
    assert code == 0 and "hunter2" not in out
    import json

    data = json.loads(out)
    assert data["settings"]["rag_team_store"]["value"].startswith("postgresql://dev@127.0.0.1:")
    assert data["team_store"]["reachable"] is False and "unreachable" in data["team_store"]["detail"]


def test_the_prompt_hook_process_never_loads_the_driver():
    code = ("import sys; import paqad.cli.hook_prompt, paqad.hosts.prompt_hook, paqad.hosts.warm, paqad.deliver.answer; "
            "print(sorted(m for m in sys.modules if m.startswith(('psycopg', 'paqad.store.team'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
