"""Docs-site code: source files in a top-level documentation folder build or show the docs, they
are not the project's code (issue 24, round 7).

A project's ``docs/``, ``doc/``, ``website/``, ``site/``, ``book/``, ``documentation/`` or
``manual/`` folder at its root holds, besides pages, the scripts that build them (jq's
``docs/build_website.py``, ``docs/build_mantests.py``: Python in a C project), a docs site's
own code (jotai's 51 Gatsby files under ``website/``, immer's ``website/docusaurus.config.js``)
and a book's listings (CLI11's ``book/code/*.cpp``). They share the words of the pages they build,
so a question about the library's behaviour found them above the C source (jq: a docs script first
for "how does try ... catch stop an error ..."). With ``RankingOptions.docs_code`` on, a code file
there in a language that is **not one of the project's main languages** (:func:`main_languages`:
a quarter or more of its code files) is ``prose`` for the path priors (x ``prose_prior``, waived
when the question asks about the docs), as ``docs_data`` does for a docs site's YAML pages.
In the project's own language it stays code: a Python project's ``docs/conf.py`` is what a
release commit changes with the version (the git-mined dev set lost Python 0.751 -> 0.605 when it
was prose too), CLI11's ``book/code/*.cpp`` are listings of the library's use. Only the root's
folder: a nested ``doc/`` is code of its package (ripgrep's ``crates/core/flags/doc/man.rs``
writes the man page from the flags' definitions). No tuned parameter (the quarter is not tuned).
"""

from __future__ import annotations

import re

from paqad.search.priors import DATA_LANGUAGES, PROSE_LANGUAGES

_ROOT_DOCS = re.compile(r"^(docs?|documentation|website|site|book|manual)/", re.IGNORECASE)
MAIN_LANGUAGE_SHARE = 0.25  # a language with this share of a project's code files is one of its own


def main_languages(paths) -> frozenset[str]:
    """The languages (``index.languages.language_for_path``) holding ``MAIN_LANGUAGE_SHARE`` or more
    of ``paths``' code files (prose and data left out); empty when there is no code."""
    from paqad.index.languages import language_for_path

    counts: dict[str, int] = {}
    for path in paths:
        language = language_for_path(path)
        if language and language not in PROSE_LANGUAGES and language not in DATA_LANGUAGES:
            counts[language] = counts.get(language, 0) + 1
    total = sum(counts.values())
    return frozenset(lang for lang, n in counts.items() if n >= MAIN_LANGUAGE_SHARE * total) if total else frozenset()


def is_docs_code(path: str, language: str, main: frozenset[str]) -> bool:
    """True for a code file (not prose, not data) under a documentation folder at the project's
    root in a language outside ``main`` (:func:`main_languages`; empty: unknown, False):
    ``docs/build_website.py`` in a C project; not ``docs/conf.py`` in a Python one, not
    ``crates/core/flags/doc/man.rs``."""
    return (bool(main) and language not in main and language not in PROSE_LANGUAGES
            and language not in DATA_LANGUAGES and bool(_ROOT_DOCS.match(path)))
