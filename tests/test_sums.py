"""Rules about sums of symbolic length: split at an index, drop non-negative sums, sift a delta."""

from __future__ import annotations

import pytest
import sympy as sp

from derive import Derivation, Step, Verdict
from derive import check as verify
from derive.sums import DropNonnegative, SiftDelta, SplitSumAt

n, m, j, ell = sp.symbols("n m j l", integer=True, positive=True)
u = sp.IndexedBase("u", nonnegative=True)
x = sp.IndexedBase("x", real=True)


def one_step(start, expr, rule, relation="="):
    return Derivation(name="test.sums", title="t", start=start,
                      steps=(Step(expr, "claimed", rule=rule, relation=relation),), auto_identity_check=False)


def test_split_at_an_index_preserves_value():
    s = sp.Sum(x[j] * j, (j, 1, n))
    out = SplitSumAt(m).apply(s)
    assert out == sp.Sum(x[j] * j, (j, 1, m - 1)) + m * x[m] + sp.Sum(x[j] * j, (j, m + 1, n))
    for length in (1, 3, 5):
        for at in range(1, length + 1):
            diff = (s - out).subs({n: length, m: at}).doit()
            assert sp.expand(diff) == 0, (length, at)


def test_drop_nonnegative_sums():
    s = sp.Sum(sp.exp(-u[j]), (j, 1, m - 1)) + sp.exp(-u[m]) + sp.Sum(u[j], (j, m + 1, n))
    # the last sum runs from m + 1 to n: its range is not reversed only if m ≤ n (a premise)
    from derive.kernel.primitives import Context

    assert DropNonnegative().apply(s, Context(premises=(sp.Le(m, n),))) == sp.exp(-u[m])
    assert DropNonnegative().apply(s) == sp.Sum(u[j], (j, m + 1, n)) + sp.exp(-u[m])
    with pytest.raises(ValueError, match="non-negative"):
        DropNonnegative().apply(sp.Sum(x[j], (j, 1, n)) + 1)  # x_j may be negative


def test_drop_nonnegative_only_justifies_greater_or_equal():
    s = sp.Sum(sp.exp(-u[j]), (j, 1, n)) + 1
    assert verify(one_step(s, sp.Integer(1), DropNonnegative(), ">="), numeric=False).ok
    report = verify(one_step(s, sp.Integer(1), DropNonnegative(), "="), numeric=False)
    assert report.steps[0].verdict is Verdict.UNDECIDED
    assert "only >=" in report.steps[0].detail


def test_wrong_lower_bound_is_refuted(catalog):
    import dataclasses

    d = catalog.get("softmax.max-trick-lower-bound")
    steps = list(d.steps)
    steps[2] = dataclasses.replace(steps[2], expr=sp.Integer(2))  # Σ ≥ 2: false when the others vanish
    report = verify(dataclasses.replace(d, steps=tuple(steps[:3]), checks=()), numeric=False)
    assert report.steps[2].verdict is Verdict.REFUTED


def test_sift_delta():
    s = sp.Sum(x[ell] * sp.KroneckerDelta(j, ell), (ell, 1, n))
    assert SiftDelta(j).apply(s) == x[j]
    # no delta on the summation index: left alone
    plain = sp.Sum(x[ell], (ell, 1, n))
    assert SiftDelta(j).apply(plain) == plain
