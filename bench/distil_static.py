"""Distil a static (model2vec-format) stand-in from the mirror's MiniLM, reproducibly.

The recipe of ``shared/models/local/all-MiniLM-L6-v2-static256/PROVENANCE.md`` without its PCA
step: every token of ``Xenova/all-MiniLM-L6-v2/tokenizer.json`` is run through the fp32 ONNX
file as ``[CLS] token [SEP]``, its vector the mean of the three output rows (384-d), each row
times the SIF weight ``1e-4 / (1e-4 + p)`` with ``p`` the Zipf frequency of its vocabulary rank.
Saved as ``model.safetensors`` (``embeddings`` float32), ``tokenizer.json`` (truncation and
padding off), ``config.json``; then imported into the model store as ``--repo-id``.

    nice -n 10 .venv/bin/python bench/distil_static.py            # -> local/all-MiniLM-L6-v2-static384
    nice -n 10 .venv/bin/python bench/static_model.py ranking --model local/all-MiniLM-L6-v2-static384

Never commit the output (bench/.cache/); figures with it say nothing about potion-code-16M.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(REPO.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(REPO / "bench" / ".cache" / "paqad-home"))
SOURCE = "Xenova/all-MiniLM-L6-v2"
BATCH = 512


def token_vectors(folder: Path) -> np.ndarray:
    """``(vocab, 384)`` float32: mean of the fp32 model's outputs over ``[CLS] token [SEP]``."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    vocab = tokenizer.get_vocab_size()
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    session = ort.InferenceSession(str(folder / "onnx" / "model.onnx"), providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    out = np.zeros((vocab, 384), dtype=np.float32)
    for start in range(0, vocab, BATCH):
        ids = np.arange(start, min(start + BATCH, vocab), dtype=np.int64)
        feeds = {"input_ids": np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1),
                 "attention_mask": np.ones((len(ids), 3), dtype=np.int64)}
        if "token_type_ids" in names:
            feeds["token_type_ids"] = np.zeros((len(ids), 3), dtype=np.int64)
        out[ids] = session.run(None, feeds)[0].mean(axis=1)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo-id", default="local/all-MiniLM-L6-v2-static384")
    args = parser.parse_args()
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer

    from paqad.embed import model_store

    folder = model_store.ensure_model(SOURCE, "fp32")
    vectors = token_vectors(folder)
    rank = np.arange(1, len(vectors) + 1, dtype=np.float64)
    zipf = 1.0 / (rank * np.log(len(vectors) + 1))  # Zipf frequency of a vocabulary rank
    vectors *= (1e-4 / (1e-4 + zipf))[:, None].astype(np.float32)
    target = REPO / "bench" / ".cache" / "distilled" / args.repo_id.replace("/", "--")
    target.mkdir(parents=True, exist_ok=True)
    save_file({"embeddings": np.ascontiguousarray(vectors)}, str(target / "model.safetensors"))
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    tokenizer.save(str(target / "tokenizer.json"))
    (target / "config.json").write_text(json.dumps({"max_length": 512, "normalize": True, "embedding_dtype": "float32"},
                                                   indent=4) + "\n", encoding="utf-8")
    print(model_store.import_model(target, args.repo_id))
    return 0


if __name__ == "__main__":
    sys.exit(main())
