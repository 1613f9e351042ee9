"""The per-user model store: ``paqad_home()/models/<repo id>/...`` (DESIGN §7).

A model folder mirrors the Hugging Face repo layout (``config.json``, ``tokenizer.json``, ...,
``onnx/model_quantized.onnx``). Next to the files sits a marker, ``.paqad-verified.json``, that
records the sha256 and size (bytes) of every file at the moment it was fetched or imported.
Loading trusts the marker and only compares sizes, so a present model costs a few ``stat`` calls
and never touches the network.

Files arrive in a temporary folder under ``models/.tmp/`` on the same file system, are hashed
there, and only then move into place; the marker is written last. A fetch that is interrupted
or fails verification therefore never leaves a model that looks usable.

Sources, in order: the store itself; ``PAQAD_MODEL_MIRROR=DIR`` (copies ``DIR/<repo id>/<file>``,
checked against ``DIR/<repo id>/MANIFEST.json`` when present); the model hub via
``huggingface_hub.hf_hub_download`` unless ``HF_HUB_OFFLINE`` is set.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Callable, Iterable

from paqad.atomic import write_text_atomic
from paqad.config import DEFAULT_MODELS, LOCAL_MODEL_FILES, LOCAL_MODEL_WINDOW, MODEL_PROVIDERS, paqad_home, model_mirror
from paqad.errors import ModelMissingError, ModelSpecError, PaqadError

MARKER_NAME = ".paqad-verified.json"
MANIFEST_NAME = "MANIFEST.json"  # the mirror's own list of sha256 and size per file
_TMP_DIR_NAME = ".tmp"
_STALE_TMP_SECONDS = 24 * 3600  # leftovers of killed fetches older than this are removed
_COPY_CHUNK_BYTES = 1 << 20

# Called as progress(file, bytes_done, bytes_total); bytes_total is None when unknown.
ProgressFn = Callable[[str, int, "int | None"], None]


class ModelFamily(str, Enum):
    """How a local model computes vectors (``ModelSpec.family``)."""

    ONNX = "onnx"  # a transformer run with onnxruntime (paqad.embed.local)
    STATIC = "static"  # a model2vec table of token vectors (paqad.embed.static)


@dataclass(frozen=True)
class ModelSpec:
    """A local embedding model: where it lives on the hub and what it produces.

    Attributes:
        repo_id: hub repo id, e.g. ``"Xenova/all-MiniLM-L6-v2"``.
        files: repo-relative files needed at the default precision (int8), the ONNX file last.
        dimension: embedding length (floats).
        window: the most word pieces the model reads per text, special tokens included.
        family: ``ModelFamily.ONNX`` (a transformer run with onnxruntime, int8 or fp32 file) or
            ``ModelFamily.STATIC`` (a model2vec table, ``paqad.embed.static``; one set of files,
            the precision setting does not apply).
    """

    repo_id: str
    files: tuple[str, ...]
    dimension: int
    window: int
    family: ModelFamily = ModelFamily.ONNX

    def files_for(self, precision: str) -> tuple[str, ...]:
        """The files needed for ``precision`` (``"int8"`` or ``"fp32"``): support files + one ONNX
        file; a static model's files whatever the precision."""
        if self.family == ModelFamily.STATIC:
            return self.files
        return self.support_files + (onnx_file(precision),)

    @property
    def support_files(self) -> tuple[str, ...]:
        """Config and tokenizer files, shared by every precision (a static model: all its files)."""
        return tuple(f for f in self.files if not f.startswith("onnx/"))


# model2vec's own layout (model2vec 0.10 persistence: model.safetensors, tokenizer.json, config.json).
STATIC_FILES = ("config.json", "tokenizer.json", "model.safetensors")


_XENOVA_SUPPORT_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
_DEFAULT_FILES = _XENOVA_SUPPORT_FILES + (LOCAL_MODEL_FILES["int8"],)

