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
from .latex import REL_TEX, checked_settings, definitions_latex
from .layout import remembered
from .textmath import mark_math

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
        steps_per_slide: at most this many steps on one slide; a longer chain continues on
            "(continued)" slides, each starting from the last expression of the one before.
        max_lines: a slide's formulas and text are at most about this many lines of text high (wide
            formulas are broken into lines, :mod:`derive.render.layout`; tall ones counted by their
            height); a longer chain continues on further slides.
        symbol_names: extra ``Symbol -> LaTeX`` spellings.

    Raises:
        InputError: a value outside these choices.
    """

    flavour: str = "revealjs"
    justifications: bool = True
    fragments: bool = True
    title: str = ""
    steps_per_slide: int = 4
    max_lines: int = 18
    symbol_names: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("steps_per_slide", "max_lines"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{name} must be a positive integer, got {value!r}")
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


#: reveal.js's white theme upper-cases headings ("D_K"); the titles keep their case
_KEEP_CASE = '<!-- .element: style="text-transform:none" -->'
#: widest formula line on a slide, in em (:func:`derive.render.layout.tex_width`)
SLIDE_BUDGET = 34.0


def _head(d: Derivation, level: str = "##", cont: bool = False, flavour: str = "marp") -> list[str]:
    title = mark_math(d.title) + (" (continued)" if cont else "")
    out = [f"{level} {title}" + (f" {_KEEP_CASE}" if flavour == "revealjs" else ""), "", f"`{d.name}`", ""]
    if d.assumptions and not cont:
        out += ["*Assumptions:* " + "; ".join(mark_math(a.text) for a in d.assumptions), ""]
    return out


def _math(lines: list[str], relation: str = "") -> str:
    """One display formula: a line, or an ``aligned`` block of broken lines."""
    from .layout import aligned_lines

    if len(lines) == 1:
        return f"{relation} {lines[0]}".strip()
    return r"\begin{aligned}" + r" \\ ".join(aligned_lines(lines, relation)) + r"\end{aligned}"


#: em of the slide's text: a line of text, and what a display block adds above and below (KaTeX's margins)
LINE, DISPLAY = 1.24, 1.0
#: a matrix entry wider than this (em), in a formula too wide for a slide, is named in the "where" list
ENTRY_WIDTH = 12.0


def _height(lines: list[str]) -> float:
    from .layout import tex_height

    return sum(max(tex_height(line) + 0.1, LINE) + 0.25 for line in lines) + DISPLAY


def _words(text: str) -> float:
    return LINE * (1 + len(text.replace("$", "")) // 90)


@remembered  # asked by the chunks, the first lines and the slides
def named(d: Derivation, s: SlidesSettings) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """``([start, step expressions...], where)``: in a chain with a formula wider than a slide, repeated
    subexpressions and wide matrix entries are named once (:func:`~derive.render.layout.name_repeats`)."""
    from .layout import name_repeats, shared_breaker, tex_width

    breaker = shared_breaker(SLIDE_BUDGET, _names(s))
    exprs = [d.start, *(st.expr for st in d.steps)]
    if max(tex_width(breaker.tex(e)) for e in exprs) <= SLIDE_BUDGET:
        return exprs, []
    return name_repeats(exprs, symbol_names=_names(s), entry_width=ENTRY_WIDTH, matrices=True,
                        budget=SLIDE_BUDGET - 2.0)


def chunks(d: Derivation, s: SlidesSettings) -> list[list[tuple[int, Any, list[str]]]]:
    """The steps cut into slides: ``(number, step, lines)`` per step, at most ``steps_per_slide`` steps and
    ``max_lines`` lines of text high (formulas by their estimated height,
    :func:`~derive.render.layout.tex_height`); each continued slide starts from the last expression."""
    from .layout import shared_breaker

    breaker = shared_breaker(SLIDE_BUDGET, _names(s))
    exprs, _ = named(d, s)
    room = s.max_lines * LINE
    out: list[list[tuple[int, Any, list[str]]]] = [[]]
    start = _height(breaker.lines(exprs[0]))
    used = start + _words("; ".join(a.text for a in d.assumptions))
    for k, (step, expr) in enumerate(zip(d.steps, exprs[1:], strict=True), 1):
        lines = breaker.lines(expr)
        cost = _height(lines) + (_words(step.justification) if s.justifications else 0.0)
        cost += _tail_height(d, s) if k == len(d.steps) else 0.0
        if len(out[-1]) >= s.steps_per_slide or used + cost > room and (out[-1] or len(out) == 1 and used > start):
            # a new slide from the last expression (the start, after a first slide with the assumptions
            # only); without it when the step alone fills the slide
            last = out[-1][-1][2] if out[-1] else breaker.lines(exprs[0])
            out.append(_Slide(repeat=_height(last) + cost <= room))
            used = _height(last) if out[-1].repeat else 0.0
        out[-1].append((k, step, lines))
        used += cost
    return out


def _tail_height(d: Derivation, s: SlidesSettings) -> float:
    """The last slide's "where" line (inline math: fractions make it taller) and source line."""
    from .layout import tex_height

    defs = definitions_latex(d, s.symbol_names)
    out = _words(" ".join(defs)) + 0.5 * max(tex_height(x) for x in defs) if defs else 0.0
    return out + (LINE if d.citations else 0.0)


