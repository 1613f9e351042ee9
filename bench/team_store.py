"""Team store (issue 21) figures against a real, throwaway PostgreSQL server on 127.0.0.1.

Subcommands (each starts its own cluster with tests/pg_cluster.py and removes it at the end):

    # teammate init with a warm team store vs local embedding, same machine, same minutes
    nice -n 10 python bench/team_store.py teammate /path/to/project-with-20k-chunks --work /tmp/tsb
    # a >= 200k-chunk synthetic project: the lookups' share of a teammate init, rows/s per batch size
    nice -n 10 python bench/team_store.py synthetic --chunks 200000 --work /tmp/tsb
    # 8 concurrent publishers and readers of overlapping keys: no lost or duplicated key, no wrong vector
    nice -n 10 python bench/team_store.py concurrency --workers 8 --keys 20000
    # one table with a fingerprint column vs one table per fingerprint: lookup rows/s and size
    nice -n 10 python bench/team_store.py design --rows 200000

Builds run in child processes (``paqad-ai``'s library ``init_project``), each with its own
PAQAD_HOME (the model is copied into it from PAQAD_MODEL_MIRROR before the clock starts).
Prints one JSON object per figure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "src"))

import pg_cluster  # noqa: E402  (tests/pg_cluster.py)

PASSWORD = "bench-team"
WRITER = "team_writer"

CHILD_INIT = r"""
import json, sys, time
from pathlib import Path
from paqad.build import init_project
from paqad.project import ProjectPaths
started = time.perf_counter()
report = init_project(ProjectPaths(Path(sys.argv[1])), provider="local", rebuild=True).report
print(json.dumps({**report.to_dict(), "wall_seconds": time.perf_counter() - started}))
"""


def _env(home: Path, url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAQAD_") or k == "PAQAD_MODEL_MIRROR"}
    env.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
    env.update({"PAQAD_HOME": str(home), "HF_HUB_OFFLINE": "1", "PAQAD_RAG_WARM_PROCESS": "false"})
    if url:
        env.update({"PAQAD_RAG_TEAM_STORE": url, "PAQAD_TEAM_STORE_PASSWORD": PASSWORD})
    return env


def _pull(home: Path) -> None:
    subprocess.run([sys.executable, "-m", "paqad.cli.main", "rag", "model", "pull"], env=_env(home, None),
                   check=True, capture_output=True)


def _init(root: Path, home: Path, url: str | None) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD_INIT, str(root)], env=_env(home, url), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"init of {root} failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _cluster():
    server = pg_cluster.create_cluster(pg_cluster.pg_bin())
    pg_cluster.create_team_roles(server, WRITER, "team_reader", PASSWORD)
    return server


def _emit(figure: str, **values) -> None:
    print(json.dumps({"figure": figure, **values}), flush=True)


def teammate(args: argparse.Namespace) -> None:
    """Local build of a copy (team store off), publish it, then a teammate's init of another copy."""
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    local, mate = work / "local", work / "teammate"
    shutil.copytree(args.project, local, ignore=shutil.ignore_patterns(".paqad", ".git"))
    shutil.copytree(args.project, mate, ignore=shutil.ignore_patterns(".paqad", ".git"))
    for home in ("home-local", "home-mate"):
        _pull(work / home)
    server = _cluster()
    try:
        url = server.url(WRITER)
        subprocess.run([sys.executable, "-m", "paqad.cli.main", "rag", "team", "init", "--project-root", str(local)],
                       env=_env(work / "home-local", url), check=True, capture_output=True)
        started = time.perf_counter()
        base = _init(local, work / "home-local", None)  # the local embedding a teammate pays today
        _emit("local init", seconds=round(base["wall_seconds"], 1), chunks=base["chunks_total"], embedded=base["embedded"])
        proc = subprocess.run([sys.executable, "-m", "paqad.cli.main", "rag", "publish", "--json", "--project-root",
                               str(local)], env=_env(work / "home-local", url), check=True, capture_output=True, text=True)
        published = json.loads(proc.stdout)
        _emit("publish", **published)
        mate_report = _init(mate, work / "home-mate", url)
        _emit("teammate init", seconds=round(mate_report["wall_seconds"], 1), chunks=mate_report["chunks_total"],
              embedded=mate_report["embedded"], from_team=mate_report["team_chunks"],
              team_seconds=round(mate_report["team_seconds"], 2), note=mate_report["team_note"],
              speedup=round(base["wall_seconds"] / mate_report["wall_seconds"], 1),
              same_minutes=round((time.perf_counter() - started) / 60, 1))
        _emit("indexes equal", equal=_index_rows(local) == _index_rows(mate))
    finally:
        server.remove()


