"""What every remote embedding provider shares: batching, retries, splitting, checks (DESIGN §7).

The provider modules only turn one batch of texts into one SDK call, with the SDK's own
retries turned off, and translate the SDK's exceptions into :class:`RemoteFailure`. This
module decides everything else, so OpenAI and Voyage behave the same:

- **Batching** within the provider's documented limits on inputs per request, tokens per
  input and tokens per request. Tokens are *estimated* without a network or tokenizer as
  ``ceil(chars / 3)``: BPE tokenizers (cl100k, Voyage's) average 3.5-4.5 characters per token on
  source code and English, so dividing by 3 over-counts and keeps batches under the limits. Inputs
  over the per-input limit are truncated client-side to ``max_input_tokens * 3`` characters.
- **Retries** on HTTP 429, 5xx, timeouts and dropped connections: exponential backoff with full
  jitter (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015), delay drawn from
  ``[0, min(cap, base * 2**attempt)]``; a ``Retry-After`` header (seconds or HTTP date, RFC 9110
  §10.2.3) or OpenAI's ``retry-after-ms`` replaces the drawn delay (capped).
- **Splitting**: a 400 whose message says the batch is too large splits the batch in half and
  sends each half; a single input still too long is cut in half and sent again.
- **Stops at once** on an authentication error (401/403), an exhausted quota, or any other
  request error, with a one-line :class:`~paqad.errors.ProviderError` subclass (auth, quota, rate limit,
  unavailable, request, response); every message is redacted
  of the API key and is raised outside any ``except`` block, so no SDK exception (which holds
  the request headers) is chained to it.
- **Checks** every response: one vector per input, of the expected dimension; rows are
  L2-normalised to float32.
"""

from __future__ import annotations

import email.utils
import importlib
import logging
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from paqad.errors import (
    KeyMissingError,
    ModelSpecError,
    ProviderAuthError,
    ProviderError,
    ProviderQuotaError,
    ProviderRateLimitError,
    ProviderRequestError,
    ProviderResponseError,
    ProviderUnavailableError,
    ToolMissingError,
)
from paqad.project import ProjectPaths
from paqad.secrets import find_key, guard_sdk_logs, key_variable, known_secrets, missing_key_message, redact

log = logging.getLogger(__name__)

CHARS_PER_TOKEN = 3  # estimate: see the module docstring

# Failure kinds a provider module reports. Only these four are retried.
RETRYABLE = frozenset({"rate_limit", "server", "timeout", "connection"})
FAILURE_KINDS = RETRYABLE | {"too_large", "auth", "quota", "bad_request", "bad_response"}

ProgressCallback = Callable[[int, int], None]
VectorsCallback = Callable[[int, np.ndarray], None]

# Provider wording for "this request is too big", e.g. OpenAI "Requested 310000 tokens, max
# 300000 tokens per request", "This model's maximum context length is 8192 tokens"; Voyage
# "The max allowed tokens per submitted batch is 120000", "The batch size limit is 1000".
_TOO_LARGE = re.compile(
    r"max(imum)?\b[^.]*\btokens?\b|too many (tokens|inputs)|batch size|maximum (context length|array size)"
    r"|too (large|long)|token limit|lower the number",
    re.IGNORECASE,
)
_QUOTA = re.compile(r"insufficient_quota|exceeded your current quota|quota exceeded", re.IGNORECASE)


