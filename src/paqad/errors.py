"""Errors a user can fix. The CLI prints them as one line and exits 2."""


class PaqadError(Exception):
    """A user error: bad option, bad config value, missing model, missing key.

    The message is one line that names the file or option and says what to do.
    """


class ConfigError(PaqadError):
    """A configuration value is invalid (names key, value, file and the allowed range)."""


class ModelMissingError(PaqadError):
    """The embedding model is not in the store and cannot be fetched (offline)."""
