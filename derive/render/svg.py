r"""SVG and PNG images of formulas, drawn without TeX (ziamath, cairosvg).

:func:`derivation_svg` draws the chain as a table whose rows align at the
relation sign: the start expression, then ``= expr`` per step with its
justification beside it; or the claim alone, or one step. Each formula is
typeset from the LaTeX of :mod:`derive.render.latex` by ziamath [1]_ (pure
Python, STIX Two Math font, glyphs drawn as paths), so no TeX installation
and no font on the viewer's machine is needed. The output is SVG 1.1 (ziamath's
``svg2`` mode off: no SVG-2-only ``href``), which browsers, Inkscape,
LibreOffice, PowerPoint and Keynote display.

PNG goes through cairosvg [2]_ (a PyPI package that needs the system's
``libcairo2``, present on most desktops; on Debian ``apt-get install libcairo2``).

Both are optional dependencies, the ``slides`` extra: ``pip install -e ".[slides]"`` from the root of
the derive checkout.

.. [1] https://ziamath.readthedocs.io
.. [2] https://cairosvg.org
"""

from __future__ import annotations

import contextlib
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..core import Derivation
from ..exceptions import SLIDES_INSTALL, InputError, MissingDependencyError
from ..i18n import gettext
from .hangul import MixedText, note_drawing
from .latex import REL_TEX, SelectionSettings, checked_settings, expr_latex, start_alone, step_pair
from .textmath import mark_math


@dataclass(frozen=True)
class SvgSettings(SelectionSettings):
    """Options of the SVG/PNG renderer (checked when built): those of
    :class:`~derive.render.latex.SelectionSettings` (``what``, ``step``,
    ``justifications``, ``symbol_names``) and:

    Attributes:
        size: font size of the formulas, in px (the justifications are 3/4 of it).
        wrap: justifications are wrapped at about this many characters.
        color: colour of the formulas (an SVG colour, e.g. ``"black"``, ``"#222"``).

    Raises:
        InputError: a value outside these choices.
    """

    size: float = 24.0
    wrap: int = 48
    color: str = "black"

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.size, bool) or not isinstance(self.size, (int, float)) or not 4 <= self.size <= 400:
            raise InputError(f"size must be a number of px between 4 and 400, got {self.size!r}")
        if isinstance(self.wrap, bool) or not isinstance(self.wrap, int) or self.wrap < 10:
            raise InputError(f"wrap must be an integer of at least 10 characters, got {self.wrap!r}")


@contextlib.contextmanager
def _svg11() -> Iterator[Any]:
    """ziamath with SVG 1.1 output and rows measured once (:func:`_row_height`); both restored afterwards."""
    try:
        import ziamath
        from ziamath.nodes.mrow import Mrow
    except ImportError:
        raise MissingDependencyError(
            f"SVG output needs ziamath: {SLIDES_INSTALL}") from None
    old, measure = ziamath.config.svg2, Mrow._get_height_nostretch
    ziamath.config.svg2 = False
    Mrow._get_height_nostretch = _row_height(measure)
    try:
        yield ziamath
    finally:
        ziamath.config.svg2 = old
        Mrow._get_height_nostretch = measure


def _free_stretchy(line: list[ET.Element]) -> bool:
    """Whether an operator under ``line`` stretches to its row's height (a fence without a fixed size)."""
    from ziamath import operators
    from ziamath.nodes.nodetools import elementtext

    for child in line:
        for mo in child.iter("mo"):
            if mo.get("stretchy") == "false" or "minsize" in mo.attrib or "maxsize" in mo.attrib:
                continue
            text = elementtext(mo)
            if mo.get("stretchy", "false") != "false" or any(
                    operators.get_params(text, form).get("stretchy", "false") != "false"
                    for form in ("prefix", "postfix", "infix")):
                return True
    return False