@dataclass(frozen=True)
class Limits:
    """A provider's documented request limits (counts of inputs; tokens)."""

    max_inputs: int
    max_input_tokens: int
    max_request_tokens: int


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before re-sending a failed request.

    ``max_retries``: re-sends after the first attempt, per request. ``backoff_base`` and
    ``backoff_cap``: seconds, for the jittered exponential delay. ``retry_after_cap``: seconds,
    the longest server-requested wait we honour.
    """

    max_retries: int = 6
    backoff_base: float = 0.5
    backoff_cap: float = 30.0
    retry_after_cap: float = 120.0


class RemoteFailure(Exception):
    """One failed request, as a provider module reports it (internal; never shown to users).

    ``kind`` is one of :data:`FAILURE_KINDS`; ``message`` must already be redacted;
    ``status`` is the HTTP status if any; ``retry_after`` the server-requested wait in seconds.
    """

    def __init__(self, kind: str, message: str, *, status: int | None = None, retry_after: float | None = None):
        if kind not in FAILURE_KINDS:
            raise ValueError(f"unknown failure kind {kind!r}")
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after

    def describe(self) -> str:
        prefix = f"HTTP {self.status}" if self.status is not None else self.kind.replace("_", " ")
        return f"{prefix}: {self.message}" if self.message else prefix


def import_sdk(package: str, *submodules: str) -> Any:
    """Import an optional provider SDK (and its ``submodules``), or raise ToolMissingError naming the
    extra to install: ``pip install 'paqad-ai[<package>]'``."""
    try:
        module = importlib.import_module(package)
        for sub in submodules:
            importlib.import_module(f"{package}.{sub}")
    except ImportError:
        raise ToolMissingError(f"the {package} provider needs the {package} package: pip install 'paqad-ai[{package}]'") from None
    return module


def check_model(provider: str, model: str, known: Iterable[str]) -> None:
    """Raise ModelSpecError unless ``model`` is one of the ``known`` models of ``provider`` ("an OpenAI")."""
    known = list(known)
    if model not in known:
        raise ModelSpecError(
            f"rag_embedding_model={model!r} is not {provider} embedding model paqad-ai knows; use one of: {', '.join(known)}"
        )


def estimate_tokens(text: str) -> int:
    """Estimated token count of ``text``: ``ceil(len / 3)``, at least 1 (see module docstring)."""
    return max(1, -(-len(text) // CHARS_PER_TOKEN))


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """``text`` cut to at most ``max_tokens`` estimated tokens (``max_tokens * 3`` characters)."""
    return text[: max_tokens * CHARS_PER_TOKEN]


def plan_batches(token_counts: Sequence[int], limits: Limits) -> list[tuple[int, int]]:
    """Split inputs, in order, into ``(start, end)`` index ranges within ``limits``.

    Each range holds at most ``limits.max_inputs`` inputs whose token counts sum to at most
    ``limits.max_request_tokens`` (an input alone always forms a range).
    """
    batches: list[tuple[int, int]] = []
    start, tokens = 0, 0
    for i, count in enumerate(token_counts):
        if i > start and (i - start >= limits.max_inputs or tokens + count > limits.max_request_tokens):
            batches.append((start, i))
            start, tokens = i, 0
        tokens += count
    if start < len(token_counts):
        batches.append((start, len(token_counts)))
    return batches


def _header(headers: Any, name: str) -> str | None:
    if not headers:
        return None
    value = headers.get(name)
    if value is None and isinstance(headers, Mapping):
        lowered = name.lower()
        value = next((v for k, v in headers.items() if str(k).lower() == lowered), None)
    return None if value is None else str(value)


def parse_retry_after(headers: Any, now: float | None = None) -> float | None:
    """Server-requested wait in seconds from response headers, or None.

    Reads OpenAI's ``retry-after-ms`` (milliseconds) first, then ``Retry-After`` as delay
    seconds or an HTTP date (RFC 9110 §10.2.3); ``now`` is a Unix time (default: the clock).
    A date in the past gives 0.0; an unparseable value gives None.
    """
    millis = _header(headers, "retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = _header(headers, "retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff_delay(attempt: int, policy: RetryPolicy, retry_after: float | None = None, rng: random.Random | None = None) -> float:
    """Seconds to wait before re-send number ``attempt + 1`` (``attempt`` counts from 0).

    ``retry_after`` (from the server) wins, capped at ``policy.retry_after_cap``; otherwise a
    full-jitter draw from ``[0, min(backoff_cap, backoff_base * 2**attempt)]``.
    """
    if retry_after is not None:
        return min(retry_after, policy.retry_after_cap)
    ceiling = min(policy.backoff_cap, policy.backoff_base * (2.0 ** attempt))
    return (rng or random).uniform(0.0, ceiling)


def classify_status(status: int, message: str) -> str:
    """Failure kind of an HTTP error ``status`` whose error text is ``message``."""
    if status in (401, 403):
        return "auth"
    if status == 429:
        return "quota" if _QUOTA.search(message) else "rate_limit"
    if status == 408:
        return "timeout"
    if status >= 500:
        return "server"
    if status == 413 or (status in (400, 422) and _TOO_LARGE.search(message)):
        return "too_large"
    return "bad_request"


def one_line(text: str, secrets: Iterable[str | None], limit: int = 300) -> str:
    """``text`` redacted of ``secrets`` and of every key this process has loaded
    (:func:`paqad.secrets.known_secrets`), whitespace collapsed, cut to ``limit`` characters."""
    flat = " ".join(redact(str(text), [*secrets, *known_secrets()]).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """``(n, d)`` rows scaled to unit L2 length, float32; all-zero rows stay zero."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


