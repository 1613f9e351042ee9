"""Crate roots as barrels: a Rust ``lib.rs`` that only declares modules and re-exports is the
crate's barrel, as ``mod.rs`` is a module's (issue 24, round 7).

The barrel prior (``barrel_prior``, waived for questions about a module, package or crate) reads
``mod.rs``, ``__init__.py``, ``index.ts`` and ``package-info.java`` whose chunk is 80 % import,
re-export, module or comment lines (``priors.is_reexport_text``). A crate's root ``src/lib.rs``
is the same thing one level up: in a workspace every crate has one, and a facade crate's is
nothing else (ripgrep's ``crates/grep/src/lib.rs``: six ``pub extern crate grep_x as x;`` lines;
``crates/regex/src/lib.rs``: nine ``mod``/``pub use`` lines). Its ``pub use crate::x::Y`` lines
name every public type, so a question about one finds the root above the module that defines
it. With ``RankingOptions.crate_roots`` on, a ``lib.rs`` chunk passing the same text test (its
private ``mod x;`` and ``extern crate`` lines counted too) is a barrel; a ``lib.rs`` chunk holding code or prose documentation (``//!`` lines are comments
and count, as in ``mod.rs``) is judged the same way. No parameter of its own.
"""

from __future__ import annotations

import re

from paqad.search.priors import is_reexport_text

_CRATE_ROOT = re.compile(r"(^|/)src/lib\.rs$")
# a crate root's own declaration lines beside the barrel's: private `mod x;`, `pub(crate) use`,
# `pub extern crate grep_cli as cli;`, attributes (`#[cfg(feature = "std")]` is already a `#` line)
_ROOT_LINE = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(mod|use|extern\s+crate)\s")


def is_crate_root_barrel(path: str, language: str, text: str) -> bool:
    """True for a chunk of a Rust crate root (``src/lib.rs``) that only declares and re-exports."""
    return language == "rust" and bool(_CRATE_ROOT.search(path)) and is_reexport_text(text, _ROOT_LINE)
