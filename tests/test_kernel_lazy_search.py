"""Cheaper searches with the same verdicts (issue 20, session 8).

* a counterexample search asks sympy for a limit at an exact point only where the numeric limits do not
  simply agree: a difference is evaluated again exactly as before (numeric and sympy's limit agreeing);
* LimitLaws decides an atom once whatever its index symbols are called;
* the claim's search is skipped only where the chain of proved steps implies the claim at every point.
"""

from fractions import Fraction

import sympy as sp

from derive import Derivation, Step
from derive.kernel import decide, evaluate, limit_laws, witness
from derive.kernel.points import Point
from derive.report import Verdict
from derive.verify import verify

x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)


def _counting(monkeypatch):
    calls = []
    real = evaluate._sympy_limit_at

    def counted(e, env, ev):
        calls.append(e)
        return real(e, env, ev)

    monkeypatch.setattr(evaluate, "_sympy_limit_at", counted)
    evaluate._LIMITS_AT.clear()
    return calls


def test_an_agreeing_point_asks_sympy_for_no_limit(monkeypatch):
    calls = _counting(monkeypatch)
    lim = sp.Limit(sp.sin(x * y) / x, x, 0)
    point = Point({y: Fraction(3, 7)}, 1)
    lazy = witness.compare_at(lim, y, "=", point, witness.SEARCH_DIGITS, limits_allowed=False, lazy_limits=True)
    assert lazy.status == "agree" and lazy.reason == witness.LAZY_AGREEMENT
    assert calls == []
    strict = witness.compare_at(lim, y, "=", point, witness.SEARCH_DIGITS, limits_allowed=False)
    assert strict.status == "agree" and strict.reason == ""
    assert len(calls) == 1  # the strict comparison confirms the limit with sympy


def test_a_difference_is_the_strict_one(monkeypatch):
    # lim_{x→0} x/(x + y) is 0 except at y = 0, where it is 1
    calls = _counting(monkeypatch)
    lim = sp.Limit(x / (x + y), x, 0)
    point = Point({y: Fraction(0)}, 1)
    lazy = witness.compare_at(lim, sp.Integer(0), "=", point, witness.SEARCH_DIGITS, limits_allowed=False,
                              lazy_limits=True)
    assert calls, "a difference is confirmed by sympy's limit at the point"
    strict = witness.compare_at(lim, sp.Integer(0), "=", point, witness.SEARCH_DIGITS, limits_allowed=False)
    assert lazy == strict
    assert lazy.status == "differ" and float(lazy.lhs) == 1 and float(lazy.rhs) == 0


def test_an_unconfirmed_difference_stays_unknown(monkeypatch):
    # sympy gives no value at the point: a numeric difference refutes nothing, lazily or not
    monkeypatch.setattr(evaluate, "_sympy_limit_at", lambda e, env, ev: None)
    lim = sp.Limit(x / (x + y), x, 0)
    point = Point({y: Fraction(0)}, 1)
    res = witness.compare_at(lim, sp.Integer(0), "=", point, witness.SEARCH_DIGITS, limits_allowed=False,
                             lazy_limits=True)
    assert res.status == "unknown" and "sympy could not confirm" in res.reason


def test_the_search_still_refutes_at_a_special_point():
    w = witness.search(sp.Limit(x / (x + y), x, 0), sp.Integer(0), "=", 5)
    assert w.differ is not None and w.differ.point.values[y] == 0


def test_the_work_of_a_rechecked_point_is_counted_once():
    lim = sp.Limit(x / (x + y), x, 0)
    point = Point({y: Fraction(0)}, 1)
    start = witness._WORK[0]
    witness.compare_at(lim, sp.Integer(0), "=", point, witness.SEARCH_DIGITS, limits_allowed=False)
    strict = witness._WORK[0] - start
    start = witness._WORK[0]
    witness.compare_at(lim, sp.Integer(0), "=", point, witness.SEARCH_DIGITS, limits_allowed=False,
                       lazy_limits=True)
    assert witness._WORK[0] - start == strict


def test_limit_laws_decide_an_atom_once_whatever_its_index_is_called(monkeypatch):
    g = sp.IndexedBase("g", positive=True)
    T = sp.Symbol("T", positive=True)
    i, j = (sp.Symbol(n, integer=True, positive=True) for n in "ij")
    seen = []
    real = limit_laws._find_atom_limit

    def counted(atom, *args):
        seen.append(atom)
        return real(atom, *args)

    monkeypatch.setattr(limit_laws, "_find_atom_limit", counted)
    limit_laws._ATOMS.clear()
    a = limit_laws._atom_limit(sp.exp(-g[i] / T), T, sp.oo, "-")
    b = limit_laws._atom_limit(sp.exp(-g[j] / T), T, sp.oo, "-")
    assert len(seen) == 1
    assert a == (sp.Integer(1), "") and b == (sp.Integer(1), "")
    # the outcome comes back in the atom's own names
    k = sp.Symbol("k", integer=True, positive=True)
    limit_laws._ATOMS.clear()
    assert limit_laws._atom_limit(g[k] * sp.exp(-T), T, sp.Integer(0), "+") == (g[k], "")
    # ... and so does a reason
    value, why = limit_laws._atom_limit(g[k] / T, T, sp.Integer(0), "+")
    assert value is None and "g[k]" in why and "_limit_law" not in why


