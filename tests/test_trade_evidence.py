"""Issue 19, the passage that answers: passage_choice trades a file's thin best chunk for its code
only when that code holds the question's words (search.signals.trade_evidence; measured and left
off by default, config ``with-trade-evidence``). The fixture is a
small Ruby project written for this test (tests/fixtures/passages): a transport whose
``deadline_for`` is 3 lines of code under a 10-line doc comment, beside a constructor and the
socket helpers."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import build_index

from paqad.config import load_settings
from paqad.project import ProjectPaths
from paqad.search import load_embedder, search
from paqad.search.ablations import ablations
from paqad.search.signals.trade_evidence import coverage, held_terms, may_trade

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "passages"
QUERY = "how do the connect, send and idle deadlines from the delivery settings reach the transport?"


def test_a_trade_needs_the_code_chunk_to_hold_the_query_terms():
    terms = ["connect", "send", "idle", "deadlines", "delivery", "settings", "reach", "transport"]
    thin = "# Picks the deadline\ndef deadline_for(phase, settings)\n  settings[:connect_deadline]\nend\n"
    code = "def initialize(host, port)\n  @host = host\nend\n"
    assert held_terms(thin, terms) == frozenset({"connect", "settings"})
    assert coverage(thin, terms) == 0.25 and coverage(code, terms) == 0.0
    assert not may_trade(thin, code, terms, 0.3)
    assert may_trade(thin, code, terms, 0.0)  # off: any code chunk
    assert may_trade(thin, code + "# settings\n", terms, 0.3)  # 1/8 >= 0.3 x 2/8
    assert may_trade(thin, code, [], 0.3)  # no search terms: nothing to compare


@pytest.fixture(scope="module")
def courier_project(tmp_path_factory, paqad_home):
    files = {f"lib/courier/{p.name}": p.read_text() for p in sorted(FIXTURES.glob("*.rb"))}
    files["Gemfile"] = "source 'https://rubygems.org'\n"
    return build_index(tmp_path_factory.mktemp("trade") / "courier", files, paqad_home)


def test_the_small_function_that_answers_is_not_traded_for_its_neighbour(courier_project):
    paths = ProjectPaths(courier_project)
    settings = load_settings(paths, environ={})
    embedder, _ = load_embedder(paths, settings)

    def ranked(name):
        results = search(paths, settings, QUERY, embedder=embedder, options=ablations()[name], top_n=6).results
        return [(r.path, r.start_line, r.end_line, r.symbol) for r in results]

    before, after = ranked("default"), ranked("with-trade-evidence")
    # without the guard the doc-commented deadline_for (thin: 3 of 13 lines are code) is traded
    # for the constructor, which holds none of the question's terms
    assert before[0] == ("lib/courier/transport.rb", 17, 25, "Courier.Transport.initialize")
    assert after[0] == ("lib/courier/transport.rb", 32, 44, "Courier.Transport.deadline_for")
    assert after[-1] == before[0]  # the two traded places; the rest of the list is the same
    assert after[1:-1] == before[1:-1]
    assert [p for p, *_ in before] == [p for p, *_ in after]  # files keep their places