def _row_height(measure: Any) -> Any:
    """ziamath's pre-pass of a row (each child laid out once more without its stretchy operators, to find
    how tall they must be, so nested rows cost 2^depth layouts), run only when the row has an operator
    that uses the result: one that stretches and has no fixed size. Elsewhere the height is not read."""

    def height(self: Any, line: list[ET.Element], **kwargs: Any) -> tuple[float, float]:
        return measure(self, line, **kwargs) if _free_stretchy(line) else (0.0, 0.0)

    return height


def wrap_text(text: str, width: int) -> str:
    """Wrap ``text`` at about ``width`` characters without breaking ``$...$`` math."""
    words: list[str] = []
    for k, part in enumerate(text.split("$")):
        if k % 2:
            if words and not text.split("$")[k - 1].endswith(" "):
                words[-1] += f"${part}$"
            else:
                words.append(f"${part}$")
        else:
            pieces = part.split(" ")
            if words and pieces and pieces[0]:
                words[-1] += pieces.pop(0)
            words += [p for p in pieces if p]
    lines: list[str] = []
    for w in words:
        if lines and len((lines[-1] + " " + w).replace("$", "")) <= width:
            lines[-1] += " " + w
        else:
            lines.append(w)
    return "\n".join(lines)


_FENCE = re.compile(r"\\(left|right)(\\[{}|]|\\[A-Za-z]+|[()\[\]|.])")


def _size(inner: str) -> str:
    """A fixed delimiter size for the content of a fence: taller for matrices, fractions and sums."""
    if "matrix" in inner:
        rows = max(inner.count(r"\\") + 1, 2)
        return r"\Bigg" if rows <= 3 else r"\Bigg"
    if any(t in inner for t in (r"\frac", r"\sum", r"\substack", r"\prod")):
        return r"\Big"
    if any(t in inner for t in ("^", r"\sqrt", "_")):
        return r"\big"
    return ""


def ziamath_tex(tex: str) -> str:
    r"""LaTeX that ziamath lays out quickly and correctly.

    * ``\left[\begin{matrix}...\end{matrix}\right]`` becomes ``{bmatrix}`` (the matrix draws its brackets,
      in a group of its own: else they stretch to the tallest thing on the line);
    * a sum's ``\substack`` limits are written on one line beside the sign, separated by commas;
    * every other ``\left X ... \right Y`` becomes fixed-size delimiters (``\Big(`` ... ``\Big)``) chosen
      from what they enclose. ziamath lays out the content of each stretchy pair twice, so nested pairs
      cost 2^depth layouts (a minute and more for the worked examples), and a ``\substack`` inside a
      stretchy bracket drew a bracket several thousand px tall.
    """
    tex = re.sub(r"\\left\[\s*\\begin\{matrix\}((?:(?!\\begin\{matrix\}|\\end\{matrix\}).)*)"
                 r"\\end\{matrix\}\s*\\right\]", r"{\\begin{bmatrix}\1\\end{bmatrix}}", tex, flags=re.S)
    out, stack, last = [], [], 0
    for m in _FENCE.finditer(tex):
        out.append(tex[last:m.start()])
        last = m.end()
        if m.group(1) == "left":
            stack.append((len(out), m.group(2)))
            out.append("")  # filled when the matching \right is found
        elif stack:
            k, opening = stack.pop()
            size = _size("".join(out[k + 1:]))
            out[k] = "" if opening == "." else (f"{size}l{opening}" if size else opening)
            out.append("" if m.group(2) == "." else (f"{size}r{m.group(2)}" if size else m.group(2)))
        else:
            out.append(m.group(2) if m.group(2) != "." else "")
    out.append(tex[last:])
    for k, opening in stack:  # unmatched \left: keep the delimiter, unsized
        out[k] = "" if opening == "." else opening
    tex = re.sub(r"\\middle\s*([|/])", r"\\Bigg\1", "".join(out))  # \middle needs a \left around it
    return _one_line_limits(tex)


