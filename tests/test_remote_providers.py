"""Remote embeddings (OpenAI, Voyage AI) over real HTTP on 127.0.0.1 through the real SDKs.

The fake server (tests/fake_providers.py) speaks each provider's wire format, enforces the
documented limits, and plays scripted failures; every request it saw is asserted on.
"""

from __future__ import annotations

import email.utils
import logging
import random
import re
import sys
import time
import traceback
from pathlib import Path

import numpy as np
import pytest

from fake_providers import FakeEmbeddingServer, Reply, fake_vector, unit
from paqad.errors import PaqadError
from paqad.project import ProjectPaths
from paqad.embed.base import Embedder
from paqad.embed.openai_provider import OpenAIEmbedder
from paqad.embed.remote import (
    Limits,
    RetryPolicy,
    backoff_delay,
    classify_status,
    estimate_tokens,
    parse_retry_after,
    plan_batches,
)
from paqad.embed.voyage_provider import VoyageEmbedder
from paqad.secrets import store_key

OPENAI_KEY = "sk-proj-paqadTESTkey0123456789abcdefXYZ"
VOYAGE_KEY = "pa-paqadTESTkey0123456789abcdefXYZ"
REMOTE_LOG = "paqad.embed.remote"


@pytest.fixture
def paths(tmp_path: Path) -> ProjectPaths:
    return ProjectPaths(tmp_path / "proj")


@pytest.fixture
def openai_server():
    with FakeEmbeddingServer("openai", 1536, OPENAI_KEY) as server:
        yield server


@pytest.fixture
def voyage_server():
    with FakeEmbeddingServer("voyage", 1024, VOYAGE_KEY) as server:
        yield server


def make_openai(server: FakeEmbeddingServer, paths: ProjectPaths, **kwargs) -> OpenAIEmbedder:
    kwargs.setdefault("api_key", OPENAI_KEY)
    kwargs.setdefault("backoff_base", 0.001)
    return OpenAIEmbedder(kwargs.pop("model", "text-embedding-3-small"), paths, base_url=server.base_url, **kwargs)


def make_voyage(server: FakeEmbeddingServer, paths: ProjectPaths, **kwargs) -> VoyageEmbedder:
    kwargs.setdefault("api_key", VOYAGE_KEY)
    kwargs.setdefault("backoff_base", 0.001)
    return VoyageEmbedder(kwargs.pop("model", "voyage-code-3"), paths, base_url=server.base_url, **kwargs)


def expected(texts: list[str], dimension: int) -> np.ndarray:
    return np.stack([unit(fake_vector(t, dimension)) for t in texts])


def retry_delays(caplog: pytest.LogCaptureFixture) -> list[float]:
    """Delays (seconds) remote.py announced before each re-send."""
    return [
        float(m.group(1))
        for r in caplog.records
        if r.name == REMOTE_LOG and (m := re.search(r"retry \d+/\d+ in ([\d.]+) s", r.getMessage()))
    ]


# --- pure helpers ---------------------------------------------------------------------------


def test_plan_batches_respects_input_and_token_limits():
    limits = Limits(max_inputs=3, max_input_tokens=100, max_request_tokens=10)
    assert plan_batches([1, 1, 1, 1, 1, 1, 1], limits) == [(0, 3), (3, 6), (6, 7)]
    assert plan_batches([4, 4, 4, 9, 1], limits) == [(0, 2), (2, 3), (3, 5)]
    # An input over the request budget still goes alone rather than being dropped.
    assert plan_batches([50, 2], limits) == [(0, 1), (1, 2)]
    assert plan_batches([], limits) == []


def test_estimate_tokens_is_chars_over_three_rounded_up():
    assert [estimate_tokens(t) for t in ["", "a", "abc", "abcd", "x" * 3000]] == [1, 1, 1, 2, 1000]


def test_parse_retry_after_reads_seconds_dates_and_milliseconds():
    now = email.utils.parsedate_to_datetime("Wed, 21 Oct 2015 07:27:30 GMT").timestamp()
    assert parse_retry_after({"Retry-After": "7"}) == 7.0
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=now) == 30.0
    assert parse_retry_after({"Retry-After": "Wed, 21 Oct 2015 07:00:00 GMT"}, now=now) == 0.0
    assert parse_retry_after({"retry-after-ms": "250", "Retry-After": "9"}) == 0.25
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None


