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

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core import Derivation, Step
from ..exceptions import InputError
from ..i18n import gettext
from .latex import REL_TEX, checked_settings, definitions_latex, escape_text, fit_to_width, korean_preamble
from .layout import remembered

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
        max_lines: a frame's content is at most about this many lines of text high (:func:`capacity`);
            wide formulas are broken into lines (:mod:`derive.render.layout`), tall chains continue on
            further frames, and nothing is shrunk below the text size.
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
    max_lines: int = 16
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
    from .layout import shared_breaker

    names = latex_names()
    names.update(s.symbol_names)
    return shared_breaker(FRAME_BUDGET, names)


def _rows(lines: list[str], relation: str, k: int | None, s: BeamerSettings) -> list[str]:
    r"""Rows of the ``aligned`` chain for one formula: ``&= line 1``, ``&\quad line 2`` ... (revealed on ``k``)."""
    out = []
    for j, line in enumerate(lines):
        body = (f"{relation} {line}" if j == 0 else rf"\quad {line}") if relation else line
        out.append("&" + (_reveal(k, body, s) if k is not None else body))
    return out


def _why(k: int, step: Step, overlay: int, s: BeamerSettings) -> str:
    # \small black text (not faint grey footnotes): legible from the back of a room
    words = (r"\parbox[t]{0.85\linewidth}{\raggedright\small"
             rf"\textbf{{\color{{structure}}({k})}} {escape_text(step.justification)}}}")
    return "&" + _reveal(overlay, r"\qquad " + words, s)


#: em of the 11 pt text: a line of text, the space between rows of ``aligned`` (\jot), and what a
#: centred display adds above and below it
LINE, JOT, DISPLAY = 1.24, 0.27, 1.4


def row_height(line: str) -> float:
    """Height of one row of an ``aligned`` block, in em (:func:`~derive.render.layout.tex_height`)."""
    from .layout import tex_height

    return max(tex_height(line) + 0.1, LINE) + JOT


def height(lines: list[str]) -> float:
    """Height of formula lines stacked in an ``aligned`` block, in em."""
    return sum(row_height(line) for line in lines)


