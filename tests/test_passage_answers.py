"""Issue 19, round 8, the passage that answers: the middle of a Python docstring is no answer
(signals.docstring_passages, read by passage_choice), a named type's thin head is traded in a prose
question (passage_choice's ``named_type_trades``), and a confident answer is followed by its
relief-band companions (search.floor's ``companions``)."""

from __future__ import annotations

import pytest
from conftest import build_index

from paqad.config import load_settings
from paqad.deliver.delivery import deliver
from paqad.deliver.render import render_section
from paqad.project import ProjectPaths
from paqad.search import load_embedder, search
from paqad.search.analysis import analyze
from paqad.search.floor import apply_floor
from paqad.search.ablations import ablations
from paqad.search.results import SearchResult
from paqad.search.signals import RankingContext, passage_choice
from paqad.store import ChunkRow

# A progress module shaped like Textualize/rich's (written for this test): the loop that redraws
# the bars lives in a thread class; wrap_file's long Args list is split into pieces, one of which
# holds the question's words ("progress bars are refreshed while a task runs").
ARGS = [
    ("file (BinaryIO)", "The file-like object to read, opened in binary mode."),
    ("total (int)", "Total number of bytes to read; the bar is full when they are read."),
    ("description (str, optional)", 'Description of the task shown next to the progress bar. Defaults to "Reading".'),
    ("auto_refresh (bool, optional)", "Refresh the progress bars automatically while the task runs, else refresh "
                                      "after each read. Default is True."),
    ("refresh_per_second (float)", "Number of times per second the progress bars are refreshed while a task runs. "
                                   "Defaults to 10."),
    ("transient (bool, optional)", "Clear the progress display when the task is finished. Defaults to False."),
    ("console (Console, optional)", "Console to write the progress bars to. Default creates one."),
    ("style (str, optional)", 'Style of the bar\'s background. Defaults to "bar.back".'),
    ("complete_style (str, optional)", 'Style of the completed part of the bar. Defaults to "bar.complete".'),
    ("finished_style (str, optional)", 'Style of a finished bar. Defaults to "bar.finished".'),
    ("pulse_style (str, optional)", 'Style of a pulsing bar, before the total is known. Defaults to "bar.pulse".'),
    ("disable (bool, optional)", "Disable the progress display entirely. Defaults to False."),
]
PROGRESS = (
    '"""Progress bars for long-running tasks."""\n\n'
    "from threading import Event, RLock, Thread\n\n\n"
    "class _Ticker(Thread):\n"
    '    """A daemon thread that redraws a display at a fixed rate until it is stopped."""\n\n'
    "    def __init__(self, display, per_second):\n"
    "        self.display = display\n"
    "        self.interval = 1 / per_second\n"
    "        self.done = Event()\n"
    "        super().__init__(daemon=True)\n\n"
    "    def stop(self):\n"
    "        self.done.set()\n\n"
    "    def run(self):\n"
    "        while not self.done.wait(self.interval):\n"
    "            with self.display.lock:\n"
    "                if not self.done.is_set():\n"
    "                    self.display.redraw()\n\n\n"
    "class Display:\n"
    '    """Draws the bars of every task on the console."""\n\n'
    "    def __init__(self, console, auto_refresh=True, refresh_per_second=10):\n"
    "        self.console = console\n"
    "        self.lock = RLock()\n"
    "        self.tasks = []\n"
    "        self._thread = _Ticker(self, refresh_per_second) if auto_refresh else None\n\n"
    "    def start(self):\n"
    "        if self._thread is not None:\n"
    "            self._thread.start()\n\n"
    "    def redraw(self):\n"
    "        with self.lock:\n"
    "            lines = [task.render() for task in self.tasks]\n"
    "            self.console.write_lines(lines)\n\n\n"
    'def wrap_file(file, total, *, description="Reading...", auto_refresh=True, console=None, transient=False,\n'
    '              refresh_per_second=10, style="bar.back", complete_style="bar.complete",\n'
    '              finished_style="bar.finished", pulse_style="bar.pulse", disable=False):\n'
    '    """Read bytes from a file while tracking progress.\n\n'
    "    Args:\n" + "".join(f"        {name}: {text}\n" for name, text in ARGS) +
    "    Returns:\n"
    "        A context manager yielding a reader that advances the task as it reads.\n"
    '    """\n'
    "    display = Display(console, auto_refresh=auto_refresh, refresh_per_second=refresh_per_second)\n"
    "    task = display.add_task(description, total=total)\n"
    "    return display.wrap_reader(file, task)\n"
)
CONSOLE = (
    '"""A console that writes lines to a terminal."""\n\nimport sys\n\n\nclass Console:\n'
    '    """Writes text to a stream, replacing the lines it wrote last."""\n\n'
    "    def __init__(self, stream=None):\n        self.stream = stream or sys.stdout\n        self._written = 0\n\n"
    "    def write_lines(self, lines):\n        if self._written:\n"
    '            self.stream.write(f"\\x1b[{self._written}A")\n'
    '        for line in lines:\n            self.stream.write(line + "\\n")\n        self._written = len(lines)\n'
)
REFRESH = "how are progress bars refreshed while a task runs"


