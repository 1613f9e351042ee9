"""OpenAI embeddings through the official ``openai`` SDK (optional extra: ``paqad-ai[openai]``).

Base URL: the ``base_url`` argument, else the SDK's documented ``OPENAI_BASE_URL`` environment
variable, else ``https://api.openai.com/v1``. The SDK's own retries are off; retries, batching
and splitting live in :mod:`paqad.embed.remote`.
"""

from __future__ import annotations

from typing import Sequence

from paqad.project import ProjectPaths
from paqad.embed.remote import (
    Limits, RemoteEmbedder, RemoteFailure, check_model, classify_status, import_sdk, one_line, parse_retry_after,
)

# Output dimensions from OpenAI's model pages (text-embedding-3-small: 1536, -large: 3072).
OPENAI_DIMENSIONS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072}

# Request limits from the SDK's own docstring of ``embeddings.create`` (openai-python) and the
# API reference: at most 2048 inputs per request, 8192 tokens per input, 300,000 tokens summed
# over the inputs of one request.
OPENAI_LIMITS = Limits(max_inputs=2048, max_input_tokens=8192, max_request_tokens=300_000)

class OpenAIEmbedder(RemoteEmbedder):
    """OpenAI embeddings (``text-embedding-3-small``, 1536-d, or ``text-embedding-3-large``, 3072-d).

    ``api_key``: used as given, else looked up with :func:`paqad.secrets.find_key`
    (``OPENAI_API_KEY`` in the environment, then ``.paqad/secrets.env``). ``max_retries``:
    re-sends per request; ``timeout``: seconds per request; ``backoff_base``: seconds, the first
    backoff ceiling (tests make it tiny).

    Raises PaqadError for an unknown model, a missing key or a missing ``openai`` package.
    """

    provider = "openai"
    label = "OpenAI"

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
        check_model("an OpenAI", model, OPENAI_DIMENSIONS)
        self._openai = import_sdk("openai")
        super().__init__(
            model,
            OPENAI_DIMENSIONS[model],
            OPENAI_LIMITS,
            paths,
            api_key=api_key,
            max_retries=max_retries,
            backoff_base=backoff_base,
        )
        # max_retries=0: the SDK must not retry behind our back (remote.py does it, observably).
        self._client = self._openai.OpenAI(api_key=self._key, base_url=base_url, max_retries=0, timeout=timeout)
        self._timeout = timeout

    def _send(self, texts: list[str], input_type: str) -> Sequence[Sequence[float]]:
        """One ``POST /embeddings``; OpenAI has no input type, queries embed like documents."""
        openai = self._openai
        secrets = self._call.secrets
        failure: RemoteFailure | None = None
        try:
            response = self._client.embeddings.create(model=self.model_id, input=texts)
        except openai.APIStatusError as exc:
            body = exc.body
            message = body.get("message") if isinstance(body, dict) else None
            text = one_line(message or exc.message, secrets)
            failure = RemoteFailure(
                classify_status(exc.status_code, f"{text} {body}"),
                text,
                status=exc.status_code,
                retry_after=parse_retry_after(exc.response.headers),
            )
        except openai.APITimeoutError:
            failure = RemoteFailure("timeout", f"no answer within {self._timeout:g} s")
        except openai.APIConnectionError as exc:
            failure = RemoteFailure("connection", one_line(f"connection failed ({type(exc.__cause__).__name__})", secrets))
        except (openai.OpenAIError, ValueError) as exc:
            failure = RemoteFailure("bad_response", one_line(f"unreadable response ({type(exc).__name__}: {exc})", secrets))
        # Raised outside the except blocks: no SDK exception (holding request headers) is chained.
        if failure is not None:
            raise failure
        return [item.embedding for item in sorted(response.data, key=lambda item: item.index)]
