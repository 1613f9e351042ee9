"""Atomic file writes: readers see the old file or the new one, never half of one.

The one writer of the package (settings, secrets, state records, host settings, model markers):
a temp file with a unique name (``tempfile.mkstemp``, so two processes writing the same file at
once never share one) in the target's folder, fsync'ed, then ``os.replace``. A process killed
between the two (SIGTERM, SIGKILL: no ``finally`` runs) leaves its temp file; the next write of
the same target removes such leftovers once they are older than :data:`STALE_TEMP_S`.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

# A temp file lives for one write (milliseconds); one a minute old belongs to a killed writer,
# not to a concurrent one still writing.
STALE_TEMP_S = 60.0


def remove_stale_temps(path: Path, now: float | None = None) -> list[Path]:
    """Remove the temp files this module left for ``path`` (``.<name>.*.tmp`` in its folder) whose
    mtime is over :data:`STALE_TEMP_S` seconds before ``now`` (epoch seconds; default: now).
    Returns the removed paths; a file that vanishes or cannot be removed is skipped."""
    cutoff = (time.time() if now is None else now) - STALE_TEMP_S
    removed: list[Path] = []
    try:
        candidates = list(path.parent.glob(f".{_glob_escape(path.name)}.*.tmp"))
    except OSError:
        return removed
    for temp in candidates:
        try:
            if temp.lstat().st_mtime < cutoff:
                temp.unlink()
                removed.append(temp)
        except OSError:
            continue
    return removed


def _glob_escape(name: str) -> str:
    """``name`` with the glob metacharacters ``*?[`` matched literally."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def write_bytes_atomic(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` in one step. Creates the parent folder.

    ``mode``: the file's permission bits (e.g. ``0o600`` for secrets); default: an existing
    file's, else 0644. The temp file is created 0600 and gets ``mode`` before it replaces
    ``path``, so the content is never readable wider than either. Raises ``OSError`` (the temp
    file is removed) whose ``filename`` is ``path`` when the folder refuses the write.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(path)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:  # say the file the user knows, not our temp name (`..config.k5vpi_14.tmp`)
        raise OSError(exc.errno, exc.strerror, str(path)) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError) and exc.filename in (tmp, None):  # a write names no file
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise


def write_text_atomic(path: Path, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` (UTF-8; lone surrogates from undecodable bytes written back as the bytes)
    to ``path`` with :func:`write_bytes_atomic` (no newline translation)."""
    write_bytes_atomic(path, text.encode("utf-8", "surrogateescape"), mode=mode)
