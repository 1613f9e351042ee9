"""The local ONNX embedder against reference embeddings of the original PyTorch model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime
import pytest
from conftest import MODEL_FIXTURES, MODEL_MIRROR
from tokenizers import Tokenizer

from paqad.config import load_settings
from paqad.embed.base import Embedder
from paqad.embed.factory import get_embedder
from paqad.embed.local import LocalEmbedder

REPO = "Xenova/all-MiniLM-L6-v2"
REFERENCE = json.loads((MODEL_FIXTURES / "reference.json").read_text())["cases"]  # the original PyTorch model's
TEXTS = [case["text"] for case in REFERENCE]
EXPECTED = np.array([case["embedding"] for case in REFERENCE], dtype=np.float32)
LONG = next(i for i, case in enumerate(REFERENCE) if case["tokens_untruncated"] > 256)
EMPTY = TEXTS.index("")


@pytest.fixture(scope="module")
def embedded(paqad_home: Path):
    """Both precisions and the reference texts embedded singly and as one batch, computed once."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PAQAD_HOME", str(paqad_home))
        mp.setenv("PAQAD_MODEL_MIRROR", str(MODEL_MIRROR))
        result = {}
        for precision in ("int8", "fp32"):
            embedder = LocalEmbedder(REPO, precision)
            result[precision] = {
                "embedder": embedder,
                "batch": embedder.embed_documents(TEXTS),
                "single": np.stack([embedder.embed_query(text) for text in TEXTS]),
            }
        yield result


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_fp32_reproduces_reference(embedded):
    cos = _cosines(embedded["fp32"]["single"], EXPECTED)
    assert cos.min() >= 0.9999, cos


def test_int8_default_is_close_to_reference(embedded):
    single = _cosines(embedded["int8"]["single"], EXPECTED)
    print("int8 cosines:", np.round(single, 4))
    # Measured with onnxruntime 1.32: 0.9844 (empty string), the others 0.9912-0.9950.
    assert single.min() >= 0.98, single
    assert np.delete(single, EMPTY).min() >= 0.99, single


def test_int8_batched_on_request_stays_close(embedded):
    # int8 quantises activations once per run, so a batch moves each vector a little; that is
    # why int8 runs one text per run unless asked (measured min cosine 0.967, the empty string).
    batched = LocalEmbedder(REPO, "int8", batch_size=32).embed_documents(TEXTS)
    cos = _cosines(batched, embedded["int8"]["single"])
    print("int8 batch_size=32 vs single cosines:", np.round(cos, 4))
    assert cos.min() >= 0.96, cos
    assert np.delete(cos, EMPTY).min() >= 0.985, cos


def test_outputs_are_unit_float32_rows(embedded):
    for precision in ("int8", "fp32"):
        batch = embedded[precision]["batch"]
        assert batch.shape == (len(TEXTS), 384) and batch.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
        query = embedded[precision]["single"][EMPTY]
        assert query.shape == (384,) and query.dtype == np.float32


def test_batch_equals_single_in_input_order(embedded):
    np.testing.assert_allclose(embedded["fp32"]["batch"], embedded["fp32"]["single"], atol=2e-6)
    np.testing.assert_array_equal(embedded["int8"]["batch"], embedded["int8"]["single"])
    assert embedded["fp32"]["embedder"].batch_size == 32 and embedded["int8"]["embedder"].batch_size == 1


def test_long_text_uses_the_256_window_not_the_files_128(embedded, paqad_home):
    embedder = embedded["fp32"]["embedder"]
    long_text = TEXTS[LONG]
    tokenizer = Tokenizer.from_file(str(paqad_home / "models" / REPO / "tokenizer.json"))
    tokenizer.no_truncation()
    offsets = tokenizer.encode(long_text).offsets  # offsets[i]: chars of word piece i ([CLS] = 0)
    tail = "\n# an unrelated tail about billing invoices and tax rates in euros\n" * 20

    changed_at_200 = embedder.embed_query(long_text[: offsets[200][0]] + tail)
    changed_at_300 = embedder.embed_query(long_text[: offsets[300][0]] + tail)
    original = embedded["fp32"]["single"][LONG]

    assert float(changed_at_200 @ original) < 0.99  # pieces 128..255 are read
    np.testing.assert_array_equal(changed_at_300, original)  # pieces past 256 are not
    assert float(original @ EXPECTED[LONG]) >= 0.9999