# Dimensions from the model cards. Windows: all-MiniLM-L6-v2 was trained with max_seq_length 256
# (sentence-transformers card); jina code v2 reads 8192 but our chunks stay far below 512.
KNOWN_MODELS: dict[str, ModelSpec] = {
    "Xenova/all-MiniLM-L6-v2": ModelSpec("Xenova/all-MiniLM-L6-v2", _DEFAULT_FILES, 384, 256),
    "Xenova/jina-embeddings-v2-base-code": ModelSpec("Xenova/jina-embeddings-v2-base-code", _DEFAULT_FILES, 768, 512),
    # Static models (issue 23). potion-code-16M: 256-d (its model card), 61,826 rows behind a
    # token mapping (its config.json, "vocabulary_quantization"); window: model2vec's default 512.
    "minishlab/potion-code-16M": ModelSpec("minishlab/potion-code-16M", STATIC_FILES, 256, 512, ModelFamily.STATIC),
    # Distilled on this project's machines from the mirror's MiniLM (shared/models, PROVENANCE.md):
    # the offline stand-in that tests and benchmarks the static path. Not a hub repository.
    "local/all-MiniLM-L6-v2-static256": ModelSpec(
        "local/all-MiniLM-L6-v2-static256", STATIC_FILES, 256, 512, ModelFamily.STATIC),
}


def onnx_file(precision: str) -> str:
    """Repo-relative ONNX file for ``precision``; raises PaqadError for anything but int8/fp32."""
    try:
        return LOCAL_MODEL_FILES[precision]
    except KeyError:
        raise ModelSpecError(
            f"model precision {precision!r} is not supported; use one of {', '.join(LOCAL_MODEL_FILES)}"
        ) from None


def spec_for(repo_id: str) -> ModelSpec:
    """The spec of a known model, else a generic one laid out like the Xenova repos.

    For an unknown model ``dimension`` is 0 (read it from ``config.json`` once the files are
    present, see :func:`model_dimension`) and ``window`` is 512 word pieces (BERT's limit); it
    is a static model when the store holds it with a ``model.safetensors`` (imported), else
    laid out like the Xenova repos.
    """
    known = KNOWN_MODELS.get(repo_id)
    if known is not None:
        return known
    return _static_spec(repo_id, 0) if _stored_as_static(repo_id) else ModelSpec(repo_id, _DEFAULT_FILES, 0, 512)


def _static_spec(repo_id: str, dimension: int) -> ModelSpec:
    """A static model not in KNOWN_MODELS (window: model2vec's default 512)."""
    return ModelSpec(repo_id, STATIC_FILES, dimension, 512, ModelFamily.STATIC)


def _stored_as_static(repo_id: str) -> bool:
    """Whether the store holds ``repo_id`` as a static model (imported with its model.safetensors)."""
    try:
        return "model.safetensors" in read_marker(repo_id)
    except PaqadError:  # an invalid id: the generic spec, model_dir reports it where it is used
        return False


def models_root() -> Path:
    """``paqad_home()/models``: the folder every model folder lives under."""
    return paqad_home() / "models"


def model_dir(repo_id: str) -> Path:
    """``paqad_home()/models/<repo_id>``; raises PaqadError for an id that would escape the store."""
    parts = repo_id.split("/")
    if not repo_id or any(p in ("", ".", "..") or p.startswith(".") for p in parts) or "\\" in repo_id:
        raise ModelSpecError(f"model id {repo_id!r} is not a valid hub repo id (expected e.g. Xenova/all-MiniLM-L6-v2)")
    return models_root().joinpath(*parts)


# --- marker ----------------------------------------------------------------------------------


def read_marker(repo_id: str) -> dict[str, dict]:
    """Verified files of ``repo_id`` as ``{relpath: {"sha256": hex, "size": bytes, "source": str}}``.

    Empty when the model was never fetched or the marker is unreadable.
    """
    try:
        data = json.loads((model_dir(repo_id) / MARKER_NAME).read_text(encoding="utf-8"))
        files = data["files"]
        return files if isinstance(files, dict) else {}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _write_marker(folder: Path, repo_id: str, files: dict[str, dict]) -> None:
    data = {"repo_id": repo_id, "files": dict(sorted(files.items()))}
    write_text_atomic(folder / MARKER_NAME, json.dumps(data, indent=2) + "\n")


