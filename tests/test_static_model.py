"""The static (model2vec-format) local model family (issue 23).

- ``rag init --model local/all-MiniLM-L6-v2-static256`` (the offline stand-in distilled from the
  mirror's MiniLM) indexes the installed ``requests`` package offline, with 256-d vectors, and
  an exact-name and a behaviour query land right;
- a vector is the normalised mean of the token rows (each times its weight, through the token
  mapping), checked on the real stand-in and on a tiny hand-made model with weights and mapping;
- a damaged table is a one-line ModelMissingError naming the file; the hook never fetches;
- switching an index's model to the static one is a stale index that names `rag rebuild`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import git, model_environment, run_cli, write_files
from paqad.config import load_settings
from paqad.embed import model_store
from paqad.embed.factory import get_embedder, load_model
from paqad.embed.static import StaticEmbedder, check_tables
from paqad.errors import ModelMissingError
from paqad.project import ProjectPaths
from paqad.search import load_embedder, search

requests = pytest.importorskip("requests")

STATIC = "local/all-MiniLM-L6-v2-static256"
UNIQUE = "zzq_rebuild_proxy_headers"


@pytest.fixture(scope="module")
def static_project(tmp_path_factory, paqad_home):
    """The installed requests package, one function renamed to a unique name, indexed with the static model."""
    folder = Path(requests.__file__).parent
    files = {f"src/requests/{p.relative_to(folder).as_posix()}": p.read_text(encoding="utf-8")
             for p in sorted(folder.rglob("*.py"))}
    sessions = "src/requests/sessions.py"
    assert "def rebuild_proxies(" in files[sessions]
    files[sessions] = files[sessions].replace("rebuild_proxies", UNIQUE)
    root = tmp_path_factory.mktemp("static") / "requests"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_files(root, files)
    with model_environment(paqad_home):  # a module fixture runs outside the per-test environment
        code, out, err = run_cli("rag", "init", "--provider", "local", "--model", STATIC, "--yes", project=root)
    assert code == 0, err
    assert f"Retrieval on (local, {STATIC})" in out
    return root, files


def _search(root: Path, query: str):
    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={})
    embedder, why = load_embedder(paths, settings)
    assert why is None and embedder.model_id == STATIC
    return search(paths, settings, query, embedder=embedder).results


def test_init_with_the_static_model_builds_a_256_d_index(static_project):
    root, files = static_project
    code, out, _ = run_cli("rag", "status", "--json", project=root)
    assert code == 0
    index = json.loads(out)["index"]
    assert (index["model"], index["dimension"], index["valid"]) == (STATIC, 256, True)
    assert index["files"] == len(files) and index["embedded_chunks"] == index["chunks"]


def test_an_exact_name_lands_on_its_definition(static_project):
    root, files = static_project
    lines = files["src/requests/sessions.py"].split("\n")
    def_line = next(n for n, line in enumerate(lines, start=1) if f"def {UNIQUE}(" in line)
    top = _search(root, UNIQUE)[0]
    assert top.path == "src/requests/sessions.py"
    assert top.start_line <= def_line <= top.end_line


def test_a_behaviour_query_lands_on_the_implementation(static_project):
    root, _ = static_project
    results = _search(root, "how are the retries of a failed connection configured in the HTTP adapter?")
    assert results[0].path == "src/requests/adapters.py"


def test_a_vector_is_the_normalised_mean_of_its_token_rows():
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    folder = model_store.ensure_model(STATIC)
    table = load_file(str(folder / "model.safetensors"))["embeddings"]
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    ids = [tokenizer.token_to_id("shipping"), tokenizer.token_to_id("cost")]
    expected = table[ids].mean(axis=0)
    expected /= np.linalg.norm(expected)
    vectors = StaticEmbedder(STATIC).embed_documents(["shipping cost", "shipping", "∰∰"])
    assert vectors.shape == (3, 256) and vectors.dtype == np.float32
    np.testing.assert_allclose(vectors[0], expected, rtol=0, atol=1e-6)
    np.testing.assert_allclose(vectors[1], table[ids[0]] / np.linalg.norm(table[ids[0]]), rtol=0, atol=1e-6)
    assert not vectors[2].any()  # only the unknown token: the zero vector, as model2vec gives


def _tiny_model(folder: Path, *, mapping: np.ndarray) -> None:
    """A 4-token word-level model2vec folder: 2 rows behind a token mapping, per-token weights."""
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "alpha": 1, "beta": 2, "gamma": 3}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    folder.mkdir(parents=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    embeddings = np.array([[1.0, 0.0, 0.0], [0.0, 3.0, 4.0]], dtype=np.float32)
    weights = np.array([1.0, 2.0, 0.5, 1.0], dtype=np.float32)
    save_file({"embeddings": embeddings, "weights": weights, "mapping": mapping}, str(folder / "model.safetensors"))
    (folder / "config.json").write_text('{"normalize": true, "embedding_dtype": "float32"}', encoding="utf-8")


def test_weights_and_token_mapping_are_applied(tmp_path, fresh_home):
    _tiny_model(tmp_path / "tiny", mapping=np.array([0, 0, 1, 1], dtype=np.int64))
    model_store.import_model(tmp_path / "tiny", "acme/tiny-static")
    assert model_store.spec_for("acme/tiny-static").family == model_store.ModelFamily.STATIC
    embedder = StaticEmbedder("acme/tiny-static")
    vectors = embedder.embed_documents(["alpha beta", "gamma", "nothing known"])
    # alpha -> row 0 x 2 = (2, 0, 0); beta -> row 1 x 0.5 = (0, 1.5, 2); mean (1, 0.75, 1), norm 1.6008
    np.testing.assert_allclose(vectors[0], np.array([1.0, 0.75, 1.0]) / np.sqrt(1 + 0.5625 + 1), atol=1e-6)
    np.testing.assert_allclose(vectors[1], [0.0, 0.6, 0.8], atol=1e-6)
    assert not vectors[2].any()  # the unknown token is dropped
    assert embedder.dimension == 3
    assert embedder.fingerprint.startswith("acme/tiny-static|model.safetensors|") and embedder.fingerprint.endswith("|static")


def test_a_mapping_outside_the_table_is_a_clear_error(tmp_path):
    tensors = {"embeddings": np.zeros((2, 3), np.float32), "mapping": np.array([0, 1, 2, 1])}
    with pytest.raises(ModelMissingError, match=r"model\.safetensors: `mapping` names rows outside the 2 of `embeddings`"):
        check_tables(tensors, 4, 3, tmp_path / "model.safetensors")
    with pytest.raises(ModelMissingError, match=r"`embeddings` has 3 columns, this model has 256"):
        check_tables({"embeddings": np.zeros((4, 3), np.float32)}, 4, 256, tmp_path / "model.safetensors")


def test_the_hook_never_fetches_a_static_model(fresh_home):
    settings = load_settings(ProjectPaths(fresh_home), environ={"PAQAD_RAG_EMBEDDING_MODEL": STATIC})
    with pytest.raises(ModelMissingError, match="the prompt hook never fetches it: run `paqad-ai rag model pull`"):
        get_embedder(settings, fetch=False)
    assert load_model(settings).dimension == 256  # fetched from the mirror
    assert isinstance(get_embedder(settings, fetch=False), StaticEmbedder)
    assert model_store.list_models()[0]["precisions"] == ["static"]


def test_switching_to_the_static_model_is_a_stale_index_that_names_rebuild(git_repo):
    root = git_repo({"src/cart.py": "def shipping_cost(parcel):\n    return parcel.weight * 3\n"})
    assert run_cli("rag", "init", "--provider", "local", "--yes", project=root)[0] == 0
    (root / ".paqad" / ".config").write_text(
        (root / ".paqad" / ".config").read_text(encoding="utf-8").replace("Xenova/all-MiniLM-L6-v2", STATIC),
        encoding="utf-8")
    code, out, err = run_cli("rag", "status", "--json", project=root)
    index = json.loads(out)["index"]
    assert index["valid"] is False and any("model" in r for r in index["stale_reasons"]), index["stale_reasons"]
    code, out, err = run_cli("rag", "probe", "shipping cost", "--no-sync", project=root)
    assert "rag rebuild" in out + err


def test_a_copy_that_is_not_potion_code_is_refused_by_its_pinned_shape(fresh_home):
    # potion-code-16M has no published sha256 to pin: a pulled copy is checked against its shape
    # (256 columns, 61,826 rows). The stand-in (30,522 rows) imported under its id must fail.
    model_store.import_model(model_store.ensure_model(STATIC), "minishlab/potion-code-16M")
    settings = load_settings(ProjectPaths(fresh_home), environ={"PAQAD_RAG_EMBEDDING_MODEL": "minishlab/potion-code-16M"})
    with pytest.raises(ModelMissingError, match=r"`embeddings` has 30522 rows, minishlab/potion-code-16M has 61826"):
        load_model(settings)
