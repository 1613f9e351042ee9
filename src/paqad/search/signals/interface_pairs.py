"""Interface/implementation pairs for questions (issue 24): in a prose question, a file that only
declares an interface (``CookieJarInterface.php``, ``IRetryPolicy.cs``, or ``Store.java`` beside
its ``StoreImpl.java``) whose implementation file is a candidate too x ``interface_prior``: "how
does X work" is answered by the body; the interface's doc comments repeat the question's words
(guzzle: ``CookieJarInterface.php`` above ``CookieJar.php`` for "how are cookies remembered").
Waived when the question asks for interfaces, contracts or the API, or names the file. The C/C++
header beside its ``.c`` is ``header_pairs`` (measured, left off: headers are often the answer).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

_INTERFACE_WORDS = re.compile(r"\b(interfaces?|contracts?|api|apis|abstract|declar\w*|signatures?)\b", re.IGNORECASE)
_SUFFIXED = re.compile(r"^(?P<base>[A-Z]\w*?)(Interface|Contract)$")  # CookieJarInterface
_PREFIXED = re.compile(r"^I(?P<base>[A-Z][a-z]\w*)$")  # IRetryPolicy (C#, TypeScript)


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].split(".", 1)[0]


def interface_base(stem: str, stems: set[str]) -> str | None:
    """The implementation's stem when ``stem`` names an interface whose implementation is among
    ``stems`` (``CookieJarInterface`` -> ``CookieJar``; ``Store`` -> ``StoreImpl``), else None."""
    for pattern in (_SUFFIXED, _PREFIXED):
        match = pattern.match(stem)
        if match and match.group("base") in stems:
            return match.group("base")
    if stem + "Impl" in stems:
        return stem + "Impl"
    return None


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``interface_prior`` on interface files whose implementation is a candidate too."""
    info = context.info
    if info.kind == SYMBOL or _INTERFACE_WORDS.search(info.text):
        return scores
    stems = {_stem(context.rows[cid].path) for cid in scores}
    out = dict(scores)
    for cid in scores:
        path = context.rows[cid].path
        if path not in context.named_paths and interface_base(_stem(path), stems):
            out[cid] *= context.options.interface_prior
    return out