def _present(folder: Path, marker: dict[str, dict], rel: str) -> bool:
    """True when ``rel`` is in the marker and the file on disk has the recorded size."""
    record = marker.get(rel)
    if not record:
        return False
    try:
        return (folder / rel).stat().st_size == record.get("size")
    except OSError:
        return False


def verified_sha256(repo_id: str, rel: str) -> str | None:
    """The sha256 recorded at fetch/import time for ``rel``, or None. No hashing."""
    record = read_marker(repo_id).get(rel)
    return record.get("sha256") if record else None


def model_dimension(repo_id: str) -> int:
    """Embedding length: from KNOWN_MODELS, else ``hidden_size`` in the stored ``config.json`` (0 if unknown)."""
    spec = spec_for(repo_id)
    if spec.dimension:
        return spec.dimension
    try:
        config = json.loads((model_dir(repo_id) / "config.json").read_text(encoding="utf-8"))
        return int(config.get("hidden_size") or config.get("d_model") or 0)
    except (OSError, ValueError, TypeError):
        return 0


# --- fetching --------------------------------------------------------------------------------


def _missing_error(repo_id: str, files: Iterable[str], reason: str) -> ModelMissingError:
    # Round 8, a new user: `rag init --model bogus/model` got a paragraph on model files and not
    # a word that no such local model is known (a typo reads as a download problem).
    served_by = MODEL_PROVIDERS.get(repo_id, "local")
    if served_by != "local":  # round 11: `--provider local --model text-embedding-3-small` got the paragraph
        return ModelMissingError(f"{repo_id} is a model of {served_by}, not a local one: run with `--provider {served_by}` "
                                 f"(or give a local model: {', '.join(LOCAL_MODEL_WINDOW)})")
    known = "" if repo_id in LOCAL_MODEL_WINDOW else (
        f"; {repo_id} is not a local model paqad-ai knows (known: {', '.join(LOCAL_MODEL_WINDOW)}): check the id")
    return ModelMissingError(
        f"embedding model {repo_id} is not in the model store ({model_dir(repo_id)}) and cannot be fetched "
        f"({reason}); it needs {', '.join(files)}: run `paqad-ai rag model import PATH` with a folder "
        f"holding them (laid out like the hub repo), or set PAQAD_MODEL_MIRROR=DIR with DIR/{repo_id}/...{known}"
    )


def _hub_offline() -> bool:
    # Read the variable at call time: huggingface_hub reads it once, at import.
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in ("1", "ON", "YES", "TRUE")