def _one_line_limits(tex: str) -> str:
    r"""``\sum_{\substack{a \\ b}}`` as ``{\sum}_{a,\; b}``, limits beside the sign: ziamath draws a stack of
    limits under a sum across the fraction bar below it, and wide limits under it over their neighbours."""
    from .layout import _matching

    out, i = [], 0
    pattern = re.compile(r"\\(sum|prod)_\{\\substack\{")
    while True:
        m = pattern.search(tex, i)
        if not m:
            out.append(tex[i:])
            return "".join(out)
        inner_end = _matching(tex, m.end() - 1)
        outer_end = _matching(tex, m.start() + len(m.group(1)) + 2)
        rows = [r.strip() for r in tex[m.end():inner_end - 1].split(r"\\")]
        out.append(tex[i:m.start()] + "{\\" + m.group(1) + "}_{" + r",\; ".join(rows) + "}")
        i = outer_end


#: characters of justifications that the STIX Two font has no glyph for, and math that draws them
_NO_GLYPH = {"ᵀ": "$^{T}$"}


def _drawable(text: str) -> str:
    """``text`` with the characters the font lacks written as math (``QKᵀ`` as ``QK$^{T}$``)."""
    for char, math in _NO_GLYPH.items():
        text = text.replace(char, math)
    return text


def _rows(d: Derivation, s: SvgSettings) -> list[tuple[str, str, str]]:
    """(left side, relation and right side, justification) per row, as LaTeX/text."""
    names = s.symbol_names
    if s.what == "claim":
        return [(expr_latex(d.start, names), f"{REL_TEX[d.relation]} {expr_latex(d.end, names)}", "")]
    if s.what == "step":
        prev, st = step_pair(d, s.step)
        return [(expr_latex(prev, names), f"{REL_TEX[st.relation]} {expr_latex(st.expr, names)}",
                 st.justification)]
    from ..transformer.notation import latex_names
    from .layout import Breaker, name_repeats, tex_width

    symbols = {**latex_names(), **names}
    breaker = Breaker(SVG_BUDGET, symbols)
    exprs = [d.start, *(st.expr for st in d.steps)]
    where: list = []
    if max(tex_width(breaker.tex(e)) for e in exprs) > SVG_BUDGET:  # long: name repeats, break lines
        exprs, where = name_repeats(exprs, symbol_names=symbols, entry_width=ENTRY_WIDTH, matrices=True,
                                    budget=SVG_BUDGET - 2.0)
    start = breaker.lines(exprs[0])
    first = breaker.lines(exprs[1])
    alone = len(start) > 1 or start_alone(start[0], first[0])
    rows = [("", line if j == 0 else rf"\quad {line}", "") for j, line in enumerate(start)] if alone else []
    for k, (st, expr) in enumerate(zip(d.steps, exprs[1:], strict=True), 1):
        lines = breaker.lines(expr)
        lhs = start[0] if k == 1 and not alone else ""
        rows.append((lhs, f"{REL_TEX[st.relation]} {lines[0]}", f"({k}) {st.justification}"))
        rows += [("", rf"\quad {line}", "") for line in lines[1:]]
    for name, value in where:
        lines = breaker.lines(value)
        rows.append((breaker.tex(name), f"= {lines[0]}", gettext("where") if name == where[0][0] else ""))
        rows += [("", rf"\quad {line}", "") for line in lines[1:]]
    return rows


#: widest formula line of an image, in em (:func:`derive.render.layout.tex_width`); wider ones are broken
SVG_BUDGET = 40.0
#: a matrix entry wider than this (em) in a formula too wide for a line is named in the "where" rows
ENTRY_WIDTH = 14.0


def _fmt(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".")


