"""CPU time of the local int8 model per text by length and batch size (one intra-op thread).

Shows why batching does not pay for all-MiniLM-L6-v2 int8 on a CPU at chunk length (median
~150 word pieces): the cost is nearly linear in the word pieces, and only short texts gain from
sharing a run. Random word pieces; CPU time of this process, so other load matters less.

    python bench/model_lengths.py
"""

from __future__ import annotations

import os
import resource
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(BENCH.parent.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(BENCH / ".cache" / "paqad-home"))

from paqad.embed import local, model_store  # noqa: E402


def main() -> None:
    import onnxruntime as ort

    folder = model_store.ensure_model(local.DEFAULT_REPO_ID, "int8")
    session = local._session(ort, folder / model_store.onnx_file("int8"))
    rng = np.random.default_rng(0)
    print(f"onnxruntime {ort.__version__}; ms of CPU per text")
    print(f"{'word pieces':>12}{'1 per run':>12}{'4 per run':>12}{'16 per run':>12}")
    for length in (8, 16, 32, 64, 128, 192, 256):
        row = []
        for batch in (1, 4, 16):
            ids = rng.integers(1000, 20000, size=(batch, length)).astype(np.int64)
            ids[:, 0], ids[:, -1] = 101, 102
            feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
            session.run(None, feeds)
            runs = max(3, 2000 // (length * batch))
            before = resource.getrusage(resource.RUSAGE_SELF)
            for _ in range(runs):
                session.run(None, feeds)
            after = resource.getrusage(resource.RUSAGE_SELF)
            cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            row.append(cpu / runs / batch * 1000)
        print(f"{length:>12}" + "".join(f"{ms:>12.2f}" for ms in row))


if __name__ == "__main__":
    main()
