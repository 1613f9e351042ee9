"""``rag eval``: does retrieval help, measured by script (DESIGN §3).

Modules along the run: :mod:`.cases` (the built-in case set; its project and ``cases.json`` are
package data under ``corpus/``), :mod:`.git_cases` (cases from a project's git history),
:mod:`.runner` (index a project, run each case under two arms), :mod:`.retrievers` (what an arm
delivers for a query: the product's search -> floor -> section, or any callable put in its
place), :mod:`.gate` (summaries, the
``feature-off-vs-on`` gate), :mod:`.report` (report, snapshots, JSON) and :mod:`.metrics`
(file-level recall, MRR, nDCG shared with ``bench/``).
"""

from paqad.evaluate.gate import (
    CaseResult, Gate, GateCheck, GateThresholds, Summary, changes, count_tokens, evaluate_gate, relative_change,
    summarize,
)
from paqad.evaluate.git_cases import GIT_NAMED, GIT_UNNAMED, git_cases, is_source_file, message_names
from paqad.evaluate.report import MODES, RULES, EvalReport, load_snapshot, report_data, save_snapshot
from paqad.evaluate.retrievers import Delivery, EvalIndex, Retriever, deliver_results, lexical_retriever, product_retriever
from paqad.evaluate.runner import cache_path, run_eval, score_case

__all__ = [
    "CaseResult", "Delivery", "deliver_results", "EvalIndex", "EvalReport", "GIT_NAMED", "GIT_UNNAMED", "Gate", "GateCheck", "GateThresholds", "MODES", "RULES",
    "Retriever", "Summary", "cache_path", "changes", "count_tokens", "evaluate_gate", "git_cases",
    "is_source_file", "lexical_retriever", "load_snapshot", "message_names", "product_retriever", "relative_change",
    "report_data", "run_eval", "save_snapshot", "score_case", "summarize",
]
