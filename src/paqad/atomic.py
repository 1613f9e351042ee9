"""Atomic file writes: readers see the old file or the new one, never half of one.

The one writer of the package (settings, secrets, state records, host settings, model markers):
a temp file with a unique name (``tempfile.mkstemp``, so two processes writing the same file at
once never share one) in the target's folder, fsync'ed, then ``os.replace``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes_atomic(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` in one step. Creates the parent folder.

    ``mode``: the file's permission bits (e.g. ``0o600`` for secrets); default: an existing
    file's, else 0644. The temp file is created 0600 and gets ``mode`` before it replaces
    ``path``, so the content is never readable wider than either. Raises ``OSError`` (the temp
    file is removed).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_text_atomic(path: Path, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` (UTF-8; lone surrogates from undecodable bytes written back as the bytes)
    to ``path`` with :func:`write_bytes_atomic` (no newline translation)."""
    write_bytes_atomic(path, text.encode("utf-8", "surrogateescape"), mode=mode)