def test_backoff_is_full_jitter_capped_and_retry_after_wins():
    policy = RetryPolicy(backoff_base=0.5, backoff_cap=30.0, retry_after_cap=120.0)
    rng = random.Random(7)
    for attempt, ceiling in [(0, 0.5), (1, 1.0), (3, 4.0), (10, 30.0)]:
        draws = [backoff_delay(attempt, policy, None, rng) for _ in range(200)]
        assert 0.0 <= min(draws) and max(draws) <= ceiling
        assert max(draws) > ceiling * 0.8  # jitter spans the range, not a fixed delay
    assert backoff_delay(0, policy, retry_after=3.0) == 3.0
    assert backoff_delay(0, policy, retry_after=500.0) == 120.0


def test_classify_status():
    assert classify_status(401, "bad key") == "auth"
    assert classify_status(403, "forbidden") == "auth"
    assert classify_status(429, "slow down") == "rate_limit"
    assert classify_status(429, "You exceeded your current quota") == "quota"
    assert classify_status(503, "") == "server"
    assert classify_status(400, "Requested 310000 tokens, max 300000 tokens per request") == "too_large"
    assert classify_status(400, "The batch size limit is 1000. Your batch size is 1001.") == "too_large"
    assert classify_status(400, "model 'nope' does not exist") == "bad_request"


# --- OpenAI ---------------------------------------------------------------------------------


def test_openai_embeds_in_order_with_unit_rows(openai_server, paths):
    embedder = make_openai(openai_server, paths)
    texts = ["def get_user_name():", "class Invoice:", "", "SELECT 1"]
    vectors = embedder.embed_documents(texts)
    assert isinstance(embedder, Embedder)
    assert (embedder.provider, embedder.model_id, embedder.dimension) == ("openai", "text-embedding-3-small", 1536)
    assert embedder.fingerprint == "openai|text-embedding-3-small|1536"
    assert vectors.dtype == np.float32 and vectors.shape == (4, 1536)
    # The empty text goes out as one space (the API rejects empty strings).
    np.testing.assert_allclose(vectors, expected(["def get_user_name():", "class Invoice:", " ", "SELECT 1"], 1536), atol=1e-6)
    [seen] = openai_server.requests
    assert seen.path == "/v1/embeddings"
    assert seen.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert seen.body["model"] == "text-embedding-3-small"
    query = embedder.embed_query("where is the invoice total computed")
    assert query.shape == (1536,)
    np.testing.assert_allclose(query, unit(fake_vector("where is the invoice total computed", 1536)), atol=1e-6)


def test_openai_large_model_is_3072d(paths):
    with FakeEmbeddingServer("openai", 3072, OPENAI_KEY) as server:
        embedder = make_openai(server, paths, model="text-embedding-3-large")
        assert embedder.embed_documents(["x"]).shape == (1, 3072)
        assert embedder.fingerprint == "openai|text-embedding-3-large|3072"


def test_openai_2500_inputs_take_two_requests_of_2048_and_452(openai_server, paths):
    texts = [f"chunk {i}" for i in range(2500)]
    progress: list[tuple[int, int]] = []
    vectors = make_openai(openai_server, paths).embed_documents(texts, on_batch=lambda d, t: progress.append((d, t)))
    assert openai_server.batch_sizes == [2048, 452]
    assert openai_server.statuses == [200, 200]
    assert progress == [(2048, 2500), (2500, 2500)]
    np.testing.assert_allclose(vectors[[0, 2047, 2048, 2499]], expected([texts[0], texts[2047], texts[2048], texts[2499]], 1536), atol=1e-6)


