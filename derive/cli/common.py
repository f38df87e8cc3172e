"""Helpers shared by the subcommands: loading derivations, user modules, JSON output."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def add_module_option(parser: argparse.ArgumentParser) -> None:
    """``--module FILE_OR_MODULE`` (repeatable): load a user's derivations too."""
    parser.add_argument("--module", "-m", action="append", default=[], metavar="FILE_OR_MODULE",
                        help="also load derivations from this .py file or importable module (repeatable)")


def add_lang_option(parser: argparse.ArgumentParser) -> None:
    """``--lang LANG``: the language of the words shown (:mod:`derive.i18n`); default ``DERIVE_LANG`` or English."""
    parser.add_argument("--lang", metavar="LANG", default=None,
                        help="language of titles, justifications and labels: en or ko (default: the "
                             "environment variable DERIVE_LANG, else en); formulas are the same in every language")


def load(args: argparse.Namespace, *, catalog: bool = True) -> list[str]:
    """Load the catalog (unless only user modules are wanted) and ``--module`` files.

    Returns:
        The names defined by the user modules, in load order.
    """
    from .. import registry

    if catalog:  # first, so a user module that reuses a catalog name is the one reported
        registry.load_catalog()
    user: list[str] = []
    with stdout_to_stderr():  # what a user's module prints is not the command's output (``--json`` stays JSON)
        for spec in args.module:
            user += registry.load_module(spec)
    return user


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send whatever is written to stdout inside the block to stderr.

    Both Python's ``sys.stdout`` and file descriptor 1 are redirected, so prints of a
    user's module or check, of C code and of forked worker processes alike stay off the
    command's own output (a ``--json`` document on stdout stays parseable). Where stdout
    has no file descriptor (a test's captured stream), only ``sys.stdout`` is redirected.
    """
    sys.stdout.flush()
    saved = fd = None
    try:
        fd = sys.stdout.fileno()
        err = sys.stderr.fileno()
        saved = os.dup(fd)
        os.dup2(err, fd)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        if saved is not None and fd is not None:
            os.dup2(saved, fd)
            os.close(saved)


def print_json(data: Any) -> None:
    """Pretty JSON on stdout (ints stay exact)."""
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def write_atomic(path: str | os.PathLike, data: bytes, *, force: bool = False) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename.

    A reader never sees a half-written file, and an interrupted write leaves
    the old file (or none) in place.

    Raises:
        InputError: ``path`` exists and ``force`` is false, is a directory or
            another non-regular file (device, pipe), its
            directory does not exist, or the file cannot be written (the
            message names the path and the reason).
    """
    import tempfile

    from ..exceptions import InputError

    target = Path(path)
    if target.is_dir():
        raise InputError(f"{target}: is a directory; give a file name")
    if target.exists() and not target.is_file():
        # a rename over /dev/null (as root) would replace the device by a plain file
        raise InputError(f"{target}: not a regular file (a device, pipe or socket); give a file name")
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
