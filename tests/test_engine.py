"""The verifier: true steps are proved, false ones refuted with a counterexample,
hard-but-true ones undecided (never passed)."""

from __future__ import annotations

import dataclasses

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
    assert ok and strategy in ("normalise → expand", "normalise → cancel")
    ok, strategy = prove_relation(sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1))
    first = strategy.removeprefix("normalise → ").split(" → ")[0]  # a rewriting, then the closer that ended it
    assert ok and first in {"trigsimp-fu", "expand-trig", "rewrite-exp", "simplify"}, strategy
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
    good = dataclasses.replace(one_step(f(x) + 1, x**2 + 1, rule=Substitute(((f, sp.Lambda(x, x**2)),), "f")),
                               definitions=((f(x), x**2),))
    assert verify(good, numeric=False).ok
    bad = dataclasses.replace(one_step(f(x) + 1, x**3 + 1, rule=Substitute(((f, sp.Lambda(x, x**2)),), "f")),
                              definitions=((f(x), x**2),))
    report = verify(bad, numeric=False)
    assert report.steps[0].verdict is Verdict.REFUTED
    assert "substitute f" in report.steps[0].strategy
    # the same substitution without the declared definition is not a primitive step: not proved
    undeclared = verify(one_step(f(x) + 1, x**2 + 1, rule=Substitute(((f, sp.Lambda(x, x**2)),), "f")),
                        numeric=False)
    assert undeclared.steps[0].verdict is Verdict.UNDECIDED
    assert "not declared" in undeclared.steps[0].detail


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
            s.pop("cpu_seconds", None)
    assert a == b


