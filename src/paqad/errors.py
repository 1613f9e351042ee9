"""Errors a user can fix, all in one tree (the shape of httpx's ``_exceptions.py``). The CLI
prints any of them as one line and exits 2; callers that must tell them apart catch a subclass.

Anything else that escapes a command is a bug in paqad-ai, not the user's mistake: the CLI
reports it as an internal error with exit 1 (see :mod:`paqad.cli.main`). ``raise PaqadError(``
of the base class itself is not allowed outside this module (tests/test_layout.py).

    PaqadError
    ├── UsageError           a bad command-line option or argument
    │   └── ConfirmationNeededError  a destructive step with no terminal to ask on (rerun with --yes)
    ├── ConfigError          a bad value in a settings file or PAQAD_* variable
    ├── UserFileError        a file the user keeps (secrets, .paqadignore-style filters, host
    │                        settings, a snapshot, cases) cannot be read or has the wrong shape
    ├── ProjectPathError     a path given by the user is not a file or folder in the project
    ├── OutsideProjectError  a path given by the user leads outside the project (also a ValueError)
    ├── ToolMissingError     an outside program or package paqad-ai needs (git, an SDK) is missing
    ├── RefreshWarning       a refresh went on degraded (only logged, to .paqad/logs/refresh.log)
    ├── EvaluationError      `rag eval` cannot run as asked (no usable commit, no shared case)
    ├── IndexMissingError    no index yet (run `rag init`)
    │   └── IndexBuildingError   the first build is still running
    ├── IndexStaleError      the index does not match the settings (``reasons`` say why)
    ├── IndexCorruptError    the index database cannot be read (run `rag rebuild`)
    ├── IndexVersionError    the index was written by a newer paqad-ai
    ├── ModelMissingError    the embedding model is not in the store and cannot be fetched,
    │                        or its files are there but cannot be loaded (damaged)
    ├── TeamStoreError       the team's embedding store cannot be used (``fault`` says why)
    ├── ModelSpecError       an unknown model id, precision or remote model name
    └── ProviderError        a remote embedding provider failed (one class per way, mapped once
        │                    in :mod:`paqad.embed.remote`)
        ├── KeyMissingError          the API key is not set
        ├── ProviderAuthError        the key was rejected (401/403): set a valid key
        ├── ProviderQuotaError       the quota or billing is exhausted: check the plan
        ├── ProviderRateLimitError   still rate-limited (429) after every retry: try later
        ├── ProviderUnavailableError 5xx, timeouts, dropped connections after every retry
        ├── ProviderRequestError     any other request the provider rejected (4xx)
        └── ProviderResponseError    a reply of the wrong shape (vector count or dimension)
"""

from __future__ import annotations

import errno

ENVIRONMENT_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EEXIST,
                                errno.ENOTDIR})
"""Errors of the machine, not of paqad-ai: permission denied, read-only file system, disk full,
quota, a file where a folder must be (``.paqad/vectors`` as a file: EEXIST from mkdir, ENOTDIR
below it). An :class:`OSError` with one of these reaches the CLI, which names the path and the fix."""


def is_environment_error(exc: BaseException) -> bool:
    """True for an :class:`OSError` whose errno is in :data:`ENVIRONMENT_ERRNOS`."""
    return isinstance(exc, OSError) and exc.errno in ENVIRONMENT_ERRNOS


class PaqadError(Exception):
    """A user error: bad option, bad config value, missing model, missing key.

    The message is one line that names the file or option and says what to do. Raise a subclass.
    """


class UsageError(PaqadError):
    """A command-line option or argument is wrong (names the option and what to give)."""


class ConfirmationNeededError(UsageError):
    """A step that deletes or writes the user's files needs a yes, and there is no terminal to ask on."""


class ConfigError(PaqadError):
    """A configuration value is invalid (names key, value, file and the allowed range)."""


class UserFileError(PaqadError):
    """A file the user keeps cannot be read, or does not hold what it must (names the file)."""


