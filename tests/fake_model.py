"""A fake model endpoint on 127.0.0.1 that records every request, for the host CLI tests.

It answers in the wire format the path implies, enough for each host CLI to finish a turn:

* Anthropic Messages  ``POST /v1/messages`` (SSE or JSON), ``/v1/messages/count_tokens`` (Claude Code)
* OpenAI Responses    ``POST /v1/responses`` (SSE or JSON) (Codex)
* OpenAI Chat         ``POST /v1/chat/completions`` (SSE or JSON) (Copilot CLI, BYOK)
* Gemini              ``POST /v1beta/models/M:streamGenerateContent`` (SSE), ``:generateContent``,
  ``:countTokens`` (Gemini CLI; a request with a response schema gets an object built from it)
* ``GET */models`` and anything else: ``200 {}``

``tool_call=(suffix, arguments)`` makes a request that offers a tool whose name ends with
``suffix`` (hosts prefix MCP tools: ``mcp__paqad__search_code``, ``mcp_paqad_search_code``, ...)
and holds no tool result yet get a call of that tool instead of text, in the wire format of the
path (Anthropic ``tool_use``, Responses ``function_call``, Chat ``tool_calls``, Gemini
``functionCall``); the host runs the tool (an MCP server) and sends the result back next.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY = "OK"


def _sse(events: list[tuple[str | None, dict]]) -> bytes:
    out = []
    for name, data in events:
        if name:
            out.append(f"event: {name}\n")
        out.append(f"data: {json.dumps(data)}\n\n")
    return "".join(out).encode()


def _names(value: Any, namespace: str | None = None) -> list[tuple[str, str | None]]:
    """Every ``"name"`` string anywhere in ``value`` (tool declarations of any wire format), with
    the Responses ``namespace`` it is declared in (Codex declares an MCP server's tools as
    ``{"type": "namespace", "name": "mcp__paqad", "tools": [...]}``), else ``None``."""
    if isinstance(value, dict):
        if value.get("type") == "namespace" and isinstance(value.get("name"), str):
            return _names(value.get("tools") or [], value["name"])
        own = [(value["name"], namespace)] if isinstance(value.get("name"), str) else []
        return own + [n for v in value.values() for n in _names(v, namespace)]
    if isinstance(value, list):
        return [n for v in value for n in _names(v, namespace)]
    return []


def _tool_to_call(body: dict, tool_call: tuple[str, dict] | None, answered_marker: str) -> tuple[str, dict, str | None] | None:
    """``(offered tool name, arguments, namespace)`` when this request should get a tool call."""
    if not tool_call:
        return None
    suffix, arguments = tool_call
    offered = [(n, ns) for n, ns in _names(body.get("tools") or []) if n.endswith(suffix)]
    history = json.dumps({k: v for k, v in body.items() if k != "tools"})
    return (offered[0][0], arguments, offered[0][1]) if offered and answered_marker not in history else None


def _anthropic(body: dict, tool_call: tuple[str, dict] | None) -> tuple[str, bytes]:
    usage = {"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    msg = {"id": "msg_fake", "type": "message", "role": "assistant", "model": body.get("model", "claude-fake"), "content": [],
           "stop_reason": None, "stop_sequence": None, "usage": usage}
    call = _tool_to_call(body, tool_call, '"tool_result"')
    if call:
        name, arguments, _ = call
        tool_call = (name, arguments)
        block = {"type": "tool_use", "id": "toolu_fake1", "name": name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(arguments)}
        stop = "tool_use"
    else:
        block, delta, stop = {"type": "text", "text": ""}, {"type": "text_delta", "text": REPLY}, "end_turn"
    if not body.get("stream"):
        content = [{**block, "input": tool_call[1]} if stop == "tool_use" and tool_call else {"type": "text", "text": REPLY}]
        return "application/json", json.dumps({**msg, "content": content, "stop_reason": stop}).encode()
    return "text/event-stream", _sse([
        ("message_start", {"type": "message_start", "message": msg}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 1}}),
        ("message_stop", {"type": "message_stop"}),
    ])


def _responses(body: dict, tool_call: tuple[str, dict] | None) -> tuple[str, bytes]:
    item = {"type": "message", "id": "msg_fake", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": REPLY, "annotations": []}]}
    call = _tool_to_call(body, tool_call, '"function_call_output"')
    if call:
        item = {"type": "function_call", "id": "fc_fake1", "call_id": "call_fake1", "status": "completed", "name": call[0],
                "arguments": json.dumps(call[1]), **({"namespace": call[2]} if call[2] else {})}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 11}
    base = {"id": "resp_fake", "object": "response", "created_at": int(time.time()), "model": body.get("model", "gpt-fake")}
    if not body.get("stream"):
        return "application/json", json.dumps({**base, "status": "completed", "output": [item], "usage": usage}).encode()
    return "text/event-stream", _sse([
        ("response.created", {"type": "response.created", "response": {**base, "status": "in_progress", "output": []}}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                        "item": {**item, "status": "in_progress", "content": []}}),
        *([] if call else [("response.output_text.delta", {"type": "response.output_text.delta", "item_id": "msg_fake",
                                                            "output_index": 0, "content_index": 0, "delta": REPLY})]),
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": {**base, "status": "completed", "output": [item], "usage": usage}}),
    ])


def _chat(body: dict, tool_call: tuple[str, dict] | None) -> tuple[str, bytes]:
    model = body.get("model", "gpt-fake")
    usage = {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
    call = _tool_to_call(body, tool_call, '"role": "tool"')
    if call:
        calls = [{"index": 0, "id": "call_fake1", "type": "function", "function": {"name": call[0], "arguments": json.dumps(call[1])}}]
        chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
        if not body.get("stream"):
            return "application/json", json.dumps({
                "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model, "usage": usage,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": calls}, "finish_reason": "tool_calls"}],
            }).encode()
        return "text/event-stream", _sse([
            (None, {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": None, "tool_calls": calls}, "finish_reason": None}]}),
            (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}], "usage": usage}),
        ]) + b"data: [DONE]\n\n"
    if not body.get("stream"):
        return "application/json", json.dumps({
            "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY}, "finish_reason": "stop"}], "usage": usage,
        }).encode()
    chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
    return "text/event-stream", _sse([
        (None, {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": REPLY}, "finish_reason": None}]}),
        (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage}),
    ]) + b"data: [DONE]\n\n"


def _sample(schema: dict) -> Any:
    """A minimal value satisfying a (Gemini-style, any case) JSON schema."""
    kind = str(schema.get("type", "object")).lower()
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "object":
        return {k: _sample(v) for k, v in (schema.get("properties") or {}).items()}
    return {"array": [], "integer": 1, "number": 1, "boolean": False}.get(kind, "x")


def _gemini(path: str, body: dict, tool_call: tuple[str, dict] | None) -> tuple[str, bytes]:
    if ":countTokens" in path:
        return "application/json", b'{"totalTokens": 10}'
    config = body.get("generationConfig") or body.get("config") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    text = json.dumps(_sample(schema)) if schema else "{}" if config.get("responseMimeType") == "application/json" else REPLY
    call = None if schema else _tool_to_call(body, tool_call, '"functionResponse"')
    parts: list[dict] = [{"functionCall": {"name": call[0], "args": call[1]}}] if call else [{"text": text}]
    resp = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11}, "modelVersion": "gemini-fake"}
    if ":streamGenerateContent" in path:
        return "text/event-stream", f"data: {json.dumps(resp)}\r\n\r\n".encode()
    return "application/json", json.dumps(resp).encode()


class FakeModelServer:
    """``with FakeModelServer() as server:`` serves on ``server.url``; ``server.requests`` is the
    list of recorded requests (``method``, ``path``, ``headers``, ``body``)."""

    def __init__(self, tool_call: tuple[str, dict] | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.tool_call = tool_call
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, fmt: str, *args: object) -> None:
                pass

            def _record(self, raw: bytes) -> Any:
                try:
                    body: Any = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                with owner._lock:
                    owner.requests.append({"method": self.command, "path": self.path, "headers": dict(self.headers.items()), "body": body})
                return body

            def _send(self, ctype: str, payload: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _body(self) -> bytes:
                n = int(self.headers.get("Content-Length") or 0)
                if n:
                    return self.rfile.read(n)
                data = b""
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    while True:
                        size = int(self.rfile.readline().strip() or b"0", 16)
                        if size == 0:
                            self.rfile.readline()
                            break
                        data += self.rfile.read(size)
                        self.rfile.readline()
                return data

            def do_HEAD(self) -> None:
                self._record(b"")
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                self._record(b"")
                self._send("application/json", b'{"object":"list","data":[],"models":[]}' if self.path.split("?")[0].endswith("/models") else b"{}")

            def do_POST(self) -> None:
                body = self._record(self._body())
                body = body if isinstance(body, dict) else {}
                p = self.path.split("?")[0]
                if p.endswith("/messages/count_tokens"):
                    self._send("application/json", b'{"input_tokens": 10}')
                elif p.endswith("/messages"):
                    self._send(*_anthropic(body, owner.tool_call))
                elif p.endswith("/responses"):
                    self._send(*_responses(body, owner.tool_call))
                elif p.endswith("/chat/completions"):
                    self._send(*_chat(body, owner.tool_call))
                elif "/models/" in p and ":" in p:
                    self._send(*_gemini(p, body, owner.tool_call))
                else:
                    self._send("application/json", b"{}")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeModelServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def posts(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.requests if r["method"] == "POST"]

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()

    def bodies_with(self, text: str) -> list[dict[str, Any]]:
        """The recorded POST requests whose body holds ``text``."""
        return [r for r in self.posts() if text in json.dumps(r["body"], ensure_ascii=False)]
