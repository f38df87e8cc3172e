"""The compiled plans of the evaluator (an operator's samples) give what node-by-node evaluation gives.

``evaluate.COMPILE`` switches the plans off: every value, the work counted (the caps of the witness are counts
of nodes, so a plan that counted differently would move the points a search reaches), the cancellation scale
and the flags must then be the same, at both precisions of a comparison.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp

from derive.kernel import evaluate
from derive.kernel.points import Point

x, t = sp.symbols("x t", real=True)
a = sp.Symbol("a", real=True)
s = sp.Symbol("s", positive=True)
k, j = sp.symbols("k j", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
z = sp.IndexedBase("z")

CASES = {
    "gaussian-moment": sp.Integral(t**2 * sp.exp(-t**2 / (2 * s**2)) / sp.sqrt(2 * sp.pi * s**2), (t, 0, sp.oo)),
    "relu-moment": sp.Integral(sp.Max(t, 0)**2 * sp.exp(-t**2 / 2) / sp.sqrt(2 * sp.pi), (t, -sp.oo, sp.oo)),
    "kink-integral": sp.Integral(sp.Abs(t - a) * sp.cos(t) + a**2, (t, -1, 2)),
    "nested-sum": sp.Sum(sp.exp(a * k) / (k**2 + 1) + sp.Sum(k * j / (j + 1), (j, 1, k)), (k, 1, 7)),
    "softmax-of-elements": sp.Sum(sp.exp(z[k]) * z[k + 1] / sp.Sum(sp.exp(z[j]), (j, 1, n)), (k, 1, n)),
    "element-integrand": sp.Integral(sp.exp(-t**2 * (1 + z[1]**2)) * z[2], (t, 0, 1)),
    "limit-at-infinity": sp.Limit((1 + a / t)**t, t, sp.oo),
    "limit-at-zero": sp.Limit(sp.sin(a * t) / t, t, 0),
    "derivative": sp.Derivative(sp.tanh(a * x**2), x),
    "series": sp.Sum(1 / k**2, (k, 1, sp.oo)),
    "undefined-term": sp.Sum(1 / (k - 3), (k, 1, 5)),
}


def _run(expr: sp.Expr, compiled: bool, digits: int) -> tuple:
    evaluate.COMPILE = compiled
    evaluate._PLANS.clear()
    point = Point({a: Fraction(-5, 7), s: Fraction(3, 2), x: Fraction(1, 3), n: Fraction(4)}, seed=11)
    ev = evaluate.Evaluator(digits, point.values, point.element)
    try:
        value = str(ev.value(expr))
    except (evaluate.NotEvaluable, evaluate.Undefined, evaluate.Unreliable) as exc:
        value = f"{type(exc).__name__}: {exc}"
    return (value, ev.visits, str(ev.magnitude), ev.approximate, ev.heuristic, ev.quadrature,
            sorted(map(str, point.elements.items())))


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_plan_evaluates_as_the_nodes_do(name: str) -> None:
    try:
        for digits in (30, 60):
            plain = _run(CASES[name], False, digits)
            compiled = _run(CASES[name], True, digits)
            assert compiled == plain
            assert plain[1] > 0
    finally:
        evaluate.COMPILE = True


def test_plans_are_made_and_reused() -> None:
    evaluate.COMPILE = True
    evaluate._PLANS.clear()
    first = _run(CASES["gaussian-moment"], True, 30)
    assert evaluate._PLANS  # the integrand was compiled
    made = len(evaluate._PLANS)
    point = Point({s: Fraction(3, 2)}, seed=11)
    ev = evaluate.Evaluator(30, point.values, point.element)
    assert str(ev.value(CASES["gaussian-moment"])) == first[0]
    assert ev.visits == first[1]
    assert len(evaluate._PLANS) == made  # the second evaluation reused the plans


def test_a_value_that_needs_more_work_than_the_cap_is_unreliable_with_plans(monkeypatch) -> None:
    monkeypatch.setattr(evaluate, "MAX_POINT_WORK", 500)
    for compiled in (False, True):
        value = _run(CASES["gaussian-moment"], compiled, 30)[0]
        assert value.startswith("Unreliable: evaluating it here took more than 500")
    evaluate.COMPILE = True
