"""Every configuration key, its default, precedence and validation (DESIGN §4).

Precedence, highest first: environment ``PAQAD_<KEY>`` > ``.paqad/.config`` (local) >
``.paqad/configs/.config.*`` (team files, tracked; read in name order, later wins) > defaults.
Files are plain ``key=value`` lines with ``#`` comments. Unknown keys give a warning and are kept.
A bad value raises :class:`~paqad.errors.ConfigError` naming key, value, file and allowed range.
"""

from __future__ import annotations

import difflib
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from paqad.errors import ConfigError
from paqad.project import ProjectPaths
from paqad.atomic import write_text_atomic

# --- Provider and model defaults -------------------------------------------------------------
PROVIDERS = ("local", "openai", "voyageai")
DEFAULT_MODELS = {
    "local": "Xenova/all-MiniLM-L6-v2",
    "openai": "text-embedding-3-small",
    "voyageai": "voyage-code-3",
}
# Output dimensions, from each model card / provider documentation.
MODEL_DIMENSIONS = {
    "Xenova/all-MiniLM-L6-v2": 384,
    "Xenova/jina-embeddings-v2-base-code": 768,
    # Static (model2vec) models, issue 23: potion-code-16M's model card; the offline stand-in
    # distilled from MiniLM (shared/models/local/all-MiniLM-L6-v2-static256/PROVENANCE.md).
    "minishlab/potion-code-16M": 256,
    "local/all-MiniLM-L6-v2-static256": 256,
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "voyage-code-3": 1024,
}
# Which provider serves each model above (a model not listed: unknown, never judged).
MODEL_PROVIDERS = {
    "Xenova/all-MiniLM-L6-v2": "local", "Xenova/jina-embeddings-v2-base-code": "local",
    "minishlab/potion-code-16M": "local", "local/all-MiniLM-L6-v2-static256": "local",
    "text-embedding-3-small": "openai", "text-embedding-3-large": "openai", "voyage-code-3": "voyageai",
}
# Model window in word pieces: all-MiniLM-L6-v2 was trained with max_seq_length 256
# (sentence-transformers model card); jina code v2 accepts 8192 but we keep chunks small.
LOCAL_MODEL_WINDOW = {
    "Xenova/all-MiniLM-L6-v2": 256,
    "Xenova/jina-embeddings-v2-base-code": 512,
    # model2vec's default max_length (tokens, special tokens not counted)
    "minishlab/potion-code-16M": 512,
    "local/all-MiniLM-L6-v2-static256": 512,
}
LOCAL_MODEL_FILES = {"int8": "onnx/model_quantized.onnx", "fp32": "onnx/model.onnx"}

# --- Retrieval constants that are not user keys ----------------------------------------------
RRF_K = 60  # Cormack, Clarke & Buettcher (SIGIR 2009), "Reciprocal Rank Fusion outperforms..."
# rag_max_file_size's default, bytes (DESIGN §4). 1 MiB, not the original's 150 KiB (153600): on
# held-out data central hand-written files of 150-300 KB (a framework's routing module, a C++
# library's main header) were not indexed and 10 of 397 queries could only score 0; minified and
# generated files are caught by their own checks, not by size. Figures: bench/README.md
# "Ranking, round 3".
DEFAULT_MAX_FILE_SIZE = 1048576
MAX_PASSAGES = 5  # DESIGN §9
MAX_PASSAGE_CHARS = 1200  # DESIGN §9
MAX_POINTERS = 12  # DESIGN §9
MAX_RELIEF_RESULTS = 2  # DESIGN §8
# Companions: a confident answer of fewer than MAX_PASSAGES passages followed by up to this many of
# the next results in the relief band, labelled low confidence (issue 19, round 8: the right chunk is
# often the second result while the first, confident, is a neighbour; targeted delivery dev 0.700 ->
# 0.726, test 0.622 -> 0.657, bench/README.md "Round 8: the passage that answers"). 0, the confident
# results alone, because DESIGN §8.6 delivers relief results only when nothing is confident; the
# measured rule stays one constant away (the floor, delivery and `rag eval` take it as a parameter).
MAX_COMPANIONS = 0
DRIFT_INTERVAL_SECONDS = 600  # DESIGN §10
BINARY_SNIFF_BYTES = 8192  # DESIGN §5 layer 4
MIN_NON_WHITESPACE_CHARS = 50  # DESIGN §5 layer 4


