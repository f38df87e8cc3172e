"""``derive graph``: the dependency graph of derivations, generated from the steps that cite one."""

from __future__ import annotations

import argparse

from .common import add_module_option, load, print_json, write_atomic


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "graph", help="the graph of which derivations cite which",
        description="Print the citation graph of the derivations (all, or the NAMEs / patterns given, with "
                    "everything they cite): nodes with their verdict and scope, an edge per citing step. "
                    "Verdicts come from the verification cache, or are verified now (--no-verify: skipped).")
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="derivations to start from, or glob patterns such as 'params.*' (default: all)")
    add_module_option(p)
    p.add_argument("--format", choices=("json", "dot", "svg"), default="json",
                   help="json (default), dot (Graphviz's language) or svg (drawn with matplotlib)")
    p.add_argument("--no-verify", action="store_true", help="leave the verdicts out (no verification)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                   help="worker processes for derivations that must be verified (default: one per CPU)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .. import registry
    from ..citations import closure, graph
    from ..exceptions import InputError
    from ..render.graph import graph_dot, graph_svg, verdict_names
    from .cmd_check import _expand

    if args.jobs is not None and not (1 <= args.jobs <= 256):
        raise InputError(f"--jobs must be between 1 and 256, got {args.jobs}")
    user = load(args)
    wanted = _expand(args.names, registry.names()) or user or registry.names()
    for name in wanted:
        registry.entry(name)
    derivations = closure([registry.get(n) for n in wanted])  # a cycle: one line, exit 2
    g = graph(derivations)
    verdicts: dict[str, str] = {}
    if not args.no_verify:
        from ..batch import verify_many

        verdicts = verdict_names(verify_many(derivations, jobs=args.jobs))
    if args.format == "json":
        for n in g["nodes"]:
            n["verdict"] = verdicts.get(n["name"], "not verified")
        if args.output:
            import json

            write_atomic(args.output, (json.dumps(g, indent=2, ensure_ascii=False) + "\n").encode(), force=args.force)
        else:
            print_json(g)
        return 0
    if args.format == "dot":
        text = graph_dot(g, verdicts)
    else:
        try:
            text = graph_svg(g, verdicts)
        except ImportError:
            raise InputError("--format svg draws with matplotlib: install the docs extra from the repository "
                             "root (pip install -e '.[docs]')") from None
    if args.output:
        write_atomic(args.output, text.encode(), force=args.force)
    else:
        print(text, end="")
    return 0
