"""A private name only one module holds (issue 24, round 9): the internals a report quotes.

A user calls a library's public names (``stop_after_attempt(3)``, ``logger.add``), and a report
quotes them as often in the reporter's own code as the module they are defined in; what a report
quotes of the internals it has read while debugging is different: ``app.backend._out_of_band``,
``_call_task_errbacks``, ``_reconnect_pubsub``, ``self._outbound_buffer``. A Python ``_private``
name is used by the module that defines it, and a name only one module of the package holds
points at it (celery's ``_out_of_band`` is only in ``celery/backends/rpc.py``, the file the fix of
the report quoting it changed).

In a long prompt, every ``_name`` it holds (one leading underscore, then a lower-case letter, at
least :data:`MIN_NAME` characters; not a ``__dunder__``, not a module or folder name of a
candidate: ``attr._make`` names a module, which ``report_paths`` reads) is looked for, as a whole
word, in the text of the :data:`MAX_FILES_READ` best-scored candidate code files (not tests, no
path prior on their best chunk). A name that one or two of them hold gives each 1 / that count;
when one file has the most (at least 1: a name it alone holds, or two it shares with one other)
and no other file has as much, its best chunk is raised to ``private_name_share`` x the leading
score at this point of the pipeline (0.0 = off). Ties lift nothing (``aiohttp``'s ``_close_code``
is in both ``client_ws.py`` and ``web_ws.py``).

Switch: ``RankingOptions.private_name_share``; measured and left off (0.0; ``with-private-names`` =
1.05): with the template checklist left out of a report (``analysis.TEMPLATE_LINES``) it gains no
dev issue and loses attrs-1295 (``_asdict`` is only in ``_next_gen.py``, the fix in ``validators.py``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.index.languages import SOURCE_LANGUAGES
from paqad.search.signals.path_priors import prior_of
from paqad.search.signals.test_subjects import is_test_file

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

MIN_NAME = 4  # `_id`, `_fd`: too common to point anywhere
MAX_HOLDERS = 2  # a name three or more candidate files hold points at none of them
MAX_FILES_READ = 40  # candidate files whose text is searched (the best-scored first)
_PRIVATE = re.compile(r"(?<![\w$])_[a-z][A-Za-z0-9_]*(?![\w$])")


def private_names(text: str) -> frozenset[str]:
    """The ``_private`` names (see the module docstring) a prompt holds."""
    return frozenset(m.group(0) for m in _PRIVATE.finditer(text)
                     if len(m.group(0)) >= MIN_NAME and not m.group(0).endswith("__"))


def holder_votes(context: RankingContext, scores: dict[int, float]) -> dict[str, float]:
    """Candidate code file -> the sum over the prompt's private names it holds of 1 / the number
    of read files holding the name (names held by more than :data:`MAX_HOLDERS` give nothing)."""
    if context.file_text is None:
        return {}
    names = private_names(context.info.text)
    if not names:
        return {}
    files = []
    for path, ids in context.files_best_first(scores).items():
        row = context.rows[ids[0]]
        if row.language in SOURCE_LANGUAGES and not is_test_file(path) and prior_of(context.prior_factors.get(ids[0], ())) == 1.0:
            files.append(path)
        if len(files) >= MAX_FILES_READ:
            break
    components = {part.rsplit(".", 1)[0] for row in context.rows.values() for part in row.path.split("/")}
    names = frozenset(n for n in names if n not in components)
    if not names:
        return {}
    pattern = re.compile(r"(?<![\w$])(" + "|".join(sorted(map(re.escape, names))) + r")(?![\w$])")
    holders: dict[str, list[str]] = {}
    for path in files:
        for name in set(pattern.findall(context.file_text(path))):
            holders.setdefault(name, []).append(path)
    votes: dict[str, float] = {}
    for paths in holders.values():
        if len(paths) <= MAX_HOLDERS:
            for path in paths:
                votes[path] = votes.get(path, 0.0) + 1.0 / len(paths)
    return votes


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with the one file holding the prompt's private names raised (long prompts only)."""
    if not context.info.long or not scores:
        return scores
    votes = holder_votes(context, scores)
    if not votes:
        return scores
    ranked = sorted(votes.items(), key=lambda item: -item[1])
    path, vote = ranked[0]
    if vote < 1.0 or (len(ranked) > 1 and ranked[1][1] >= vote):
        return scores
    best = context.files_best_first(scores)[path][0]
    out = dict(scores)
    out[best] = max(out[best], context.options.private_name_share * max(scores.values()))
    return out
