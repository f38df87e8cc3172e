"""Presentation MathML of derivations, for Word/PowerPoint paste and screen readers.

The LaTeX of :mod:`derive.render.latex` is converted by ziamath's converter
(built on latex2mathml), which turns the ``aligned`` chain into an
``<mtable>`` aligned at the relation sign. Optional dependency:
``pip install -e ".[slides]"`` from the root of the derive checkout.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core import Derivation
from ..exceptions import SLIDES_INSTALL, InputError, MissingDependencyError
from .latex import SelectionSettings, checked_settings, claim_latex, derivation_latex, step_latex


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
    """The LaTeX that is converted: an ``aligned`` chain, the claim or one step (from :mod:`.latex`)."""
    if s.what == "claim":
        return claim_latex(d, s.symbol_names)
    opts = {"environment": "aligned", "math_in_text": False, "numbering": s.justifications,
            "justifications": s.justifications, "symbol_names": s.symbol_names}
    return step_latex(d, s.step, **opts) if s.what == "step" else derivation_latex(d, **opts)


def latex_to_mathml(latex: str, display: str = "block") -> str:
    """One LaTeX formula as a ``<math>`` element (text).

    Raises:
        MissingDependencyError: ziamath is not installed.
    """
    try:
        from ziamath.tex import tex2mml
    except ImportError:
        raise MissingDependencyError(f"MathML output needs ziamath: {SLIDES_INSTALL}") from None
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
