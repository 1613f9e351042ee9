"""Issue 24, round 6: a pasted report's docs/config files (``prompt_waivers``), a repository's
community files (``community_files``) and a facade's docstring chunks (``docstring_chunks``) below its code, on hand-made chunk rows; the benchmarks are
bench/issues/run.py and bench/ranking/run.py --git."""

from __future__ import annotations

from paqad.search import RankingOptions
from paqad.search.analysis import analyze
from paqad.search.signals import RankingContext, community_files, docstring_chunks, prompt_waivers
from paqad.search.signals.docstring_chunks import docstring_lines
from paqad.store import ChunkRow

# a title, a blank line, a body that says "version" and "docs" in passing
REPORT = """Creating multiple log files at log rotation time '00:00'

I run loguru version 0.6.0, installed with pip. As the docs say, I add two sinks:

    logger.add('logs/app_{time}.log', rotation='00:00')

After midnight it creates many files instead of rotating.
"""


def _row(cid: int, path: str, language: str) -> ChunkRow:
    return ChunkRow(path=path, start_line=1, end_line=10, language=language, symbol=None, kind="block",
                    signature=None, text="rotation of the file sink", id=cid)


ROWS = {1: _row(1, "loguru/_file_sink.py", "python"), 2: _row(2, "README.md", "markdown"),
        3: _row(3, "pyproject.toml", "toml"), 4: _row(4, "CONTRIBUTING.rst", "text"),
        5: _row(5, ".github/SECURITY.md", "markdown")}
SCORES = {cid: 1.0 for cid in ROWS}


def _context(query: str, options: RankingOptions, named: frozenset[str] = frozenset(),
             exempt: frozenset[str] = frozenset()) -> RankingContext:
    return RankingContext(info=analyze(query), options=options, rows=ROWS, best=1.0, definitions=(),
                          named_paths=named, exempt=exempt)


WAIVERS = RankingOptions(issue_prose_prior=1.0)  # "no-issue-prose": the waivers only
PROSE = RankingOptions()  # the default: waivers and issue_prose_prior 0.5


def test_a_report_whose_body_waived_the_docs_and_config_priors_gets_them_back():
    info = analyze(REPORT)
    assert info.long and info.mentions_docs and info.mentions_config  # "docs", "version", "installed"
    out = prompt_waivers.apply(SCORES, _context(REPORT, WAIVERS))
    # README (prose) and pyproject.toml (data) x their priors 0.5; CONTRIBUTING.rst is prose too
    assert out == {1: 1.0, 2: 0.5, 3: 0.5, 4: 0.5, 5: 0.5}
    out = prompt_waivers.apply(SCORES, _context(REPORT, PROSE))
    assert out == {1: 1.0, 2: 0.25, 3: 0.25, 4: 0.25, 5: 0.25}


def test_the_title_named_files_and_short_or_untitled_prompts_keep_the_waiver():
    docs_title = "Docs: the README example of rotation is wrong" + REPORT[REPORT.index("\n"):]
    out = prompt_waivers.apply(SCORES, _context(docs_title, WAIVERS))
    assert out == {1: 1.0, 2: 1.0, 3: 0.5, 4: 1.0, 5: 1.0}  # the title asks for docs: prose keeps its waiver
    assert prompt_waivers.apply(SCORES, _context(REPORT, WAIVERS, named=frozenset({"README.md"})))[2] == 1.0
    assert prompt_waivers.apply(SCORES, _context(REPORT, WAIVERS, exempt=frozenset({"prose"})))[2] == 1.0
    short = "rotation docs for version 0.6"
    assert prompt_waivers.apply(SCORES, _context(short, WAIVERS)) == SCORES
    lead_in = "I get this after the rotation at midnight, with version 0.6:\n\n" + REPORT
    assert prompt_waivers.apply(SCORES, _context(lead_in, WAIVERS)) == SCORES  # a lead-in, not a title
    off = RankingOptions(title_waivers=False, issue_prose_prior=1.0)  # "no-title-waivers"
    assert prompt_waivers.apply(SCORES, _context(REPORT, off)) == SCORES


def test_community_files_are_below_the_code_unless_asked():
    options = RankingOptions(community_prior=0.3)  # "with-community-files"
    assert community_files.is_community_file("CODE_OF_CONDUCT.md") and community_files.is_community_file(".github/SECURITY.md")
    assert not community_files.is_community_file("src/security.py")
    out = community_files.apply(SCORES, _context("Change coding style of PR", options))
    assert out == {1: 1.0, 2: 1.0, 3: 1.0, 4: 0.3, 5: 0.3}
    assert community_files.apply(SCORES, _context("how do I report a vulnerability", options)) == SCORES
    named = _context("Change coding style of PR", options, named=frozenset({"CONTRIBUTING.rst"}))
    assert community_files.apply(SCORES, named)[4] == 1.0


FACADE = [
    "class Logger:",
    "    def add(self, sink, *, rotation=None):",
    '        """Add a handler sending log messages to a sink.',
    "",
    "        rotation : |str|, optional",
    "            A condition indicating whenever the current logged file should be closed.",
    '        """',
    "        return self._core.add(sink, rotation)",
]


def test_the_chunks_inside_a_docstring_are_found_by_line_number():
    lines = {i + 1: line for i, line in enumerate(FACADE)}
    assert docstring_lines(lines) == frozenset({3, 4, 5, 6, 7})
    # a chunk of the docstring's middle (no opening quotes in it) and the chunk holding the code
    assert docstring_chunks.is_docstring_chunk(5, "\n".join(FACADE[4:6]), docstring_lines(lines))
    assert not docstring_chunks.is_docstring_chunk(1, "\n".join(FACADE), docstring_lines(lines))
    rows = {1: ChunkRow(path="loguru/_logger.py", start_line=5, end_line=6, language="python", symbol="Logger.add",
                        kind="block", signature=None, text="\n".join(FACADE[4:6]), id=1),
            2: ChunkRow(path="loguru/_logger.py", start_line=8, end_line=8, language="python", symbol="Logger.add",
                        kind="block", signature=None, text=FACADE[7], id=2)}
    context = RankingContext(info=analyze(REPORT), options=RankingOptions(docstring_prior=0.5), rows=rows, best=1.0,
                             definitions=(), named_paths=frozenset(), exempt=frozenset(), file_lines=lambda path: lines)
    assert docstring_chunks.apply({1: 1.0, 2: 1.0}, context) == {1: 0.5, 2: 1.0}