def derivation_svg(derivation: Derivation, **settings: Any) -> str:
    """The derivation's chain (or claim, or one step) as an SVG 1.1 document.

    Args:
        derivation: what to draw.
        **settings: fields of :class:`SvgSettings`.

    Returns:
        The text of a standalone ``<svg>`` (with ``width``/``height`` in px and
        a ``<title>``), every glyph a ``<path>``.

    Raises:
        InputError: an unknown setting or a bad value.
        MissingDependencyError: ziamath is not installed.
    """
    s = checked_settings(SvgSettings, settings)
    rows = _rows(derivation, s)
    with _svg11() as zm:
        size, gap, margin = float(s.size), 0.3 * s.size, 0.5 * s.size
        axis = 0.25 * size  # height of the fraction bar / minus sign above the baseline
        drawn = []
        for lhs, rhs, note in rows:
            left = zm.Latex(ziamath_tex(lhs), size=size, color=s.color) if lhs else None
            right = zm.Latex(ziamath_tex(rhs), size=size, color=s.color)
            text = (note_drawing(zm, _drawable(mark_math(note)), s.wrap, size=0.75 * size, color="#505050")
                    if note and s.justifications else None)
            drawn.append((left, right, text))

        def extent(m: Any) -> tuple[float, float, float]:
            """width, ascent, descent (px) of a Latex or Text object."""
            if m is None:
                return 0.0, 0.0, 0.0
            if isinstance(m, (zm.Text, MixedText)):  # drawn centred on the math axis
                x0, x1, y0, y1 = m.bbox()
                return x1 - x0, (y1 - y0) / 2 + axis, (y1 - y0) / 2 - axis
            b = m.node.bbox
            return b.xmax - b.xmin, b.ymax, -b.ymin

        x_rel = margin + max(extent(left)[0] for left, _, _ in drawn) + (gap if any(r[0] for r in drawn) else 0)
        x_note = x_rel + max(extent(right)[0] for _, right, _ in drawn) + 1.5 * size
        svg = ET.Element("svg")
        ET.SubElement(svg, "title").text = derivation.title
        y, width = margin, 0.0
        for left, right, text in drawn:
            ext = [extent(m) for m in (left, right, text)]
            base = y + max(e[1] for e in ext)
            if left is not None:
                left.drawon(svg, x_rel - gap, base, halign="right")
            right.drawon(svg, x_rel, base)
            width = max(width, x_rel + ext[1][0])
            if text is not None:
                text.drawon(svg, x_note, base - axis, halign="left", valign="center")
                width = max(width, x_note + ext[2][0])
            y = base + max(e[2] for e in ext) + 0.6 * size
        height = y - 0.6 * size + margin
        width += margin
        svg.attrib.update({"xmlns": "http://www.w3.org/2000/svg", "xmlns:xlink": "http://www.w3.org/1999/xlink",
                           "version": "1.1", "width": _fmt(width), "height": _fmt(height),
                           "viewBox": f"0 0 {_fmt(width)} {_fmt(height)}"})
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(svg, encoding="unicode") + "\n"


def latex_svg(latex: str, size: float = 24.0) -> str:
    """One LaTeX formula (math mode, no ``$``) as an SVG 1.1 document (ziamath).

    Raises:
        MissingDependencyError: ziamath is not installed.
    """
    with _svg11() as zm:
        return zm.Latex(latex, size=size).svg()


def svg_to_png(svg: str, scale: float = 2.0, background: str = "white") -> bytes:
    """Rasterise an SVG document to PNG bytes with cairosvg.

    Args:
        svg: the SVG text.
        scale: pixels per SVG px (2 gives crisp images on slides).
        background: fill behind the drawing (an SVG colour; ``"none"`` for transparent).

    Raises:
        MissingDependencyError: cairosvg, or the cairo library it loads, is missing.
    """
    try:
        import cairosvg
    except (ImportError, OSError) as exc:
        raise MissingDependencyError(
            f"PNG output needs cairosvg and the cairo library ({SLIDES_INSTALL}; "
            f"on Debian apt-get install libcairo2): {exc}") from None
    bg = None if background == "none" else background
    return cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=scale, background_color=bg)


def derivation_png(derivation: Derivation, scale: float = 2.0, **settings: Any) -> bytes:
    """:func:`derivation_svg` rasterised to PNG bytes (see :func:`svg_to_png`)."""
    return svg_to_png(derivation_svg(derivation, **settings), scale=scale)
