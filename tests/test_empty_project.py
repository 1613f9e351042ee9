"""A project with nothing indexable (issue 14.5): ``init`` warns, saying what it looked for and how
to add a file type; prompts then get nothing rather than a "no matches" section."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from conftest import run_cli as run, write_files
from paqad.hosts import HOSTS
from paqad.hosts.prompt_hook import run_prompt_hook
from paqad.project import ProjectPaths

SOLVER = (
    "program heat\n"
    "  implicit none\n"
    "  real :: grid(100, 100)\n"
    "  call relax(grid, 500)  ! Jacobi relaxation of the heat equation\n"
    "end program heat\n"
)
RELAX = (
    "subroutine relax(grid, steps)\n"
    "  real, intent(inout) :: grid(:, :)\n"
    "  integer, intent(in) :: steps\n"
    "  ! average the four neighbours of every inner cell, steps times\n"
    "end subroutine relax\n"
)
FILES = {"solver/heat.f90": SOLVER, "solver/relax.f90": RELAX, "notes.txt": "Run make, then ./heat > out.dat and plot it.\n" * 3}

WARNING = (
    "paqad-ai: warning: nothing here can be indexed, so retrieval will find nothing: paqad-ai looked for "
    ".json .jsonc .markdown .md .mdc .mdx .toml .yaml .yml files, named files such as Dockerfile and Makefile, and "
    "the files of the stacks it detected (shell: .bash .sh .zsh); 3 files were skipped for their type (.f90 2, .txt 1). "
    "A manifest (pyproject.toml, package.json, go.mod, Cargo.toml, CMakeLists.txt, ...) adds its language's files; "
    "for any other type add a glob to .paqad/rag.ignore.yaml, e.g. `include: [\"**/*.f90\"]`, then run "
    "`paqad-ai rag rebuild`\n"
)




@pytest.fixture
def project(git_repo) -> Path:
    return git_repo(FILES)


def _init(project: Path) -> tuple[int, str, str]:
    return run("rag", "init", "--provider", "local", project=project)


def test_init_with_nothing_indexable_warns_what_it_looked_for_and_how_to_add_a_type(project: Path) -> None:
    code, out, err = _init(project)
    assert code == 0
    assert out.startswith("Retrieval on (local, Xenova/all-MiniLM-L6-v2): indexed 0 files, 0 chunks ")
    assert err.endswith(WARNING)
    assert err.count("warning") == 1


def test_prompts_get_nothing_from_an_index_without_chunks(project: Path) -> None:
    paths = ProjectPaths(project)
    assert _init(project)[0] == 0
    payload = json.dumps({"session_id": "s", "cwd": str(project), "hook_event_name": "UserPromptSubmit",
                          "prompt": "how is the heat equation relaxed?"})
    outcome = run_prompt_hook(HOSTS["claude"], payload, project_root=project, spawn=False, started=time.monotonic())
    assert (outcome.stdout, outcome.delivered, outcome.note) == ("", False, "no section")
    code, out, _ = run("rag", "refresh-context", project=project)
    assert code == 0
    assert out == "index up to date (0 files, 0 chunks); the index holds no chunks (nothing indexable): section left out\n"
    assert not paths.session_context.exists()


def test_an_include_glob_adds_a_file_type(project: Path) -> None:
    assert _init(project)[0] == 0
    write_files(project, {".paqad/rag.ignore.yaml": 'include: ["**/*.f90"]\n'})
    code, out, err = run("rag", "rebuild", project=project)
    assert (code, err.count("warning")) == (0, 0)
    assert out.startswith("Rebuilt: indexed 2 files, ")
    code, out, _ = run("rag", "status", "--explain", "solver/relax.f90", project=project)
    assert out == "solver/relax.f90: indexed\n"
    code, out, _ = run("rag", "probe", "relax", "--json", project=project)
    assert json.loads(out)["results"][0]["path"] == "solver/relax.f90"


def test_probe_on_an_empty_index_finds_nothing_without_failing(project: Path) -> None:
    """No candidate from any ranker (an index with no chunk) is "No results.", not an internal error."""
    assert _init(project)[0] == 0
    assert run("rag", "probe", "where is the heat equation relaxed?", project=project) == (0, "No results.\n", "")
    code, out, _ = run("rag", "probe", "relax", "--json", project=project)
    assert code == 0 and json.loads(out)["results"] == []