class ProjectPathError(PaqadError):
    """A path the user gave is no file or folder in the project."""


class ToolMissingError(PaqadError):
    """An outside program (git) or an optional Python package paqad-ai needs is not installed."""


class EvaluationError(PaqadError):
    """`rag eval` cannot run as asked (no usable commit in the history, a snapshot of other cases)."""


class RefreshWarning(PaqadError):
    """A refresh went on degraded (keyword search only, index not synced): logged, never raised."""


NO_INDEX_MESSAGE = "no index at .paqad/vectors/index.sqlite; run `paqad-ai rag init` first"

# The one fix for an index whose first build never committed (issue 20.4): `init` again builds it
# and switches retrieval on (`rebuild` would build it and leave retrieval off).
FINISH_FIRST_BUILD = "paqad-ai rag init"
NO_COMPLETE_BUILD_MESSAGE = (f"the index has no complete build yet (the first build was interrupted or failed); "
                             f"run `{FINISH_FIRST_BUILD}` to finish it")


class IndexMissingError(PaqadError):
    """There is no index database for this project yet."""

    def __init__(self, message: str = NO_INDEX_MESSAGE) -> None:
        super().__init__(message)


class IndexBuildingError(IndexMissingError):
    """The index file exists but its first build has not finished (another process is building it)."""


class OutsideProjectError(PaqadError, ValueError):
    """A path option or argument leads outside the project root."""


class IndexStaleError(PaqadError):
    """The index was built with other settings (model, chunker, schema); ``reasons`` lists each."""

    def __init__(self, reasons: tuple[str, ...] | list[str], command: str = "paqad-ai rag rebuild") -> None:
        self.reasons = tuple(reasons)
        super().__init__(f"index is stale ({'; '.join(self.reasons)}); run `{command}`")


class IndexCorruptError(PaqadError):
    """The index database exists but cannot be read as one."""


class IndexVersionError(PaqadError):
    """The index database's schema is newer than this paqad-ai, or its vectors do not fit the model."""


class ModelMissingError(PaqadError):
    """The embedding model is not in the store and cannot be fetched (offline), or cannot be loaded."""


class ModelSpecError(PaqadError):
    """A model id, precision or remote model name paqad-ai does not know, or a model folder it cannot tell."""


class ProviderError(PaqadError):
    """A remote embedding provider (OpenAI, Voyage) could not embed; the subclass says how."""


class KeyMissingError(ProviderError):
    """A remote embedding provider's API key is in neither the environment nor ``.paqad/secrets.env``."""


class ProviderAuthError(ProviderError):
    """The provider rejected the API key (HTTP 401/403)."""


class ProviderQuotaError(ProviderError):
    """The provider refused the request because the quota or billing is exhausted."""


class ProviderRateLimitError(ProviderError):
    """The provider still rate-limited the request (HTTP 429) after every retry."""


class ProviderUnavailableError(ProviderError):
    """The provider answered 5xx, timed out or dropped the connection after every retry."""


class ProviderRequestError(ProviderError):
    """The provider rejected the request for another reason (a 4xx that is not the ones above)."""


class ProviderResponseError(ProviderError):
    """The provider's reply has the wrong shape (not one vector per input, or the wrong dimension)."""


class TeamStoreError(PaqadError):
    """The team store (PostgreSQL, DESIGN §14) cannot serve this request. ``fault`` is a
    :class:`paqad.store.team.TeamFault` value (unreachable, auth, tls, timeout, permission,
    schema, data); a build goes on locally, a ``rag publish`` / ``rag team init`` exits 2."""

    def __init__(self, message: str, fault: object = None) -> None:
        super().__init__(message)
        self.fault = fault


class Interrupted(KeyboardInterrupt):
    """Ctrl-C in a job that can say what it leaves usable (an ``init`` or ``rebuild`` that was
    embedding): ``note`` is that one line, which the CLI prints as its only interruption line
    (``paqad-ai: interrupted: the index is searchable by keywords; ...``, exit 130)."""

    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note