def _index_rows(root: Path) -> list[tuple]:
    import sqlite3

    from paqad.store import vectors

    con = sqlite3.connect(root / ".paqad" / "vectors" / "index.sqlite")
    (fingerprint,) = con.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
    model = vectors.model_id(con, fingerprint)
    records = vectors.load_records(con, model, vectors.model_dimension(con, model))
    rows = [(p, s, e, t, None if v is None else records[v].tobytes())
            for p, s, e, t, v in con.execute("SELECT path, start_line, end_line, text, vec FROM chunks ORDER BY path, start_line")]
    con.close()
    return rows


FUNCTION = '''def {name}(records, limit={n}):
    """Return the {word} entries of records {n}, at most limit of them, sorted by key {k}."""
    picked = []
    for index, record in enumerate(records):
        if record.get("{word}") == {n} and index % {k} != 7:
            picked.append((record["key_{n}"], record))
        if len(picked) >= limit:
            break
    picked.sort(key=lambda pair: (pair[0], {k}))
    total_{n} = sum(len(str(item)) for _, item in picked)
    print("{word} {n}", total_{n})
    return [item for _, item in picked]


'''

WORDS = ("invoice", "shipment", "refund", "ledger", "account", "session", "payload", "segment", "archive", "cursor")


def _synthetic_project(root: Path, chunks: int, per_file: int = 20) -> None:
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'synthetic'\nversion = '0'\n", encoding="utf-8")
    n = 0
    for f in range((chunks + per_file - 1) // per_file):
        body = "".join(FUNCTION.format(name=f"{WORDS[(n + i) % 10]}_{n + i}", word=WORDS[(n + i) % 10], n=n + i, k=(n + i) % 13 + 2)
                       for i in range(per_file))
        n += per_file
        folder = root / "pkg" / f"m{f // 500:03d}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod_{f:05d}.py").write_text(body, encoding="utf-8")


def _plant(server, root: Path, home: Path, batch: int) -> dict:
    """Register the model's fingerprint and store a valid random vector for every chunk text of
    ``root`` (what a CI publish of that project would leave); returns insert figures."""
    import numpy as np

    os.environ.update(_env(home, None))
    from paqad.embed.fingerprint import team_fingerprint
    from paqad.embed.local import LocalEmbedder
    from paqad.index.chunking import dense_text
    from paqad.index.sync import chunk_project
    from paqad.store import team, vectors

    embedder = LocalEmbedder("Xenova/all-MiniLM-L6-v2", "int8")
    keys = list({hashlib.sha256(dense_text(c).encode("utf-8")).digest() for c in chunk_project(root, 1 << 20)})
    rng = np.random.default_rng(21)
    with team.connect(server.url(WRITER), PASSWORD, "bench") as store:
        store.migrate()
        fp, _ = store.fingerprint_id(team_fingerprint(embedder), embedder.dimension)
        started = time.perf_counter()
        for start in range(0, len(keys), batch):
            part = keys[start:start + batch]
            records = vectors.quantize(rng.normal(size=(len(part), embedder.dimension)).astype(np.float32))
            store.insert(fp, [(k, records[i].tobytes()) for i, k in enumerate(part)])
        seconds = time.perf_counter() - started
    return {"rows": len(keys), "insert_batch": batch, "insert_rows_per_s": round(len(keys) / seconds), "fingerprint_id": fp, "keys": keys}


