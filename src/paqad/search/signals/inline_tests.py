"""Inline test modules (issue 24, round 8): a Rust source file's ``#[cfg(test)] mod tests { ... }``
is test code in a file whose path is not a test path, so ``tests_prior`` never reaches it.

Rust keeps unit tests beside the code they test: rand's ``src/rng.rs`` ends in a ``mod test``
whose ``test_rng_boxed_trait`` says ``RngCore`` and ``Rng`` as often as the trait it tests, and
for "which trait does a new generator implement so the Rng methods work on it?" that test was
the first chunk returned, above ``impl<R: RngCore + ?Sized> Rng for R {}`` of the same file. With
``RankingOptions.inline_test_prior`` below 1.0, a Rust chunk inside such a module x that factor:

- a chunk is inside one when its symbol's first part (``test.test_fill`` -> ``test``) is the name
  of a module declared right after ``#[cfg(test)]`` in its file (the file's text from the index,
  :attr:`RankingContext.file_text`; without it, the chunk's own text), or when its own text
  carries a ``#[test]`` attribute (a test function outside such a module);
- waived when the query asks for tests (:attr:`QueryInfo.mentions_tests`, as ``tests_prior``),
  for a file the query names, and for a chunk that defines a query identifier by the Rust rule
  (:func:`~paqad.search.signals.trait_impls.defines_rust_name`: a symbol query naming a test
  function asks for it; a test's ``let s: &mut dyn Sink`` does not define ``Sink``).

``passage_choice`` does not trade a file's thin best chunk (a doc comment) for one of these
either: the test is not the passage that answers. The code chunks of the same file are untouched, so the file keeps its rank through them; a file
whose only candidate is its test module falls as a test file would (``tests_prior`` is 0.1; the
factor here is milder because the file also holds the code under test).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from paqad.search.signals.symbol_shares import symbol_parts
from paqad.search.signals.trait_impls import defines_rust_name

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# `#[cfg(test)]` then (other attributes allowed) `mod name` or `pub(crate) mod name`
_CFG_TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)")
_TEST_ATTRIBUTE = re.compile(r"^[ \t]*#\[(?:\w+::)?test\]", re.MULTILINE)


@lru_cache(maxsize=1024)
def cfg_test_modules(text: str) -> frozenset[str]:
    """Names of the modules ``text`` declares under ``#[cfg(test)]`` (``{'tests'}``)."""
    return frozenset(_CFG_TEST_MOD.findall(text))


def is_inline_test(symbol: str | None, text: str, file_text: str) -> bool:
    """True for a Rust chunk (``symbol``, ``text``) inside a ``#[cfg(test)]`` module of the file
    whose text is ``file_text``, or carrying a ``#[test]`` attribute itself."""
    parts = symbol_parts(symbol)
    if parts and parts[0] in cfg_test_modules(file_text):
        return True
    return bool(_TEST_ATTRIBUTE.search(text))


def in_force(context: RankingContext) -> bool:
    """Whether the signal runs for this query: switched on, not ablated by name, and the query does
    not ask for tests."""
    options = context.options
    return (options.priors and options.inline_test_prior < 1.0 and "inline_tests" not in options.off
            and not context.info.mentions_tests)


def inline_test_ids(context: RankingContext, ids) -> set[int]:
    """The chunk ids of ``ids`` this signal judges test code (Rust chunks of inline test modules;
    files the query names and chunks defining a query identifier left out)."""
    found: set[int] = set()
    texts: dict[str, str] = {}
    for cid in ids:
        row = context.rows[cid]
        if row.language != "rust" or row.path in context.named_paths or any(
                defines_rust_name(row.text, identifier.name) for identifier in context.info.identifiers):
            continue
        if row.path not in texts:
            texts[row.path] = context.file_text(row.path) if context.file_text is not None else row.text
        if is_inline_test(row.symbol, row.text, texts[row.path]):
            found.add(cid)
    return found


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores x ``inline_test_prior`` on Rust chunks of inline test modules (see the module docstring)."""
    if context.info.mentions_tests:
        return scores
    out = dict(scores)
    for cid in inline_test_ids(context, scores):
        out[cid] *= context.options.inline_test_prior
    return out
