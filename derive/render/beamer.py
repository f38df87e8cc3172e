r"""Beamer: a frame per derivation whose steps appear one per overlay, and decks.

Each frame shows the title, the assumptions and the start of the chain on its
first overlay; step ``k`` appears on overlay ``k + 1`` (``\onslide<k+1->``),
with its justification under it, so a frame with ``n`` steps has ``n + 1``
pages in the PDF. Hidden steps keep their place, so nothing jumps.
The formulas come from :mod:`derive.render.latex`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core import Derivation, Step
from ..exceptions import InputError
from .latex import REL_TEX, checked_settings, definitions_latex, escape_text, expr_latex, fit_to_width, start_alone

_ASPECT = ("43", "169", "1610")


@dataclass(frozen=True)
class BeamerSettings:
    """Options of the Beamer renderer (checked when built).

    Attributes:
        standalone: a complete document (``\\documentclass{beamer}`` ...)
            instead of frames to paste into a presentation.
        justifications: show each step's justification under it.
        overlays: reveal the steps one per overlay; ``False`` shows all at once.
        title: the deck's title (for a standalone document; default: the
            derivation's title for one derivation, else a generic one).
        aspectratio: ``"169"``, ``"43"`` or ``"1610"``.
        theme: a Beamer theme name (``\\usetheme``), e.g. ``"default"``.
        steps_per_frame: at most this many steps on one frame; a longer chain
            continues on further frames ("(continued)"), each starting from
            the last expression of the one before.
        symbol_names: extra ``Symbol -> LaTeX`` spellings.

    Raises:
        InputError: a value outside these choices.
    """

    standalone: bool = False
    justifications: bool = True
    overlays: bool = True
    title: str = ""
    aspectratio: str = "169"
    theme: str = "default"
    steps_per_frame: int = 5
    symbol_names: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("standalone", "justifications", "overlays"):
            if not isinstance(getattr(self, name), bool):
                raise InputError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.aspectratio not in _ASPECT:
            raise InputError(f"aspectratio {self.aspectratio!r} is not one of {', '.join(_ASPECT)}")
        if isinstance(self.steps_per_frame, bool) or not isinstance(self.steps_per_frame, int) \
                or self.steps_per_frame < 1:
            raise InputError(f"steps_per_frame must be a positive integer, got {self.steps_per_frame!r}")
        if not self.theme.isalnum():
            raise InputError(f"theme {self.theme!r} must be a Beamer theme name (letters only)")


def _reveal(k: int, body: str, s: BeamerSettings) -> str:
    return rf"\onslide<{k}->{{{body}}}" if s.overlays else body


def _chain(start: Any, steps: Sequence[tuple[int, Step]], s: BeamerSettings) -> str:
    """The ``aligned`` chain from ``start`` through ``(k, step)`` pairs; the frame's j-th step is on overlay j+1."""
    names = s.symbol_names
    first = expr_latex(start, names)
    alone = start_alone(first, expr_latex(steps[0][1].expr, names))
    lines = [f"&{first}"] if alone else []
    for j, (k, step) in enumerate(steps, 1):
        lhs = first + " " if j == 1 and not alone else ""
        line = f"{lhs}&" + _reveal(j + 1, f"{REL_TEX[step.relation]} {expr_latex(step.expr, names)}", s)
        if s.justifications:
            words = (r"\parbox[t]{0.6\linewidth}{\raggedright\footnotesize\color{gray}"
                     f"({k}) {escape_text(step.justification)}}}")
            line += r" \\" + "\n&" + _reveal(j + 1, r"\qquad " + words, s)
        lines.append(line)
    return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"


def frame(derivation: Derivation, s: BeamerSettings) -> str:
    """The frame(s) of one derivation (see :func:`beamer_frame`)."""
    numbered = list(enumerate(derivation.steps, 1))
    chunks = [numbered[i:i + s.steps_per_frame] for i in range(0, len(numbered), s.steps_per_frame)]
    frames = []
    for c, chunk in enumerate(chunks):
        title = escape_text(derivation.title) + (r" \emph{(continued)}" if c else "")
        out = [r"\begin{frame}", rf"\frametitle{{{title}}}",
               rf"\framesubtitle{{\texttt{{{escape_text(derivation.name)}}}}}"]
        if derivation.assumptions and c == 0:
            out.append(r"{\footnotesize\textbf{Assumptions.}")
            out += [escape_text(a.text) + ("" if k == len(derivation.assumptions) else r"\\")
                    for k, a in enumerate(derivation.assumptions, 1)]
            out.append("}")
        start = derivation.start if c == 0 else chunks[c - 1][-1][1].expr
        out.append(fit_to_width(_chain(start, chunk, s), max_height=r"0.52\textheight"))
        defs = definitions_latex(derivation, s.symbol_names)
        if defs:
            where = r"\text{where }" + r", \quad ".join(defs)
            out.append(r"{\footnotesize" + fit_to_width(where, max_height=r"0.12\textheight", center=False)
                       + r"\par}")
        if derivation.citations:
            out.append(r"\par{\scriptsize Source: "
                       + escape_text("; ".join(str(cite) for cite in derivation.citations)) + "}")
        out.append(r"\end{frame}")
        frames.append("\n".join(out))
    return "\n".join(frames)


def _document(frames: list[str], title: str, s: BeamerSettings) -> str:
    head = [rf"\documentclass[aspectratio={s.aspectratio}]{{beamer}}", rf"\usetheme{{{s.theme}}}",
            r"\usepackage{amsmath,amssymb,booktabs}",
            r"\setbeamertemplate{navigation symbols}{}", rf"\title{{{escape_text(title)}}}",
            r"\date{}", r"\begin{document}"]
    return "\n".join([*head, *frames, r"\end{document}", ""])


def beamer_frame(derivation: Derivation, **settings: Any) -> str:
    r"""One derivation as a Beamer frame, or as a whole document with ``standalone=True``.

    Args:
        derivation: what to render.
        **settings: fields of :class:`BeamerSettings`.

    Returns:
        ``\begin{frame} ... \end{frame}`` whose steps appear one per overlay
        (``n`` steps give ``n + 1`` PDF pages); with ``standalone=True`` a
        document that compiles with ``pdflatex``.

    Raises:
        InputError: an unknown setting or a bad value.
    """
    s = checked_settings(BeamerSettings, settings)
    body = frame(derivation, s)
    return _document([body], s.title or derivation.title, s) if s.standalone else body + "\n"


def beamer_deck(derivations: Sequence[Derivation], extra_frames: Sequence[str] = (), **settings: Any) -> str:
    r"""A deck: a title page, one frame per derivation in the order given, then ``extra_frames``.

    Args:
        derivations: the derivations.
        extra_frames: more frames as LaTeX (e.g. parameter tables), appended as they are.
        **settings: fields of :class:`BeamerSettings`; a deck is always
            standalone (the ``standalone`` setting is ignored).

    Raises:
        InputError: nothing to show, an unknown setting or a bad value.
    """
    if not derivations and not extra_frames:
        raise InputError("a deck needs at least one derivation or frame")
    s = checked_settings(BeamerSettings, settings)
    title = s.title or "The Transformer, derived step by step"
    frames = [r"\begin{frame}", r"\titlepage", r"\end{frame}"]
    frames += [frame(d, s) for d in derivations] + list(extra_frames)
    return _document(frames, title, s)
