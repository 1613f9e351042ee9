"""Where a project's paqad files live.

Every path stored in the index is relative to ``ProjectPaths.root`` and uses ``/``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProjectPaths:
    """The files and folders paqad-ai reads and writes under one project root."""

    root: Path

    @property
    def paqad_dir(self) -> Path:
        return self.root / ".paqad"

    @property
    def local_config(self) -> Path:
        return self.paqad_dir / ".config"

    @property
    def team_config_dir(self) -> Path:
        return self.paqad_dir / "configs"

    @property
    def gitignore(self) -> Path:
        return self.paqad_dir / ".gitignore"

    @property
    def secrets_file(self) -> Path:
        return self.paqad_dir / "secrets.env"

    @property
    def ignore_yaml(self) -> Path:
        return self.paqad_dir / "rag.ignore.yaml"

    @property
    def vectors_dir(self) -> Path:
        return self.paqad_dir / "vectors"

    @property
    def index_db(self) -> Path:
        return self.vectors_dir / "index.sqlite"

    @property
    def context_dir(self) -> Path:
        return self.paqad_dir / "context"

    @property
    def session_context(self) -> Path:
        return self.context_dir / "session-context.md"

    @property
    def last_prompt(self) -> Path:
        return self.context_dir / "last-prompt.json"

    @property
    def logs_dir(self) -> Path:
        return self.paqad_dir / "logs"

    @property
    def state_dir(self) -> Path:
        """Small runtime markers: locks, debounce and drift timestamps."""
        return self.paqad_dir / "state"


def index_exists(paths: ProjectPaths) -> bool:
    """Whether the project has an index database file (valid or not). Cheap: no import, one stat.

    The one test for "is there an index" used by every command, the hook and the MCP server.
    """
    return paths.index_db.exists()


def find_project_root(start: Path | str | None = None) -> Path:
    """Return the nearest ancestor of ``start`` (default: cwd) holding ``.paqad/`` or ``.git``.

    Falls back to ``start`` itself when no ancestor qualifies (DESIGN §3).
    """
    here = Path(start or os.getcwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".paqad").is_dir() or (candidate / ".git").exists():
            return candidate
    return here


def project_relative(root: Path, value: str, what: str = "") -> str:
    """``value`` (relative to ``root``, or absolute) as a clean project-relative POSIX path.

    ``./pkg/../pkg/a.py``, ``pkg//a.py``, ``pkg\\a.py`` and an absolute path inside ``root`` all
    give ``pkg/a.py``; the root itself gives ``""``. Nothing is resolved through symlinks inside
    the project (the filters judge those). Raises :class:`~paqad.errors.OutsideProjectError`
    (``"<what> <value>: outside the project <root>"``) for a path that leaves ``root``.
    """
    from paqad.errors import OutsideProjectError

    raw = value.strip().replace("\\", "/")
    base = root.as_posix()
    norm = os.path.normpath(raw if os.path.isabs(raw) else os.path.join(base, raw))
    try:
        rel = Path(norm).relative_to(base)
    except ValueError:
        try:  # an absolute path through a symlinked prefix of the root (/tmp -> /private/tmp)
            rel = Path(norm).resolve().relative_to(root.resolve()) if os.path.isabs(raw) else None
        except (ValueError, OSError):
            rel = None
        if rel is None:
            raise OutsideProjectError(f"{what + ' ' if what else ''}{value}: outside the project {root}") from None
    text = rel.as_posix()
    return "" if text == "." else text


def from_cwd(root: Path, value: str, cwd: Path | None) -> str:
    """A path typed on the command line (``--explain``, ``probe --path``), as a shell completes it:
    ``value`` made absolute from ``cwd`` when it names something there and ``cwd`` lies inside
    ``root`` below it (``cart.py`` or ``.`` typed in ``pkg/``); else ``value`` unchanged (then
    read from the project root, as the README's examples are). No error: the caller checks."""
    if cwd is None or os.path.isabs(value):
        return value
    here = Path(os.path.abspath(cwd))
    if here == root or root not in here.parents:
        return value
    candidate = os.path.normpath(here / value)
    return candidate if os.path.lexists(candidate) else value


def relpath(root: Path, path: Path) -> str:
    """Project-relative POSIX path of ``path`` (never absolute)."""
    return path.relative_to(root).as_posix()
