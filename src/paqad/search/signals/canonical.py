"""Canonical definitions (issue 22, round 3): one name defined in several modules, and a query
whose qualifier does not tell them apart (``dump``, ``handshake``, ``keyword``), ranks the
canonical definition first.

Among the candidates that define a query identifier with the highest share (the *tied* ones, in
two or more), four tests run in order, each only when it keeps at least one of them:

1. **base over override**: a definition marked as an override (``@override``/``@Override``, an
   ``override`` modifier, Elixir's ``@impl``, on its line or the lines just above it), or whose
   file declares that it inherits from the module of another tied definition (Perl ``use parent
   'HTTP::Message'``/``use base``/``@ISA``, ``extends``/``implements``, Python ``class X(Base)``,
   Ruby ``class X < Base``), or that forwards to another module (Elixir's ``defdelegate``), loses
   to the others;
2. **the root module**: a definition whose module is an ancestor of every other one's
   (``Parser`` of ``Parser.Advanced``, ``gun`` of ``gun_http2`` (Erlang's ``app_`` prefix),
   ``clap.zig`` of ``clap/parsers.zig``) wins: the module named like the package or file;
3. **the delegate**: a definition whose chunk calls or names another tied one by its module
   (``HTTP::Status::is_success`` inside ``HTTP::Response``'s ``is_success``, a doc line "See
   `Mint.HTTP.get_proxy_headers/1`") loses to it: the others delegate to the canonical one;
4. **one of a file**: several definitions left in one file (Erlang's ``await_body/2`` ... ``/5``,
   Elixir's function head and its clauses, overloads, Julia methods) rank one first: a body over
   a bodiless declaration (TypeScript overload signatures), then the documented one (a doc
   comment or docstring above it), then the first in the file.

The ones left out get ``canonical_share`` x their share (the definitions signal's boost); the
query's qualifier comes first: when a tied definition's qualifier matches (``gun_http2:cancel``)
only test 4 runs, among the definitions it names, and so when it names one's file or folder
(``bytes_mut::Shared``: :func:`~paqad.search.signals.module_qualifiers.qualified_by_path`;
``canonical_path_qualifiers``). Test 2's name-prefix descendants (``gun_http2``) are Erlang's
alone (``canonical_prefix_modules``). ``canonical_off`` leaves tests out by name (``overrides``,
``roots``, ``delegates``, ``one_of_file``: round 6's ablations). A module is the symbol table's qualifier (``HTTP.Response``, from a module
header or nesting) when every tied definition has one, else the file's path without its
extension (``clap/parsers``; a package's ``__init__``/``mod``/``index`` file is its folder), and
(``go_package_modules``, round 10) a Go file's folder, which is its package whatever the file's name:
``logrus.go``'s ``type Level`` is the root package's, an ancestor of ``hooks/slog``'s ``type Level``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from paqad.search.analysis import Identifier
from paqad.search.signals.module_qualifiers import qualified_by_path
from paqad.search.signals.symbol_shares import module_names, symbol_parts
from paqad.search.symbols import definition_pattern

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext
    from paqad.store import ChunkRow

MAX_TIED = 8  # more modules defining one name than this: a common method name, no canonical one
MARKER_LINES = 8  # lines above a definition searched for an override marker (Elixir: @doc, @impl, @spec)
_OVERRIDE = re.compile(r"@[Oo]verride\b|(?<![\w$])override(?![\w$])|@impl\b(?!\s+false)")
_PACKAGE_FILES = ("/__init__", "/mod", "/index")
_HEAD_END = re.compile(r";|\{|=>|:[ \t]*$", re.MULTILINE)  # what ends a definition's head: `;` a declaration
# how documentation above a definition starts: doc comments and docstrings only (a plain comment
# above a function's later clause is not its documentation)
DOC_STARTS = ('"""', "'''", "///", "/**", "@doc", "(**", "{-|", "-- |", "%% @doc", "% @doc", "=head", "=item", "#'")
# separators after which a longer module name is a descendant, and Erlang's own (`gun_http2` of `gun`)
_DESCENDANT_SEPARATORS = (".", "::", "/")
_PREFIX_SEPARATOR = "_"
# languages whose modules nest by a name prefix (an application's `app_` modules); elsewhere
# `bytes_mut.rs` is no submodule of `bytes.rs` (``RankingOptions.canonical_prefix_modules``)
PREFIX_MODULE_LANGUAGES = frozenset({"erlang"})


