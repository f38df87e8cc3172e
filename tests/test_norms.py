"""LayerNorm, RMSNorm, residual connections: derivations proved, wrong conventions refuted, helpers' values."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import sympy as sp

from derive import Derivation, Evaluate, Step, Substitute, Verdict
from derive import check as verify
from derive.transformer.norms import layer_norm, rms_norm
from derive.transformer.notation import sym, vec
from derive.verify import verify_step

NAMES = [
    "norms.layernorm-mean",
    "norms.layernorm-variance",
    "norms.layernorm-constant-input",
    "norms.rmsnorm-equals-layernorm",
    "norms.pre-ln-post-ln",
    "residual.zero-init",
    "residual.jacobian",
]

x, d, i, j = vec("x"), sym("d_model"), sym("i"), sym("j")
mu, s2, eps, gamma, beta = sym("mu"), sym("sigma2"), sym("eps"), sym("gamma"), sym("ln_beta")
MEAN = sp.Sum(x[j], (j, 1, d)) / d
SQUARES = sp.Sum((x[j] - MEAN) ** 2, (j, 1, d))


@pytest.mark.parametrize("name", NAMES)
def test_derivation_proves_and_cross_checks(assert_proves, name):
    assert_proves(name)


def normalised_variance(var_of_x, root):
    """(1/d)·Σ_i ((x_i − μ)/root(var))² with μ written out: the output variance for a given convention."""
    return sp.Sum(((x[i] - MEAN) / root(var_of_x)) ** 2, (i, 1, d)) / d


def one_step(start, claim):
    return Derivation(name="test.norms", title="t", start=start, steps=(Step(claim, "claimed"),))


def test_unbiased_variance_claimed_equal_is_refuted():
    # tokens of length d_model = n + 1 ≥ 2, so that the unbiased divisor n is never 0
    n = sym("n")
    mean = sp.Sum(x[j], (j, 1, n + 1)) / (n + 1)
    squares = sp.Sum((x[j] - mean) ** 2, (j, 1, n + 1))
    biased, unbiased = squares / (n + 1), squares / n
    start = sp.Sum(((x[i] - mean) / sp.sqrt(unbiased + eps)) ** 2, (i, 1, n + 1)) / (n + 1)
    report = verify(one_step(start, biased / (biased + eps)), numeric=False, budget=1.0)
    assert report.steps[0].verdict is Verdict.REFUTED
    # and the plain statement "the unbiased variance is the biased one"
    report = verify(one_step(unbiased, biased), numeric=False, budget=1.0)
    assert report.steps[0].verdict is Verdict.REFUTED


def test_eps_outside_the_root_is_refuted():
    biased = SQUARES / d
    start = normalised_variance(biased, lambda v: sp.sqrt(v) + eps)
    report = verify(one_step(start, biased / (biased + eps)), numeric=False, budget=1.0)
    assert report.steps[0].verdict is Verdict.REFUTED


def test_wrong_variance_result_is_refuted(catalog, refute_step):
    d_ = catalog.get("norms.layernorm-variance")
    assert refute_step(d_, 2, sp.Integer(1)).verdict is Verdict.REFUTED  # "the variance is exactly 1"


def test_wrong_mean_step_is_refuted(catalog, refute_step):
    d_ = catalog.get("norms.layernorm-mean")
    s = sp.sqrt(s2 + eps)
    # forgetting that Σ_i μ is d_model·μ (counting μ once)
    wrong = sp.Sum(x[i], (i, 1, d)) / (d * s) - sp.Sum(x[j], (j, 1, d)) / (d**2 * s)
    assert refute_step(d_, 3, wrong).verdict is Verdict.REFUTED


def test_constant_input_wrong_claim_is_refuted(catalog, refute_step):
    d_ = catalog.get("norms.layernorm-constant-input")
    assert refute_step(d_, 2, gamma + beta).verdict is Verdict.REFUTED
    assert refute_step(d_, 2, sp.Integer(0)).verdict is Verdict.REFUTED


def test_rmsnorm_differs_without_zero_mean():
    # LayerNorm(β = 0) written out, against RMSNorm, for tokens that need not have mean 0
    ln = gamma * (x[i] - MEAN) / sp.sqrt(SQUARES / d + eps)
    rms = gamma * x[i] / sp.sqrt(sp.Sum(x[j] ** 2, (j, 1, d)) / d + eps)
    report = verify(one_step(ln, rms), numeric=False, budget=1.0)
    assert report.steps[0].verdict is Verdict.REFUTED


def test_residual_jacobian_without_identity_is_refuted():
    # a concrete sublayer F(x) = tanh(xW) in 2-D: the Jacobian without I is wrong, with I it is proved
    xs = sp.symbols("x_1:3", real=True)
    W = sp.Matrix([[1, 2], [-1, 3]])
    F = [sp.tanh(sum(xs[c] * W[c, a] for c in range(2))) for a in range(2)]
    start = sp.ImmutableMatrix(2, 2, lambda a, c: sp.Derivative(xs[a] + F[a], xs[c]))
    dF = sp.ImmutableMatrix(2, 2, lambda a, c: sp.diff(F[a], xs[c]))

    def one(claim):
        return Derivation(name="test.jac", title="t", start=start,
                          steps=(Step(claim, "chain rule", rule=Evaluate()),), auto_identity_check=False)

    assert verify(one(sp.ImmutableMatrix(sp.eye(2) + dF)), numeric=False).ok
    wrong = verify(one(dF), numeric=False, budget=1.0)
    assert wrong.steps[0].verdict is Verdict.REFUTED


def test_post_ln_has_no_bare_identity_path():
    # Post-LN with concrete smooth maps: claiming a Pre-LN-like "I + ..." Jacobian is refuted
    xs = sp.symbols("x_1:3", real=True)
    L = [lambda u, v: sp.tanh(u - v), lambda u, v: sp.tanh(v - u)]  # a centring, squashing map
    G = [lambda u, v: u * v, lambda u, v: u + 2 * v]
    Gx = [G[a](*xs) for a in range(2)]
    post = [L[a](xs[0] + Gx[0], xs[1] + Gx[1]) for a in range(2)]
    start = sp.ImmutableMatrix(2, 2, lambda a, c: sp.Derivative(post[a], xs[c]))
    JL = sp.ImmutableMatrix(2, 2, lambda a, c: sp.diff(L[a](*xs), xs[c]))
    JG = sp.ImmutableMatrix(2, 2, lambda a, c: sp.diff(Gx[a], xs[c]))
    wrong = sp.ImmutableMatrix(sp.eye(2) + JL * JG)
    report = verify(Derivation(name="test.post", title="t", start=start,
                               steps=(Step(wrong, "claimed", rule=Evaluate()),), auto_identity_check=False),
                    numeric=False, budget=1.0)
    assert report.steps[0].verdict is Verdict.REFUTED


def test_zero_init_wrong_claims_are_refuted(catalog, refute_step):
    d_ = catalog.get("residual.zero-init")
    X = d_.end
    assert X.shape[0].free_symbols and X.shape[1].free_symbols  # any number of tokens, any width
    # "a zero sublayer zeroes the block" (forgetting the skip path)
    assert refute_step(d_, 1, sp.ZeroMatrix(*X.shape)).verdict is Verdict.REFUTED
    # zeroing only W_O leaves the bias, which is added to every token
    W = d_.start.args[1].args[1]  # X + G·W_O + 1·b_O
    only_w = dataclasses.replace(d_.steps[0], rule=Substitute(((W, sp.ZeroMatrix(*W.shape)),), "W_O = 0"))
    assert verify_step(d_.start, only_w, budget=1.0).verdict is Verdict.REFUTED


def test_residual_jacobians_are_for_any_width(catalog, refute_step):
    for name in ("residual.jacobian", "norms.pre-ln-post-ln"):
        d_ = catalog.get(name)
        assert any(s.name == "d_model" for s in d_.start.free_symbols | d_.end.free_symbols
                   for _ in [0]) or any(lim[2].free_symbols for s in d_.end.atoms(sp.Sum) for lim in s.limits), name
    d_ = catalog.get("residual.jacobian")
    v_a = d_.end.args[0] if isinstance(d_.end.args[0], sp.Indexed) else d_.end.args[1]
    # forgetting the identity path: only the sublayer's slope
    assert refute_step(d_, 2, d_.end - v_a).verdict is not Verdict.PROVED


# --- numpy helpers ------------------------------------------------------------------------------------------


def test_layer_norm_values_lecture_token():
    # lecture 002, token 1 = (1, 0, 2, 1): μ = 1, σ² = 1/2, ε = 0 → (0, −√2, √2, 0)
    out = layer_norm(np.array([1.0, 0.0, 2.0, 1.0]), eps=0.0)
    assert out.tolist() == pytest.approx([0.0, -math.sqrt(2), math.sqrt(2), 0.0], abs=1e-15)
    assert [f"{v:.3f}" for v in out] == ["0.000", "-1.414", "1.414", "0.000"]
    # token 2 = (2, 0, 1, 3): μ = 3/2, σ² = 5/4
    out = layer_norm(np.array([2.0, 0.0, 1.0, 3.0]), eps=0.0)
    assert out.tolist() == pytest.approx([v / math.sqrt(5 / 4) for v in (0.5, -1.5, -0.5, 1.5)], abs=1e-15)


def test_layer_norm_affine_eps_and_batch_shape():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 5))
    g, b = np.arange(1.0, 6.0), np.full(5, -2.0)
    out = layer_norm(x, g, b, eps=0.1)
    assert out.shape == (2, 3, 5)
    z = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 0.1)
    assert np.allclose(out, g * z + b, rtol=0, atol=1e-14)
    # variance before the affine part: σ²/(σ² + ε), not 1
    plain = layer_norm(x, eps=0.1)
    assert np.allclose(plain.var(-1), x.var(-1) / (x.var(-1) + 0.1), atol=1e-14)


def test_layer_norm_constant_input():
    beta = np.array([0.5, -1.0, 0.0, 3.0])
    assert layer_norm(np.full(4, 2.0), np.array([2.0, 3.0, -1.0, 0.5]), beta).tolist() == beta.tolist()
    assert layer_norm(np.full(4, 2.0)).tolist() == [0.0, 0.0, 0.0, 0.0]  # default ε = 1e-5, β = 0
    with pytest.raises(ValueError, match=r"^LayerNorm with eps = 0 of a constant token \(variance 0\) is 0/0"):
        layer_norm(np.full(4, 2.0), eps=0.0)
    with pytest.raises(ValueError, match="0/0"):  # one constant row in a batch is enough
        layer_norm(np.array([[1.0, 2.0], [3.0, 3.0]]), eps=0)
    # float mean of (0.1, 0.1, 0.1) is 0.10000000000000002: still constant, still exactly β, still an error at ε = 0
    assert np.full(3, 0.1).mean() != 0.1  # the trap: a naive (x − μ)² would be 1.9e-34, not 0
    assert layer_norm(np.full(3, 0.1), beta=np.array([1.0, 2.0, 3.0])).tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="constant token"):
        layer_norm(np.full(3, 0.1), eps=0.0)


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        ({"x": 3.0}, r"^expected an array of shape \(\.\.\., d_model\)"),
        ({"x": np.zeros((2, 0))}, r"^expected an array of shape \(\.\.\., d_model\)"),
        ({"x": np.ones(4), "gamma": np.ones(3)}, r"^gamma must have shape \(4,\), got \(3,\)"),
        ({"x": np.ones(4), "beta": np.ones((1, 4))}, r"^beta must have shape \(4,\), got \(1, 4\)"),
        ({"x": np.arange(4.0), "eps": -1e-5}, r"^eps must be a finite number >= 0"),
        ({"x": np.arange(4.0), "eps": float("nan")}, r"^eps must be a finite number >= 0"),
    ],
)
def test_layer_norm_errors(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        layer_norm(**kwargs)


def test_rms_norm_values_and_errors():
    # lecture 002: RMS of (1, 0, 2, 1) is √(6/4) ≈ 1.225 → (0.816, 0, 1.633, 0.816)
    out = rms_norm(np.array([1.0, 0.0, 2.0, 1.0]), eps=0.0)
    assert out.tolist() == pytest.approx([v / math.sqrt(1.5) for v in (1, 0, 2, 1)], abs=1e-15)
    assert [f"{v:.3f}" for v in out] == ["0.816", "0.000", "1.633", "0.816"]
    assert f"{math.sqrt(1.5):.3f}" == "1.225"
    assert rms_norm(np.array([[3.0, 4.0]]), np.array([2.0, 1.0]), eps=0.0).tolist() == [
        pytest.approx([2 * 3 / math.sqrt(12.5), 4 / math.sqrt(12.5)])]
    assert rms_norm(np.zeros(3)).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match=r"^RMSNorm with eps = 0 of an all-zero token \(mean square 0\) is 0/0"):
        rms_norm(np.zeros(3), eps=0.0)
    with pytest.raises(ValueError, match=r"^gamma must have shape \(3,\)"):
        rms_norm(np.ones(3), np.ones(2))


def test_rms_norm_equals_layer_norm_on_zero_mean_tokens():
    z = np.array([[1.0, -2.0, 0.5, 0.5], [3.0, -1.0, -1.0, -1.0]])
    g = np.array([1.0, 2.0, 0.5, -1.0])
    assert np.allclose(rms_norm(z, g, eps=1e-3), layer_norm(z, g, None, eps=1e-3), rtol=0, atol=1e-15)
    shifted = z + 1.0
    assert not np.allclose(rms_norm(shifted, g, eps=1e-3), layer_norm(shifted, g, None, eps=1e-3))


def test_conventions_figures(catalog):
    report = verify(catalog.get("norms.layernorm-variance"))
    conv = next(c for c in report.checks if c.name.startswith("conventions"))
    assert conv.passed
    at_small = conv.figures["eps=1e-05"]
    # unbiased variance shrinks the lecture token's output by the factor √(3/4): the ±√2 entries move by ≈ 0.19
    assert f"{at_small['max |unbiased - biased|']:.4f}" == "0.1895"
    assert 0 < at_small["max |eps outside - inside|"] < 1e-4
