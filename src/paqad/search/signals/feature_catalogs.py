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


def is_catalog(symbol: str | None, path: str) -> bool:
    """Whether a chunk (its symbol, its file) belongs to a feature catalog type."""
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    parts = symbol.split(".") if symbol else []
    return bool(_CATALOG.search(stem)) or any(_CATALOG.search(part) for part in parts)


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``feature_catalog_prior`` on feature-catalog chunks the question does not ask for."""
    info = context.info
    if info.kind == SYMBOL or _ASKS.search(info.text):
        return scores
    out = dict(scores)
    for cid in scores:
        row = context.rows[cid]
        if row.path not in context.named_paths and is_catalog(row.symbol, row.path):
            out[cid] *= context.options.feature_catalog_prior
    return out