@dataclass(frozen=True)
class Tied:
    """One of the tied definitions: its chunk and module (lower-case parts, see the docstring)."""

    chunk_id: int
    module: tuple[str, ...]
    qualifier: tuple[str, ...]  # the symbol table's qualifier as written (``('HTTP', 'Message')``)


# the part a Go file's module starts with: the root folder's package is an ancestor of every other one
GO_ROOT = "<go>"


def _path_module(path: str, go_packages: bool = False) -> tuple[str, ...]:
    if go_packages and path.endswith(".go"):  # a Go package is its folder (round 10)
        return (GO_ROOT, *path.lower().split("/")[:-1])
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    for tail in _PACKAGE_FILES:
        if stem.endswith(tail):
            stem = stem[: -len(tail)]
    return tuple(stem.lower().split("/"))


def _is_ancestor(module: tuple[str, ...], other: tuple[str, ...], prefixes: bool = True) -> bool:
    """``module`` is a proper ancestor of ``other``: a prefix of its parts, or of one part's name
    followed by a separator (``a.b`` of ``a.b.c``; with ``prefixes``, ``gun`` of ``gun_http2``)."""
    if not module or module == other or len(module) > len(other):
        return False
    if other[: len(module)] == module:
        return True
    head, last = other[: len(module) - 1], other[len(module) - 1]
    separators = _DESCENDANT_SEPARATORS + ((_PREFIX_SEPARATOR,) if prefixes else ())
    return head == module[:-1] and any(last.startswith(module[-1] + sep) for sep in separators)


def _definition_lines(text: str, name: str) -> list[int]:
    """Indexes of the lines of ``text`` that define ``name``: a keyword form
    (:func:`~paqad.search.symbols.definition_pattern`: ``def name``, ``sub name``), else a
    signature (``void name(``, ``name<T>(``, Erlang's ``name(Args) ->``) outside a comment."""
    lines = text.splitlines()
    keyword = definition_pattern(name)
    found = [i for i, line in enumerate(lines) if keyword.search(line)]
    if found:
        return found
    signature = re.compile(rf"(?<![\w$.]){re.escape(name)}\s*(?:<[^>\n]*>\s*)?\(")
    return [i for i, line in enumerate(lines)
            if signature.search(line) and not line.lstrip().startswith(("//", "#", "*", "/*", "%", "--", ";"))]


def marked_override(text: str, name: str) -> bool:
    """Whether a definition of ``name`` in ``text`` carries an override marker: on its line before
    the name or after its parameters (``override fun``, ``void f() override``), or on the lines
    just above it (up to a blank line, at most ``MARKER_LINES``: ``@override``, ``@impl true``)."""
    lines = text.splitlines()
    for at in _definition_lines(text, name):
        line = lines[at]
        if _OVERRIDE.search(line.split(name, 1)[0]) or ")" in line and _OVERRIDE.search(line.rsplit(")", 1)[-1]):
            return True
        for above in reversed(lines[max(0, at - MARKER_LINES):at]):
            if not above.strip():
                break
            if _OVERRIDE.search(above):
                return True
    return False


def forwards(text: str, name: str) -> bool:
    """Whether ``text`` defines ``name`` as a forwarder to another module: Elixir's ``defdelegate
    name(args), to: Module`` (``to: :ssl``, a module outside the project as often as not)."""
    return re.search(rf"^[ \t]*defdelegate[ \t]+{re.escape(name)}(?![\w$?!])", text, re.MULTILINE) is not None


def _spellings(qualifier: tuple[str, ...]) -> tuple[str, ...]:
    """How code names a module: ``HTTP::Message``, ``HTTP.Message``, ``Message``."""
    if not qualifier:
        return ()
    return tuple(dict.fromkeys(("::".join(qualifier), ".".join(qualifier), qualifier[-1])))


