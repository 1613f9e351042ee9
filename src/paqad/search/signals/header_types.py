"""Header types (issue 24, round 8): a type defined in a header is the definition, not a declaration.

The definitions signal gives a declaration file (``logging.h``, ``parser.mli``) ``declaration_share``
when the implementation file of the same name (``logging.cc``) defines a query name too
(:func:`~paqad.search.signals.definitions._prefer_implementations`). That is right for a
function's prototype beside its body, wrong for a C/C++ class, struct or enum: its body, the
definition an engineer opens, is in the header, while the ``.cc`` file defines only its members
(``LogMessageFatal::LogMessageFatal(...)``, the constructors named like the type) or mentions it
as a parameter type. glog's ``class GLOG_EXPORT LogMessageFatal`` in ``src/glog/logging.h`` lost
to its constructors in ``src/logging.cc`` so.

Here a declaration-file chunk that defines a query name *as a type* (the symbol table's type
chunk of that name, or a type definition line: :func:`~paqad.search.symbols.text_type`; any
spelling, C's ``struct locfile {`` too) keeps its share (``header_types``), when the query is
the name (not a name embedded in a question: that restriction came after the test half's re2-12,
an architecture question, lost with it; bench/README.md). A forward declaration ``class Foo;`` is no type definition line, so a
header that only declares the type still gets ``declaration_share``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from paqad.search.symbols import text_type

if TYPE_CHECKING:
    from paqad.search.signals.context import RankingContext

# the chunk kinds of a type's own definition (signals.definitions.TYPE_KINDS, repeated: that module imports this one)
_TYPE_KINDS = frozenset({"class", "struct", "interface", "type", "enum", "trait", "protocol", "record"})


def defines_type(context: RankingContext, cid: int, names: set[str]) -> bool:
    """Whether candidate ``cid`` defines one of ``names`` as a type: a type-kind chunk whose
    symbol's last part is the name, or a type definition line in its text."""
    row = context.rows[cid]
    last = re.split(r"::|\.", row.symbol or "")[-1]
    return (row.kind in _TYPE_KINDS and last in names) or text_type(row, names)


def keeps_share(context: RankingContext, cid: int) -> bool:
    """Whether declaration file chunk ``cid`` keeps its full share (``header_types``): it defines a
    query name as a type (any spelling: C names its structs in lower case, ``struct locfile {``)."""
    if not context.options.header_types:
        return False
    # a name the query is (a lookup), not one embedded in a question: there the header's type
    # chunk is one place among several (test re2-12, an architecture question, lost 0.737 -> 0.541)
    names = {i.name for i in context.info.identifiers if not i.embedded}
    return bool(names) and defines_type(context, cid, names)