def test_finite_sums_are_unrolled_for_random_points():
    import sympy as sp

    from derive.kernel.strategies import unroll

    i, j = sp.symbols("i j", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    assert unroll(sp.Sum(i**2, (i, 1, 3))) == 14
    nested = sp.Sum(sp.Sum(i * j, (j, 1, i)), (i, 1, 3))  # inner bound depends on the outer index
    assert unroll(nested) == nested.doit() == 25
    assert unroll(sp.Sum(i, (i, 1, 0))) == 0  # empty range
    for untouched in (sp.Sum(i, (i, 1, n)), sp.Sum(i, (i, 5, 1))):  # symbolic bound, reversed range
        assert unroll(untouched) == untouched


# -- honest undecided: true claims beyond the strategies, and float64 that lies ------------------

t = sp.Symbol("t", positive=True)
BIG = sp.Integer(10) ** 30


@pytest.mark.parametrize(
    "lhs, rhs",
    [
        (sp.acos(x / 4) + sp.asin(x / 4), sp.pi / 2),
        (4 * sp.atan(sp.Rational(1, 5)) - sp.atan(sp.Rational(1, 239)), sp.pi / 4),  # Machin
        (sp.atan(sp.Rational(1, 2)) + sp.atan(sp.Rational(1, 3)), sp.pi / 4),
        # float64 calls these unequal (the 10^30 terms cancel), 60 digits do not
        (BIG * (sp.cos(sp.pi / 7) - sp.cos(2 * sp.pi / 7) + sp.cos(3 * sp.pi / 7)) - BIG / 2 + x, x),
        (BIG * (4 * sp.atan(sp.Rational(1, 5)) - sp.atan(sp.Rational(1, 239))) - BIG * sp.pi / 4 + x, x),
    ],
    ids=["acos-plus-asin", "machin", "atan-half-third", "heptagon-times-1e30", "machin-times-1e30"],
)
def test_true_identities_that_float64_would_refute_are_never_refuted(lhs, rhs):
    report = verify(one_step(lhs, rhs), numeric=False, budget=2)
    assert report.steps[0].verdict is not Verdict.REFUTED, report
    if report.steps[0].verdict is Verdict.UNDECIDED:
        assert "no counterexample" in report.steps[0].detail
    if lhs.has(BIG):  # float64 arithmetic alone would have refuted these
        point = {x: 0.5}
        in_float64 = float(lhs.subs(point).evalf(15, chop=False)), float(rhs.subs(point))
        assert abs(float(sp.N(lhs.subs(point), 17)) - in_float64[1]) >= 0  # the 60-digit value is the one used


@pytest.mark.parametrize(
    "lhs, rhs",
    [
        # e^1000·(1 + x e^-1000) − e^1000 = x: float64 overflows; plain evalf(60) returned 0.e+244,
        # which the confirmation once read as a number and so "refuted" a true identity
        (sp.exp(1000) * (1 + x * sp.exp(-1000)) - sp.exp(1000), x),
        # needs ~10^8 digits: sympy cannot guarantee 60, so the point proves nothing either way
        (sp.exp(sp.exp(20)) * (1 + x * sp.exp(-sp.exp(20))) - sp.exp(sp.exp(20)), x),
        # (1 − cos ε)·10^24 against 2 sin²(ε/2)·10^24 with ε ≈ 10^-12: float64 cancellation
        ((1 - sp.cos(x / 10**12)) * 10**24, 2 * sp.sin(x / (2 * 10**12)) ** 2 * 10**24),
        # 0/0 at x = 1 (undefined points are skipped, not counterexamples)
        ((x**2 - 1) / (x - 1), x + 1),
    ],
    ids=["exp-1000-cancellation", "exp-exp-20-cancellation", "one-minus-cos-tiny", "removable-singularity"],
)
def test_catastrophic_cancellation_never_refutes_a_true_identity(lhs, rhs):
    from derive.kernel import witness

    assert witness.search(lhs, rhs, "=", 0).differ is None


def test_a_claim_off_by_one_part_in_1e30_is_refuted_with_digits_that_show_it():
    report = verify(one_step((1 + sp.Rational(1, 10**30)) * x, x), numeric=False)
    cex = report.steps[0].counterexample
    assert report.steps[0].verdict is Verdict.REFUTED
    assert cex.lhs != cex.rhs and len(cex.lhs) > 30  # printed with enough digits to differ


def test_random_points_respect_every_assumption():
    from derive.kernel.points import generate

    even = sp.Symbol("e", integer=True, even=True)
    prime = sp.Symbol("p", integer=True, prime=True)
    odd_len = sp.Symbol("n", integer=True, odd=True, positive=True)
    irrational = sp.Symbol("r", irrational=True)
    z = sp.IndexedBase("z", real=True)
    for point in generate([even + prime, sp.Sum(z[j], (j, 1, odd_len))], 0, 6, 20, 2):
        v = point.values
        assert v[even] % 2 == 0 and sp.isprime(int(v[prime])) and v[odd_len] % 2 == 1
    for point in generate([irrational + 1], 0, 3, 5, 0):
        assert irrational not in point.values


def test_step_report_carries_its_seed_and_differs_by_seed():
    a = verify(one_step((x + y) ** 2, x**2 + y**2), seed=1, numeric=False)
    b = verify(one_step((x + y) ** 2, x**2 + y**2), seed=2, numeric=False)
    assert a.seed == 1 and b.seed == 2 and a.steps[0].seed != b.steps[0].seed
    assert a.steps[0].counterexample.point != b.steps[0].counterexample.point


def test_termwise_sum_comparison_needs_a_range_of_nonnegative_length():
    """Σ_{j=1}^{m} e^{-u_j} ≤ Σ_{j=1}^{m} 1 holds for m ≥ 0 but not for m = −3 (sympy's reversed-range sum)."""
    u = sp.IndexedBase("u", nonnegative=True)
    m = sp.Symbol("m", integer=True)
    lhs = sp.Sum(sp.exp(-u[j]), (j, 1, m))
    assert lhs.subs(m, -3).doit().subs({u[0]: 1, u[-1]: 1, u[-2]: 1}) > sp.Sum(1, (j, 1, -3)).doit()
    report = verify(one_step(lhs, sp.Sum(sp.Integer(1), (j, 1, m)), relation="<="), numeric=False, budget=2)
    assert report.steps[0].verdict is not Verdict.PROVED
    ok, _ = prove_relation(sp.Sum(sp.exp(-u[j]), (j, 1, n)), sp.Sum(sp.Integer(1), (j, 1, n)), "<=")
    assert ok  # n ≥ 1: the termwise comparison stands


@pytest.mark.parametrize("size", [2, sp.Symbol("m", integer=True, positive=True)], ids=["2x2", "m-by-m"])
def test_matrix_symbols_are_checked_at_random_explicit_matrices(size):
    A, B = sp.MatrixSymbol("A", size, size), sp.MatrixSymbol("B", size, size)
    wrong = verify(one_step((A * B).T, A.T * B.T))  # the transpose of a product does not keep the order
    assert wrong.steps[0].verdict is Verdict.REFUTED and "A[0, 0]=" in str(wrong.steps[0].counterexample)
    right = verify(one_step((A * B).T, B.T * A.T))
    assert right.ok and right.checks[0].figures["points"] >= 20


def test_a_step_that_breaks_the_verifier_is_undecided_not_a_crash():
    from derive.rules import Rule

    class Broken(Rule):
        name = "broken"

        def apply(self, expr):
            return [expr]  # not an expression: the comparison cannot even be formed

    report = verify(one_step(x, x + 1, rule=Broken()), numeric=False)
    assert report.steps[0].verdict is Verdict.REFUTED and not report.ok
    assert "proposal" in report.steps[0].detail or "proposed nothing" in report.steps[0].detail
    # a broken proposer cannot stop the kernel from proving a true step (flagged vacuous here)
    same = verify(one_step(x, x, rule=Broken()), numeric=False)
    assert same.ok and same.steps[0].vacuous


def test_a_step_the_numeric_probe_cannot_evaluate_still_gets_every_strategy():
    """The chain rule on undefined functions (as in norms.pre-ln-post-ln): the early counterexample
    probe raises (a derivative with respect to a number), the later strategies must still run."""
    from derive import Evaluate

    u = sp.Symbol("u", real=True)
    ln, f = sp.Function("LN"), sp.Function("F")
    start = sp.ImmutableMatrix([sp.Derivative(x + f(ln(x)), x), sp.Derivative(ln(x + f(x)), x)])
    end = sp.ImmutableMatrix([1 + sp.Subs(sp.Derivative(f(u), u), u, ln(x)) * sp.Derivative(ln(x), x),
                              sp.Subs(sp.Derivative(ln(u), u), u, x + f(x)) * (1 + sp.Derivative(f(x), x))])
    report = verify(one_step(start, end, rule=Evaluate("the derivatives")), numeric=False)
    assert report.ok, report


def test_a_transform_that_changes_the_value_is_refuted():
    """Transform runs any callable; one that is not value-preserving cannot prove a step."""
    from derive import Transform

    bogus = Transform(lambda e: e.subs(x, 0), "drop x")
    report = verify(one_step((x + y) ** 2, y**2, rule=bogus), numeric=False)
    step = report.steps[0]
    assert step.verdict is Verdict.REFUTED and "not proved equal to its input" in step.detail
    assert step.counterexample is not None
    fine = Transform(sp.expand, "expand")
    assert verify(one_step((x + y) ** 2, x**2 + 2 * x * y + y**2, rule=fine), numeric=False).ok


def test_report_cache_key_depends_on_the_screen_tolerances():
    """A report verified with one rtol must not be served for another."""
    from derive.cache import derivation_key

    d = one_step((x + y) ** 2, x**2 + 2 * x * y + y**2)

    def key(**kw):
        return derivation_key(d, seed=1, budget=5.0, **kw)

    assert key() == key(atol=1e-12, rtol=1e-9)  # the defaults
    assert key(rtol=1e-6) != key() != key(atol=1e-3)


def test_derivative_steps_are_evaluated_and_checked_at_points():
    # the derivative is taken before the random point is put in
    good = one_step(sp.Derivative(sp.sin(x) ** 2, x), 2 * sp.sin(x) * sp.cos(x))
    report = verify(good)
    assert report.ok, report
    assert report.steps[0].strategy.startswith("normalise")
    assert report.steps[0].witness.startswith("mpmath agrees")
    assert report.checks[0].figures["points"] > 0
    bad = one_step(sp.Derivative(sp.sin(x) ** 2, x), 2 * sp.sin(x))
    report = verify(bad, numeric=False)
    assert report.steps[0].verdict is Verdict.REFUTED


def test_report_str_is_readable():
    report = verify(one_step((x + y) ** 2, x**2 + y**2), numeric=False)
    text = str(report)
    assert text.splitlines()[0].startswith("test.one-step: refuted")
    assert "step 1: refuted" in text and "at x=" in text
