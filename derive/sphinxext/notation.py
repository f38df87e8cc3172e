"""The directive ``derive-notation``: the catalog's symbol table, one row per symbol.

The rows come from :data:`derive.transformer.notation.SYMBOLS`, the table every
catalog module takes its symbols from, so the page cannot drift from the
formulas. Symbols spelled alike (``m`` is a position in RoPE and a slope in
ALiBi) share one row that lists each meaning with the name the code uses.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


def rows() -> list[tuple[str, list[tuple[str, str]]]]:
    """``(latex, [(code name, meaning), ...])`` for every distinct LaTeX spelling, sorted by spelling."""
    from ..transformer.notation import SYMBOLS

    table: dict[str, list[tuple[str, str]]] = {}
    for name, (_, tex, meaning) in SYMBOLS.items():
        table.setdefault(tex, []).append((name, meaning))
    return sorted(table.items(), key=lambda row: (_sort_key(row[0]), row[0]))


def _sort_key(tex: str) -> str:
    """Sort ``\\alpha`` with a, ``d_{\\text{model}}`` with d: the first letter a reader sees."""
    import re

    word = re.sub(r"\\(?:mathrm|operatorname|text|overline)\{", "", tex).lstrip("\\{")
    return word[:1].lower() + word[1:]


class NotationDirective(SphinxDirective):
    """``derive-notation``: a three-column table (symbol, name in the code, meaning)."""

    def run(self) -> list[nodes.Node]:
        from . import note_module_dependencies
        from .content import inline

        note_module_dependencies(self, "derive.transformer.notation")
        table = nodes.table(classes=["derive-notation"])
        group = nodes.tgroup(cols=3)
        table += group
        for width in (15, 20, 65):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        body = nodes.tbody()
        group += body
        head += self._row([nodes.Text("Symbol")], [nodes.Text("In the code")], [nodes.Text("Meaning")])
        for tex, uses in rows():
            names: list[nodes.Node] = []
            meanings: list[nodes.Node] = []
            for k, (name, meaning) in enumerate(uses):
                if k:
                    names.append(nodes.Text(", "))
                    meanings.append(nodes.Text("; "))
                names.append(nodes.literal(name, name))
                meanings.extend(inline(meaning))
            body += self._row([nodes.math(tex, tex)], names, meanings)
        return [table]

    @staticmethod
    def _row(*cells: list[nodes.Node]) -> nodes.row:
        row = nodes.row()
        for content in cells:
            entry = nodes.entry()
            para = nodes.paragraph()
            para.extend(content)
            entry += para
            row += entry
        return row


def setup(app: Any) -> None:
    """Register ``derive-notation``."""
    app.add_directive("derive-notation", NotationDirective)
