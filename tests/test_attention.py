"""Attention and multi-head derivations: proved, cross-checked, and wrong variants rejected."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import sympy as sp

from derive import Step, Verdict
from derive import check as verify
from derive.numeric import MonteCarloCheck, ValueCheck, round_like

NAMES = [
    "attention.similarity-matrix",
    "attention.convex-combination",
    "attention.weights-positive",
    "attention.output-bounded",
    "attention.score-mean",
    "attention.score-variance",
    "attention.scaled-variance",
    "attention.score-variance-general",
    "multihead.head-dims",
    "multihead.cost",
    "attention.permutation-equivariance",
]


@pytest.mark.parametrize("name", NAMES)
def test_proved_cross_checked_and_rendered(assert_proves, name):
    assert_proves(name)


def d_k():
    from derive.transformer.notation import sym

    return sym("d_k")


@pytest.mark.parametrize("wrong", ["d_k**2", "sqrt(d_k)", "1", "d_k - 1"])
def test_wrong_score_variance_is_refuted(catalog, wrong, with_last):
    claim = {"d_k**2": d_k() ** 2, "sqrt(d_k)": sp.sqrt(d_k()), "1": sp.Integer(1), "d_k - 1": d_k() - 1}[wrong]
    report = verify(with_last(catalog.get("attention.score-variance"), claim))
    assert report.steps[-1].verdict is Verdict.REFUTED
    assert not report.ok


def test_missing_scale_factor_is_refuted(catalog, with_last):
    # claiming Var(q·k/√d_k) = d_k (as if the factor were not there)
    report = verify(with_last(catalog.get("attention.scaled-variance"), d_k()))
    assert report.steps[-1].verdict is Verdict.REFUTED


def test_wrong_general_variance_is_refuted(catalog, with_last):
    from derive.transformer.notation import sym

    mq, mk, sq, sk = sym("mu_q"), sym("mu_k"), sym("sigma_q"), sym("sigma_k")
    for wrong in (d_k() * sq**2 * sk**2, d_k() * (sq**2 + mq**2) * (sk**2 + mk**2)):
        report = verify(with_last(catalog.get("attention.score-variance-general"), wrong), numeric=False)
        assert report.steps[-1].verdict is Verdict.REFUTED


def test_independence_over_the_full_double_sum_is_not_proved(catalog):
    # skipping the diagonal split: factorising E[q_i k_i q_j k_j] over all (i, j) is not allowed. The chain
    # lives in the general law (attention.score-variance cites it at mu = 0, sigma = 1, c = 1).
    d = catalog.get("attention.score-variance-general")
    steps = list(d.steps)
    assert type(steps[2].rule).__name__ == "SplitDiagonal"
    del steps[2]  # the split; linearity then independence act on the full double sum
    from derive.expectation import E
    from derive.transformer.notation import sym, vec

    q, k, i, j, c, n = vec("q"), vec("k"), sym("i"), sym("j"), sym("c"), sym("d_k")
    wrong = dataclasses.replace(d, steps=(
        *steps[:2],
        Step(c**2 * sp.Sum(E(q[i] * k[i] * q[j] * k[j]), (j, 1, n), (i, 1, n))
             - c**2 * sp.Sum(E(q[i] * k[i]), (i, 1, n)) ** 2, "linearity", rule=steps[2].rule),
        Step(c**2 * sp.Sum(E(q[i]) * E(k[i]) * E(q[j]) * E(k[j]), (j, 1, n), (i, 1, n))
             - c**2 * sp.Sum(E(q[i]) * E(k[i]), (i, 1, n)) ** 2, "independence?", rule=steps[3].rule),
    ), checks=())
    report = verify(wrong, numeric=False)
    assert report.steps[2].verdict is Verdict.PROVED
    assert report.steps[3].verdict is Verdict.UNDECIDED
    assert not report.ok


@pytest.mark.parametrize("check_index", range(9))
def test_monte_carlo_rejects_wrong_claims(catalog, check_index):
    mc = [c for c in catalog.get("attention.score-variance").checks if isinstance(c, MonteCarloCheck)]
    assert len(mc) == 9
    check = mc[check_index]
    d = check.meta["d_k"]
    assert check.expected == d and set(check.alternatives) == {float(d * d), float(np.sqrt(d))}
    good = check.run(7)
    assert good.passed, good.message
    assert good.figures["alternatives_rejected"] == list(check.alternatives)
    assert good.figures["bound"] > 0 and good.figures["n"] == check.n
    for wrong in check.alternatives:
        bad = dataclasses.replace(check, expected=wrong, alternatives=()).run(7)
        assert not bad.passed, (wrong, bad.message)


def test_monte_carlo_covers_three_distributions_and_widths(catalog):
    mc = [c for c in catalog.get("attention.score-variance").checks if isinstance(c, MonteCarloCheck)]
    assert {(c.meta["distribution"], c.meta["d_k"]) for c in mc} == {
        (dist, d) for dist in ("normal", "rademacher", "uniform[-√3,√3]") for d in (4, 64, 512)}


def test_samplers_have_mean_zero_variance_one():
    from derive.transformer.score_variance import DISTRIBUTIONS

    rng = np.random.default_rng(0)
    for name, draw in DISTRIBUTIONS.items():
        x = draw(rng, (200_000,))
        assert abs(x.mean()) < 0.01 and abs(x.var() - 1) < 0.01, name


def test_lecture_spread_at_512():
    exact = sp.sqrt(512)
    assert exact == 16 * sp.sqrt(2)
    assert round_like(exact, "22.6") == "22.6"
    assert round_like(exact, "23") == "23"
    assert not ValueCheck("wrong spread", sp.Integer(512), "22.6").run(0).passed


def test_sympy_stats_route_agrees(catalog):
    d = catalog.get("attention.score-variance-general")
    stats = next(c for c in d.checks if c.name.startswith("sympy.stats"))
    result = stats.run(0)
    assert result.passed
    assert result.figures["d_k=2"] == "2*(mu_k**2*sigma_q**2 + mu_q**2*sigma_k**2 + sigma_k**2*sigma_q**2)"


def test_similarity_matrix_entry(catalog):
    d = catalog.get("attention.similarity-matrix")
    n, dk = d.start.parent.shape[0], d_k()
    assert d.start.parent.shape == (n, n)
    assert d.end.limits[0][1:] == (0, dk - 1)


def test_wrong_similarity_entry_is_not_proved(catalog, with_last):
    d = catalog.get("attention.similarity-matrix")
    ell = d.end.limits[0][0]
    i, j = sorted((s for s in d.end.free_symbols if s.name in ("i0", "j0")), key=str)
    q, k = sp.IndexedBase("q", real=True), sp.IndexedBase("k", real=True)
    # (QKᵀ)_ij = q_i·k_i: the key's row index swapped for the query's
    report = verify(with_last(d, sp.Sum(q[i, ell] * k[i, ell], (ell, 0, d_k() - 1))), numeric=False)
    assert report.steps[0].verdict is Verdict.PROVED
    assert report.steps[-1].verdict is not Verdict.PROVED
    assert not report.ok


def test_wrong_weight_sum_is_refuted(catalog, with_last):
    report = verify(with_last(catalog.get("attention.convex-combination"), sp.Integer(2)), numeric=False)
    assert report.steps[-1].verdict is Verdict.REFUTED


def test_weight_above_one_is_refuted(catalog):
    d = catalog.get("attention.weights-positive")
    wrong = dataclasses.replace(d, start=sp.Integer(1), checks=())  # "every weight exceeds 1"
    report = verify(wrong, numeric=False)
    assert report.steps[0].verdict is Verdict.REFUTED


def test_head_dims_values_and_errors():
    from derive.transformer.multihead import head_width

    assert head_width(512, 8) == 64
    assert head_width(768, 12) == 64
    assert head_width(4, 2) == 2
    with pytest.raises(ValueError, match="does not divide"):
        head_width(512, 3)
    for bad in (0, -8, 2.0, True):
        with pytest.raises(ValueError, match="positive integer"):
            head_width(512, bad)


def test_wrong_head_width_is_refuted(catalog, with_last):
    from derive.transformer.notation import sym

    report = verify(with_last(catalog.get("multihead.head-dims"), sym("d_model") * sym("n_heads")), numeric=False)
    assert report.steps[-1].verdict is Verdict.REFUTED


@pytest.mark.parametrize("name", ["attention.score-variance", "attention.scaled-variance",
                                  "attention.score-variance-general"])
def test_variance_is_derived_for_symbolic_width(catalog, name):
    d = catalog.get(name)
    (total,) = [s for s in d.start.atoms(sp.Sum)]
    assert total.limits[0][2] == d_k()  # Σ_{i=1}^{d_k}: the width stays a symbol
    assert d_k() in d.end.free_symbols or d.end == 1
    assert all(d_k() in (s.expr.free_symbols if hasattr(s.expr, "free_symbols") else set())
               for s in d.steps[:-1])


def test_sympy_stats_standard_route_values(catalog):
    stats = next(c for c in catalog.get("attention.score-variance").checks if c.name.startswith("sympy.stats"))
    result = stats.run(0)
    assert result.passed
    assert [result.figures[f"d_k={d}"] for d in (1, 2, 3)] == ["1", "2", "3"]


def test_general_monte_carlo_rejects_the_mean_zero_formula(catalog):
    mc = [c for c in catalog.get("attention.score-variance-general").checks if isinstance(c, MonteCarloCheck)]
    assert len(mc) == 2
    for check in mc:
        assert check.expected == 81.0  # 16·(4·0.25 + 0.25·0.25 + 1·4)
        result = check.run(3)
        assert result.passed, result.message
        assert result.figures["alternatives_rejected"] == [16.0, 85.0]


def test_head_width_without_division_is_refuted(catalog):
    from derive.rules import Substitute
    from derive.transformer.notation import sym

    d = catalog.get("multihead.head-dims")
    wrong_rule = Substitute(((sym("d_v"), sym("d_model")),), "d_v = d_model (each head full width)")
    # the heads at full width: Σ_a d_model, which the definition d_v = d_model/h contradicts
    step = dataclasses.replace(d.steps[0], expr=wrong_rule.apply(d.start), rule=wrong_rule)
    wrong = dataclasses.replace(d, steps=(step,), checks=())
    report = verify(wrong, numeric=False)
    assert report.steps[0].verdict is Verdict.REFUTED


def test_multihead_forward_shapes(catalog):
    check = next(c for c in catalog.get("multihead.head-dims").checks if c.name.startswith("shapes"))
    result = check.run(0)
    assert result.passed
    assert result.figures["d_k"] == 64 and result.figures["concat"] == [5, 512]


def test_attention_weights_numpy():
    from derive.transformer.attention import attention_weights

    q, k = np.array([[1.0, 0, 1, 0], [0, 1, 0, 1]]), np.array([[1.0, 0, 1, 0], [1, 1, 0, 0]])
    w = attention_weights(q, k)  # lecture 000's scores [[1, 0.5], [0, 0.5]]
    assert np.allclose(w, [[1 / (1 + np.exp(-0.5)), 1 / (1 + np.exp(0.5))],
                           [1 / (1 + np.exp(0.5)), 1 / (1 + np.exp(-0.5))]], rtol=0, atol=1e-15)
    causal = attention_weights(q, k, causal=True)
    assert causal[0].tolist() == [1.0, 0.0] and np.allclose(causal[1], w[1], rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match="d_k"):
        attention_weights(q, k[:, :3])


def test_multihead_cost_is_independent_of_h(catalog, with_last):
    from derive.transformer.notation import sym

    d, n, h = sym("d_model"), sym("n"), sym("n_heads")
    cost = catalog.get("multihead.cost")
    assert sp.expand(cost.end - (4 * n * d**2 + 2 * n**2 * d)) == 0 and h not in cost.end.free_symbols
    report = verify(cost, seed=3)
    (counted,) = [c for c in report.checks if "numpy pass" in c.name]
    assert counted.passed and set(counted.figures["multiply-adds by h"].values()) == {4 * 5 * 16**2 + 2 * 25 * 16}
    wrong = verify(with_last(cost, h * (4 * n * d**2 + 2 * n**2 * d)), numeric=False)
    assert not wrong.ok and wrong.steps[-1].verdict is Verdict.REFUTED


def test_permutation_equivariance(catalog, with_last):
    d = catalog.get("attention.permutation-equivariance")
    report = verify(d, seed=5)
    assert report.ok
    (perm,) = [c for c in report.checks if "positions break it" in c.name]
    assert perm.figures["max |Attn(PX) − P·Attn(X)|"] < 1e-12
    assert perm.figures["broken by positions"] == perm.figures["permutations moving a token"] > 80
    # a wrong claim: the outputs do not move with the tokens (row r of the original output instead of row π(r))
    (pi_r,) = {a for a in d.end.atoms(sp.Function) if a.func.__name__ == "pi"}
    r = pi_r.args[0]
    wrong = verify(with_last(d, d.end.xreplace({pi_r: r})), numeric=False)
    assert not wrong.ok and wrong.steps[-1].verdict is not Verdict.PROVED
