"""The numeric witness is bounded by counts of evaluated nodes, not by time: one evaluation at one point (and
precision) by :data:`derive.kernel.evaluate.MAX_POINT_WORK`, an identity cross-check by
:data:`derive.kernel.witness.CHECK_WORK` (no new point once it is spent)."""

from __future__ import annotations

import sympy as sp

from derive.kernel import evaluate, witness
from derive.kernel.points import Point

x = sp.Symbol("x", real=True)
a = sp.Symbol("a", positive=True)


def test_an_evaluation_over_the_node_cap_is_unknown_at_that_point(monkeypatch):
    monkeypatch.setattr(evaluate, "MAX_POINT_WORK", 500)
    heavy = sp.Integral(sp.exp(-a * x**2) * sp.cos(x), (x, 0, sp.oo))
    res = witness.compare_at(heavy, sp.sqrt(sp.pi / a) / 2 * sp.exp(-1 / (4 * a)), "=",
                             Point({a: sp.Rational(3, 2)}, 1), (30, 60))
    assert res.status == "unknown" and "500" in res.reason


def test_the_same_evaluation_under_the_cap_agrees():
    heavy = sp.Integral(sp.exp(-a * x**2) * sp.cos(x), (x, 0, sp.oo))
    res = witness.compare_at(heavy, sp.sqrt(sp.pi / a) / 2 * sp.exp(-1 / (4 * a)), "=",
                             Point({a: sp.Rational(3, 2)}, 1), (30, 60))
    assert res.status == "agree"


def test_a_cross_check_starts_no_point_once_its_work_is_spent(monkeypatch):
    """The Dirichlet integral at every point is an oscillatory quadrature: the check evaluated 29 points in 86 s
    before the count; with a small budget it stops after the first point that is over it."""
    b = sp.Symbol("b", real=True)
    claim = sp.Integral(sp.sin(b * x) / x, (x, 0, sp.oo)), sp.pi * sp.sign(b) / 2
    monkeypatch.setattr(witness, "CHECK_WORK", 1)
    w = witness.cross_check(*claim, "=", seed=1, n_random=20)
    assert w.evaluated + w.unknown == 1 and w.differ is None
