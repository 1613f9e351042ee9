"""Experiment (not used by paqad-ai): int8 batching without batch-mates changing a vector.

all-MiniLM-L6-v2's int8 file quantises each matrix product's input with one scale per run
(``DynamicQuantizeLinear``), so a text's vector depends on what else is in its batch. This
rewrites every ``DynamicQuantizeLinear`` into per-sample quantisation (min/max over each
sample's tokens and features, the same formula) and corrects the zero point after
``MatMulInteger`` (onnxruntime accepts only a scalar A zero point): ``(x - zp) . W =
x . W - zp * colsum(W)``. Then it checks that a single run equals the original file's, that
equal-length batches equal single runs, and times both files (CPU per text, one thread).

Measured (bench/README.md, "Model throughput"): bit-identical results, but about 30 % more CPU
per word piece, and batching gains nothing at chunk length: dropped. Needs ``pip install onnx``.

    python bench/per_sample_quant.py
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
os.environ.setdefault("PAQAD_MODEL_MIRROR", str(BENCH.parent.parent / "shared" / "models"))
os.environ.setdefault("PAQAD_HOME", str(BENCH / ".cache" / "paqad-home"))


def rewrite(src: Path, dst: Path) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(src)
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    extra = [numpy_helper.from_array(np.array(0.0, np.float32), "pq_zero"),
             numpy_helper.from_array(np.array(255.0, np.float32), "pq_255")]
    nodes, after = [], {}
    for node in graph.node:
        if node.op_type != "DynamicQuantizeLinear":
            nodes.append(node)
            continue
        x, (q, s, z) = node.input[0], node.output
        p = x.replace("/", "_") + "_pq"
        nodes += [
            helper.make_node("ReduceMin", [x], [p + "min0"], axes=[1, 2], keepdims=1),
            helper.make_node("ReduceMax", [x], [p + "max0"], axes=[1, 2], keepdims=1),
            helper.make_node("Min", [p + "min0", "pq_zero"], [p + "min"]),
            helper.make_node("Max", [p + "max0", "pq_zero"], [p + "max"]),
            helper.make_node("Sub", [p + "max", p + "min"], [p + "range"]),
            helper.make_node("Div", [p + "range", "pq_255"], [s]),
            helper.make_node("Div", [p + "min", s], [p + "minq"]),
            helper.make_node("Sub", ["pq_zero", p + "minq"], [p + "zp0"]),
            helper.make_node("Clip", [p + "zp0", "pq_zero", "pq_255"], [p + "zp1"]),
            helper.make_node("Round", [p + "zp1"], [p + "zpf"]),
            helper.make_node("Div", [x, s], [p + "xs"]),
            helper.make_node("Round", [p + "xs"], [p + "xr"]),
            helper.make_node("Add", [p + "xr", p + "zpf"], [p + "xz"]),
            helper.make_node("Clip", [p + "xz", "pq_zero", "pq_255"], [p + "xc"]),
            helper.make_node("Cast", [p + "xc"], [q], to=TensorProto.UINT8),
            helper.make_node("Cast", [p + "zpf"], [z + "_i32"], to=TensorProto.INT32),
        ]
        for mm in consumers[q]:
            assert mm.op_type == "MatMulInteger" and mm.input[2] == z
            w = numpy_helper.to_array(inits[mm.input[1]]).astype(np.int32)
            wz = numpy_helper.to_array(inits[mm.input[3]]).astype(np.int32)
            colsum = mm.input[1] + "_pq_colsum"
            extra.append(numpy_helper.from_array((w - wz[None, :]).sum(axis=0).astype(np.int32), colsum))
            out = mm.output[0]
            mm.input[2] = ""
            mm.output[0] = out + "_pq_raw"
            after[mm.output[0]] = [helper.make_node("Mul", [z + "_i32", colsum], [out + "_pq_corr"]),
                                   helper.make_node("Sub", [out + "_pq_raw", out + "_pq_corr"], [out])]
    final = []
    for node in nodes:
        final.append(node)
        if node.op_type == "MatMulInteger" and node.output[0] in after:
            final += after[node.output[0]]
    del graph.node[:]
    graph.node.extend(final)
    graph.initializer.extend(extra)
    onnx.checker.check_model(model)
    onnx.save(model, dst)


def main() -> None:
    import onnxruntime as ort

    from paqad.embed import local, model_store

    folder = model_store.ensure_model(local.DEFAULT_REPO_ID, "int8")
    original = folder / model_store.onnx_file("int8")
    with tempfile.TemporaryDirectory() as tmp:
        rewritten = Path(tmp) / "per_sample.onnx"
        rewrite(original, rewritten)
        sessions = {}
        for name, path in (("original", original), ("per-sample", rewritten)):
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = 1
            opts.log_severity_level = 3
            sessions[name] = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        rng = np.random.default_rng(0)

        def run(name: str, ids: np.ndarray) -> np.ndarray:
            feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
            return sessions[name].run(["last_hidden_state"], feeds)[0]

        batch = rng.integers(1000, 20000, size=(8, 150)).astype(np.int64)
        batch[:, 0], batch[:, -1] = 101, 102
        single_orig = np.concatenate([run("original", batch[i : i + 1]) for i in range(8)])
        single_new = np.concatenate([run("per-sample", batch[i : i + 1]) for i in range(8)])
        print("single run, per-sample vs original: identical" if np.array_equal(single_new, single_orig)
              else f"single run differs: max {np.abs(single_new - single_orig).max():.2e}")
        together = run("per-sample", batch)
        print("batch of 8 equal-length texts vs single runs (per-sample): identical" if np.array_equal(together, single_new)
              else f"batch differs: max {np.abs(together - single_new).max():.2e}")
        for name in sessions:
            for size in (1, 8):
                ids = batch[:size]
                run(name, ids)
                before = resource.getrusage(resource.RUSAGE_SELF)
                for _ in range(10):
                    run(name, ids)
                after = resource.getrusage(resource.RUSAGE_SELF)
                cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / 10 / size
                print(f"{name:<11} {size} x 150 word pieces per run: {cpu * 1000:6.2f} ms of CPU per text")


if __name__ == "__main__":
    sys.exit(main())
