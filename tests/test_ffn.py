"""FFN, GELU, Swish and SwiGLU: derivations proved, wrong variants refuted, numpy helpers' values and errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import sympy as sp

from derive import Derivation, Step, Verdict
from derive import check as verify
from derive.transformer.ffn import GELU_TANH_BOUND, ffn, gelu, relu, swiglu, swish
from derive.transformer.notation import sym

NAMES = ["ffn.relu-homogeneity", "ffn.gelu", "ffn.gelu-tanh", "ffn.swish-derivative", "ffn.swish-limits", "ffn.swiglu"]


@pytest.mark.parametrize("name", NAMES)
def test_derivation_proves_and_cross_checks(assert_proves, name):
    assert_proves(name)


def test_homogeneity_for_negative_scale_is_refuted():
    t, b = sym("t"), sp.Symbol("b", negative=True)
    d = Derivation(name="test.relu", title="t", start=sp.Max(0, b * t), steps=(Step(b * sp.Max(0, t), "claimed"),))
    assert verify(d, numeric=False, budget=1.0).steps[0].verdict is Verdict.REFUTED


def test_relu_rewrite_wrong_claim_is_refuted(catalog, refute_step):
    d = catalog.get("ffn.relu-homogeneity")
    a, t = sym("a"), sym("t")
    # scaling t but not |t| inside the rewritten max
    wrong = (a * t + sp.Abs(t)) / 2 - a * (t + sp.Abs(t)) / 2
    assert refute_step(d, 1, wrong).verdict is Verdict.REFUTED


def test_gelu_wrong_odd_part_is_refuted(catalog, refute_step):
    d = catalog.get("ffn.gelu")
    t = sym("t")
    assert refute_step(d, 3, 2 * t).verdict is Verdict.REFUTED
    # forgetting that erf is odd (claiming both halves carry +erf)
    erf = sp.erf(t / sp.sqrt(2))
    assert refute_step(d, 2, t * (1 + erf)).verdict is Verdict.REFUTED


def test_gelu_tanh_wrong_coefficient_is_refuted(catalog, refute_step):
    d = catalog.get("ffn.gelu-tanh")
    c = sym("c")
    # dropping the 1/6 from erf's cubic term
    assert refute_step(d, 2, (c - 2 / (3 * sp.pi)) / sp.sqrt(2 * sp.pi)).verdict is Verdict.REFUTED
    assert {ch.name: ch.figures["rounded"] for ch in verify(d).checks if hasattr(ch, "figures") and "rounded" in
            ch.figures} == {"the Taylor-matching constant 2/(3π) − 1/6": "0.04554",
                            "leading coefficient at the fitted c = 0.044715": "-3.29e-4"}


def test_swish_derivative_wrong_formula_is_refuted(catalog, refute_step):
    d = catalog.get("ffn.swish-derivative")
    t = sym("t")
    sigma = 1 / (1 + sp.exp(-t))
    # the sigmoid's own derivative, σ(1 − σ), is not Swish's
    assert refute_step(d, 2, sigma * (1 - sigma)).verdict is Verdict.REFUTED


def test_swish_limits_wrong_value_is_refuted(catalog, refute_step):
    d = catalog.get("ffn.swish-limits")
    assert refute_step(d, 1, sp.ImmutableMatrix([0, 1])).verdict is Verdict.REFUTED


def test_swiglu_limit_without_half_is_refuted(catalog, refute_step):
    d = catalog.get("ffn.swiglu")
    u, v = sp.Symbol("u", real=True), sp.Symbol("v", real=True)
    assert refute_step(d, 1, u * v).verdict is Verdict.REFUTED


# --- numpy helpers ------------------------------------------------------------------------------------------


def test_activation_values():
    assert relu(np.array([-2.0, 0.0, 3.5])).tolist() == [0.0, 0.0, 3.5]
    assert float(gelu(np.array(1.0))) == pytest.approx(0.5 * (1 + math.erf(1 / math.sqrt(2))), rel=1e-15)
    assert f"{float(gelu(np.array(1.0))):.6f}" == "0.841345"
    assert f"{float(gelu(np.array(1.0), 'tanh')):.6f}" == "0.841192"
    assert gelu(np.array([0.0, -40.0])).tolist() == [0.0, -0.0]
    assert gelu(np.zeros((2, 3))).shape == (2, 3)
    with pytest.raises(ValueError, match=r"^approximate must be 'none' or 'tanh', got 'fast'"):
        gelu(np.ones(2), "fast")


def test_gelu_tanh_gap_figures(catalog):
    report = verify(catalog.get("ffn.gelu"))
    fig = next(c for c in report.checks if "tanh" in c.name).figures
    assert f"{fig['max_abs_gap']:.2e}" == "4.73e-04" and fig["max_abs_gap"] <= GELU_TANH_BOUND
    assert f"{fig['at']:.2f}" == "2.70"


def test_swish_values_and_no_overflow():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow warning would fail the test
        out = swish(np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0]))
    assert out[0] == 0.0 and out[2] == 0.0 and out[4] == 1000.0
    assert out[1] == pytest.approx(-1 / (1 + math.e), rel=1e-15)
    assert out[3] == pytest.approx(1 / (1 + math.exp(-1)), rel=1e-15)


def test_ffn_values_and_shapes():
    x = np.array([[1.0, -1.0]])  # (1, d_model = 2)
    w1 = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]])  # (2, d_ff = 3)
    b1 = np.array([0.0, 0.5, 0.0])
    w2 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # (3, 2)
    b2 = np.array([0.0, 10.0])
    # xW₁ + b₁ = (1, −0.5, 1) → ReLU (1, 0, 1) → (2, 1) + b₂
    assert ffn(x, w1, b1, w2, b2).tolist() == [[2.0, 11.0]]
    assert ffn(x, w1, None, w2, None).tolist() == [[2.0, 1.0]]
    batch = np.zeros((4, 5, 2))
    assert ffn(batch, w1, b1, w2, b2).shape == (4, 5, 2)
    gelu_out = ffn(x, w1, b1, w2, b2, activation="gelu")
    g1, g_half = float(gelu(np.array(1.0))), float(gelu(np.array(-0.5)))
    assert gelu_out.tolist() == [pytest.approx([2 * g1, g_half + g1 + 10.0], rel=1e-15)]


@pytest.mark.parametrize(
    "args, pattern",
    [
        ((np.ones(2), np.ones((3, 4)), None, np.ones((4, 2)), None), r"^w1 must have shape \(2, ·\), got \(3, 4\)"),
        ((np.ones(2), np.ones((2, 4)), None, np.ones((3, 2)), None), r"^w2 must have shape \(4, ·\), got \(3, 2\)"),
        ((np.ones(2), np.ones((2, 4)), None, np.ones((4, 3)), None), r"^w2 must have shape \(4, 2\), got \(4, 3\)"),
        ((np.ones(2), np.ones((2, 4)), np.ones(3), np.ones((4, 2)), None), r"^b1 must have shape \(4,\), got \(3,\)"),
        ((np.ones(2), np.ones((2, 4)), None, np.ones((4, 2)), np.ones(4)), r"^b2 must have shape \(2,\), got \(4,\)"),
        ((1.0, np.ones((1, 4)), None, np.ones((4, 1)), None), r"^x must have shape \(\.\.\., d_model\), got a scalar"),
    ],
)
def test_ffn_shape_errors(args, pattern):
    with pytest.raises(ValueError, match=pattern):
        ffn(*args)


def test_ffn_unknown_activation():
    with pytest.raises(ValueError, match=r"^activation must be one of \['gelu', 'gelu_tanh', 'relu'\], got 'tanh'"):
        ffn(np.ones(2), np.ones((2, 3)), None, np.ones((3, 2)), None, activation="tanh")


def test_swiglu_values_and_errors():
    x = np.array([1.0, 2.0])  # (d_model = 2,)
    w = np.array([[1.0, 0.0], [0.0, -1.0]])  # gate, (2, d_ff = 2)
    v = np.array([[1.0, 1.0], [1.0, 0.0]])  # value, (2, 2)
    w2 = np.array([[1.0, 0.0], [0.0, 1.0]])  # (2, 2)
    # xW = (1, −2), xV = (3, 1): Swish(1)·3 and Swish(−2)·1
    expected = [3 / (1 + math.exp(-1)), -2 / (1 + math.exp(2))]
    assert swiglu(x, w, v, w2).tolist() == pytest.approx(expected, rel=1e-15)
    assert swiglu(np.zeros((3, 7, 2)), w, v, w2).shape == (3, 7, 2)
    with pytest.raises(ValueError, match=r"^v must have the shape of w \(2, 2\), got \(2, 3\)"):
        swiglu(x, w, np.ones((2, 3)), w2)
    with pytest.raises(ValueError, match=r"^w must have shape \(2, ·\), got \(3, 2\)"):
        swiglu(x, np.ones((3, 2)), v, w2)
    with pytest.raises(ValueError, match=r"^w2 must have shape \(2, 2\), got \(2, 3\)"):
        swiglu(x, w, v, np.ones((2, 3)))