def test_openai_truncates_long_inputs_and_keeps_requests_under_300k_tokens(openai_server, paths):
    # 30,000 chars = 10,000 estimated tokens > 8,192: cut to 8,192 * 3 = 24,576 chars (8,192
    # estimated tokens). 36 such inputs = 294,912 <= 300,000 estimated tokens per request.
    texts = [f"{i:05d}" + "x" * 29_995 for i in range(40)]
    vectors = make_openai(openai_server, paths).embed_documents(texts)
    assert openai_server.batch_sizes == [36, 4]
    assert openai_server.statuses == [200, 200]
    assert {len(t) for seen in openai_server.requests for t in seen.inputs} == {24_576}
    np.testing.assert_allclose(vectors[39], unit(fake_vector(texts[39][:24_576], 1536)), atol=1e-6)


def test_openai_429_with_retry_after_waits_that_long(openai_server, paths, caplog):
    caplog.set_level(logging.INFO, logger=REMOTE_LOG)
    openai_server.script(Reply(429, "Rate limit reached", headers={"Retry-After": "1"}))
    started = time.monotonic()
    vectors = make_openai(openai_server, paths).embed_documents(["a"])
    assert time.monotonic() - started >= 0.95
    assert openai_server.statuses == [429, 200]
    assert retry_delays(caplog) == [1.0]
    assert "(Retry-After)" in caplog.text
    np.testing.assert_allclose(vectors, expected(["a"], 1536), atol=1e-6)


def test_openai_429_without_retry_after_backs_off_with_jitter(openai_server, paths, caplog):
    caplog.set_level(logging.INFO, logger=REMOTE_LOG)
    openai_server.script(Reply(429, "Rate limit reached"), Reply(429, "Rate limit reached"))
    vectors = make_openai(openai_server, paths, backoff_base=0.01).embed_documents(["a", "b"])
    assert openai_server.statuses == [429, 429, 200]
    delays = retry_delays(caplog)
    assert len(delays) == 2 and delays[0] <= 0.01 and delays[1] <= 0.02
    assert "(Retry-After)" not in caplog.text
    np.testing.assert_allclose(vectors, expected(["a", "b"], 1536), atol=1e-6)


def test_openai_500_then_success(openai_server, paths):
    openai_server.script(Reply(500, "The server had an error"))
    vectors = make_openai(openai_server, paths).embed_documents(["a", "b"])
    assert openai_server.statuses == [500, 200]
    assert openai_server.requests[0].inputs == openai_server.requests[1].inputs == ["a", "b"]
    np.testing.assert_allclose(vectors, expected(["a", "b"], 1536), atol=1e-6)


def test_openai_timeout_and_dropped_connection_are_retried(openai_server, paths, caplog):
    caplog.set_level(logging.INFO, logger=REMOTE_LOG)
    openai_server.script(Reply(delay=0.6), Reply(drop=True))
    vectors = make_openai(openai_server, paths, timeout=0.2).embed_documents(["a"])
    assert openai_server.statuses == [200, 0, 200]  # the slow 200 arrived after the client gave up
    assert "timeout: no answer within 0.2 s; retry 1/6" in caplog.text
    assert "connection: connection failed" in caplog.text
    np.testing.assert_allclose(vectors, expected(["a"], 1536), atol=1e-6)


def test_openai_gives_up_after_max_retries(openai_server, paths):
    openai_server.script(*[Reply(503, "overloaded")] * 3)
    with pytest.raises(PaqadError) as info:
        make_openai(openai_server, paths, max_retries=2).embed_documents(["a"])
    assert str(info.value) == "OpenAI embeddings failed after 3 attempts (HTTP 503: overloaded); try again later"
    assert openai_server.statuses == [503, 503, 503]


def test_openai_failure_half_way_keeps_the_embedded_rows_and_resume_sends_only_the_rest(openai_server, paths):
    texts = [f"chunk {i}" for i in range(2500)]
    cache: dict[str, np.ndarray] = {}  # stands in for the indexer's embedding cache

    def keep(start: int, rows: np.ndarray) -> None:
        for i, row in enumerate(rows):
            cache[texts[start + i]] = row

    openai_server.script(Reply(200), Reply(503, "overloaded"))
    embedder = make_openai(openai_server, paths, max_retries=0)
    with pytest.raises(PaqadError, match=r"failed after 1 attempts \(HTTP 503: overloaded\)"):
        embedder.embed_documents(texts, on_vectors=keep)
    assert openai_server.statuses == [200, 503]
    assert sorted(cache) == sorted(texts[:2048])
    missing = [t for t in texts if t not in cache]
    vectors = embedder.embed_documents(missing, on_vectors=lambda start, rows: None)
    assert openai_server.requests[-1].inputs == texts[2048:]
    assert openai_server.statuses == [200, 503, 200]
    np.testing.assert_allclose(cache[texts[7]], unit(fake_vector(texts[7], 1536)), atol=1e-6)
    np.testing.assert_allclose(vectors[0], unit(fake_vector(texts[2048], 1536)), atol=1e-6)


