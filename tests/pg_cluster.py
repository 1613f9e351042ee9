"""A throwaway PostgreSQL cluster for the team store tests and bench (real server, 127.0.0.1 only).

``initdb`` in a fresh temp folder, ``pg_ctl start`` on a free port of 127.0.0.1 with its unix
socket in the same folder, a superuser reachable over that socket without password, and
password (scram-sha-256) authentication over TCP. PostgreSQL refuses to run as root, so as root
(CI) the server runs as the ``postgres`` user (else ``nobody``), owning the folder.

Binaries: ``PAQAD_PG_BIN``, else the newest ``/usr/lib/postgresql/*/bin``, else ``initdb`` on PATH.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SUPERUSER = "paqad_admin"


def pg_bin() -> Path | None:
    """The folder holding initdb and pg_ctl, or None."""
    if os.environ.get("PAQAD_PG_BIN"):
        folder = Path(os.environ["PAQAD_PG_BIN"])
        return folder if (folder / "initdb").exists() else None
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run_as() -> tuple[int, int] | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        return entry.pw_uid, entry.pw_gid
    raise RuntimeError("running as root and neither a postgres nor a nobody user exists to run PostgreSQL")


@dataclass
class Cluster:
    """A running cluster: ``port``, ``folder`` (data, socket, log), ``bindir``."""

    folder: Path
    port: int
    bindir: Path
    user: tuple[int, int] | None

    @property
    def socket_dir(self) -> Path:
        return self.folder / "socket"

    def admin_url(self, database: str = "postgres") -> str:
        """Superuser over the unix socket (trust auth)."""
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}&port={self.port}"

    def url(self, user: str, database: str = "paqad", **params: str) -> str:
        """A TCP URL on 127.0.0.1 without a password (the tests pass it as PAQAD_TEAM_STORE_PASSWORD)."""
        query = "&".join(f"{k}={v}" for k, v in params.items())
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}" + (f"?{query}" if query else "")

    def sql(self, statement: str, database: str = "postgres") -> list[tuple]:
        """Run ``statement`` as the superuser (autocommit); the rows it returns."""
        import psycopg

        with psycopg.connect(self.admin_url(database), autocommit=True) as conn:
            cursor = conn.execute(statement)
            return cursor.fetchall() if cursor.description else []

    def _pg(self, *args: str) -> subprocess.CompletedProcess:
        kwargs = {"user": self.user[0], "group": self.user[1], "extra_groups": []} if self.user else {}
        return subprocess.run([str(self.bindir / args[0]), *args[1:]], capture_output=True, text=True, timeout=120,
                              check=False, cwd=self.folder, **kwargs)

    def start(self) -> None:
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.socket_dir} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c shared_buffers=32MB -c max_connections=60")
        proc = self._pg("pg_ctl", "start", "-w", "-t", "60", "-D", str(self.folder / "data"), "-l",
                        str(self.folder / "server.log"), "-o", options)
        if proc.returncode != 0:
            log = (self.folder / "server.log").read_text(errors="replace")[-2000:] if (self.folder / "server.log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {proc.stderr.strip()} {log}")

    def stop(self) -> None:
        self._pg("pg_ctl", "stop", "-m", "fast", "-w", "-D", str(self.folder / "data"))

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def create_cluster(bindir: Path) -> Cluster:
    """initdb + start; the caller stops it with :meth:`Cluster.remove`."""
    user = _run_as()
    folder = Path(tempfile.mkdtemp(prefix="paqad-pg-"))
    (folder / "socket").mkdir()
    if user:
        for path in (folder, folder / "socket"):
            os.chown(path, *user)
    cluster = Cluster(folder, _free_port(), bindir, user)
    proc = cluster._pg("initdb", "-D", str(folder / "data"), "-U", SUPERUSER, "--auth-local=trust",
                       "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C")
    if proc.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"initdb failed: {proc.stderr.strip()[-1000:]}")
    cluster.start()
    return cluster


def create_team_roles(cluster: Cluster, writer: str, reader: str, password: str) -> None:
    """A database ``paqad`` owned by ``writer`` (creates the schema, publishes) and a login role
    ``reader`` that the README's SELECT-only grant is given to after ``team init``."""
    cluster.sql(f"CREATE ROLE {writer} LOGIN PASSWORD '{password}'")
    cluster.sql(f"CREATE ROLE {reader} LOGIN PASSWORD '{password}'")
    cluster.sql(f"CREATE DATABASE paqad OWNER {writer}")


def grant_select_only(cluster: Cluster, reader: str) -> None:
    """The README's grant for a developer role (run after ``rag team init``)."""
    cluster.sql(f"GRANT CONNECT ON DATABASE paqad TO {reader}")
    cluster.sql(f"GRANT USAGE ON SCHEMA public TO {reader}", database="paqad")
    cluster.sql(f"GRANT SELECT ON paqad_team_meta, paqad_team_fingerprints, paqad_team_vectors TO {reader}", database="paqad")
