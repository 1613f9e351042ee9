"""The MCP server's stdio transport: the SDK's, with every malformed message answered.

The MCP SDK (2.3) drops a line it cannot read as a JSON-RPC message without a word (its
dispatcher logs it at DEBUG): a client waiting for the answer to a request that was not JSON,
was cut short, had no method or had ``"id": null`` hangs for ever. Here each line is checked
before the SDK sees it; one that is not a message gets the JSON-RPC 2.0 error reply
(https://www.jsonrpc.org/specification#error_object) and one line on stderr, and the server
keeps serving:

* not JSON, or a line cut short: ``-32700`` parse error, ``"id": null``;
* JSON but not a message (no ``method``, ``"id": null``, a wrong ``jsonrpc`` version, a
  batch ``[...]``, which MCP removed in its 2025-06-18 revision): ``-32600`` invalid request,
  with the request's id when it has a usable one, else ``"id": null``.

Blank lines are skipped. fd 0 and fd 1 are kept off the wire as the SDK does (stdin read
through a private duplicate, fd 0 pointed at the null device; stdout claimed by the SDK), so
nothing a library or child process prints or reads touches the MCP stream.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from io import TextIOWrapper
from typing import Any

import anyio
import mcp_types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage


class RpcError(IntEnum):
    """JSON-RPC 2.0 error codes (https://www.jsonrpc.org/specification#error_object)."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600


@dataclass(frozen=True)
class Rejection:
    """Why one input line is not a JSON-RPC message: the error code, the message sent back, and
    the id to answer with (``None``: unknown, sent as ``"id": null``)."""

    code: RpcError
    message: str
    request_id: str | int | None


def _usable_id(value: Any) -> str | int | None:
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def check_line(line: str) -> Rejection | None:
    """``None`` when ``line`` is one JSON-RPC 2.0 message the SDK accepts, else why not."""
    try:
        data = json.loads(line)
    except ValueError as exc:
        return Rejection(RpcError.PARSE_ERROR, f"Parse error: not JSON ({exc})", None)
    if isinstance(data, list):
        return Rejection(RpcError.INVALID_REQUEST,
                         "Invalid Request: JSON-RPC batches are not supported (MCP removed them); send one message per line", None)
    if not isinstance(data, dict):
        return Rejection(RpcError.INVALID_REQUEST, "Invalid Request: a message must be a JSON object", None)
    request_id = _usable_id(data.get("id"))
    if data.get("jsonrpc") != "2.0":
        return Rejection(RpcError.INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', request_id)
    if "id" in data and request_id is None:
        return Rejection(RpcError.INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer', None)
    if "method" in data and not isinstance(data["method"], str):
        return Rejection(RpcError.INVALID_REQUEST, 'Invalid Request: "method" must be a string', request_id)
    if "method" not in data and not ("id" in data and ("result" in data or "error" in data)):
        return Rejection(RpcError.INVALID_REQUEST, 'Invalid Request: no "method"', request_id)
    try:
        mcp_types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValueError as exc:  # pydantic's ValidationError: say which field, in one line
        first = exc.errors()[0] if hasattr(exc, "errors") else {"loc": (), "msg": str(exc)}
        where = ".".join(str(p) for p in first.get("loc", ())[1:]) or "message"
        return Rejection(RpcError.INVALID_REQUEST, f"Invalid Request: {where}: {first.get('msg')}", request_id)
    return None


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # json.loads joins valid pairs: what is left is alone


def without_lone_surrogates(line: str) -> str:
    """``line`` (one valid JSON message) with each lone surrogate escape (``"\\ud83d"``: half an
    emoji) decoded as U+FFFD. The SDK cannot write a reply that echoes one (no UTF-8 for it) and
    dropped it without a word, so the client waited for ever."""
    if "\\u" not in line:  # JSON writes its escapes as \\uXXXX
        return line
    text = json.dumps(json.loads(line), ensure_ascii=False)
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else line


def error_message(rejection: Rejection) -> SessionMessage:
    """The JSON-RPC error response for ``rejection``."""
    return SessionMessage(mcp_types.JSONRPCError(jsonrpc="2.0", id=rejection.request_id,
                                                 error=mcp_types.ErrorData(code=int(rejection.code), message=rejection.message)))


class CheckedLines:
    """The server's input lines, malformed ones answered through ``reply`` and left out.

    ``source``: an async iterable of text lines (the private stdin duplicate). ``reply`` is
    set once the SDK's write stream exists.
    """

    def __init__(self, source: Any) -> None:
        self._source = source
        self.reply: Callable[[SessionMessage], Any] | None = None
        self.rejected = 0

    def __aiter__(self) -> CheckedLines:
        return self

    async def __anext__(self) -> str:
        async for line in self._source:
            if not line.strip():
                continue
            rejection = check_line(line)
            if rejection is None:
                return without_lone_surrogates(line)
            self.rejected += 1
            print(f"paqad-ai mcp: answered a malformed message with error {int(rejection.code)}: {rejection.message}",
                  file=sys.stderr, flush=True)
            if self.reply is not None:
                await self.reply(error_message(rejection))
        raise StopAsyncIteration


def _claim_stdin() -> TextIOWrapper:
    """A private duplicate of fd 0 as UTF-8 text, fd 0 then reading the null device."""
    try:
        private = os.dup(0)
    except OSError:
        return TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    return TextIOWrapper(os.fdopen(private, "rb", closefd=True), encoding="utf-8", errors="replace")


async def run_stdio(server: Any) -> None:
    """Serve ``server`` (an SDK ``MCPServer``) on stdin/stdout until the client closes stdin.

    What ``MCPServer.run_stdio_async`` does in SDK 2.3, with :class:`CheckedLines` in front.
    """
    lines = CheckedLines(anyio.wrap_file(_claim_stdin()))
    lowlevel = server._lowlevel_server  # SDK 2.3: the protocol server MCPServer.run_stdio_async runs
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
        lines.reply = write_stream.send
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def run(server: Any) -> None:
    """Blocking :func:`run_stdio`."""
    anyio.run(run_stdio, server)
