"""``rag_embedding_precision`` only matters for the ONNX family: changing it while the index is
built with a static model (ModelSpec.family static) does not make the index stale."""

from __future__ import annotations

from conftest import run_cli

from paqad.config import load_settings
from paqad.project import ProjectPaths
from paqad.store.state import index_state

STATIC = "local/all-MiniLM-L6-v2-static256"


def test_a_precision_change_on_a_static_model_keeps_the_index_valid(git_repo) -> None:
    root = git_repo({"pyproject.toml": '[project]\nname = "parcels"\n',
                     "src/rates.py": "def shipping_rate(weight):\n    return weight * 7\n"})
    code, out, err = run_cli("rag", "init", "--provider", "local", "--model", STATIC, "--yes", project=root)
    assert code == 0, err
    paths = ProjectPaths(root)
    for precision in ("int8", "fp32"):
        settings = load_settings(paths, environ={"PAQAD_RAG_EMBEDDING_MODEL": STATIC, "PAQAD_RAG_EMBEDDING_PRECISION": precision})
        state = index_state(paths, settings)
        assert (precision, state.valid, state.reasons) == (precision, True, ())
    onnx = load_settings(paths, environ={"PAQAD_RAG_EMBEDDING_MODEL": "Xenova/all-MiniLM-L6-v2",
                                         "PAQAD_RAG_EMBEDDING_PRECISION": "fp32"})  # an ONNX model: one switch reason
    assert index_state(paths, onnx).reasons == (
        f"embedding model changed: index has local {STATIC}, settings want local Xenova/all-MiniLM-L6-v2",)
