"""Helpers shared by the subcommands: loading derivations, user modules, JSON output."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def add_module_option(parser: argparse.ArgumentParser) -> None:
    """``--module FILE_OR_MODULE`` (repeatable): load a user's derivations too."""
    parser.add_argument("--module", "-m", action="append", default=[], metavar="FILE_OR_MODULE",
                        help="also load derivations from this .py file or importable module (repeatable)")


def load(args: argparse.Namespace, *, catalog: bool = True) -> list[str]:
    """Load the catalog (unless only user modules are wanted) and ``--module`` files.

    Returns:
        The names defined by the user modules, in load order.
    """
    from .. import registry

    if catalog:  # first, so a user module that reuses a catalog name is the one reported
        registry.load_catalog()
    user: list[str] = []
    for spec in args.module:
        user += registry.load_module(spec)
    return user


def print_json(data: Any) -> None:
    """Pretty JSON on stdout (ints stay exact)."""
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
