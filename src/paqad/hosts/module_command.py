"""The argv that runs one of our modules in a new Python process, safe in any project folder.

``python -m M`` puts the current folder first on ``sys.path``; the hook starts the warm process
and the refresh with the project as their folder, so a project holding ``typing.py`` or
``logging.py`` (flask's package folder does) shadowed the standard library and both died at
import: no warm process, no refresh, every prompt answered by the hook's own cold process
(issue 19, hook and probe agreeing). ``-P`` (Python 3.11+, "don't prepend a potentially unsafe
path") leaves the folder out; on 3.10 a ``-c`` stub removes it before anything is imported.
"""

from __future__ import annotations

import sys

# Python 3.10: the stub drops sys.path[0] ("" for -c: the current folder) before runpy imports.
_STUB = "import sys; del sys.path[0]; import runpy; runpy.run_module({module!r}, run_name='__main__', alter_sys=True)"


def python_module_command(module: str, *args: str) -> list[str]:
    """``[python, -P, -m, module, *args]`` (3.11+) or the 3.10 equivalent: ``module`` run as
    ``__main__`` by this interpreter, never importing from the current folder."""
    if sys.version_info >= (3, 11):
        return [sys.executable, "-P", "-m", module, *args]
    return [sys.executable, "-c", _STUB.format(module=module), *args]
