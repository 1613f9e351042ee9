"""Build-system files below the code for a question or a commit message that does not ask about
the build (issue 24, round 11; measured on the dev half, left off).

C and C++ projects keep their build in files whose words repeat the code's: ``CMakeLists.txt``
lists every source file and the feature macros (``SNAPPY_HAVE_BMI2``), ``configure.ac`` the
headers and functions probed (``HAVE_PREAD``), ``meson.build`` and ``BUILD.bazel`` the targets.
In the git-mined dev set they led C/C++ commits that changed only code (snappy's
``CMakeLists.txt`` first for 7 of 15). With ``RankingOptions.build_prior`` below 1.0, a chunk of a
build file (:func:`is_build_file`) falls under the ``build`` path-prior kind, x ``build_prior``
unless the query asks about configuration or the build (``QueryInfo.mentions_config``: "build",
"cmake", "makefile", "autotools", ...) or names the file.
"""

from __future__ import annotations

import re
from functools import lru_cache

# CMake, Make, autotools, Meson, Bazel, SCons, pkg-config templates: by file name, in any folder.
_BUILD_FILES = re.compile(
    r"(^|/)(CMakeLists\.txt|[^/]+\.cmake(\.in)?|CMakePresets\.json|GNUmakefile|[Mm]akefile(\.am|\.in)?|[^/]+\.mk|"
    r"configure(\.ac|\.in)?|meson\.build|meson_options\.txt|meson\.options|BUILD(\.bazel)?|WORKSPACE(\.bazel)?|"
    r"MODULE\.bazel|[^/]+\.bzl|SConstruct|SConscript|[^/]+\.pc\.in)$"
)


@lru_cache(maxsize=16384)
def is_build_file(path: str) -> bool:
    """True for a build-system file: ``CMakeLists.txt``, ``cmake/Config.cmake.in``, ``Makefile.am``,
    ``configure.ac``, ``meson.build``, ``BUILD.bazel``, ``libevent.pc.in``; not ``src/build.c``,
    ``build.sh`` (a script may be the code) or ``docs/conf.py``."""
    return bool(_BUILD_FILES.search(path))
