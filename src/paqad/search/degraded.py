"""Why a search went keyword-only: a typed outcome (reason enum) with the user's words (issue 18).

Code branches on :attr:`Degraded.reason`; people read :attr:`Degraded.words`, one line naming the
problem and, where there is one, the fix. The words are defined here once.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from paqad.errors import ModelMissingError, PaqadError

KEYWORD_ONLY = "keyword search only"
LATE = "semantic search did not finish within the hook's budget"
# Issue 20 item 10: the dense side that was never started did not "not finish".
NOT_STARTED = ("semantic search was not started: the model would not have loaded within the hook's budget "
               "(rag_hook_budget_ms) on this machine now")
NO_EMBEDDER = f"semantic search unavailable (no embedding model loaded); {KEYWORD_ONLY}"
# Below this share of chunks with vectors (an index still embedding), search is keyword-only: a
# dense ranking over a small embedded part would outvote the keyword hits of the rest. Cursor
# offers semantic search from about 80% of a repository indexed (shared/ANCHORS.md).
SEMANTIC_MIN_COVERAGE = 0.8


class DegradedReason(Enum):
    """Why semantic search was left out of one answer."""

    MODEL_MISSING = "model missing"  # the model files are not there (ModelMissingError)
    MODEL_UNUSABLE = "model unusable"  # damaged, unloadable, no key or runtime, failed on the query
    NO_MODEL = "no model"  # no embedder was given
    LATE = "late"  # started, but not ready within the hook's budget
    NOT_STARTED = "not started"  # would not have loaded within the hook's budget
    STILL_EMBEDDING = "still embedding"  # fewer than SEMANTIC_MIN_COVERAGE of the chunks have vectors
    STALE_SETTINGS = "stale settings"  # embedding settings changed since the build
    STALE_MODEL = "stale model"  # the index was built with another model
    STALE_INDEX = "stale index"  # a sync refused to go on (detail: its IndexStaleError, with the command)


@dataclass(frozen=True)
class Degraded:
    """A keyword-only answer's ``reason`` and ``detail`` (the fault's text, the coverage, the
    changed settings: whatever the words need)."""

    reason: DegradedReason
    detail: str = ""

    @classmethod
    def from_error(cls, exc: PaqadError | Exception) -> "Degraded":
        """The outcome for a model that could not be loaded or failed on the query."""
        reason = DegradedReason.MODEL_MISSING if isinstance(exc, ModelMissingError) else DegradedReason.MODEL_UNUSABLE
        return cls(reason, str(exc))

    @property
    def words(self) -> str:
        """One line for the user, the same text the product always printed."""
        reason = self.reason
        if reason in (DegradedReason.MODEL_MISSING, DegradedReason.MODEL_UNUSABLE):
            return f"semantic search unavailable ({self.detail}); {KEYWORD_ONLY}"
        if reason is DegradedReason.NO_MODEL:
            return NO_EMBEDDER
        if reason is DegradedReason.LATE:
            return f"{LATE}; {KEYWORD_ONLY}"
        if reason is DegradedReason.NOT_STARTED:
            return f"{NOT_STARTED}; {KEYWORD_ONLY}"
        if reason is DegradedReason.STILL_EMBEDDING:
            return (f"semantic search starts once {SEMANTIC_MIN_COVERAGE:.0%} of the chunks have vectors "
                    f"({self.detail}); {KEYWORD_ONLY}")
        if reason is DegradedReason.STALE_SETTINGS:
            return f"index is stale ({self.detail}); run `paqad-ai rag rebuild`; {KEYWORD_ONLY}"
        if reason is DegradedReason.STALE_INDEX:
            return f"{self.detail}; {KEYWORD_ONLY}"
        return f"{self.detail}; run `paqad-ai rag rebuild`; {KEYWORD_ONLY}"  # STALE_MODEL
