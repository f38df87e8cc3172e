r"""Beamer: a frame per derivation whose steps appear one per overlay, and decks.

The first frame shows the title, the claim, the assumptions and the start of
the chain on its first overlay; step ``k`` appears on the next overlay, with
its justification under it; hidden steps keep their place, so nothing jumps.
Wide formulas are broken into lines (:mod:`derive.render.layout`) and a long
chain continues on "(continued)" frames (``steps_per_frame``, ``max_lines``)
instead of being shrunk; only what still does not fit is scaled down, and
each such scaling is written to the LaTeX log as ``derive-fit: ...``.
The formulas come from :mod:`derive.render.latex`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core import Derivation, Step
from ..exceptions import InputError
from .latex import REL_TEX, checked_settings, definitions_latex, escape_text, fit_to_width

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
        max_lines: about this many lines of formula (steps and justifications) on one frame; wide
            formulas are broken into lines (:mod:`derive.render.layout`), never shrunk below the text size.
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
    steps_per_frame: int = 4
    max_lines: int = 11
    symbol_names: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("standalone", "justifications", "overlays"):
            if not isinstance(getattr(self, name), bool):
                raise InputError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.aspectratio not in _ASPECT:
            raise InputError(f"aspectratio {self.aspectratio!r} is not one of {', '.join(_ASPECT)}")
        for name in ("steps_per_frame", "max_lines"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{name} must be a positive integer, got {value!r}")
        if not self.theme.isalnum():
            raise InputError(f"theme {self.theme!r} must be a Beamer theme name (letters only)")


#: widest formula line on a frame, in em (:func:`derive.render.layout.tex_width`); a 16:9 frame's text
#: width is about 36 em of 11 pt math, less the indent of the continuation lines
FRAME_BUDGET = 30.0


def _reveal(k: int, body: str, s: BeamerSettings) -> str:
    return rf"\onslide<{k}->{{{body}}}" if s.overlays else body


def _breaker(s: BeamerSettings) -> Any:
    from ..transformer.notation import latex_names
    from .layout import Breaker

    names = latex_names()
    names.update(s.symbol_names)
    return Breaker(FRAME_BUDGET, names)


def _rows(lines: list[str], relation: str, k: int | None, s: BeamerSettings) -> list[str]:
    r"""Rows of the ``aligned`` chain for one formula: ``&= line 1``, ``&\quad line 2`` ... (revealed on ``k``)."""
    out = []
    for j, line in enumerate(lines):
        body = (f"{relation} {line}" if j == 0 else rf"\quad {line}") if relation else line
        out.append("&" + (_reveal(k, body, s) if k is not None else body))
    return out


def _why(k: int, step: Step, overlay: int, s: BeamerSettings) -> str:
    words = (r"\parbox[t]{0.8\linewidth}{\raggedright\small\color{black!70}"
             rf"\textbf{{({k})}} {escape_text(step.justification)}}}")
    return "&" + _reveal(overlay, r"\qquad " + words, s)


def height(lines: list[str]) -> float:
    """Rough height of formula lines, in lines of text: a fraction, a sum or a matrix counts double (or more)."""
    total = 0.0
    for line in lines:
        tall = any(t in line for t in (r"\frac", r"\sum", r"\prod", r"\sqrt", r"\begin{matrix}", r"\substack"))
        rows = line.count(r"\\") + 1 if r"\begin{matrix}" in line else 1
        total += max(2.0 if tall else 1.2, 1.6 * rows)
    return total


def _words_height(text: str) -> float:
    return 1.0 + len(text) // 95


def chunks(derivation: Derivation, s: BeamerSettings) -> list[list[tuple[int, Step, list[str]]]]:
    """The steps cut into frames: at most ``steps_per_frame`` steps and about ``max_lines`` lines each
    (:func:`height`); the first frame also holds the claim and the assumptions."""
    breaker = _breaker(s)
    out: list[list[tuple[int, Step, list[str]]]] = [[]]
    claim = _claim_rows(derivation, s)
    start, _, exprs, _ = named(derivation, s)
    used = height(breaker.lines(start)) + 1.0
    if len(claim) <= CLAIM_ALONE:  # else the claim has a frame of its own
        used += height(claim) + sum(_words_height(a.text) for a in derivation.assumptions) + 1.0
    for k, (step, expr) in enumerate(zip(derivation.steps, exprs, strict=True), 1):
        pieces = _pieces(breaker.lines(expr), s.max_lines - 3.0)
        for j, lines in enumerate(pieces):
            last = j == len(pieces) - 1
            cost = height(lines) + (_words_height(step.justification) if s.justifications and last else 0)
            if out[-1] and (len(out[-1]) >= s.steps_per_frame or used + cost > s.max_lines):
                out.append([])
                used = height(out[-2][-1][2][-1:])
            # a step too tall for a frame continues on the next: only its first piece has the relation
            out[-1].append((k, step if j == 0 else _Continued(step, last), lines))
            used += cost
    return out


class _Continued:
    """A later piece of a step too tall for one frame: no relation sign; the justification on the last piece."""

    def __init__(self, step: Step, last: bool) -> None:
        self.relation, self.justification, self.last = "", step.justification if last else "", last


def _pieces(lines: list[str], most: float) -> list[list[str]]:
    """``lines`` cut into groups of at most ``most`` in :func:`height`."""
    out: list[list[str]] = [[]]
    for line in lines:
        if out[-1] and height([*out[-1], line]) > most:
            out.append([])
        out[-1].append(line)
    return out


def _chain(start_lines: list[str], steps: Sequence[tuple[int, Step, list[str]]], s: BeamerSettings,
           first: int = 2) -> str:
    """The ``aligned`` chain: the start, then each step on its own overlay (from ``first``) with its justification."""
    rows = _rows(start_lines, "", None, s)
    for j, (k, step, lines) in enumerate(steps):
        overlay = first + j
        if isinstance(step, _Continued):
            rows += [r"&" + _reveal(overlay, rf"\quad {line}", s) for line in lines]
        else:
            rows += _rows(lines, REL_TEX[step.relation], overlay, s)
        if s.justifications and step.justification:
            rows.append(_why(k, step, overlay, s))
    return "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}"


def named(derivation: Derivation, s: BeamerSettings) -> tuple[Any, Any, list[Any], list[tuple[Any, Any]]]:
    """``(start, end, step expressions, where)``: when a formula is wider than a frame, large repeated
    subexpressions are named once (:func:`~derive.render.layout.name_repeats`) and listed on a last frame."""
    from .layout import name_repeats, tex_width

    breaker = _breaker(s)
    exprs = [derivation.start, *(st.expr for st in derivation.steps)]  # the end is the last step's
    where: list[tuple[Any, Any]] = []
    if max(tex_width(breaker.tex(e)) for e in exprs) > FRAME_BUDGET:
        exprs, where = name_repeats(exprs, symbol_names=breaker.printer._settings["symbol_names"])
    return exprs[0], exprs[-1], exprs[1:], where


def _claim_rows(derivation: Derivation, s: BeamerSettings) -> list[str]:
    """The claim's lines: ``start R end`` on one, or the start's and the end's broken lines."""
    breaker = _breaker(s)
    first, last, _, _ = named(derivation, s)
    start, end = breaker.lines(first), breaker.lines(last)
    if len(start) == 1 and len(end) == 1:
        return [f"{start[0]} {REL_TEX[derivation.relation]} {end[0]}"]
    return _rows(start, "", None, s) + _rows(end, REL_TEX[derivation.relation], None, s)


