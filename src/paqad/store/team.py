"""The team's shared embedding store on PostgreSQL: schema, migrations, lookups, writes (DESIGN §14).

Content-addressed and nothing else: no source text, path or file name ever reaches the server.

Tables (schema v1, created and migrated by ``paqad-ai rag team init``; names prefixed so they
can live in a database that holds other things):

- ``paqad_team_meta(key text PRIMARY KEY, value text)``: ``schema_version``;
- ``paqad_team_fingerprints(id, fingerprint text UNIQUE, dimension)``: one row per embedding
  fingerprint (:mod:`paqad.embed.fingerprint`);
- ``paqad_team_vectors(fingerprint_id, text_hash bytea, vector bytea, created_at)``, primary key
  ``(fingerprint_id, text_hash)``: ``text_hash`` the 32-byte sha256 of the exact embedded text,
  ``vector`` one record of :func:`paqad.store.vectors.record_dtype` (``dimension`` int8 values
  and a little-endian float32 scale: 388 bytes at 384-d), as the local index stores it.

One table with a fingerprint column rather than one table per fingerprint: at 200k rows in 4
fingerprints, 133k vs 149k rows/s for 512-key lookups and the same size (bench/README.md, "Team
store"), and one table keeps grants, migrations and retention simple (no DDL when a model is new). Writes are ``INSERT ... ON CONFLICT DO NOTHING``: concurrent writers of one key keep the
first vector, never two rows. Every failure of the driver is mapped once, in
:func:`_mapped`, to a :class:`~paqad.errors.TeamStoreError` with a :class:`TeamFault`.
"""

from __future__ import annotations

import enum
import logging
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

from paqad.errors import TeamStoreError

TEAM_SCHEMA_VERSION = 1
CONNECT_TIMEOUT_S = 3  # libpq connect_timeout when the URL sets none: a build never waits long for a dead server
STATEMENT_TIMEOUT_MS = 10_000  # server-side statement_timeout when the URL sets no options
POOL_SIZE = 2
_SCHEMA_LOCK = 0x70617161  # pg_advisory_xact_lock key ("paqa"): one `team init` migrates at a time

_MIGRATIONS: tuple[tuple[int, str], ...] = (
    (1, """
CREATE TABLE IF NOT EXISTS paqad_team_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS paqad_team_fingerprints (
    id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    fingerprint text NOT NULL UNIQUE,
    dimension integer NOT NULL CHECK (dimension > 0),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS paqad_team_vectors (
    fingerprint_id integer NOT NULL REFERENCES paqad_team_fingerprints(id),
    text_hash bytea NOT NULL CHECK (length(text_hash) = 32),
    vector bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (fingerprint_id, text_hash)
);
"""),
)


class TeamFault(enum.Enum):
    """Why the team store could not serve a request; ``words`` is what people read."""

    DRIVER = "the PostgreSQL driver is not installed (pip install 'paqad-ai[team]')"
    UNREACHABLE = "unreachable"
    AUTH = "authentication failed"
    TLS = "TLS failed"
    TIMEOUT = "statement timed out"
    PERMISSION = "permission denied"
    SCHEMA = "schema missing or too new"
    DATA = "stored data does not fit this model"
    SERVER = "server error"

    @property
    def words(self) -> str:
        return self.value


# SQLSTATE classes and codes (PostgreSQL docs, Appendix A) -> fault.
_SQLSTATE_FAULTS = {"28P01": TeamFault.AUTH, "28000": TeamFault.AUTH, "57014": TeamFault.TIMEOUT,
                    "42501": TeamFault.PERMISSION, "42P01": TeamFault.SCHEMA, "55P03": TeamFault.TIMEOUT}


def _fault_of(exc: BaseException) -> TeamFault:
    state = getattr(exc, "sqlstate", None) or ""
    if state in _SQLSTATE_FAULTS:
        return _SQLSTATE_FAULTS[state]
    text = str(exc).lower()
    if "password" in text or "authentication" in text:
        return TeamFault.AUTH
    if "ssl" in text or "certificate" in text or "tls" in text:
        return TeamFault.TLS
    if state.startswith("08") or not state:  # connection exceptions, and client-side ones (refused, timeout)
        return TeamFault.UNREACHABLE
    return TeamFault.SERVER