@pytest.fixture(scope="module")
def meter_project(tmp_path_factory, paqad_home):
    files = {"pyproject.toml": '[project]\nname = "meter"\nversion = "1.0"\n',
             "meter/progress.py": PROGRESS, "meter/console.py": CONSOLE}
    return build_index(tmp_path_factory.mktemp("passage-answers") / "meter", files, paqad_home)


def _top(root, query, config="default", n=3):
    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={})
    embedder, _ = load_embedder(paths, settings)
    results = search(paths, settings, query, embedder=embedder, options=ablations()[config], top_n=n).results
    return [(r.path, r.start_line, r.end_line) for r in results]


def test_the_refresh_question_gets_the_loop_not_a_piece_of_wrap_files_docstring(meter_project):
    before, after = _top(meter_project, REFRESH, "no-docstring-passages"), _top(meter_project, REFRESH)
    # before: L54-59 is the middle of wrap_file's Args list (no quotes, no def line), L44-53 its head
    assert before == [("meter/progress.py", 54, 59), ("meter/progress.py", 44, 53), ("meter/console.py", 1, 18)]
    # after: the head (thin) is traded for the file's best chunk that is neither thin nor a docstring
    # piece, the thread whose run() redraws at a fixed rate; files keep their places
    assert after == [("meter/progress.py", 1, 22), ("meter/progress.py", 54, 59), ("meter/console.py", 1, 18)]


def test_the_hook_delivers_the_loop_first(meter_project):
    paths = ProjectPaths(meter_project)
    settings = load_settings(paths, environ={})
    embedder, _ = load_embedder(paths, settings)
    section = deliver(paths, settings, REFRESH, "this prompt", embedder=embedder).section
    headings = [line for line in section.splitlines() if line.startswith("### ")]
    assert headings == ["### meter/progress.py:L1-22 · _Ticker · match 63% · low confidence",
                        "### meter/progress.py:L54-59 · wrap_file · match 44% · low confidence"]
    before = deliver(paths, settings, REFRESH, "this prompt", embedder=embedder, companions=0,
                     options=ablations()["round-7-passages"]).section
    assert [line for line in before.splitlines() if line.startswith("### ")] == [
        "### meter/progress.py:L54-59 · wrap_file · match 70% · low confidence",
        "### meter/progress.py:L44-53 · wrap_file · match 51% · low confidence"]


# A Java type's head: its doc comment, the class line and two fields (thin: no line calls, branches
# or returns), and the method that does what a question about the type asks.
HEAD = ("/**\n * Parses command line arguments: walks through the argument tokens and decides what each\n"
        " * token is, an option, an option value, an argument or the -- marker.\n */\n"
        "public class TokenParser {\n    private boolean skipParsing;\n    private Option currentOption;\n")
BODY = ("    private void handleToken(final String token) {\n        if (skipParsing) {\n            arguments.add(token);\n"
        '        } else if ("--".equals(token)) {\n            skipParsing = true;\n'
        '        } else if (token.startsWith("--")) {\n            handleLongOption(token);\n'
        "        } else {\n            handleUnknownToken(token);\n        }\n    }\n")