@lru_cache(maxsize=1024)
def _inherits_pattern(spelling: str) -> re.Pattern[str]:
    q = re.escape(spelling)
    word = rf"(?<![\w:.$]){q}(?![\w$]|::\w)"
    return re.compile(
        rf"^[ \t]*use[ \t]+(?:parent|base)\b[^;]*{word}"  # Perl
        rf"|@ISA\b[^;]*{word}"  # Perl
        rf"|\b(?:extends|implements)\b[^{{\n]*{word}"  # Java, Dart, TypeScript, PHP
        rf"|^[ \t]*class[ \t]+\w+[ \t]*\([^)\n]*{word}"  # Python
        rf"|^[ \t]*class[ \t]+[\w:]+[ \t]*<[ \t]*{word}",  # Ruby
        re.MULTILINE,
    )


def _inherits(file_text: str, qualifier: tuple[str, ...]) -> bool:
    return any(_inherits_pattern(s).search(file_text) for s in _spellings(qualifier))


def _delegates(text: str, name: str, qualifier: tuple[str, ...]) -> bool:
    """Whether ``text`` names ``name`` through the module ``qualifier`` (``HTTP::Status::is_success``,
    ``Mint.HTTP.get_proxy_headers``, ``gun:ws_send``)."""
    for spelling in _spellings(qualifier):
        if re.search(rf"(?<![\w$]){re.escape(spelling)}(?:::|\.|:|->){re.escape(name)}(?![\w$])", text):
            return True
    return False


def _tied(context: RankingContext, identifier: Identifier, shares: dict[int, float]) -> list[Tied]:
    symbols: dict[int, str] = {}
    for match in context.definitions:
        if match.identifier is identifier and match.chunk_id in shares:
            symbols.setdefault(match.chunk_id, match.symbol)
    defining = {cid: share for cid, share in shares.items()
                if cid in symbols or identifier.name in context.rows[cid].text}
    if len(defining) < 2:
        return []
    top = max(defining.values())
    chosen = [cid for cid, share in defining.items() if share >= top * 0.999]
    # the symbol table's definitions when there are any: a text match may be a use (`x = findByAbbreviation(`)
    chosen = [cid for cid in chosen if cid in symbols] or chosen
    qualifiers = {cid: tuple(symbol_parts(symbols.get(cid) or context.rows[cid].symbol)[:-1]) for cid in chosen}
    by_table = all(qualifiers.values())
    out = [Tied(cid, tuple(p.lower() for p in qualifiers[cid]) if by_table
                else _path_module(context.rows[cid].path, context.options.go_package_modules),
                qualifiers[cid]) for cid in chosen]
    return out if len(out) >= 2 else []


def _file_text(context: RankingContext, row: ChunkRow, cache: dict[str, str]) -> str:
    if row.path not in cache:
        cache[row.path] = (context.file_text(row.path) if context.file_text else None) or row.text
    return cache[row.path]


def canonical(context: RankingContext, identifier: Identifier, tied: list[Tied]) -> set[int]:
    """Chunk ids of the canonical definitions among ``tied`` (all of them when no test decides)."""
    name = identifier.name
    left = list(tied)
    files: dict[str, str] = {}

    def override(t: Tied) -> bool:
        row = context.rows[t.chunk_id]
        if marked_override(row.text, name) or forwards(row.text, name):
            return True
        others = [o.qualifier for o in left if o.module != t.module and o.qualifier]
        return bool(others) and any(_inherits(_file_text(context, row, files), q) for q in others)

    off = context.options.canonical_off
    bases = [] if "overrides" in off else [t for t in left if not override(t)]
    if bases:
        left = bases
    prefixes = (not context.options.canonical_prefix_modules
                or all(context.rows[t.chunk_id].language in PREFIX_MODULE_LANGUAGES for t in left))
    roots = [] if "roots" in off else [
        t for t in left if all(_is_ancestor(t.module, o.module, prefixes) for o in left if o.module != t.module)]
    if len(roots) >= 1 and len({t.module for t in roots}) == 1 and len(roots) < len(left):
        left = roots
    targets = [] if "delegates" in off else [
        t for t in left if not any(o.module != t.module and o.qualifier
                                   and _delegates(context.rows[t.chunk_id].text, name, o.qualifier) for o in left)]
    if targets:
        left = targets
    return first_of_modules(context, left, name)