def test_empty_inputs(embedded):
    embedder = embedded["int8"]["embedder"]
    assert embedder.embed_documents([]).shape == (0, 384)
    assert float(embedded["int8"]["single"][EMPTY] @ EXPECTED[EMPTY]) >= 0.975


def test_count_tokens_is_untruncated_and_counts_specials(embedded):
    embedder = embedded["int8"]["embedder"]
    assert [embedder.count_tokens(t) for t in TEXTS] == [case["tokens_untruncated"] for case in REFERENCE]
    assert embedder.count_tokens("") == 2  # [CLS] [SEP]
    assert embedder.count_tokens(TEXTS[LONG]) == 770


def test_identity_and_fingerprint(embedded):
    int8 = embedded["int8"]["embedder"]
    fp32 = embedded["fp32"]["embedder"]
    assert isinstance(int8, Embedder)
    assert (int8.provider, int8.model_id, int8.dimension, int8.window) == ("local", REPO, 384, 256)
    runtime = f"onnxruntime {onnxruntime.__version__}"
    assert int8.fingerprint == f"{REPO}|onnx/model_quantized.onnx|5ce859439971d223|{runtime}"
    assert fp32.fingerprint == f"{REPO}|onnx/model.onnx|252fb2d95757fee8|{runtime}"


def test_vectors_do_not_depend_on_workers_or_batch_mates(embedded):
    """Concurrent single-thread runs (the default on more than one CPU) give the vectors of one
    run per text, bit for bit, whatever is embedded next to them and in what order (issue 13)."""
    texts = [*TEXTS, *(f"def handler_{i}(event):\n    return event.kind == {i}" for i in range(40))]
    alone = np.stack([LocalEmbedder(REPO, "int8", workers=1).embed_query(t) for t in texts])
    for workers in (2, 3):
        together = LocalEmbedder(REPO, "int8", workers=workers).embed_documents(list(reversed(texts)))[::-1]
        np.testing.assert_array_equal(together, alone)
    np.testing.assert_array_equal(alone[: len(TEXTS)], embedded["int8"]["single"])
    cos = _cosines(alone[: len(TEXTS)], EXPECTED)
    assert np.delete(cos, EMPTY).min() >= 0.99 and cos.min() >= 0.98, cos


def test_texts_are_grouped_by_length_without_changing_results(embedded):
    # Tiny batches force many runs and a different grouping; fp32 must not notice.
    small = LocalEmbedder(REPO, "fp32", batch_size=3, max_batch_tokens=64)
    np.testing.assert_allclose(small.embed_documents(TEXTS), embedded["fp32"]["single"], atol=2e-6)


def test_factory_builds_the_configured_local_embedder(tmp_path, monkeypatch):
    settings = load_settings(tmp_path)
    embedder = get_embedder(settings)
    assert isinstance(embedder, LocalEmbedder)
    assert (embedder.model_id, embedder.precision) == (REPO, "int8")

    monkeypatch.setenv("PAQAD_RAG_EMBEDDING_PRECISION", "fp32")
    embedder = get_embedder(load_settings(tmp_path))
    assert (embedder.model_id, embedder.precision) == (REPO, "fp32")


def test_the_optimised_graph_is_saved_once_and_gives_identical_vectors(tmp_path):
    """A second process-equivalent session loads the saved graph: same vectors, bit for bit."""
    import onnxruntime as ort

    from paqad.embed import local, model_store

    folder = model_store.ensure_model("Xenova/all-MiniLM-L6-v2", "int8")
    model_file = folder / "onnx" / "model_quantized.onnx"
    first = local._session(ort, model_file)
    saved = list((model_file.parent / ".optimized").glob("model_quantized-ort*.onnx"))
    assert len(saved) == 1
    second = local._session(ort, model_file)
    ids = np.array([[101, 7592, 2088, 102]], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    assert np.array_equal(first.run(None, feed)[0], second.run(None, feed)[0])
    saved[0].write_bytes(b"not an onnx file")  # damaged: falls back and rewrites it
    third = local._session(ort, model_file)
    assert np.array_equal(first.run(None, feed)[0], third.run(None, feed)[0])
    assert saved[0].stat().st_size > 1_000_000