class _Slide(list):
    """The steps of one slide; ``repeat``: it starts from the last expression of the slide before."""

    def __init__(self, repeat: bool = True) -> None:
        super().__init__()
        self.repeat = repeat


def _where(d: Derivation, s: SlidesSettings) -> list[list[str]]:
    r"""The named subexpressions (``\xi_1 = ...``), as many slides of formula lines as they need."""
    from .layout import shared_breaker

    _, where = named(d, s)
    breaker = shared_breaker(SLIDE_BUDGET, _names(s))
    pages: list[list[str]] = []
    used = s.max_lines * LINE
    for name, value in where:
        lines = breaker.lines(value)
        cost = _height(lines)
        if used + cost > s.max_lines * LINE:
            pages.append([])
            used = 0.0
        pages[-1].append(_math(lines, f"{breaker.tex(name)} ="))
        used += cost
    return pages


def _names(s: SlidesSettings) -> dict:
    from ..transformer.notation import latex_names

    names = latex_names()
    names.update(s.symbol_names)
    return names


def _tail(d: Derivation, s: SlidesSettings) -> list[str]:
    out = []
    defs = definitions_latex(d, s.symbol_names)
    if defs:
        where = "where " + ", ".join(f"${x}$" for x in defs)
        out += [_html(where) if s.flavour == "revealjs" else where, ""]
    if d.citations:
        out += ["Source: " + "; ".join(str(c) for c in d.citations), ""]
    return out


def _start_lines(d: Derivation, parts: list, c: int, s: SlidesSettings) -> list[str]:
    from .layout import shared_breaker

    if not getattr(parts[c], "repeat", True):
        return []
    if c == 0 or not parts[c - 1]:
        return shared_breaker(SLIDE_BUDGET, _names(s)).lines(named(d, s)[0][0])
    return parts[c - 1][-1][2]


def _where_slides(d: Derivation, s: SlidesSettings, level: str) -> list[list[str]]:
    out = []
    for k, formulas in enumerate(_where(d, s)):
        head = f"{level} {mark_math(d.title)} (where{', continued' if k else ''})"
        if s.flavour == "revealjs":
            out.append([_REVEAL_SLIDE, "", f"{head} {_KEEP_CASE}", "",
                        *(line for f in formulas for line in (_html(f"$$ {f} $$"), ""))])
        else:
            out.append([head, "", *(line for f in formulas for line in ("$$", f, "$$", ""))])
    return out


def _revealjs(d: Derivation, s: SlidesSettings) -> list[list[str]]:
    parts, slides = chunks(d, s), []
    for c, part in enumerate(parts):
        start = _start_lines(d, parts, c, s)
        out = [_REVEAL_SLIDE, "", *_head(d, "###", bool(c), "revealjs"),
               *([_html(f"$$ {_math(start)} $$"), ""] if start else [])]
        for j, (k, step, lines) in enumerate(part, 1):
            css, index = ("fragment", j) if s.fragments else ("", 0)
            out += [_html(f"$$ {_math(lines, REL_TEX[step.relation])} $$", css, index), ""]
            if s.justifications:
                out += [_html(f"({k}) {mark_math(step.justification)}", f"{css} step-why".strip(), index,
                              _WHY_STYLE), ""]
        slides.append(out + (_tail(d, s) if c == len(parts) - 1 else []))
    return slides + _where_slides(d, s, "###")


