"""A random point on an isolated pole is not "a region where the sides differ" (issue 19, breaker item 2).

The witness of a proof reads a random point where one side is undefined and the other has a value as a
difference on a region; a random rational can land on a pole of a nested fraction, which the cancelled form
does not have, so the verdict depended on the seed (the derivation's name). Points next to it decide.
"""

from fractions import Fraction

import pytest
import sympy as sp

from derive import Derivation, Step
from derive.kernel import witness
from derive.kernel.points import Point
from derive.report import Verdict
from derive.verify import verify

x = sp.Symbol("x", real=True)


def _nested(levels):
    e = x
    for _ in range(levels):
        e = 1 / (1 + e)
    return e


def test_a_pole_of_one_form_is_isolated():
    e = _nested(3)  # 1/(1 + 1/(1 + 1/(1 + x))): at x = −2 the innermost 1 + 1/(1 + x) is 0
    point = Point({x: Fraction(-2)}, 1)
    assert witness.compare_at(e, sp.cancel(e), "=", point, (30, 60)).status == "undefined"
    assert witness._undefined_side(e, sp.cancel(e), point, 30) == "left"
    near = witness._nearby(e, sp.cancel(e), "=", point, (30, 60), True, witness.NONE)
    assert near is not None and near.status == "agree"
    assert near.point.values[x] == Fraction(-2) + Fraction(1, 1009)


def test_undefined_on_a_region_stays_a_difference():
    lhs = sp.Piecewise((x, x > 0))  # no value for x ≤ 0
    point = Point({x: Fraction(-1, 3)}, 1)
    assert witness._undefined_side(lhs, x, point, 30) == "left"
    assert witness._nearby(lhs, x, "=", point, (30, 60), True, witness.NONE) is None


def test_a_wrong_form_next_to_the_pole_is_a_difference():
    e = _nested(3)
    point = Point({x: Fraction(-2)}, 1)
    near = witness._nearby(e, sp.cancel(e) + 1, "=", point, (30, 60), True, witness.NONE)
    assert near is not None and near.status == "differ"


@pytest.mark.parametrize("name", ["breaker.alg.deep-fraction-true", "breaker.alg.deep-fraction-true-renamed",
                                  "t.nested.fraction", "t.continued-fraction.seven"])
def test_nested_fraction_verdict_does_not_depend_on_the_name(name):
    e = _nested(7)
    r = verify(Derivation(name=name, title="t", start=e, steps=(Step(sp.cancel(e), "cancel"),)))
    assert r.steps[0].verdict is Verdict.PROVED, r.steps[0]
