"""The index's record of one file, shared by the sync plan and the store (no imports: cheap)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FileRow:
    """One indexed file: project-relative ``path``, ``size`` in bytes, ``mtime_ns``, the sha256
    hex of its bytes, its language and how many chunks it was cut into."""

    path: str
    size: int
    mtime_ns: int
    sha256: str
    language: str
    chunk_count: int
