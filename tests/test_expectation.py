"""The expectation rules: each law applied mechanically, and misapplications not proved."""

from __future__ import annotations

import pytest
import sympy as sp

from derive import Derivation, Step, Verdict
from derive import check as verify
from derive.expectation import (
    E,
    ExpandSquare,
    Independence,
    Linearity,
    Moments,
    RandomModel,
    SplitDiagonal,
    Var,
    VarianceDefinition,
)

n = sp.Symbol("n", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)
q, k = sp.IndexedBase("q", real=True), sp.IndexedBase("k", real=True)
a = sp.Symbol("a", real=True)
mq, mk = sp.symbols("mu_q mu_k", real=True)
sq, sk = sp.symbols("sigma_q sigma_k", positive=True)
MODEL = RandomModel(((q, mq, sq**2), (k, mk, sk**2)))
X = sp.Sum(q[i] * k[i], (i, 1, n))


def one_step(start, expr, rule):
    return Derivation(name="test.expectation", title="t", start=start, steps=(Step(expr, "claimed", rule=rule),),
                      auto_identity_check=False)


def test_variance_definition():
    assert VarianceDefinition().apply(Var(X)) == E(X**2) - E(X) ** 2


def test_expand_square_gives_a_double_sum_with_a_fresh_index():
    out = ExpandSquare().apply(E(X**2))
    assert out == E(sp.Sum(q[i] * k[i] * q[j] * k[j], (j, 1, n), (i, 1, n)))
    # a sum that is not squared is left alone
    assert ExpandSquare().apply(E(X)) == E(X)


def test_split_diagonal_is_value_preserving_at_concrete_length():
    g = q[i] * q[j] + i * j
    double = sp.Sum(g, (j, 1, n), (i, 1, n))
    split = SplitDiagonal().apply(double)
    assert split == (sp.Sum(q[i] ** 2 + i**2, (i, 1, n))
                     + sp.Sum(sp.Sum(g, (j, 1, i - 1)) + sp.Sum(g, (j, i + 1, n)), (i, 1, n)))
    for length in (1, 2, 4):
        assert sp.expand((double - split).subs(n, length).doit()) == 0


def test_linearity_over_sums_constants_and_adds():
    rule = Linearity(MODEL)
    assert rule.apply(E(X)) == sp.Sum(E(q[i] * k[i]), (i, 1, n))
    assert rule.apply(E(a * q[1] + 3)) == a * E(q[1]) + 3
    assert rule.apply(E(a)) == a
    assert rule.apply(E((q[1] + a) * k[1])) == E(q[1] * k[1]) + a * E(k[1])


def test_independence_factors_distinct_variables_only():
    rule = Independence(MODEL)
    assert rule.apply(E(q[i] * k[i])) == E(q[i]) * E(k[i])
    assert rule.apply(E(q[i] ** 2 * k[i] ** 2)) == E(q[i] ** 2) * E(k[i] ** 2)
    assert rule.apply(E(q[1] * q[2])) == E(q[1]) * E(q[2])
    # i and j might be equal: left alone
    assert rule.apply(E(q[i] * q[j])) == E(q[i] * q[j])
    # j > i inside the sum's limits: distinct, when the range is known not to be reversed (i ≤ n from
    # the outer sum; with Karr's convention a reversed range i + 1 > n + 1 would sum j over n+1..i, i included)
    inside = sp.Sum(sp.Sum(E(q[i] * q[j]), (j, i + 1, n)), (i, 1, n))
    assert rule.apply(inside) == sp.Sum(sp.Sum(E(q[i]) * E(q[j]), (j, i + 1, n)), (i, 1, n))
    below = sp.Sum(sp.Sum(E(q[i] * q[j]), (j, 1, i - 1)), (i, 1, n))
    assert rule.apply(below) == sp.Sum(sp.Sum(E(q[i]) * E(q[j]), (j, 1, i - 1)), (i, 1, n))
    alone = sp.Sum(E(q[i] * q[j]), (j, i + 1, n))  # i free: i > n is possible, the range may be reversed
    assert rule.apply(alone) == alone
    # the full range includes j = i: left alone
    full = sp.Sum(E(q[i] * q[j]), (j, 1, n))
    assert rule.apply(full) == full


def test_moments():
    rule = Moments(MODEL)
    assert rule.apply(E(q[i])) == mq
    assert rule.apply(E(k[3] ** 2)) == sk**2 + mk**2
    assert rule.apply(E(q[i] ** 3)) == E(q[i] ** 3)  # no third moment is known


def test_correct_application_is_proved():
    report = verify(one_step(E(q[i] * k[i]), E(q[i]) * E(k[i]), Independence(MODEL)), numeric=False)
    assert report.ok, report


@pytest.mark.parametrize(
    "start, claimed, rule",
    [
        # E[q_i q_j] = E[q_i]E[q_j] without knowing i ≠ j
        (E(q[i] * q[j]), E(q[i]) * E(q[j]), Independence(MODEL)),
        # E[q_i²] = E[q_i]²: a variable is not independent of itself
        (E(q[i] ** 2), E(q[i]) ** 2, Independence(MODEL)),
        # the square of a sum as the sum of squares
        (E(X**2), E(sp.Sum(q[i] ** 2 * k[i] ** 2, (i, 1, n))), ExpandSquare()),
        # Var(X) = E[X²]: the mean term dropped
        (Var(X), E(X**2), VarianceDefinition()),
        # pulling a random factor out of E as if it were constant
        (E(q[1] * k[1]), q[1] * E(k[1]), Linearity(MODEL)),
    ],
    ids=["independence-same-index", "independence-self", "square-of-sum", "variance-no-mean", "linearity-random"],
)
def test_misapplication_is_not_proved(start, claimed, rule):
    report = verify(one_step(start, claimed, rule), numeric=False)
    assert report.steps[0].verdict in (Verdict.UNDECIDED, Verdict.REFUTED)
    assert not report.ok


def test_wrong_moment_is_refuted_with_a_counterexample():
    # E[q_i²] = σ_q² (the mean's square forgotten): numeric after the rule, so refuted
    report = verify(one_step(E(q[i] ** 2), sq**2, Moments(MODEL)), numeric=False)
    assert report.steps[0].verdict is Verdict.REFUTED
    assert report.steps[0].counterexample is not None


def test_operators_have_no_numeric_value():
    from fractions import Fraction

    import pytest

    from derive.kernel.evaluate import Evaluator, NotEvaluable

    for op in (E(sp.Rational(1, 2)), Var(sp.Integer(3))):
        with pytest.raises(NotEvaluable):
            Evaluator(30, {}, lambda key, obj: Fraction(0)).value(op)
    assert sp.latex(E(q[i])) == r"\mathbb{E}\left[{q}_{i}\right]"
    assert str(Var(q[i])) == "Var(q[i])"
    assert sp.latex(E(q[i]) ** 2) == r"\mathbb{E}\left[{q}_{i}\right]^{2}"
