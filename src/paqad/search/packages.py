"""Package names of a project's folders (issue 24, round 11; ``RankingOptions.package_qualifiers``).

A query's qualifier often names a *package*, not a folder: ``grep_regex::RegexMatcher`` asks for
the crate whose ``crates/regex/Cargo.toml`` says ``[package] name = "grep-regex"``; ``rand::distr``
for the root crate, whose files' paths (``src/distr/uniform.rs``) hold no ``rand``; ``logrus.Entry``
for the root Go package (``package logrus`` in ``entry.go``). The qualifier rules (module
qualifiers, canonical's path test, re-exports) compare qualifier parts with a path's folders and
file stem; with this, the names of the package a file belongs to count too.

Where names come from (every manifest is an indexed file: TOML and JSON are always indexed):

- ``Cargo.toml``: ``name`` of ``[package]`` and of ``[lib]`` (the library's import name);
  an array of tables (``[[bin]]``, ``[[tool.poetry.source]]``, ``[[project.authors]]``) names no package;
- ``package.json``: the top-level ``"name"``, without an npm scope (``@scope/core`` -> ``core``);
- ``pyproject.toml``: ``name`` of ``[project]`` or ``[tool.poetry]`` (the distribution name);
- a Go file: its ``package`` clause (``_test`` dropped; ``main`` is no name a qualifier uses).

A file belongs to the package of the deepest folder holding a manifest (a workspace member, not
the workspace root's own package). Names are lower case with ``-`` and ``.`` as ``_``, as
:func:`~paqad.search.signals.symbol_shares.path_components` spells folders.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

MANIFESTS = frozenset({"Cargo.toml", "package.json", "pyproject.toml"})
MAX_MANIFESTS = 400  # manifests read per index generation (a monorepo's packages; each is one file read)
# the tables whose `name` is a package's (Cargo's library name too; PEP 621 and Poetry's distribution name)
_NAME_TABLES = frozenset({"package", "lib", "project", "tool.poetry"})
# `[[bin]]`, `[[tool.poetry.source]]`, `[[project.authors]]`: an array of tables is a new table
# whose `name` is no package's (a binary, a package index, a person), so it is kept as `[[...]]`
_TABLE = re.compile(r"^\s*(\[\[?)\s*([\w.\-]+)\s*\]\]?\s*(?:#.*)?$")
_TOML_NAME = re.compile(r"""^\s*name\s*=\s*["']([^"']+)["']""")
_JSON_NAME = re.compile(r'"name"\s*:\s*"([^"]+)"')
_GO_PACKAGE = re.compile(r"^package[ \t]+(\w+)", re.MULTILINE)


def normalise(name: str) -> str:
    """A package name as a path component is compared: lower case, ``-`` and ``.`` as ``_``."""
    return name.lower().replace("-", "_").replace(".", "_")


def manifest_names(path: str, text: str) -> frozenset[str]:
    """The package names a manifest's text declares (see the module docstring); empty for any
    other file or a manifest without a name (a Cargo ``[workspace]`` root)."""
    base = path.rsplit("/", 1)[-1]
    if base == "package.json":
        return _package_json_name(text)
    if base not in MANIFESTS:
        return frozenset()
    names: set[str] = set()
    table = ""
    for line in text.splitlines():
        header = _TABLE.match(line)
        if header:
            table = header.group(2) if header.group(1) == "[" else "[[" + header.group(2) + "]]"
            continue
        match = _TOML_NAME.match(line) if table in _NAME_TABLES else None
        if match:
            names.add(normalise(match.group(1)))
    return frozenset(names)


def _package_json_name(text: str) -> frozenset[str]:
    """The top-level ``"name"`` of a package.json (not an ``"author": {"name": ...}`` before it);
    text that is not JSON falls back to its first ``"name"``."""
    try:
        data = json.loads(text)
    except ValueError:
        match = _JSON_NAME.search(text)
        data = {"name": match.group(1)} if match else None
    name = data.get("name") if isinstance(data, dict) else None
    return frozenset({normalise(name.rsplit("/", 1)[-1])}) if isinstance(name, str) and name else frozenset()


def go_package(text: str) -> str | None:
    """A Go file's package name from its ``package`` clause (``_test`` dropped), None for ``main``
    or without a clause."""
    match = _GO_PACKAGE.search(text)
    if not match:
        return None
    name = match.group(1).removesuffix("_test")
    return None if name == "main" else normalise(name)


@dataclass(frozen=True)
class Packages:
    """Folder (``""``: the project root; else without a trailing ``/``) -> the names of the package
    whose manifest is in it."""

    folders: Mapping[str, frozenset[str]]

    def names(self, path: str) -> frozenset[str]:
        """The names of the package ``path`` belongs to: the deepest manifest folder above it."""
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        while True:
            if folder in self.folders:
                return self.folders[folder]
            if not folder:
                return frozenset()
            folder = folder.rsplit("/", 1)[0] if "/" in folder else ""


def read_packages(paths: Iterable[str], read: Callable[[str], str]) -> Packages:
    """The packages of an index: every manifest among ``paths`` (at most :data:`MAX_MANIFESTS`,
    shallowest first) read with ``read(path)`` and parsed; manifests without a name are left out."""
    manifests = sorted((p for p in paths if p.rsplit("/", 1)[-1] in MANIFESTS), key=lambda p: (p.count("/"), p))
    folders: dict[str, frozenset[str]] = {}
    for path in manifests[:MAX_MANIFESTS]:
        names = manifest_names(path, read(path))
        if names:
            folders[path.rsplit("/", 1)[0] if "/" in path else ""] = names
    return Packages(folders)


def package_names(packages: Callable[[], Packages], file_text: Callable[[str], str] | None) -> Callable[[str], frozenset[str]]:
    """``path`` -> the names of its package (manifests, and a Go file's package clause read with
    ``file_text``), each path's answer kept; ``packages`` is called on the first use only."""
    known: dict[str, frozenset[str]] = {}
    loaded: list[Packages] = []

    def names(path: str) -> frozenset[str]:
        if path not in known:
            if not loaded:
                loaded.append(packages())
            found = loaded[0].names(path)
            if path.endswith(".go") and file_text is not None:
                clause = go_package(file_text(path))
                found = found | {clause} if clause else found
            known[path] = found
        return known[path]

    return names
