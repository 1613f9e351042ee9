"""API keys for remote embedding providers: lookup, storage and redaction (DESIGN §4).

Keys come from the environment first (``OPENAI_API_KEY``, ``VOYAGE_API_KEY``), else from
``.paqad/secrets.env`` (plain ``NAME=value`` lines, ``#`` comments, optional ``export``
prefix and quotes). The file is created with mode 0600 and never widened; a looser existing
mode gets a warning. A key never appears in a repr, an exception, a log record or output:
:func:`redact` scrubs text, and :func:`guard_sdk_logs` scrubs the provider SDKs' log records.
"""

from __future__ import annotations

import getpass
import logging
import os
import stat
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from paqad.config import ensure_paqad_gitignore
from paqad.errors import KeyMissingError, UsageError, UserFileError
from paqad.project import ProjectPaths
from paqad.atomic import write_text_atomic

# Environment variable each provider's SDK documents for its key.
KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "voyageai": "VOYAGE_API_KEY"}

SECRETS_FILE_LABEL = ".paqad/secrets.env"
REDACTED = "[redacted]"

# Loggers of the provider SDKs and their HTTP stacks. Records logged to these are scrubbed of
# every key we have handed out (Voyage's SDK logs the server's error text at INFO).
# Filters on a logger do not see its children's records, so the emitting loggers are named.
_SDK_LOGGERS = (
    "openai",
    "openai._base_client",
    "httpx",
    "httpx2",
    "httpcore.http11",
    "httpcore2.http11",
    "voyage",
    "urllib3.connectionpool",
)


@dataclass(frozen=True)
class KeyLookup:
    """Where a provider's key was found.

    ``variable`` is the key's name (``OPENAI_API_KEY``); ``value`` the key or None (hidden from
    the repr); ``source`` is ``"environment"``, ``".paqad/secrets.env"`` or None (not found).
    """

    variable: str
    value: str | None = field(repr=False)
    source: str | None

    @property
    def found(self) -> bool:
        return bool(self.value)


def key_variable(provider: str) -> str:
    """The environment variable holding ``provider``'s key. Raises PaqadError for an unknown provider."""
    try:
        return KEY_VARIABLES[provider]
    except KeyError:
        raise UsageError(
            f"provider '{provider}' takes no API key; remote providers are: {', '.join(KEY_VARIABLES)}"
        ) from None


def missing_key_message(variable: str) -> str:
    """The one-line error for a missing key, naming the variable and the file."""
    return f"{variable} is not set: export it or put {variable}=... in {SECRETS_FILE_LABEL} (mode 0600)"


