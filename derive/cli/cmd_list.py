"""``derive list``: name, title and summary of every registered derivation."""

from __future__ import annotations

import argparse

from .common import add_lang_option, add_module_option, load, print_json


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="list the derivations (name and title)",
                       description="List every registered derivation, one line each.")
    p.add_argument("--json", action="store_true", help="print a JSON array of {name, title, summary}")
    add_module_option(p)
    add_lang_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .. import registry
    from ..i18n import translate
    from ..render.textmath import unicode_text

    load(args)
    rows = registry.entries()
    if args.json:
        print_json([{"name": e.name, "title": translate(e.title), "summary": translate(e.summary)} for e in rows])
        return 0
    width = max((len(e.name) for e in rows), default=0)
    for e in rows:
        print(f"{e.name.ljust(width)}  {unicode_text(translate(e.title))}")  # $…$ math as Unicode
    return 0