def test_openai_batch_too_large_is_split_in_halves(paths):
    # Each input is 400 chars = 100 fake tokens; the server takes at most 300 per request.
    with FakeEmbeddingServer("openai", 1536, OPENAI_KEY, max_request_tokens=300) as server:
        texts = [f"{i:03d}" + "y" * 397 for i in range(10)]
        progress: list[tuple[int, int]] = []
        vectors = make_openai(server, paths).embed_documents(texts, on_batch=lambda d, t: progress.append((d, t)))
        assert server.batch_sizes == [10, 5, 2, 3, 5, 2, 3]
        assert server.statuses == [400, 400, 200, 200, 400, 200, 200]
        assert progress == [(2, 10), (5, 10), (7, 10), (10, 10)]
        np.testing.assert_allclose(vectors, expected(texts, 1536), atol=1e-6)


def test_openai_single_input_too_long_is_halved_until_accepted(paths):
    # The server's context is 100 fake tokens (400 chars); the 1,000-char input is cut to 500, 250.
    with FakeEmbeddingServer("openai", 1536, OPENAI_KEY, max_input_tokens=100) as server:
        text = "z" * 1000
        vectors = make_openai(server, paths).embed_documents([text])
        assert [len(seen.inputs[0]) for seen in server.requests] == [1000, 500, 250]
        assert server.statuses == [400, 400, 200]
        np.testing.assert_allclose(vectors[0], unit(fake_vector("z" * 250, 1536)), atol=1e-6)


def test_openai_bad_key_stops_at_once_without_the_key_in_the_message(openai_server, paths):
    wrong = "sk-proj-WRONGkeyWRONGkey0123456789"
    with pytest.raises(PaqadError) as info:
        make_openai(openai_server, paths, api_key=wrong).embed_documents(["a"])
    assert openai_server.statuses == [401]  # no retries
    message = str(info.value)
    assert message.startswith("OpenAI rejected the API key (OPENAI_API_KEY passed by the caller): HTTP 401")
    assert wrong not in message and "[redacted]" in message
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_openai_403_and_exhausted_quota_stop_at_once(openai_server, paths):
    openai_server.script(Reply(403, "Project does not have access to model"))
    with pytest.raises(PaqadError, match=r"^OpenAI rejected the API key .*HTTP 403"):
        make_openai(openai_server, paths).embed_documents(["a"])
    openai_server.script(Reply(429, "You exceeded your current quota, please check your plan", code="insufficient_quota"))
    with pytest.raises(PaqadError, match=r"quota exhausted .*check your plan and billing"):
        make_openai(openai_server, paths).embed_documents(["a"])
    assert openai_server.statuses == [403, 429]


def test_openai_other_bad_request_stops_at_once(openai_server, paths):
    openai_server.script(Reply(400, "Invalid value for 'encoding_format'"))
    with pytest.raises(PaqadError) as info:
        make_openai(openai_server, paths).embed_documents(["a"])
    assert str(info.value) == (
        "OpenAI rejected the embeddings request for text-embedding-3-small (HTTP 400: Invalid value for 'encoding_format')"
    )
    assert openai_server.statuses == [400]


def test_openai_wrong_dimension_is_an_error(openai_server, paths):
    openai_server.script(Reply(dimension=768))
    with pytest.raises(PaqadError) as info:
        make_openai(openai_server, paths).embed_documents(["a"])
    assert str(info.value) == "OpenAI returned 768-d vectors, expected 1536 for text-embedding-3-small"


