"""Which piece of a definition an exact-name lookup lands on (issue 24), on real indexes of tiny
projects with the real model; each test asserts the first chunk (file and first line):

- a C ``typedef struct ... } name;`` longer than one chunk: its first piece (the ``typedef struct``
  line), not the last one that holds the name (``paqad.search.definition_heads``);
- TypeScript overload signatures above the implementation: the implementation
  (``signals/overloads.py``);
- a Rust type defined in two modules, asked as ``module::Type``: the named module's struct, not
  the other module's, nor its own ``impl`` block (``signals/module_qualifiers.py`` and the type
  preference of ``signals/definitions.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_index
from paqad.config import load_settings
from paqad.project import ProjectPaths
from paqad.search import RankingOptions, load_embedder, search

# A struct of ~1,900 characters: the chunker cuts it into three pieces, and its name comes last.
_FIELDS = "\n".join(
    f"    /** The {what} of the emitter's output stream, kept between calls. */\n    int {name};"
    for what, name in [("column", "column"), ("line number", "line"), ("indentation width", "best_indent"),
                       ("preferred line width", "best_width"), ("open flow level", "flow_level"),
                       ("whitespace flag", "whitespace"), ("indention flag", "indention"),
                       ("open-ended flag", "open_ended"), ("canonical flag", "canonical"),
                       ("unicode flag", "unicode"), ("line break style", "line_break"),
                       ("pending event count", "events_pending"), ("last error code", "error_code"),
                       ("anchor count", "anchor_count"), ("tag directive count", "tag_count")])
EMITTER_H = f"""#ifndef EMITTER_H
#define EMITTER_H

/** Where a document is written and how far the writer has got. */
typedef struct emitter_s {{
{_FIELDS}
}} emitter_t;

/** Starts an emitter with default settings; returns 0 on success. */
int emitter_initialize(emitter_t *emitter);

#endif
"""

EMITTER_C = """#include "emitter.h"

int emitter_initialize(emitter_t *emitter) {
    emitter->column = 0;
    emitter->line = 0;
    emitter->best_indent = 2;
    emitter->best_width = 80;
    return 0;
}

int emitter_reset(emitter_t *emitter) {
    emitter->column = 0;
    emitter->flow_level = 0;
    return emitter_initialize(emitter);
}
"""

TS_COMMON = """import {Draft, Objectish} from "./types"

/**
 * Calls `iter` for each own property of a plain object, or each entry of a map, a set or an
 * array, with the key, the value and the collection itself.
 */
export function forEachEntry<T extends Objectish>(
	collection: T,
	iter: (key: string | number, value: any, source: T) => void
): void
export function forEachEntry(collection: any, iter: any) {
	if (Array.isArray(collection) || collection instanceof Map || collection instanceof Set) {
		collection.forEach((value: any, key: any) => iter(key, value, collection))
		return
	}
	Object.keys(collection).forEach(key => {
		iter(key, collection[key], collection)
	})
}

/** The number of entries `forEachEntry` would visit. */
export function entryCount(collection: any): number {
	let count = 0
	forEachEntry(collection, () => {
		count++
	})
	return count
}
"""

TS_TYPES = """export type Objectish = any[] | Map<any, any> | Set<any> | {[key: string]: any}

export type Draft<T> = T extends object ? {-readonly [K in keyof T]: Draft<T[K]>} : T
"""

FRAME_RS = """//! Frames on the wire.

/// The fixed part in front of every frame: its type and the length of its payload.
pub struct Header {
    pub kind: u8,
    pub length: u32,
}

impl Header {
    /// Reads a frame header from the first five bytes of `input`.
    pub fn parse(input: &[u8]) -> Option<Header> {
        let kind = *input.first()?;
        let length = u32::from_be_bytes(input.get(1..5)?.try_into().ok()?);
        Some(Header { kind, length })
    }
}
"""

STREAM_RS = """//! Streams multiplexed over one connection.

/// What a stream sends before its first frame: the stream id and its priority.
pub struct Header {
    pub stream_id: u32,
    pub priority: u8,
}

impl Header {
    /// A header for stream `stream_id` at the default priority.
    pub fn new(stream_id: u32) -> Header {
        Header { stream_id, priority: 16 }
    }

    /// Whether the stream was opened by the client (odd ids).
    pub fn client_initiated(&self) -> bool {
        self.stream_id % 2 == 1
    }
}
"""

LIB_RS = "pub mod frame;\npub mod stream;\n"

PROJECTS = {
    "c-struct": {"include/emitter.h": EMITTER_H, "src/emitter.c": EMITTER_C,
                 "Makefile": "all:\n\tcc -Iinclude -c src/emitter.c\n"},
    "ts-overloads": {"src/common.ts": TS_COMMON, "src/types.ts": TS_TYPES,
                     "package.json": '{"name": "entries", "version": "1.0.0"}\n'},
    "rust-modules": {"Cargo.toml": '[package]\nname = "wire"\nversion = "0.1.0"\n', "src/lib.rs": LIB_RS,
                     "src/frame.rs": FRAME_RS, "src/stream.rs": STREAM_RS},
}


@pytest.fixture(scope="module")
def projects(tmp_path_factory, paqad_home) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("pieces")
    return {name: build_index(base / name, files, paqad_home) for name, files in PROJECTS.items()}


def _first(root: Path, query: str, options: RankingOptions = RankingOptions()) -> tuple[str, int]:
    """``(path, start line)`` of the first result."""
    paths = ProjectPaths(root)
    settings = load_settings(paths, environ={})
    embedder, why = load_embedder(paths, settings)
    assert why is None
    first = search(paths, settings, query, embedder=embedder, options=options).results[0]
    return first.path, first.start_line


def _line(text: str, prefix: str) -> int:
    """1-based number of the first line of ``text`` that starts with ``prefix``."""
    return next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith(prefix))


def test_a_typedef_struct_split_over_chunks_is_found_at_its_first_line(projects):
    root = projects["c-struct"]
    assert _first(root, "emitter_t") == ("include/emitter.h", _line(EMITTER_H, "/** Where a document"))
    # without the rule the lookup lands on the struct's last piece, the one holding `} emitter_t;`
    path, start = _first(root, "emitter_t", RankingOptions(definition_heads=False))
    assert path == "include/emitter.h" and start > _line(EMITTER_H, "typedef struct")


def test_an_overloaded_typescript_function_is_found_at_its_implementation(projects):
    root = projects["ts-overloads"]
    implementation = _line(TS_COMMON, "export function forEachEntry(collection")
    assert _first(root, "forEachEntry") == ("src/common.ts", implementation)


@pytest.mark.parametrize("query, expected", [("stream::Header", ("src/stream.rs", 1)),
                                             ("frame::Header", ("src/frame.rs", 1))])
def test_a_module_qualified_type_is_found_in_that_module(projects, query, expected):
    assert _first(projects["rust-modules"], query) == expected


def test_without_the_rules_the_lookups_land_elsewhere(projects):
    """The rules are what picks these chunks: with each off, its lookup lands on another one."""
    signature = _first(projects["ts-overloads"], "forEachEntry", RankingOptions(overload_share=1.0))
    assert signature == ("src/common.ts", 1)  # the overload signature (with the doc comment and imports)
    no_modules = RankingOptions(off=frozenset({"module_qualifiers"}), constructor_share=1.0)
    assert _first(projects["rust-modules"], "stream::Header", no_modules) != ("src/stream.rs", 1)
