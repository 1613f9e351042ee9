"""Calibrated confidence: the estimated probability that a result is relevant (DESIGN §8.5).

Every ranked result gets ``confidence`` in [0, 1] from its evidence (:class:`Evidence`): its
cosine, its BM25 score relative to the query's best, its ranks in the dense and BM25 pools and
whether both rankers found it, its fused rank and score, whether it defines an identifier the
query names, whether the query names its file or its words name the path, its path priors, the
query's kind and length. A small logistic model maps the evidence to a probability; it is fitted
on the ranking benchmark's dev half (``bench/calibration.py``), versioned, and shipped as JSON
under ``search/calibration/``:

- a fit per local embedding model (cosines of one model mean nothing for another);
- a model-agnostic fit without the cosine's value (ranks and agreement only), for models we
  cannot run here (OpenAI, Voyage);
- a keyword-only fit for degraded search (no model).

:func:`calibration_for` picks the fit; ``rag status`` names it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib.resources import files
from typing import Sequence

from paqad.search.results import SearchResult

FEATURES = (
    "cosine", "cosine_gap", "bm25_rel", "inv_dense_rank", "inv_lexical_rank", "both", "inv_fused_rank",
    "fused_rel", "inv_file_rank", "defines", "named_file", "path_words", "log_prior", "symbol_query", "long_prompt",
    "prose", "cosine_x_symbol", "defines_x_symbol",
)
DENSE_FEATURES = frozenset({"cosine", "cosine_gap", "inv_dense_rank", "both", "cosine_x_symbol"})
COSINE_FEATURES = frozenset({"cosine", "cosine_gap", "cosine_x_symbol"})
CALIBRATION_VERSION = 1
AGNOSTIC = "model-agnostic"
KEYWORD_ONLY = "keyword-only"


@dataclass(frozen=True)
class Evidence:
    """What one ranked result has going for it (inputs of the calibration).

    Ranks are 1-based (``None``: not in that pool); ``bm25_rel`` and ``fused_rel`` are the
    result's BM25 and fused scores divided by the query's best; ``defines`` is 1.0 for a
    definition of a symbol query's identifier, less for weaker matches (see ranking); ``prior``
    is the product of its path priors (1.0: none applied).
    """

    cosine: float
    top_cosine: float
    bm25_rel: float
    dense_rank: int | None
    lexical_rank: int | None
    fused_rank: int
    fused_rel: float
    file_rank: int
    defines: float
    named_file: bool
    path_words: float
    prior: float
    symbol_query: bool
    long_prompt: bool
    prose: bool

    def vector(self) -> dict[str, float]:
        inv = lambda rank: 0.0 if rank is None else 1.0 / rank  # noqa: E731
        return {
            "cosine": self.cosine,
            "cosine_gap": self.cosine - self.top_cosine,
            "bm25_rel": self.bm25_rel,
            "inv_dense_rank": inv(self.dense_rank),
            "inv_lexical_rank": inv(self.lexical_rank),
            "both": float(self.dense_rank is not None and self.lexical_rank is not None),
            "inv_fused_rank": 1.0 / self.fused_rank,
            "fused_rel": self.fused_rel,
            "inv_file_rank": 1.0 / self.file_rank,
            "defines": self.defines,
            "named_file": float(self.named_file),
            "path_words": self.path_words,
            "log_prior": math.log(max(self.prior, 1e-6)),
            "symbol_query": float(self.symbol_query),
            "long_prompt": float(self.long_prompt),
            "prose": float(self.prose),
            "cosine_x_symbol": self.cosine * float(self.symbol_query),
            "defines_x_symbol": self.defines * float(self.symbol_query),
        }


@dataclass(frozen=True)
class Calibration:
    """A fitted logistic model: ``P(relevant) = 1 / (1 + exp(-(bias + sum w_f * x_f)))``.

    ``name`` is the model id it was fitted for (or :data:`AGNOSTIC` / :data:`KEYWORD_ONLY`);
    ``features`` are the inputs it uses with their ``weights``; ``means``/``scales`` standardise
    them first; ``fitted_on`` says on what (benchmark, split, cases, results).
    """

    name: str
    version: int
    features: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    means: tuple[float, ...]
    scales: tuple[float, ...]
    fitted_on: str = ""

    def probability(self, evidence: Evidence) -> float:
        x = evidence.vector()
        z = self.bias
        for name, w, m, s in zip(self.features, self.weights, self.means, self.scales):
            z += w * (x[name] - m) / s
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))

    def to_dict(self) -> dict:
        return {"name": self.name, "version": self.version, "features": list(self.features),
                "weights": list(self.weights), "bias": self.bias, "means": list(self.means),
                "scales": list(self.scales), "fitted_on": self.fitted_on}

    @classmethod
    def from_dict(cls, data: dict) -> "Calibration":
        return cls(data["name"], int(data["version"]), tuple(data["features"]), tuple(data["weights"]),
                   float(data["bias"]), tuple(data["means"]), tuple(data["scales"]), data.get("fitted_on", ""))


def file_name(name: str) -> str:
    """The JSON file of the fit called ``name`` (``Xenova/all-MiniLM-L6-v2`` -> ``Xenova--all-MiniLM-L6-v2.json``)."""
    return name.replace("/", "--") + ".json"


@lru_cache(maxsize=16)
def load_calibration(name: str) -> Calibration | None:
    """The shipped fit called ``name``, or None when there is none."""
    try:
        text = (files("paqad.search") / "calibration" / file_name(name)).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return None
    return Calibration.from_dict(json.loads(text))


def calibration_for(model_id: str | None) -> Calibration | None:
    """The fit for results of ``model_id``'s embeddings: its own, else the model-agnostic one;
    the keyword-only fit when there is no model (degraded search)."""
    if model_id is None:
        return load_calibration(KEYWORD_ONLY)
    return load_calibration(model_id) or load_calibration(AGNOSTIC)


def monotone_confidence(results: Sequence[SearchResult]) -> list[SearchResult]:
    """``results`` (best first, as ranked) with confidence made non-increasing in rank.

    Each result's confidence becomes the minimum of its own and every better-ranked result's
    (a cumulative minimum): "match %" never rises down the list, so the floor's bands are
    prefixes of the ranking and no delivered passage ranks below a dropped one (DESIGN §8.5).
    The minimum, not a pooled mean, because a lower-ranked result's higher estimate is no
    evidence for the one above it. A result without a calibrated confidence is capped on its
    cosine (the floor's fallback) and then carries the capped value as its confidence.
    """
    out: list[SearchResult] = []
    cap = math.inf
    for result in results:
        own = result.confidence if result.confidence is not None else result.score
        cap = min(cap, own)
        out.append(result if result.confidence == cap else replace(result, confidence=cap))
    return out