def _claim(derivation: Derivation, s: BeamerSettings) -> str:
    """The claim, broken into lines like the chain, for the first overlay."""
    rows = _claim_rows(derivation, s)
    return rows[0] if len(rows) == 1 else "\\begin{aligned}" + " \\\\ ".join(rows) + "\\end{aligned}"


#: a claim of more lines than this has a frame of its own
CLAIM_ALONE = 3


def frame(derivation: Derivation, s: BeamerSettings) -> str:
    """The frame(s) of one derivation (see :func:`beamer_frame`)."""
    parts = chunks(derivation, s)
    breaker = _breaker(s)
    frames = []
    for c, chunk in enumerate(parts):
        title = escape_text(derivation.title) + (r" \emph{(continued)}" if c else "")
        out = [r"\begin{frame}", rf"\typeout{{derive-frame: {derivation.name} {c + 1}}}", rf"\frametitle{{{title}}}",
               rf"\framesubtitle{{\texttt{{{escape_text(derivation.name)}}}}}"]
        if c == 0:
            claim = _claim(derivation, s)
            out.append(r"{\small\textbf{Claim.}}")  # the first overlay: the claim and the assumptions
            if len(_claim_rows(derivation, s)) > CLAIM_ALONE:  # a long claim gets a frame of its own
                out += [fit_to_width(claim, max_height=r"0.7\textheight"), r"\end{frame}", r"\begin{frame}",
                        rf"\frametitle{{{title} \emph{{(derivation)}}}}"]
            else:
                out.append(fit_to_width(claim, max_height=r"0.3\textheight"))
            if derivation.assumptions:
                out.append(r"{\small\textbf{Assumptions.}")
                out += [escape_text(a.text) + ("" if k == len(derivation.assumptions) else r"\\")
                        for k, a in enumerate(derivation.assumptions, 1)]
                out.append(r"\par}")
        start = breaker.lines(named(derivation, s)[0]) if c == 0 else parts[c - 1][-1][2]
        out.append(fit_to_width(_chain(start, chunk, s), max_height=r"0.75\textheight"))
        if c == len(parts) - 1:
            defs = definitions_latex(derivation, s.symbol_names)
            if defs:
                where = r"\text{where }" + r", \quad ".join(defs)
                out.append(r"{\small" + fit_to_width(where, max_height=r"0.12\textheight", center=False)
                           + r"\par}")
            if derivation.citations:
                out.append(r"\par{\scriptsize Source: "
                           + escape_text("; ".join(str(cite) for cite in derivation.citations)) + "}")
        out.append(r"\end{frame}")
        frames.append("\n".join(out))
    return "\n".join(frames + _where_frames(derivation, s))


def _where_frames(derivation: Derivation, s: BeamerSettings) -> list[str]:
    r"""The named subexpressions, ``\xi_1 = ...``, on frames of their own (none when nothing was named)."""
    where = named(derivation, s)[3]
    breaker = _breaker(s)
    pages: list[list[str]] = [[]]
    used = 0.0
    for name, value in where:
        lines = breaker.lines(value)
        rows = _rows(lines, "=", None, s)
        rows[0] = breaker.tex(name) + " " + rows[0]
        if pages[-1] and used + height(lines) > s.max_lines:
            pages.append([])
            used = 0.0
        pages[-1] += rows
        used += height(lines)
    if not where:
        return []
    out = []
    for k, rows in enumerate(pages):
        title = escape_text(derivation.title) + r" \emph{(where)}" + (r" \emph{(continued)}" if k else "")
        block = "\\begin{aligned}" + " \\\\\n".join(rows) + "\\end{aligned}"
        out.append("\n".join([r"\begin{frame}", rf"\typeout{{derive-frame: {derivation.name} where {k + 1}}}",
                              rf"\frametitle{{{title}}}", fit_to_width(block, max_height=r"0.8\textheight"),
                              r"\end{frame}"]))
    return out


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
