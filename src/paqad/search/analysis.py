"""What a query says before anything is searched: its kind, the identifiers and file paths it
names, traceback frames, and the text each ranker should see (DESIGN §8.3-8.4).

- **Kind.** A query that is one identifier (``ServeHTTP``, ``parse_header``, ``_private``, or
  qualified: ``Router.Match``, ``YAML::Node``, ``a->b``, ``App\\Handler``, ``Foo#bar``) is a
  *symbol* query; anything else is *prose*, possibly with identifiers embedded in it
  (``how does mergeOptions treat arrays``). The rule follows semble's query classifier (see
  ``shared/ANCHORS.md``).
- **Identifiers** in prose: ``snake_case``, ``camelCase``, ``PascalCase`` with two or more humps,
  qualified names, ``call()`` syntax and anything in backticks; plain English words and acronyms
  (``JSON``) are not identifiers.
- **Paths** (``lib/websocket.js``, ``bytes.rs:412``) and **traceback frames** (Python ``File "x",
  line N, in f``; Java/JS ``at a.b.C.m(File.java:12)``; Ruby ``x.rb:12:in 'm'``; PHP
  ``#0 X.php(12): A->m()``; Go/Rust ``file.go:123``) from pasted errors.
- **Long prompts** (issue texts, 400+ characters or 6+ lines): BM25 gets the identifiers, paths
  and the prose without the pasted frames; the embedding gets the first paragraph plus the
  names found (the model reads only 256 word pieces).

    info = analyze("where is `merge_settings` defined")
    info.kind, [i.text for i in info.identifiers]      # ('prose', ['merge_settings'])
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from paqad.index.tokens import LETTER, STOPWORDS, case_shape, name_start, spaced

SYMBOL, PROSE = "symbol", "prose"
LONG_PROMPT_CHARS = 400
LONG_PROMPT_LINES = 6
DENSE_HEAD_CHARS = 600  # of a long prompt's prose, what the embedding reads before the names
MAX_IDENTIFIERS = 24

_QUALIFIER = re.compile(r"::|->|\\|#|\.")
# a name, qualified or not, in any script (paqad.index.tokens.NAME): `Größe`, `café_total`, `App\\Handler`
_QUALIFIED_NAME = rf"{name_start('$')}[\w$]*(?:(?:::|->|\\|#|\.){name_start('$~')}[\w$]*)*"
_SINGLE_IDENTIFIER = re.compile(rf"[`'\"]?(?P<id>{_QUALIFIED_NAME})(?:\(\))?[`'\"]?\??")
# Erlang and Elixir name a function with its arity (`handshake/2`, `Shop.Cart.total/2`), Erlang a
# module's function with a colon (`ranch:handshake`, as `.` elsewhere): issue 22.
_ARITY = re.compile(r"(?P<name>(?:[A-Za-z_][\w@]*[.:])*[a-z_][\w@]*[?!]?)/\d{1,3}")
_ERLANG_CALL = re.compile(r"([a-z][\w@]*):([a-z][\w@]*)")
# Clojure names a var by its namespace and a slash (`hiccup.page/include-css`): issue 22.
_CLOJURE_VAR = re.compile(r"(?P<ns>[a-z][\w-]*(?:\.[a-z][\w-]*)+)/(?P<name>[A-Za-z*+!?<>=-][\w*+!?<>=-]*)")
_CANDIDATE_NAME = rf"{name_start('$~')}[\w$]*(?:(?:::|->|\\|#|\.){name_start('$~')}[\w$]*)*"
_CANDIDATE = re.compile(rf"`[^`\n]{{1,80}}`|{_CANDIDATE_NAME}(?:\(\))?")
_CANDIDATE_CORE = re.compile(_CANDIDATE_NAME)
_CAMEL = re.compile(r"[a-z0-9][A-Z]")  # matched on case_shape(): `größeBerechnen` too
_HUMPS = re.compile(r"[A-Z][a-z0-9]+")
_EXTENSIONS = (
    "py pyi js jsx mjs cjs ts tsx mts cts go rs java kt kts scala c h cc cpp cxx hpp hh hxx rb rake php cs swift "
    "lua sh bash m mm ex exs dart vue svelte json yaml yml toml md rst txt gemspec"
).split()
_PATH = re.compile(
    r"(?<![\w.-])(/?(?:[\w.@-]+/)*[\w@-][\w.@-]*\.(?:" + "|".join(_EXTENSIONS) + r"))(?::(\d+))?(?![\w])"
)
_PY_FRAME = re.compile(r'File "([^"]+)", line (\d+)(?:, in ([\w<>.]+))?')
_JAVA_FRAME = re.compile(r"\bat ([\w$.<>]+)\(([\w$.-]+):(\d+)\)")
_JS_FRAME = re.compile(r"\bat (?:async )?([\w$.<>\[\] ]+?) \(([^():\s]+):(\d+)(?::\d+)?\)")
_RUBY_FRAME = re.compile(r"([\w./-]+\.rb):(\d+):in [`'](?:[\w:]+[#.])?([\w?!=]+)'")
_PHP_FRAME = re.compile(r"#\d+ ([\w./\\-]+\.php)\((\d+)\): ([\w\\]+(?:->|::)[\w]+)")
# "spec" alone is a common word ("type spec"); tests are asked for by these
_TEST_WORDS = re.compile(r"\b(tests?|testing|tested|unit[- ]tests?|test (suite|case)s?|specs|spec files?|fixtures?)\b",
                         re.IGNORECASE)
_CONFIG_WORDS = re.compile(
    r"\b(config\w*|settings?|ci|workflows?|pipelines?|build|builds|cmake|makefile|autotools|dependenc\w*|versions?|"
    r"packag\w*|install\w*|yaml|json|toml|cargo|npm|manifest|docker\w*|compose|lint\w*|features?)\b", re.IGNORECASE)
_DOC_WORDS = re.compile(r"\b(readme|docs?|documentation|documented|changelog|guide|tutorial)\b", re.IGNORECASE)
_WORD = re.compile(rf"{LETTER}[^\W_]*")  # a word of any script: letters, then letters or digits


@dataclass(frozen=True)
class Identifier:
    """One identifier the query names.

    ``text`` as written (no backticks or ``()``); ``parts`` its components split at ``.``,
    ``::``, ``->``, ``\\`` and ``#``; ``embedded``: found inside prose (not the whole query).
    """

    text: str
    parts: tuple[str, ...]
    embedded: bool

    @property
    def name(self) -> str:
        """The last component: what a definition of it is named."""
        return self.parts[-1]

    @property
    def qualified(self) -> bool:
        """True for a name with a qualifier (``A::B``, ``a.b``), False for a bare name."""
        return len(self.parts) > 1


@dataclass(frozen=True)
class Frame:
    """One frame of a pasted traceback: the file as printed, its line, the function when given."""

    path: str
    line: int | None
    function: str | None


@dataclass(frozen=True)
class QueryInfo:
    """Everything :func:`analyze` reads from a query (see the module docstring)."""

    text: str
    kind: str
    identifiers: tuple[Identifier, ...]
    paths: tuple[str, ...]
    frames: tuple[Frame, ...]
    words: tuple[str, ...]
    long: bool
    lexical_text: str
    dense_text: str
    mentions_tests: bool
    mentions_docs: bool
    mentions_config: bool = False


def asked_kinds(text: str) -> frozenset[str]:
    """The path-prior kinds whose waiver words ``text`` holds: ``tests`` (test words), ``prose``
    (docs, README, ...), ``data`` (config, build, version, install, ...): the words that set
    :attr:`QueryInfo.mentions_tests` / ``mentions_docs`` / ``mentions_config``."""
    kinds = {kind for kind, words in (("tests", _TEST_WORDS), ("prose", _DOC_WORDS), ("data", _CONFIG_WORDS))
             if words.search(text)}
    return frozenset(kinds)


def _split(identifier: str) -> tuple[str, ...]:
    return tuple(p for p in _QUALIFIER.split(identifier) if p)


def _is_identifier(token: str) -> bool:
    """Identifier-shaped, not a plain word: ``snake_case``, ``camelCase``, ``PascalCase`` with two
    humps, ``_private``, qualified (``a.b``, ``A::B``), or ending in ``()``."""
    core = token.removesuffix("()")
    if token.endswith("()") and core:
        return True
    if _QUALIFIER.search(core):
        parts = _split(core)
        # "e.g" / "i.e" and version-like strings are not names
        return len(parts) > 1 and all(p[0].isalpha() or p[0] in "_$~" for p in parts) and max(map(len, parts)) > 1
    if core.startswith("_") and len(core) > 1:
        return True
    if "_" in core.strip("_") and any(ch.isalpha() for ch in core):
        return True
    shape = case_shape(core)
    if _CAMEL.search(shape):
        return True
    return len(_HUMPS.findall(shape)) >= 2


def _symbol_query(query: str) -> Identifier | None:
    """The identifier when the whole query is one (semble's rule: an uppercase letter, an
    underscore, a leading ``_`` or a qualifier makes a single token a symbol)."""
    stripped = query.strip()
    for _ in range(3):  # C++/Rust/Java generics: `convert<bool>::decode`, `Vec<T>::push`
        stripped = re.sub(r"<[^<>\n]*>", "", stripped)
    var = _CLOJURE_VAR.fullmatch(stripped)
    if var:
        return Identifier(stripped, (*var.group("ns").split("."), var.group("name")), embedded=False)
    arity = _ARITY.fullmatch(stripped)  # `handshake/2`: a name for sure, in any case
    stripped = arity.group("name") if arity else stripped
    call = _ERLANG_CALL.fullmatch(stripped)
    stripped = f"{call.group(1)}.{call.group(2)}" if call else stripped
    match = _SINGLE_IDENTIFIER.fullmatch(stripped)
    if not match:
        return None
    token = match.group("id")
    if not (arity or any(ch.isupper() for ch in token) or "_" in token or _QUALIFIER.search(token)):
        return None
    return Identifier(token, _split(token), embedded=False)


def _frames(text: str) -> list[Frame]:
    frames: list[Frame] = []
    for m in _PY_FRAME.finditer(text):
        frames.append(Frame(m.group(1), int(m.group(2)), m.group(3)))
    for m in _JAVA_FRAME.finditer(text):
        frames.append(Frame(m.group(2), int(m.group(3)), m.group(1)))
    for m in _JS_FRAME.finditer(text):
        frames.append(Frame(m.group(2), int(m.group(3)), m.group(1).strip()))
    for m in _RUBY_FRAME.finditer(text):
        frames.append(Frame(m.group(1), int(m.group(2)), m.group(3)))
    for m in _PHP_FRAME.finditer(text):
        frames.append(Frame(m.group(1), int(m.group(2)), m.group(3)))
    return frames


_FRAME_LINE = re.compile(
    r'^\s*(File "|at |#\d+ |Traceback|\S+\.(?:rb|go|rs|php|py|js|ts):\d+|goroutine |thread \'|\.\.\. \d+ more)'
)


def _prose_of(text: str) -> str:
    """The prompt without pasted traceback lines (kept for BM25's identifiers separately)."""
    return "\n".join(line for line in text.splitlines() if not _FRAME_LINE.match(line))


MAX_TOKEN_CHARS = 256  # longer runs without whitespace (base64, minified code, hashes) are cut
_LONG_TOKEN = re.compile(r"\S{%d,}" % (MAX_TOKEN_CHARS + 1))


def _frame_identifiers(frames: list[Frame], identifiers: dict[str, Identifier]) -> None:
    """Add the functions traceback frames name (even when they look like words: ``parse``)."""
    for frame in frames:
        if frame.function:
            name = frame.function.replace("<", "").replace(">", "").strip(".")
            parts = _split(name)
            if parts and _is_identifier(name) or parts and len(parts[-1]) > 2:
                identifiers.setdefault(name, Identifier(name, parts[-2:] if len(parts) > 1 else parts, True))


def _query_paths(text: str, frames: list[Frame]) -> dict[str, None]:
    """File paths the query names, in order: written paths, then traceback frames' files."""
    paths: dict[str, None] = {}
    for m in _PATH.finditer(text):
        paths.setdefault(m.group(1).lstrip("./"), None)
    for frame in frames:
        paths.setdefault(frame.path.replace("\\", "/").lstrip("./"), None)
    return paths


# issue 24, round 9: a pasted report's template checklist (`- [x] I have verified that the issue exists against
# the main branch`, celery's and many projects' bug templates) is the template's words, not the report's: in a long
# prompt its lines (and their indented continuation lines) are left out of the identifiers, the words and the
# rankers' text (celery's issue set R@5 66.7 -> 100). Module switches, read by analyze (the query is read before
# any RankingOptions apply); bench/README.md "Round 9: issue localisation" measures each off.
TEMPLATE_LINES = True
_CHECKLIST_ITEM = re.compile(r"^(\s*)[-*+]\s+\[[ xX]?\](?:\s|$)")


def without_checklists(text: str) -> str:
    """``text`` without its Markdown task-list lines (``- [ ] ...``, ``- [x] ...``) and the lines
    indented deeper than such an item right after it (its continuation)."""
    out: list[str] = []
    item_indent: int | None = None
    for line in text.splitlines():
        found = _CHECKLIST_ITEM.match(line)
        if found:
            item_indent = len(found.group(1))
            continue
        if item_indent is not None and line.strip() and len(line) - len(line.lstrip()) > item_indent:
            continue
        item_indent = None
        out.append(line)
    return "\n".join(out)


def _embedded_identifiers(text: str, identifiers: dict[str, Identifier]) -> None:
    """Add identifier-shaped tokens (or anything in backticks) of a prose query, outside paths."""
    path_spans = [m.span(1) for m in _PATH.finditer(text)]
    for m in _CANDIDATE.finditer(text):
        token = m.group(0)
        if any(a <= m.start() < b for a, b in path_spans):
            continue  # a file name is not an identifier
        backticked = token.startswith("`")
        core = token.strip("`").strip().removesuffix("()")
        if not core or not _CANDIDATE_CORE.fullmatch(core):
            continue
        if backticked or _is_identifier(token):
            identifiers.setdefault(core, Identifier(core, _split(core), embedded=True))
        if len(identifiers) >= MAX_IDENTIFIERS:
            break


@lru_cache(maxsize=256)
def analyze(query: str) -> QueryInfo:
    """Read a query (see the module docstring). Never raises.

    Runs of more than :data:`MAX_TOKEN_CHARS` characters without whitespace keep only their first
    :data:`MAX_TOKEN_CHARS`: no identifier or path is that long, and the traceback patterns would
    otherwise backtrack over them (a pasted 100 kB blob took 25 s).
    """
    text = _LONG_TOKEN.sub(lambda m: m.group(0)[:MAX_TOKEN_CHARS], query.strip())
    single = _symbol_query(spaced(text))
    identifiers: dict[str, Identifier] = {}
    if single is not None:
        identifiers[single.text] = single
    frames = _frames(text)
    _frame_identifiers(frames, identifiers)
    paths = _query_paths(text, frames)
    lines = text.count("\n") + 1
    long = len(text) > LONG_PROMPT_CHARS or lines >= LONG_PROMPT_LINES
    report = without_checklists(text) if long and TEMPLATE_LINES else text  # a long prompt's own words
    if single is None:
        _embedded_identifiers(spaced(report), identifiers)
    words = tuple(dict.fromkeys(
        w.lower() for w in _WORD.findall(spaced(_prose_of(report))) if len(w) > 2 and w.lower() not in STOPWORDS
    ))
    names = [i.text for i in identifiers.values()]
    if long:
        prose = _prose_of(report)
        lexical = " ".join([prose, *names, *paths])
        head = prose.strip()[:DENSE_HEAD_CHARS]
        dense = head + ("\n" + " ".join(names) if names else "")
    else:
        lexical = dense = text
    return QueryInfo(
        text=text,
        kind=SYMBOL if single is not None else PROSE,
        identifiers=tuple(identifiers.values()),
        paths=tuple(paths),
        frames=tuple(frames),
        words=words,
        long=long,
        lexical_text=lexical,
        dense_text=dense,
        mentions_tests=bool(_TEST_WORDS.search(text)),
        mentions_docs=bool(_DOC_WORDS.search(text)),
        mentions_config=bool(_CONFIG_WORDS.search(text)),
    )
