"""Feature catalogs (issue 24, round 6): in a prose question that does not ask about features,
options or settings, a chunk of a feature catalog (a type named ``...Feature``, ``...Features``,
``...Capability``, ``...Capabilities``: jackson-core's ``StreamReadFeature``, ``JsonParser.Feature``)
x ``feature_catalog_prior``.

Each constant of such an enum carries a doc comment that describes a behaviour in the words a
question uses ("the same key twice", "skipping the rest of the token stream"), while the code
doing it lives elsewhere (dev jackson-core-08, -15: ``StreamReadCapability``, ``StreamReadFeature``
first). A question about the switch itself ("is there a parser option that tolerates ...") names
an option, a feature or a setting and is left alone.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.analysis import SYMBOL

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

_CATALOG = re.compile(r"(Feature|Features|Capability|Capabilities)$")
_ASKS = re.compile(r"\b(features?|options?|settings?|flags?|config\w*|capabilit\w+|switch\w*)\b", re.IGNORECASE)


def catalog_name(symbol: str | None, path: str) -> str | None:
    """The feature catalog type a chunk (its symbol, its file) belongs to, None for other chunks
    (``JsonParser.Feature`` -> ``Feature``; a chunk of ``StreamReadFeature.java`` -> ``StreamReadFeature``)."""
    for part in (symbol.split(".") if symbol else []):
        if _CATALOG.search(part):
            return part
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    return stem if _CATALOG.search(stem) else None


def is_catalog(symbol: str | None, path: str) -> bool:
    """Whether a chunk (its symbol, its file) belongs to a feature catalog type."""
    return catalog_name(symbol, path) is not None


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``feature_catalog_prior`` on feature-catalog chunks the question does not ask
    for (nor names: ``StreamReadFeature.CLEAR_CURRENT_TOKEN_ON_CLOSE`` in a commit message)."""
    info = context.info
    if info.kind == SYMBOL or _ASKS.search(info.text):
        return scores
    words = set(re.findall(r"\w+", info.text))
    out = dict(scores)
    for cid in scores:
        row = context.rows[cid]
        name = catalog_name(row.symbol, row.path)
        if name and name not in words and row.path not in context.named_paths:
            out[cid] *= context.options.feature_catalog_prior
    return out
