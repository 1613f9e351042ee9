"""``rag init`` and ``rag rebuild`` as one call each (issue 18): build, then say what to warn about.

:func:`init` and :func:`rebuild` return a frozen :class:`BuildResult`; the CLI parses its options,
passes a progress callback and a ``notify`` for one-line notes, and prints. A build stopped by
Ctrl-C leaves as :class:`~paqad.errors.Interrupted`, carrying what is usable and how embedding continues.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator

from paqad.config import Settings
from paqad.project import ProjectPaths

if TYPE_CHECKING:
    from paqad.build import ConfirmUpload, IndexReport
    from paqad.index.sync import Progress


def _quiet(message: str) -> None:
    """The default ``notify``: say nothing."""


@dataclass(frozen=True)
class BuildResult:
    """The settings in force after the build, its ``report``, and the ``warnings`` to show (files
    skipped as too large that look hand-written, then the report's own warning), in that order."""

    settings: Settings
    report: IndexReport
    warnings: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        """The report's one line, e.g. ``indexed 67 files, 414 chunks (...) in 3.1s``."""
        return self.report.summary()


def init(paths: ProjectPaths, *, provider: str | None = None, model: str | None = None, rebuild: bool = False,
         interactive: bool = False, confirm_upload: ConfirmUpload | None = None,
         notify: Callable[[str], None] = _quiet, progress: Progress | None = None) -> BuildResult:
    """Switch retrieval on and build the index (:func:`paqad.build.init_project`: a valid index is
    kept and synced unless ``rebuild``; ``confirm_upload`` is asked before a full remote build).

    Raises what :func:`paqad.build.init_project` raises (ConfigError, ModelMissingError,
    KeyMissingError, UploadDeclined, ...) and, on Ctrl-C, :class:`~paqad.errors.Interrupted` saying what is usable.
    """
    from paqad.build import init_project

    with _interruption_said(paths):
        done = init_project(paths, provider=provider, model=model, rebuild=rebuild, interactive=interactive,
                            confirm_upload=confirm_upload, notify=notify, progress=progress)
    return BuildResult(done.settings, done.report, _warnings(done.report, done.settings))


def rebuild(paths: ProjectPaths, settings: Settings, *, notify: Callable[[str], None] = _quiet,
            progress: Progress | None = None) -> BuildResult:
    """Rebuild the whole index with the configured provider and model (embeddings in the cache
    are reused). ``notify`` hears a wait for another writer.

    Raises IndexMissingError when retrieval was never set up here, ModelMissingError (the index
    unchanged), what :func:`paqad.build.sync` raises, and on Ctrl-C :class:`~paqad.errors.Interrupted`.
    """
    from paqad.build import sync
    from paqad.embed.factory import load_model
    from paqad.errors import IndexMissingError, ModelMissingError
    from paqad.store import index_exists

    if not settings.rag_enabled and not index_exists(paths):
        raise IndexMissingError("retrieval is not configured here; run `paqad-ai rag init` first")
    try:
        embedder = load_model(settings, paths)
    except ModelMissingError as exc:
        raise ModelMissingError(f"{exc}; the index was not changed") from None
    with _interruption_said(paths):
        report = sync(paths, settings, embedder, full=True, progress=progress, notify=notify)
    return BuildResult(settings, report, _warnings(report, settings))


def _warnings(report, settings: Settings) -> tuple[str, ...]:
    """What a whole build warns about: every hand-written source over the size cap (init and
    rebuild alike: rebuild named none of them), the files that are not UTF-8, then the build's own warning."""
    from paqad.index.sync import large_sources_note, not_utf8_note

    note = large_sources_note(report.large_sources, settings.rag_max_file_size, report.rejected.get("check:too-large", 0))
    return tuple(w for w in (note, not_utf8_note(report.not_utf8), report.warning) if w)


@contextmanager
def _interruption_said(paths: ProjectPaths) -> Iterator[None]:
    """Around a build: a Ctrl-C leaves as :class:`~paqad.errors.Interrupted` carrying what is usable
    and how embedding continues (the CLI prints that one line and exits 130), or as it came when
    nothing is usable yet. One line: the job and the CLI each saying "interrupted" was two."""
    from paqad.errors import Interrupted

    try:
        yield
    except Interrupted:
        raise
    except KeyboardInterrupt:
        line = interrupted_note(paths)
        if line:
            raise Interrupted(line) from None
        raise


def interrupted_note(paths: ProjectPaths) -> str | None:
    """After Ctrl-C in a build: what is usable and how embedding continues (None: nothing usable)."""
    from paqad.config import load_settings
    from paqad.status import index_state

    state = index_state(paths, load_settings(paths))
    if not (state.present and state.chunks):
        return None
    return (f"interrupted: the index is searchable by keywords; {state.embedded:,} of {state.chunks:,} chunks "
            f"have vectors ({int(state.coverage * 100)}%); the next `paqad-ai rag refresh-context` (each prompt "
            "starts one) or `paqad-ai rag init` continues embedding")
