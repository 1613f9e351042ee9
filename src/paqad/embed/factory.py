"""Pick the embedder the settings ask for (DESIGN §4, §7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.errors import ConfigError, ModelMissingError, PaqadError, is_environment_error
from paqad.project import ProjectPaths, find_project_root
from paqad.embed.base import Embedder

if TYPE_CHECKING:
    from paqad.config import Settings


def get_embedder(settings: Settings, paths: ProjectPaths | None = None, *, fetch: bool = True) -> Embedder:
    """The embedder for ``settings.rag_embedding_provider`` and ``settings.rag_embedding_model``.

    ``local`` -> :class:`LocalEmbedder` (precision from ``rag_embedding_precision``), or
    :class:`StaticEmbedder` for a static (model2vec) model such as ``minishlab/potion-code-16M``
    (precision does not apply); nothing is loaded yet, the files are fetched on first use.
    ``fetch=False`` (the prompt hook and the warm process: no room for a download) requires the
    model files to be in the store already.
    ``openai`` / ``voyageai`` -> the remote provider, which reads its API key via ``paths``
    (default: the project around the current directory). Remote modules are imported only when
    chosen.

    Raises:
        ConfigError: unknown provider.
        ModelMissingError: ``fetch=False`` and the local model is not in the store.
    """
    provider = settings.rag_embedding_provider
    if provider == "local":
        return _local_embedder(settings.rag_embedding_model, settings.rag_embedding_precision, fetch=fetch)
    paths = paths or ProjectPaths(find_project_root())
    if provider == "openai":
        from paqad.embed.openai_provider import OpenAIEmbedder

        return OpenAIEmbedder(settings.rag_embedding_model, paths)
    if provider == "voyageai":
        from paqad.embed.voyage_provider import VoyageEmbedder

        return VoyageEmbedder(settings.rag_embedding_model, paths)
    source = settings.sources.get("rag_embedding_provider", "settings")
    raise ConfigError(f"{source}: rag_embedding_provider={provider!r} is not valid; allowed: local, openai, voyageai")


def _local_embedder(repo_id: str, precision: str, *, fetch: bool) -> Embedder:
    """The local embedder of ``repo_id``: its family (``ModelSpec.family``) picks the module."""
    from paqad.embed import model_store

    if not fetch and not model_store.is_stored(repo_id, precision):
        raise ModelMissingError(
            f"embedding model {repo_id} is not in the model store ({model_store.model_dir(repo_id)}); "
            "the prompt hook never fetches it: run `paqad-ai rag model pull`")
    if model_store.spec_for(repo_id).family == model_store.ModelFamily.STATIC:
        from paqad.embed.static import StaticEmbedder

        return StaticEmbedder(repo_id)
    from paqad.embed.local import LocalEmbedder

    return LocalEmbedder(repo_id, precision)


def load_model(settings: Settings, paths: ProjectPaths | None = None, *, fetch: bool = True) -> Embedder:
    """The configured embedder, ready to embed: for the local provider, its model files are in the
    store (fetched once when ``fetch``) and load and answer (one tiny embedding run, which the
    first real embedding would pay anyway); a remote provider has its key.

    ``fetch=False`` never copies or downloads model files (the prompt hook's budget has no room
    for a download): a model not in the store is reported as missing.

    Raises:
        ModelMissingError: the model is not in the store and cannot be fetched, or its files
            cannot be loaded (damaged); the message names the folder and the command that fixes it.
        OSError: the model store cannot be written (:func:`paqad.errors.is_environment_error`: a
            read-only, full or misplaced ``PAQAD_HOME``), for the CLI to name the path and the fix.
        KeyMissingError, ConfigError: from :func:`get_embedder`.
    """
    embedder = get_embedder(settings, paths, fetch=fetch)
    if embedder.provider != "local":
        return embedder
    repo_id = settings.rag_embedding_model
    try:
        embedder.fingerprint  # noqa: B018 - fetches the files when absent, or raises ModelMissingError
        vector = embedder.embed_query("paqad")
        if vector.shape != (embedder.dimension,):
            raise ValueError(f"it returned a vector of shape {vector.shape}, expected ({embedder.dimension},)")
    except PaqadError:
        raise
    except OSError as exc:
        if is_environment_error(exc):  # PAQAD_HOME read-only, full, or a file: not a damaged model
            raise
        raise _cannot_load(repo_id, exc) from exc
    except Exception as exc:  # onnxruntime and tokenizers raise their own types for a damaged file
        raise _cannot_load(repo_id, exc) from exc
    return embedder


def _cannot_load(repo_id: str, exc: BaseException) -> ModelMissingError:
    from paqad.embed import model_store

    folder = model_store.model_dir(repo_id)
    detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
    return ModelMissingError(
        f"embedding model {repo_id} in {folder} cannot be loaded ({detail}); remove {folder} and run "
        "`paqad-ai rag model pull`, or run `paqad-ai rag model import PATH`")
