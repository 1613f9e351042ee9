"""Round 7 priors for prose questions: short exception-class files (error_types, on) and type-only
TypeScript modules (type_modules, measured and left off)."""

from __future__ import annotations

from dataclasses import replace

from paqad.search import RankingOptions, ablations
from paqad.search.analysis import analyze
from paqad.search.signals import RankingContext, error_types, in_force, type_modules
from paqad.store import ChunkRow

MISSING_OPTION = """/*
 * Licensed to the Apache Software Foundation (ASF) under one or more
 */
package org.apache.commons.cli;

import java.util.List;

/**
 * Thrown when a required option has not been provided.
 */
public class MissingOptionException extends ParseException {
    private List missingOptions;

    public MissingOptionException(final List missingOptions) {
        this(createMessage(missingOptions));
        this.missingOptions = missingOptions;
    }
}
"""
DEFAULT_PARSER = """package org.apache.commons.cli;

public class DefaultParser implements CommandLineParser {
    protected void checkRequiredOptions() throws MissingOptionException {
        if (!expectedOpts.isEmpty()) {
            throw new MissingOptionException(expectedOpts);
        }
    }
}
"""
NETWORK_ERROR_TS = """import type {NormalizedOptions} from '../types/options.js';
import {KyError} from './KyError.js';

/**
The error thrown when the request fails because of a network problem.
*/
export class NetworkError extends KyError {
	override name = 'NetworkError' as const;
}
"""
PY_ERRORS = '''"""Errors raised by the client."""


class TimeoutError(ClientError):
    """Raised when a request exceeds its deadline."""
'''
RETRY_TYPES = """import type {HttpMethod} from './options.js';

export type ShouldRetryState = {
	/**
	The error that caused the request to fail.
	*/
	error: Error;
};

export type RetryOptions = {
	limit?: number;
	methods?: HttpMethod[];
	backoffLimit?: number;
	jitter?: boolean | ((delay: number) => number);
};

export type RequestHttpMethod = 'get' | 'post'
| 'put';
"""
KY_TS = """import {HTTPError} from '../errors/HTTPError.js';

export class Ky {
	async #calculateRetryDelay(error: unknown) {
		return this.#calculateDelay();
	}
}
"""

FILES = {
    "src/main/java/org/apache/commons/cli/MissingOptionException.java": MISSING_OPTION,
    "src/main/java/org/apache/commons/cli/DefaultParser.java": DEFAULT_PARSER,
    "source/errors/NetworkError.ts": NETWORK_ERROR_TS,
    "client/errors.py": PY_ERRORS,
    "source/types/retry.ts": RETRY_TYPES,
    "source/core/Ky.ts": KY_TS,
}
PATHS = list(FILES)
ROWS = {i + 1: ChunkRow(path=path, start_line=1, end_line=text.count("\n"), language="", symbol=None, kind="module",
                        signature=None, text=text, id=i + 1) for i, (path, text) in enumerate(FILES.items())}


def _context(query: str, options: RankingOptions) -> RankingContext:
    return RankingContext(info=analyze(query), options=options, rows=ROWS, best=1.0, definitions=(),
                          named_paths=frozenset(), exempt=frozenset(), file_text=FILES.get)


def test_a_short_file_deriving_an_exception_is_an_error_type_file_and_the_code_that_throws_is_not():
    assert [error_types.is_error_type_file(path, text) for path, text in FILES.items()] == [
        True, False, True, True, False, False]
    # the name alone is not enough: a long catalogue of error classes stays (faraday's error.rb)
    assert not error_types.is_error_type_file("lib/faraday/error.rb", "class Error < StandardError\n" + "x = 1\n" * 600)


def test_a_question_ranks_the_throwing_code_above_the_exception_file_it_throws():
    scores = {1: 1.0, 2: 0.9, 3: 0.8, 4: 0.8, 5: 0.5, 6: 0.5}
    out = error_types.apply(scores, _context("where are missing required options detected after parsing?",
                                             RankingOptions()))
    assert out == {1: 0.7, 2: 0.9, 3: 0.8 * 0.7, 4: 0.8 * 0.7, 5: 0.5, 6: 0.5}
    assert max(out, key=out.get) == 2  # DefaultParser.java first


def test_asking_which_error_a_symbol_query_or_the_switch_off_leaves_the_scores():
    scores = {1: 1.0, 2: 0.9, 3: 0.8}
    for query in ("what error is thrown when the payload does not match the schema?",
                  "how is the exception hierarchy organised?", "MissingOptionException"):
        assert error_types.apply(scores, _context(query, RankingOptions())) == scores
    assert "error_types" in in_force(RankingOptions())
    assert "error_types" not in in_force(ablations()["no-error-types"])
    assert "error_types" not in in_force(ablations()["round-6-default"])


def test_a_module_of_type_declarations_only_is_a_type_module():
    assert type_modules.is_type_module(RETRY_TYPES)
    assert not type_modules.is_type_module(KY_TS)
    assert not type_modules.is_type_module("import {x} from './x.js';\n// nothing declared\n")
    assert not type_modules.is_type_module("export type A = string;\nexport const b = 1;\n")


def test_type_modules_is_off_by_default_and_lowers_type_modules_when_on():
    assert "type_modules" not in in_force(RankingOptions())
    options = ablations()["with-type-modules"]
    scores = {5: 1.0, 6: 0.8}
    assert type_modules.apply(scores, _context("how is the delay before the next retry computed?", options)) == {
        5: 0.7, 6: 0.8}
    assert type_modules.apply(scores, _context("where are the retry option types declared?", options)) == scores
    assert type_modules.apply(scores, _context("how is the delay computed?", replace(options, type_module_prior=1.0))) == {
        5: 1.0, 6: 0.8}
