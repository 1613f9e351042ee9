"""The index's record of one file, shared by the sync plan and the store (no imports: cheap)."""

from __future__ import annotations

from dataclasses import dataclass

# A file whose mtime is within this of the last sync's start is "racily clean" (git's term): it may
# have changed again within the file system's timestamp granularity after it was read, so its
# content is hashed again. 2 s: FAT's mtime resolution, and well above a kernel's coarse clock tick.
RACY_MARGIN_NS = 2_000_000_000


@dataclass(frozen=True)
class FileRow:
    """One indexed file: project-relative ``path``, ``size`` in bytes, ``mtime_ns``, the sha256
    hex of its bytes, its language, how many chunks it was cut into, and ``ctime_ns`` and
    ``inode`` (0: not recorded, as in an index of schema v3: the file is hashed again)."""

    path: str
    size: int
    mtime_ns: int
    sha256: str
    language: str
    chunk_count: int
    ctime_ns: int = 0
    inode: int = 0

    @property
    def stat_key(self) -> tuple[int, int, int, int]:
        """``(size, mtime_ns, ctime_ns, inode)``: what git compares before it reads a file."""
        return (self.size, self.mtime_ns, self.ctime_ns, self.inode)


def stat_key_of(st) -> tuple[int, int, int, int]:
    """``(size, mtime_ns, ctime_ns, inode)`` of an ``os.stat_result``. An edit that keeps size and
    mtime (``sed -i`` then ``touch -d``, ``rsync -a``, ``cp -p``, ``tar -x``) still moves the ctime,
    and usually the inode."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def is_racily_clean(mtime_ns: int, synced_at_ns: int) -> bool:
    """Whether a file recorded with ``mtime_ns`` by the sync that started at ``synced_at_ns``
    (``time.time_ns()``; 0: unknown) must be hashed again although its stat matches."""
    return synced_at_ns == 0 or mtime_ns >= synced_at_ns - RACY_MARGIN_NS
