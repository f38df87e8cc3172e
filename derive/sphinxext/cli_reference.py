"""``derive-cli``: the command-line reference, generated from the argparse parser.

The directive takes an optional ``module:function`` argument naming a function
that returns an :class:`argparse.ArgumentParser` (default
``derive.cli:build_parser``) and renders, for the command and each
subcommand, a section with its description, its usage line and a table of
its arguments (flags, help, default). Nothing is typed twice: the page
changes when the parser does.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from docutils import nodes
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_id

from .content import table_with_head, with_code_names

#: width of the usage lines (argparse wraps at the terminal width otherwise)
USAGE_WIDTH = 78


def load_parser(spec: str) -> argparse.ArgumentParser:
    """Call ``module:function`` and return the parser it builds."""
    module, _, func = spec.partition(":")
    return getattr(importlib.import_module(module), func or "build_parser")()


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Subcommand name -> parser, in the order they were added."""
    out: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:  # argparse has no public accessor for its actions
        if isinstance(action, argparse._SubParsersAction):
            out.update(action.choices)
    return out


def usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, prefix="")
    return formatter.format_help().strip()


def _argument_rows(parser: argparse.ArgumentParser) -> list[tuple[str, str, str]]:
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) or action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            metavar = ""
            if action.nargs != 0:
                metavar = " " + (action.metavar or action.dest.upper())
            flags = ", ".join(f"{o}{metavar}" for o in action.option_strings)
        else:
            flags = action.metavar or action.dest
        default = action.default
        shown = "" if default in (None, False, [], argparse.SUPPRESS) or action.nargs == 0 else repr(default)
        rows.append((flags, action.help or "", shown))
    return rows


def _table(rows: list[tuple[str, str, str]]) -> nodes.table:
    table, body = table_with_head(["derive-cli-args"], ("argument", "meaning", "default"), (30, 55, 15))
    for flags, help_text, default in rows:
        row = nodes.row()
        row += nodes.entry("", nodes.paragraph("", "", nodes.literal(flags, flags)))
        row += nodes.entry("", nodes.paragraph("", "", *with_code_names(help_text)))  # config names as code
        row += nodes.entry("", nodes.paragraph("", "", nodes.literal(default, default)) if default else
                           nodes.paragraph())
        body += row
    return table


class CliReferenceDirective(SphinxDirective):
    """``derive-cli [module:function]``: sections for a command and its subcommands."""

    optional_arguments = 1

    def section(self, title: str, parser: argparse.ArgumentParser, intro: str) -> nodes.section:
        sec = nodes.section(ids=[make_id(self.env, self.state.document, "cli", title)])
        sec += nodes.title(title, title)
        text = intro or parser.description or ""
        if text:
            sec += nodes.paragraph(text, text)
        line = usage(parser)
        sec += nodes.literal_block(line, line, language="text")
        rows = _argument_rows(parser)
        if rows:
            sec += _table(rows)
        return sec

    def run(self) -> list[nodes.Node]:
        from . import note_module_dependencies

        spec = self.arguments[0] if self.arguments else "derive.cli:build_parser"
        note_module_dependencies(self, spec.partition(":")[0])
        parser = load_parser(spec)
        out: list[nodes.Node] = []
        subs = subcommands(parser)
        top = self.section(parser.prog, parser, "")
        if subs:
            listing = nodes.bullet_list()
            for name, sub in subs.items():
                item = nodes.list_item()
                item += nodes.paragraph("", "", nodes.literal(name, name), nodes.Text(
                    " — " + (sub.description or "").split(". ")[0].rstrip(".")))
                listing += item
            top.insert(2, listing)
        out.append(top)
        for name, sub in subs.items():
            out.append(self.section(f"{parser.prog} {name}", sub, ""))
        return out


def setup(app: Any) -> None:
    app.add_directive("derive-cli", CliReferenceDirective)
