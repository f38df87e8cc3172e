"""Gradients: cross-entropy, LayerNorm/RMSNorm Jacobians and backward, attention backward."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from derive import Verdict
from derive.transformer.gradients import (
    CE_PRINTED,
    attention_backward,
    cross_entropy_grad,
    layer_norm_jacobian,
    rms_norm_jacobian,
)
from derive.transformer.notation import sym, vec

NAMES = [
    "gradients.softmax-cross-entropy",
    "gradients.example-cross-entropy",
    "gradients.layernorm-jacobian",
    "gradients.layernorm-vjp",
    "gradients.layernorm-grad-orthogonal-ones",
    "gradients.layernorm-grad-along-xhat",
    "gradients.layernorm-grad-orthogonal-xhat",
    "gradients.rmsnorm-jacobian",
    "gradients.rmsnorm-vjp",
    "gradients.rmsnorm-grad-along-xhat",
    "gradients.rmsnorm-grad-orthogonal-xhat",
    "gradients.example-layernorm-jacobian",
    "gradients.attention-dv",
    "gradients.attention-da",
    "gradients.attention-ds",
    "gradients.attention-dq",
    "gradients.attention-dk",
]


@pytest.mark.parametrize("name", NAMES)
def test_proved_cross_checked_and_rendered(assert_proves, name):
    assert_proves(name)


def test_every_gradients_derivation_is_listed(catalog):
    # the linear layer's backward pass has its own module and tests (tests/test_standard_results.py)
    assert sorted(n for n in catalog.names() if n.startswith("gradients.") and not n.startswith("gradients.linear-")) \
        == sorted(NAMES)


def test_general_laws_have_symbolic_sizes(catalog):
    """Every law (not an example) sums over a range whose end is a symbol: n, d_model, d_k or d_v."""
    for name in NAMES:
        if ".example-" in name:
            continue
        d = catalog.get(name)
        sums = d.start.atoms(sp.Sum)
        assert any(s.limits[-1][2].free_symbols for s in sums), name


def test_cross_entropy_end_is_p_minus_y(catalog):
    d = catalog.get("gradients.softmax-cross-entropy")
    p, y, j = vec("p"), vec("y"), sym("j")
    assert d.end == p[j] - y[j]


def test_cross_entropy_example_values(catalog):
    d = catalog.get("gradients.example-cross-entropy")
    got = [float(v) for v in d.end]
    assert got == pytest.approx([-0.334759, 0.090031, 0.244728], abs=1e-6)
    assert [f"{v:.4f}" for v in got] == list(CE_PRINTED)
    assert sp.simplify(sum(d.end)) == 0


def test_wrong_cross_entropy_sign_is_refuted(catalog, refute_step):
    d = catalog.get("gradients.example-cross-entropy")
    e = sp.E
    wrong = sp.ImmutableMatrix([[(e + 1) / (e**2 + e + 1), -1 / (e**2 + e + 1), -e / (e**2 + e + 1)]])  # y − p
    last = len(d.steps)
    assert refute_step(d, last, wrong).verdict is Verdict.REFUTED
    # the step at z = (2, 0, 1) reads the premises z₁ = 2, z₂ = 0, z₃ = 1 (pinned elements): a wrong value there
    # is refuted at a point where they hold, the right one proved
    at_point = d.steps[last - 2].expr
    assert refute_step(d, last - 1, at_point.xreplace({sp.E: sp.Integer(3)})).verdict is Verdict.REFUTED
    assert refute_step(d, last - 1, at_point).verdict is Verdict.PROVED


def test_cross_entropy_example_cites_the_law_entry_by_entry(catalog):
    from derive.citations import uses

    d = catalog.get("gradients.example-cross-entropy")
    assert uses(d) == ["gradients.softmax-cross-entropy"]
    assert [s.cites for s in d.steps[:3]] == ["gradients.softmax-cross-entropy"] * 3


def test_layernorm_example_is_rank_one_projection(catalog):
    J = catalog.get("gradients.example-layernorm-jacobian").end
    assert J == sp.sqrt(6) / 12 * sp.ImmutableMatrix([[1, -2, 1], [-2, 4, -2], [1, -2, 1]])
    assert J.rank() == 1
    assert J * sp.ImmutableMatrix([1, 1, 1]) == sp.zeros(3, 1)  # orthogonal to 1
    assert J * sp.ImmutableMatrix([-1, 0, 1]) == sp.zeros(3, 1)  # and to x̂ (ε = 0)
    assert np.allclose(layer_norm_jacobian(np.array([1.0, 2.0, 3.0]), eps=0.0), np.array(J.tolist(), dtype=float))


def test_layernorm_jacobian_without_centring_is_refuted(catalog, refute_step):
    d = catalog.get("gradients.layernorm-jacobian")
    # step 6 claims ∂x̂_i/∂x_j without the −1/d term (forgetting ∂μ/∂x_j): refuted
    x, dm, i, j = vec("x"), sym("d_model"), sym("i"), sym("j")
    M = sp.Sum(x[sym("b_row")], (sym("b_row"), 1, dm)) / dm
    V = sp.Sum((x[sym("l")] - M) ** 2, (sym("l"), 1, dm)) / dm
    root = sp.sqrt(V + sym("eps"))
    wrong = sp.KroneckerDelta(i, j) / root - (x[i] - M) * (x[j] - M) / (dm * root**3)
    # never proved; not refuted either: the derivation's premise Σ(x − μ) = 0 is an equation between sums, which
    # sampled points cannot be made to satisfy, so the witness confirms under it but never refutes (proved.md)
    assert refute_step(d, 6, wrong).verdict is not Verdict.PROVED


def test_along_xhat_factor_is_eps_over_var_plus_eps(catalog):
    d = catalog.get("gradients.layernorm-grad-along-xhat")
    eps, s2 = sym("eps"), sym("sigma2")
    factor = sp.simplify(d.end / sp.Sum(vec("g")[sym("i")] * vec("xhat")[sym("i")], (sym("i"), 1, sym("d_model"))))
    assert sp.simplify(factor - eps / (s2 + eps) / sym("s_len")) == 0
    assert catalog.get("gradients.layernorm-grad-orthogonal-xhat").end == 0
    assert catalog.get("gradients.rmsnorm-grad-orthogonal-xhat").end == 0
    assert catalog.get("gradients.layernorm-grad-orthogonal-ones").end == 0


def test_numpy_jacobians_against_finite_differences():
    from derive.transformer.norms import layer_norm, rms_norm

    rng = np.random.default_rng(3)
    x = rng.normal(1.0, 2.0, size=7)
    h = 1e-6
    for fn, jac in ((lambda v: layer_norm(v, eps=1e-3), layer_norm_jacobian(x, 1e-3)),
                    (lambda v: rms_norm(v, eps=1e-3), rms_norm_jacobian(x, 1e-3))):
        fd = np.stack([(fn(x + h * e) - fn(x - h * e)) / (2 * h) for e in np.eye(7)], axis=1)
        assert np.max(np.abs(fd - jac)) < 1e-8
    J = layer_norm_jacobian(x, 1e-3)
    assert np.allclose(J @ np.ones(7), 0, atol=1e-12)  # rows sum to 0
    assert not np.allclose(rms_norm_jacobian(x, 1e-3) @ np.ones(7), 0)  # RMSNorm is not shift invariant


def test_attention_backward_matches_finite_differences():
    from derive.transformer.softmax_numeric import softmax

    rng = np.random.default_rng(5)
    Q, K, V, dO = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    dQ, dK, dV = attention_backward(Q, K, V, dO)

    def loss(Q_, K_, V_):
        return float((dO * (softmax(Q_ @ K_.T / np.sqrt(3)) @ V_)).sum())

    e = np.zeros_like(Q)
    e[1, 2] = 1e-6
    assert (loss(Q + e, K, V) - loss(Q - e, K, V)) / 2e-6 == pytest.approx(dQ[1, 2], abs=1e-8)
    assert (loss(Q, K + e, V) - loss(Q, K - e, V)) / 2e-6 == pytest.approx(dK[1, 2], abs=1e-8)
    ev = np.zeros_like(V)
    ev[3, 1] = 1e-6
    assert (loss(Q, K, V + ev) - loss(Q, K, V - ev)) / 2e-6 == pytest.approx(dV[3, 1], abs=1e-8)
    # FlashAttention's row sum: Σ_b A_ib dA_ib = Σ_c dO_ic O_ic (checked numerically, see KERNEL_REQUESTS.md)
    A = softmax(Q @ K.T / np.sqrt(3))
    assert np.allclose((A * (dO @ V.T)).sum(axis=1), (dO * (A @ V)).sum(axis=1))


def test_wrong_dq_without_scale_is_refuted(catalog, refute_step):
    d = catalog.get("gradients.attention-dq")
    n, i, c, b = sym("n"), sym("i"), sym("c_col"), sym("b_row")
    K, dS = sp.IndexedBase("K", real=True), sp.IndexedBase("dS", real=True)
    assert refute_step(d, len(d.steps), sp.Sum(dS[i, b] * K[b, c], (b, 1, n))).verdict is Verdict.REFUTED


def test_cross_entropy_grad_helper():
    g = cross_entropy_grad(np.array([2.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0]))
    assert g.tolist() == pytest.approx([-0.3347590, 0.0900306, 0.2447285], abs=1e-6)
    assert abs(g.sum()) < 1e-15
    with pytest.raises(ValueError, match="same shape"):
        cross_entropy_grad(np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match="expected Q, K"):
        attention_backward(np.zeros((2, 3)), np.zeros((2, 4)), np.zeros((2, 1)), np.zeros((2, 1)))