def test_an_atom_is_decided_with_its_symbols_renamed_consistently():
    """Every symbol (not a family's label) is renamed, the same way wherever it occurs, with its assumptions:
    an alpha-renaming, so the limit is the same; the renaming back restores the atom."""
    g = sp.IndexedBase("g", positive=True)
    T = sp.Symbol("T", positive=True)
    j = sp.Symbol("j", integer=True, positive=True)
    atom = sp.exp(-j * g[j] / T)
    (canon, t, _), back = limit_laws._canonical(sp.Tuple(atom, T, sp.Integer(0)))
    assert canon.xreplace(back) == atom and t.xreplace(back) == T
    assert j not in canon.free_symbols and {s.assumptions0["integer"] for s in back if back[s] == j} == {True}
    # the same shape under other names is the same canonical atom
    k = sp.Symbol("k", integer=True, positive=True)
    (other, _, _), _ = limit_laws._canonical(sp.Tuple(sp.exp(-k * g[k] / T), T, sp.Integer(0)))
    assert other == canon


def test_which_chains_imply_their_claim():
    z = sp.Symbol("z")  # complex
    n = sp.Symbol("n", integer=True)
    w = sp.IndexedBase("w", real=True)
    poly = ((x + y) ** 2, "="), (x**2 + 2 * x * y + y**2, "=")
    assert decide.chain_implies_claim((x + y) ** 2, poly)
    assert decide.chain_implies_claim(sp.exp(z) * sp.exp(-z), ((sp.Integer(1), "="),))
    assert decide.chain_implies_claim(w[n] ** 2 + 1, ((w[n] ** 2 + 1, ">="),))  # n only indexes an element
    assert decide.chain_implies_claim(sp.ImmutableMatrix([x * y, 2**x]), ((sp.ImmutableMatrix([y * x, 2**x]), "="),))
    assert not decide.chain_implies_claim((x**2 - 1) / (x - 1), ((x + 1, "="),))  # a division
    assert not decide.chain_implies_claim(sp.sqrt(x**2), ((x, "="),))  # a root
    assert not decide.chain_implies_claim(sp.Limit(x / (x + y), x, 0), ((sp.Integer(0), "="),))
    assert not decide.chain_implies_claim(n**2, ((n**2, "="),))  # integer values: isolated points
    assert not decide.chain_implies_claim(x**2 + 1, ((sp.Integer(0), ">"),))  # a strict inequality
    assert not decide.chain_implies_claim(sp.Sum(x, (n, 1, 3)), ((3 * x, "="),))
    assert not decide.chain_implies_claim(sp.Abs(x), ((x, "="),))
    assert not decide.chain_implies_claim(sp.log(x**2 + 1), ((sp.log(x**2 + 1), "="),))


def test_the_claim_is_searched_unless_the_chain_implies_it(monkeypatch):
    searched = []
    real = witness.search

    def counted(*args, **kw):
        searched.append(args[:2])
        return real(*args, **kw)

    monkeypatch.setattr(witness, "search", counted)
    poly = Derivation(name="lazy.poly", title="t", start=(x + y) ** 2, steps=(Step(x**2 + 2 * x * y + y**2, "expand"),))
    assert verify(poly).ok and searched == []
    frac = Derivation(name="lazy.frac", title="t", start=(x**2 - y**2) / (x - y), steps=(Step(x + y, "cancel"),))
    report = verify(frac)
    assert report.steps[0].verdict is Verdict.PROVED and len(searched) == 1
    premised = Derivation(name="lazy.premised", title="t", start=(x + y) ** 2,
                          steps=(Step(x**2 + 2 * x * y + y**2, "expand"),), premises=(sp.Gt(x, 0),))
    assert verify(premised).ok and len(searched) == 2


def test_fractions_become_the_same_mpf_at_each_precision():
    import mpmath

    for v in (Fraction(1, 3), Fraction(-7, 2), Fraction(10**40 + 1, 3)):
        for dps in (15, 30, 60, 120):
            with mpmath.workdps(dps):
                first, again = evaluate.to_mp(v), evaluate.to_mp(v)
                assert first == mpmath.mpf(v.numerator) / v.denominator and again is first
            with mpmath.workdps(dps + 10):
                assert evaluate.to_mp(v) == mpmath.mpf(v.numerator) / v.denominator
