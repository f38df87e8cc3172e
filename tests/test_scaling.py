"""Scaling arithmetic: C = 6ND and the compute-optimal split — proofs, refutations, values, errors."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from derive import Verdict
from derive.transformer import scaling
from derive.transformer.notation import sym

NAMES = [
    "scaling.training-compute",
    "scaling.fixed-ratio-split",
    "scaling.budget-exponents",
    "scaling.equal-exponents",
    "scaling.chinchilla-example",
]


@pytest.mark.parametrize("name", NAMES)
def test_derivation_proves_and_cross_checks(assert_proves, name):
    assert_proves(name)


def test_split_formulas_at_twenty_tokens_per_parameter(catalog):
    d = catalog.get("scaling.fixed-ratio-split")
    C, r = sym("compute"), sym("tokens_per_param")
    n_opt, d_opt = (e.subs(r, 20) for e in d.start)
    assert sp.simplify(n_opt - sp.sqrt(C / 120)) == 0 and sp.simplify(d_opt - sp.sqrt(10 * C / 3)) == 0
    assert d.end == sp.ImmutableMatrix([sym("n_params"), sym("n_tokens")])


def test_chinchilla_numbers(catalog):
    end = catalog.get("scaling.chinchilla-example").end
    assert [int(x) for x in end] == [70_000_000_000, 1_400_000_000_000]
    assert 6 * scaling.CHINCHILLA_N * scaling.CHINCHILLA_D == 588 * 10**21
    assert scaling.TOKENS_PER_PARAM == 20
    n, d = scaling.compute_optimal(np.array([5.88e23]))
    assert n[0] == pytest.approx(7e10, rel=1e-12) and d[0] == pytest.approx(1.4e12, rel=1e-12)


def test_wrong_split_is_refuted(catalog, refute_step):
    d = catalog.get("scaling.chinchilla-example")
    wrong = sp.ImmutableMatrix([sp.Integer(70 * 10**9), sp.Integer(300 * 10**9)])
    assert refute_step(d, 3, wrong).verdict is Verdict.REFUTED


def test_exponents_that_do_not_add_to_one_overspend(catalog, refute_step):
    d = catalog.get("scaling.budget-exponents")
    C = sym("compute")
    assert refute_step(d, 4, 2 * C).verdict is Verdict.REFUTED


def test_compute_optimal_errors():
    with pytest.raises(ValueError, match=r"^compute budgets and the tokens-per-parameter ratio must be positive$"):
        scaling.compute_optimal(np.array([0.0]))
    with pytest.raises(ValueError, match=r"^compute budgets and the tokens-per-parameter ratio must be positive$"):
        scaling.compute_optimal(np.array([1e20]), tokens_per_param=-1.0)
