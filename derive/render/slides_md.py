r"""Markdown slides: reveal.js and Marp decks, one step per fragment.

Both flavours put a derivation on one slide: the title, the assumptions, the
start of the chain as display math, then each step (``= expr`` and its
justification) as a fragment that appears on the next click.

* ``revealjs``: for reveal.js's Markdown plugin with its Math plugin
  (KaTeX or MathJax). Formulas sit in one-line raw-HTML ``<div>`` blocks,
  which the Markdown parser passes through untouched (no backslash or
  underscore processing; the math plugins skip ``<code>``, so backticks
  would hide the math); a step's ``<div>`` carries ``class="fragment"``;
  slides are separated by ``---``.
* ``marp``: a Marp deck (front matter ``marp: true``, ``math: katex`` and a
  smaller text size);
  the steps are items of a ``*`` list, which Marp reveals one by one, each
  holding a ``$$`` block.

The formulas come from :mod:`derive.render.latex`.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core import Derivation
from ..exceptions import InputError
from .latex import REL_TEX, checked_settings, definitions_latex, expr_latex

FLAVOURS = ("revealjs", "marp")
_WHY_STYLE = "font-size:0.8em;color:#555"


@dataclass(frozen=True)
class SlidesSettings:
    """Options of the Markdown-slides renderer (checked when built).

    Attributes:
        flavour: ``"revealjs"`` or ``"marp"``.
        justifications: show each step's justification with it.
        fragments: reveal the steps one per fragment; ``False`` shows all at once.
        title: the deck's title slide (empty: no title slide).
        symbol_names: extra ``Symbol -> LaTeX`` spellings.

    Raises:
        InputError: a value outside these choices.
    """

    flavour: str = "revealjs"
    justifications: bool = True
    fragments: bool = True
    title: str = ""
    symbol_names: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.flavour not in FLAVOURS:
            raise InputError(f"flavour {self.flavour!r} is not one of {', '.join(FLAVOURS)}")
        for name in ("justifications", "fragments"):
            if not isinstance(getattr(self, name), bool):
                raise InputError(f"{name} must be True or False, got {getattr(self, name)!r}")


def _html(math_or_text: str, css: str = "", k: int = 0, style: str = "") -> str:
    """A one-line raw-HTML block (reveal.js): Markdown leaves it alone, the math plugin reads its text."""
    attrs = f' class="{css}"' if css else ""
    attrs += f' style="{style}"' if style else ""
    if k:
        attrs += f' data-fragment-index="{k}"'
    return f"<div{attrs}>{html.escape(math_or_text, quote=False)}</div>"


#: reveal.js: a derivation fills its slide at half the theme's text size
_REVEAL_SLIDE = '<!-- .slide: style="font-size:0.5em" -->'
#: Marp: a smaller text size and no bullets before the steps, so that a chain fits on its slide
_MARP_FRONT = ("---\nmarp: true\nmath: katex\npaginate: true\nstyle: |\n"
               "  section { font-size: 18px; }\n  section ul { list-style: none; padding-left: 0; }\n---\n\n")


def _head(d: Derivation, level: str = "##") -> list[str]:
    out = [f"{level} {d.title}", "", f"`{d.name}`", ""]
    if d.assumptions:
        out += ["*Assumptions:* " + "; ".join(a.text for a in d.assumptions), ""]
    return out


def _tail(d: Derivation, s: SlidesSettings) -> list[str]:
    out = []
    defs = definitions_latex(d, s.symbol_names)
    if defs:
        where = "where " + ", ".join(f"${x}$" for x in defs)
        out += [_html(where) if s.flavour == "revealjs" else where, ""]
    if d.citations:
        out += ["Source: " + "; ".join(str(c) for c in d.citations), ""]
    return out


def _revealjs(d: Derivation, s: SlidesSettings) -> list[str]:
    out = [_REVEAL_SLIDE, "", *_head(d, "###"), _html(f"$$ {expr_latex(d.start, s.symbol_names)} $$"), ""]
    for k, step in enumerate(d.steps, 1):
        css, index = ("fragment", k) if s.fragments else ("", 0)
        out += [_html(f"$$ {REL_TEX[step.relation]} {expr_latex(step.expr, s.symbol_names)} $$", css, index), ""]
        if s.justifications:
            out += [_html(f"({k}) {step.justification}", f"{css} step-why".strip(), index, _WHY_STYLE), ""]
    return out + _tail(d, s)


def _marp(d: Derivation, s: SlidesSettings) -> list[str]:
    out = _head(d) + ["$$", expr_latex(d.start, s.symbol_names), "$$", ""]
    bullet = "*" if s.fragments else "-"
    for k, step in enumerate(d.steps, 1):
        out += [f"{bullet} $$", f"  {REL_TEX[step.relation]} {expr_latex(step.expr, s.symbol_names)}", "  $$"]
        if s.justifications:
            out += [f"  *({k}) {step.justification}*"]
        out.append("")
    return out + _tail(d, s)


def slide_markdown(derivation: Derivation, **settings: Any) -> str:
    """One derivation as one Markdown slide (no separators, no front matter).

    Args:
        derivation: what to render.
        **settings: fields of :class:`SlidesSettings`.

    Raises:
        InputError: an unknown setting or a bad value.
    """
    s = checked_settings(SlidesSettings, settings)
    lines = _revealjs(derivation, s) if s.flavour == "revealjs" else _marp(derivation, s)
    return "\n".join(lines).rstrip() + "\n"


def slides_markdown(derivations: Sequence[Derivation], extra_slides: Sequence[str] = (), **settings: Any) -> str:
    """A deck: (a Marp front matter,) an optional title slide, one slide per derivation, ``extra_slides``.

    Args:
        derivations: the derivations, in the order of the slides.
        extra_slides: more slides as Markdown (e.g. parameter tables), appended as they are.
        **settings: fields of :class:`SlidesSettings`.

    Returns:
        Markdown whose slides are separated by lines ``---``.

    Raises:
        InputError: nothing to show, an unknown setting or a bad value.
    """
    if not derivations and not extra_slides:
        raise InputError("a deck needs at least one derivation or slide")
    s = checked_settings(SlidesSettings, settings)
    slides = [f"# {s.title}\n"] if s.title else []
    slides += [slide_markdown(d, **settings) for d in derivations] + list(extra_slides)
    text = "\n---\n\n".join(slides)
    if s.flavour == "marp":
        text = _MARP_FRONT + text
    return text
