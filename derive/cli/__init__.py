"""The ``derive`` command: ``main(argv=None) -> int``.

Each subcommand lives in its own module with ``add_parser(subparsers)`` and
``run(args) -> int``; the modules import sympy only inside ``run`` so that
``derive --help`` stays fast. Exit status: 0 success, 1 a check failed, 2 a
usage or input error (one line on stderr, no traceback unless ``--debug``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from .. import __version__

#: Subcommand modules, in the order ``--help`` lists them.
COMMANDS: tuple[str, ...] = ("list", "show", "check", "graph", "params", "export", "site")


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``derive`` command (used by the docs' CLI reference)."""
    parser = _Parser(
        prog="derive",
        description="Derive Transformer maths with sympy, check every step, cross-check with numpy.",
    )
    parser.add_argument("--version", action="version", version=f"derive {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        module = importlib.import_module(f"derive.cli.cmd_{name}")
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``derive`` command line; return the exit status."""
    from ..recursion import make_room

    make_room()  # deep expressions in users' modules (nested fractions) load and get a verdict
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    from ..exceptions import DeriveError
    from ..i18n import using

    try:
        with using(getattr(args, "lang", None)):  # an unknown language: one line, exit 2
            code = int(args.run(args))
        sys.stdout.flush()  # a full disk or closed pipe shows here, not in an ignored exception at exit
        return code
    except DeriveError as exc:
        if args.debug:
            raise
        print(f"derive: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("derive: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _discard_stdout()
        return 0
    except OSError as exc:  # writing the output failed (disk full, read-only place...)
        if args.debug:
            raise
        _discard_stdout()
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"derive: error: cannot write output: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2


def _discard_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
