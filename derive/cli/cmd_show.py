"""``derive show NAME``: the statement, assumptions and steps of a derivation."""

from __future__ import annotations

import argparse

from .common import add_lang_option, add_module_option, load

FORMATS = ("text", "latex", "markdown")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("show", help="show a derivation step by step",
                       description="Print a derivation: claim, assumptions, steps and their justifications.")
    p.add_argument("name", help="the derivation's name (see 'derive list')")
    p.add_argument("--format", "-f", choices=FORMATS, default="text", help="output format (default: text)")
    add_module_option(p)
    add_lang_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .. import registry
    from ..i18n import localize

    load(args)
    derivation = localize(registry.get(args.name))  # the words in --lang; the formulas as they are
    if args.format == "latex":
        from ..render.latex import derivation_latex

        print(derivation_latex(derivation))
    elif args.format == "markdown":
        from ..render.markdown import derivation_markdown

        print(derivation_markdown(derivation))
    else:
        from ..render.text import derivation_text

        print(derivation_text(derivation))
    return 0