def _parse_bool(raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError("true or false")


def _float_range(lo: float, hi: float) -> Callable[[str], float]:
    def parse(raw: str) -> float:
        value = float(raw)
        if not lo <= value <= hi:
            raise ValueError(f"a number from {lo} to {hi}")
        return value

    parse.allowed = f"a number from {lo} to {hi}"  # type: ignore[attr-defined]
    return parse


def _int_range(lo: int, hi: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        value = int(raw)
        if not lo <= value <= hi:
            raise ValueError(f"an integer from {lo} to {hi}")
        return value

    parse.allowed = f"an integer from {lo} to {hi}"  # type: ignore[attr-defined]
    return parse


def _choice(*options: str) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        value = raw.strip()
        if value not in options:
            raise ValueError("one of " + ", ".join(options))
        return value

    parse.allowed = "one of " + ", ".join(options)  # type: ignore[attr-defined]
    return parse


def _text(raw: str) -> str:
    return raw.strip()


TEAM_STORE_SCHEMES = ("postgresql", "postgres")  # the URI schemes libpq accepts


def _team_store_url(raw: str) -> str:
    """``rag_team_store``: empty (off) or a ``postgresql://`` URL (libpq connection URI)."""
    from urllib.parse import urlsplit

    value = raw.strip()
    if value and (urlsplit(value).scheme not in TEAM_STORE_SCHEMES or "//" not in value):
        raise ValueError("empty or a postgresql://user@host:port/database URL")
    return value


def url_password(url: str) -> str | None:
    """The password written in a ``postgresql://user:password@host/db`` URL, or None."""
    from urllib.parse import urlsplit

    try:
        return urlsplit(url).password
    except ValueError:
        return None


def redacted_url(url: str) -> str:
    """``url`` without its password (``postgresql://dev@db:5432/paqad``): what status and notes show."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit(parts._replace(netloc=user + host))


_parse_bool.allowed = "true or false"  # type: ignore[attr-defined]
_text.allowed = "any text"  # type: ignore[attr-defined]
_team_store_url.allowed = "empty or a postgresql://user@host:port/database URL"  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Key:
    """One configuration key: its default (``None`` means derived) and parser."""

    name: str
    default: Any
    parse: Callable[[str], Any]
    help: str


KEYS: dict[str, Key] = {
    k.name: k
    for k in (
        Key("rag_enabled", False, _parse_bool, "retrieval on/off (`rag init` sets it, `rag clear` unsets it)"),
        Key("rag_embedding_provider", "local", _choice(*PROVIDERS), "where chunks are embedded: on this machine, or OpenAI / Voyage AI (a changed one needs `rag rebuild`)"),
        Key("rag_embedding_model", None, _text, "embedding model id (default: the provider's: Xenova/all-MiniLM-L6-v2, text-embedding-3-small, voyage-code-3)"),
        Key("rag_embedding_precision", "int8", _choice("int8", "fp32"), "local ONNX file: int8 or fp32"),
        Key("rag_similarity_threshold", 0.75, _float_range(0.0, 1.0), "confidence floor: a passage whose calibrated confidence (\"match N%\") reaches it is delivered as confident"),
        Key("rag_relief_floor", 0.35, _float_range(0.0, 1.0), "relief floor: when nothing is confident, up to two passages at or above it, labelled low confidence"),
        Key("rag_top_n", 20, _int_range(1, 200), "fused results considered per query"),
        Key("rag_max_file_size", DEFAULT_MAX_FILE_SIZE, _int_range(1, 100 * 1024 * 1024),
            "bytes; larger files are skipped (1 MiB: central hand-written files of 150-300 KB hold answers, "
            "held-out nDCG@10 0.83 -> 0.857 with them in; 153600 is the original's 150 KiB, one setting away)"),
        Key("rag_base_branch", "", _text, "base branch for drift (empty: main, then master)"),
        Key("rag_hook_budget_ms", 1500, _int_range(50, 60000), "the most a prompt hook may take, ms (the host kills a hook past its own timeout)"),
        Key("rag_warm_process", True, _parse_bool, "keep the model loaded between prompts in a per-project process"),
        Key("rag_team_store", "", _team_store_url, "a team's shared embedding store: postgresql:// URL (empty: off)"),
        Key("rag_team_store_write", True, _parse_bool, "write vectors embedded here back to the team store"),
    )
}
ENV_KEY_PREFIX = "PAQAD_RAG_"  # every key above starts with rag_: its variable, with this prefix


@dataclass(frozen=True)
class Settings:
    """Resolved settings of one project, with where each value came from.

    ``sources`` maps each key to ``"env PAQAD_X"``, a file path relative to the project root,
    or ``"default"``. ``unknown`` holds unknown keys found in files, kept verbatim, and unknown
    ``PAQAD_RAG_*`` variables under their own names.
    """

    rag_enabled: bool
    rag_embedding_provider: str
    rag_embedding_model: str
    rag_embedding_precision: str
    rag_similarity_threshold: float
    rag_relief_floor: float
    rag_top_n: int
    rag_max_file_size: int
    rag_base_branch: str
    rag_hook_budget_ms: int
    rag_warm_process: bool = True
    rag_team_store: str = ""
    rag_team_store_write: bool = True
    sources: dict[str, str] = field(default_factory=dict, compare=False)
    unknown: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def embedding_dimension(self) -> int | None:
        """The configured model's vector length (:data:`MODEL_DIMENSIONS`), ``None`` for a model not listed."""
        return MODEL_DIMENSIONS.get(self.rag_embedding_model)


def read_config_text(path: Path) -> str | None:
    """The text of the config file ``path``, None when there is none; ConfigError naming the file
    and the fix when it cannot be read (not UTF-8, permission denied, a file where ``.paqad`` is)."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except NotADirectoryError as exc:  # `.paqad` (or `.paqad/configs`) is a file: name it, not the key file
        blocker = next((p for p in path.parents if p.is_file()), path.parent)
        raise ConfigError(f"{blocker}: a file where paqad-ai keeps a folder (settings, index); "
                          "move or delete it, then run the command again") from exc
    except UnicodeDecodeError as exc:  # the line, not the byte offset, is what an editor shows
        line = exc.object[:exc.start].count(b"\n") + 1
        raise ConfigError(f"{path}: line {line} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x}); "
                          "rewrite that line in UTF-8 or delete it") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config file ({exc}); fix or delete it") from exc


def read_config_file(path: Path) -> dict[str, str]:
    """Parse ``key=value`` lines; ``#`` starts a comment. Returns raw strings."""
    values: dict[str, str] = {}
    text = read_config_text(path)
    if text is None:
        return values
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if "=" not in stripped:
            warnings.warn(f"{path}:{number}: ignored line {stripped[:40]!r} (expected key=value)", UserWarning, stacklevel=2)
            continue
        key, _, value = stripped.partition("=")
        if " #" in value:
            value = value.split(" #", 1)[0]
        values[key.strip()] = value.strip().strip('"').strip("'")
    return values


def _layers(paths: ProjectPaths, environ: dict[str, str]) -> list[tuple[str, dict[str, str]]]:
    """Config layers from lowest to highest precedence, each as (source label, raw values)."""
    layers: list[tuple[str, dict[str, str]]] = []
    if paths.team_config_dir.is_dir():
        for team in sorted(paths.team_config_dir.glob(".config.*")):
            layers.append((team.relative_to(paths.root).as_posix(), read_config_file(team)))
    layers.append((paths.local_config.relative_to(paths.root).as_posix(), read_config_file(paths.local_config)))
    env_values = {}
    for name in KEYS:
        env_name = "PAQAD_" + name.upper()
        if env_name in environ:
            env_values[name] = environ[env_name]
    # A misspelt variable (PAQAD_RAG_TOPN) under its own name, for load_settings to warn about:
    # every key starts with rag_, so PAQAD_RAG_* is ours (PAQAD_HOME and the others are not keys).
    known = {"PAQAD_" + name.upper() for name in KEYS}
    env_values.update({n: v for n, v in environ.items() if n.startswith(ENV_KEY_PREFIX) and n not in known})
    layers.append(("env", env_values))
    return layers


def load_settings(root: Path | ProjectPaths, environ: dict[str, str] | None = None) -> Settings:
    """Resolve every key for the project at ``root``.

    Raises ConfigError for a bad value. Unknown keys in files produce a ``UserWarning``.
    """
    paths = root if isinstance(root, ProjectPaths) else ProjectPaths(Path(root))
    environ = dict(os.environ if environ is None else environ)
    values: dict[str, Any] = {name: key.default for name, key in KEYS.items()}
    sources = {name: "default" for name in KEYS}
    unknown: dict[str, str] = {}
    for label, raw_values in _layers(paths, environ):
        for name, raw in raw_values.items():
            if name not in KEYS:
                unknown[name] = raw
                if label == "env":  # PAQAD_RAG_TOPN: point to the variable, not the file key
                    close = difflib.get_close_matches(name[len("PAQAD_"):].lower(), KEYS, n=1)
                    hint = f"; did you mean PAQAD_{close[0].upper()}?" if close else ""
                    warnings.warn(f"environment variable {name}: no such config key (ignored){hint}", UserWarning,
                                  stacklevel=2)
                    continue
                close = difflib.get_close_matches(name.lower(), KEYS, n=1)  # RAG_TOP_N: keys are lower case
                hint = f"; did you mean {close[0]}?" if close else ""
                warnings.warn(f"{label}: unknown config key '{name}' (kept, ignored){hint}", UserWarning, stacklevel=2)
                continue
            key = KEYS[name]
            where = f"environment variable PAQAD_{name.upper()}" if label == "env" else label
            try:
                values[name] = key.parse(raw)
            except ValueError:
                allowed = getattr(key.parse, "allowed", "a valid value")
                raise ConfigError(f"{where}: {name}={raw!r} is not valid; allowed: {allowed}") from None
            sources[name] = f"env PAQAD_{name.upper()}" if label == "env" else label
    _refuse_stored_password(values["rag_team_store"], sources["rag_team_store"])
    if not values["rag_embedding_model"]:
        values["rag_embedding_model"] = DEFAULT_MODELS[values["rag_embedding_provider"]]
        sources["rag_embedding_model"] = f"default for provider {values['rag_embedding_provider']}"
    if values["rag_relief_floor"] > values["rag_similarity_threshold"]:
        source = sources["rag_relief_floor"]
        where = f"environment variable {source[len('env '):]}" if source.startswith("env ") else source
        raise ConfigError(
            f"{where}: rag_relief_floor={values['rag_relief_floor']} is above "
            f"rag_similarity_threshold={values['rag_similarity_threshold']}; allowed: at most the threshold"
        )
    return Settings(**values, sources=sources, unknown=unknown)


def _refuse_stored_password(url: str, source: str) -> None:
    """A team store password never sits in a settings file (team files are committed)."""
    if url and source != "env PAQAD_RAG_TEAM_STORE" and url_password(url) is not None:
        raise ConfigError(
            f"{source}: rag_team_store holds a password; remove it from the URL and put "
            "PAQAD_TEAM_STORE_PASSWORD=... in .paqad/secrets.env (mode 0600) or the environment")


def write_local_values(paths: ProjectPaths, updates: dict[str, Any]) -> None:
    """Set keys in ``.paqad/.config``, keeping other lines and comments as they are."""
    paths.paqad_dir.mkdir(parents=True, exist_ok=True)
    text = read_config_text(paths.local_config)
    lines = (["# paqad-ai local settings (git-ignored). See README for every key."] if text is None
             else text.splitlines())
    pending = {k: _format(v) for k, v in updates.items()}
    out = []
    for line in lines:
        stripped = line.strip()
        key = stripped.partition("=")[0].strip() if "=" in stripped and not stripped.startswith("#") else None
        if key in pending:
            out.append(f"{key}={pending.pop(key)}")
        else:
            out.append(line)
    out.extend(f"{k}={v}" for k, v in pending.items())
    write_text_atomic(paths.local_config, "\n".join(out) + "\n")


@dataclass(frozen=True)
class KeyInfo:
    """One key as ``paqad-ai config list`` shows it: its resolved ``value`` (as written in a
    config file), ``source`` (``default``, a file relative to the project root, ``env PAQAD_X``),
    ``default``, ``allowed`` values and ``help`` text (:data:`KEYS`)."""

    name: str
    value: str
    source: str
    default: str
    allowed: str
    help: str

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "value": self.value, "source": self.source, "default": self.default,
                "allowed": self.allowed, "help": self.help}


def describe_keys(settings: Settings) -> tuple[KeyInfo, ...]:
    """Every key of :data:`KEYS`, in order, with its value and source in ``settings``."""
    return tuple(
        KeyInfo(name, _format(getattr(settings, name)), settings.sources.get(name, "default"),
                "(the provider's)" if key.default is None else _format(key.default),
                getattr(key.parse, "allowed", "a valid value"), key.help)
        for name, key in KEYS.items())


def checked_key(name: str) -> Key:
    """The key called ``name``; ConfigError naming the closest key for an unknown one."""
    if name in KEYS:
        return KEYS[name]
    close = difflib.get_close_matches(name.lower(), KEYS, n=1)
    hint = f"; did you mean {close[0]}?" if close else "; `paqad-ai config list` shows every key"
    raise ConfigError(f"{name}: no such config key{hint}")


def set_local_value(paths: ProjectPaths, name: str, raw: str) -> Settings:
    """Validate ``raw`` for the key ``name`` and write it to ``.paqad/.config`` (other lines kept).

    Raises ConfigError for an unknown key or a bad value (naming the allowed values), and for a
    value the other settings refuse (a relief floor above the threshold): then nothing is
    written. Writes ``.paqad/.gitignore`` too when missing (the local file stays git-ignored). Returns the settings as they resolve afterwards (an environment variable still wins).
    """
    key = checked_key(name)
    try:
        value = key.parse(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not valid; allowed: {getattr(key.parse, 'allowed', 'a valid value')}") from None
    if name == "rag_team_store":  # refused before the write: a password never touches the disk
        _refuse_stored_password(value, paths.local_config.relative_to(paths.root).as_posix())
    before = read_config_text(paths.local_config)
    updates = {name: raw.strip()}
    if name == "rag_embedding_model" and MODEL_PROVIDERS.get(value) not in (None, provider := load_settings(paths).rag_embedding_provider):
        raise ConfigError(f"rag_embedding_model={value} is a {MODEL_PROVIDERS[value]} model and rag_embedding_provider is "
                          f"{provider}; run `paqad-ai config set rag_embedding_provider {MODEL_PROVIDERS[value]}` first")
    if name == "rag_embedding_provider":
        updates.update(_model_for_provider(paths, value))
    write_local_values(paths, updates)
    ensure_paqad_gitignore(paths)  # before any `rag init`: .paqad/.config is this machine's, never committed
    try:
        return load_settings(paths)
    except ConfigError:
        if before is None:
            paths.local_config.unlink()
        else:
            write_text_atomic(paths.local_config, before)
        raise


def _model_for_provider(paths: ProjectPaths, provider: str) -> dict[str, str]:
    """What to write beside a new ``rag_embedding_provider``, as ``rag init --provider`` does: that
    provider's default model when the model a settings file names is another provider's
    (:data:`MODEL_PROVIDERS`; round 11: `config set rag_embedding_provider openai` kept
    Xenova/all-MiniLM-L6-v2, which OpenAI does not serve, and the rebuild it asked for would have
    failed); else nothing (a default model follows the provider by itself, an environment
    variable wins anyway, a model not listed is not judged)."""
    current = load_settings(paths)
    model, source = current.rag_embedding_model, current.sources.get("rag_embedding_model", "default")
    if source.startswith(("default", "env ")) or MODEL_PROVIDERS.get(model, provider) == provider:
        return {}
    return {"rag_embedding_model": DEFAULT_MODELS[provider]}


def unset_local_value(paths: ProjectPaths, name: str) -> bool:
    """Remove ``name`` from ``.paqad/.config`` (comments and other lines kept); True when it was set there."""
    checked_key(name)
    text = read_config_text(paths.local_config)
    if text is None:
        return False
    lines = text.splitlines()
    kept = [line for line in lines
            if line.strip().startswith("#") or line.strip().partition("=")[0].strip() != name or "=" not in line]
    if len(kept) == len(lines):
        return False
    write_text_atomic(paths.local_config, "\n".join(kept) + "\n")
    return True


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


PAQAD_GITIGNORE = "# written by paqad-ai: local state, never commit\nvectors/\nsecrets.env\n.config\ncontext/\nlogs/\nstate/\n"


def ensure_paqad_gitignore(paths: ProjectPaths) -> None:
    """Write ``.paqad/.gitignore`` (vectors, secrets, local config and runtime state)."""
    paths.paqad_dir.mkdir(parents=True, exist_ok=True)
    # surrogateescape: a byte that is not UTF-8 (a Latin-1 comment) is kept as it was, not a crash
    existing = paths.gitignore.read_text(encoding="utf-8", errors="surrogateescape") if paths.gitignore.exists() else ""
    missing = [line for line in PAQAD_GITIGNORE.splitlines() if line and not line.startswith("#") and line not in existing.splitlines()]
    if not existing:
        paths.gitignore.write_text(PAQAD_GITIGNORE, encoding="utf-8")
    elif missing:
        paths.gitignore.write_text(existing.rstrip("\n") + "\n" + "\n".join(missing) + "\n", encoding="utf-8",
                                   errors="surrogateescape")


def paqad_home(environ: dict[str, str] | None = None) -> Path:
    """``PAQAD_HOME`` or ``~/.paqad``: the per-user model store lives under it."""
    env = os.environ if environ is None else environ
    return Path(env.get("PAQAD_HOME") or Path.home() / ".paqad")


def model_mirror(environ: dict[str, str] | None = None) -> Path | None:
    """``PAQAD_MODEL_MIRROR``: a local folder laid out as ``DIR/<repo id>/...``, or None."""
    env = os.environ if environ is None else environ
    value = env.get("PAQAD_MODEL_MIRROR")
    return Path(value) if value else None
