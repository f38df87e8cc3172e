"""Capture-avoiding substitution of definitions and premises under binders (issue 19, breaker item 1).

``c := k`` used inside ``Σ_{k=1}^{3} c`` means the outer ``k``: the sum is ``3k``, not ``1 + 2 + 3``.
"""

import pytest
import sympy as sp

from derive import Derivation, Step
from derive.kernel.binders import rename_bound, substitute
from derive.kernel.primitives import Substitute
from derive.report import Verdict
from derive.verify import verify

x = sp.Symbol("x", real=True)
c = sp.Symbol("c", real=True)
k = sp.Symbol("k", integer=True)
n = sp.Symbol("n", integer=True, positive=True)


def _verdict(name, start, end, **kw):
    d = Derivation(name=name, title="t", start=start, steps=(Step(end, "claimed"),), **kw)
    return verify(d).steps[0]


@pytest.mark.parametrize("start, false, true, defs", [
    (sp.Sum(c, (k, 1, 3)), sp.Integer(6), 3 * k, ((c, k),)),
    (sp.Integral(c, (x, 0, 1)), sp.Rational(1, 2), x, ((c, x),)),
])
def test_definition_under_a_binder_of_its_own_symbol(start, false, true, defs):
    bad = _verdict("t.capture-false", start, false, definitions=defs)
    assert bad.verdict is not Verdict.PROVED, bad
    assert bad.verdict is Verdict.REFUTED
    good = _verdict("t.capture-true", start, true, definitions=defs)
    assert good.verdict is not Verdict.REFUTED, good
    assert good.verdict is Verdict.PROVED


def test_premise_bound_under_a_binder_of_its_own_symbol():
    # x ≥ k is used as x = k + t with t ≥ 0: the sum's own k is another variable (truly 3x)
    start = sp.Sum(x, (k, 1, 3))
    bad = _verdict("t.capture-shift-false", start, 6 + 3 * (x - k), premises=(sp.Ge(x, k),))
    assert bad.verdict is not Verdict.PROVED, bad
    good = _verdict("t.capture-shift-true", start, 3 * x, premises=(sp.Ge(x, k),))
    assert good.verdict is Verdict.PROVED, good


def test_substitute_rule_does_not_capture():
    out = Substitute(((c, k),)).apply(sp.Sum(c * k, (k, 1, n)))
    assert sp.simplify(out.doit() - k * n * (n + 1) / 2) == 0
    r = verify(Derivation(name="t.capture-rule", title="t", start=sp.Sum(c, (k, 1, 3)), definitions=((c, k),),
                          steps=(Step(sp.Integer(6), "substitute", rule=Substitute(((c, k),))),)))
    assert r.steps[0].verdict is not Verdict.PROVED


def test_substitute_rule_still_renames_a_bound_index():
    j = sp.Symbol("j", integer=True)
    out = Substitute(((k, j),)).apply(sp.Sum(k ** 2, (k, 1, n)))
    assert out == sp.Sum(j ** 2, (j, 1, n))


def test_substitute_helper_values():
    s = substitute(sp.Sum(c * k, (k, 1, 3)), {c: k})
    assert sp.expand(s.doit()) == 6 * k
    # only free occurrences of the key are replaced
    s = substitute(sp.Sum(k, (k, 1, 3)) + k, {k: sp.Integer(5)})
    assert s.doit() == 11
    # the inner limit's bound is in the outer index's scope
    m = sp.Symbol("m", integer=True)
    s = substitute(sp.Sum(sp.Sum(c, (m, 1, k)), (k, 1, 3)), {c: k})
    assert sp.expand(s.doit()) == 6 * k
    # a derivative's variable and an indefinite integral's are free as well: substituted as they stand
    assert substitute(sp.Derivative(c * x, x), {c: x}).doit() == 2 * x
    assert substitute(sp.Integral(c, x), {c: x}) == sp.Integral(x, x)
    # a limit's variable and a Lambda's are bound
    lim = substitute(sp.Limit(c / x, x, sp.oo), {c: x})
    assert lim.doit() == 0
    lam = substitute(sp.Lambda(x, c + x), {c: x})
    assert lam(sp.Integer(1)) == x + 1


def test_rename_bound_leaves_untouched_scopes():
    e = sp.Sum(k, (k, 1, 3))
    assert rename_bound(e, {k}, lambda body: body.has(c)) is e
    assert rename_bound(e, {k}) != e
    assert rename_bound(e, {k}).doit() == 6


def test_a_term_whose_symbols_are_bound_is_still_replaced_structurally():
    # ffn.bias-free-homogeneity: max(0, a·h_k) = a·max(0, h_k) replaced inside Σ_k (the value's k is the key's)
    a = sp.Symbol("a", positive=True)
    h = sp.IndexedBase("h", real=True)
    key, value = sp.Max(0, a * h[k]), a * sp.Max(0, h[k])
    got = substitute(sp.Sum(key, (k, 1, n)), {key: value})
    assert got == sp.Sum(value, (k, 1, n))
