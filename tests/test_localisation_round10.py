"""Issue 24, round 10 (commit and issue localisation): what a commit message or a report should not
land on. CI and repository-automation files (signals.ci_files, ``ci_prior``), a test file named only
by an identifier its stem spells (``stem_named_tests``, signals.path_priors), an older ``NameVn/``
folder beside a newer one (``suffix_versions``, signals.version_copies); on real indexes of three
small projects (C with a CI workflow, TypeScript with a test folder, PHP with two adapter versions),
with the real model (the benchmarks are ``bench/ranking/run.py --git`` and ``bench/issues/run.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_index
from conftest import ranked_files as _files
from paqad.search import RankingOptions, ablations
from paqad.search.ablations import ROUND_10_LOCALISATION_OFF, ROUND_10_OFF, ROUND_11_OFF
from paqad.search.signals.ci_files import asks_ci, is_bench_folder, is_ci_file
from paqad.search.signals.version_copies import suffix_version_of

ARM64 = '''/* CRC32C on ARM64 with the CRC instructions. */
#include <stdint.h>
#include <stddef.h>
#include "crc_arm64.h"

#if defined(__aarch64__) && defined(__GNUC__) && (__GNUC__ < 9)
/* old GCC versions warn about the cast from a byte pointer; read through memcpy instead */
#pragma GCC diagnostic ignored "-Wcast-align"
#endif

static inline uint64_t read_le64(const uint8_t* p) {
  uint64_t v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}

uint32_t crc_extend_arm64(uint32_t crc, const uint8_t* data, size_t size) {
  const uint8_t* p = data;
  const uint8_t* e = p + size;
  uint32_t l = crc ^ 0xffffffffu;
  while ((e - p) >= 8) {
    l = __builtin_aarch64_crc32cx(l, read_le64(p));
    p += 8;
  }
  while (p != e) {
    l = __builtin_aarch64_crc32cb(l, *p++);
  }
  return l ^ 0xffffffffu;
}
'''
ARM64_H = '''/* CRC32C with the ARM64 CRC instructions. */
#ifndef CRC_ARM64_H
#define CRC_ARM64_H
#include <stdint.h>
#include <stddef.h>
uint32_t crc_extend_arm64(uint32_t crc, const uint8_t* data, size_t size);
#endif
'''
PORTABLE = '''/* Portable CRC32C: a table per byte. */
#include <stdint.h>
#include <stddef.h>

static uint32_t table[256];

static void make_table(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    table[i] = c;
  }
}

uint32_t crc_extend_portable(uint32_t crc, const uint8_t* data, size_t size) {
  if (!table[1]) make_table();
  uint32_t l = crc ^ 0xffffffffu;
  for (size_t i = 0; i < size; i++) l = table[(l ^ data[i]) & 0xff] ^ (l >> 8);
  return l ^ 0xffffffffu;
}
'''
WORKFLOW = '''name: build
on: [push, pull_request]
jobs:
  build-and-test:
    name: >-
      ARM64 GCC ${{ matrix.gcc }} build with old and new compiler versions
    runs-on: ubuntu-latest
    strategy:
      matrix:
        gcc: [7, 8, 9, 12]
        arch: [arm64, x86_64]
    steps:
      - uses: actions/checkout@v4
      - name: Install the old GCC versions for ARM64
        run: sudo apt-get install gcc-${{ matrix.gcc }}-aarch64-linux-gnu
      - name: Compile with warnings as errors
        run: cmake -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc-${{ matrix.gcc }} -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" . && make
      - name: Run the compilation warnings check
        run: make check
'''
CMAKE = '''cmake_minimum_required(VERSION 3.10)
project(crc C)
add_library(crc src/crc_portable.c src/crc_arm64.c)
'''
CRC = {
    "src/crc_arm64.c": ARM64,
    "src/crc_arm64.h": ARM64_H,
    "src/crc_portable.c": PORTABLE,
    ".github/workflows/build.yml": WORKFLOW,
    "CMakeLists.txt": CMAKE,
}

MERGE = '''export type Options = {retry?: number | RetryOptions; headers?: Record<string, string>; prefixUrl?: string};
export type RetryOptions = {limit?: number; methods?: string[]; statusCodes?: number[]};

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object';

export const mergeHeaders = (source1: Record<string, string> = {}, source2: Record<string, string> = {}) => {
\treturn {...source1, ...source2};
};

// Deep merge of the options of extend(): a numeric retry is the retry limit
export const deepMerge = <T>(...sources: Array<Partial<T> | undefined>): T => {
\tlet returnValue: any = {};
\tfor (const source of sources) {
\t\tif (!isObject(source)) {
\t\t\tcontinue;
\t\t}
\t\tfor (let [key, value] of Object.entries(source)) {
\t\t\tif (key === 'retry' && typeof value === 'number') {
\t\t\t\tvalue = {limit: value};
\t\t\t}
\t\t\tif (isObject(value) && key in returnValue) {
\t\t\t\tvalue = deepMerge(returnValue[key], value);
\t\t\t}
\t\t\treturnValue = {...returnValue, [key]: value};
\t\t}
\t}
\treturn returnValue as T;
};
'''
CLIENT = '''import {deepMerge, type Options} from '../utils/merge.js';

export class Client {
\tconstructor(private readonly defaults: Options = {}) {}

\textend(options: Options): Client {
\t\treturn new Client(deepMerge<Options>(this.defaults, options));
\t}

\tasync request(input: string, options: Options = {}): Promise<Response> {
\t\tconst merged = deepMerge<Options>(this.defaults, options);
\t\treturn fetch((merged.prefixUrl ?? '') + input, {headers: merged.headers});
\t}
}
'''
RETRY_TYPES = '''export type RetryOptions = {
\t/** The number of times to retry failed requests. */
\tlimit?: number;
\t/** The methods to retry. */
\tmethods?: string[];
\t/** The status codes to retry. */
\tstatusCodes?: number[];
\t/** The upper bound of the delay between retries, in milliseconds. */
\tbackoffLimit?: number;
};
'''
RETRY_TEST = '''import test from 'ava';
import {Client} from '../source/core/client.js';

test('a numeric retry is the retry limit', async t => {
\tconst client = new Client({retry: 2});
\tconst extended = client.extend({retry: 5});
\tt.is(await extended.request('/retry').then(r => r.status), 200);
});

test('extend keeps the retry limit when merging with a retry object', async t => {
\tconst client = new Client({retry: {limit: 3}});
\tconst extended = client.extend({retry: 4});
\tt.truthy(extended);
});

test('retry limit of zero disables retries', async t => {
\tconst client = new Client({retry: 0});
\tt.truthy(client.extend({retry: {limit: 0}}));
});
'''
KY = {
    "source/utils/merge.ts": MERGE,
    "source/core/client.ts": CLIENT,
    "source/types/retry-options.ts": RETRY_TYPES,
    "test/retry.ts": RETRY_TEST,
}

PROVIDER_V3 = '''<?php

namespace League\\Flysystem\\PhpseclibV3;

use phpseclib3\\Net\\SFTP;

class SftpConnectionProvider implements ConnectionProvider
{
    private ?SFTP $connection = null;

    public function __construct(private string $host, private string $username, private int $port = 22)
    {
    }

    public function provideConnection(): SFTP
    {
        if ($this->connection instanceof SFTP && $this->connection->isConnected()) {
            return $this->connection;
        }
        $this->connection = new SFTP($this->host, $this->port);
        $this->connection->login($this->username);

        return $this->connection;
    }

    public function disconnect(): void
    {
        if ($this->connection) {
            $this->connection->disconnect();
            $this->connection = null;
        }
    }
}
'''
PROVIDER_V2 = PROVIDER_V3.replace("PhpseclibV3", "PhpseclibV2").replace("phpseclib3", "phpseclib").replace(
    "            $this->connection = null;\n", "")
CHECKER_V3 = '''<?php

namespace League\\Flysystem\\PhpseclibV3;

use phpseclib3\\Net\\SFTP;

class SimpleConnectivityChecker implements ConnectivityChecker
{
    public function isConnected(SFTP $connection): bool
    {
        return $connection->isConnected();
    }
}
'''
CHECKER_V2 = CHECKER_V3.replace("PhpseclibV3", "PhpseclibV2").replace("phpseclib3", "phpseclib")
ADAPTER = '''<?php

namespace League\\Flysystem\\Local;

class LocalFilesystemAdapter
{
    public function __construct(private string $root)
    {
    }

    public function write(string $path, string $contents): void
    {
        file_put_contents($this->root . '/' . $path, $contents);
    }
}
'''
FLY = {
    "src/PhpseclibV3/SftpConnectionProvider.php": PROVIDER_V3,
    "src/PhpseclibV2/SftpConnectionProvider.php": PROVIDER_V2,
    "src/PhpseclibV3/SimpleConnectivityChecker.php": CHECKER_V3,
    "src/PhpseclibV2/SimpleConnectivityChecker.php": CHECKER_V2,
    "src/Local/LocalFilesystemAdapter.php": ADAPTER,
}

ROUND_9 = RankingOptions(**ROUND_10_LOCALISATION_OFF)


def test_which_files_are_ci_files():
    assert is_ci_file(".github/workflows/build.yml") and is_ci_file(".github/dependabot.yml")
    assert is_ci_file("src/InMemory/.github/workflows/close-subsplit-prs.yaml")  # a monorepo package's own
    assert is_ci_file(".appveyor.yml") and is_ci_file("azure-pipelines.yml") and is_ci_file(".readthedocs.yml")
    assert not is_ci_file(".github/ISSUE_TEMPLATE/bug_report.md")  # the templates kind's
    assert not is_ci_file("src/ci.py") and not is_ci_file("CMakeLists.txt") and not is_ci_file("docs/azure.md")
    assert asks_ci("Reduce CI build times") and asks_ci("fix the macOS workflow") and asks_ci("Use GitHub Actions")
    assert not asks_ci("Fix compilation warnings on ARM64 with old GCC versions")  # "versions" waives data, not ci
    assert is_bench_folder("benches/bytes_mut.rs") and not is_bench_folder("src/bench.rs")


def test_which_folders_are_version_copies():
    assert suffix_version_of("src/PhpseclibV2/SftpStub.php") == ("src/phpseclib", (2,), "PhpseclibV2")
    assert suffix_version_of("src/AwsS3V3/AwsS3V3Adapter.php") == ("src/awss3", (3,), "AwsS3V3")
    assert suffix_version_of("api_v1/views.py") == ("api", (1,), "api_v1")
    assert suffix_version_of("src/v3/types.ts") is None  # a bare vN/ is round 4's rule
    assert suffix_version_of("src/http2/frame.rs") is None  # a name ending in a digit, no v


def test_round_10_fields_are_on_by_default_and_off_in_the_round_9_default():
    default, configs = RankingOptions(), ablations()
    assert (default.ci_prior, default.stem_named_tests, default.bench_folders, default.suffix_versions) == (0.3, True, False, True)
    assert configs["with-bench-folders"].bench_folders
    assert configs["no-round-10-localisation"] == ROUND_9
    assert configs["round-9-default"] == RankingOptions(**ROUND_10_OFF, **ROUND_11_OFF)  # every round-10 (and round-11) field off
    assert configs["no-ci-files"].ci_prior == 1.0 and not configs["no-suffix-versions"].suffix_versions


@pytest.fixture(scope="module")
def crc(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("round10") / "crc", CRC, paqad_home)


@pytest.fixture(scope="module")
def ky(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("round10") / "ky", KY, paqad_home)


@pytest.fixture(scope="module")
def fly(tmp_path_factory, paqad_home) -> Path:
    return build_index(tmp_path_factory.mktemp("round10") / "fly", FLY, paqad_home)


def test_a_build_workflow_falls_below_the_code_a_commit_changes(crc):
    # the workflow shares "ARM64", "GCC", "versions", "compilation warnings" with the message
    query = "Fix compilation warnings on ARM64 with old GCC versions"
    assert _files(crc, query) == ["src/crc_arm64.c", "src/crc_arm64.h", "CMakeLists.txt", "src/crc_portable.c",
                                  ".github/workflows/build.yml"]
    assert _files(crc, query, ROUND_9) == ["src/crc_arm64.c", "src/crc_arm64.h", ".github/workflows/build.yml",
                                           "CMakeLists.txt", "src/crc_portable.c"]
    assert _files(crc, query, ablations()["no-ci-files"]) == _files(crc, query, ROUND_9)
    # a message about CI itself keeps the workflow where it was
    ci_query = "Reduce CI build times for the ARM64 GCC matrix"
    assert _files(crc, ci_query)[:2] == ["src/crc_arm64.c", ".github/workflows/build.yml"]
    assert _files(crc, ci_query) == _files(crc, ci_query, ROUND_9)


def test_a_test_file_named_like_a_backticked_word_keeps_its_prior(ky):
    # `retry` spells test/retry.ts's stem: round 9 took that for naming the file and waived the tests prior
    query = "Fix `extend()` dropping numeric `retry` limit when merging with an object"
    assert _files(ky, query) == ["source/utils/merge.ts", "source/types/retry-options.ts", "source/core/client.ts",
                                 "test/retry.ts"]
    assert _files(ky, query, ROUND_9)[:2] == ["test/retry.ts", "source/utils/merge.ts"]
    assert _files(ky, query, ablations()["no-stem-named-tests"])[0] == "test/retry.ts"
    # named by its path, or in a query about tests, the test file is asked for
    assert _files(ky, "Fix the flaky case in test/retry.ts")[0] == "test/retry.ts"


def test_an_older_adapter_version_falls_below_the_current_one(fly):
    query = "Early simple return of connectivity check. Set connection to null on disconnect."
    assert _files(fly, query) == ["src/PhpseclibV3/SimpleConnectivityChecker.php",
                                  "src/PhpseclibV3/SftpConnectionProvider.php",
                                  "src/PhpseclibV2/SimpleConnectivityChecker.php",
                                  "src/Local/LocalFilesystemAdapter.php",
                                  "src/PhpseclibV2/SftpConnectionProvider.php"]
    assert _files(fly, query, ROUND_9)[0] == "src/PhpseclibV2/SimpleConnectivityChecker.php"
    assert _files(fly, query, ablations()["no-suffix-versions"])[0] == "src/PhpseclibV2/SimpleConnectivityChecker.php"
    # naming the old version asks for it
    assert _files(fly, "PhpseclibV2: set connection to null on disconnect")[0].startswith("src/PhpseclibV2/")
