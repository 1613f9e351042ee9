"""Load a language's tree-sitter grammar: the grammar wheels of the seventeen, the language pack
(imported on the first file of a data-file language) and its definition query for the long tail."""

from __future__ import annotations

import importlib
from functools import lru_cache
from typing import Any

from paqad.index.chunking.grammars import GRAMMARS, Grammar
from paqad.index.grammar_files import grammar_files

@lru_cache(maxsize=None)
def ts_language(language: str) -> Any:
    """The ``tree_sitter.Language`` of ``language`` (a SOURCE_LANGUAGES name), loaded once."""
    from tree_sitter import Language

    if language not in GRAMMARS:  # the long tail: a grammar of the language pack, named by its data file
        from tree_sitter_language_pack import get_language  # imported only when such a file is cut

        return get_language(grammar_files()[language].grammar)
    module_name, function_name = GRAMMARS[language]
    return Language(getattr(importlib.import_module(module_name), function_name)())


@lru_cache(maxsize=None)
def definition_query(language: str) -> Any:
    """The compiled definition query of a data-file language (its whole ``.scm`` file)."""
    from tree_sitter import Query

    return Query(ts_language(language), grammar_files()[language].query)


@lru_cache(maxsize=None)
def file_grammar(language: str) -> Grammar:
    """Node types of a data-file language: definitions come from its query, not from here."""
    data = grammar_files()[language]
    return Grammar(transparent=frozenset(data.transparent), bodies=frozenset(data.bodies))


def node_key(node: Any) -> tuple[int, int, str]:
    """A node's identity across query matches and tree walks: (start byte, end byte, type)."""
    return node.start_byte, node.end_byte, node.type
