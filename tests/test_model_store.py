"""The model store: fetch once from the mirror, verify, offline errors, import, list, CLI."""

from __future__ import annotations

import json
import os
import shutil
import socket
from pathlib import Path

import pytest
from conftest import MODEL_FILES, MODEL_MIRROR

from paqad.cli.main import main
from paqad.errors import ModelMissingError, PaqadError
from paqad.embed import model_store
from paqad.embed.model_store import KNOWN_MODELS, MARKER_NAME, ensure_model, import_model, list_models, model_dir

REPO = "Xenova/all-MiniLM-L6-v2"
MANIFEST = MODEL_FILES  # sha256 and size of the mirror's files (checked by conftest)
INT8_FILES = ["config.json", "onnx/model_quantized.onnx", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"]
ALL_FILES = sorted(INT8_FILES + ["onnx/model.onnx"])


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list:
    """Make every outgoing connection or DNS lookup fail, and record the attempts."""
    attempts: list = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


def _tmp_leftovers(home: Path) -> list[Path]:
    tmp_root = home / "models" / ".tmp"
    return list(tmp_root.iterdir()) if tmp_root.exists() else []


def _link_mirror(dest_root: Path, replace: dict[str, bytes] | None = None) -> Path:
    """A mirror whose files link to the shared mirror, except ``replace`` (relpath -> bytes)."""
    repo = dest_root / REPO
    for rel in MANIFEST:
        target = repo / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if replace and rel in replace:
            target.write_bytes(replace[rel])
        else:
            target.symlink_to(MODEL_MIRROR / REPO / rel)
    (repo / "MANIFEST.json").write_text(json.dumps({"files": MANIFEST}), encoding="utf-8")
    return dest_root


def test_ensure_model_copies_needed_files_from_mirror_once(fresh_home, tmp_path, monkeypatch, no_network):
    folder = ensure_model(REPO)

    assert folder == fresh_home / "models" / "Xenova" / "all-MiniLM-L6-v2"
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == sorted(INT8_FILES + [MARKER_NAME])
    marker = json.loads((folder / MARKER_NAME).read_text())["files"]
    assert {rel: (rec["sha256"], rec["size"]) for rel, rec in marker.items()} == {
        rel: (MANIFEST[rel]["sha256"], MANIFEST[rel]["size"]) for rel in INT8_FILES
    }
    assert _tmp_leftovers(fresh_home) == []
    onnx_stat = (folder / "onnx/model_quantized.onnx").stat()

    # Second call: an empty mirror would fail any copy, so success means nothing was fetched.
    empty_mirror = tmp_path / "empty-mirror"
    empty_mirror.mkdir()
    monkeypatch.setenv("PAQAD_MODEL_MIRROR", str(empty_mirror))
    assert ensure_model(REPO) == folder
    again = (folder / "onnx/model_quantized.onnx").stat()
    assert (again.st_ino, again.st_mtime_ns) == (onnx_stat.st_ino, onnx_stat.st_mtime_ns)
    assert no_network == []


def test_ensure_model_adds_fp32_file_next_to_int8(fresh_home):
    ensure_model(REPO, "int8")
    folder = ensure_model(REPO, "fp32")
    marker = model_store.read_marker(REPO)
    assert sorted(marker) == ALL_FILES
    assert marker["onnx/model.onnx"]["sha256"] == MANIFEST["onnx/model.onnx"]["sha256"]
    assert (folder / "onnx/model.onnx").stat().st_size == 90382605


def test_corrupted_mirror_file_is_refused_and_nothing_is_kept(fresh_home, tmp_path, monkeypatch):
    good = (MODEL_MIRROR / REPO / "tokenizer.json").read_bytes()
    bad = good[:1000] + (b"X" if good[1000:1001] != b"X" else b"Y") + good[1001:]  # same size, one byte off
    mirror = _link_mirror(tmp_path / "mirror", {"tokenizer.json": bad})
    monkeypatch.setenv("PAQAD_MODEL_MIRROR", str(mirror))

    with pytest.raises(ModelMissingError) as err:
        ensure_model(REPO)

    message = str(err.value)
    assert "\n" not in message
    assert str(mirror / REPO / "tokenizer.json") in message
    assert "MANIFEST.json" in message
    assert not model_dir(REPO).exists()
    assert _tmp_leftovers(fresh_home) == []


def test_missing_model_offline_names_files_and_import_command(fresh_home, monkeypatch, no_network):
    monkeypatch.delenv("PAQAD_MODEL_MIRROR")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    with pytest.raises(ModelMissingError) as err:
        ensure_model(REPO)

    message = str(err.value)
    assert "\n" not in message
    for rel in INT8_FILES:
        assert rel in message
    assert "onnx/model.onnx" not in message.replace("onnx/model_quantized.onnx", "")
    assert REPO in message
    assert str(fresh_home / "models" / "Xenova" / "all-MiniLM-L6-v2") in message
    assert "paqad-ai rag model import PATH" in message
    assert "PAQAD_MODEL_MIRROR" in message
    assert no_network == []
    assert not (fresh_home / "models" / "Xenova").exists()


def test_hub_failure_becomes_model_missing_error(fresh_home, monkeypatch, no_network):
    # Not offline by our check, but no connection can be made: the hub path must fail cleanly.
    monkeypatch.delenv("PAQAD_MODEL_MIRROR")
    monkeypatch.delenv("HF_HUB_OFFLINE")

    with pytest.raises(ModelMissingError) as err:
        ensure_model(REPO)

    assert "download from the model hub failed" in str(err.value)
    assert "paqad-ai rag model import PATH" in str(err.value)
    assert not model_dir(REPO).exists()
    assert _tmp_leftovers(fresh_home) == []
    assert not fresh_home.exists()  # issue 20.14: a failed fetch (a probe with no model) creates nothing


def test_a_probe_with_no_model_creates_nothing(fresh_home, git_repo, monkeypatch, no_network):
    """Issue 20.14: a command that only reads leaves no ``models/.tmp`` behind."""
    from conftest import run_cli

    root = git_repo({"README.md": "# Parcels\n\nShipping rates for parcels, computed per kilogram with a minimum.\n"})
    assert run_cli("rag", "init", "--provider", "local", project=root)[0] == 0
    for path in sorted(fresh_home.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    fresh_home.rmdir()
    monkeypatch.delenv("PAQAD_MODEL_MIRROR")
    monkeypatch.delenv("HF_HUB_OFFLINE")
    code, out, err = run_cli("rag", "probe", "shipping rate per kilogram", project=root)
    assert code == 0 and "README.md" in out, err
    assert "semantic search unavailable" in err
    assert not fresh_home.exists()


def test_mirror_without_the_model_is_a_clear_error(fresh_home, tmp_path, monkeypatch):
    monkeypatch.setenv("PAQAD_MODEL_MIRROR", str(tmp_path))
    with pytest.raises(ModelMissingError, match=rf"PAQAD_MODEL_MIRROR={tmp_path} has no {REPO}/ folder\); it needs "
                                                 r"config\.json, tokenizer\.json") as raised:
        ensure_model(REPO)
    assert "not a local model paqad-ai knows" not in str(raised.value)
    (tmp_path / REPO).mkdir(parents=True)
    with pytest.raises(ModelMissingError, match=r"PAQAD_MODEL_MIRROR=.* lacks config\.json, tokenizer\.json"):
        ensure_model(REPO)


def test_a_mirror_that_is_not_a_folder_is_said_to_be_none(fresh_home, tmp_path, monkeypatch):
    monkeypatch.setenv("PAQAD_MODEL_MIRROR", str(tmp_path / "gone"))
    with pytest.raises(ModelMissingError, match=rf"PAQAD_MODEL_MIRROR={tmp_path / 'gone'} is not a folder\); it needs"):
        ensure_model(REPO)


def test_an_unknown_model_id_is_said_to_be_unknown(fresh_home, tmp_path, monkeypatch):
    """Round 8: `rag init --model bogus/model` read as a download problem, not as a typo."""
    monkeypatch.setenv("PAQAD_MODEL_MIRROR", str(tmp_path))
    with pytest.raises(ModelMissingError) as raised:
        ensure_model("bogus/model")
    assert str(raised.value).endswith(
        "; bogus/model is not a local model paqad-ai knows (known: Xenova/all-MiniLM-L6-v2, "
        "Xenova/jina-embeddings-v2-base-code, minishlab/potion-code-16M, local/all-MiniLM-L6-v2-static256): check the id")


def test_a_remote_model_asked_of_the_local_provider_names_its_provider(fresh_home, tmp_path, monkeypatch):
    """Round 11: `rag init --provider local --model text-embedding-3-small` got the paragraph on model files."""
    monkeypatch.setenv("PAQAD_MODEL_MIRROR", str(tmp_path))
    with pytest.raises(ModelMissingError) as raised:
        ensure_model("text-embedding-3-small")
    assert str(raised.value) == (
        "text-embedding-3-small is a model of openai, not a local one: run with `--provider openai` (or give a local "
        "model: Xenova/all-MiniLM-L6-v2, Xenova/jina-embeddings-v2-base-code, minishlab/potion-code-16M, "
        "local/all-MiniLM-L6-v2-static256)")


def test_damaged_store_file_is_fetched_again(fresh_home):
    folder = ensure_model(REPO)
    (folder / "tokenizer.json").write_text("{}")  # size differs from the marker's record

    ensure_model(REPO)

    assert model_store.file_sha256(folder / "tokenizer.json") == MANIFEST["tokenizer.json"]["sha256"]


def test_files_without_marker_are_not_trusted(fresh_home):
    # What an interrupted older fetch could leave: files but no marker.
    folder = model_dir(REPO)
    (folder / "onnx").mkdir(parents=True)
    for rel in INT8_FILES:
        (folder / rel).write_bytes(b"partial")

    ensure_model(REPO)

    assert model_store.file_sha256(folder / "onnx/model_quantized.onnx") == MANIFEST["onnx/model_quantized.onnx"]["sha256"]
    assert sorted(model_store.read_marker(REPO)) == INT8_FILES


def test_bad_precision_and_bad_repo_id():
    with pytest.raises(PaqadError, match="precision 'fp16' is not supported; use one of int8, fp32"):
        ensure_model(REPO, "fp16")
    with pytest.raises(PaqadError, match="not a valid hub repo id"):
        model_dir("../etc")


def test_import_from_model_folder_then_list(fresh_home, monkeypatch, no_network):
    monkeypatch.delenv("PAQAD_MODEL_MIRROR")

    folder = import_model(MODEL_MIRROR / REPO)  # id from the last two path parts

    assert folder == model_dir(REPO)
    assert ensure_model(REPO, "fp32") == folder  # present: no mirror, no network needed
    [entry] = list_models()
    assert entry == {
        "repo_id": REPO,
        "path": str(folder),
        "files": ALL_FILES,
        "precisions": ["int8", "fp32"],
        "size": sum(MANIFEST[rel]["size"] for rel in ALL_FILES),
        "verified": True,
        "dimension": 384,
    }
    assert no_network == []


def test_import_from_mirror_root_and_into_other_id(fresh_home, tmp_path):
    assert import_model(MODEL_MIRROR) == model_dir(REPO)

    copy = tmp_path / "some-folder"
    copy.mkdir()
    for rel in ["config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"]:
        shutil.copy(MODEL_MIRROR / REPO / rel, copy / rel)
    (copy / "onnx").mkdir()
    (copy / "onnx/model_quantized.onnx").symlink_to(MODEL_MIRROR / REPO / "onnx/model_quantized.onnx")
    with pytest.raises(PaqadError, match="cannot tell which model this is; pass --repo-id"):
        import_model(copy)

    import_model(copy, "acme/minilm-copy")
    entries = {e["repo_id"]: e for e in list_models()}
    assert sorted(entries) == [REPO, "acme/minilm-copy"]
    assert entries["acme/minilm-copy"]["precisions"] == ["int8"]
    assert entries["acme/minilm-copy"]["dimension"] == 384  # read from config.json: not a known model


def test_import_of_incomplete_folder_names_the_missing_file(fresh_home, tmp_path):
    folder = tmp_path / "Xenova" / "all-MiniLM-L6-v2"
    folder.mkdir(parents=True)
    shutil.copy(MODEL_MIRROR / REPO / "config.json", folder / "config.json")
    with pytest.raises(PaqadError) as err:
        import_model(folder)
    assert str(err.value) == (
        f"{folder}: lacks tokenizer.json, tokenizer_config.json, special_tokens_map.json, "
        f"onnx/model_quantized.onnx or onnx/model.onnx for model {REPO}; expected a folder laid out like the hub repo"
    )
    assert not model_dir(REPO).exists()


def test_known_models():
    assert KNOWN_MODELS[REPO].dimension == 384 and KNOWN_MODELS[REPO].window == 256
    assert KNOWN_MODELS[REPO].files == tuple(["config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "onnx/model_quantized.onnx"])
    assert KNOWN_MODELS[REPO].files_for("fp32")[-1] == "onnx/model.onnx"
    assert KNOWN_MODELS["Xenova/jina-embeddings-v2-base-code"].dimension == 768


# --- CLI -------------------------------------------------------------------------------------


def test_cli_list_json_empty_then_after_pull(fresh_home, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["rag", "model", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"store": str(fresh_home / "models"), "models": []}

    assert main(["rag", "model", "pull"]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == str(model_dir(REPO))
    assert "fetched onnx/model_quantized.onnx (23.0 MB)" in captured.err

    assert main(["rag", "model", "list", "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)["models"]
    assert (entry["repo_id"], entry["files"], entry["precisions"], entry["verified"]) == (REPO, INT8_FILES, ["int8"], True)

    assert main(["rag", "model", "list"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert header.split("\t") == ["model", "precisions", "dimension", "size", "verified", "path"]
    assert row.split("\t")[:5] == [REPO, "int8", "384", str(entry["size"]), "verified"]


def test_cli_pull_uses_project_precision(fresh_home, tmp_path, monkeypatch, capsys):
    (tmp_path / ".paqad").mkdir()
    (tmp_path / ".paqad" / ".config").write_text("rag_embedding_precision=fp32\n")
    assert main(["rag", "model", "pull", "--project-root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str(model_dir(REPO))
    assert sorted(model_store.read_marker(REPO)) == sorted(["config.json", "onnx/model.onnx", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"])


def test_cli_import_and_offline_pull_error(fresh_home, monkeypatch, capsys):
    monkeypatch.delenv("PAQAD_MODEL_MIRROR")
    assert main(["rag", "model", "pull", REPO]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("paqad-ai: error: embedding model Xenova/all-MiniLM-L6-v2 is not in the model store")
    assert "paqad-ai rag model import PATH" in err

    assert main(["rag", "model", "import", str(MODEL_MIRROR / REPO), "--repo-id", REPO]) == 0
    assert capsys.readouterr().out.strip() == str(model_dir(REPO))
    assert main(["rag", "model", "pull", REPO, "--precision", "fp32"]) == 0
    assert os.path.getsize(model_dir(REPO) / "onnx/model.onnx") == 90382605
