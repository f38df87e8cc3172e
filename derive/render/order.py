r"""Printers that keep the order an author wrote, where sympy's canonical order would hurt.

sympy stores a sum with its terms sorted (``Add`` sorts its arguments when it is
built), so ``E[X^2] - E[X]^2`` comes back as ``-E[X]^2 + E[X^2]`` and
``z_i - c`` as ``-c + z_i``. The printers here (LaTeX for the site, slides,
SVG and MathML; sympy's Unicode pretty printer for the terminal) differ from
sympy's in three places and nowhere else:

* **A sum does not open with a minus sign** when one of its terms is
  positive: the first such term is moved to the front (``z_i - c``,
  ``\max(0, a t) - a \max(0, t)``, ``\delta_{ij} - s_j``). A sum built
  unevaluated (``Add(a, b, evaluate=False)``) is printed in the order of its
  arguments, as written.
* **A fraction times a sum that holds the same denominator** is printed as
  the fraction, then the sum in brackets: ``\frac{e^{z_i}}{S} \left(\delta_{ij} - \frac{e^{z_j}}{S}\right)``
  (sympy would draw one bar over everything).
* **A number before a fraction** in an unevaluated product gets a ``\cdot``
  (``1 \cdot \frac{1}{\sqrt{10000}}``, not the mixed number ``1 \frac{1}{\sqrt{10000}}``).

An expression an author gives as a display form (``Step.display``, when the
core model has it) is printed as it is, in its own order.

    >>> import sympy as sp
    >>> c, z = sp.symbols("c z")
    >>> display_latex(z - c)
    'z - c'
    >>> sp.latex(z - c)
    '- c + z'
"""

from __future__ import annotations

import functools
from typing import Any

from sympy import Add, Mul, S
from sympy.printing.latex import LatexPrinter
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.pretty.stringpict import prettyForm


def _written_order(expr: Any) -> bool:
    """``expr`` is a sum built unevaluated: rebuilding it would change its arguments or their order."""
    try:
        return Add(*expr.args).args != expr.args
    except Exception:  # noqa: BLE001 - an argument sympy cannot add: print it as it is stored
        return True


def display_terms(expr: Any, ordered: list[Any]) -> list[Any]:
    """The terms of the sum ``expr`` in display order, from sympy's order ``ordered``.

    A sum built unevaluated keeps its arguments' order; otherwise a sum whose
    first term is negative starts with its first positive term instead.
    """
    if _written_order(expr):
        return list(expr.args)
    terms = list(ordered)
    if terms and terms[0].could_extract_minus_sign():
        for k, term in enumerate(terms):
            if not term.could_extract_minus_sign():
                return [term, *terms[:k], *terms[k + 1:]]
    return terms


def fraction_times_sum(expr: Any) -> tuple[Any, Any] | None:
    """``(head, sum)`` when ``expr`` is ``head * sum`` and the denominator of ``head`` is a denominator in
    the sum too (``e^{z_i}/S * (δ_ij - e^{z_j}/S)``, ``σ (1 - σ)``): the same fraction twice is easier to see
    than one bar over everything. ``None`` otherwise (then sympy's one bar is kept)."""
    from sympy import fraction

    if not isinstance(expr, Mul) or expr.could_extract_minus_sign() or not expr.is_commutative:
        return None
    numer, denom = fraction(expr, exact=True)
    if denom is S.One:
        return None
    below = set(Mul.make_args(denom))
    factors = Mul.make_args(numer)
    sums = [f for f in factors if isinstance(f, Add)
            and any(below & set(Mul.make_args(fraction(t, exact=True)[1])) for t in f.args)]
    if len(sums) != 1:
        return None
    rest = [f for f in factors if f is not sums[0]]
    if not rest:  # 1/S * (...): one bar is narrower, and there is no fraction to repeat
        return None
    return Mul(*rest) / denom, sums[0]


def _unevaluated_number_first(expr: Any) -> bool:
    """An unevaluated product ``n * ...`` that sympy prints argument by argument."""
    args = expr.args
    return isinstance(expr, Mul) and args[0].is_Number and (
        args[0] is S.One or any(a.is_Number for a in args[1:]))


