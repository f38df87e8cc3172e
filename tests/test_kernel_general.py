"""The two primitives that make laws general: LimitLaws (limits of sums of symbolic length) and Reindex."""

import pytest
import sympy as sp

from derive.core import Derivation, Step
from derive.kernel.limit_laws import LimitLaws
from derive.kernel.permutations import Reindex, permutation
from derive.report import Verdict
from derive.verify import verify_step

x = sp.Symbol("x", real=True)
g = sp.Symbol("g", nonnegative=True)
j = sp.Symbol("j", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
z = sp.IndexedBase("z", real=True)


def _step(before, after, rule, budget=4.0):
    return verify_step(before, Step(after, "test", rule=rule), budget=budget)


@pytest.mark.parametrize("before, after", [
    # a quotient of limits whose denominator tends to 0
    (sp.Limit(sp.sin(x) / x, x, 0), sp.Limit(sp.sin(x), x, 0) / sp.Limit(x, x, 0)),
    # a part without a limit
    (sp.Limit(x * sp.sin(1 / x), x, 0), sp.Limit(x, x, 0) * sp.Limit(sp.sin(1 / x), x, 0)),
    # oo − oo
    (sp.Limit(x**2 - x, x, sp.oo), sp.Limit(x**2, x, sp.oo) - sp.Limit(x, x, sp.oo)),
    # the number of terms grows with the limit variable
    (sp.Limit(sp.Sum(1 / x, (j, 1, x)), x, sp.oo), sp.Sum(sp.Limit(1 / x, x, sp.oo), (j, 1, x))),
    # g may be 0: the limit of e^(−g x) is not 0 everywhere
    (sp.Limit(sp.exp(-g * x) + 1, x, sp.oo), sp.Integer(1)),
])
def test_limit_laws_refuse_to_prove_outside_their_conditions(before, after):
    assert _step(before, after, LimitLaws()).verdict is not Verdict.PROVED


def test_limit_laws_prove_a_limit_of_a_sum_of_symbolic_length():
    T = sp.Symbol("T", positive=True)
    i = sp.Symbol("i", integer=True, positive=True)
    before = sp.Limit(sp.exp(z[i] / T) / sp.Sum(sp.exp(z[j] / T), (j, 1, n)), T, sp.oo)
    after = sp.Limit(sp.exp(z[i] / T), T, sp.oo) / sp.Sum(sp.Limit(sp.exp(z[j] / T), T, sp.oo), (j, 1, n))
    assert _step(before, after, LimitLaws(), budget=10.0).verdict is Verdict.PROVED  # the default budget
    # a wrong pushed form is not accepted because the rule was named
    wrong = sp.Limit(sp.exp(z[i] / T), T, sp.oo) / sp.Sum(sp.Limit(sp.exp(z[j] / T), T, sp.oo), (j, 1, n + 1))
    assert _step(before, wrong, LimitLaws()).verdict is not Verdict.PROVED


def test_limit_laws_push_a_constant_power():
    before = sp.Limit((1 + 1 / x) ** 2, x, sp.oo)
    assert _step(before, sp.Limit(1 + 1 / x, x, sp.oo) ** 2, LimitLaws()).verdict is Verdict.PROVED


def test_reindex_needs_a_declared_permutation_of_the_same_range():
    pi = permutation("pi_test", 1, n)
    m = sp.Symbol("m", integer=True, positive=True)
    before = sp.Sum(sp.exp(z[pi(j)]), (j, 1, n))
    assert _step(before, sp.Sum(sp.exp(z[j]), (j, 1, n)), Reindex(pi, j)).verdict is Verdict.PROVED
    # another range than the declared one
    other = sp.Sum(sp.exp(z[pi(j)]), (j, 1, m))
    assert _step(other, sp.Sum(sp.exp(z[j]), (j, 1, m)), Reindex(pi, j)).verdict is not Verdict.PROVED
    # j also appears outside π(j): Σ_j j·z_π(j) is not Σ_j j·z_j
    mixed = sp.Sum(j * z[pi(j)], (j, 1, n))
    assert _step(mixed, sp.Sum(j * z[j], (j, 1, n)), Reindex(pi, j)).verdict is not Verdict.PROVED
    # an undeclared function is no permutation
    f = sp.Function("f_test")
    assert _step(sp.Sum(z[f(j)], (j, 1, n)), sp.Sum(z[j], (j, 1, n)), Reindex(f, j)).verdict is not Verdict.PROVED
    with pytest.raises(ValueError, match="already declared"):
        permutation("pi_test", 0, n)


def test_instance_field_is_text_and_shown_in_the_terminal():
    from derive.exceptions import DerivationDefinitionError
    from derive.render.text import derivation_text

    d = Derivation(name="t.instance", title="A law, for n = 2", start=x, steps=(Step(x + 0, "nothing"),),
                   instance="n = 2")
    assert "Proves an instance only: n = 2" in derivation_text(d)
    with pytest.raises(DerivationDefinitionError, match="instance must be text"):
        Derivation(name="t.instance", title="t", start=x, steps=(Step(x, "s"),), instance=3)


def test_catalog_laws_are_general_or_say_they_are_instances(catalog):
    """The derivations the lectures state for any size use symbolic sizes; an instance names itself."""
    from derive import registry

    for name in ("attention.permutation-equivariance", "softmax.saturation", "residual.zero-init",
                 "residual.jacobian", "norms.pre-ln-post-ln", "softmax.temperature-zero",
                 "softmax.temperature-zero-ties", "softmax.temperature-infinity", "ffn.swiglu",
                 "ffn.bias-free-homogeneity"):
        d = catalog.get(name)
        assert not d.instance, name
        sizes = {s for e in (d.start, d.end) for s in sp.sympify(e).free_symbols
                 if s.name in ("n", "d_model", "d_ff", "m")}
        sizes |= {b for s in sp.sympify(d.start).atoms(sp.Sum) for b in s.limits[0][2].free_symbols}
        shapes = [m.shape for m in sp.sympify(d.start).atoms(sp.MatrixSymbol)]
        assert sizes or any(dim.free_symbols for sh in shapes for dim in sh), name
    for name in registry.names():
        d = catalog.get(name)
        if d.instance:
            assert " for " in d.title, (name, d.title)


def _verdict(before, after, rule):
    return verify_step(before, Step(after, "test", rule=rule), budget=4.0).verdict


def test_merge_sums_joins_adjacent_ranges_only():
    from derive.kernel.sum_moves import MergeSums

    k = sp.Symbol("k", integer=True, positive=True)
    f = sp.exp(z[j])
    assert _verdict(sp.Sum(f, (j, 1, k - 1)) + f.subs(j, k) + sp.Sum(f, (j, k + 1, n)), sp.Sum(f, (j, 1, n)),
                    MergeSums()) is Verdict.PROVED
    assert _verdict(sp.Sum(f, (j, 1, k)) + sp.Sum(f, (j, k + 1, n)), sp.Sum(f, (j, 1, n)),
                    MergeSums()) is Verdict.PROVED
    # a gap between the ranges, or different summands
    assert _verdict(sp.Sum(f, (j, 1, k)) + sp.Sum(f, (j, k + 2, n)), sp.Sum(f, (j, 1, n)),
                    MergeSums()) is not Verdict.PROVED
    assert _verdict(sp.Sum(f, (j, 1, k)) + sp.Sum(2 * f, (j, k + 1, n)), sp.Sum(f, (j, 1, n)),
                    MergeSums()) is not Verdict.PROVED


def test_exchange_sums_needs_independent_ranges():
    from derive.kernel.sum_moves import ExchangeSums

    b, c, i = (sp.Symbol(s, integer=True, positive=True) for s in "bci")
    d_v = sp.Symbol("d_v", integer=True, positive=True)
    A, dO, V = (sp.IndexedBase(s, real=True) for s in ("A", "dO", "V"))
    before = sp.Sum(A[i, b] * sp.Sum(dO[i, c] * V[b, c], (c, 1, d_v)), (b, 1, n))
    after = sp.Sum(sp.Sum(A[i, b] * dO[i, c] * V[b, c], (b, 1, n)), (c, 1, d_v))
    assert _verdict(before, after, ExchangeSums(b)) is Verdict.PROVED
    # a triangle is not a rectangle: Σ_b Σ_{c ≤ b} is not Σ_c Σ_b with the same bounds
    tri = sp.Sum(sp.Sum(z[c], (c, 1, b)), (b, 1, n))
    assert _verdict(tri, sp.Sum(sp.Sum(z[c], (b, 1, n)), (c, 1, b)), ExchangeSums(b)) is not Verdict.PROVED


def test_range_cases_use_the_range_of_a_sum_that_is_not_reversed():
    from derive.kernel.sum_moves import RangeCases

    p, r = (sp.Symbol(s, integer=True, positive=True) for s in "pr")
    q, l_ = sp.Symbol("q", integer=True), sp.Symbol("l", integer=True)
    masked = sp.exp(sp.Piecewise((z[l_], l_ <= p), (-sp.oo, True)))
    assert _verdict(sp.Sum(masked, (l_, p + 1, p + r)), sp.Integer(0), RangeCases()) is Verdict.PROVED
    assert _verdict(sp.Sum(masked, (l_, 1, p)), sp.Sum(sp.exp(z[l_]), (l_, 1, p)), RangeCases()) is Verdict.PROVED
    # the range reaches past p: not every term is visible
    assert _verdict(sp.Sum(masked, (l_, 1, p + 1)), sp.Sum(sp.exp(z[l_]), (l_, 1, p + 1)),
                    RangeCases()) is not Verdict.PROVED
    # q..p may be reversed (q > p + 1), and a reversed Karr sum runs over p + 1..q − 1
    assert _verdict(sp.Sum(masked, (l_, q, p)), sp.Sum(sp.exp(z[l_]), (l_, q, p)), RangeCases()) is not Verdict.PROVED


def test_a_display_form_must_equal_the_step():
    a, b = sp.symbols("a b", real=True)
    assert verify_step(a - b, Step(a - b, "same", display=sp.Add(a, -b, evaluate=False))).verdict is Verdict.PROVED
    shown_wrong = verify_step(a - b, Step(a - b, "same", display=sp.Add(b, -a, evaluate=False)))
    assert shown_wrong.verdict is Verdict.UNDECIDED and "display form" in shown_wrong.detail