def _marp(d: Derivation, s: SlidesSettings) -> list[list[str]]:
    parts, slides = chunks(d, s), []
    bullet = "*" if s.fragments else "-"
    for c, part in enumerate(parts):
        start = _start_lines(d, parts, c, s)
        out = _head(d, "##", bool(c)) + (["$$", _math(start), "$$", ""] if start else [])
        for k, step, lines in part:
            out += [f"{bullet} $$", f"  {_math(lines, REL_TEX[step.relation])}", "  $$"]
            if s.justifications:
                out += [f"  ({k}) {mark_math(step.justification)}"]
            out.append("")
        slides.append(out + (_tail(d, s) if c == len(parts) - 1 else []))
    return slides + _where_slides(d, s, "##")


def slide_markdown(derivation: Derivation, **settings: Any) -> str:
    """One derivation as Markdown slides: one, or more for a long chain (separated by ``---``; no front matter).

    Args:
        derivation: what to render.
        **settings: fields of :class:`SlidesSettings`.

    Raises:
        InputError: an unknown setting or a bad value.
    """
    s = checked_settings(SlidesSettings, settings)
    slides = _revealjs(derivation, s) if s.flavour == "revealjs" else _marp(derivation, s)
    return "\n---\n\n".join("\n".join(lines).rstrip() + "\n" for lines in slides)


def _chapter_slides(chapters: Sequence[tuple[str, Sequence[Derivation]]], s: SlidesSettings,
                    settings: dict) -> list[str]:
    """An agenda slide, then per chapter a section slide (the agenda with the chapter in bold) and its slides;
    a single chapter gets one opening slide that lists its derivations."""
    titles = [mark_math(title) for title, _ in chapters]
    keep = f" {_KEEP_CASE}" if s.flavour == "revealjs" else ""

    def agenda(current: int) -> str:
        return "\n".join(f"{k}. " + (f"**{t}**" if k - 1 == current else t) for k, t in enumerate(titles, 1))

    if len(chapters) == 1:  # ``--chapter NAME``: one slide opens it, with its derivations as the agenda
        (_, members), = chapters
        listed = "\n".join(f"{k}. {mark_math(d.title)}" for k, d in enumerate(members, 1))
        return [f"# {titles[0]}{keep}\n\n{listed}\n", *(slide_markdown(d, **settings) for d in members)]
    out = [f"## Contents{keep}\n\n{agenda(-1)}\n"]
    for c, (_, members) in enumerate(chapters):
        out.append(f"# {c + 1}. {titles[c]}{keep}\n\n{agenda(c)}\n")
        out += [slide_markdown(d, **settings) for d in members]
    return out


def slides_markdown(derivations: Sequence[Derivation], extra_slides: Sequence[str] = (),
                    chapters: Sequence[tuple[str, Sequence[Derivation]]] = (), **settings: Any) -> str:
    """A deck: (a Marp front matter,) an optional title slide, one slide per derivation, ``extra_slides``.

    Args:
        derivations: the derivations, in the order of the slides (after those of ``chapters``).
        extra_slides: more slides as Markdown (e.g. parameter tables), appended as they are.
        chapters: ``[(title, derivations), ...]``: a book's chapters in order; an agenda slide lists
            them and a section slide opens each one.
        **settings: fields of :class:`SlidesSettings`.

    Returns:
        Markdown whose slides are separated by lines ``---``.

    Raises:
        InputError: nothing to show, an unknown setting or a bad value.
    """
    if not derivations and not extra_slides and not any(ds for _, ds in chapters):
        raise InputError("a deck needs at least one derivation or slide")
    s = checked_settings(SlidesSettings, settings)
    slides = [f"# {s.title}\n"] if s.title else []
    slides += _chapter_slides(chapters, s, settings) if chapters else []
    slides += [slide_markdown(d, **settings) for d in derivations] + list(extra_slides)
    text = "\n---\n\n".join(slides)
    if s.flavour == "marp":
        text = _MARP_FRONT + text
    return text