def _copy_and_hash(src: Path, dst: Path, label: str, progress: ProgressFn | None) -> tuple[str, int]:
    """Copy ``src`` to ``dst`` in one pass, returning (sha256 hex, size in bytes)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    total = src.stat().st_size
    done = 0
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        while chunk := fin.read(_COPY_CHUNK_BYTES):
            digest.update(chunk)
            fout.write(chunk)
            done += len(chunk)
            if progress:
                progress(label, done, total)
    return digest.hexdigest(), done


def file_sha256(path: Path) -> str:
    """sha256 hex of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fin:
        while chunk := fin.read(_COPY_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def _read_manifest(folder: Path) -> dict[str, dict]:
    try:
        files = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8")).get("files", {})
        return files if isinstance(files, dict) else {}
    except (OSError, ValueError, AttributeError):
        return {}


def _check_against_manifest(repo_id: str, rel: str, sha: str, size: int, manifest: dict[str, dict], where: Path) -> None:
    expected = manifest.get(rel)
    if not expected:
        return
    size_differs = expected.get("size") is not None and expected["size"] != size
    if size_differs or expected.get("sha256") not in (None, sha):
        raise ModelMissingError(
            f"{where / rel}: does not match {where / MANIFEST_NAME} (sha256 {sha[:16]}…, {size} bytes; expected "
            f"{str(expected.get('sha256'))[:16]}…, {expected.get('size')} bytes); replace the damaged copy of {repo_id}"
        )


def _stage_from_folder(
    repo_id: str, source: Path, files: Iterable[str], staging: Path, label: str, progress: ProgressFn | None
) -> dict[str, dict]:
    """Copy ``files`` from a hub-layout folder into ``staging``, verify against its MANIFEST.json."""
    manifest = _read_manifest(source)
    records: dict[str, dict] = {}
    for rel in files:
        sha, size = _copy_and_hash(source / rel, staging / rel, rel, progress)
        _check_against_manifest(repo_id, rel, sha, size, manifest, source)
        records[rel] = {"sha256": sha, "size": size, "source": label}
    return records


def _stage_from_hub(repo_id: str, files: Iterable[str], staging: Path, progress: ProgressFn | None) -> dict[str, dict]:
    """Download ``files`` from the hub into ``staging``, all from one commit.

    LFS files (the ONNX weights) have their sha256 as hub ETag; the download is checked against it.
    """
    from huggingface_hub import get_hf_file_metadata, hf_hub_download, hf_hub_url

    records: dict[str, dict] = {}
    revision: str | None = None
    for rel in files:
        meta = get_hf_file_metadata(hf_hub_url(repo_id, rel, revision=revision))
        revision = revision or meta.commit_hash
        if progress:
            progress(rel, 0, meta.size)
        path = Path(hf_hub_download(repo_id, rel, revision=revision, local_dir=staging))
        sha = file_sha256(path)
        size = path.stat().st_size
        etag = (meta.etag or "").strip('"').lower()
        if re.fullmatch(r"[0-9a-f]{64}", etag) and etag != sha:
            raise ModelMissingError(
                f"{repo_id}/{rel}: downloaded file has sha256 {sha[:16]}…, the hub says {etag[:16]}…; "
                "the download is damaged, run `paqad-ai rag model pull` again"
            )
        if progress:
            progress(rel, size, size)
        records[rel] = {"sha256": sha, "size": size, "source": f"hub {repo_id}@{revision}"}
    return records


def _remove_if_empty(folders: Iterable[Path]) -> None:
    """Remove ``folders`` (deepest first) that a fetch created and left empty, so a command whose
    fetch failed (a probe with no model) creates nothing (issue 20.14)."""
    for empty in folders:
        try:
            empty.rmdir()  # only an empty folder goes
        except OSError:
            return


def _new_staging_dir() -> tuple[Path, list[Path]]:
    """A fresh folder under ``models/.tmp/``, and the folders made for it (``.tmp``, ``models``,
    ``PAQAD_HOME``: those that did not exist, deepest first)."""
    tmp_root = models_root() / _TMP_DIR_NAME
    made = [p for p in (tmp_root, tmp_root.parent, tmp_root.parent.parent) if not p.exists()]
    tmp_root.mkdir(parents=True, exist_ok=True)
    now = time.time()
    for old in tmp_root.iterdir():
        try:
            if now - old.stat().st_mtime > _STALE_TMP_SECONDS:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass
    return Path(tempfile.mkdtemp(prefix="fetch-", dir=tmp_root)), made


def _install(repo_id: str, staging: Path, records: dict[str, dict]) -> Path:
    """Move verified files from ``staging`` into the model folder; the marker is written last."""
    target = model_dir(repo_id)
    if not target.exists():
        _write_marker(staging, repo_id, records)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(staging, target)  # atomic: the model appears complete or not at all
            return target
        except OSError:
            if not target.is_dir():  # not a race with another fetch: a real error
                raise
            (staging / MARKER_NAME).unlink(missing_ok=True)
    marker = read_marker(repo_id)
    # Withdraw the marker's word for the files about to change before touching them, so a crash
    # in between leaves them unverified (fetched again) rather than vouched for with wrong data.
    kept = {rel: rec for rel, rec in marker.items() if rel not in records}
    if kept != marker:
        _write_marker(target, repo_id, kept)
    for rel in records:
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / rel, target / rel)
    _write_marker(target, repo_id, {**kept, **records})
    return target