@dataclass(frozen=True)
class RemoteCall:
    """Everything :func:`embed_batches` needs to know about one provider and model.

    ``label``: provider name for messages (``"OpenAI"``). ``key_hint``: where the key came from,
    for the authentication message (``"OPENAI_API_KEY from the environment"``). ``secrets``:
    strings to redact from every message.
    """

    label: str
    model: str
    dimension: int
    limits: Limits
    policy: RetryPolicy
    key_hint: str
    secrets: tuple[str, ...] = field(repr=False)


# One failure kind -> one error class: the only place a provider's failure becomes our error.
_FAILURE_ERRORS: dict[str, type[ProviderError]] = {
    "auth": ProviderAuthError,
    "quota": ProviderQuotaError,
    "rate_limit": ProviderRateLimitError,
    "server": ProviderUnavailableError,
    "timeout": ProviderUnavailableError,
    "connection": ProviderUnavailableError,
    "bad_response": ProviderResponseError,
}


def _failure_error(call: RemoteCall, failure: RemoteFailure, attempts: int) -> ProviderError:
    """The typed error for ``failure`` after ``attempts`` sends (message redacted, one line)."""
    detail = one_line(failure.describe(), call.secrets).rstrip(". ")
    cls = _FAILURE_ERRORS.get(failure.kind, ProviderRequestError)
    if failure.kind == "auth":
        return cls(f"{call.label} rejected the API key ({call.key_hint}): {detail}; set a valid key")
    if failure.kind == "quota":
        return cls(f"{call.label} refused the request, quota exhausted ({detail}); check your plan and billing")
    if failure.kind in RETRYABLE:
        return cls(f"{call.label} embeddings failed after {attempts} attempts ({detail}); try again later")
    return cls(f"{call.label} rejected the embeddings request for {call.model} ({detail})")


def _send_with_retries(call: RemoteCall, send: Callable[[list[str]], Sequence[Sequence[float]]], batch: list[str]) -> Sequence[Sequence[float]]:
    """Send one batch, re-sending on retryable failures. Raises RemoteFailure('too_large') or a ProviderError subclass."""
    attempt = 0
    while True:
        failure: RemoteFailure | None = None
        try:
            return send(batch)
        except RemoteFailure as exc:
            failure = exc
        if failure.kind == "too_large":
            raise failure
        if failure.kind not in RETRYABLE or attempt >= call.policy.max_retries:
            raise _failure_error(call, failure, attempt + 1)
        delay = backoff_delay(attempt, call.policy, failure.retry_after)
        log.info(
            "%s: %s; retry %d/%d in %.3f s%s",
            call.label,
            one_line(failure.describe(), call.secrets, 120),
            attempt + 1,
            call.policy.max_retries,
            delay,
            " (Retry-After)" if failure.retry_after is not None else "",
        )
        time.sleep(delay)
        attempt += 1


def _check_vectors(call: RemoteCall, vectors: Sequence[Sequence[float]], expected_rows: int) -> np.ndarray:
    if len(vectors) != expected_rows:
        raise ProviderResponseError(f"{call.label} returned {len(vectors)} vectors for {expected_rows} inputs ({call.model}); try again")
    lengths = sorted({len(v) for v in vectors})
    if lengths and lengths != [call.dimension]:
        got = next(n for n in lengths if n != call.dimension)
        raise ProviderResponseError(f"{call.label} returned {got}-d vectors, expected {call.dimension} for {call.model}")
    return normalise_rows(np.asarray(vectors, dtype=np.float32).reshape(expected_rows, call.dimension))


