"""The author's order on every surface (:mod:`derive.render.order`): no sum opens with a minus sign when a
term is positive, a fraction times a sum holding it stays s_i(δ_ij − s_j), a number before a fraction gets a
dot, and a float in math is n × 10^k."""

from __future__ import annotations

import re

import pytest
import sympy as sp

from derive import registry
from derive.render.latex import claim_latex, derivation_latex, expr_latex
from derive.render.order import DisplayLatexPrinter, display_latex, display_pretty, shown_expr


@pytest.fixture(scope="module")
def catalog():
    registry.load_catalog()
    return registry


def test_a_sum_starts_with_a_positive_term():
    c, z, a, t = sp.symbols("c z a t")
    assert display_latex(z - c) == "z - c"
    assert sp.latex(z - c) == "- c + z"  # what sympy alone prints
    assert display_latex(sp.Max(0, a * t) - a * sp.Max(0, t)) == r"\max\left(0, a t\right) - a \max\left(0, t\right)"
    assert display_latex(-a - t) == "- a - t"  # nothing positive to put first
    assert display_pretty(z - c) == "z - c"


def test_an_unevaluated_sum_keeps_the_order_written():
    x, y = sp.symbols("x y")
    assert display_latex(sp.Add(y, x, evaluate=False)) == "y + x"
    assert display_latex(sp.Add(-x, y, evaluate=False)) == "- x + y"


def test_a_number_before_a_fraction_is_not_a_mixed_number():
    expr = sp.Mul(1, sp.Pow(sp.Pow(10000, sp.Rational(1, 2), evaluate=False), -1, evaluate=False), evaluate=False)
    assert display_latex(expr) == r"1 \cdot \frac{1}{\sqrt{10000}}"
    assert not re.search(r"\d \\frac", display_latex(expr))


def test_catalog_softmax_jacobian_reads_s_i_times_delta_minus_s_j(catalog):
    d = catalog.get("softmax.jacobian")
    end = expr_latex(shown_expr(d.steps[-1]))
    assert end == (r"\frac{e^{{z}_{i}}}{\sum_{l=1}^{n} e^{{z}_{l}}} \left(\delta_{i j} - "
                   r"\frac{e^{{z}_{j}}}{\sum_{l=1}^{n} e^{{z}_{l}}}\right)")
    step2 = expr_latex(d.steps[1].expr)
    assert step2.startswith(r"\frac{e^{{z}_{i}} \delta_{i j}}{")


def test_catalog_claims_in_the_authors_order(catalog):
    relu = claim_latex(catalog.get("ffn.relu-homogeneity"))
    assert relu.startswith(r"\max\left(0, a t\right) - a \max\left(0, t\right)")
    # the variance chain lives in the general law (attention.score-variance cites it with c = 1)
    variance = derivation_latex(catalog.get("attention.score-variance-general"))
    assert r"\mathbb{E}\left[c^{2} \left(\sum_{i=1}^{d_k} {k}_{i} {q}_{i}\right)^{2}\right] - \mathbb{E}" in variance
    assert r"&= - \mathbb{E}" not in variance
    shift = claim_latex(catalog.get("softmax.shift-invariance"))
    assert shift.startswith(r"\frac{e^{{z}_{i} - c}}{\sum_{j=1}^{n} e^{{z}_{j} - c}}")
    pe = derivation_latex(catalog.get("example.pe-table"))
    assert r"\sin{\left(1 \cdot \frac{1}{\sqrt{10000}} \right)}" in pe
    assert not re.search(r"(?<![\w.^_{])\d+ \\frac", pe)


def test_no_sum_in_the_catalog_opens_with_a_minus_sign_when_a_term_is_positive(catalog):
    printer, opened, sums = DisplayLatexPrinter(), [], 0
    for entry in catalog.entries():
        d = catalog.get(entry.name)
        for expr in [d.start, *(shown_expr(s) for s in d.steps), *(rhs for _, rhs in d.definitions)]:
            items = list(expr) if isinstance(expr, sp.MatrixBase) else [expr]
            for item in items:
                for node in sp.preorder_traversal(item) if isinstance(item, sp.Basic) else ():
                    if isinstance(node, sp.Add) and any(not t.could_extract_minus_sign() for t in node.args):
                        sums += 1
                        if printer.doprint(node).startswith("- ") and not _unevaluated(node):
                            opened.append((entry.name, printer.doprint(node)[:60]))
    assert sums > 100
    assert opened == []


def _unevaluated(node):
    return sp.Add(*node.args).args != node.args


def test_a_display_form_on_a_step_is_what_is_printed():
    class Shown:
        expr = sp.Symbol("x") - sp.Symbol("c")
        display = sp.Add(-sp.Symbol("c"), sp.Symbol("x"), evaluate=False)

    assert shown_expr(Shown()) is Shown.display
    assert display_latex(shown_expr(Shown())) == "- c + x"


def test_a_float_in_math_is_a_power_of_ten():
    from derive.sphinxext.content import number_tex

    assert number_tex("8.81618923611111e-5") == r"8.81618923611111 \times 10^{-5}"
    assert number_tex(0.25) == "0.25"
    assert number_tex("1e+12") == r"1 \times 10^{12}"
