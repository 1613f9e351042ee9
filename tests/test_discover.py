"""Discovery and the four filter layers (DESIGN §5): every reason code, layer order, stacks,
``.paqad/rag.ignore.yaml``, the generated-file marker, symlinks, ``explain`` and speed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import write_files

from paqad.errors import PaqadError
from paqad.index.discover import discover, explain
from paqad.index.filters import GENERATED_MARKER, FilterDecision
from paqad.index.stacks import detect_stacks

BODY = "Enough words here to pass the fifty non-whitespace characters check of layer 4.\n"
PY = "def handler(event):\n    return {'status': 200, 'body': event.get('payload', '')}\n"


def decisions(root: Path, **kwargs) -> dict[str, str | None]:
    """path -> reason (None when eligible) for one discovery."""
    found = discover(root, **kwargs)
    out = {d.path: d.reason for d in found.rejected}
    out.update({d.path: None for d in found.eligible})
    return out


def test_every_layer_and_reason_code(git_repo, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(BODY)
    root = git_repo(
        {
            "pyproject.toml": "[project]\nname = 'demo'\nversion = '0.1.0'\ndescription = 'demo project'\n",
            "app/main.py": PY,
            "app/types.pyi": PY,
            "bin/tool.py": PY,  # `bin` holds source in Python: not ignored
            "README.md": BODY,
            "AGENTS.md": "# Agents\n" + BODY,
            "CLAUDE.md": GENERATED_MARKER + "\n# Generated for Claude Code\n" + BODY,
            "Dockerfile": "FROM python:3.12-slim\nCOPY . /app\nRUN pip install --no-cache-dir /app\n",
            "config.yaml": "service:\n  name: demo\n  replicas: 3\n  image: registry.example.com/demo\n",
            "notes.txt": BODY,
            "logo.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 64,
            ".paqad/secrets.env": "OPENAI_API_KEY=sk-not-a-real-key\n",
            ".claude/settings.json": '{"permissions": {"allow": ["Bash(ls)"]}, "note": "' + "x" * 40 + '"}',
            "package-lock.json": '{"name": "demo", "lockfileVersion": 3, "requires": true, "packages": {}}',
            ".gitignore": "generated/\n",
            "generated/api.py": PY,
            "private.md": BODY,
            "node_modules/lib/index.md": BODY,
            "demo.egg-info/PKG-INFO.md": BODY,
            ".env.local.json": '{"OPENAI_API_KEY": "sk-not-a-real-key-but-long-enough-to-count"}',
            ".env": "OPENAI_API_KEY=sk-not-a-real-key-but-long-enough-to-count-anyway\n",
            ".paqad-extra/skip.md": BODY,  # not .paqad: an ordinary folder
            "docs/drafts/idea.md": BODY,
            "empty.py": "",
            "blob.json": b'{"a": "' + b"\x00" * 80 + b'"}',
            "latin1.md": ("Caf\xe9 " * 20).encode("latin-1"),
            "tiny.md": "# Hi\n\n   short   \n",
            "big.md": "word\n" * 220000,  # 1,100,000 bytes: over the 1 MiB default
            "bom.md": "\ufeff" + BODY,
        },
        commit=False,
    )
    (root / ".git" / "info" / "exclude").write_text("private.md\n")
    (root / ".paqad" / "rag.ignore.yaml").write_text("exclude:\n  - docs/drafts/\n")
    (root / "link.md").symlink_to(outside)
    assert decisions(root) == {
        ".claude/": "hard:ai-tool-dir",
        ".env": "type:extension",
        ".env.local.json": "ignore:env-file",
        ".git/": "hard:vcs-dir",
        ".gitignore": "type:extension",
        ".paqad/": "hard:paqad-dir",
        ".paqad-extra/skip.md": None,
        "AGENTS.md": None,
        "CLAUDE.md": "hard:generated-entry-file",
        "Dockerfile": None,
        "README.md": None,
        "app/main.py": None,
        "app/types.pyi": None,
        "big.md": "check:too-large",
        "bin/tool.py": None,
        "blob.json": "check:binary",
        "bom.md": None,
        "config.yaml": None,
        "demo.egg-info/": "ignore:stack-dir",
        "docs/drafts/": "ignore:rag-ignore-yaml",
        "empty.py": "check:empty",
        "generated/": "ignore:gitignore",
        "latin1.md": "check:not-utf8",
        "link.md": "check:symlink",
        "logo.png": "type:extension",
        "node_modules/": "ignore:default-dir",
        "notes.txt": "type:extension",
        "package-lock.json": "hard:lockfile",
        "private.md": "ignore:git-info-exclude",
        "pyproject.toml": None,
        "tiny.md": "check:too-few-chars",
    }
    found = discover(root)
    assert found.stacks == ["python", "shell"]
    assert found.reason_counts()["type:extension"] == 4
    main = next(d for d in found.eligible if d.path == "app/main.py")
    st = (root / "app" / "main.py").stat()
    assert (main.size, main.mtime_ns) == (len(PY), st.st_mtime_ns)
    assert all(d.size == 0 for d in found.rejected if d.reason != "check:too-large")  # too large: its size, to report


def test_a_file_is_rejected_by_the_first_layer(git_repo) -> None:
    root = git_repo(
        {
            ".gitignore": "package-lock.json\nnotes.txt\nempty.md\nCLAUDE.md\nlinked.md\n",
            "package-lock.json": '{"name": "demo", "lockfileVersion": 3, "requires": true}',
            "notes.txt": BODY,
            "empty.md": "",
            "CLAUDE.md": GENERATED_MARKER + "\n" + BODY,
            "real.md": BODY,
        },
        commit=False,
    )
    (root / "linked.md").symlink_to(root / "real.md")
    got = decisions(root)
    assert got["package-lock.json"] == "hard:lockfile"  # layer 2 before layer 3
    assert got["notes.txt"] == "type:extension"  # layer 1 before layer 3
    assert got["CLAUDE.md"] == "hard:generated-entry-file"  # layer 2 before layer 3
    assert got["empty.md"] == "ignore:gitignore"  # layer 3 before layer 4
    assert got["linked.md"] == "ignore:gitignore"  # layer 3 before the symlink check
    assert got["real.md"] is None


def test_generated_marker_only_counts_in_the_first_512_bytes(tmp_path: Path) -> None:
    write_files(tmp_path, {
        "AGENTS.md": "# Agents\n" + BODY,
        "CLAUDE.md": "# Claude\n" + GENERATED_MARKER + "\n" + BODY,
        "GEMINI.md": "x" * 600 + "\n" + GENERATED_MARKER + "\n",
        "docs/CLAUDE.md": "# Hand written\n" + BODY,
    })  # fmt: skip
    got = decisions(tmp_path)
    assert got == {"AGENTS.md": None, "CLAUDE.md": "hard:generated-entry-file", "GEMINI.md": None, "docs/CLAUDE.md": None}


def test_symlinked_folders_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_files(outside, {"secret.py": PY, "notes.md": BODY})
    root = tmp_path / "proj"
    write_files(root, {"main.py": PY})
    (root / "shared").symlink_to(outside, target_is_directory=True)
    (root / "alias.py").symlink_to(root / "main.py")
    assert decisions(root) == {"main.py": None, "shared/": "check:symlink", "alias.py": "check:symlink"}
    assert explain(root, "shared/secret.py").reason == "check:symlink"


def test_env_files_and_folders_are_ignored(tmp_path: Path) -> None:
    write_files(tmp_path, {
        ".env.production.yaml": "API_KEY: sk-not-a-real-key-but-long-enough-to-count-here\n",
        ".env/lib/site.py": PY,  # a virtualenv named .env
        "envs.md": BODY,
        ".envrc.md": BODY,
        "env/settings.py": PY,  # `env` may hold source: not ignored by default
    })  # fmt: skip
    assert decisions(tmp_path) == {
        ".env.production.yaml": "ignore:env-file",
        ".env/": "ignore:env-file",
        ".envrc.md": None,
        "envs.md": None,
        "env/settings.py": None,
    }


def test_max_file_size_is_checked_in_bytes(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.md": "a" * 100, "b.md": "b" * 101})
    assert decisions(tmp_path, max_file_size=100) == {"a.md": None, "b.md": "check:too-large"}


# --- stacks ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("files", "stacks", "eligible"),
    [
        pytest.param(
            {"pyproject.toml": "[project]\nname = 'plain'\nversion = '1.0.0'\ndescription = 'no framework'\n", "plain.py": PY, "web.ts": PY, "tool.go": PY},
            ["python", "shell"], ["plain.py", "pyproject.toml"], id="python without framework",
        ),
        pytest.param(
            {"requirements-dev.txt": "pytest\n", "svc/handler.py": PY},
            ["python", "shell"], ["svc/handler.py"], id="python from requirements*.txt",
        ),
        pytest.param(
            {"package.json": '{"name": "web", "version": "1.0.0", "private": true, "type": "module"}',
             "src/a.js": PY, "src/b.jsx": PY, "src/c.mjs": PY, "src/d.cjs": PY, "src/e.ts": PY,
             "src/f.tsx": PY, "src/g.mts": PY, "src/h.cts": PY, "src/i.py": PY, "dist/bundle.js": PY},
            ["javascript", "typescript", "shell"],
            ["package.json", "src/a.js", "src/b.jsx", "src/c.mjs", "src/d.cjs", "src/e.ts",
             "src/f.tsx", "src/g.mts", "src/h.cts"],
            id="js and ts",
        ),
        pytest.param(
            {"go.mod": "module example.com/svc\n\ngo 1.22\n", "cmd/main.go": PY, "pkg/util/u.go": PY,
             "vendor/x/y.go": PY, "scripts/build.sh": "#!/bin/sh\nset -eu\ngo build -o bin/svc ./cmd/... && echo built\n"},
            ["go", "shell"], ["cmd/main.go", "pkg/util/u.go", "scripts/build.sh"], id="go (pkg kept, vendor ignored)",
        ),
        pytest.param(
            {"Cargo.toml": "[package]\nname = 'crate'\nversion = '0.1.0'\nedition = '2021'\n",
             "src/lib.rs": PY, "target/debug/gen.rs": PY, "Cargo.lock": BODY},
            ["rust", "shell"], ["Cargo.toml", "src/lib.rs"], id="rust",
        ),
        pytest.param(
            {"backend/pyproject.toml": "[project]\nname = 'backend'\nversion = '1.0'\ndescription = 'the api'\n", "backend/app.py": PY,
             "frontend/package.json": '{"name": "frontend", "version": "1.0.0", "private": true, "type": "module"}',
             "frontend/app.tsx": PY},
            ["python", "javascript", "typescript", "shell"],
            ["backend/app.py", "backend/pyproject.toml", "frontend/app.tsx", "frontend/package.json"],
            id="manifests one level down",
        ),
        pytest.param(
            {"scripts/report.py": PY, "tools/fetch.go": PY, "README.md": BODY, "data.csv": BODY},
            ["python", "go", "shell"], ["README.md", "scripts/report.py", "tools/fetch.go"],
            id="no manifest: by extension",
        ),
        pytest.param(
            {"Makefile": "all:\n\tcc -O2 -Wall -o demo main.c util.c && echo done building\n",
             "main.c": PY, "util.h": PY},
            ["cpp", "shell"], ["Makefile", "main.c", "util.h"], id="makefile with C",
        ),
        pytest.param(
            {"configure.ac": "AC_INIT([demo], [1.0])\nAM_INIT_AUTOMAKE\nAC_PROG_CC\nAC_OUTPUT\n",
             "Makefile.am": "bin_PROGRAMS = demo\ndemo_SOURCES = src/main.c src/util.h\n",
             "src/main.c": PY, "src/util.h": PY, "docs/Pipfile": "[packages]\njinja2 = \"*\"\n", "docs/build.py": PY},
            ["python", "cpp", "shell"], ["docs/build.py", "src/main.c", "src/util.h"],
            id="autotools (no Makefile in the tree) beside a python docs tool",
        ),
        pytest.param(
            {"configure.ac": "AC_INIT([jq], [1.8])\nAC_PROG_YACC\nAM_PROG_LEX\nAC_OUTPUT\n",
             "src/parser.y": "%token IDENT\n%%\nExp: Term { $$ = $1; } ;\n%%\n" + BODY,
             "src/lexer.l": "%%\n\"as\" { return AS; }\n[a-z]+ { yylval->literal = jv_string(yytext); }\n",
             "src/calc.yy": BODY, "src/scan.ll": BODY, "src/main.c": PY, "src/builtin.jq": "def map(f): [.[] | f];\n" + BODY},
            ["cpp", "shell"], ["src/calc.yy", "src/lexer.l", "src/main.c", "src/parser.y", "src/scan.ll"],
            id="yacc and lex grammars are C sources (a jq module is not)",
        ),
        pytest.param(
            {"pyproject.toml": "[project]\nname = 'demo'\n", "app/main.py": PY, "grammar/rules.y": BODY, "grammar/toks.l": BODY},
            ["python", "shell"], ["app/main.py"], id="yacc and lex need a C/C++ stack",
        ),
        pytest.param(
            {"App.csproj": "<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup></PropertyGroup></Project>",
             "Program.cs": PY, "bin/Debug/Gen.cs": PY, "obj/x.cs": PY},
            ["csharp", "shell"], ["Program.cs"], id="csharp (bin/obj are output)",
        ),
    ],
)
def test_stack_detection(tmp_path: Path, files: dict[str, str], stacks: list[str], eligible: list[str]) -> None:
    write_files(tmp_path, files)
    assert [p.name for p in detect_stacks(tmp_path)] == stacks
    found = discover(tmp_path)
    assert found.stacks == stacks
    assert [d.path for d in found.eligible] == eligible


# --- .paqad/rag.ignore.yaml --------------------------------------------------------------------


def test_rag_ignore_include_cancels_layer3_only(git_repo) -> None:
    root = git_repo(
        {
            "package.json": '{"name": "web", "version": "1.0.0", "private": true, "type": "module"}',
            ".gitignore": "generated/\n",
            "generated/api.js": PY,
            "generated/other.js": PY,
            "node_modules/mylib/index.js": PY,
            "node_modules/other/index.js": PY,
            ".claude/commands/review.md": BODY,
            "pnpm-lock.yaml": "lockfileVersion: '9.0'\nsettings:\n  autoInstallPeers: true\n",
            "huge/big.js": "x" * 2000,
            "src/app.js": PY,
            "src/app.snap.md": BODY,
            ".paqad/rag.ignore.yaml": (
                "include:\n  - generated/api.js\n  - node_modules/mylib/\n  - .claude/**\n"
                "  - /pnpm-lock.yaml\n  - /huge/\nexclude:\n  - '*.snap.md'\n"
            ),
        },
        commit=False,
    )
    assert decisions(root, max_file_size=1000) == {
        ".claude/": "hard:ai-tool-dir",
        ".git/": "hard:vcs-dir",
        ".gitignore": "type:extension",
        ".paqad/": "hard:paqad-dir",
        "generated/api.js": None,
        "generated/other.js": "ignore:gitignore",
        "huge/big.js": "check:too-large",
        "node_modules/mylib/index.js": None,
        "node_modules/other/": "ignore:default-dir",
        "package.json": None,
        "pnpm-lock.yaml": "hard:lockfile",
        "src/app.js": None,
        "src/app.snap.md": "ignore:rag-ignore-yaml",
    }


def test_rag_ignore_unanchored_include_reenters_ignored_folders(tmp_path: Path) -> None:
    write_files(tmp_path, {
        ".gitignore": "out/\n",
        "out/deep/keep.gen.py": PY,
        "out/deep/drop.py": PY,
        ".paqad/rag.ignore.yaml": "include: ['*.gen.py']\nexclude: ['legacy/', '!legacy/keep.py']\n",
        "legacy/old.py": PY,
        "legacy/keep.py": PY,
    })  # fmt: skip
    assert decisions(tmp_path) == {
        ".gitignore": "type:extension",
        ".paqad/": "hard:paqad-dir",
        "legacy/keep.py": None,
        "legacy/old.py": "ignore:rag-ignore-yaml",
        "out/deep/drop.py": "ignore:gitignore",
        "out/deep/keep.gen.py": None,
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("exclude: [unclosed\n", "is not valid YAML"),
        ("- just\n- a list\n", "expected a mapping"),
        ("excludes:\n  - docs/\n", "unknown key(s) excludes"),
        ("include:\n  - 3\n", "`include:` must be a list of glob strings"),
    ],
)
def test_malformed_rag_ignore_names_the_file(tmp_path: Path, text: str, message: str) -> None:
    write_files(tmp_path, {"a.md": BODY, ".paqad/rag.ignore.yaml": text})
    with pytest.raises(PaqadError, match="rag.ignore.yaml") as info:
        discover(tmp_path)
    assert message in str(info.value)


# --- explain -----------------------------------------------------------------------------------


def test_explain_one_path(git_repo) -> None:
    root = git_repo(
        {
            "pyproject.toml": "[project]\nname = 'demo'\nversion = '0.1.0'\n",
            "src/app.py": PY,
            "node_modules/lib/index.md": BODY,
            "node_modules/lib/notes.txt": BODY,
            ".paqad/context/session-context.md": BODY,
            ".gitignore": "tmp/\n",
            "tmp/scratch.md": BODY,
        },
        commit=False,
    )
    st = (root / "src/app.py").stat()
    assert explain(root, "src/app.py") == FilterDecision(
        "src/app.py", True, None, len(PY), st.st_mtime_ns, st.st_ctime_ns, st.st_ino
    )
    assert explain(root, "./src\\app.py").path == "src/app.py"
    assert explain(root, "node_modules/lib/index.md").reason == "ignore:default-dir"
    assert explain(root, "node_modules/lib/notes.txt").reason == "type:extension"
    assert explain(root, ".paqad/context/session-context.md").reason == "hard:paqad-dir"
    assert explain(root, "tmp/scratch.md").reason == "ignore:gitignore"
    assert explain(root, "node_modules") == FilterDecision("node_modules/", False, "ignore:default-dir")
    assert explain(root, "src/") == FilterDecision("src/", True, None)
    with pytest.raises(PaqadError, match="no such file"):
        explain(root, "src/missing.py")
    with pytest.raises(PaqadError, match=r"^\.\./elsewhere\.py: outside the project /"):
        explain(root, "../elsewhere.py")


def test_explain_agrees_with_discover(git_repo) -> None:
    root = git_repo(
        {
            ".gitignore": "*.log.md\nbuild/\n!keep.log.md\n",
            "a.log.md": BODY, "keep.log.md": BODY, "build/x.md": BODY, "src/a.py": PY,
            "src/b.txt": BODY, "src/empty.py": "", "tiny.md": "short", "CLAUDE.md": GENERATED_MARKER + BODY,
        },
        commit=False,
    )  # fmt: skip
    found = discover(root)
    for decision in found.eligible + found.rejected:
        assert explain(root, decision.path) == decision


# --- speed -------------------------------------------------------------------------------------


def test_discovers_5000_files(tmp_path: Path) -> None:
    write_files(tmp_path, {"pyproject.toml": "[project]\nname = 'big'\n", ".gitignore": "*.tmp.py\nbuild/\n"})
    for d in range(100):
        folder = tmp_path / f"pkg{d}" / "sub"
        folder.mkdir(parents=True)
        for i in range(25):
            (folder.parent / f"m{i}.py").write_text(PY)
            (folder / f"n{i}.md").write_text(BODY)
    modules = tmp_path / "node_modules" / "dep"
    modules.mkdir(parents=True)
    for i in range(1000):
        (modules / f"{i}.js").write_text(PY)
    found = discover(tmp_path)  # its speed is measured by bench/, not asserted here
    assert len(found.eligible) == 5000
    assert found.reason_counts() == {"check:too-few-chars": 1, "ignore:default-dir": 1, "type:extension": 1}


def test_env_files_stay_out_even_when_included_or_tracked(git_repo) -> None:
    """Secrets rule: an ``include:`` glob or git tracking never re-admits a ``.env*`` file."""
    root = git_repo({
        "pyproject.toml": "[project]\nname = 'demo'\nversion = '0.1.0'\ndescription = 'x'\n",
        "config/.env.production.yaml": "API_KEY: sk-not-a-real-key-but-long-enough-to-count-here\n",
        ".paqad/rag.ignore.yaml": "include:\n  - 'config/**'\n  - '.env.*'\n",
    })  # fmt: skip
    assert decisions(root)["config/.env.production.yaml"] == "ignore:env-file"


def test_a_file_name_that_is_not_utf8_is_rejected_not_fatal(tmp_path: Path) -> None:
    write_files(tmp_path, {"pyproject.toml": "[project]\nname = 'demo'\nversion = '0.1.0'\ndescription = 'x'\n", "ok.py": PY})
    with open(os.fsencode(tmp_path) + b"/caf\xe9.py", "w") as fh:  # a Latin-1 name
        fh.write(PY)
    found = discover(tmp_path)
    assert [d.path for d in found.eligible] == ["ok.py", "pyproject.toml"]
    assert [(d.path, d.reason) for d in found.rejected] == [("caf\udce9.py", "check:not-utf8-name")]


def test_explain_shows_a_name_that_is_not_utf8_with_byte_escapes(tmp_path: Path) -> None:
    # Seen as a new user: `--explain` printed "src/attr/caf\udce9_latin1.py" (Python's surrogate).
    from conftest import run_cli

    write_files(tmp_path, {"pyproject.toml": "[project]\nname = 'demo'\nversion = '0.1.0'\ndescription = 'x'\n", "ok.py": PY})
    with open(os.fsencode(tmp_path) + b"/caf\xe9.py", "w") as fh:  # a Latin-1 name
        fh.write(PY)
    code, out, err = run_cli("rag", "status", "--explain", os.fsdecode(b"caf\xe9.py"), project=tmp_path)
    assert (code, out, err) == (0, "caf\\xe9.py: not indexed (check:not-utf8-name)\n"
                                   "  its name is not valid UTF-8: rename it to index it\n", "")
    code, out, _ = run_cli("rag", "status", "--explain", ".", project=tmp_path)
    assert "  check:not-utf8-name 1: caf\\xe9.py\n" in out


def test_explain_of_a_git_worktree_root_does_not_list_its_git_file(git_repo, tmp_path: Path) -> None:
    # In a `git worktree` (tqdm), `--explain .` listed ".git" (the worktree's pointer file) first
    # under type:extension; like the .git folder of a clone, it is no file a user asks about.
    from conftest import git, run_cli

    root = git_repo({"pyproject.toml": "[project]\nname = 'demo'\nversion = '0.1.0'\ndescription = 'x'\n",
                     "ok.py": PY, "notes.txt": "plain words about the demo and its parts\n" * 3})
    git(root, "worktree", "add", "-q", str(tmp_path / "wt"))
    assert (tmp_path / "wt" / ".git").is_file()
    for project in (root, tmp_path / "wt"):
        code, out, err = run_cli("rag", "status", "--explain", ".", project=project)
        assert (code, err) == (0, "")
        assert out == ("./: a folder; the walk enters it and decides each file in it (no index yet, 1 skipped)\n"
                       "  type:extension 1: notes.txt\n"), project


def test_minified_files_are_rejected(tmp_path: Path) -> None:
    bundle = "var a=1;" + ";".join(f"function f{i}(x){{return x*{i}}}" for i in range(400)) + "\n"
    write_files(tmp_path, {
        "package.json": '{"name": "web", "version": "1.0.0", "description": "a web app with a bundle"}\n',
        "dist-ish/app.min.js": bundle,  # one 9 KB line
        "src/app.js": "function add(a, b) {\n  return a + b;\n}\n\nmodule.exports = { add };\n" * 3,
    })  # fmt: skip
    got = decisions(tmp_path)
    assert got["dist-ish/app.min.js"] == "check:minified"
    assert got["src/app.js"] is None


def test_a_bad_glob_in_rag_ignore_is_a_user_error(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.md": BODY, ".paqad/rag.ignore.yaml": 'exclude: ["[z-a]"]\n'})
    with pytest.raises(PaqadError, match=r"rag\.ignore\.yaml: `exclude:` glob '\[z-a\]' is not valid"):
        discover(tmp_path)


def test_manifests_two_levels_down_activate_their_stack(tmp_path: Path) -> None:
    """A monorepo: package.json at the root, a Python service two folders down."""
    write_files(tmp_path, {
        "package.json": '{"name": "mono", "version": "1.0.0", "description": "a monorepo for tests"}\n',
        "services/billing/pyproject.toml": "[project]\nname = 'billing'\nversion = '0.1.0'\ndescription = 'x'\n",
        "services/billing/billing/invoices.py": PY,
    })  # fmt: skip
    assert [p.name for p in detect_stacks(tmp_path)][:2] == ["python", "javascript"]
    assert decisions(tmp_path)["services/billing/billing/invoices.py"] is None


def test_the_files_hooks_install_writes_are_never_indexed(git_repo, tmp_path: Path, monkeypatch) -> None:
    # Seen on tornado (newcomer round 10): after `hooks install --host copilot` and `--mcp`,
    # .github/hooks/paqad-ai.json and .mcp.json were indexed (our own hook command as project
    # content), while every other host's files sit in a hard-excluded AI tool folder.
    from conftest import run_cli

    from paqad.hosts import HOSTS

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = git_repo({"pyproject.toml": "[project]\nname = 'demo'\nversion = '0.1.0'\ndescription = 'demo project'\n",
                      "app/main.py": PY})
    for host in HOSTS:
        code, _, err = run_cli("hooks", "install", "--host", host, *([] if host == "claude-local" else ["--mcp"]),
                               project=root)
        assert code == 0, err
    written = {path for host in HOSTS.values()
               for path in (host.settings_path, host.mcp_path, host.rule_path) if path}
    assert {".github/hooks/paqad-ai.json", ".mcp.json", ".github/mcp.json"} <= written
    assert {path: explain(root, path).reason for path in sorted(written)} == {
        path: "hard:ai-tool-dir" if path.split("/")[0] in {".claude", ".codex", ".gemini", ".cursor"}
        else "hard:ai-tool-file" for path in sorted(written)}
    assert {d.path for d in discover(root).eligible} == {"pyproject.toml", "app/main.py"}


def test_a_fifo_named_like_markdown_or_gitignore_is_never_opened(git_repo) -> None:
    # Seen as a new user (round 10): a FIFO called notes.md made `rag init`, `rag status --explain`
    # and every background refresh block for ever on the generated-entry marker's read (layer 2);
    # a FIFO called .gitignore blocked the walk the same way. A FIFO .py was already fine (size 0).
    import subprocess
    import sys

    root = git_repo({"pyproject.toml": "[project]\nname = 'demo'\nversion = '0.1.0'\ndescription = 'demo project'\n",
                     "app/main.py": PY})
    for name in ("notes.md", "app/.gitignore", "pipe.py"):
        os.mkfifo(root / name)
    paqad_ai = str(Path(sys.executable).parent / "paqad-ai")
    runs = [subprocess.run([paqad_ai, "rag", "status", "--explain", path, "--project-root", str(root)],
                           capture_output=True, text=True, timeout=60) for path in ("notes.md", ".")]
    assert [run.returncode for run in runs] == [0, 0], [run.stderr for run in runs]
    assert runs[0].stdout.splitlines() == ["notes.md: not indexed (check:empty)",
                                           "  not a regular file (a FIFO, socket or device): never read"]
    assert decisions(root) == {".git/": "hard:vcs-dir", "app/.gitignore": "type:extension", "app/main.py": None,
                               "notes.md": "check:empty", "pipe.py": "check:empty", "pyproject.toml": None}
