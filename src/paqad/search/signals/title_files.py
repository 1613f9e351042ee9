"""Files a prompt's title names (issue 24, round 8): a commit subject or an issue title that says
which module it is about.

"Reject non-HTTP schemes in StreamHandler", "Fix Style/RedundantParentheses in options/env.rb",
"fix(symbolize): use correct format specifier", "refactor: move ConfigFwd/FormatterFwd bodies to
the _inl files": the first line names the file the change is in, by a class named like the file, a
path or file name, or a conventional-commit scope. In a long prompt the title's identifiers get
no definition share (``long_prompt_share`` 0), and a named file is only exempt from the path
priors, so a sibling module that shares more of the body's words ranks above it.

The title (:func:`~paqad.search.signals.title_names.title_line`: the first line, at most 160
characters; the whole of a one-line prompt) names a file by :func:`title_keys`:

- a path or file name with an extension (``options/env.rb``, ``TypeTools.hpp``): that file, by its
  name with the extension (``prog.h`` names ``prog.h``, not ``prog.cc``);
- an unqualified identifier-shaped name (``StreamHandler``, ``ConfigFwd``, ``bytes_mut``), as a
  symbol key (``bytesmut``); a qualified one (``Option::_reduce_results``, ``Faraday::Error``) names
  a member, defined where the definitions signal finds it (``Option_inl.hpp``), not its type's file;
- a conventional-commit scope (``fix(symbolize):``, ``feat(app)!:``): the scope's words; a subsystem
  prefix (``Emitter: Don't output ...``, not a change type such as ``fix:`` or ``docs:``).

A candidate code file (:data:`~paqad.index.languages.SOURCE_LANGUAGES`; not a test, benchmark or
example, no path prior on its best chunk) so named (by its file name, or its stem's ``symbol_key``:
``bytes_mut.rs`` -> ``bytesmut``, keys of at least :data:`MIN_KEY` characters) that at most
:data:`MAX_FILES` candidate files share has its best chunk raised to
``title_file_share`` x the leading score at this point of the pipeline (0.0 = off; 1.0: level
with the first file, ties by chunk id). A key that also names a folder holding a candidate names a
package or namespace, not a module, and is left out: ``Faraday::Error`` is in ``lib/faraday/error.rb``,
not in ``lib/faraday.rb`` or ``faraday.gemspec``. A title naming more than :data:`MAX_NAMED` files
this way compares them and lifts none. A symbol query (the prompt is one identifier: ``_Tag``)
asks for that name's definition, which the definitions signal finds (``emittermanip.h``), not for
``tag.cpp``: it is left alone. Plain words are not names here: "fix the error handling" does not
name ``error.rb``. Round 10 (``title_file_definitions``): a name the symbol table defines, exactly
spelled, in a candidate file not named by its key, and in no candidate file so named, names that
definition, not a file named like it: "where is FromRequest defined?" asks for the trait in
``web-core/src/extract/mod.rs``, not for the derive macro's ``web-macros/src/from_request.rs``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad import store as store_mod
from paqad.index.languages import SOURCE_LANGUAGES
from paqad.search.analysis import SYMBOL, _is_identifier, analyze
from paqad.search.signals.path_priors import prior_of
from paqad.search.signals.test_subjects import is_test_file
from paqad.search.signals.title_names import title_line

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

MIN_KEY = 3  # `io`, `h` name too much
MAX_FILES = 2  # a key more candidate files share (`index`, `utils` in every package) names none of them
# a title naming more files than this compares them ("GnuParser/PosixParser/BasicParser and DefaultParser"):
# it says what the question is about, not where a change is
MAX_NAMED = 2
_NOT_MODULES = re.compile(r"(^|/)(benches|benchmarks?|examples?)/")
_SCOPE = re.compile(r"^\s*[A-Za-z]+\(([\w ./,-]{2,40})\)!?:")
# "Emitter: Don't output trailing space ...": a subsystem prefix, unless it is a change type
_PREFIX = re.compile(r"^\s*([A-Za-z][\w./-]{1,30}):\s")
_CHANGE_TYPES = frozenset("fix fixes fixed feat feature chore docs doc refactor perf test tests style build ci revert "
                          "wip release bump deps security breaking minor major patch merge update add remove".split())


def _stem_key(path: str) -> str:
    return store_mod.symbol_key(path.rsplit("/", 1)[-1].split(".", 1)[0])


def _title(text: str) -> str:
    return title_line(text) if "\n" in text.strip() else text.strip()


def title_file_names(text: str) -> frozenset[str]:
    """File names (with extension, no folder) of the paths the prompt's title holds
    (``options/env.rb`` -> ``env.rb``)."""
    title = _title(text)
    return frozenset(path.rsplit("/", 1)[-1] for path in analyze(title).paths) if title else frozenset()


def title_keys(text: str) -> frozenset[str]:
    """Symbol keys of the file stems the prompt's title names by an identifier or a scope (see the
    module docstring), possibly none; paths are :func:`title_file_names`."""
    title = _title(text)
    if not title:
        return frozenset()
    info = analyze(title)
    keys: set[str] = set()
    for identifier in info.identifiers:
        if _is_identifier(identifier.text) and not identifier.qualified:
            keys.add(store_mod.symbol_key(identifier.name))
    scope = _SCOPE.match(title)
    if scope:
        keys.update(store_mod.symbol_key(word) for word in re.split(r"[\s,/]+", scope.group(1)))
    prefix = _PREFIX.match(title)
    if prefix and prefix.group(1).lower() not in _CHANGE_TYPES:
        keys.add(store_mod.symbol_key(prefix.group(1).rsplit("/", 1)[-1].split(".", 1)[0]))
    return frozenset(k for k in keys if len(k) >= MIN_KEY)


def _folders(context: RankingContext) -> set[str]:
    """Every folder holding a candidate, by full path (``lib/faraday/options/env.rb``: ``lib``,
    ``lib/faraday``, ``lib/faraday/options``)."""
    paths = {row.path for row in context.rows.values()}
    return {path.rsplit("/", depth)[0] for path in paths for depth in range(1, path.count("/") + 1)}


def _defined_elsewhere(context: RankingContext) -> set[str]:
    """Keys of the prompt's names that the symbol table defines (exactly spelled) in candidate files
    not named by the key, and in none so named (round 10; see the module docstring)."""
    files: dict[str, set[bool]] = {}
    for match in context.definitions:
        row = context.rows.get(match.chunk_id)
        if row is None or not match.exact or match.identifier.qualified:
            continue
        key = store_mod.symbol_key(match.identifier.name)
        files.setdefault(key, set()).add(_stem_key(row.path) == key)
    return {key for key, named in files.items() if named == {False}}


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with the best chunk of each file the title names raised (see the module docstring)."""
    if context.info.kind == SYMBOL:
        return scores  # one identifier asks for its definition (definitions), not a file named like it
    keys, names = title_keys(context.info.text), title_file_names(context.info.text)
    if not keys and not names:
        return scores
    by_key: dict[str, list[str]] = {}
    by_file = context.files_best_first(scores)
    folders = {store_mod.symbol_key(folder.rsplit("/", 1)[-1]) for folder in _folders(context)}
    keys = keys - folders
    if context.options.title_file_definitions:
        keys = keys - _defined_elsewhere(context)
    for path, ids in by_file.items():
        row = context.rows[ids[0]]
        name = path.rsplit("/", 1)[-1]
        key = name if name in names else _stem_key(path) if _stem_key(path) in keys else None
        if (key is None or row.language not in SOURCE_LANGUAGES or is_test_file(path) or _NOT_MODULES.search(path)
                or prior_of(context.prior_factors.get(ids[0], ())) != 1.0):
            continue
        by_key.setdefault(key, []).append(path)
    named = [path for paths in by_key.values() if len(paths) <= MAX_FILES for path in paths]
    if not named or len(named) > MAX_NAMED:
        return scores
    lift = context.options.title_file_share * max(scores.values())
    out = dict(scores)
    for path in named:
        best = by_file[path][0]
        out[best] = max(out[best], lift)
    return out
