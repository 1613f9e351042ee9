"""Docs-site code: source files in a top-level documentation folder build or show the docs, they
are not the project's code (issue 24, round 7).

A project's ``docs/``, ``doc/``, ``website/``, ``site/``, ``book/``, ``documentation/`` or
``manual/`` folder at its root holds, besides pages, the scripts that build them (jq's
``docs/build_website.py``, ``docs/build_mantests.py``: Python in a C project), a docs site's
own code (jotai's 51 Gatsby files under ``website/``, immer's ``website/docusaurus.config.js``)
and a book's listings (CLI11's ``book/code/*.cpp``). They share the words of the pages they build,
so a question about the library's behaviour found them above the C source (jq: a docs script first
for "how does try ... catch stop an error ..."). With ``RankingOptions.docs_code`` on, a code file
there is ``prose`` for the path priors (x ``prose_prior``, waived when the question asks about
the docs), as ``docs_data`` does for a docs site's YAML pages. Only the root's folder: a nested
``doc/`` is code of its package (ripgrep's ``crates/core/flags/doc/man.rs`` writes the man page
from the flags' definitions). No parameter of its own.
"""

from __future__ import annotations

import re

from paqad.search.priors import DATA_LANGUAGES, PROSE_LANGUAGES

_ROOT_DOCS = re.compile(r"^(docs?|documentation|website|site|book|manual)/", re.IGNORECASE)


def is_docs_code(path: str, language: str) -> bool:
    """True for a source file (not prose, not data) under a documentation folder at the project's
    root: ``docs/build_website.py``, ``website/gatsby-node.js``; not ``crates/core/flags/doc/man.rs``."""
    return language not in PROSE_LANGUAGES and language not in DATA_LANGUAGES and bool(_ROOT_DOCS.match(path))