def embed_batches(
    call: RemoteCall,
    texts: Sequence[str],
    send: Callable[[list[str]], Sequence[Sequence[float]]],
    on_batch: ProgressCallback | None = None,
    on_vectors: VectorsCallback | None = None,
) -> np.ndarray:
    """Embed ``texts`` through ``send`` (one SDK request per call). Returns ``(n, d)`` float32, unit rows.

    ``send(batch)`` returns one vector per input, in order, or raises :class:`RemoteFailure`.
    ``on_batch(done, total)`` is called after each successful request with counts of texts.
    ``on_vectors(start, rows)`` gets each successful request's ``(k, d)`` rows for
    ``texts[start:start + k]`` as they arrive, so a caller can cache them before a later
    request fails (a retry then pays only for the rest).
    Empty texts are sent as one space (providers reject empty input). Raises a ProviderError subclass on an
    authentication error, exhausted retries, any other rejected request, or a wrong number or
    dimension of vectors; the message names the provider and never contains the key.
    """
    total = len(texts)
    out = np.zeros((total, call.dimension), dtype=np.float32)
    if total == 0:
        return out
    prepared = [truncate_to_tokens(text or " ", call.limits.max_input_tokens) for text in texts]
    done = 0
    for start, end in plan_batches([estimate_tokens(t) for t in prepared], call.limits):
        # Work stack of (offset, batch); a too-large batch is replaced by its two halves,
        # left half on top so rows are filled in order.
        stack: list[tuple[int, list[str]]] = [(start, prepared[start:end])]
        while stack:
            offset, batch = stack.pop()
            too_large: RemoteFailure | None = None
            try:
                vectors = _send_with_retries(call, send, batch)
            except RemoteFailure as exc:
                too_large = exc
            if too_large is not None:
                if len(batch) > 1:
                    middle = len(batch) // 2
                    log.info("%s: batch of %d inputs too large; splitting in two", call.label, len(batch))
                    stack.append((offset + middle, batch[middle:]))
                    stack.append((offset, batch[:middle]))
                    continue
                if len(batch[0]) > 1:
                    log.warning(
                        "%s: input %d too long for %s; truncated to %d characters",
                        call.label, offset, call.model, len(batch[0]) // 2,
                    )
                    stack.append((offset, [batch[0][: len(batch[0]) // 2]]))
                    continue
                raise _failure_error(call, too_large, 1)
            out[offset : offset + len(batch)] = _check_vectors(call, vectors, len(batch))
            if on_vectors is not None:
                on_vectors(offset, out[offset : offset + len(batch)].copy())
            done += len(batch)
            if on_batch is not None:
                on_batch(done, total)
    return out



class RemoteEmbedder:
    """Base of the remote providers: key lookup, the :class:`Embedder` methods, a safe repr.

    Subclasses set ``provider`` and ``label``, pass the model's dimension and limits, and
    implement ``_send(texts, input_type)``: one SDK request, raising :class:`RemoteFailure`.
    ``key_source`` says where the key came from (``"environment"``, ``".paqad/secrets.env"``,
    ``"caller"``). The key itself lives only in the private ``_key``, the SDK client and the
    redaction list; the repr leaves it out.
    """

    provider = ""
    label = ""

    def __init__(
        self,
        model: str,
        dimension: int,
        limits: Limits,
        paths: ProjectPaths,
        *,
        api_key: str | None,
        max_retries: int,
        backoff_base: float,
    ) -> None:
        variable = key_variable(self.provider)
        if api_key:
            key, self.key_source = api_key, "caller"
        else:
            lookup = find_key(paths, self.provider)
            if not lookup.value:
                raise KeyMissingError(missing_key_message(variable))
            key, self.key_source = lookup.value, lookup.source or ""
        where = {"caller": "passed by the caller", "environment": "from the environment"}.get(self.key_source, f"from {self.key_source}")
        guard_sdk_logs(key)
        self.model_id = model
        self.dimension = dimension
        self.fingerprint = f"{self.provider}|{model}|{dimension}"
        self._key = key
        self._call = RemoteCall(
            label=self.label,
            model=model,
            dimension=dimension,
            limits=limits,
            policy=RetryPolicy(max_retries=max_retries, backoff_base=backoff_base),
            key_hint=f"{variable} {where}",
            secrets=(key,),
        )

    def _send(self, texts: list[str], input_type: str) -> Sequence[Sequence[float]]:
        raise NotImplementedError

    def embed_documents(
        self,
        texts: Sequence[str],
        on_batch: ProgressCallback | None = None,
        on_vectors: VectorsCallback | None = None,
    ) -> np.ndarray:
        """Embed chunk texts. Returns ``(len(texts), dimension)`` float32 with unit rows.

        ``on_batch(done, total)`` reports texts embedded so far after each request;
        ``on_vectors(start, rows)`` hands over each request's rows as they arrive.
        Raises a ProviderError subclass (see :func:`embed_batches`).
        """
        return embed_batches(
            self._call, list(texts), lambda batch: self._send(batch, "document"), on_batch, on_vectors
        )

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query. Returns ``(dimension,)`` float32 of unit length."""
        return embed_batches(self._call, [text], lambda batch: self._send(batch, "query"))[0]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_id={self.model_id!r}, dimension={self.dimension}, key_source={self.key_source!r})"
