"""The ``paqad`` MCP server entry in each host's project MCP file (``hooks install --mcp``).

| host | file | entry |
|---|---|---|
| Claude Code | ``.mcp.json`` | ``mcpServers.paqad`` with ``"alwaysLoad": true`` |
| Cursor | ``.cursor/mcp.json`` | ``mcpServers.paqad`` |
| Gemini CLI | ``.gemini/settings.json`` | ``mcpServers.paqad`` with ``"trust": true`` |
| Copilot CLI | ``.github/mcp.json`` | ``mcpServers.paqad`` |
| Codex | ``.codex/config.toml`` | ``[mcp_servers.paqad]`` |

The entry starts ``paqad-ai mcp`` through the same PATH-then-launcher lookup as the hooks
(:func:`paqad.hosts.launcher.mcp_launch`), so it holds no machine-specific path. Gemini CLI
offers a project server's tools in ``gemini -p`` only when the server is trusted (observed with
0.61.0); our tools are read-only, so the entry says ``"trust": true`` (Gemini then runs them
without asking). Codex reads the project's ``config.toml`` only in a trusted project, the same
condition as its hooks. An entry named ``paqad`` that is not ours is never overwritten.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paqad.errors import PaqadError, UserFileError
from paqad.hosts import MCP_SERVER_NAME, Host, tomltext
from paqad.hosts.jsonfile import JSONC_FILES, atomic_write, read_json, render_json, write_if_changed
from paqad.hosts.launcher import mcp_launch


# Codex starts MCP servers with a short list of environment variables; these carry our settings.
CODEX_ENV_VARS = ["PAQAD_HOME", "PAQAD_MODEL_MIRROR", "HF_HUB_OFFLINE"]


def entry_for(host: Host) -> dict[str, Any]:
    command, args = mcp_launch()
    entry: dict[str, Any] = {"command": command, "args": args}
    if host.name == "gemini":
        entry["trust"] = True
    if host.name == "codex":
        entry["env_vars"] = CODEX_ENV_VARS
    if host.name == "claude":
        # Claude Code 2.1 `-p` connects MCP servers without waiting, so a server still starting
        # (1 s idle, several on a busy machine) misses the first turn; "alwaysLoad" servers are
        # awaited first, up to MCP_CONNECT_TIMEOUT_MS (5 s by default). Observed with 2.1.197.
        entry["alwaysLoad"] = True
    return entry


def is_our_entry(entry: Any) -> bool:
    """An MCP server entry that runs ``paqad-ai mcp`` (any form)."""
    if not isinstance(entry, dict):
        return False
    words = [entry.get("command"), *(entry.get("args") or [])]
    text = " ".join(w for w in words if isinstance(w, str))
    return "paqad-ai mcp" in text or text.startswith("paqad-ai") or "paqad.cli.main mcp" in text


def _toml_path(host: Host) -> bool:
    return bool(host.mcp_path and host.mcp_path.endswith(".toml"))


def read_entry(host: Host, project_root: Path) -> tuple[Path, Any, str | None]:
    """``(file, entry or None, problem)`` for the host's MCP file."""
    assert host.mcp_path is not None
    path = project_root / host.mcp_path
    if _toml_path(host):
        try:
            data = tomltext.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return path, None, None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            return path, None, f"{path}: cannot read ({exc})"
        return path, tomltext.get(data, ("mcp_servers", MCP_SERVER_NAME)), None
    try:
        doc = read_json(path, comments=host.mcp_path in JSONC_FILES)
    except PaqadError as exc:
        return path, None, str(exc)
    servers = doc.data.get("mcpServers")
    return path, servers.get(MCP_SERVER_NAME) if isinstance(servers, dict) else None, None


def install_entry(host: Host, project_root: Path) -> tuple[Path, bool]:
    assert host.mcp_path is not None
    path = project_root / host.mcp_path
    entry = entry_for(host)
    if _toml_path(host):
        return path, _install_toml(path, entry)
    doc = read_json(path, comments=host.mcp_path in JSONC_FILES)
    servers = doc.data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise UserFileError(f"{path}: \"mcpServers\" is not a JSON object; fix it and retry")
    existing = servers.get(MCP_SERVER_NAME)
    if existing is not None and not is_our_entry(existing):
        raise UserFileError(f"{path}: an MCP server named {MCP_SERVER_NAME!r} that is not paqad-ai's is already there; rename it and retry")
    if existing is not None:
        entry = {**existing, **entry}  # keep the user's extra keys (env, timeout, ...) and their order
    servers[MCP_SERVER_NAME] = entry
    text = render_json(doc, doc.data, path)
    if text == doc.text:
        return path, False
    atomic_write(path, text)
    return path, True


def _install_toml(path: Path, entry: dict[str, Any]) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    try:
        existing = tomltext.get(tomltext.loads(text), ("mcp_servers", MCP_SERVER_NAME))
    except ValueError as exc:
        raise UserFileError(f"{path}: not valid TOML ({exc}); fix it and retry") from None
    if existing is not None and not is_our_entry(existing):
        raise UserFileError(f"{path}: [mcp_servers.{MCP_SERVER_NAME}] is not paqad-ai's; rename it and retry")
    new = tomltext.set_values(text, ("mcp_servers", MCP_SERVER_NAME), entry)
    return write_if_changed(path, new)


def uninstall_entry(host: Host, project_root: Path) -> tuple[Path, bool]:
    assert host.mcp_path is not None
    path = project_root / host.mcp_path
    if not path.exists():
        return path, False
    if _toml_path(host):
        text = path.read_text(encoding="utf-8")
        try:
            existing = tomltext.get(tomltext.loads(text), ("mcp_servers", MCP_SERVER_NAME))
        except ValueError:
            return path, False
        if not is_our_entry(existing):
            return path, False
        new = tomltext.remove_table(text, ("mcp_servers", MCP_SERVER_NAME))
        if not new.strip():
            path.unlink()
            _rmdir(path.parent, project_root)
        else:
            atomic_write(path, new)
        return path, True
    doc = read_json(path, comments=host.mcp_path in JSONC_FILES)
    servers = doc.data.get("mcpServers")
    if not isinstance(servers, dict) or not is_our_entry(servers.get(MCP_SERVER_NAME)):
        return path, False
    del servers[MCP_SERVER_NAME]
    if not servers:
        del doc.data["mcpServers"]
    if not doc.data and not doc.has_comments:  # a file with the user's comments in it stays
        path.unlink()
        _rmdir(path.parent, project_root)
    else:
        atomic_write(path, render_json(doc, doc.data, path))
    return path, True


def _rmdir(folder: Path, project_root: Path) -> None:
    while folder != project_root and project_root in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
