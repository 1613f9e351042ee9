"""``paqad-ai config list|get|set|unset``: every settings key with its help text; parse, call config.py, print."""

from __future__ import annotations

import json
from pathlib import Path

import click

from paqad.cli.options import project_root_option, resolve_paths
from paqad.config import KEYS, checked_key, describe_keys, load_settings, set_local_value, unset_local_value


def _keys_epilog() -> str:
    """The keys and their help texts, for ``config --help`` (click keeps ``\\b`` paragraphs as written)."""
    lines = ["\b", "Keys (default; meaning):"]
    for key in KEYS.values():
        default = "the provider's" if key.default is None else str(key.default).lower() if isinstance(key.default, bool) \
            else (str(key.default) or "empty")
        lines.append(f"  {key.name} ({default}): {key.help}")
    return "\n".join(lines)


@click.group(epilog=_keys_epilog())
def config() -> None:
    """Show and change settings: every key, its value, where it came from, its help text.

    Precedence: environment PAQAD_<KEY> > .paqad/.config (this machine's, git-ignored) >
    .paqad/configs/.config.* (team files, tracked) > defaults. `set` and `unset` write
    .paqad/.config only.

    \b
    Examples:
      paqad-ai config list
      paqad-ai config set rag_max_file_size 153600
      paqad-ai config unset rag_max_file_size
    """


@config.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout (a list of keys).")
@project_root_option
def list_cmd(as_json: bool, project_root: Path | None) -> None:
    """Every key: its value, where it came from, the allowed values and what it does.

    \b
    Example:
      paqad-ai config list
    """
    infos = describe_keys(load_settings(resolve_paths(project_root)))
    if as_json:
        click.echo(json.dumps([info.to_dict() for info in infos], indent=2))
        return
    for info in infos:
        click.echo(f"{info.name} = {info.value or '(empty)'}   [{info.source}]")
        click.echo(f"    {info.help}")
        click.echo(f"    allowed: {info.allowed}; default: {info.default}")


@config.command("get")
@click.argument("key")
@project_root_option
def get_cmd(key: str, project_root: Path | None) -> None:
    """Print one key's value (as a config file writes it).

    \b
    Example:
      paqad-ai config get rag_hook_budget_ms
    """
    checked_key(key)
    settings = load_settings(resolve_paths(project_root))
    info = next(i for i in describe_keys(settings) if i.name == key)
    click.echo(info.value)


# a VALUE such as -3 is the value (it was "No such option '-3'"), for the key's check to judge
@config.command("set", context_settings={"ignore_unknown_options": True})
@click.argument("key")
@click.argument("value")
@project_root_option
def set_cmd(key: str, value: str, project_root: Path | None) -> None:
    """Check VALUE and write KEY=VALUE to .paqad/.config (other lines and comments kept).

    \b
    Example:
      paqad-ai config set rag_similarity_threshold 0.8
    """
    from paqad.store.state import index_state

    paths = resolve_paths(project_root)
    model_before = load_settings(paths).rag_embedding_model if key == "rag_embedding_provider" else None
    settings = set_local_value(paths, key, value)
    source = settings.sources.get(key, "")
    click.echo(f"{key}={value.strip()} written to .paqad/.config")
    if model_before is not None and settings.rag_embedding_model != model_before:
        click.echo(f"rag_embedding_model={settings.rag_embedding_model} written too ({settings.rag_embedding_provider} "
                   f"does not serve {model_before}; `paqad-ai config set rag_embedding_model ID` for another)")
    if source.startswith("env "):
        click.echo(f"paqad-ai: warning: {source[len('env '):]} is set and wins over .paqad/.config "
                   f"(now {key}={getattr(settings, key)})", err=True)
    state = index_state(paths, settings)
    if state.present and not state.valid:  # a new provider, model or precision: probe refuses until rebuilt
        click.echo(f"paqad-ai: warning: the index is stale ({'; '.join(state.reasons)}); run `paqad-ai rag rebuild`",
                   err=True)


@config.command("unset")
@click.argument("key")
@project_root_option
def unset_cmd(key: str, project_root: Path | None) -> None:
    """Remove KEY from .paqad/.config (team files, the environment, then the default apply).

    \b
    Example:
      paqad-ai config unset rag_top_n
    """
    paths = resolve_paths(project_root)
    removed = unset_local_value(paths, key)
    settings = load_settings(paths)
    info = next(i for i in describe_keys(settings) if i.name == key)
    what = "removed from .paqad/.config" if removed else "not set in .paqad/.config"
    click.echo(f"{key}: {what}; now {info.value or '(empty)'} [{info.source}]")


def register(group: click.Group) -> None:
    """Add ``config`` to ``group``: the top level (``paqad-ai config``) or ``rag`` (``paqad-ai rag
    config``, where DESIGN §3 puts every command), the same command in both."""
    group.add_command(config)
