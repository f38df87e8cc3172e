"""The verifier: true steps are proved, false ones refuted with a counterexample,
hard-but-true ones undecided (never passed)."""

from __future__ import annotations

import pytest
import sympy as sp

from derive import Derivation, Step, Substitute, Verdict
from derive import check as verify
from derive.exceptions import DerivationDefinitionError
from derive.verify import prove_relation

x, y = sp.symbols("x y", real=True)
c = sp.Symbol("c", real=True)
n = sp.Symbol("n", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
z = sp.IndexedBase("z", real=True)
w, pos, k = sp.Symbol("omega", positive=True), sp.Symbol("pos", real=True), sp.Symbol("k", real=True)


def one_step(start, expr, **kw):
    return Derivation(name="test.one-step", title="t", start=start, steps=(Step(expr, "claimed", **kw),))


def softmax_i(arg):
    return sp.exp(arg.subs(j, i)) / sp.Sum(sp.exp(arg), (j, 1, n))


WRONG = {
    # rotation matrix with the wrong sign
    "rotation-sign": (
        sp.ImmutableMatrix([sp.sin(w * (pos + k)), sp.cos(w * (pos + k))]),
        sp.ImmutableMatrix([[sp.cos(w * k), -sp.sin(w * k)], [sp.sin(w * k), sp.cos(w * k)]])
        * sp.ImmutableMatrix([sp.sin(w * pos), sp.cos(w * pos)]),
    ),
    # softmax(c z) = softmax(z)
    "softmax-scale": (softmax_i(c * z[j]), softmax_i(z[j])),
    # a dropped term
    "dropped-term": ((x + y) ** 2, x**2 + y**2),
    # a wrong power
    "wrong-power": (sp.exp(2 * x), sp.exp(x) ** 3),
    # shift by an index-dependent amount
    "shift-depends-on-index": (softmax_i(z[j] - j), softmax_i(z[j])),
    # dividing by d instead of sqrt(d)
    "scaling": (sp.sqrt(n) ** 2 / n**2, sp.Integer(1)),
}


@pytest.mark.parametrize("label", sorted(WRONG))
def test_wrong_step_is_refuted_with_counterexample(label):
    start, claimed = WRONG[label]
    report = verify(one_step(start, claimed), numeric=False)
    step = report.steps[0]
    assert step.verdict is Verdict.REFUTED, report
    assert step.counterexample is not None
    assert step.counterexample.point
    assert step.counterexample.lhs != step.counterexample.rhs
    assert not report.ok


def test_true_identities_proved_with_named_strategy():
    ok, strategy = prove_relation((x + y) ** 2, x**2 + 2 * x * y + y**2)
    assert ok and strategy == "expand"
    ok, strategy = prove_relation(sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1))
    assert ok and strategy in {"trigsimp-fu", "expand-trig", "rewrite-exp", "simplify"}
    ok, _ = prove_relation(softmax_i(z[j] - c), softmax_i(z[j]))
    assert ok


@pytest.mark.parametrize(
    "lhs, rhs",
    [
        # arctan x + arctan(1/x) = π/2 for x > 0: true, but no strategy closes it
        (sp.atan(sp.Symbol("t", positive=True)) + sp.atan(1 / sp.Symbol("t", positive=True)), sp.pi / 2),
        # cos(π/7) − cos(2π/7) + cos(3π/7) = 1/2
        (sp.cos(sp.pi / 7) - sp.cos(2 * sp.pi / 7) + sp.cos(3 * sp.pi / 7), sp.Rational(1, 2)),
    ],
    ids=["arctan-reflection", "heptagon-cosines"],
)
def test_true_but_beyond_sympy_is_undecided_not_proved(lhs, rhs):
    report = verify(one_step(lhs, rhs), numeric=False, budget=3)
    assert report.steps[0].verdict is Verdict.UNDECIDED
    assert "no counterexample" in report.steps[0].detail
    assert not report.ok


def test_inequality_steps():
    u = sp.Symbol("u", nonnegative=True)
    ok, _ = prove_relation(sp.exp(-u), sp.Integer(1), "<=")
    assert ok
    report = verify(one_step(sp.exp(x), sp.Integer(1), relation="<="), numeric=False)
    assert report.steps[0].verdict is Verdict.REFUTED


def test_rule_is_applied_not_trusted():
    f = sp.Function("f")
    good = one_step(f(x) + 1, x**2 + 1, rule=Substitute(((f, sp.Lambda(x, x**2)),), "f"))
    assert verify(good, numeric=False).ok
    bad = one_step(f(x) + 1, x**3 + 1, rule=Substitute(((f, sp.Lambda(x, x**2)),), "f"))
    report = verify(bad, numeric=False)
    assert report.steps[0].verdict is Verdict.REFUTED
    assert "substitute f" in report.steps[0].strategy


def test_float_rounding_does_not_refute_a_true_identity():
    # huge cancellation: float64 gives garbage, 60 digits do not
    big = sp.Integer(10) ** 20
    start = (x + big) - big
    report = verify(one_step(start, x), numeric=True)
    assert report.ok, report


def test_definition_errors():
    with pytest.raises(DerivationDefinitionError, match="dotted lower-case"):
        Derivation(name="Bad Name", title="t", start=x, steps=(Step(x, "same"),))
    with pytest.raises(DerivationDefinitionError, match="at least one step"):
        Derivation(name="a.b", title="t", start=x, steps=())
    with pytest.raises(DerivationDefinitionError, match="relation"):
        Step(x, "why", relation="~")
    with pytest.raises(DerivationDefinitionError, match="justification"):
        Step(x, "  ")


def test_report_json_is_stable_across_runs():
    a = verify(one_step((x + y) ** 2, x**2 + y**2)).to_dict()
    b = verify(one_step((x + y) ** 2, x**2 + y**2)).to_dict()
    for d in (a, b):
        d.pop("seconds")
        for s in d["steps"] + d["checks"]:
            s.pop("seconds")
    assert a == b


def test_finite_sums_are_unrolled_for_random_points():
    import sympy as sp

    from derive.numeric import _unroll_finite_sums

    i, j = sp.symbols("i j", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    assert _unroll_finite_sums(sp, sp.Sum(i**2, (i, 1, 3))) == 14
    nested = sp.Sum(sp.Sum(i * j, (j, 1, i)), (i, 1, 3))  # inner bound depends on the outer index
    assert _unroll_finite_sums(sp, nested) == nested.doit() == 25
    assert _unroll_finite_sums(sp, sp.Sum(i, (i, 1, 0))) == 0  # empty range
    for untouched in (sp.Sum(i, (i, 1, n)), sp.Sum(i, (i, 5, 1))):  # symbolic bound, reversed range
        assert _unroll_finite_sums(sp, untouched) == untouched