ROWS = {1: ChunkRow("src/TokenParser.java", 1, 7, "java", "TokenParser", "class", None, HEAD, defines=True, id=1),
        2: ChunkRow("src/TokenParser.java", 9, 19, "java", "TokenParser.handleToken", "method", None, BODY,
                    defines=True, id=2)}


@pytest.mark.parametrize("config,query,expected", [
    # a prose question naming the type: its thin head trades places with handleToken
    ("default", "how does TokenParser walk through the argument tokens and decide what each one is?", {1: 0.5, 2: 1.0}),
    ("no-named-type-trades", "how does TokenParser walk through the argument tokens and decide what each one is?",
     {1: 1.0, 2: 0.5}),
    # a name lookup keeps the definition (DESIGN §6)
    ("default", "TokenParser class", {1: 1.0, 2: 0.5}),
])
def test_a_named_types_thin_head_is_traded_only_in_a_prose_question(config, query, expected):
    context = RankingContext(info=analyze(query), options=ablations()[config], rows=ROWS, best=1.0, definitions=(),
                             named_paths=frozenset(), exempt=frozenset())
    assert context.definition_shares == {1: 0.5}  # the head defines the name the query holds
    assert passage_choice.apply({1: 1.0, 2: 0.5}, context) == expected


def hit(rank: int, confidence: float) -> SearchResult:
    return SearchResult(path=f"src/m{rank}.py", start_line=1, end_line=3, symbol=f"f{rank}", language="python",
                        text=f"def f{rank}():\n    return {rank}\n", score=0.5, fused_rank=rank, dense_rank=rank,
                        lexical_rank=None, confidence=confidence)


@pytest.mark.parametrize("confidences,companions,delivered", [
    ((0.90, 0.50, 0.40, 0.30), 0, ["src/m1.py"]),
    ((0.90, 0.50, 0.40, 0.30), 1, ["src/m1.py", "src/m2.py"]),
    ((0.90, 0.50, 0.40, 0.30), 2, ["src/m1.py", "src/m2.py", "src/m3.py"]),
    ((0.90, 0.3449, 0.30), 2, ["src/m1.py"]),  # 34%: below the relief floor
    ((0.90, 0.20, 0.60), 2, ["src/m1.py"]),  # rank 3 is capped at rank 2's 20%: never a rank below a dropped one
    ((0.95, 0.90, 0.85, 0.80, 0.60, 0.50), 2, ["src/m1.py", "src/m2.py", "src/m3.py", "src/m4.py", "src/m5.py"]),
    ((0.95, 0.90, 0.85, 0.80, 0.76, 0.60), 2, ["src/m1.py", "src/m2.py", "src/m3.py", "src/m4.py", "src/m5.py"]),
    ((0.60, 0.50, 0.40), 2, ["src/m1.py", "src/m2.py"]),  # no confident result: the relief pair, as before
])
def test_a_confident_answer_is_followed_by_its_relief_band_companions(confidences, companions, delivered):
    outcome = apply_floor([hit(i + 1, c) for i, c in enumerate(confidences)], companions=companions)
    assert [r.path for r in outcome.results] == delivered
    assert outcome.form == ("confident" if confidences[0] >= 0.75 else "low-confidence")


def test_the_section_says_which_passages_are_below_the_floor():
    outcome = apply_floor([hit(1, 0.90), hit(2, 0.50), hit(3, 0.40)], companions=2)
    lines = render_section(outcome, "this prompt").splitlines()
    assert lines[3] == "1 match at or above the 75% confidence floor; the next 2 follow below it (low confidence)."
    assert [line for line in lines if line.startswith("### ")] == [
        "### src/m1.py:L1-2 · f1 · match 90%", "### src/m2.py:L1-2 · f2 · match 50% · low confidence",
        "### src/m3.py:L1-2 · f3 · match 40% · low confidence"]
    one = render_section(apply_floor([hit(1, 0.90), hit(2, 0.50)], companions=1), "this prompt").splitlines()
    assert one[3] == "1 match at or above the 75% confidence floor; the next one follows below it (low confidence)."