def synthetic(args: argparse.Namespace) -> None:
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    root = work / "synthetic"
    _synthetic_project(root, args.chunks)
    _pull(work / "home")
    server = _cluster()
    try:
        planted = _plant(server, root, work / "home", batch=2000)
        keys, fp = planted.pop("keys"), planted.pop("fingerprint_id")
        _emit("planted", **planted)
        _lookup_rates(server, fp, keys)
        report = _init(root, work / "home", server.url(WRITER))
        _emit("teammate init (synthetic)", seconds=round(report["wall_seconds"], 1), chunks=report["chunks_total"],
              embedded=report["embedded"], from_team=report["team_chunks"], team_seconds=round(report["team_seconds"], 1),
              lookup_share=round(report["team_seconds"] / report["wall_seconds"], 3), note=report["team_note"])
    finally:
        server.remove()


def _lookup_rates(server, fp: int, keys: list[bytes], sizes=(64, 256, 512, 2000, 5000), total: int = 40_000) -> None:
    from paqad.store import team

    rng = random.Random(5)
    with team.connect(server.url(WRITER), PASSWORD, "bench", pool_size=1) as store:
        for size in sizes:
            sample = rng.sample(keys, min(total, len(keys)))
            started = time.perf_counter()
            got = 0
            for start in range(0, len(sample), size):
                got += len(store.lookup(fp, sample[start:start + size]))
            seconds = time.perf_counter() - started
            _emit("lookup", batch=size, rows=got, rows_per_s=round(got / seconds), ms_per_batch=round(seconds / -(-len(sample) // size) * 1000, 2))


def _expected(key: bytes, dimension: int = 384) -> bytes:
    import numpy as np

    from paqad.store import vectors

    rng = np.random.default_rng(int.from_bytes(key[:8], "little"))
    return vectors.quantize(rng.normal(size=(1, dimension)).astype(np.float32))[0].tobytes()


def _publisher(url: str, fp: int, keys: list[bytes], seed: int, out) -> None:
    from paqad.store import team

    order = list(keys)
    random.Random(seed).shuffle(order)
    written = 0
    with team.connect(url, PASSWORD, "bench", pool_size=1) as store:
        for start in range(0, len(order), 500):
            part = order[start:start + 500]
            written += store.insert(fp, [(k, _expected(k)) for k in part])
    out.put(("publisher", written, 0))


def _reader(url: str, fp: int, keys: list[bytes], seed: int, seconds: float, out) -> None:
    from paqad.store import team

    rng = random.Random(seed)
    seen = wrong = 0
    deadline = time.perf_counter() + seconds
    with team.connect(url, PASSWORD, "bench", pool_size=1) as store:
        while time.perf_counter() < deadline:
            for key, record in store.lookup(fp, rng.sample(keys, 512)).items():
                seen += 1
                wrong += record != _expected(key)
    out.put(("reader", seen, wrong))


def concurrency(args: argparse.Namespace) -> None:
    from paqad.store import team

    server = _cluster()
    try:
        url = server.url(WRITER)
        with team.connect(url, PASSWORD, "bench") as store:
            store.migrate()
            fp, _ = store.fingerprint_id("local|bench|int8|384|p1w256", 384)
        keys = [hashlib.sha256(f"text {i}".encode()).digest() for i in range(args.keys)]
        out = multiprocessing.Queue()
        half = args.workers // 2
        procs = [multiprocessing.Process(target=_publisher, args=(url, fp, keys, i, out)) for i in range(half)]
        procs += [multiprocessing.Process(target=_reader, args=(url, fp, keys, 100 + i, args.seconds, out)) for i in range(args.workers - half)]
        started = time.perf_counter()
        for p in procs:
            p.start()
        results = [out.get() for _ in procs]
        for p in procs:
            p.join()
        seconds = time.perf_counter() - started
        rows = server.sql("SELECT count(*), count(DISTINCT text_hash) FROM paqad_team_vectors", database="paqad")[0]
        with team.connect(url, PASSWORD, "bench") as store:
            stored = {}
            for start in range(0, len(keys), 5000):
                stored.update(store.lookup(fp, keys[start:start + 5000]))
        wrong_final = sum(stored.get(k) != _expected(k) for k in keys)
        _emit("concurrency", workers=args.workers, publishers=half, keys=args.keys, seconds=round(seconds, 1),
              inserted=sum(r[1] for r in results if r[0] == "publisher"), rows=rows[0], distinct=rows[1],
              missing=args.keys - len(stored), wrong_final=wrong_final,
              reads=sum(r[1] for r in results if r[0] == "reader"), wrong_reads=sum(r[2] for r in results if r[0] == "reader"))
    finally:
        server.remove()


def design(args: argparse.Namespace) -> None:
    """Same rows two ways: 4 fingerprints in one table (the shipped schema) vs 4 tables."""
    from paqad.store import team

    server = _cluster()
    try:
        url = server.url(WRITER)
        per = args.rows // 4
        with team.connect(url, PASSWORD, "bench") as store:
            store.migrate()
            fps = [store.fingerprint_id(f"local|bench-{i}|int8|384|p1w256", 384)[0] for i in range(4)]
        keys = [hashlib.sha256(f"text {i}".encode()).digest() for i in range(per)]
        record = _expected(b"\0" * 32)
        import psycopg

        with psycopg.connect(url, password=PASSWORD, autocommit=True) as conn:
            for i, fp in enumerate(fps):
                conn.execute(f"CREATE TABLE per_fp_{i} (text_hash bytea PRIMARY KEY, vector bytea NOT NULL, "
                             "created_at timestamptz NOT NULL DEFAULT now())")
                for start in range(0, per, 5000):
                    part = keys[start:start + 5000]
                    conn.execute("INSERT INTO paqad_team_vectors(fingerprint_id, text_hash, vector) "
                                 "SELECT %s, h, %s FROM unnest(%s::bytea[]) AS t(h)", (fp, record, part))
                    conn.execute(f"INSERT INTO per_fp_{i}(text_hash, vector) SELECT h, %s FROM unnest(%s::bytea[]) AS t(h)",
                                 (record, part))
            conn.execute("VACUUM ANALYZE")
            shared = conn.execute("SELECT pg_total_relation_size('paqad_team_vectors')").fetchone()[0]
            split = sum(conn.execute(f"SELECT pg_total_relation_size('per_fp_{i}')").fetchone()[0] for i in range(4))
            rng = random.Random(3)
            for label, query, arg in (
                ("fingerprint column", "SELECT text_hash, vector FROM paqad_team_vectors WHERE fingerprint_id = %s AND text_hash = ANY(%s)", fps[2]),
                ("table per fingerprint", "SELECT text_hash, vector FROM per_fp_2 WHERE %s::int IS NOT NULL AND text_hash = ANY(%s)", 2),
            ):
                for _ in range(2):  # the second pass is the figure (warm cache for both)
                    started, got = time.perf_counter(), 0
                    for _ in range(60):
                        got += len(conn.execute(query, (arg, rng.sample(keys, 512)), binary=True).fetchall())
                    seconds = time.perf_counter() - started
                _emit("design", layout=label, rows=args.rows, batch=512, rows_per_s=round(got / seconds),
                      mb=round((shared if label.startswith("fingerprint") else split) / 1e6, 1))
    finally:
        server.remove()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("teammate")
    p.add_argument("project", type=Path)
    p.add_argument("--work", default="/tmp/paqad-team-bench/teammate")
    p = sub.add_parser("synthetic")
    p.add_argument("--chunks", type=int, default=200_000)
    p.add_argument("--work", default="/tmp/paqad-team-bench/synthetic")
    p = sub.add_parser("concurrency")
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--keys", type=int, default=20_000)
    p.add_argument("--seconds", type=float, default=20.0)
    p = sub.add_parser("design")
    p.add_argument("--rows", type=int, default=200_000)
    args = parser.parse_args()
    {"teammate": teammate, "synthetic": synthetic, "concurrency": concurrency, "design": design}[args.command](args)


if __name__ == "__main__":
    main()
