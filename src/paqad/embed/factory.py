"""Pick the embedder the settings ask for (DESIGN §4, §7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.errors import ConfigError
from paqad.project import ProjectPaths, find_project_root
from paqad.embed.base import Embedder

if TYPE_CHECKING:
    from paqad.config import Settings


def get_embedder(settings: Settings, paths: ProjectPaths | None = None) -> Embedder:
    """The embedder for ``settings.rag_embedding_provider`` and ``settings.rag_embedding_model``.

    ``local`` -> :class:`LocalEmbedder` (precision from ``rag_embedding_precision``; nothing is
    loaded yet). ``openai`` / ``voyageai`` -> the remote provider, which reads its API key via
    ``paths`` (default: the project around the current directory). Remote modules are imported
    only when chosen.

    Raises:
        ConfigError: unknown provider.
    """
    provider = settings.rag_embedding_provider
    if provider == "local":
        from paqad.embed.local import LocalEmbedder

        return LocalEmbedder(settings.rag_embedding_model, settings.rag_embedding_precision)
    paths = paths or ProjectPaths(find_project_root())
    if provider == "openai":
        from paqad.embed.openai_provider import OpenAIEmbedder

        return OpenAIEmbedder(settings.rag_embedding_model, paths)
    if provider == "voyageai":
        from paqad.embed.voyage_provider import VoyageEmbedder

        return VoyageEmbedder(settings.rag_embedding_model, paths)
    source = settings.sources.get("rag_embedding_provider", "settings")
    raise ConfigError(f"{source}: rag_embedding_provider={provider!r} is not valid; allowed: local, openai, voyageai")
