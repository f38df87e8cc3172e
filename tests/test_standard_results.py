"""The standard results of issue 24 item 4: Chinchilla's optimum, a linear layer's backward pass, the norms'
invariances, RoPE's complex form and layouts, position interpolation, FlashAttention's IO counts."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from derive import Verdict
from derive import check as verify
from derive.transformer import chinchilla, flash_io, glu_variants, gqa, linear_backward, rope_complex, rope_scaling
from derive.transformer.notation import sym

NAMES = [
    "scaling.chinchilla-loss-slope",
    "scaling.chinchilla-minimum",
    "scaling.chinchilla-n-opt",
    "scaling.chinchilla-d-opt",
    "norms.rmsnorm-scale-invariance",
    "norms.rmsnorm-eps-scale",
    "norms.layernorm-shift-scale-invariance",
    "rope.complex-multiplication",
    "rope.layouts",
    "rope.position-interpolation",
    "efficient.standard-attention-io",
    "efficient.flash-attention-io",
    "ffn.geglu",
    "ffn.reglu-homogeneity",
    "rope.long-term-decay",
]
#: index ranges are premises (i ≤ n): the claim's random points honour them
WITH_RANGE_PREMISES = ["gradients.linear-dx", "gradients.linear-dw", "gradients.linear-db",
                       "multihead.gqa-repeat-kv"]


@pytest.mark.parametrize("name", NAMES + WITH_RANGE_PREMISES)
def test_derivation_proves_and_cross_checks(assert_proves, name):
    assert_proves(name)


@pytest.mark.parametrize("name", WITH_RANGE_PREMISES)
def test_index_ranges_are_premises(catalog, name):
    d = catalog.get(name)
    assert d.premises and not d.instance


def test_chinchilla_closed_form_is_eq4(catalog):
    al, be, A, B, C = (sym(n) for n in ("chin_alpha", "chin_beta", "chin_A", "chin_B", "compute"))
    d = catalog.get("scaling.chinchilla-d-opt")
    G = (al * A / (be * B)) ** (1 / (al + be))
    assert sp.simplify(d.end - (C / 6) ** (al / (al + be)) / G) == 0
    assert catalog.get("scaling.chinchilla-n-opt").end == 0
    n, dd = chinchilla.chinchilla_optimum(np.array([5.88e23]))
    assert 6 * n[0] * dd[0] == pytest.approx(5.88e23, rel=1e-12)
    assert n[0] == pytest.approx(3.25e10, rel=0.01)


def test_wrong_chinchilla_exponent_is_refuted(catalog, refute_step):
    d = catalog.get("scaling.chinchilla-d-opt")
    al, be, A, B, C = (sym(n) for n in ("chin_alpha", "chin_beta", "chin_A", "chin_B", "compute"))
    G = (al * A / (be * B)) ** (1 / (al + be))
    assert refute_step(d, 2, (C / 6) ** (be / (al + be)) / G).verdict is Verdict.REFUTED


def test_scale_left_in_rmsnorm_is_refuted(catalog, refute_step):
    d = catalog.get("norms.rmsnorm-scale-invariance")
    assert refute_step(d, 3, sym("a") * d.end).verdict is Verdict.REFUTED


def test_flash_count_wrong_constant_is_refuted(catalog, refute_step):
    d = catalog.get("efficient.flash-attention-io")
    N, dk, M = sym("n_ctx"), sym("d_k"), sp.Symbol("M", positive=True)
    assert refute_step(d, 2, 2 * N * dk + 4 * N**2 * dk**2 / M).verdict is Verdict.REFUTED


def test_linear_backward_against_numpy():
    rng = np.random.default_rng(0)
    X, W, dY = rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=(3, 2))
    dX, dW, db = linear_backward.linear_backward(X, W, dY)
    assert dX.shape == (3, 4) and dW.shape == (4, 2) and db.shape == (2,)
    assert np.allclose(dX, dY @ W.T) and np.allclose(db, dY.sum(axis=0))
    with pytest.raises(ValueError, match=r"^expected X \(n, d_in\), W \(d_in, d_out\), dY \(n, d_out\)"):
        linear_backward.linear_backward(X, W.T, dY)


def test_flash_io_counts():
    assert flash_io.standard_attention_io(1024, 64) == 4_456_448
    assert flash_io.flash_attention_io(1024, 64, 16384, 64) == 2 * 1024 * 64 + 4 * 1024**2 * 64 * 196 // 16384
    with pytest.raises(ValueError, match=r"^the blocks must divide evenly"):
        flash_io.flash_attention_io(1000, 64, 16384, 64)
    with pytest.raises(ValueError, match=r"^n must be a positive integer"):
        flash_io.standard_attention_io(0, 64)


def test_rope_layouts_and_interpolation_helpers():
    from derive.transformer.rope import rope_rotate

    x = np.arange(8.0).reshape(1, 8)
    perm = rope_complex.interleaved_to_half(8)
    assert perm.tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    assert np.allclose(rope_complex.rope_rotate_half(x[:, perm], [7]), rope_rotate(x, [7])[:, perm])
    ang = rope_scaling.interpolated_angles(np.arange(8192), 2048, 8192, 128)
    assert ang.shape == (8192, 64) and float(ang[:, 0].max()) < 2048
    with pytest.raises(ValueError, match=r"^need 0 < L ≤ L'"):
        rope_scaling.interpolated_angles(np.arange(4), 8, 4, 8)
    with pytest.raises(ValueError, match=r"^RoPE needs a positive even head width"):
        rope_complex.interleaved_to_half(7)


def test_gqa_head_index_and_repeat():
    assert [gqa.kv_head_of(i, 8, 2) for i in range(1, 9)] == [1, 1, 1, 1, 2, 2, 2, 2]
    assert [gqa.kv_head_of(i, 4, 1) for i in range(1, 5)] == [1, 1, 1, 1]
    assert gqa.repeat_kv(np.arange(2.0).reshape(2, 1, 1), 3)[:, 0, 0].tolist() == [0, 0, 0, 1, 1, 1]
    with pytest.raises(ValueError, match=r"^n_kv_heads = 3 must divide n_heads = 8$"):
        gqa.kv_head_of(1, 8, 3)


def test_sifting_to_the_wrong_kv_head_is_refuted(catalog, refute_step):
    d = catalog.get("multihead.gqa-repeat-kv")
    i, h, h_kv = sym("head_index"), sym("n_heads"), sym("n_kv_heads")
    wrong = d.end.xreplace({sp.ceiling(i * h_kv / h): sp.Integer(1)})
    assert wrong != d.end
    assert refute_step(d, 1, wrong).verdict is Verdict.REFUTED


def test_glu_variants_helper():
    rng = np.random.default_rng(1)
    x, w, v, w2 = rng.normal(size=(2, 3)), rng.normal(size=(3, 5)), rng.normal(size=(3, 5)), rng.normal(size=(5, 3))
    assert np.allclose(glu_variants.glu_ffn(2 * x, w, v, w2, "relu"), 4 * glu_variants.glu_ffn(x, w, v, w2, "relu"))
    with pytest.raises(ValueError, match=r"^gate must be 'gelu', 'relu' or 'swish'"):
        glu_variants.glu_ffn(x, w, v, w2, "tanh")


def test_shift_index_is_a_checked_primitive(catalog):
    from derive.core import Derivation, Step
    from derive.kernel.primitives import is_primitive
    from derive.kernel.sum_moves import ShiftIndex

    i, M = sp.Symbol("i", integer=True), sym("n_pairs")
    f = sp.IndexedBase("f", real=True)
    s = sp.Sum(f[i], (i, 1, M))
    assert is_primitive(ShiftIndex(s, 2))
    good = Derivation(name="t.shift", title="t", start=s, steps=(Step(sp.Sum(f[i - 2], (i, 3, M + 2)), "shift",
                                                                       rule=ShiftIndex(s, 2)),))
    assert verify(good, numeric=False).steps[0].verdict is Verdict.PROVED
    # a shift that moves the bounds but forgets the summand is not proved
    bad = Derivation(name="t.shift", title="t", start=s, steps=(Step(sp.Sum(f[i], (i, 3, M + 2)), "shift",
                                                                      rule=ShiftIndex(s, 2)),))
    assert verify(bad, numeric=False).steps[0].verdict is not Verdict.PROVED
    half = Derivation(name="t.shift", title="t", start=s, steps=(Step(sp.Sum(f[i - sp.Rational(1, 2)], (
        i, sp.Rational(3, 2), M + sp.Rational(1, 2))), "shift", rule=ShiftIndex(s, sp.Rational(1, 2))),))
    assert verify(half, numeric=False).steps[0].verdict is not Verdict.PROVED


def test_abel_summation_wrong_boundary_refuted(catalog, refute_step):
    d = catalog.get("rope.long-term-decay")
    M = sym("n_pairs")
    h, S = sp.IndexedBase("h", complex=True), sp.IndexedBase("S", complex=True)
    wrong = d.end + h[1] * S[0]  # the boundary term h_1 S_0 dropped
    assert refute_step(d, 5, wrong).verdict is Verdict.REFUTED
    assert M in d.end.free_symbols