def _detail(exc: BaseException, secret: str | None) -> str:
    """The first line of the driver's message, without the password, at most 160 characters."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    if secret:
        text = text.replace(secret, "[redacted]")
    return text[:160]


@contextmanager
def _mapped(secret: str | None, what: str) -> Iterator[None]:
    """Translate every psycopg / pool error raised inside into a TeamStoreError (one place)."""
    import psycopg
    from psycopg_pool import PoolTimeout

    try:
        yield
    except PoolTimeout as exc:
        raise TeamStoreError(f"{what}: {TeamFault.UNREACHABLE.words} ({_detail(exc, secret)})", TeamFault.UNREACHABLE) from None
    except psycopg.Error as exc:
        fault = _fault_of(exc)
        raise TeamStoreError(f"{what}: {fault.words} ({_detail(exc, secret)})", fault) from None


def connection_options(url: str, password: str | None) -> dict[str, Any]:
    """Keyword options for libpq next to ``url``: the password when we hold it, and our timeouts
    unless the URL sets its own (``connect_timeout``, ``options=-c statement_timeout=...``).
    TLS options in the URL (``sslmode``, ``sslrootcert``, ...) pass through untouched."""
    from psycopg.conninfo import conninfo_to_dict

    given = conninfo_to_dict(url)
    options: dict[str, Any] = {"autocommit": True, "application_name": "paqad-ai"}
    if password and "password" not in given:
        options["password"] = password
    if "connect_timeout" not in given:
        options["connect_timeout"] = CONNECT_TIMEOUT_S
    if "options" not in given:
        options["options"] = f"-c statement_timeout={STATEMENT_TIMEOUT_MS}"
    return options


def driver_available() -> bool:
    """Whether psycopg 3 and psycopg_pool are installed (the ``team`` extra)."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        return False
    return True