class _AuthorOrder:
    """The terms of a sum in the author's order (:func:`display_terms`), for both printers below."""

    def _as_ordered_terms(self, expr: Any, order: Any = None) -> list[Any]:
        ordered = super()._as_ordered_terms(expr, order=order)
        return display_terms(expr, ordered) if isinstance(expr, Add) else ordered


class DisplayLatexPrinter(_AuthorOrder, LatexPrinter):
    """sympy's LaTeX printer with the three changes of the module docstring."""

    printmethod = "_latex"

    def _print_Symbol(self, expr: Any, style: str = "plain") -> str:
        """A symbol by its spelling in ``symbol_names``; a symbol missing there whose name is spelled there (the
        catalog's ε with other assumptions: ε ≥ 0 where the notation says ε > 0) reads the same."""
        names = self._settings["symbol_names"]
        if expr not in names:
            same = next((tex for s, tex in names.items() if getattr(s, "name", None) == expr.name), None)
            if same is not None:
                return same
        return super()._print_Symbol(expr, style)

    def _print_Mul(self, expr: Any) -> str:
        split = fraction_times_sum(expr)
        if split is not None:
            head, total = split
            return rf"{self._print(head)} \left({self._print(total)}\right)"
        tex = super()._print_Mul(expr)
        if _unevaluated_number_first(expr):
            number = self._print(expr.args[0])
            if tex.startswith(number + r" \frac"):
                tex = number + r" \cdot " + tex[len(number) + 1:]
        return tex


#: the catalog's operator classes (:mod:`derive.transformer.exact_ops`) by the names the LaTeX shows
OPERATOR_NAMES = {"RowSoftmax": "softmax", "CausalMask": "mask", "MultiHead": "MHA"}


def _reader_names() -> dict[Any, str]:
    """Catalog symbol -> its Unicode spelling, read from its LaTeX in the notation table; a symbol whose
    name already reads well (``d_model``, ``n_ctx``: the field's names) is left out."""
    import re

    from ..transformer.notation import latex_names
    from .textmath import tex_unicode

    out = {}
    for symbol, tex in latex_names().items():
        tex = re.sub(r"\\overline\{(\w)\^\{?(\w)\}?\}", lambda m: m.group(1) + "\u0304" + "^" + m.group(2), tex)
        text = tex_unicode(tex)
        if re.search(r"overline|mathrm|mathbf|operatorname|frac|sqrt|left|right|\\", text):
            continue  # a LaTeX command the converter did not know: the name is safer
        if text != symbol.name:
            out[symbol] = text
    return out


_READER: dict[Any, str] = {}


def reader_name(symbol: Any) -> str | None:
    """The Unicode name a reader knows ``symbol`` by (``b``, ``σ²``, ``ε``), or ``None`` to print its name."""
    if not _READER:
        try:
            _READER.update(_reader_names())
        except Exception:  # noqa: BLE001 - without the catalog's notation: sympy's own spelling
            _READER[None] = ""
    shown = _READER.get(symbol)
    if shown is None and getattr(symbol, "is_Symbol", False):
        # the same catalog name with other assumptions (ε ≥ 0 where the notation says ε > 0) reads the same
        shown = reader_names().get(symbol.name)
    return shown


@functools.cache
def reader_names() -> dict[str, str]:
    """Symbol name -> the Unicode name a reader knows it by (see :func:`reader_name`)."""
    reader_name(None)
    return {s.name: text for s, text in _READER.items() if s is not None}


