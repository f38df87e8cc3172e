"""Presentation MathML of derivations, for Word/PowerPoint paste and screen readers.

The LaTeX of :mod:`derive.render.latex` is converted by ziamath's converter
(built on latex2mathml), which turns the ``aligned`` chain into an
``<mtable>`` aligned at the relation sign. Optional dependency:
``pip install "derive[slides]"``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core import Derivation
from ..exceptions import InputError
from .latex import REL_TEX, SelectionSettings, checked_settings, expr_latex, start_alone, step_pair, text_and_math


@dataclass(frozen=True)
class MathmlSettings(SelectionSettings):
    """Options of the MathML renderer (checked when built): those of
    :class:`~derive.render.latex.SelectionSettings` (``what``, ``step``,
    ``justifications`` as a column of ``<mtext>``, ``symbol_names``) and:

    Attributes:
        display: ``"block"`` or ``"inline"`` (the ``display`` attribute of ``<math>``).

    Raises:
        InputError: a value outside these choices.
    """

    display: str = "block"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.display not in ("block", "inline"):
            raise InputError(f"display {self.display!r} is not 'block' or 'inline'")


def mathml_latex(d: Derivation, s: MathmlSettings) -> str:
    """The LaTeX that is converted: an ``aligned`` chain, the claim or one step."""
    names = s.symbol_names
    if s.what == "claim":
        return f"{expr_latex(d.start, names)} {REL_TEX[d.relation]} {expr_latex(d.end, names)}"
    if s.what == "step":
        prev, st = step_pair(d, s.step)
        pairs = [(prev, st, s.step)]
        lines = []
    else:
        start = expr_latex(d.start, names)
        alone = start_alone(start, expr_latex(d.steps[0].expr, names))
        pairs = [(d.start if k == 1 and not alone else None, st, k) for k, st in enumerate(d.steps, 1)]
        lines = [f"&{start}"] if alone else []
    for lhs, st, k in pairs:
        line = (expr_latex(lhs, names) + " " if lhs is not None else "")
        line += f"&{REL_TEX[st.relation]} {expr_latex(st.expr, names)}"
        if s.justifications:
            line += " && " + text_and_math(f"({k}) {st.justification}")
        lines.append(line)
    return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"


def latex_to_mathml(latex: str, display: str = "block") -> str:
    """One LaTeX formula as a ``<math>`` element (text).

    Raises:
        MissingDependencyError: ziamath is not installed.
    """
    from .svg import MissingDependencyError

    try:
        from ziamath.tex import tex2mml
    except ImportError:
        raise MissingDependencyError("MathML output needs ziamath: pip install 'derive[slides]'") from None
    return tex2mml(latex, inline=display == "inline")


def derivation_mathml(derivation: Derivation, **settings: Any) -> str:
    """The derivation's chain (or claim, or one step) as presentation MathML.

    Args:
        derivation: what to render.
        **settings: fields of :class:`MathmlSettings`.

    Returns:
        One ``<math xmlns="http://www.w3.org/1998/Math/MathML">`` element as text;
        the chain is an ``<mtable>`` with the relation column left-aligned.

    Raises:
        InputError: an unknown setting or a bad value.
        MissingDependencyError: ziamath is not installed.
    """
    s = checked_settings(MathmlSettings, settings)
    return latex_to_mathml(mathml_latex(derivation, s), s.display)


def mathml_document(derivations: Sequence[Derivation], **settings: Any) -> str:
    """An HTML5 page with each derivation's title and MathML chain (browsers render MathML natively)."""
    if not derivations:
        raise InputError("a document needs at least one derivation")
    body = []
    for d in derivations:
        body += [f"<section id=\"{html.escape(d.name)}\">", f"<h2>{html.escape(d.title)}</h2>",
                 f"<p><code>{html.escape(d.name)}</code></p>", derivation_mathml(d, **settings), "</section>"]
    return "\n".join(["<!DOCTYPE html>", '<html lang="en">', '<head><meta charset="utf-8">',
                      "<title>derive: derivations</title></head>", "<body>", *body, "</body>", "</html>", ""])
