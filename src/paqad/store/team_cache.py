"""Read-through to the team store for a build, ``rag publish`` and what ``rag status`` shows (DESIGN §14).

A build asks :class:`TeamReadThrough` for the vectors of the texts its local cache lacks (one
query per page of pending chunks), embeds only the rest, and hands what it embedded back
(:meth:`TeamReadThrough.publish`, when ``rag_team_store_write`` allows). The connection is
opened at the first lookup, so a sync with nothing to embed never touches the network.

Any fault (server down, authentication, TLS, timeout, a missing schema, a fingerprint
registered with another dimension) switches the team store off for the rest of the build and
leaves one line in :attr:`TeamReadThrough.note`; the build goes on locally. A row whose record
is not a valid vector of this model's dimension (wrong length, scale, or norm) is never used:
its text is embedded locally and the note counts it. A role without INSERT stops the writes
only. Vectors from the team go into the index exactly as stored (int8 + scale): dequantised
here, re-quantised to the same bytes by :func:`paqad.store.vectors.quantize`.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Mapping, Sequence

from paqad.config import Settings, redacted_url
from paqad.errors import TeamStoreError
from paqad.project import ProjectPaths
from paqad.store import team, vectors

if TYPE_CHECKING:
    import numpy as np

    from paqad.embed.base import Embedder
    from paqad.store.index_store import IndexStore

NORM_TOLERANCE = 1e-3  # |scale * |values| - 1|: quantize() gives 1 up to float32 rounding (~1e-7)
PUBLISH_BATCH = 2000  # rows per INSERT of `rag publish` (measured: bench/team_store.py)
STATUS_TIMEOUT_S = 2  # `rag status` waits at most this long for the server


def team_password(paths: ProjectPaths) -> str | None:
    """The team store password from the environment or ``.paqad/secrets.env`` (None: libpq's own sources)."""
    from paqad.secrets import find_team_store_password

    return find_team_store_password(paths).value


def decode_records(blobs: Mapping[bytes, bytes], dimension: int) -> tuple[dict[bytes, "np.ndarray"], int]:
    """Check and dequantise stored records: ``({key: (dimension,) float32 unit vector}, rejected)``.

    A record is rejected unless it is ``dimension + 4`` bytes, its values lie in [-127, 127]
    with a peak of 127 (what :func:`~paqad.store.vectors.quantize` writes), and its scale is
    finite and makes it a unit vector within :data:`NORM_TOLERANCE`.
    """
    import numpy as np

    dtype = vectors.record_dtype(dimension)
    good = {k: b for k, b in blobs.items() if len(b) == dtype.itemsize}
    if not good:
        return {}, len(blobs)
    records = np.frombuffer(b"".join(good.values()), dtype=dtype)
    values = records["v"].astype(np.float32)
    scales = records["s"].astype(np.float64)
    peaks = np.abs(values).max(axis=1)
    norms = np.linalg.norm(values, axis=1) * scales
    ok = np.isfinite(scales) & (scales > 0) & (peaks == 127) & (np.abs(norms - 1.0) < NORM_TOLERANCE)
    out = {}
    for index, key in enumerate(good):
        if ok[index]:
            out[key] = (values[index] * np.float32(scales[index])).astype(np.float32)
    return out, len(blobs) - len(out)


class TeamReadThrough:
    """The team store as a build sees it: :meth:`lookup` before embedding, :meth:`publish` after.

    Counters: ``fetched`` texts whose vector came from the team, ``published`` rows written,
    ``rejected`` rows refused as invalid, ``seconds`` spent on the store (connect, lookups,
    writes). ``note`` is the one line a build reports ("" when all went well). Never raises for
    a fault of the store; call :meth:`close` at the end.
    """

    def __init__(self, url: str, password: str | None, fingerprint: str, dimension: int, write: bool) -> None:
        self.url, self.label, self._password = url, redacted_url(url), password
        self.fingerprint, self.dimension, self.write = fingerprint, dimension, write
        self.fetched = self.published = self.rejected = 0
        self.seconds = 0.0
        self._store: team.TeamStore | None = None
        self._fp_id: int | None = None
        self._off = False
        self._fault = ""

    @property
    def note(self) -> str:
        """One line for people, e.g. ``team store postgresql://ci@db/paqad: unreachable (...); embedded locally``."""
        parts = [self._fault] if self._fault else []
        if self.rejected:
            parts.append(f"team store {self.label}: {self.rejected} stored vector(s) did not fit this model "
                         f"({self.dimension}-d) and were ignored; embedded locally")
        return "; ".join(parts)

    def _switch_off(self, exc: TeamStoreError, then: str = "embedded locally") -> None:
        self._off = True
        self._fault = f"{exc}; {then}"
        self.close()  # no pool thread keeps retrying a broken server for the rest of the build

    def _open(self) -> bool:
        if self._store is not None or self._off:
            return self._store is not None and self._fp_id is not None
        try:
            self._store = team.connect(self.url, self._password, self.label)
            version = self._store.schema_version()
            if version != team.TEAM_SCHEMA_VERSION:
                problem = "has no schema yet: run `paqad-ai rag team init`" if version < team.TEAM_SCHEMA_VERSION else \
                    f"has schema v{version}, newer than this paqad-ai (v{team.TEAM_SCHEMA_VERSION}): upgrade paqad-ai"
                raise TeamStoreError(f"team store {self.label} {problem}", team.TeamFault.SCHEMA)
            found = self._store.fingerprint_id(self.fingerprint)
            if found is None and self.write:
                found = self._fingerprint_registered()
            if found is not None and found[1] != self.dimension:
                raise TeamStoreError(f"team store {self.label}: fingerprint {self.fingerprint} is registered with "
                                     f"dimension {found[1]}, this model has {self.dimension}", team.TeamFault.DATA)
            self._fp_id = found[0] if found else None
        except TeamStoreError as exc:
            self._switch_off(exc)
            return False
        return self._fp_id is not None

    def _fingerprint_registered(self) -> tuple[int, int] | None:
        assert self._store is not None
        try:
            return self._store.fingerprint_id(self.fingerprint, self.dimension)
        except TeamStoreError as exc:
            if exc.fault is not team.TeamFault.PERMISSION:
                raise
            self.write = False  # a SELECT-only role: read what others published, write nothing
            return None

    def lookup(self, text_hashes: Sequence[str]) -> dict[str, "np.ndarray"]:
        """The team's vectors of the given texts (sha256 hex): ``{hex: (dimension,) float32}``;
        {} when the store is off, unreachable or holds none of them."""
        started = time.perf_counter()
        try:
            return self._lookup(text_hashes)
        finally:
            self.seconds += time.perf_counter() - started

    def _lookup(self, text_hashes: Sequence[str]) -> dict[str, "np.ndarray"]:
        if not text_hashes or not self._open():
            return {}
        assert self._store is not None and self._fp_id is not None
        keys = {bytes.fromhex(h): h for h in text_hashes}
        try:
            blobs = self._store.lookup(self._fp_id, list(keys))
        except TeamStoreError as exc:
            self._switch_off(exc)
            return {}
        decoded, bad = decode_records({k: v for k, v in blobs.items() if k in keys}, self.dimension)
        self.rejected += bad
        self.fetched += len(decoded)
        return {keys[k]: v for k, v in decoded.items()}

    def publish(self, items: Sequence[tuple[str, "np.ndarray"]]) -> int:
        """Write (sha256 hex, (dimension,) float32 unit vector) pairs, quantised as the index
        stores them, when writing is allowed; returns the rows written (0 on any fault)."""
        if not items or not self.write or not self._open():
            return 0
        import numpy as np

        records = vectors.quantize(np.stack([np.asarray(v, dtype=np.float32) for _, v in items]))
        return self.publish_records([(bytes.fromhex(h), records[i].tobytes()) for i, (h, _) in enumerate(items)])

    def publish_records(self, rows: Sequence[tuple[bytes, bytes]]) -> int:
        """Write (32-byte sha256, record bytes) rows; a permission error stops writing, other faults everything."""
        started = time.perf_counter()
        try:
            return self._publish_records(rows)
        finally:
            self.seconds += time.perf_counter() - started

    def _publish_records(self, rows: Sequence[tuple[bytes, bytes]]) -> int:
        if not rows or not self.write or not self._open():
            return 0
        assert self._store is not None and self._fp_id is not None
        try:
            written = self._store.insert(self._fp_id, rows)
        except TeamStoreError as exc:
            if exc.fault is team.TeamFault.PERMISSION:
                self.write = False
                self._fault = f"{exc}; reading only (set rag_team_store_write=false for a SELECT-only role)"
                return 0
            self._switch_off(exc, "not written")
            return 0
        self.published += written
        return written

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def open_read_through(paths: ProjectPaths, settings: Settings, embedder: "Embedder") -> TeamReadThrough | None:
    """The read-through for a build with ``embedder``, or None when no team store is configured.
    Opens no connection yet."""
    if not settings.rag_team_store:
        return None
    from paqad.embed.fingerprint import team_fingerprint

    return TeamReadThrough(settings.rag_team_store, team_password(paths), team_fingerprint(embedder),
                           embedder.dimension, settings.rag_team_store_write)


def record_team_vectors(store: "IndexStore", count: int) -> None:
    """Add ``count`` to the index's ``team_vectors`` meta value (chunks whose vector came from the
    team store since the last full build). A meta value, not a schema change."""
    if count:
        previous = int(store.meta().get("team_vectors") or 0)
        store.set_meta({"team_vectors": previous + count})


def indexed_records(store: "IndexStore", page: int = 5000) -> Iterator[list[tuple[bytes, bytes]]]:
    """The index's vectors as team rows, ``page`` chunks at a time: lists of (32-byte sha256 of
    the embedded text, record bytes), each text once."""
    from paqad.index.chunking import dense_text
    from paqad.store import codec
    from paqad.store.records import ChunkRow

    meta = store.meta()
    model = vectors.model_id(store.db, meta.get("fingerprint", ""))
    if model is None:
        return
    records = vectors.load_records(store.db, model, vectors.model_dimension(store.db, model))
    after, seen = 0, set()
    while True:
        rows = store.db.execute(
            "SELECT path, start_line, end_line, language, symbol, kind, signature, text, id, vec FROM chunks "
            "WHERE vec IS NOT NULL AND id > ? ORDER BY id LIMIT ?", (after, page)).fetchall()
        if not rows:
            return
        after = rows[-1][8]
        out: dict[bytes, bytes] = {}
        for r in rows:
            chunk = ChunkRow(*r[:7], codec.unpack_text(r[7]))
            key = hashlib.sha256(dense_text(chunk).encode("utf-8")).digest()
            if key not in seen:
                seen.add(key)
                out[key] = records[r[9]].tobytes()
        if out:
            yield list(out.items())


@dataclass(frozen=True)
class PublishReport:
    """What ``rag publish`` did: ``fingerprint``, ``vectors`` the index holds (distinct texts),
    ``uploaded`` rows the store did not have, ``seconds``."""

    store: str
    fingerprint: str
    vectors: int
    uploaded: int
    seconds: float

    def summary(self) -> str:
        return (f"published {self.uploaded} of {self.vectors} vectors to {self.store} "
                f"({self.vectors - self.uploaded} already there) in {self.seconds:.1f}s")

    def to_dict(self) -> dict:
        return {"store": self.store, "fingerprint": self.fingerprint, "vectors": self.vectors,
                "uploaded": self.uploaded, "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class TeamStoreInfo:
    """The team store as ``rag status`` shows it: ``url`` without password, ``write`` allowed,
    ``reachable`` (None: not checked), ``detail`` (the fault, or the schema version),
    ``vectors_from_team`` chunks of this index whose vector came from it."""

    url: str
    write: bool
    reachable: bool | None
    detail: str
    vectors_from_team: int

    def describe(self) -> str:
        if self.reachable is False:  # the detail says why, in the fault's words ("unreachable (...)")
            state = self.detail or "not reachable"
        else:
            state = ("reachable" if self.reachable else "not checked") + (f", {self.detail}" if self.detail else "")
        mode = "read-write" if self.write else "read-only"
        return f"Team store: {self.url} ({mode}), {state}; {self.vectors_from_team:,} of this index's vectors came from it"

    def to_dict(self) -> dict:
        return {"url": self.url, "write": self.write, "reachable": self.reachable, "detail": self.detail,
                "vectors_from_team": self.vectors_from_team}


def team_store_info(paths: ProjectPaths, settings: Settings, meta: Mapping[str, str]) -> TeamStoreInfo | None:
    """Check the configured team store within :data:`STATUS_TIMEOUT_S`; None when none is configured."""
    if not settings.rag_team_store:
        return None
    from paqad.store.team import connect

    url = settings.rag_team_store
    label = redacted_url(url)
    from_team = min(int(meta.get("team_vectors") or 0), int(meta.get("embedded") or 0))
    sep = "&" if "?" in url else "?"
    probe_url = url if "connect_timeout=" in url else f"{url}{sep}connect_timeout={STATUS_TIMEOUT_S}"
    try:
        with connect(probe_url, team_password(paths), label, pool_size=1) as store:
            version = store.schema_version()
    except TeamStoreError as exc:
        return TeamStoreInfo(label, settings.rag_team_store_write, False, str(exc).split(": ", 1)[-1], from_team)
    detail = f"schema v{version}" if version else "no schema yet: run `paqad-ai rag team init`"
    return TeamStoreInfo(label, settings.rag_team_store_write, True, detail, from_team)


def _configured(paths: ProjectPaths, settings: Settings) -> str:
    if not settings.rag_team_store:
        from paqad.errors import ConfigError

        raise ConfigError("rag_team_store is not set: put rag_team_store=postgresql://USER@HOST:5432/DB in "
                          ".paqad/configs/.config.team (or export PAQAD_RAG_TEAM_STORE)")
    return settings.rag_team_store


def init_team_schema(paths: ProjectPaths, settings: Settings) -> tuple[str, int, int]:
    """``rag team init``: create or migrate the team store's schema; returns (url without
    password, version before, version after). Raises TeamStoreError, ConfigError."""
    url = _configured(paths, settings)
    with team.connect(url, team_password(paths), redacted_url(url), pool_size=1) as store:
        before, after = store.migrate()
    return redacted_url(url), before, after


def publish_index(paths: ProjectPaths, settings: Settings, *, batch: int = PUBLISH_BATCH) -> PublishReport:
    """``rag publish``: upload the index's vectors the team store lacks (the CI job on main).

    Reads the committed index (read-only), registers its model's fingerprint, checks which keys
    the store has (one lookup per ``batch``) and inserts the rest. Raises TeamStoreError (any
    fault: the CI job should fail), ConfigError, IndexMissingError.
    """
    from paqad.embed.fingerprint import index_team_fingerprint
    from paqad.store.index_store import open_store

    started = time.perf_counter()
    url = _configured(paths, settings)
    label = redacted_url(url)
    total = uploaded = 0
    with open_store(paths, readonly=True) as index, team.connect(url, team_password(paths), label, pool_size=1) as store:
        meta = index.meta()
        fingerprint = index_team_fingerprint(meta)
        if fingerprint is None or not meta.get("built_at"):
            from paqad.errors import IndexMissingError

            raise IndexMissingError("the index has no complete build yet: run `paqad-ai rag init` before publishing")
        if store.schema_version() != team.TEAM_SCHEMA_VERSION:
            raise TeamStoreError(f"team store {label} has no schema v{team.TEAM_SCHEMA_VERSION}: run `paqad-ai rag team init`",
                                 team.TeamFault.SCHEMA)
        found = store.fingerprint_id(fingerprint, int(meta["dimension"]))
        assert found is not None
        if found[1] != int(meta["dimension"]):
            raise TeamStoreError(f"team store {label}: fingerprint {fingerprint} is registered with dimension "
                                 f"{found[1]}, this index has {meta['dimension']}", team.TeamFault.DATA)
        for rows in indexed_records(index, page=batch):
            total += len(rows)
            have = store.lookup(found[0], [h for h, _ in rows])
            uploaded += store.insert(found[0], [(h, v) for h, v in rows if h not in have])
    return PublishReport(label, fingerprint, total, uploaded, time.perf_counter() - started)