def first_of_modules(context: RankingContext, tied: list[Tied], name: str) -> set[int]:
    """Test 4: of the definitions of ``name`` among ``tied`` that share one file, one: a definition
    with a body over a declaration without one (TypeScript overload signatures above the
    implementation), then the documented one (a doc comment or docstring above it: Julia's
    documented method among its one-line ones), then the first in the file."""
    if "one_of_file" in context.options.canonical_off:
        return {t.chunk_id for t in tied}
    first: dict[str, tuple[tuple, Tied]] = {}
    for t in tied:
        row = context.rows[t.chunk_id]
        key = (bodiless(row.text, name, context.options.canonical_declarations), not documented(row.text, name),
               row.start_line)
        if row.path not in first or key < first[row.path][0]:
            first[row.path] = (key, t)
    return {t.chunk_id for _, t in first.values()}


def bodiless(text: str, name: str, terminators: bool = False) -> bool:
    """Whether the definition of ``name`` in ``text`` is a declaration without a body: from its
    line on, no ``{``, ``=>`` or ``->``, and the last line ends with ``;``; with ``terminators``
    (``canonical_declarations``), also when the first ``;`` or ``{`` after the name is a ``;``
    (a C prototype ``static int f(int);`` in a chunk that goes on with other code; a Python
    ``def f(x):`` line end or an arrow ``=>`` opens a body too)."""
    lines = text.splitlines()
    at = next(iter(_definition_lines(text, name)), 0)
    rest = "\n".join(lines[at:]).rstrip()
    if rest.endswith(";") and not any(mark in rest for mark in ("{", "=>", "->")):
        return True
    if not terminators or name not in rest:
        return False
    head = _HEAD_END.search(rest[rest.index(name) + len(name):])
    return head is not None and head.group(0) == ";"


def documented(text: str, name: str) -> bool:
    """Whether the first definition of ``name`` in ``text`` has documentation above it in the chunk."""
    lines = text.splitlines()
    at = next(iter(_definition_lines(text, name)), 0)
    return any(line.lstrip().startswith(DOC_STARTS) for line in lines[:at])


def prefer_canonical(context: RankingContext, shares: dict[int, float]) -> dict[int, float]:
    """Shares x ``canonical_share`` for the tied definitions of a query identifier that are not
    canonical (see the module docstring); ``shares`` unchanged when nothing is tied."""
    if context.options.canonical_share == 1.0 or not shares:
        return shares
    out = dict(shares)
    for identifier in context.info.identifiers:
        named = {m.chunk_id for m in context.definitions
                 if identifier.qualified and m.qualified and m.identifier is identifier and m.chunk_id in shares}
        tied = _tied(context, identifier, shares)
        if identifier.qualified and context.options.canonical_path_qualifiers:
            # `bytes_mut::Shared`: the qualifier names a tied definition's file or folder
            # round 10 (go_package_modules, which lets the roots test decide Go ties): a type defined by
            # text in the qualifier's folder is named too (`slog.Level`: `type Level logrus.Level`)
            text_types = context.options.go_package_modules and context.options.text_types
            names = module_names(context)  # round 11 (package_qualifiers): a package's names too
            named |= {t.chunk_id for t in tied if qualified_by_path(identifier, context.rows[t.chunk_id], text_types, names,
                                                                      context.options.rust_impl_types)}
        if named:  # the qualifier names the module (the definitions signal ranked it first): only test 4
            tied = [t for t in tied if t.chunk_id in named]
        if len(tied) < 2 or len({t.module for t in tied}) > MAX_TIED:
            continue
        keep = first_of_modules(context, tied, identifier.name) if named else canonical(context, identifier, tied)
        for t in tied:
            if t.chunk_id not in keep:
                out[t.chunk_id] = min(out[t.chunk_id], shares[t.chunk_id] * context.options.canonical_share)
    return out
