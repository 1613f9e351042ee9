"""Errors a user can fix. The CLI prints them as one line and exits 2.

Anything else that escapes a command is a bug in paqad-ai, not the user's mistake: the CLI
reports it as an internal error with exit 1 (see :mod:`paqad.cli.main`).

    PaqadError
    ├── ConfigError          a bad value in a settings file or PAQAD_* variable
    ├── IndexMissingError    no index yet (run `rag init`)
    │   └── IndexBuildingError   the first build is still running
    ├── IndexStaleError      the index does not match the settings (``reasons`` say why)
    ├── IndexCorruptError    the index database cannot be read (run `rag rebuild`)
    ├── OutsideProjectError  a path given by the user leads outside the project (also a ValueError)
    ├── ModelMissingError    the embedding model is not in the store and cannot be fetched,
    │                        or its files are there but cannot be loaded (damaged)
    ├── KeyMissingError      a remote provider's API key is not set
    └── TeamStoreError       the team's embedding store cannot be used (``fault`` says why)
"""

from __future__ import annotations


class PaqadError(Exception):
    """A user error: bad option, bad config value, missing model, missing key.

    The message is one line that names the file or option and says what to do.
    """


class ConfigError(PaqadError):
    """A configuration value is invalid (names key, value, file and the allowed range)."""


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


class ModelMissingError(PaqadError):
    """The embedding model is not in the store and cannot be fetched (offline), or cannot be loaded."""


class KeyMissingError(PaqadError):
    """A remote embedding provider's API key is in neither the environment nor ``.paqad/secrets.env``."""


class TeamStoreError(PaqadError):
    """The team store (PostgreSQL, DESIGN §14) cannot serve this request. ``fault`` is a
    :class:`paqad.store.team.TeamFault` value (unreachable, auth, tls, timeout, permission,
    schema, data); a build goes on locally, a ``rag publish`` / ``rag team init`` exits 2."""

    def __init__(self, message: str, fault: object = None) -> None:
        super().__init__(message)
        self.fault = fault
