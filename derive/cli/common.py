"""Helpers shared by the subcommands: loading derivations, user modules, JSON output."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
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

    user: list[str] = []
    for spec in args.module:
        user += registry.load_module(spec)
    if catalog:
        registry.load_catalog()
    return user


def print_json(data: Any) -> None:
    """Pretty JSON on stdout (ints stay exact)."""
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def write_atomic(path: str | os.PathLike, data: bytes, *, force: bool = False) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename.

    A reader never sees a half-written file, and an interrupted write leaves
    the old file (or none) in place.

    Raises:
        InputError: ``path`` exists and ``force`` is false, is a directory, its
            directory does not exist, or the file cannot be written (the
            message names the path and the reason).
    """
    import tempfile

    from ..exceptions import InputError

    target = Path(path)
    if target.is_dir():
        raise InputError(f"{target}: is a directory; give a file name")
    if target.exists() and not force:
        raise InputError(f"{target}: already exists; use --force to overwrite it")
    parent = target.parent
    if not parent.is_dir():
        raise InputError(f"{target}: directory {parent} does not exist")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except OSError as exc:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise InputError(f"{target}: cannot write: {exc.strerror or exc}") from None