def _words_height(text: str, chars: int = 75) -> float:
    r"""Height of a ``\small`` paragraph of ``text`` (about ``chars`` characters a line), in em."""
    plain = len(text.replace("$", "").replace("\\", ""))
    return 1.1 * (1 + plain // chars) + JOT


def capacity(s: BeamerSettings, derivation: Derivation | None = None) -> float:
    """The height a frame's content may take, in em: ``max_lines`` lines of text, less the second line
    of a frame title too long for one (about 72 characters of the title font fit a line)."""
    extra = 0.0
    if derivation is not None:
        title = derivation.title.replace("$", "").replace("\\", "") + " (continued)"
        extra = 2.0 * (len(title) // 72)
    return s.max_lines * LINE - extra


def _tail_height(derivation: Derivation, s: BeamerSettings) -> float:
    """The last frame's "where" line and source line."""
    from .layout import tex_height

    defs = definitions_latex(derivation, s.symbol_names)
    out = 0.91 * max(tex_height(r"\quad".join(defs)), LINE) + 0.3 if defs else 0.0  # \small: 10 of 11 pt
    cites = "; ".join(map(str, derivation.citations))
    return out + (1.0 * (1 + len(cites) // 100) if cites else 0.0)


def _head_height(derivation: Derivation, s: BeamerSettings) -> float:
    """The first frame's claim and assumptions."""
    out = 1.1 + DISPLAY + height(_claim_rows(derivation, s))
    return out + sum(_words_height(a.text, 80) for a in derivation.assumptions)


#: a step's previous expression is repeated at the top of a continued frame when it is at most this share of it
REPEAT_SHARE = 0.35


def chunks(derivation: Derivation, s: BeamerSettings) -> list[list[tuple[int, Step, list[str]]]]:
    """The steps cut into frames: at most ``steps_per_frame`` steps and :func:`capacity` each
    (:func:`height`). The first frame holds the claim and the assumptions and, when they leave room, the
    start of the chain; a chain that does not fit continues on further frames, each opening with the
    left-hand side of its first step (:func:`_lead`). A step is never cut: one taller than a frame has a
    frame to itself (and is scaled to fit it). An empty first chunk: the chain starts on the second frame."""
    breaker = _breaker(s)
    room = capacity(s, derivation) - DISPLAY
    start, _, exprs, _ = named(derivation, s)
    start_lines = breaker.lines(start)
    head = _head_height(derivation, s)
    out: list[list[tuple[int, Step, list[str]]]] = [_Chunk()]
    first = breaker.lines(exprs[0]) if exprs else []
    first_cost = height(first) + (_words_height(derivation.steps[0].justification) if s.justifications else 0)
    if head + DISPLAY + height(start_lines) + first_cost > room + DISPLAY:
        out.append(_Chunk(start_lines))  # the claim alone on the first frame; the chain starts on the next
        used = height(start_lines)
    else:
        used = head + DISPLAY + height(start_lines)
    tail = _tail_height(derivation, s)
    for k, (step, expr) in enumerate(zip(derivation.steps, exprs, strict=True), 1):
        why = _words_height(step.justification) if s.justifications else 0.0
        lines = breaker.lines(expr)
        cost = height(lines) + why + (tail if k == len(exprs) else 0.0)
        if out[-1] and (len(out[-1]) >= s.steps_per_frame or used + cost > room):
            lead = _lead(out[-1], start_lines, k, room - cost, s, derivation)
            out.append(_Chunk(lead))
            used = height(lead)
        out[-1].append((k, step, lines))
        used += cost
    return out


def _lead(previous: list[tuple[int, Step, list[str]]], start_lines: list[str], k: int, room: float,
          s: BeamerSettings, d: Derivation) -> list[str]:
    r"""What a continued frame shows on its first overlay, the left-hand side of step ``k``: the previous
    frame's last expression when it is short and leaves room; else the chain's start and a ``\vdots`` (the
    steps between are on the frames before); else the words "the result of step k-1" (never nothing: a
    frame must not open on a bare "=")."""
    lines = previous[-1][2]
    if height(lines) <= min(REPEAT_SHARE * capacity(s, d), room):
        return lines
    if height(start_lines) <= REPEAT_SHARE * capacity(s, d):
        return [*start_lines, r"\;\vdots"]
    return [r"\text{(the result of step " + str(k - 1) + ")}"]


class _Chunk(list):
    """The steps of one frame; ``lead``: the lines the frame starts from (the left-hand side of its first
    step), shown from the first overlay."""

    def __init__(self, lead: list[str] | None = None) -> None:
        super().__init__()
        self.lead = list(lead or [])


def _chain(start_lines: list[str], steps: Sequence[tuple[int, Step, list[str]]], s: BeamerSettings,
           first: int = 2) -> str:
    """The ``aligned`` chain: the start, then each step on its own overlay (from ``first``) with its justification."""
    rows = _rows(start_lines, "", None, s)
    for j, (k, step, lines) in enumerate(steps):
        overlay = first + j
        rows += _rows(lines, REL_TEX[step.relation], overlay, s)
        if s.justifications and step.justification:
            rows.append(_why(k, step, overlay, s))
    return "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}"


#: a matrix entry wider than this (em) in a formula too wide for a frame is named in the "where" list
ENTRY_WIDTH = 12.0


@remembered  # asked by the frame, its chunks, the claim and the height estimates
def named(derivation: Derivation, s: BeamerSettings) -> tuple[Any, Any, list[Any], list[tuple[Any, Any]]]:
    """``(start, end, step expressions, where)``: when a formula is wider than a frame, large repeated
    subexpressions and wide matrix entries are named once (:func:`~derive.render.layout.name_repeats`)
    and listed on the last frames."""
    from .layout import name_repeats, tex_width

    breaker = _breaker(s)
    exprs = [derivation.start, *(st.expr for st in derivation.steps)]  # the end is the last step's
    where: list[tuple[Any, Any]] = []
    if max(tex_width(breaker.tex(e)) for e in exprs) > FRAME_BUDGET:
        exprs, where = name_repeats(exprs, symbol_names=breaker.printer._settings["symbol_names"],
                                    entry_width=ENTRY_WIDTH, matrices=True, budget=FRAME_BUDGET - 2.0)
    return exprs[0], exprs[-1], exprs[1:], where


def _claim_rows(derivation: Derivation, s: BeamerSettings) -> list[str]:
    """The claim's lines: ``start R end`` on one, or the start's and the end's broken lines."""
    breaker = _breaker(s)
    first, last, _, _ = named(derivation, s)
    start, end = breaker.lines(first), breaker.lines(last)
    if len(start) == 1 and len(end) == 1:
        one = f"{start[0]} {REL_TEX[derivation.relation]} {end[0]}"
        from .layout import tex_width

        if tex_width(one) <= FRAME_BUDGET:
            return [one]
    return _rows(start, "", None, s) + _rows(end, REL_TEX[derivation.relation], None, s)


def _claim(derivation: Derivation, s: BeamerSettings) -> str:
    """The claim, broken into lines like the chain, for the first overlay."""
    rows = _claim_rows(derivation, s)
    return rows[0] if len(rows) == 1 else "\\begin{aligned}" + " \\\\ ".join(rows) + "\\end{aligned}"


def _frame_head(derivation: Derivation, title: str, c: int) -> list[str]:
    return [r"\begin{frame}", rf"\typeout{{derive-frame: {derivation.name} {c + 1}}}", rf"\frametitle{{{title}}}",
            rf"\framesubtitle{{\texttt{{{escape_text(derivation.name)}}}}}"]


def frame_fit(title: str) -> str:
    r"""The end of a frame's content box: shown as it is or, when the height estimate of the pagination
    fell short, scaled to the room under the title (``title`` in TeX, about 55 characters a line), with a
    ``derive-fit`` line in the log (the tests read the scale)."""
    plain = len(re.sub(r"\\[a-zA-Z]+|[{}$]", "", title))
    room = 4.0 + 1.3 * (plain // 55)
    return (r"\end{minipage}}\dimen4=\ht1\advance\dimen4 by \dp1"
            rf"\dimen6=\dimexpr\textheight-{room:.1f}em\relax"
            r"\ifdim\dimen4>\dimen6\typeout{derive-fit: frame \the\dimexpr\dimen4\relax\space"
            r"\the\dimexpr\dimen6\relax}\resizebox*{!}{\dimen6}{\usebox1}\else\usebox1\fi")


def frame(derivation: Derivation, s: BeamerSettings) -> str:
    """The frame(s) of one derivation (see :func:`beamer_frame`)."""
    parts = chunks(derivation, s)
    breaker = _breaker(s)
    frames = []
    for c, chunk in enumerate(parts):
        title = escape_text(derivation.title) + (r" \emph{" + gettext("(continued)") + "}" if c else "")
        out = _frame_head(derivation, title, c)
        out.append(r"\sbox1{\begin{minipage}{\linewidth}")  # the whole content, measured below
        if c == 0:  # the first overlay: the claim and the assumptions
            out += [r"{\small\textbf{" + gettext("Claim.") + "}}",
                    fit_to_width(_claim(derivation, s), max_height=r"0.9\textheight")]
            if derivation.assumptions:
                out.append(r"{\small\textbf{" + gettext("Assumptions.") + "}")
                out += [escape_text(a.text) + ("" if k == len(derivation.assumptions) else r"\\")
                        for k, a in enumerate(derivation.assumptions, 1)]
                out.append(r"\par}")
        if chunk:
            start = breaker.lines(named(derivation, s)[0]) if c == 0 else chunk.lead
            out.append(fit_to_width(_chain(start, chunk, s), max_height=r"0.9\textheight"))
        if c == len(parts) - 1:
            defs = definitions_latex(derivation, s.symbol_names)
            if defs:
                where = r"\text{" + gettext("where") + " }" + r", \quad ".join(defs)
                out.append(r"{\small" + fit_to_width(where, max_height=r"0.2\textheight", center=False)
                           + r"\par}")
            if derivation.citations:
                out.append(r"\par{\small " + gettext("Source:") + " "
                           + escape_text("; ".join(str(cite) for cite in derivation.citations)) + "}")
        out.append(frame_fit(title))
        out.append(r"\end{frame}")
        frames.append("\n".join(out))
    return "\n".join(frames + _where_frames(derivation, s))


def _where_frames(derivation: Derivation, s: BeamerSettings) -> list[str]:
    r"""The named subexpressions, ``\xi_1 = ...``, on frames of their own (none when nothing was named)."""
    where = named(derivation, s)[3]
    if not where:
        return []
    breaker = _breaker(s)
    pages: list[list[str]] = [[]]
    used = 0.0
    for name, value in where:
        lines = breaker.lines(value)
        rows = _rows(lines, "=", None, s)
        rows[0] = breaker.tex(name) + " " + rows[0]
        if pages[-1] and used + height(lines) > capacity(s, derivation) - DISPLAY:
            pages.append([])
            used = 0.0
        pages[-1] += rows
        used += height(lines)
    out = []
    for k, rows in enumerate(pages):
        title = escape_text(derivation.title) + r" \emph{(" + gettext("where") + ")}" \
            + (r" \emph{" + gettext("(continued)") + "}" if k else "")
        block = "\\begin{aligned}" + " \\\\\n".join(rows) + "\\end{aligned}"
        out.append("\n".join([r"\begin{frame}", rf"\typeout{{derive-frame: {derivation.name} where {k + 1}}}",
                              rf"\frametitle{{{title}}}", fit_to_width(block, max_height=r"0.9\textheight"),
                              r"\end{frame}"]))
    return out


def _document(frames: list[str], title: str, s: BeamerSettings, sections: bool = False, subtitle: str = "") -> str:
    head = [rf"\documentclass[aspectratio={s.aspectratio}]{{beamer}}",
            *korean_preamble(title + subtitle + "".join(frames)), rf"\usetheme{{{s.theme}}}",
            r"\usepackage{amsmath,amssymb,booktabs}",
            r"\setbeamertemplate{navigation symbols}{}", rf"\title{{{escape_text(title)}}}",
            *([rf"\subtitle{{{escape_text(subtitle)}}}"] if subtitle else []), r"\date{}"]
    if sections or any(r"\begin{multicols}" in f for f in frames):
        head.append(r"\usepackage{multicol}")
    if sections:  # a section frame opens each chapter: the agenda with the chapter in bold
        head += [r"\AtBeginSection[]{\begin{frame}\frametitle{\insertsectionhead}" + _toc("currentsection,")
                 + r"\end{frame}}"]
    return "\n".join([*head, r"\begin{document}", *frames, r"\end{document}", ""])


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


def _toc(options: str = "") -> str:
    r"""The agenda: the chapters in two columns of small type (a book's 14 chapters fit one frame)."""
    return (r"{\footnotesize\begin{multicols}{2}\raggedcolumns"
            rf"\tableofcontents[{options}hideallsubsections]\end{{multicols}}}}")


def _section(title: str) -> str:
    r"""``\section`` with a plain-text form for the PDF outline (bookmarks cannot hold math)."""
    import unicodedata

    from ..i18n import is_hangul

    # "·" (Latin-1) goes into a bookmark as it is: the outline reads "C = 6·N·D" as the chapter's heading does
    plain = "".join(ch if ord(ch) < 128 or is_hangul(ch) or ch == "·" else
                    (unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
                     or {"−": "-", "√": "sqrt"}.get(ch, " ")) for ch in title)
    plain = plain.replace("$", "").replace("\\", "").replace("{", "").replace("}", "")
    plain = re.sub(r"[#%&_^~]", " ", plain)
    return rf"\section{{\texorpdfstring{{{escape_text(title)}}}{{{plain}}}}}"


def beamer_deck(derivations: Sequence[Derivation], extra_frames: Sequence[str] = (),
                chapters: Sequence[tuple[str, Sequence[Derivation]]] = (), **settings: Any) -> str:
    r"""A deck: a title page, one frame per derivation in the order given, then ``extra_frames``.

    Args:
        derivations: the derivations (after those of ``chapters``).
        extra_frames: more frames as LaTeX (e.g. parameter tables), appended as they are.
        chapters: ``[(title, derivations), ...]``: a book's chapters in order; each becomes a
            ``\section`` (one entry of the PDF outline) opened by a section frame, and an agenda frame
            after the title page lists them.
        **settings: fields of :class:`BeamerSettings`; a deck is always
            standalone (the ``standalone`` setting is ignored).

    Raises:
        InputError: nothing to show, an unknown setting or a bad value.
    """
    if not derivations and not extra_frames and not any(ds for _, ds in chapters):
        raise InputError("a deck needs at least one derivation or frame")
    s = checked_settings(BeamerSettings, settings)
    # one chapter (``--chapter NAME``): the deck is that chapter, so its title is the chapter's and its agenda
    # lists the derivations; an agenda of one chapter and a section frame would be two pages with one line each
    one = len(chapters) == 1
    title = s.title or (chapters[0][0] if one else gettext("The Transformer, derived step by step"))
    frames = [r"\begin{frame}", r"\titlepage", r"\end{frame}"]
    if chapters:
        agenda = _derivation_list(chapters[0][1]) if one else _toc()
        frames += [r"\begin{frame}\frametitle{" + gettext("Contents") + "}", agenda, r"\end{frame}"]
    for name, members in chapters:
        frames.append(_section(name))
        frames += [frame(d, s) for d in members]
    frames += [frame(d, s) for d in derivations] + list(extra_frames)
    return _document(frames, title, s, sections=len(chapters) > 1, subtitle=_what_is_in(derivations, chapters))


def _derivation_list(members: Sequence[Derivation]) -> str:
    """A one-chapter deck's agenda: its derivations' titles in two columns (smaller type past a dozen)."""
    size = r"\footnotesize" if len(members) <= 12 else r"\scriptsize"
    items = "".join(r"\item " + escape_text(d.title) for d in members)
    return (rf"{{{size}\begin{{multicols}}{{2}}\raggedcolumns\begin{{itemize}}{items}\end{{itemize}}"
            r"\end{multicols}}")


def _what_is_in(derivations: Sequence[Derivation], chapters: Sequence[tuple[str, Sequence[Derivation]]]) -> str:
    """The title page's second line: how many derivations (in how many chapters), and derive's version."""
    from .. import __version__

    count = len(derivations) + sum(len(ds) for _, ds in chapters)
    if len(chapters) > 1:
        text = gettext("{count} derivations in {chapters} chapters · derive {version}")
    elif count == 1:
        text = gettext("1 derivation · derive {version}")
    else:
        text = gettext("{count} derivations · derive {version}")
    return text.format(count=count, chapters=len(chapters), version=__version__)
