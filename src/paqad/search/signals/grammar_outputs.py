"""Grammar outputs (issue 24, round 6): C/C++ code that yacc/bison or lex/flex generated from a
grammar the index holds too (``src/parser.c`` and ``src/parser.h`` from ``src/parser.y``,
``src/lexer.c`` from ``src/lexer.l``, ``y.tab.c``, ``lex.yy.c``) x ``grammar_output_prior`` when
that grammar is a candidate and the query does not name the generated file: the grammar is what
a developer reads and edits (dev jq-13, "how is the syntax of the filter language defined":
bison's 4,000-line ``parser.c`` first, ``parser.y`` third).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

GRAMMAR_SUFFIXES = {".y": "yacc", ".yy": "yacc", ".l": "lex", ".ll": "lex"}
OUTPUT_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp")
# the tools' default output names, whatever the grammar's stem
_DEFAULT_OUTPUTS = {"y.tab": "yacc", "lex.yy": "lex"}


def _split(path: str) -> tuple[str, str, str]:
    """``(folder with its slash, stem, suffix)``: ``src/parser.tab.c`` -> ``("src/", "parser.tab", ".c")``."""
    folder, _, name = path.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    return (folder + "/" if folder else ""), (stem if dot else name), ("." + ext.lower() if dot else "")


def generated_from(path: str, grammars: dict[tuple[str, str], str]) -> bool:
    """Whether ``path`` is a C/C++ output of one of ``grammars`` ((folder, stem) -> tool)."""
    folder, stem, ext = _split(path)
    if ext not in OUTPUT_SUFFIXES:
        return False
    base = stem.removesuffix(".tab")  # bison -d: parser.tab.c / parser.tab.h
    if (folder, base) in grammars:
        return True
    tool = _DEFAULT_OUTPUTS.get(stem)
    return tool is not None and any(f == folder and t == tool for (f, _), t in grammars.items())


def apply(scores: dict[int, float], context: RankingContext) -> dict[int, float]:
    """Scores with ``grammar_output_prior`` on generated parsers/lexers whose grammar is a candidate."""
    grammars: dict[tuple[str, str], str] = {}
    for cid in scores:
        folder, stem, ext = _split(context.rows[cid].path)
        if ext in GRAMMAR_SUFFIXES:
            grammars[(folder, stem)] = GRAMMAR_SUFFIXES[ext]
    if not grammars:
        return scores
    out = dict(scores)
    for cid in scores:
        path = context.rows[cid].path
        if path not in context.named_paths and generated_from(path, grammars):
            out[cid] *= context.options.grammar_output_prior
    return out
