"""Service settings: config/default.yaml, then config/<env>.yaml, then LEDGERLY_* environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from ledgerly.errors import ConfigError

CONFIG_DIR = Path(__file__).resolve().parents[2] / "config"
ENV_PREFIX = "LEDGERLY_"


@dataclass(frozen=True)
class Settings:
    """Resolved settings. Nested YAML keys are flattened with "_" (``smtp: host:`` -> ``smtp_host``)."""

    environment: str
    database_url: str
    secret_key: str
    public_url: str = "http://localhost:8080"
    base_currency: str = "EUR"
    http_timeout_seconds: float = 10.0
    gateway_url: str = ""
    gateway_api_key: str = ""
    sms_api_url: str = ""
    sms_api_key: str = ""
    sms_sender_id: str = "Ledgerly"
    smtp_host: str = "localhost"
    smtp_port: int = 25
    smtp_sender: str = "billing@ledgerly.example"
    blob_bucket: str | None = None
    blob_local_root: str = "var/blobs"
    webhook_secrets: tuple[str, ...] = ()
    dunning_grace_days: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def _deep_merge(base: dict, overlay: dict) -> dict:
    merged = dict(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _flatten(tree: dict, prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, prefix=f"{name}_"))
        else:
            flat[name] = value
    return flat


def _coerce(name: str, raw: str, current: Any) -> Any:
    """Environment values are strings; convert them to the type of the value they replace."""
    try:
        if isinstance(current, bool):
            return raw.strip().lower() in {"1", "true", "yes", "on"}
        if isinstance(current, int):
            return int(raw)
        if isinstance(current, float):
            return float(raw)
        if isinstance(current, (list, tuple)):
            return tuple(part.strip() for part in raw.split(",") if part.strip())
    except ValueError as exc:
        raise ConfigError(f"{ENV_PREFIX}{name.upper()}={raw!r} is not a valid {type(current).__name__}") from exc
    return raw


def load_settings(environment: str | None = None, config_dir: Path = CONFIG_DIR) -> Settings:
    """Read the YAML layers and environment overrides into a frozen Settings; raises ConfigError."""
    env = environment or os.environ.get(f"{ENV_PREFIX}ENV", "development")
    tree = yaml.safe_load((config_dir / "default.yaml").read_text(encoding="utf-8")) or {}
    overlay_path = config_dir / f"{env}.yaml"
    if overlay_path.exists():
        tree = _deep_merge(tree, yaml.safe_load(overlay_path.read_text(encoding="utf-8")) or {})
    values = _flatten(tree)
    known = {f.name for f in fields(Settings)} - {"environment", "extra"}
    for name in known:
        raw = os.environ.get(f"{ENV_PREFIX}{name.upper()}")
        if raw is not None:
            values[name] = _coerce(name, raw, values.get(name, ""))
    kwargs = {name: value for name, value in values.items() if name in known}
    if "webhook_secrets" in kwargs:
        kwargs["webhook_secrets"] = tuple(kwargs["webhook_secrets"] or ())
    if not kwargs.get("secret_key"):
        raise ConfigError("secret_key is empty: set LEDGERLY_SECRET_KEY (at least 32 random characters)")
    extra = {name: value for name, value in values.items() if name not in known}
    return Settings(environment=env, extra=extra, **kwargs)
