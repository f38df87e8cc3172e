"""Positions beyond sinusoids: RoPE, ALiBi and the causal mask — proofs, refutations, numpy values, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from derive import Verdict
from derive.transformer import alibi, masking, rope
from derive.transformer.notation import sym, vec

NAMES = [
    "rope.relative-dot-product",
    "rope.norm-preserved",
    "rope.example",
    "alibi.slopes-geometric",
    "alibi.weight-ratio",
    "alibi.row-shift",
    "alibi.example",
    "mask.causal-prefix",
    "mask.fully-masked-fill",
    "mask.first-token",
]


@pytest.mark.parametrize("name", NAMES)
def test_derivation_proves_and_cross_checks(assert_proves, name):
    assert_proves(name)


def test_general_claims_use_a_symbolic_size(catalog):
    # the laws are sums of symbolic length, not instances
    for name in ("rope.relative-dot-product", "rope.norm-preserved"):
        start = catalog.get(name).start
        assert isinstance(start, sp.Sum) and sym("n_pairs") in start.free_symbols
    assert {sym("prefix"), sym("n_masked")} <= catalog.get("mask.causal-prefix").start.free_symbols
    assert sym("n_heads") in catalog.get("alibi.slopes-geometric").start.free_symbols


def test_rope_score_with_sum_of_positions_is_refuted(catalog, refute_step):
    d = catalog.get("rope.relative-dot-product")
    i, half, q, k, th = sym("i_pair"), sym("n_pairs"), vec("q"), vec("k"), vec("theta")
    pm, pn = sym("pos_m"), sym("pos_n")
    dot = q[2 * i] * k[2 * i] + q[2 * i + 1] * k[2 * i + 1]
    cross = q[2 * i] * k[2 * i + 1] - q[2 * i + 1] * k[2 * i]
    wrong = sp.Sum(dot * sp.cos((pm + pn) * th[i]) + cross * sp.sin((pm + pn) * th[i]), (i, 0, half - 1))
    assert refute_step(d, 2, wrong).verdict is Verdict.REFUTED
    # the sine term's sign matters: it is what tells m − n from n − m
    flipped = sp.Sum(dot * sp.cos((pm - pn) * th[i]) - cross * sp.sin((pm - pn) * th[i]), (i, 0, half - 1))
    assert refute_step(d, 2, flipped).verdict is Verdict.REFUTED


def test_rope_example_value(catalog):
    d = catalog.get("rope.example")
    assert sp.simplify(d.end[0, 0] - (5 - 5 * sp.sqrt(3)) / 2) == 0
    q, k = np.array([rope.EXAMPLE_Q], float), np.array([rope.EXAMPLE_K], float)
    # the numpy helper with one pair and base chosen so that θ_0 = 1: angle p radians
    a = (rope.rope_rotate(q, [2]) @ rope.rope_rotate(k, [1]).T)[0, 0]
    b = (rope.rope_rotate(q, [7]) @ rope.rope_rotate(k, [6]).T)[0, 0]
    assert a == pytest.approx(b, abs=1e-12) and a == pytest.approx(5 * math.cos(1) - 5 * math.sin(1), abs=1e-12)


def test_rope_numpy_values_and_errors():
    theta = rope.rope_frequencies(8)
    assert theta.tolist() == pytest.approx([1.0, 0.1, 0.01, 0.001])
    x = np.array([[1.0, 0.0, 0.0, 1.0]])
    out = rope.rope_rotate(x, [math.pi / 2])  # pair 0 turns by π/2: (1, 0) → (0, 1)
    assert out[0, :2] == pytest.approx([0.0, 1.0], abs=1e-15)
    with pytest.raises(ValueError, match=r"^RoPE needs a positive even head width, got 3$"):
        rope.rope_rotate(np.ones((1, 3)), [0])
    with pytest.raises(ValueError, match=r"^2 positions for 1 rows$"):
        rope.rope_rotate(np.ones((1, 4)), [0, 1])


def test_alibi_slopes_and_bias_values():
    assert alibi.alibi_slopes(8).tolist() == [2.0 ** -k for k in range(1, 9)]
    assert alibi.alibi_slopes(16)[0] == pytest.approx(2 ** -0.5) and alibi.alibi_slopes(16)[-1] == 1 / 256
    b = alibi.alibi_bias(3, 0.5)
    assert b[2].tolist() == [-1.0, -0.5, 0.0] and np.isneginf(b[0, 1])
    with pytest.raises(ValueError, match=r"^n_heads must be a positive integer, got 0$"):
        alibi.alibi_slopes(0)


def test_alibi_wrong_ratio_is_refuted(catalog, refute_step):
    d = catalog.get("alibi.weight-ratio")
    z, m, j, ll = vec("z"), sym("alibi_slope"), sym("j"), sym("l")
    assert refute_step(d, 3, sp.exp(z[j] - z[ll] + m * (ll - j))).verdict is Verdict.REFUTED


def test_alibi_example_weights(catalog):
    w = catalog.get("alibi.example").end
    assert float(sum(w)) == pytest.approx(1.0)
    assert [round(float(x), 3) for x in w] == [0.186, 0.307, 0.506]


def test_mask_prefix_end_and_wrong_denominator(catalog, refute_step):
    d = catalog.get("mask.causal-prefix")
    z, j, ll, p, r = vec("z"), sym("j"), sym("l"), sym("prefix"), sym("n_masked")
    visible = sp.Sum(sp.exp(z[ll]), (ll, 1, p))
    assert d.end == sp.Piecewise((sp.exp(z[j]), j <= p), (0, True)) / visible
    assert isinstance(d.start, sp.Mul) and any(isinstance(s, sp.Sum) and s.limits[0][2] == p + r
                                               for s in d.start.atoms(sp.Sum))
    # counting the masked keys as weight 1 (e^0) instead of e^(−∞) is wrong
    num = d.steps[0].expr.as_numer_denom()[0]
    wrong = num / (sp.Sum(sp.exp(z[ll]), (ll, 1, p - 1)) + sp.exp(z[p]) + sp.Sum(sp.Integer(1), (ll, p + 1, p + r)))
    assert refute_step(d, 2, wrong).verdict is Verdict.REFUTED


def test_first_token_row(catalog):
    assert catalog.get("mask.first-token").end == sp.ImmutableMatrix([[1, 0]])


def test_fully_masked_row_conventions():
    out = masking.fully_masked_demo(4)
    assert np.all(np.isnan(out["naive"]))
    assert out["finite_fill"].tolist() == [0.25] * 4
    assert out["derive"].startswith("ValueError: softmax of a fully masked row")