def is_stored(repo_id: str, precision: str = "int8") -> bool:
    """Whether the store holds every file of ``repo_id`` at ``precision`` (marker and sizes; no fetch)."""
    folder, marker = model_dir(repo_id), read_marker(repo_id)
    return all(_present(folder, marker, rel) for rel in spec_for(repo_id).files_for(precision))


def ensure_model(repo_id: str, precision: str = "int8", *, progress: ProgressFn | None = None) -> Path:
    """Return the store folder of ``repo_id`` holding the files for ``precision``, fetching them once.

    A model whose files are all in the marker with matching sizes is returned without any network
    call (no re-hashing either). Otherwise the missing files are copied from
    ``PAQAD_MODEL_MIRROR`` (checked against its MANIFEST.json) or downloaded with
    ``huggingface_hub`` (unless ``HF_HUB_OFFLINE``), hashed, and moved into the store.

    Raises:
        ModelMissingError: the files are absent and cannot be fetched (offline, not in the
            mirror, download failed) or a fetched file fails verification; nothing is left in the store.
        PaqadError: unsupported precision or an invalid repo id.
    """
    spec = spec_for(repo_id)
    needed = spec.files_for(precision)
    folder = model_dir(repo_id)
    marker = read_marker(repo_id)
    missing = [rel for rel in needed if not _present(folder, marker, rel)]
    if not missing:
        return folder

    mirror = model_mirror()
    if mirror is None and _hub_offline():
        raise _missing_error(repo_id, needed, "HF_HUB_OFFLINE is set and PAQAD_MODEL_MIRROR is not")
    if mirror is not None:
        absent = [rel for rel in missing if not (mirror / repo_id / rel).is_file()]
        if absent and not mirror.is_dir():
            raise _missing_error(repo_id, needed, f"PAQAD_MODEL_MIRROR={mirror} is not a folder")
        if absent and not (mirror / repo_id).is_dir():  # the needed files are listed once, after this
            raise _missing_error(repo_id, needed, f"PAQAD_MODEL_MIRROR={mirror} has no {repo_id}/ folder")
        if absent:
            raise _missing_error(repo_id, needed, f"PAQAD_MODEL_MIRROR={mirror} lacks {', '.join(absent)}")

    staging, made = _new_staging_dir()
    try:
        if mirror is not None:
            records = _stage_from_folder(repo_id, mirror / repo_id, missing, staging, f"mirror {mirror}", progress)
        else:
            try:
                records = _stage_from_hub(repo_id, missing, staging, progress)
            except ModelMissingError:
                raise
            except Exception as exc:  # hub, HTTP and socket errors come in many types
                reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
                raise _missing_error(repo_id, needed, f"download from the model hub failed: {reason}") from exc
        return _install(repo_id, staging, records)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        _remove_if_empty(made or [staging.parent])


def import_model(source: Path, repo_id: str | None = None) -> Path:
    """Copy a model from a local folder into the store and verify it; returns the store folder.

    ``source`` is either a folder laid out like the hub repo (``config.json``, ``tokenizer.json``,
    ..., ``onnx/model_quantized.onnx`` and/or ``onnx/model.onnx``) or a mirror root holding
    ``<repo_id>/...``. Without ``repo_id`` the id is taken from the last two path parts of a
    model folder, or from the one known model found under a mirror root (the default model when
    the root holds several). Every ONNX precision
    present is imported. Files are checked against ``MANIFEST.json`` when the folder has one.

    Raises:
        PaqadError: the folder does not exist, lacks a needed file, or the repo id cannot be told.
        ModelMissingError: a file does not match the folder's MANIFEST.json.
    """
    source = Path(source).expanduser().resolve()
    if not source.is_dir():
        raise ModelSpecError(f"{source}: not a folder; pass a folder laid out like the hub repo (config.json, tokenizer.json, onnx/...)")
    folder, repo_id = _locate_import(source, repo_id)
    files = _import_files(folder, repo_id)
    staging, made = _new_staging_dir()
    try:
        records = _stage_from_folder(repo_id, folder, files, staging, f"import {folder}", None)
        return _install(repo_id, staging, records)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        _remove_if_empty(made or [staging.parent])


