"""Symbols across packages (issue 24), on real indexes of tiny projects with the real model:

- a Rust workspace whose asked crate re-exports a trait defined in a sibling crate: the
  definition first, the re-export next;
- a C header/implementation pair: the ``.c`` definition first for the function name, the header
  next;
- a bare CamelCase name shared by a type and a same-named method: the type first;
- a name shared by a macro and a function: the function unless the query says macro.

(The 300 KB hand-written file that is indexed and found is tests/test_large_files.py.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_index
from conftest import ranked_files as _files

CODEC_CORE = """//! Wire formats shared by the workspace's crates.

/// Turns values into bytes and back.
pub trait Codec {
    /// The value this codec reads and writes.
    type Item;

    /// Writes `item` at the end of `out`.
    fn encode(&self, item: &Self::Item, out: &mut Vec<u8>);

    /// Reads one item from the front of `input`, or `None` when it is incomplete.
    fn decode(&self, input: &[u8]) -> Option<Self::Item>;
}

/// Bytes written before every frame.
pub const MAGIC: [u8; 2] = [0xC0, 0xDE];
"""

CODEC_APP = """//! The application crate: connections that speak a Codec.

pub use wire_core::Codec;
pub use wire_core::MAGIC;

mod connection;
mod framing;

pub use connection::Connection;
pub use framing::LengthPrefixed;
"""

CONNECTION = """use crate::Codec;

/// A connection that frames values with a codec before writing them to the socket.
pub struct Connection<C: Codec> {
    codec: C,
    pending: Vec<u8>,
}

impl<C: Codec> Connection<C> {
    /// A connection over `codec` with nothing pending.
    pub fn new(codec: C) -> Self {
        Connection { codec, pending: Vec::new() }
    }

    /// Encodes `item` into the pending buffer.
    pub fn send(&mut self, item: &C::Item) {
        self.codec.encode(item, &mut self.pending);
    }
}
"""

FRAMING = """use crate::Codec;

/// A codec wrapper that writes a u32 length before every frame.
pub struct LengthPrefixed<C> {
    inner: C,
}

impl<C: Codec> Codec for LengthPrefixed<C> {
    type Item = C::Item;

    fn encode(&self, item: &Self::Item, out: &mut Vec<u8>) {
        let mut body = Vec::new();
        self.inner.encode(item, &mut body);
        out.extend_from_slice(&(body.len() as u32).to_be_bytes());
        out.extend_from_slice(&body);
    }

    fn decode(&self, input: &[u8]) -> Option<Self::Item> {
        let len = u32::from_be_bytes(input.get(..4)?.try_into().ok()?) as usize;
        self.inner.decode(input.get(4..4 + len)?)
    }
}
"""

RUST_WORKSPACE = {
    "Cargo.toml": '[workspace]\nmembers = ["crates/wire-core", "crates/wire-app"]\n',
    "crates/wire-core/Cargo.toml": '[package]\nname = "wire-core"\nversion = "0.1.0"\n',
    "crates/wire-core/src/lib.rs": CODEC_CORE,
    "crates/wire-app/Cargo.toml": '[package]\nname = "wire-app"\nversion = "0.1.0"\n\n[dependencies]\n'
                                  'wire-core = { path = "../wire-core" }\n',
    "crates/wire-app/src/lib.rs": CODEC_APP,
    "crates/wire-app/src/connection.rs": CONNECTION,
    "crates/wire-app/src/framing.rs": FRAMING,
}

BUFFER_H = """#ifndef BUFFER_H
#define BUFFER_H

#include <stddef.h>

/* A growable byte buffer. */
typedef struct buffer {
    char *data;
    size_t len;
    size_t cap;
} buffer;

/* Appends len bytes of data to buf, growing it when needed; returns 0 or -1 on allocation failure. */
int buffer_append(buffer *buf, const char *data, size_t len);

/* Releases the buffer's memory. */
void buffer_free(buffer *buf);

/* The number of bytes held. */
#define buffer_length(buf) ((buf)->len)

#endif
"""

BUFFER_C = """#include <stdlib.h>
#include <string.h>

#include "buffer.h"

static int buffer_grow(buffer *buf, size_t need) {
    size_t cap = buf->cap ? buf->cap : 64;
    while (cap < need) {
        cap *= 2;
    }
    char *data = realloc(buf->data, cap);
    if (data == NULL) {
        return -1;
    }
    buf->data = data;
    buf->cap = cap;
    return 0;
}

int buffer_append(buffer *buf, const char *data, size_t len) {
    if (buf->len + len > buf->cap && buffer_grow(buf, buf->len + len) != 0) {
        return -1;
    }
    memcpy(buf->data + buf->len, data, len);
    buf->len += len;
    return 0;
}

void buffer_free(buffer *buf) {
    free(buf->data);
    buf->data = NULL;
    buf->len = buf->cap = 0;
}
"""

WRITER_C = """#include "buffer.h"

/* Writes a line (text and a newline) into the output buffer. */
int writer_line(buffer *out, const char *text, size_t len) {
    if (buffer_append(out, text, len) != 0) {
        return -1;
    }
    return buffer_append(out, "\\n", 1);
}
"""

C_PAIR = {"include/buffer.h": BUFFER_H, "src/buffer_impl.c": BUFFER_C, "src/writer.c": WRITER_C,
          "Makefile": "all:\n\tcc -Iinclude -c src/buffer_impl.c src/writer.c\n"}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("across") / "wire", RUST_WORKSPACE, paqad_home)


@pytest.fixture(scope="module")
def c_pair(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("across") / "buffers", C_PAIR, paqad_home)



@pytest.mark.parametrize("query", ["wire_app::Codec", "Codec", "the Codec trait of wire-app"])
def test_a_re_exported_trait_finds_its_definition_first_and_the_re_export_next(workspace, query):
    assert _files(workspace, query)[:2] == ["crates/wire-core/src/lib.rs", "crates/wire-app/src/lib.rs"]


def test_a_c_function_finds_its_definition_first_and_the_header_next(c_pair):
    assert _files(c_pair, "buffer_append")[:2] == ["src/buffer_impl.c", "include/buffer.h"]
