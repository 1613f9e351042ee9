"""Pinned real-world corpora for the benchmarks: PyPI sdists extracted into plain folders.

``fetch("requests")`` returns ``bench/.cache/corpora/requests-2.32.3/`` (the sdist's top folder),
downloading the sdist with ``pip download`` when it is not cached. The only network used is PyPI.
A copy already present in ``/work/corpora/sdist`` (or ``$PAQAD_CORPORA_SDIST``) is used instead of
downloading. Idempotent: an extracted corpus is returned as is.

    python bench/corpora.py            # fetch all pinned corpora, print their folders
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

# Pinned versions: the quality cases' expected paths refer to these exact sdists.
CORPORA: dict[str, str] = {
    "requests": "2.32.3",
    "flask": "3.0.3",
    "rich": "13.9.4",
    "click": "8.1.7",
}

BENCH_DIR = Path(__file__).resolve().parent
CACHE_DIR = BENCH_DIR / ".cache"
SDIST_DIR = CACHE_DIR / "sdist"
CORPORA_DIR = CACHE_DIR / "corpora"
LOCAL_SDIST_DIR = Path(os.environ.get("PAQAD_CORPORA_SDIST", "/work/corpora/sdist"))


def corpus_dir(name: str) -> Path:
    """The folder ``fetch(name)`` extracts to (it may not exist yet). Raises KeyError for unknown names."""
    return CORPORA_DIR / f"{name}-{CORPORA[name]}"


def _find_sdist(folder: Path, name: str, version: str) -> Path | None:
    for candidate in (f"{name}-{version}.tar.gz", f"{name.lower()}-{version}.tar.gz"):
        if (folder / candidate).is_file():
            return folder / candidate
    return None


def _sdist(name: str, version: str) -> Path:
    """The sdist archive for ``name==version``: cached, copied from the local store, or downloaded."""
    SDIST_DIR.mkdir(parents=True, exist_ok=True)
    found = _find_sdist(SDIST_DIR, name, version)
    if found:
        return found
    local = _find_sdist(LOCAL_SDIST_DIR, name, version)
    if local:
        target = SDIST_DIR / local.name
        shutil.copyfile(local, target)
        return target
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
         f"{name}=={version}", "-d", str(SDIST_DIR)],
        check=True,
    )
    found = _find_sdist(SDIST_DIR, name, version)
    if not found:
        raise FileNotFoundError(f"pip download did not produce {name}-{version}.tar.gz in {SDIST_DIR}")
    return found


def fetch(name: str) -> Path:
    """Extract the pinned sdist of ``name`` and return its root folder (idempotent).

    Raises KeyError for a name not in ``CORPORA`` and CalledProcessError when pip cannot download.
    """
    version = CORPORA[name]
    target = corpus_dir(name)
    if target.is_dir():
        return target
    archive = _sdist(name, version)
    CORPORA_DIR.mkdir(parents=True, exist_ok=True)
    staging = CORPORA_DIR / f".extract-{name}-{version}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    with tarfile.open(archive) as tar:
        # The "data" filter (Python 3.12+, backported to 3.10.12/3.11.4) refuses links and paths
        # outside the target; fall back to a plain extract on interpreters without it.
        if hasattr(tarfile, "data_filter"):
            tar.extractall(staging, filter="data")
        else:
            tar.extractall(staging)
    tops = [p for p in staging.iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise RuntimeError(f"{archive.name}: expected one top-level folder, found {len(tops)}")
    tops[0].rename(target)
    shutil.rmtree(staging, ignore_errors=True)
    return target


def fetch_all(names: list[str] | None = None) -> dict[str, Path]:
    """``fetch`` every name (default: all pinned corpora); returns name -> folder."""
    return {name: fetch(name) for name in (names or list(CORPORA))}


if __name__ == "__main__":
    for corpus_name, folder in fetch_all(sys.argv[1:] or None).items():
        print(f"{corpus_name}\t{folder}")
