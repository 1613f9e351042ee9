"""Continuous-integration and repository-automation files below the code, and Cargo's ``benches/``
as benchmarks (issue 24, round 10).

A commit message or an issue that says "Fix compilation warnings on ARM64 with old GCC versions",
"Deprecate __version__", "Changes for v0.2.5 release" or "Fix latest clippy warnings" shares its
words with the workflow that builds, lints and releases the project (``.github/workflows/build.yml``
lists the compilers and flags, ``dist.yaml`` the release steps, ``dependabot.yml`` the versions),
and those files led the git-mined dev set's misses (crc32c, libyaml, glog, marshmallow, bytes). The
``data`` prior does not hold them down: it is waived by the configuration words such messages
use ("versions", "build", "features"). With ``RankingOptions.ci_prior``
below 1.0, a chunk of a CI file (:func:`is_ci_file`) falls under the ``ci`` path-prior kind, x
``ci_prior`` unless the query asks about CI itself (:func:`asks_ci`: "CI", "workflow", "pipeline",
"GitHub Actions", a CI service's name) or names the file (the named files keep no prior).

CI files, by path (:data:`_CI_FOLDERS`, :data:`_CI_FILES`): anything under a ``.github/`` folder
but its issue and pull-request templates (the ``templates`` kind's), ``.ci/``, ``.circleci/``,
``.bazelci/``, ``.buildkite/``, ``.azure-pipelines/``, ``.gitlab/``; and the root-level
configuration files of CI and bot services (``.travis.yml``, ``appveyor.yml``, ``azure-pipelines.yml``,
``.gitlab-ci.yml``, ``.cirrus.yml``, ``Jenkinsfile``, ``codecov.yml``, ``.readthedocs.yaml``,
``.pre-commit-config.yaml``, ``renovate.json``, ``.scrutinizer.yml``, ``.mergify.yml``), in any
folder (a monorepo package keeps its own ``.github/``).

With ``RankingOptions.bench_folders`` on, a file under ``benches/`` (Cargo's benchmark folder: bytes'
``benches/bytes_mut.rs``, which led "Fix latest clippy warnings") is of the ``examples`` kind, as
``bench/`` and ``benchmarks/`` already are.
"""

from __future__ import annotations

import re
from functools import lru_cache

_CI_FOLDERS = re.compile(r"(^|/)(\.github|\.ci|\.circleci|\.bazelci|\.buildkite|\.azure-pipelines|\.gitlab)/")
_TEMPLATES = re.compile(r"(^|/)\.github/(ISSUE_TEMPLATE|PULL_REQUEST_TEMPLATE)|(^|/)\.github/[^/]*_template[^/]*$",
                        re.IGNORECASE)
_CI_FILES = re.compile(
    r"(^|/)(\.travis\.ya?ml|\.?appveyor\.ya?ml|azure-pipelines\.ya?ml|\.gitlab-ci\.ya?ml|\.cirrus\.ya?ml|Jenkinsfile|"
    r"\.?codecov\.ya?ml|\.readthedocs\.ya?ml|\.pre-commit-config\.ya?ml|\.pre-commit-hooks\.ya?ml|renovate\.json5?|"
    r"\.scrutinizer\.ya?ml|\.mergify\.ya?ml|\.drone\.ya?ml|\.cirrus\.star|bitbucket-pipelines\.ya?ml)$",
    re.IGNORECASE)
# a query about CI itself: its files keep their weight ("reduce CI build times", "fix the macOS workflow")
_CI_WORDS = re.compile(
    r"\b(ci|cd|continuous integration|workflows?|pipelines?|github actions?|gh actions?|travis|appveyor|azure|"
    r"circleci|circle ci|gitlab|jenkins|buildkite|cirrus|dependabot|renovate|codecov|pre-commit|readthedocs|"
    r"scrutinizer|mergify|runners?)\b", re.IGNORECASE)


@lru_cache(maxsize=16384)
def is_ci_file(path: str) -> bool:
    """True for a CI or repository-automation file (module docstring): ``.github/workflows/ci.yml``,
    ``.github/dependabot.yml``, ``src/InMemory/.github/workflows/x.yaml``, ``.appveyor.yml``,
    ``azure-pipelines.yml``; not ``.github/ISSUE_TEMPLATE/bug.md`` (a template), ``src/ci.py``."""
    if _CI_FOLDERS.search(path):
        return not _TEMPLATES.search(path)
    return bool(_CI_FILES.search(path))


_BENCHES = re.compile(r"(^|/)benches/")


def is_bench_folder(path: str) -> bool:
    """True for a file under a ``benches/`` folder (Cargo's benchmark folder; ``bench/`` and
    ``benchmarks/`` are already the ``examples`` kind's: :func:`paqad.search.priors.path_kinds`)."""
    return bool(_BENCHES.search(path))


def asks_ci(text: str) -> bool:
    """True when the query is about CI itself (names CI, a workflow or pipeline, a CI service)."""
    return bool(_CI_WORDS.search(text))
