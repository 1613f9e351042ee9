"""Issue-style prompts (issue 24): a long pasted report (400+ characters or 6+ lines) reaches the
code it is about, not the files it shares boilerplate with.

In a long prompt, unless the prompt names the file (a path, a traceback frame):

- issue/PR/discussion templates and a docs build's ``conf.py`` (the ``templates`` path kind)
  x ``issue_template_prior``: a bug report is written in the template's words;
- changelogs and release notes x ``issue_changelog_prior`` (on top of ``changelog_prior``): a
  report's words are the words of the entry that will record its fix;
- test files x ``tests_prior`` even when the report says "test" (``mentions_tests`` waives the
  tests prior for any query; a report's "I tested with ..." is not a request for tests), unless
  a named path or identifier is a test (``test_x.py``, ``TestFoo``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.priors import is_test_path, path_kinds

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

_TEST_NAME = re.compile(r"^test_|_test$|^Test[A-Z]|Tests?$|Spec$")


def _names_tests(context: RankingContext) -> bool:
    info = context.info
    return any(is_test_path(p) for p in info.paths) or any(_TEST_NAME.search(i.name) for i in info.identifiers)


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with the issue-prompt factors on templates and tests (long prompts only)."""
    info, options = context.info, context.options
    if not info.long:
        return scores
    tests_again = info.mentions_tests and not _names_tests(context) and "tests" not in context.exempt
    out = dict(scores)
    for cid in scores:
        row = context.rows[cid]
        if row.path in context.named_paths:
            continue
        kinds = path_kinds(row.path, row.language, "")
        if "templates" in kinds:
            out[cid] *= options.issue_template_prior
        if "changelog" in kinds:
            out[cid] *= options.issue_changelog_prior
        if tests_again and "tests" in kinds:
            out[cid] *= options.tests_prior
    return out