class TeamStore:
    """A connection pool to one team store. Use :func:`connect`; close with :meth:`close` or ``with``.

    Every method raises :class:`~paqad.errors.TeamStoreError` (with a :class:`TeamFault`) and
    nothing else for a failure of the server, the network or the data.
    """

    def __init__(self, url: str, password: str | None, label: str, pool: Any) -> None:
        self.url, self.label, self._password, self._pool = url, label, password, pool

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> "TeamStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _conn(self, what: str) -> Iterator[Any]:
        with _mapped(self._password, f"team store {self.label}: {what}"), self._pool.connection() as conn:
            yield conn

    # --- schema ---------------------------------------------------------------------------
    def schema_version(self) -> int:
        """The server's schema version; 0 when ``rag team init`` never ran there."""
        with self._conn("reading the schema version") as conn:
            exists = conn.execute("SELECT to_regclass('paqad_team_meta') IS NOT NULL").fetchone()[0]
            if not exists:
                return 0
            row = conn.execute("SELECT value FROM paqad_team_meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    def migrate(self) -> tuple[int, int]:
        """Create or migrate the schema to :data:`TEAM_SCHEMA_VERSION`, in one transaction under
        an advisory lock (concurrent ``team init`` runs wait for each other); idempotent.
        Returns (version before, version after). A newer schema raises TeamStoreError (SCHEMA)."""
        with self._conn("migrating the schema") as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            exists = conn.execute("SELECT to_regclass('paqad_team_meta') IS NOT NULL").fetchone()[0]
            row = conn.execute("SELECT value FROM paqad_team_meta WHERE key = 'schema_version'").fetchone() if exists else None
            before = int(row[0]) if row else 0
            if before > TEAM_SCHEMA_VERSION:
                raise TeamStoreError(f"team store {self.label}: schema v{before} is newer than this paqad-ai "
                                     f"(v{TEAM_SCHEMA_VERSION}); upgrade paqad-ai", TeamFault.SCHEMA)
            for version, script in _MIGRATIONS:
                if version > before:
                    conn.execute(script)
            conn.execute("INSERT INTO paqad_team_meta(key, value) VALUES ('schema_version', %s) "
                         "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(TEAM_SCHEMA_VERSION),))
        return before, TEAM_SCHEMA_VERSION

    # --- fingerprints ------------------------------------------------------------------------
    def fingerprint_id(self, fingerprint: str, dimension: int | None = None) -> tuple[int, int] | None:
        """``(id, dimension)`` of ``fingerprint``; registered with ``dimension`` when given and
        absent (needs INSERT), else None when absent."""
        with self._conn("reading fingerprints") as conn:
            if dimension is not None:
                conn.execute("INSERT INTO paqad_team_fingerprints(fingerprint, dimension) VALUES (%s, %s) "
                             "ON CONFLICT (fingerprint) DO NOTHING", (fingerprint, dimension))
            row = conn.execute("SELECT id, dimension FROM paqad_team_fingerprints WHERE fingerprint = %s",
                               (fingerprint,)).fetchone()
        return (int(row[0]), int(row[1])) if row else None

    # --- vectors -------------------------------------------------------------------------------
    def lookup(self, fingerprint_id: int, text_hashes: Sequence[bytes]) -> dict[bytes, bytes]:
        """The stored records of the keys present (one query, binary results): 32-byte sha256 -> record bytes."""
        if not text_hashes:
            return {}
        with self._conn("looking up vectors") as conn:
            rows = conn.execute("SELECT text_hash, vector FROM paqad_team_vectors "
                                "WHERE fingerprint_id = %s AND text_hash = ANY(%s)",
                                (fingerprint_id, list(text_hashes)), binary=True).fetchall()
        return {bytes(h): bytes(v) for h, v in rows}

    def insert(self, fingerprint_id: int, items: Sequence[tuple[bytes, bytes]]) -> int:
        """Store (32-byte sha256, record bytes) pairs whose key is absent, in one statement; the
        first writer of a key wins. Returns the rows inserted.

        Rows go in key order: concurrent writers of overlapping keys then take their row locks in
        one order and wait for each other instead of deadlocking (bench/team_store.py concurrency).
        """
        if not items:
            return 0
        items = sorted(dict(items).items())
        with self._conn("writing vectors") as conn:
            cursor = conn.execute(
                "INSERT INTO paqad_team_vectors(fingerprint_id, text_hash, vector) "
                "SELECT %s, h, v FROM unnest(%s::bytea[], %s::bytea[]) AS t(h, v) ORDER BY h ON CONFLICT DO NOTHING",
                (fingerprint_id, [h for h, _ in items], [v for _, v in items]))
            return max(0, cursor.rowcount)

    def count(self, fingerprint_id: int | None = None) -> int:
        """Vectors stored (for one fingerprint, or all)."""
        with self._conn("counting vectors") as conn:
            if fingerprint_id is None:
                return int(conn.execute("SELECT count(*) FROM paqad_team_vectors").fetchone()[0])
            return int(conn.execute("SELECT count(*) FROM paqad_team_vectors WHERE fingerprint_id = %s",
                                    (fingerprint_id,)).fetchone()[0])


def connect(url: str, password: str | None, label: str, *, pool_size: int = POOL_SIZE) -> TeamStore:
    """Open a pool of up to ``pool_size`` connections to ``url`` and wait for the first one.

    ``label`` is the URL without its password, for messages. Raises TeamStoreError: DRIVER
    without psycopg, else the fault of a first direct connection (refused, authentication, TLS,
    timeout): the pool would retry a refused or rejected connection until its timeout and then
    report only that, so one plain connection is tried first (a few ms on a healthy server).
    """
    if not driver_available():
        raise TeamStoreError(f"team store {label}: {TeamFault.DRIVER.words}", TeamFault.DRIVER)
    import psycopg
    from psycopg_pool import ConnectionPool

    # The pool reports failed attempts on its logger; without a handler Python prints them on
    # stderr. The one line of the fault is ours to say.
    logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())
    logging.getLogger("psycopg.pool").propagate = False
    options = connection_options(url, password)
    timeout = float(options.get("connect_timeout") or CONNECT_TIMEOUT_S)
    with _mapped(password, f"team store {label}"):
        psycopg.connect(url, **options).close()
    pool = ConnectionPool(url, kwargs=options, min_size=1, max_size=pool_size, open=False, name="paqad-team",
                          timeout=timeout, reconnect_timeout=timeout)
    with _mapped(password, f"team store {label}"):
        try:
            pool.open(wait=True, timeout=timeout + 1)
        except BaseException:
            pool.close(timeout=0)
            raise
    return TeamStore(url, password, label, pool)