def _import_files(folder: Path, repo_id: str) -> tuple[str, ...]:
    """The files of ``folder`` to import as ``repo_id``: a static model's three files, or the
    support files and every ONNX precision present. A folder with ``model.safetensors`` and no
    ONNX file is a static model even when its id is not a known one.

    Raises:
        PaqadError: a needed file is absent.
    """
    spec = spec_for(repo_id)
    onnx_present = tuple(f for f in LOCAL_MODEL_FILES.values() if (folder / f).is_file())
    if spec.family == ModelFamily.STATIC or (repo_id not in KNOWN_MODELS and not onnx_present
                                             and (folder / "model.safetensors").is_file()):
        needs = STATIC_FILES
        absent = [rel for rel in needs if not (folder / rel).is_file()]
    else:
        needs = spec.support_files + onnx_present
        absent = [rel for rel in spec.support_files if not (folder / rel).is_file()]
        if not onnx_present:
            absent.append(" or ".join(LOCAL_MODEL_FILES.values()))
    if absent:
        raise ModelSpecError(f"{folder}: lacks {', '.join(absent)} for model {repo_id}; expected a folder laid out like the hub repo")
    return needs


def _looks_like_model(folder: Path) -> bool:
    return (folder / "tokenizer.json").is_file() or (folder / "config.json").is_file()


def _locate_import(source: Path, repo_id: str | None) -> tuple[Path, str]:
    if repo_id:
        model_dir(repo_id)  # validates the id
        if not _looks_like_model(source) and _looks_like_model(source / repo_id):
            return source / repo_id, repo_id
        return source, repo_id
    if _looks_like_model(source):
        guess = f"{source.parent.name}/{source.name}"
        if guess in KNOWN_MODELS:
            return source, guess
        raise ModelSpecError(f"{source}: cannot tell which model this is; pass --repo-id (e.g. --repo-id Xenova/all-MiniLM-L6-v2)")
    found = [rid for rid in KNOWN_MODELS if _looks_like_model(source / rid)]
    if len(found) > 1 and DEFAULT_MODELS["local"] in found:  # a full mirror: the default model
        found = [DEFAULT_MODELS["local"]]
    if len(found) == 1:
        return source / found[0], found[0]
    if not found:
        raise ModelSpecError(f"{source}: holds no model files (config.json, tokenizer.json) nor <repo id>/ folders of known models")
    raise ModelSpecError(f"{source}: holds several models ({', '.join(found)}); pass --repo-id to pick one")


def list_models() -> list[dict]:
    """Models in the store, sorted by repo id.

    Each entry: ``repo_id``, ``path`` (str), ``files`` (verified files present, sorted),
    ``precisions`` (``int8``/``fp32`` available), ``size`` (bytes on disk), ``verified`` (every
    file in the marker is present with its recorded size), ``dimension`` (0 if unknown).
    """
    root = models_root()
    entries = []
    if not root.is_dir():
        return entries
    for marker_path in sorted([*root.glob(f"*/{MARKER_NAME}"), *root.glob(f"*/*/{MARKER_NAME}")]):
        folder = marker_path.parent
        rel_id = folder.relative_to(root).as_posix()
        if rel_id.startswith("."):
            continue
        marker = read_marker(rel_id)
        present = sorted(rel for rel in marker if _present(folder, marker, rel))
        entries.append(
            {
                "repo_id": rel_id,
                "path": str(folder),
                "files": present,
                "precisions": _precisions(rel_id, present),
                "size": sum(marker[rel].get("size", 0) for rel in present),
                "verified": bool(marker) and len(present) == len(marker),
                "dimension": model_dimension(rel_id),
            }
        )
    return sorted(entries, key=lambda e: e["repo_id"])


def _precisions(repo_id: str, present: list[str]) -> list[str]:
    """What ``rag model list`` shows as precisions: the ONNX files present, or ``static``."""
    if spec_for(repo_id).family == ModelFamily.STATIC:
        return ["static"] if "model.safetensors" in present else []
    return [p for p, f in LOCAL_MODEL_FILES.items() if f in present]
