"""Files a pasted report names (issue 24, "File localisation on real issues"): in a long prompt,
the chunks of a project file the text names by a path of two or more components (``src/attr/
_make.py``, ``httpx/_urls.py#L277``, ``loguru/_colorizer.py`` in a link) or that a traceback
frame runs through (``File ".../site-packages/attr/_make.py", line 1715, in attrs``) get
x ``named_file_boost``; a chunk of such a file that defines the function a frame names (``attrs``)
gets ``frame_function_share`` x the best fused score more (the frame says where the error passed).

A named file is otherwise only exempt from the path priors (it keeps its score): in an issue the
file is the strongest evidence the text holds, but BM25 over a long report and the embedding of
its head rarely rank it first. A one-component name (``test.py``, ``utils.py``) is left out: a
reporter's own script shares its name with project files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paqad.search.signals.path_priors import prior_of
from paqad.search.symbols import defines_in_text

if TYPE_CHECKING:
    from paqad.search.analysis import QueryInfo
    from paqad.search.signals.context import RankingContext

MIN_COMPONENTS = 2  # a named path's tail that must match an indexed path (folder/file.py)


def _tails(info: QueryInfo) -> tuple[set[str], dict[str, set[str]]]:
    """(path tails of two components the prompt names; tail -> frame function names)."""
    tails: set[str] = set()
    functions: dict[str, set[str]] = {}
    for path in info.paths:
        parts = [p for p in path.replace("\\", "/").split("/") if p]
        if len(parts) >= MIN_COMPONENTS:
            tails.add("/".join(parts[-MIN_COMPONENTS:]))
    for frame in info.frames:
        parts = [p for p in frame.path.replace("\\", "/").split("/") if p]
        if len(parts) >= MIN_COMPONENTS and frame.function:
            name = frame.function.strip("<>").rsplit(".", 1)[-1]
            if name and name != "module":
                functions.setdefault("/".join(parts[-MIN_COMPONENTS:]), set()).add(name)
    return tails, functions


def named_files(context: RankingContext) -> dict[str, set[str]]:
    """Indexed files among the candidates the prompt names by a 2+ component path -> the frame
    functions named in them (possibly none)."""
    tails, functions = _tails(context.info)
    if not tails:
        return {}
    out: dict[str, set[str]] = {}
    for path in {row.path for row in context.rows.values()}:
        for tail in tails:
            if path == tail or path.endswith("/" + tail):
                out.setdefault(path, set()).update(functions.get(tail, ()))
    return out


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with named files' chunks lifted (long prompts only; see the module docstring)."""
    options = context.options
    if not context.info.long:
        return scores
    files = named_files(context)
    if not files:
        return scores
    out = dict(scores)
    for cid, score in scores.items():
        row = context.rows[cid]
        names = files.get(row.path)
        if names is None:
            continue
        out[cid] = score * options.named_file_boost
        if any(defines_in_text(row.text, name) for name in names):
            out[cid] += options.frame_function_share * context.best * prior_of(context.prior_factors.get(cid, ()))
    return out