def read_secrets_file(path: Path) -> dict[str, str]:
    """Parse ``NAME=value`` lines of a secrets file. Returns {} when the file is missing.

    Raises PaqadError when the file exists but cannot be read (the message never quotes content).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise UserFileError(f"{path}: cannot read secrets file ({type(exc).__name__}); fix its permissions or delete it") from None
    values: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or "=" not in stripped:
            continue
        if stripped.startswith("export "):
            stripped = stripped[len("export ") :]
        name, _, value = stripped.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[name.strip()] = value
    return values


def _is_loose(mode: int) -> bool:
    """True when group or others have any permission bit (looser than 0600)."""
    return os.name == "posix" and bool(stat.S_IMODE(mode) & 0o077)


def find_key(paths: ProjectPaths, provider: str, environ: Mapping[str, str] | None = None) -> KeyLookup:
    """Look up ``provider``'s key: environment first, then ``.paqad/secrets.env``.

    An empty value counts as not set. When the key comes from a secrets file whose mode is
    looser than 0600, a ``UserWarning`` naming the file and the fix is issued (Python shows a
    given warning once). Raises PaqadError for an unknown provider or an unreadable file.
    """
    variable = key_variable(provider)
    env = os.environ if environ is None else environ
    value = env.get(variable)
    if value:
        return KeyLookup(variable, value, "environment")
    path = paths.secrets_file
    stored = read_secrets_file(path).get(variable)
    if not stored:
        return KeyLookup(variable, None, None)
    mode = path.stat().st_mode
    if _is_loose(mode):
        warnings.warn(
            f"{path}: mode {stat.S_IMODE(mode):04o} lets other users read your API key; run: chmod 600 {path}",
            UserWarning,
            stacklevel=2,
        )
    return KeyLookup(variable, stored, SECRETS_FILE_LABEL)


# The team store's password (DESIGN §14): never in a settings file. libpq's own PGPASSWORD and
# ~/.pgpass work too (libpq reads them when this one is not set).
TEAM_STORE_PASSWORD = "PAQAD_TEAM_STORE_PASSWORD"


def find_team_store_password(paths: ProjectPaths, environ: Mapping[str, str] | None = None) -> KeyLookup:
    """``PAQAD_TEAM_STORE_PASSWORD`` from the environment, else from ``.paqad/secrets.env``.

    Not found (``value`` None) is not an error: libpq then tries ``PGPASSWORD`` and ``~/.pgpass``.
    A secrets file looser than 0600 gets the same warning as for an API key.
    """
    env = os.environ if environ is None else environ
    if env.get(TEAM_STORE_PASSWORD):
        return KeyLookup(TEAM_STORE_PASSWORD, env[TEAM_STORE_PASSWORD], "environment")
    stored = read_secrets_file(paths.secrets_file).get(TEAM_STORE_PASSWORD)
    if not stored:
        return KeyLookup(TEAM_STORE_PASSWORD, None, None)
    mode = paths.secrets_file.stat().st_mode
    if _is_loose(mode):
        warnings.warn(f"{paths.secrets_file}: mode {stat.S_IMODE(mode):04o} lets other users read your team store "
                      f"password; run: chmod 600 {paths.secrets_file}", UserWarning, stacklevel=2)
    return KeyLookup(TEAM_STORE_PASSWORD, stored, SECRETS_FILE_LABEL)


def store_key(paths: ProjectPaths, provider: str, key: str) -> Path:
    """Write ``provider``'s key into ``.paqad/secrets.env``; other lines are kept.

    A new file is created with mode 0600 (``os.open(..., 0o600)``, so it is never readable by
    others, not even for a moment). An existing file is rewritten atomically with its own mode
    if that is stricter, else 0600: the mode is never widened. Also makes sure
    ``.paqad/.gitignore`` lists ``secrets.env``. Returns the file's path.
    Raises PaqadError for an unknown provider or a key with a line break.
    """
    variable = key_variable(provider)
    key = key.strip()
    if not key or "\n" in key or "\r" in key:
        raise UsageError(f"{variable}: the key is empty or spans lines; paste the key on one line")
    paths.paqad_dir.mkdir(parents=True, exist_ok=True)
    ensure_paqad_gitignore(paths)
    path = paths.secrets_file
    try:
        old_mode = stat.S_IMODE(path.stat().st_mode)
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        old_mode = None
        lines = ["# API keys for paqad-ai remote embeddings. Never commit this file (mode 0600)."]
    except (OSError, UnicodeDecodeError) as exc:
        raise UserFileError(f"{path}: cannot read secrets file ({type(exc).__name__}); fix its permissions or delete it") from None
    # Owner read/write at most; owner read always (a file we cannot read back is useless).
    new_mode = 0o600 if old_mode is None else (old_mode & 0o600) | stat.S_IRUSR
    out: list[str] = []
    replaced = False
    for line in lines:
        stripped = line.strip()
        name = stripped.removeprefix("export ").partition("=")[0].strip() if "=" in stripped else None
        if name == variable and not stripped.startswith("#"):
            if not replaced:
                out.append(f"{variable}={key}")
                replaced = True
            continue
        out.append(line)
    if not replaced:
        out.append(f"{variable}={key}")
    # The temp file is 0600 until it gets new_mode: a stricter old mode (e.g. 0400) is kept, a
    # looser one narrowed to 0600.
    write_text_atomic(path, "\n".join(out) + "\n", mode=new_mode)
    return path


def require_key(paths: ProjectPaths, provider: str, *, interactive: bool) -> str:
    """Return ``provider``'s key, asking for it on a terminal when none is set.

    ``interactive``: prompt with hidden input (``getpass``) and save the answer with
    :func:`store_key`; a note saying where it went is printed to stderr. Otherwise, or when the
    answer is empty, raise KeyMissingError naming the variable and the file.
    """
    lookup = find_key(paths, provider)
    if lookup.value:
        return lookup.value
    variable = lookup.variable
    message = missing_key_message(variable)
    if not interactive:
        raise KeyMissingError(message)
    key = getpass.getpass(f"{variable} (input hidden; saved to {SECRETS_FILE_LABEL}, mode 0600): ").strip()
    if not key:
        raise KeyMissingError(message)
    stored = store_key(paths, provider, key)
    guard_sdk_logs(key)
    print(f"saved {variable} to {stored.relative_to(paths.root).as_posix()} (mode 0600)", file=sys.stderr)
    return key


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """Replace every occurrence of each non-empty secret in ``text`` with ``[redacted]``.

    Longer secrets are replaced first so a key that contains another is fully hidden.
    """
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


class _RedactingFilter(logging.Filter):
    """Scrubs known keys from log records of the SDK loggers it is attached to."""

    def __init__(self) -> None:
        super().__init__("paqad-redact")
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            try:
                message = record.getMessage()
            except Exception:  # a malformed record: leave it to logging's own error path
                return True
            cleaned = redact(message, self.secrets)
            if cleaned != message:
                record.msg, record.args = cleaned, None
        return True


_FILTER = _RedactingFilter()


def known_secrets() -> frozenset[str]:
    """Every key handed to :func:`guard_sdk_logs` in this process (to redact from any message)."""
    return frozenset(_FILTER.secrets)


def guard_sdk_logs(secret: str) -> None:
    """Scrub ``secret`` from every record the provider SDK loggers emit from now on.

    Idempotent. The filter holds the secret only in memory; it never writes it anywhere.
    """
    if not secret:
        return
    _FILTER.secrets.add(secret)
    for name in _SDK_LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
