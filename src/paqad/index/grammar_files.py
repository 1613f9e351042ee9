"""Per-language grammar data files: one ``chunking/queries/<language>.scm`` per language.

Each file is a tree-sitter query (the definition captures, as aider's ``<lang>-tags.scm``)
preceded by ``; key: value`` header lines saying which grammar of the language pack parses it,
which files are written in it and how a project reveals it. Adding a language is adding one
such file (and its test); nothing here is imported by the prompt hook's search path except
the header read that :mod:`paqad.index.languages` needs (a few kB read once per process).

Header keys (space-separated lists; all but ``grammar`` and ``extensions`` optional):

* ``grammar``: the language name in ``tree_sitter_language_pack.get_language``;
* ``script``: for a single-file component language (Vue, Svelte), the language its ``@script``
  captures (a ``<script>`` element's text) are cut as when the element has no ``lang="ts"``
  (:mod:`paqad.index.chunking.components`);
* ``file_module``: ``Stem`` when a file is a module named by its file name, capitalised
  (OCaml's ``angstrom.ml`` is ``Angstrom``): the symbol table then names its definitions
  ``Angstrom.choice``, nested modules included (``Angstrom.Choice.x``);
* ``extensions``: lower-case file suffixes with the dot; ``filenames``: exact file names;
* ``manifests``: file names or globs whose presence in a project detects the language;
  ``excluded_dirs``: the build/dependency folders its tools write;
* ``transparent``: node types whose members are chunked as if at the enclosing level;
  ``bodies``: node types flattened when a container definition is opened;
  ``attached``: node types directly above a definition that join its chunk (``@spec``).

Query captures: ``@definition.function`` / ``@definition.method`` (a function chunk),
``@definition.class`` / ``.module`` / ``.interface`` / ``.type`` (a container, opened into one
chunk per member when over budget), ``@name`` (the name; several ``@name`` captures are joined
with ``.``: Terraform's ``aws_s3_bucket.logs``), ``@module`` (a module header, in a pattern of its
own: Elm's ``module Parser.Advanced exposing``, Perl's ``package URI::mailto;``; the symbol table
then names every definition below it ``Parser.Advanced.keyword`` up to the next header, while the
chunk's symbol stays ``keyword``; see :mod:`paqad.index.chunking.tags`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from paqad.errors import PaqadError

# Read by path, not importlib.resources: the chunking package imports languages.py, which
# imports this module, so importing paqad.index.chunking here would be circular.
QUERY_DIR = Path(__file__).resolve().parent / "chunking" / "queries"
_LIST_KEYS = ("extensions", "filenames", "manifests", "excluded_dirs", "transparent", "bodies", "attached")


@dataclass(frozen=True)
class GrammarFile:
    """One language's data file: its header fields and the query text below them."""

    language: str
    grammar: str
    extensions: tuple[str, ...]
    filenames: tuple[str, ...] = ()
    manifests: tuple[str, ...] = ()
    excluded_dirs: tuple[str, ...] = ()
    transparent: tuple[str, ...] = ()
    bodies: tuple[str, ...] = ()
    attached: tuple[str, ...] = ()
    file_module: str = ""
    script: str = ""
    query: str = ""


class GrammarFileError(PaqadError):
    """A grammar data file without ``grammar``/``extensions`` or with an unknown header key
    (a packaging defect: raised at import, so the test suite catches it)."""


def parse_grammar_file(language: str, text: str) -> GrammarFile:
    """The header and query of one data file's ``text``; raises GrammarFileError when the
    header lacks ``grammar`` or ``extensions`` or names an unknown key."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith(";"):
            break
        key, sep, value = line.lstrip("; ").partition(":")
        if sep and key.strip() in ("grammar", "file_module", "script", *_LIST_KEYS):
            fields[key.strip()] = value.strip()
        elif sep and " " not in key.strip():
            raise GrammarFileError(f"{language}.scm: unknown header key {key.strip()!r}")
    if not fields.get("grammar") or not fields.get("extensions"):
        raise GrammarFileError(f"{language}.scm: the header needs 'grammar:' and 'extensions:' lines")
    if fields.get("file_module", "Stem") != "Stem":
        raise GrammarFileError(f"{language}.scm: 'file_module:' can only be 'Stem'")
    lists = {key: tuple(fields.get(key, "").split()) for key in _LIST_KEYS}
    return GrammarFile(language=language, grammar=fields["grammar"], query=text,
                       file_module=fields.get("file_module", ""), script=fields.get("script", ""), **lists)


@lru_cache(maxsize=1)
def grammar_files() -> Mapping[str, GrammarFile]:
    """Every ``queries/*.scm`` data file by language name (the file's stem), sorted by name."""
    files = sorted(QUERY_DIR.glob("*.scm")) if QUERY_DIR.is_dir() else []
    return MappingProxyType({p.stem: parse_grammar_file(p.stem, p.read_text(encoding="utf-8")) for p in files})
