"""``rag status`` as one call (issue 18): a frozen :class:`StatusReport` the CLI prints as it is.

:func:`project_status` reads :func:`paqad.status.status` once and keeps, typed, what the lines
for people need (the last refresh, the pid of a running build, ``rag_max_file_size``), so no
caller re-reads dict keys; :meth:`StatusReport.to_dict` is the ``--json`` object (unchanged),
:meth:`StatusReport.lines` the text. :func:`explain` is ``rag status --explain PATH``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from paqad.config import Settings
from paqad.project import ProjectPaths

if TYPE_CHECKING:
    from paqad.status import Explanation, Status


@dataclass(frozen=True)
class LastRefresh:
    """The last refresh's record: ``at`` (epoch seconds, None when unrecorded), ``seconds`` it took, ``summary``."""

    at: float | str | None
    seconds: float | None
    summary: str | None

    @classmethod
    def from_record(cls, record: dict | None) -> "LastRefresh | None":
        """From ``.paqad/state/last-refresh.json``'s object (:func:`paqad.status.last_refresh`)."""
        if not record:
            return None
        return cls(record.get("at"), record.get("seconds"), record.get("summary"))


@dataclass(frozen=True)
class StatusReport:
    """``status``: what :func:`paqad.status.status` read; ``last_refresh``, ``build_pid`` (the
    process writing the index now, None: none) and ``max_file_size`` (bytes) typed for the text."""

    status: Status
    last_refresh: LastRefresh | None
    build_pid: int | None
    max_file_size: int

    def to_dict(self) -> dict[str, Any]:
        """What ``rag status --json`` prints (:meth:`paqad.status.Status.to_dict`)."""
        return self.status.to_dict()

    def lines(self, aligned: Callable[[tuple[str, ...], list[list[str]]], list[str]]) -> list[str]:
        """``rag status`` for people: the settings table (laid out by the caller's ``aligned(header,
        rows)``, the CLI's column aligner), the index, the last refresh, the key, the team store."""
        report = self.status
        lines = ["Settings:"]
        settings_rows = [[s.name, setting_text(s.name, s.value), s.source] for s in report.settings]
        lines += ["  " + line for line in aligned(("key", "value", "from"), settings_rows)]
        lines.append(report.index.headline())
        if report.index.built_at:
            lines += self._index_lines()
        last = self.last_refresh
        if last:
            took = f"{last.seconds:.2f}s" if isinstance(last.seconds, (int, float)) else f"{last.seconds}s"  # as summaries print
            lines.append(f"Last refresh: {_fmt_time(last.at)}, {took} — {last.summary}")
        if report.api_key is not None:
            key = report.api_key
            lines.append(f"API key {key.variable}: " + (f"found in {key.found_in}" if key.found_in else "not found"))
        if report.team_store is not None:
            lines.append(report.team_store.describe())
        return lines

    def _index_lines(self) -> list[str]:
        """The indented lines under ``Index: ...`` for an index with a completed build."""
        from paqad.index.languages import chunking_for
        from paqad.index.filters import ALWAYS_SKIPPED
        from paqad.index.sync import large_sources_note, not_utf8_note

        idx = self.status.index
        coverage = round(idx.coverage, 4)  # the value `--json` shows as semantic_coverage
        langs = ", ".join(f"{k} {v:,} ({chunking_for(k).value})" for k, v in list(idx.languages.items())[:SHOWN_LANGUAGES])
        if len(idx.languages) > SHOWN_LANGUAGES:  # it cut them without a word
            langs += f", and {len(idx.languages) - SHOWN_LANGUAGES} more (`rag status --json` lists all)"
        lines = [f"  a build is running (pid {self.build_pid})"] if self.build_pid is not None else []
        lines.append(f"  provider/model: {idx.provider} / {idx.model} ({idx.dimension}-d)")
        lines.append(f"  confidence calibration: {self.status.calibration or 'none shipped (the cosine stands in)'}")
        lines.append(f"  files: {idx.files:,}   chunks: {idx.chunks:,}   size: {idx.size_bytes / 1e6:.1f} MB")
        if coverage < 1:
            lines.append(f"  semantic coverage: {int(coverage * 100)}% ({idx.embedded:,} of "
                         f"{idx.chunks:,} chunks have vectors; the rest match by keywords only until embedding "
                         "finishes: `paqad-ai rag refresh-context` continues it)")
        lines.append(f"  languages: {langs}")
        shown = {k: v for k, v in idx.rejected.items() if k not in ALWAYS_SKIPPED}  # as `--explain .` counts them
        if shown:
            skipped = ", ".join(f"{k} {v:,}" for k, v in sorted(shown.items(), key=lambda kv: -kv[1]))
            lines.append(f"  skipped: {sum(shown.values()):,} ({skipped}; `paqad-ai rag status --explain .` lists them)")
        notes = (large_sources_note(list(idx.large_sources), self.max_file_size, idx.rejected.get("check:too-large", 0)),
                 not_utf8_note(idx.not_utf8))
        lines += [f"  {note}" for note in notes if note]
        lines.append(f"  built: {_fmt_time(idx.built_at)}   refreshed: {_fmt_time(idx.refreshed_at)}")
        return lines


# The status line names this many languages (most files first); --json has every one.
SHOWN_LANGUAGES = 8

# What an empty setting means, in the status table's words (README "Configuration").
_EMPTY_MEANS = {"rag_base_branch": "(auto)", "rag_team_store": "(off)"}


def setting_text(name: str, value: Any) -> str:
    """A setting's value as ``rag status`` shows it: as it is written in a config file
    (``true``/``false``, not Python's ``True``), an empty one as what it means
    (``rag_base_branch``: ``(auto)``, as the README says)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value in ("", None):
        return _EMPTY_MEANS.get(name, "")
    return str(value)


def _fmt_time(iso_or_epoch: float | str | None) -> str:
    """An epoch (seconds) as ISO-8601 UTC to the second; an ISO string as it is; nothing as ``never``."""
    if not iso_or_epoch:
        return "never"
    if isinstance(iso_or_epoch, (int, float)):
        return datetime.fromtimestamp(iso_or_epoch, timezone.utc).replace(microsecond=0).isoformat()
    return str(iso_or_epoch)


def project_status(paths: ProjectPaths, settings: Settings | None = None) -> StatusReport:
    """The project's settings (``settings``: those already loaded, else read here), index state and
    last refresh, read once. Raises ConfigError for bad settings."""
    from paqad.config import load_settings
    from paqad.status import status

    settings = settings or load_settings(paths)
    report = status(paths, settings)
    running = report.index.build_running
    return StatusReport(report, LastRefresh.from_record(report.last_refresh),
                        running["pid"] if running else None, settings.rag_max_file_size)


def explain(paths: ProjectPaths, value: str, cwd: Path | None = None) -> Explanation:
    """``rag status --explain PATH``: whether ``value`` is indexed and why (:func:`paqad.status.explain_path`).

    A relative ``value`` that exists under ``cwd`` (a folder inside the project) is taken from
    there, as a shell completes it (``../setup.py`` from ``docs/``); otherwise it is
    project-relative, as in the README's examples.

    Raises ConfigError for bad settings, OutsideProjectError / ProjectPathError for a bad path.
    """
    from paqad.config import load_settings
    from paqad.project import from_cwd
    from paqad.status import explain_path

    return explain_path(paths, load_settings(paths), from_cwd(paths.root, value, cwd), what="--explain")
