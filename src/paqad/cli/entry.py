"""The ``paqad-ai`` console script: ``hook prompt`` straight to :mod:`paqad.cli.hook_prompt`
(no click, ~25 ms less on every prompt, more on a busy CPU), everything else to
:func:`paqad.cli.main.main`."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:2] == ["hook", "prompt"]:
        from paqad.cli import hook_prompt

        parsed = hook_prompt.parse(args[2:])
        if parsed is not None:
            return hook_prompt.run(*parsed)
        if not hook_prompt.wants_help(args[2:]):
            return hook_prompt.refuse(args[2:])
    from paqad.cli.main import main as cli_main

    return cli_main(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