def test_openai_base_url_and_key_from_the_environment(openai_server, paths, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    store_key(paths, "openai", "sk-file-key-that-must-lose-0000")
    embedder = OpenAIEmbedder("text-embedding-3-small", paths)
    assert embedder.key_source == "environment"
    embedder.embed_documents(["a"])
    assert openai_server.requests[0].headers["authorization"] == f"Bearer {OPENAI_KEY}"


def test_openai_key_from_secrets_file(openai_server, paths):
    store_key(paths, "openai", OPENAI_KEY)
    embedder = OpenAIEmbedder("text-embedding-3-small", paths, base_url=openai_server.base_url)
    assert embedder.key_source == ".paqad/secrets.env"
    assert OPENAI_KEY not in repr(embedder)
    embedder.embed_documents(["a"])
    assert openai_server.statuses == [200]


def test_openai_without_key_or_with_unknown_model(paths):
    with pytest.raises(PaqadError) as info:
        OpenAIEmbedder("text-embedding-3-small", paths)
    assert str(info.value) == (
        "OPENAI_API_KEY is not set: export it or put OPENAI_API_KEY=... in .paqad/secrets.env (mode 0600)"
    )
    with pytest.raises(PaqadError, match=r"'text-embedding-9'.*text-embedding-3-small, text-embedding-3-large"):
        OpenAIEmbedder("text-embedding-9", paths, api_key=OPENAI_KEY)


def test_missing_sdk_names_the_pip_command(paths, monkeypatch):
    monkeypatch.setitem(sys.modules, "openai", None)  # makes `import openai` raise ImportError
    with pytest.raises(PaqadError, match=re.escape("pip install 'paqad-ai[openai]'")):
        OpenAIEmbedder("text-embedding-3-small", paths, api_key=OPENAI_KEY)
    monkeypatch.setitem(sys.modules, "voyageai", None)
    with pytest.raises(PaqadError, match=re.escape("pip install 'paqad-ai[voyageai]'")):
        VoyageEmbedder("voyage-code-3", paths, api_key=VOYAGE_KEY)


# --- Voyage AI ------------------------------------------------------------------------------


def test_voyage_documents_and_queries_use_their_input_types(voyage_server, paths):
    embedder = make_voyage(voyage_server, paths)
    assert isinstance(embedder, Embedder)
    assert (embedder.provider, embedder.model_id, embedder.dimension) == ("voyageai", "voyage-code-3", 1024)
    assert embedder.fingerprint == "voyageai|voyage-code-3|1024"
    docs = embedder.embed_documents(["def area(r):", "return 3.14 * r * r"])
    query = embedder.embed_query("circle area")
    assert [seen.input_type for seen in voyage_server.requests] == ["document", "query"]
    assert [seen.body["model"] for seen in voyage_server.requests] == ["voyage-code-3", "voyage-code-3"]
    assert voyage_server.requests[0].path == "/v1/embeddings"
    assert voyage_server.requests[0].headers["authorization"] == f"Bearer {VOYAGE_KEY}"
    np.testing.assert_allclose(docs, expected(["def area(r):", "return 3.14 * r * r"], 1024), atol=1e-6)
    np.testing.assert_allclose(query, unit(fake_vector("circle area", 1024)), atol=1e-6)


def test_voyage_1001_inputs_take_two_requests(voyage_server, paths):
    texts = [f"chunk {i}" for i in range(1001)]
    vectors = make_voyage(voyage_server, paths).embed_documents(texts)
    assert voyage_server.batch_sizes == [1000, 1]
    assert voyage_server.statuses == [200, 200]
    np.testing.assert_allclose(vectors[[0, 999, 1000]], expected([texts[0], texts[999], texts[1000]], 1024), atol=1e-6)


def test_voyage_requests_stay_under_120k_tokens(voyage_server, paths):
    # 90,000 chars = 30,000 estimated tokens each: four fit in 120,000, so 6 -> [4, 2].
    texts = [f"{i}" + "w" * 89_999 for i in range(6)]
    make_voyage(voyage_server, paths).embed_documents(texts)
    assert voyage_server.batch_sizes == [4, 2]
    assert voyage_server.statuses == [200, 200]


def test_voyage_429_with_http_date_retry_after(voyage_server, paths, caplog):
    caplog.set_level(logging.INFO, logger=REMOTE_LOG)
    # whole seconds: 2-3 s away when written; a loaded CI machine took over a second more to read it
    when = email.utils.formatdate(time.time() + 3, usegmt=True)
    voyage_server.script(Reply(429, "Rate limit exceeded", headers={"Retry-After": when}))
    started = time.monotonic()
    make_voyage(voyage_server, paths).embed_documents(["a"])
    assert time.monotonic() - started >= 1.0
    assert voyage_server.statuses == [429, 200]
    [delay] = retry_delays(caplog)
    assert 1.0 <= delay <= 3.0


def test_voyage_5xx_timeout_and_drop_are_retried(voyage_server, paths):
    voyage_server.script(Reply(500), Reply(502), Reply(delay=0.6), Reply(drop=True), Reply(429, "slow down"))
    vectors = make_voyage(voyage_server, paths, timeout=0.2).embed_documents(["a", "b"])
    assert voyage_server.statuses == [500, 502, 200, 0, 429, 200]
    np.testing.assert_allclose(vectors, expected(["a", "b"], 1024), atol=1e-6)


def test_voyage_batch_too_large_is_split(paths):
    with FakeEmbeddingServer("voyage", 1024, VOYAGE_KEY, max_request_tokens=300) as server:
        texts = [f"{i:03d}" + "y" * 397 for i in range(6)]
        vectors = make_voyage(server, paths).embed_documents(texts)
        assert server.batch_sizes == [6, 3, 3]
        assert server.statuses == [400, 200, 200]
        np.testing.assert_allclose(vectors, expected(texts, 1024), atol=1e-6)


def test_voyage_bad_key_stops_at_once(voyage_server, paths):
    wrong = "pa-WRONGkeyWRONGkey0123456789"
    with pytest.raises(PaqadError) as info:
        make_voyage(voyage_server, paths, api_key=wrong).embed_documents(["a"])
    assert voyage_server.statuses == [401]
    assert str(info.value).startswith("Voyage AI rejected the API key (VOYAGE_API_KEY passed by the caller): HTTP 401")
    assert wrong not in str(info.value)


def test_voyage_wrong_dimension_is_an_error(voyage_server, paths):
    voyage_server.script(Reply(dimension=512))
    with pytest.raises(PaqadError) as info:
        make_voyage(voyage_server, paths).embed_query("q")
    assert str(info.value) == "Voyage AI returned 512-d vectors, expected 1024 for voyage-code-3"


def test_voyage_base_url_from_environment(voyage_server, paths, monkeypatch):
    monkeypatch.setenv("VOYAGE_BASE_URL", voyage_server.base_url)
    monkeypatch.setenv("VOYAGE_API_KEY", VOYAGE_KEY)
    VoyageEmbedder("voyage-code-3", paths, backoff_base=0.001).embed_documents(["a"])
    assert voyage_server.statuses == [200]


# --- the key never shows ----------------------------------------------------------------------


def test_key_never_in_any_output(openai_server, voyage_server, paths, monkeypatch, caplog, capsys):
    """Success, retries and rejection on both providers, with every logger at DEBUG: the key
    appears in no captured stream, log record, exception (with its traceback) or repr."""
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("VOYAGE_API_KEY", VOYAGE_KEY)
    texts: list[str] = []
    openai = OpenAIEmbedder("text-embedding-3-small", paths, base_url=openai_server.base_url, backoff_base=0.001)
    voyage = VoyageEmbedder("voyage-code-3", paths, base_url=voyage_server.base_url, backoff_base=0.001)
    for server, embedder in ((openai_server, openai), (voyage_server, voyage)):
        # The server echoes whatever key it got in its 401 body and in other error messages.
        server.script(Reply(429, f"rate limited for key {OPENAI_KEY} {VOYAGE_KEY}"), Reply(500, f"oops {OPENAI_KEY}{VOYAGE_KEY}"))
        embedder.embed_documents(["a", "b"])
        embedder.embed_query("q")
        server.script(Reply(400, f"bad request by {OPENAI_KEY} / {VOYAGE_KEY}"))
        with pytest.raises(PaqadError) as info:
            embedder.embed_documents(["c"])
        texts += [str(info.value), repr(info.value), "".join(traceback.format_exception(info.value)), repr(embedder)]
        server.api_key = "some-other-key"  # now the real key is rejected, and echoed back
        with pytest.raises(PaqadError) as info:
            embedder.embed_documents(["d"])
        texts += [str(info.value), repr(info.value), "".join(traceback.format_exception(info.value))]
    captured = capsys.readouterr()
    texts += [captured.out, captured.err, caplog.text]
    texts += [str(r.msg) + repr(r.args) for r in caplog.records]
    assert "[redacted]" in caplog.text  # the SDK's own error log was scrubbed, not silent
    for text in texts:
        assert OPENAI_KEY not in text
        assert VOYAGE_KEY not in text


# --- through the indexer: what is sent, and resuming a failed build ------------------------


def test_indexer_resumes_a_failed_remote_build_and_never_sends_secrets(openai_server, git_repo, monkeypatch):
    from conftest import write_files
    from paqad.config import load_settings
    from paqad import build as indexer
    from paqad.status import index_state

    root = git_repo({
        ".gitignore": "build/\n",
        "app/core.py": "def core_entry():\n    \"\"\"Start the core service and return its port number.\"\"\"\n    return 8080\n",
        ".env": "OPENAI_API_KEY=sk-DOTENV-MARKER-0001\nDATABASE_URL=postgres://user:DOTENV-MARKER@db/app\n",
        ".env.local": "SECRET_TOKEN=ENVLOCAL-MARKER-0002 and enough text to pass the size rule of layer four\n",
        ".paqad/secrets.env": "VOYAGE_API_KEY=pa-SECRETSFILE-MARKER-0003\n",
        "build/generated.py": "def generated():\n    \"\"\"GITIGNORED-MARKER-0004 generated code that must never be sent.\"\"\"\n    return 1\n",
    })
    paths = ProjectPaths(root)
    monkeypatch.setenv("PAQAD_RAG_EMBEDDING_PROVIDER", "openai")
    monkeypatch.setattr(indexer, "REMOTE_EMBED_BATCH", 64)  # several cache commits in a 100-chunk build
    settings = load_settings(paths)
    embedder = make_openai(openai_server, paths, max_retries=0)

    first = indexer.sync(paths, settings, embedder)
    assert first.full and first.chunks_total == 1 and openai_server.statuses == [200]

    write_files(root, {
        f"pkg/mod_{i:03d}.py": f"def handler_{i:03d}(request):\n    \"\"\"Handle request kind {i} and return the answer code.\"\"\"\n    return {i} * 7\n"
        for i in range(100)
    })
    openai_server.script(Reply(200), Reply(503, "overloaded"))
    with pytest.raises(PaqadError, match=r"^OpenAI embeddings failed after 1 attempts"):
        indexer.sync(paths, settings, embedder)
    assert openai_server.statuses == [200, 200, 503]
    first_batch, failed_batch = openai_server.requests[1].inputs, openai_server.requests[2].inputs
    assert (len(first_batch), len(failed_batch)) == (64, 36)
    # Files, chunks and the keyword index were committed before embedding, and the first batch's
    # vectors with it: the index is valid and searchable, 36 chunks still without a vector.
    state = index_state(paths, settings)
    assert state.valid and (state.chunks, state.embedded) == (101, 65)

    report = indexer.sync(paths, settings, embedder)
    assert openai_server.statuses == [200, 200, 503, 200]
    assert openai_server.requests[3].inputs == failed_batch  # only what was not embedded yet
    assert (report.files_changed, report.embedded, report.chunks_total, report.pending) == (0, 36, 101, 0)

    sent = "\n".join(t for seen in openai_server.requests for t in seen.inputs)
    assert "def handler_042(request)" in sent and "def core_entry()" in sent
    for marker in ("DOTENV-MARKER", "ENVLOCAL-MARKER", "SECRETSFILE-MARKER", "GITIGNORED-MARKER"):
        assert marker not in sent
