"""What ``rag status`` and the MCP ``index_status`` tool report: one :class:`Status` object.

:func:`status` reads the settings (each with where it came from), the index's state (recorded
meta and counts, judged against the settings by :mod:`paqad.store.state`; no model is loaded),
the confidence calibration in force, the last refresh's record and, for a remote provider,
where its key was found (never the key). :meth:`Status.to_dict` is the JSON both print.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paqad.config import KEYS, Settings, load_settings
from paqad.project import ProjectPaths
from paqad.store.state import IndexState, index_state

__all__ = ["IndexState", "KeyInfo", "SettingValue", "Status", "index_state", "last_refresh", "record_last_refresh", "status"]



# --- the last refresh's record (written by `rag refresh-context`) -----------------------------


def record_last_refresh(paths: ProjectPaths, summary: str, seconds: float) -> None:
    """Write ``.paqad/state/last-refresh.json`` (``at`` epoch seconds, ``seconds``, ``summary``). Best effort."""
    try:
        paths.state_dir.mkdir(parents=True, exist_ok=True)
        record = {"at": time.time(), "seconds": round(seconds, 3), "summary": summary}
        tmp = paths.state_dir / "last-refresh.json.tmp"
        tmp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(tmp, paths.state_dir / "last-refresh.json")
    except OSError:
        pass


def last_refresh(paths: ProjectPaths) -> dict | None:
    """The record of the last refresh (``at`` epoch seconds, ``seconds``, ``summary``), or None."""
    try:
        return json.loads((paths.state_dir / "last-refresh.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


# --- the whole report --------------------------------------------------------------------------


@dataclass(frozen=True)
class SettingValue:
    """One resolved setting and where it came from (``default``, a file, ``env PAQAD_X``)."""

    name: str
    value: Any
    source: str


@dataclass(frozen=True)
class KeyInfo:
    """Where a remote provider's key was found: the variable and ``found_in`` (None: nowhere)."""

    variable: str
    found_in: str | None


@dataclass(frozen=True)
class Status:
    """Everything ``rag status`` shows, and what the MCP ``index_status`` tool returns.

    ``calibration`` names the confidence fit in force for the configured model (its own, or the
    model-agnostic fallback; see :mod:`paqad.search.confidence`), ``None`` when none ships.
    """

    project_root: Path
    retrieval_enabled: bool
    settings: tuple[SettingValue, ...]
    index: IndexState
    last_refresh: dict | None
    api_key: KeyInfo | None = None
    calibration: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "project_root": str(self.project_root),
            "retrieval_enabled": self.retrieval_enabled,
            "settings": {s.name: {"value": s.value, "source": s.source} for s in self.settings},
            "index": self.index.to_dict(),
            "last_refresh": self.last_refresh,
            "calibration": self.calibration,
        }
        if self.api_key is not None:
            data["api_key"] = {"variable": self.api_key.variable, "found_in": self.api_key.found_in}
        return data


def status(paths: ProjectPaths, settings: Settings | None = None) -> Status:
    """The project's settings, index state and last refresh. Raises ConfigError for bad settings."""
    settings = settings or load_settings(paths)
    api_key = None
    if settings.rag_embedding_provider != "local":
        from paqad.secrets import find_key

        lookup = find_key(paths, settings.rag_embedding_provider)
        api_key = KeyInfo(lookup.variable, lookup.source)
    from paqad.search.confidence import calibration_for

    fit = calibration_for(settings.rag_embedding_model)
    return Status(
        project_root=paths.root,
        retrieval_enabled=settings.rag_enabled,
        settings=tuple(SettingValue(name, getattr(settings, name), settings.sources[name]) for name in KEYS),
        index=index_state(paths, settings),
        last_refresh=last_refresh(paths),
        api_key=api_key,
        calibration=fit.name if fit is not None else None,
    )
