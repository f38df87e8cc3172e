"""A derivation's formulas broken into lines of a width, with large repeats named once (site, notebook).

Used by the Sphinx directive (``derive.sphinxext.content``) and the Jupyter
display (:mod:`derive.render.html`); it needs sympy only, not docutils.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..core import Derivation


#: Widest line of a chain on the site, in em of the math font (:func:`derive.render.layout.tex_width`):
#: about the text column of the theme at 1400 px, less the step numbers and the box's padding.
SITE_BUDGET = 36.0


class ChainLayout:
    """A derivation's formulas broken into lines for the site, with large repeats named once.

    Attributes:
        start, exprs: the (possibly renamed) start and step expressions.
        names: ``[(symbol, value), ...]`` of the "where" list (:func:`~derive.render.layout.name_repeats`).
        alone: the start has a row of its own (it is too wide to share one with step 1).
    """

    def __init__(self, derivation: Derivation, budget: float = SITE_BUDGET) -> None:
        from ..transformer.notation import latex_names
        from .layout import Breaker, name_repeats, tex_width

        self.budget = budget
        symbols = latex_names()
        self.breaker = Breaker(budget, symbols)
        from .order import shown_expr

        exprs = [derivation.start, *(shown_expr(s) for s in derivation.steps)]  # the end is the last step's
        widest = max(tex_width(self.breaker.tex(e)) for e in exprs)
        self.names: list = []
        if widest > budget:
            exprs, self.names = name_repeats(exprs, symbol_names=symbols, budget=budget - 4.0)
        self.start, self.end, self.exprs = exprs[0], exprs[-1], exprs[1:]
        start_tex = self.breaker.tex(self.start)
        self.alone = tex_width(start_tex) > budget / 3 or any(
            tex_width(self.breaker.tex(e)) + tex_width(start_tex) > budget for e in self.exprs[:1])
        self.lhs = "" if self.alone else start_tex

    def block(self, relation: str, expr, budget: float | None = None) -> str:
        r"""``\begin{aligned}&= line 1 \\ &\quad line 2 ...\end{aligned}`` (or one line)."""
        from .layout import aligned_lines

        budget = (self.budget - (self.lhs_width if not self.alone else 0)) if budget is None else budget
        lines = self.breaker.lines(expr, budget - 2.0)
        rows = aligned_lines(lines, relation)
        if len(rows) == 1:
            return rows[0].lstrip("&")
        return "\\begin{aligned}" + " \\\\\n".join(rows) + "\\end{aligned}"

    def claim(self, relation: str) -> str:
        """``start R end``, broken into an ``aligned`` block when it is wider than the budget."""
        from .layout import aligned_lines, tex_width

        start, end = self.breaker.tex(self.start), self.breaker.tex(self.end)
        if tex_width(start) + tex_width(end) + 1.5 <= self.budget:
            return f"{start} {relation} {end}"
        rows = aligned_lines(self.breaker.lines(self.start, self.budget))
        rows += aligned_lines(self.breaker.lines(self.end, self.budget - 2.0), relation)
        return "\\begin{aligned}" + " \\\\\n".join(rows) + "\\end{aligned}"

    @property
    def lhs_width(self) -> float:
        from .layout import tex_width

        return tex_width(self.lhs)

    def where(self) -> str:
        """The "where" list as one ``aligned`` block (empty without names)."""
        from .layout import aligned_lines

        rows: list[str] = []
        for name, value in self.names:
            lines = aligned_lines(self.breaker.lines(value, self.budget - 6.0), "=", r"\qquad")
            rows.append(self.breaker.tex(name) + " " + lines[0])
            rows += lines[1:]
        return "\\begin{aligned}" + " \\\\\n".join(rows) + "\\end{aligned}" if rows else ""
