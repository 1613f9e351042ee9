"""Files a pasted report points at (issue 24, round 9): the installed package's file in a
traceback, a repository link, a diff header, a dotted module name.

A bug report names the project's own files in ways a reporter's own code cannot share:

- a path under ``site-packages/`` or ``dist-packages/`` (a traceback frame of the installed
  package, ``.../site-packages/celery/worker/control.py``): the part after it is the package's file;
- a repository link (``github.com/aio-libs/aiohttp/blob/fde452d/aiohttp/client_ws.py#L191``): the
  part after ``blob/<rev>/`` or ``tree/<rev>/`` is the repository path;
- a diff header (``a/src/attr/_make.py``, ``b/src/attr/_make.py``): the path after ``a/`` / ``b/``;
- a plain path of two or more components (``celery/backends/base.py``);
- a dotted module name (``packaging.requirements``, ``tenacity.before_sleep``,
  ``tomlkit.items._ConvertError``): its leading components as a module file (``packaging/
  requirements.py``) or package (``cattrs/gen/__init__.py``), two or more components; not when it
  ends in an error type (``tomlkit.exceptions.InvalidNumberError``: the error a report quotes is
  defined apart from the code that raises it).

A candidate code file (:data:`~paqad.index.languages.SOURCE_LANGUAGES`; not a test, example,
vendored copy or other path-prior kind even when named: aiohttp-7715's report names the
``examples/server_simple.py`` it ran, the fix is in ``http_parser.py``) whose path ends with such
a tail (``src/attr/_make.py`` for ``site-packages/attr/_make.py``) is *pointed at*. In a long prompt that points at one or
:data:`MAX_NAMED` files, each has its best chunk raised to ``report_path_share`` x the leading
score at this point of the pipeline (plus a hundredth of its own score, so two pointed-at files
keep their order); a report pointing at more files walks through them (a traceback through
three modules of the package: the fix is often in none of them) and lifts none.

Without it a named file is only exempt from the path priors (``named_paths``) and, with the
off-by-default ``named_frames``, multiplied by ``named_file_boost``: BM25 over a long report and
the embedding of its head rank a release-notes page, ``setup.py`` or a sibling module above the
file the traceback or the module name says (packaging-104: ``setup.py`` over ``packaging/
requirements.py`` for "a race condition in packaging.requirements").

Switch: ``RankingOptions.report_path_share`` (0.0 = off; ablation ``no-report-paths``; bench/README.md
"Round 9: issue localisation": issue set dev MRR 0.769 -> 0.796, test 0.733 -> 0.768).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.index.languages import SOURCE_LANGUAGES
from paqad.index.tokens import NAME
from paqad.search.priors import path_kinds
from paqad.search.signals.path_priors import prior_of
from paqad.search.signals.test_subjects import is_test_file

if TYPE_CHECKING:
    from paqad.search.analysis import QueryInfo
    from paqad.search.signals.context import RankingContext

MIN_COMPONENTS = 2  # `utils.py`, `test.py`: a reporter's own script shares a project file's name
# a report pointing at more files than this walks through them (attrs-1295: a traceback through
# filters.py, _funcs.py and _next_gen.py, the fix in validators.py)
MAX_NAMED = 2
_MARKERS = re.compile(r"(?:^|/)(?:site-packages|dist-packages)/|(?:^|/)(?:blob|tree)/[^/]+/")
_DIFF = re.compile(r"^[ab]/")
_ERROR_NAME = re.compile(r"(?:Error|Exception|Warning)$")  # `tomlkit.exceptions.InvalidNumberError`
_MODULE_EXTENSIONS = ("/__init__.py", ".py")  # a package before a module of the same stem


def path_tails(info: QueryInfo) -> set[str]:
    """Repository or package-relative path tails (two or more components) the prompt points at by
    a path (see the module docstring), without a line suffix."""
    tails: set[str] = set()
    for path in info.paths:
        path = path.replace("\\", "/")
        marks = list(_MARKERS.finditer(path))
        if marks:
            path = path[marks[-1].end():]
        else:
            path = _DIFF.sub("", path)
        parts = [p for p in path.split("/") if p and p != "."]
        if len(parts) >= MIN_COMPONENTS:
            tails.add("/".join(parts))
    return tails


def module_tails(info: QueryInfo) -> set[str]:
    """Module paths (``pkg/mod``, two or more components, no extension) a dotted identifier of the
    prompt may name: every prefix of its components of length 2 or more (``tomlkit.items._ConvertError``:
    ``tomlkit/items``, ``tomlkit/items/_ConvertError``)."""
    out: set[str] = set()
    for identifier in info.identifiers:
        if "." not in identifier.text or not all(re.fullmatch(NAME, p) for p in identifier.parts):
            continue
        if _ERROR_NAME.search(identifier.name):
            continue  # the error a report quotes is defined apart from the code that raises it (tomlkit-341)
        for end in range(MIN_COMPONENTS, len(identifier.parts) + 1):
            out.add("/".join(identifier.parts[:end]))
    return out


def _ends_with(path: str, tail: str) -> bool:
    return path == tail or path.endswith("/" + tail)


def pointed_files(context: RankingContext, scores: dict[int, float]) -> list[str]:
    """Candidate code files the prompt points at (see the module docstring), best-scored first."""
    tails, modules = path_tails(context.info), module_tails(context.info)
    if not tails and not modules:
        return []
    out = []
    for path, ids in context.files_best_first(scores).items():
        row = context.rows[ids[0]]
        if (row.language not in SOURCE_LANGUAGES or is_test_file(path) or prior_of(context.prior_factors.get(ids[0], ())) != 1.0
                or path_kinds(path, row.language, "") - {"barrel"}):
            continue  # a named file is exempt from the priors: an example the reporter ran is still not the code
        stem = next((path[: -len(ext)] for ext in _MODULE_EXTENSIONS if path.endswith(ext)), None)
        if any(_ends_with(path, tail) for tail in tails) or (stem is not None and any(_ends_with(stem, m) for m in modules)):
            out.append(path)
    return out


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with the best chunk of each file a long prompt points at raised (see the module docstring)."""
    if not context.info.long or not scores:
        return scores
    named = pointed_files(context, scores)
    if not named or len(named) > MAX_NAMED:
        return scores
    by_file = context.files_best_first(scores)
    top = max(scores.values())
    lift = context.options.report_path_share * top
    out = dict(scores)
    for path in named:
        best = by_file[path][0]
        out[best] = max(out[best], lift + scores[best] / 100)
    return out
