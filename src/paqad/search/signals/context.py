"""What every ranking signal may read about one query (read-only): :class:`RankingContext`."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Mapping

from paqad import store as store_mod
from paqad.search.analysis import QueryInfo
from paqad.search.symbols import DefinitionMatch

if TYPE_CHECKING:
    from paqad.search.options import RankingOptions


@dataclass(frozen=True)
class RankingContext:
    """One query's inputs to the signals after fusion.

    ``rows``: the fused candidates' chunks by id; ``best``: the highest fused score (the unit of
    additive boosts); ``definitions``: symbol-table matches in force (empty with symbols off);
    ``named_paths``: files the query names (no prior overrides them); ``exempt``: path-prior
    kinds that hold most of the project's code (:func:`~paqad.search.priors.exempt_kinds`);
    ``file_text``: an indexed file's text (its chunks joined, read from the index on demand; None:
    only the candidates' own text is known);
    ``bm25``: the BM25 score of the candidates the lexical pool holds (higher is better, absent: not
    in the pool), which a signal comparing chunks of one file reads (empty when not given);
    ``file_chunks``: every indexed file's chunk count (empty: unknown); ``file_lines``: an indexed
    file's lines by their 1-based number, placed from its chunks' line ranges (None: unknown);
    ``main_languages``: the languages of a quarter or more of the project's code files (read only
    with ``docs_code`` on; empty: unknown); ``package_names``: a path -> the names of the package
    it belongs to (:func:`~paqad.search.packages.package_names`; None: unknown).
    The cached properties are computed once and read by both a signal and the result's evidence.
    """

    info: QueryInfo
    options: RankingOptions
    rows: Mapping[int, store_mod.ChunkRow]
    best: float
    definitions: tuple[DefinitionMatch, ...]
    named_paths: frozenset[str]
    exempt: frozenset[str]
    file_text: Callable[[str], str] | None = None
    bm25: Mapping[int, float] = field(default_factory=dict)
    file_chunks: Mapping[str, int] = field(default_factory=dict)  # path -> its chunk count (central_files)
    file_lines: Callable[[str], Mapping[int, str]] | None = None  # path -> line number -> line (docstring_chunks)
    main_languages: frozenset[str] = frozenset()  # the project's own code languages (docs_code; empty: unknown)
    package_names: Callable[[str], frozenset[str]] | None = None  # path -> its package's names (package_qualifiers)

    def files_best_first(self, scores: Mapping[int, float]) -> dict[str, list[int]]:
        """Path -> its candidates' chunk ids, best score first (ties by id); files in the order of
        their best chunk. The grouping every within-file signal starts from."""
        by_file: dict[str, list[int]] = {}
        for cid in sorted(scores, key=lambda c: (-scores[c], c)):
            by_file.setdefault(self.rows[cid].path, []).append(cid)
        return by_file

    def files_scaled(self, scores: Mapping[int, float], wanted: Callable[[str], bool],
                     is_hit: Callable[[str, str], bool], factor: float) -> dict[int, float]:
        """``scores`` with every chunk of a file x ``factor`` when ``wanted(path)`` (a cheap test
        of the path) and ``is_hit(path, text)`` (the file's text from :attr:`file_text`, read once
        per file) hold; files the query names are left as they are. Needs :attr:`file_text`
        (None: ``scores`` unchanged). The shape of round 7's file-kind priors (error_types,
        type_modules)."""
        out = dict(scores)
        if self.file_text is None:
            return out
        verdicts: dict[str, bool] = {}
        for cid in scores:
            path = self.rows[cid].path
            if path in self.named_paths or not wanted(path):
                continue
            if path not in verdicts:
                verdicts[path] = is_hit(path, self.file_text(path))
            if verdicts[path]:
                out[cid] *= factor
        return out

    @cached_property
    def definition_shares(self) -> dict[int, float]:
        """Chunk id -> how strongly it defines a query identifier, in (0, 1] (see definitions)."""
        from paqad.search.signals.definitions import definition_shares

        return definition_shares(self)

    @cached_property
    def prior_factors(self) -> dict[int, tuple[float, ...]]:
        """Chunk id -> the path-prior factors that apply to it, in :func:`path_kinds` order."""
        from paqad.search.signals.path_priors import prior_factors

        return prior_factors(self)

    @cached_property
    def path_word_shares(self) -> dict[int, float]:
        """Chunk id -> share of the query's words naming its file or folder (prose queries)."""
        from paqad.search.signals.path_words import path_word_shares

        return path_word_shares(self)
