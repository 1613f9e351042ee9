"""File names between the file system and the index, whatever the locale (DESIGN §5).

The OS hands Python names decoded with the file system encoding (ASCII under ``LC_ALL=C`` without
UTF-8 mode, undecodable bytes as surrogates); the index stores them as UTF-8 text. These two
functions convert one way and back, so ``src/café_日本.js`` is the same path under any locale.
A name whose bytes are not UTF-8 keeps its surrogates (``check:not-utf8-name`` rejects it).

Example::

    text_name(os.fsdecode(b"caf\\xc3\\xa9.js"))   # 'café.js' under any locale
    open(root / fs_name("café.js"), "rb")          # works under LC_ALL=C too
"""

from __future__ import annotations

import os


def text_name(name: str) -> str:
    """``name`` as the OS API gave it -> the UTF-8 text the index stores (unchanged if its bytes
    are not UTF-8, or if it is already text the file system encoding cannot hold)."""
    try:
        raw = os.fsencode(name)
    except UnicodeEncodeError:  # already text (a user's argument under an ASCII locale)
        return name
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return name


def fs_name(text: str) -> str:
    """A stored path (UTF-8 text) -> the string the OS API encodes back to its UTF-8 bytes."""
    try:
        return os.fsdecode(text.encode("utf-8"))
    except UnicodeEncodeError:  # holds surrogates: already the OS's spelling
        return text


def shown_name(text: str) -> str:
    """A path as people read it: a name whose bytes are not UTF-8 (lone surrogates, which print
    as ``\\udce9``) gets its undecodable bytes as ``\\xNN`` escapes, e.g. ``caf\\xe9.py``; any
    other name unchanged."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
