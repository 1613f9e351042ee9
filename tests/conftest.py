"""Shared fixtures: the offline model mirror, an isolated PAQAD_HOME, real git repositories, no
warm process unless a test asks for one."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
MODEL_MIRROR = Path(os.environ.get("PAQAD_MODEL_MIRROR") or REPO_ROOT.parent / "shared" / "models")


@pytest.fixture(scope="session")
def paqad_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One model store for the whole session, so the model is copied from the mirror once."""
    return tmp_path_factory.mktemp("paqad-home")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, paqad_home: Path) -> None:
    """Point the product at the mirror and a temp home; drop any PAQAD_* or API keys the caller has."""
    for name in list(os.environ):
        if name.startswith("PAQAD_") or name in ("OPENAI_API_KEY", "VOYAGE_API_KEY", "OPENAI_BASE_URL", "VOYAGE_BASE_URL"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PAQAD_HOME", str(paqad_home))
    monkeypatch.setenv("PAQAD_MODEL_MIRROR", str(MODEL_MIRROR))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # No warm process outliving a test (it idles 10 minutes); tests/test_warm.py turns it on and stops it.
    monkeypatch.setenv("PAQAD_RAG_WARM_PROCESS", "false")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.com")


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` and return stdout (raises on failure)."""
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    """Create ``files`` (project-relative path -> content) under ``root``."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


@pytest.fixture
def git_repo(tmp_path: Path):
    """A factory: ``git_repo({"a.py": "..."})`` makes a real git repository with one commit on main."""

    def make(files: dict[str, str | bytes], commit: bool = True, name: str = "proj") -> Path:
        root = tmp_path / name
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        write_files(root, files)
        if commit:
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "initial")
        return root

    return make


def build_index(root: Path, files: dict[str, str | bytes], paqad_home: Path) -> Path:
    """Make ``root`` a git repository holding ``files`` and build its index with ``rag init``.

    For module-scoped fixtures, which run outside the per-test environment above: sets the same
    environment for the duration of the build only.
    """
    from paqad.cli.main import main

    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write_files(root, files)
    with pytest.MonkeyPatch.context() as mp:
        for name in list(os.environ):
            if name.startswith("PAQAD_"):
                mp.delenv(name)
        mp.setenv("PAQAD_HOME", str(paqad_home))
        mp.setenv("PAQAD_MODEL_MIRROR", str(MODEL_MIRROR))
        mp.setenv("HF_HUB_OFFLINE", "1")
        assert main(["rag", "init", "--provider", "local", "--yes", "--project-root", str(root)]) == 0
    return root
