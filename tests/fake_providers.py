"""A fake embeddings server on 127.0.0.1 that speaks the OpenAI and Voyage AI wire formats.

Real HTTP, reached through the real ``openai`` / ``voyageai`` SDKs by pointing their base URL at
``server.base_url``. Both providers ``POST {base}/embeddings`` with ``{"input": [...], "model":
..., "encoding_format": "base64", ...}`` (Voyage adds ``input_type``) and read
``{"data": [{"embedding": ..., "index": i}], "usage": {...}}``; errors are
``{"error": {"message": ...}}`` for OpenAI and ``{"detail": ...}`` for Voyage.

Vectors are deterministic: :func:`fake_vector` seeds a generator with the sha256 of the text, so
a test can check that row ``i`` of a result belongs to input ``i``. The server enforces each
provider's documented limits (fake tokens = ``ceil(chars / 4)``), answers 401 to a wrong key
(echoing the key it got, worse than real providers do, to prove redaction), and plays a queue of
scripted :class:`Reply` objects first. Every request is logged as a :class:`Seen`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

# Documented limits (see src/paqad/rag/embeddings/{openai,voyage}_provider.py).
LIMITS = {
    "openai": {"max_inputs": 2048, "max_input_tokens": 8192, "max_request_tokens": 300_000},
    "voyage": {"max_inputs": 1000, "max_input_tokens": 32_000, "max_request_tokens": 120_000},
}


def fake_vector(text: str, dimension: int) -> np.ndarray:
    """The raw (not normalised) float32 vector the fake server returns for ``text``."""
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(dimension).astype(np.float32)


def unit(vector: np.ndarray) -> np.ndarray:
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def fake_tokens(text: str) -> int:
    return -(-len(text) // 4)


@dataclass
class Reply:
    """One scripted answer. ``status`` 200 with ``dimension`` set returns vectors of that length;
    ``delay`` seconds are slept before answering; ``drop`` closes the connection unanswered."""

    status: int = 200
    message: str = "scripted failure"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False
    dimension: int | None = None
    code: str | None = None


@dataclass(frozen=True)
class Seen:
    """One request as the server received it, and the status it answered (0: dropped)."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    status: int

    @property
    def inputs(self) -> list[str]:
        raw = self.body.get("input")
        return [raw] if isinstance(raw, str) else list(raw or [])

    @property
    def input_type(self) -> str | None:
        return self.body.get("input_type")


class FakeEmbeddingServer:
    """``flavor`` is ``"openai"`` or ``"voyage"``; ``dimension`` the vector length it answers with.

    ``api_key``: the only key accepted. ``limits``: overrides of :data:`LIMITS` (fake tokens).
    Use as a context manager; ``base_url`` is ``http://127.0.0.1:<port>/v1``.
    """

    def __init__(self, flavor: str, dimension: int, api_key: str, **limits: int) -> None:
        assert flavor in LIMITS
        self.flavor = flavor
        self.dimension = dimension
        self.api_key = api_key
        self.limits = {**LIMITS[flavor], **limits}
        self.requests: list[Seen] = []
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    # -- lifecycle ------------------------------------------------------------------------------
    def __enter__(self) -> "FakeEmbeddingServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def script(self, *replies: Reply) -> None:
        """Queue replies; each request takes the next one until the queue is empty."""
        with self._lock:
            self._script.extend(replies)

    @property
    def batch_sizes(self) -> list[int]:
        return [len(seen.inputs) for seen in self.requests]

    @property
    def statuses(self) -> list[int]:
        return [seen.status for seen in self.requests]

    # -- behaviour ------------------------------------------------------------------------------
    def _error_body(self, message: str, code: str | None) -> dict[str, Any]:
        if self.flavor == "openai":
            return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}}
        return {"detail": message}

    def _limit_error(self, inputs: list[str]) -> str | None:
        """The provider's own wording when a request breaks a limit, else None."""
        lim = self.limits
        longest = max((fake_tokens(t) for t in inputs), default=0)
        total = sum(fake_tokens(t) for t in inputs)
        if self.flavor == "openai":
            if len(inputs) > lim["max_inputs"]:
                return f"Invalid 'input': too many inputs. Maximum array size is {lim['max_inputs']}."
            if longest > lim["max_input_tokens"]:
                return (
                    f"This model's maximum context length is {lim['max_input_tokens']} tokens, however you "
                    f"requested {longest} tokens. Please reduce your prompt."
                )
            if total > lim["max_request_tokens"]:
                return f"Requested {total} tokens, max {lim['max_request_tokens']} tokens per request"
            return None
        if len(inputs) > lim["max_inputs"]:
            return f"The batch size limit is {lim['max_inputs']}. Your batch size is {len(inputs)}."
        if longest > lim["max_input_tokens"]:
            return f"Input of {longest} tokens exceeds the context length; set truncation=True or lower the number of tokens."
        if total > lim["max_request_tokens"]:
            return (
                f"Request to model failed. The max allowed tokens per submitted batch is {lim['max_request_tokens']}. "
                f"Your batch has {total} tokens after truncation. Please lower the number of tokens in the batch."
            )
        return None

    def _answer(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[Reply, dict[str, Any] | None]:
        """Decide the reply and JSON body for one request (called under no lock; logs it)."""
        with self._lock:
            scripted = self._script.popleft() if self._script else None
        inputs = Seen(path, headers, body, 0).inputs
        reply, payload = scripted or Reply(), None
        if reply.drop:
            pass
        elif path != "/v1/embeddings":
            reply, payload = Reply(status=404), self._error_body(f"no route {path}", None)
        elif headers.get("authorization") != f"Bearer {self.api_key}":
            got = headers.get("authorization", "").removeprefix("Bearer ")
            reply = Reply(status=401)
            payload = self._error_body(f"Incorrect API key provided: {got}. Check your key.", "invalid_api_key")
        elif reply.status != 200:
            payload = self._error_body(reply.message, reply.code)
        elif (problem := self._limit_error(inputs)) is not None:
            reply, payload = Reply(status=400), self._error_body(problem, None)
        else:
            dimension = reply.dimension or self.dimension
            data = []
            for i, text in enumerate(inputs):
                vector = fake_vector(text, dimension)
                if body.get("encoding_format") == "base64":
                    embedding: Any = base64.b64encode(vector.tobytes()).decode("ascii")
                else:
                    embedding = [float(x) for x in vector]
                data.append({"object": "embedding", "embedding": embedding, "index": i})
            tokens = sum(fake_tokens(t) for t in inputs)
            payload = {
                "object": "list",
                "data": data,
                "model": body.get("model"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        with self._lock:
            self.requests.append(Seen(path, headers, body, 0 if reply.drop else reply.status))
        return reply, payload

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {}
                headers = {k.lower(): v for k, v in self.headers.items()}
                reply, payload = server._answer(self.path, headers, body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.drop:
                    self.close_connection = True
                    return
                data = json.dumps(payload).encode("utf-8")
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    self.close_connection = True

        return Handler
