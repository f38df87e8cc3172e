r"""Docstring math typeset on the API page: ``x_i``, ``Σ_(s≤t)``, ``10^(−2i/d_model)`` as math, names as code.

The package's docstrings are read in a terminal too (``help(derive.sums)``), so they write their math as
plain text (``E[x_i] = μ``, ``e^(i·p·θ_i)``); on the site that ASCII would be shown raw. This extension
rewrites each docstring autodoc reads, after napoleon, into reST: the math runs that
:func:`derive.render.plainmath.mark_plain` finds become ``:math:`` roles (in TeX), code names such as
``n_layers`` inline code; code, roles, literal blocks, doctests, directives and field names stay, and a
simple table's columns are widened to fit. It also shows the parameter names of a field list
("Parameters: **false_rejection** – …") as code, as in the signature.

Used by the derive site (``docs/conf.py`` lists ``derive.sphinxext.docstring_math``); ``setup`` returns
``parallel_read_safe``. The reST rule it relies on is docutils': a ``\ `` escape separates inline markup
from a neighbouring character.
"""

from __future__ import annotations

import re
from typing import Any

from ..render.plainmath import mark_plain

#: protected pieces of a reST line: inline code, roles, default-role text, links, substitutions
_PROTECTED = re.compile(r"``.+?``|:[\w:+.-]+:`[^`]*`|`[^`]*`_{0,2}|https?://\S+|\|[^|\s][^|]*\||\*\*[^*]+\*\*")
#: a field list's head (":param name:", ":raises Error:") is never rewritten
_FIELD = re.compile(r"^\s*:[^:`]+:")


def _markup(kind: str, body: str) -> str:
    r"""Inline markup that stands apart from any neighbour: ``\ :math:`…`\ ``."""
    inner = f":math:`{body}`" if kind == "math" else f"``{body}``"
    return rf"\ {inner}\ "


def _plain(text: str) -> str:
    return mark_plain(text, _markup)


def rewrite_line(line: str) -> str:
    """One line of a docstring (reST) with its plain-text math and code names marked up."""
    head = _FIELD.match(line)
    start = head.end() if head else 0
    out, last = [line[:start]], start
    for m in _PROTECTED.finditer(line, start):
        out.append(_plain(line[last:m.start()]))
        out.append(m.group())
        last = m.end()
    out.append(_plain(line[last:]))
    return "".join(out)


_BORDER = re.compile(r"^(\s*)=+(?:\s+=+)+\s*$")


def _table(rows: list[str]) -> list[str]:
    """A simple reST table (``====  ====`` borders) with its cells rewritten and its columns widened to fit."""
    border = next(r for r in rows if _BORDER.match(r))
    indent = _BORDER.match(border).group(1)
    bounds = [(m.start(), m.end()) for m in re.finditer(r"=+", border)]
    cells: list[list[str] | None] = []
    for row in rows:
        if _BORDER.match(row) or not row.strip():
            cells.append(None)
            continue
        starts = [a for a, _ in bounds] + [None]
        cells.append([rewrite_line(row[a:b].strip() if b else row[a:].strip())
                      for a, b in zip(starts[:-1], starts[1:], strict=True)])
    widths = [max([len(c[k]) for c in cells if c] + [b - a]) for k, (a, b) in enumerate(bounds)]
    out = []
    for row, c in zip(rows, cells, strict=True):
        if c is None:
            out.append(indent + "  ".join("=" * w for w in widths) if _BORDER.match(row) else row)
        else:
            out.append((indent + "  ".join(x.ljust(w) for x, w in zip(c, widths, strict=True))).rstrip())
    return out


def rewrite(lines: list[str]) -> None:
    """Rewrite a docstring's lines in place; literal blocks, doctests and directives' heads stay."""
    state: list = [None, False]  # indent of an open literal block (or None), inside a doctest
    k = 0
    while k < len(lines):
        if state == [None, False] and _BORDER.match(lines[k]):  # a simple table: borders, head and rows
            end, borders = k, 0
            while end < len(lines) and (lines[end].strip() or borders < 2):
                borders += bool(_BORDER.match(lines[end]))
                end += 1
            lines[k:end] = _table(lines[k:end])
            k = end
            continue
        _rewrite_one(lines, k, state)
        k += 1


def _rewrite_one(lines: list[str], k: int, state: list) -> None:
    """Line ``k`` of :func:`rewrite`; ``state`` is [indent of an open literal block or None, inside a doctest]."""
    line = lines[k]
    literal_indent, doctest = state
    indent = len(line) - len(line.lstrip())
    stripped = line.strip()
    if literal_indent is not None:
        if stripped and indent <= literal_indent:
            state[0] = literal_indent = None
        else:
            return
    if doctest:
        if not stripped:
            state[1] = False
        return
    if stripped.startswith(">>>"):
        state[1] = True
        return
    if stripped.startswith(".."):
        if re.match(r"\.\.\s+(code-block|code|math|literalinclude|highlight|sourcecode|doctest)\b", stripped):
            state[0] = indent
        return
    if stripped.endswith("::"):
        lines[k] = rewrite_line(line[:-2]) + "::" if stripped != "::" else line
        state[0] = indent
        return
    lines[k] = rewrite_line(line)


def _process_docstring(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    rewrite(lines)


def _field_names_as_code(app: Any, doctree: Any, docname: str) -> None:
    """A parameter's name in a field list ("**false_rejection** – …") shown as code, as in the signature."""
    from docutils import nodes
    from sphinx import addnodes

    for node in list(doctree.findall(addnodes.literal_strong)):
        if "_" in node.astext():
            node.replace_self(nodes.strong("", "", nodes.literal(node.astext(), node.astext())))


def setup(app: Any) -> dict[str, Any]:
    from .. import __version__

    app.setup_extension("sphinx.ext.autodoc")
    app.connect("autodoc-process-docstring", _process_docstring, priority=700)
    app.connect("doctree-resolved", _field_names_as_code)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