class DisplayPrettyPrinter(_AuthorOrder, PrettyPrinter):
    """sympy's Unicode pretty printer (the terminal) with the same order as :class:`DisplayLatexPrinter`."""

    def _print_Mul(self, product: Any) -> Any:
        split = fraction_times_sum(product)
        if split is not None:
            head, total = split
            return prettyForm.__mul__(self._print(head), prettyForm(*self._print(total).parens()))
        return super()._print_Mul(product)

    def _print_Symbol(self, e: Any, bold_name: bool = False) -> Any:
        """A symbol as the reader sees it on the site: a catalog symbol by its notation (``b_row`` is ``b``,
        ``sigma2`` is ``σ²``, ``eps`` is ``ε``; :mod:`derive.transformer.notation`), a symbol named in
        LaTeX (``PE_{pos,2i}``, ``\\sigma^2``) as Unicode, not as its source."""
        shown = reader_name(e)
        if shown is not None:
            return prettyForm(shown)
        if "\\" in e.name or "{" in e.name:
            from .textmath import tex_unicode

            return prettyForm(tex_unicode(e.name))
        return super()._print_Symbol(e, bold_name)

    def _print_Function(self, e: Any, *args: Any, **kwargs: Any) -> Any:
        """An expectation or variance as the site writes it, ``E[X]`` and ``Var(X)``: an atom, so a power
        goes after it (``E[X]²``, not sympy's ``E²(X)``)."""
        brackets = getattr(type(e), "_str", None)
        if isinstance(brackets, tuple) and len(brackets) == 2 and all(brackets) and len(e.args) == 1:
            head = brackets[0][:-1]
            inside = self._print(e.args[0])
            form = prettyForm(*inside.parens(brackets[0][-1], brackets[1]))
            return prettyForm(*form.left(head))
        return super()._print_Function(e, *args, **kwargs)

    def _print_Max(self, e: Any) -> Any:
        return self._helper_print_function(e.func, e.args, func_name="max")

    def _print_Min(self, e: Any) -> Any:
        return self._helper_print_function(e.func, e.args, func_name="min")

    def _print_Indexed(self, e: Any) -> Any:
        """``z[i]`` as ``zᵢ`` when the indices have Unicode subscripts, else ``W₂[k, j]``."""
        from .textmath import _SUB

        base = self._print(e.base.label)
        indices = [self._print(i) for i in e.indices]
        if all(p.height() == 1 for p in indices):
            text = ",".join(str(p) for p in indices)
            if all(ch in _SUB or ch == "," for ch in text) and len(e.indices) == 1 or (
                    all(ch in _SUB for ch in text.replace(",", "")) and all(len(str(p)) == 1 for p in indices)):
                return prettyForm(str(base) + "".join(_SUB.get(ch, ch) for ch in text))
        return prettyForm(*base.right(self._print_seq(e.indices, "[", "]")))

    def call(self, name: str, args: Any) -> Any:
        """``name(arg, ...)`` with the name as it is (sympy would read a name ending in ``Norm`` as ‖·‖)."""
        from sympy.printing.pretty.stringpict import stringPict

        inside = prettyForm(*self._print_seq(args, delimiter=", ").parens())
        head = prettyForm(name)
        picture, baseline = stringPict.next(head, inside)
        form = prettyForm(picture, baseline, binding=prettyForm.FUNC)
        form.prettyFunc, form.prettyArgs = head, inside
        return form

    def emptyPrinter(self, expr: Any) -> Any:
        """An object sympy's pretty printer does not know (a catalog operator): ``name(args)`` with its
        arguments pretty-printed, not its ``str`` (which would show ``**`` and ``Matrix([...])``)."""
        from sympy import Basic

        if isinstance(expr, Basic) and expr.args:
            label = getattr(type(expr), "label", None)
            if isinstance(label, str) and hasattr(expr, "arg"):  # a row-wise operator: LN(X) as on the site
                return self.call(label, [expr.arg])
            name = type(expr).__name__
            if name == "HStack":  # blocks side by side: [A | B]
                parts = [self._print(a) for a in expr.args]
                form = parts[0]
                for part in parts[1:]:
                    form = prettyForm(*form.right(" │ ", part))
                return prettyForm(*form.parens("[", "]"))
            return self.call(OPERATOR_NAMES.get(name, name), expr.args)
        return super().emptyPrinter(expr)


def display_latex(expr: Any, **settings: Any) -> str:
    """LaTeX of ``expr`` in display order (settings as for :func:`sympy.latex`, e.g. ``symbol_names``)."""
    return DisplayLatexPrinter(settings).doprint(expr)


def display_pretty(expr: Any, **settings: Any) -> str:
    """The Unicode pretty print of ``expr`` in display order (settings as for :func:`sympy.pretty`)."""
    settings.setdefault("use_unicode", True)
    return DisplayPrettyPrinter(settings).doprint(expr)


def shown_expr(step: Any) -> Any:
    """What a surface shows for a step: its display form if it has one (``Step.display``), else its expression."""
    display = getattr(step, "display", None)
    return step.expr if display is None else display
