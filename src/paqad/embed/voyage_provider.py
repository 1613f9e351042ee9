"""Voyage AI embeddings through the official ``voyageai`` SDK (optional extra: ``paqad-ai[voyageai]``).

Documents are embedded with ``input_type="document"``, queries with ``input_type="query"``
(Voyage prepends a different retrieval prompt to each). Base URL: the ``base_url`` argument
(the SDK's documented ``voyageai.Client(base_url=...)`` setting), else the ``VOYAGE_BASE_URL``
environment variable (paqad-ai's own, mirroring ``OPENAI_BASE_URL``: the SDK reads none), else
the SDK default ``https://api.voyageai.com/v1``. The SDK's own retries are off
(``max_retries=0``); retries, batching and splitting live in :mod:`paqad.embed.remote`.
"""

from __future__ import annotations

import os
from typing import Sequence

from paqad.project import ProjectPaths
from paqad.embed.remote import (
    Limits, RemoteEmbedder, RemoteFailure, check_model, classify_status, import_sdk, one_line, parse_retry_after,
)

BASE_URL_VARIABLE = "VOYAGE_BASE_URL"

# From Voyage's embeddings API reference (docs.voyageai.com/reference/embeddings-api): at most
# 1,000 inputs per request; total tokens per request 120K for voyage-code-3 and voyage-3-large,
# 320K for voyage-3.5, 1M for voyage-3.5-lite; context length 32,000 tokens per input.
# Output dimensions are the models' defaults (1024).
VOYAGE_MODELS = {
    "voyage-code-3": (1024, Limits(max_inputs=1000, max_input_tokens=32_000, max_request_tokens=120_000)),
    "voyage-3-large": (1024, Limits(max_inputs=1000, max_input_tokens=32_000, max_request_tokens=120_000)),
    "voyage-3.5": (1024, Limits(max_inputs=1000, max_input_tokens=32_000, max_request_tokens=320_000)),
    "voyage-3.5-lite": (1024, Limits(max_inputs=1000, max_input_tokens=32_000, max_request_tokens=1_000_000)),
}

class VoyageEmbedder(RemoteEmbedder):
    """Voyage AI embeddings (default ``voyage-code-3``, 1024-d).

    ``api_key``: used as given, else looked up with :func:`paqad.secrets.find_key`
    (``VOYAGE_API_KEY`` in the environment, then ``.paqad/secrets.env``). ``max_retries``:
    re-sends per request; ``timeout``: seconds per request; ``backoff_base``: seconds, the first
    backoff ceiling (tests make it tiny).

    Raises PaqadError for an unknown model, a missing key or a missing ``voyageai`` package.
    """

    provider = "voyageai"
    label = "Voyage AI"

    def __init__(
        self,
        model: str,
        paths: ProjectPaths,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 6,
        timeout: float = 60.0,
        backoff_base: float = 0.5,
    ) -> None:
        check_model("a Voyage AI", model, VOYAGE_MODELS)
        dimension, limits = VOYAGE_MODELS[model]
        self._voyageai = import_sdk("voyageai", "error")
        super().__init__(
            model, dimension, limits, paths, api_key=api_key, max_retries=max_retries, backoff_base=backoff_base
        )
        base_url = base_url or os.environ.get(BASE_URL_VARIABLE) or None
        # max_retries=0: the SDK makes exactly one attempt; remote.py retries, observably.
        self._client = self._voyageai.Client(api_key=self._key, max_retries=0, timeout=timeout, base_url=base_url)
        self._timeout = timeout

    def _send(self, texts: list[str], input_type: str) -> Sequence[Sequence[float]]:
        """One ``POST {base}/embeddings`` with ``input_type`` ``"document"`` or ``"query"``."""
        error = self._voyageai.error
        secrets = self._call.secrets
        failure: RemoteFailure | None = None
        try:
            result = self._client.embed(texts, model=self.model_id, input_type=input_type, truncation=True)
        except error.Timeout:
            failure = RemoteFailure("timeout", f"no answer within {self._timeout:g} s")
        except error.APIConnectionError as exc:
            failure = RemoteFailure("connection", one_line(f"connection failed ({type(exc.__cause__).__name__})", secrets))
        except error.VoyageError as exc:
            text = one_line(exc.user_message or type(exc).__name__, secrets)
            if exc.http_status is None:
                failure = RemoteFailure("bad_response", text)
            else:
                failure = RemoteFailure(
                    classify_status(exc.http_status, f"{text} {exc.http_body}"),
                    text,
                    status=exc.http_status,
                    retry_after=parse_retry_after(exc.headers),
                )
        except (ValueError, KeyError, AttributeError, TypeError) as exc:
            failure = RemoteFailure("bad_response", one_line(f"unreadable response ({type(exc).__name__})", secrets))
        # Raised outside the except blocks: no SDK exception (holding request headers) is chained.
        if failure is not None:
            raise failure
        return result.embeddings
