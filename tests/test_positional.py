"""Sinusoidal positional encoding: derivations proved, wrong variants refuted, numpy helpers' values and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from derive import Derivation, Step, Verdict
from derive import check as verify
from derive.transformer import positional as pe
from derive.transformer.notation import sym

NAMES = [
    "positional.rotation",
    "positional.layouts",
    "positional.pair-norm",
    "positional.bounded",
    "positional.wavelengths",
    "positional.wavelength-ratio",
    "positional.dot-product-offset",
]


@pytest.mark.parametrize("name", NAMES)
def test_derivation_proves_and_cross_checks(assert_proves, name):
    assert_proves(name)


def test_flipped_rotation_sign_is_refuted(catalog, refute_step):
    d = catalog.get("positional.rotation")
    w, pos, k = sym("omega"), sym("pos"), sym("k")
    flipped = sp.MatMul(sp.ImmutableMatrix([[sp.cos(k * w), -sp.sin(k * w)], [sp.sin(k * w), sp.cos(k * w)]]),
                        sp.ImmutableMatrix([sp.sin(w * pos), sp.cos(w * pos)]), evaluate=False)
    result = refute_step(d, 2, flipped)
    assert result.verdict is Verdict.REFUTED
    assert result.counterexample.digits >= 60


def test_wrong_permutation_is_refuted(catalog, refute_step):
    d = catalog.get("positional.layouts")
    i, dm, pos = sym("i_pair"), sym("d_model"), sym("pos")
    w = sp.Integer(10000) ** (-2 * i / dm)
    # sines and cosines swapped: the permutation π(j) = 2j + 1 for the sine half
    assert refute_step(d, 1, sp.ImmutableMatrix([sp.cos(pos * w), sp.sin(pos * w)])).verdict is Verdict.REFUTED
    # no permutation at all: the interleaved row is not the concatenated one (d_model = 8)
    omegas = [sp.Integer(10000) ** sp.Rational(-2 * k, 8) for k in range(4)]
    row = sp.ImmutableMatrix([[f(pos * wk) for wk in omegas for f in (sp.sin, sp.cos)]])
    concat = sp.ImmutableMatrix([[sp.sin(pos * wk) for wk in omegas] + [sp.cos(pos * wk) for wk in omegas]])
    one = Derivation(name="test.layout", title="t", start=row, steps=(Step(concat, "claimed"),))
    assert verify(one, numeric=False, budget=1.0).steps[0].verdict is Verdict.REFUTED


def test_layout_permutation_values():
    assert pe.interleaved_to_concatenated(4).tolist() == [0, 2, 1, 3]
    assert pe.interleaved_to_concatenated(8).tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    pos = np.array([0.0, 1.0, 3.0])
    inter, concat = pe.sinusoidal_encoding(pos, 6), pe.concatenated_encoding(pos, 6)
    assert np.array_equal(inter[:, pe.interleaved_to_concatenated(6)], concat)
    assert concat[1].tolist() == pytest.approx([math.sin(1), math.sin(10000 ** (-2 / 6)), math.sin(10000 ** (-4 / 6)),
                                                math.cos(1), math.cos(10000 ** (-2 / 6)), math.cos(10000 ** (-4 / 6))],
                                               abs=1e-15)


@pytest.mark.parametrize("bad", [0, 3, 7, -2, 2.0, True])
def test_concatenated_layout_needs_even_width(bad):
    with pytest.raises(ValueError, match=r"^the concatenated layout needs a positive even d_model"):
        pe.concatenated_encoding(np.arange(3), bad)
    with pytest.raises(ValueError, match=r"^the concatenated layout needs a positive even d_model"):
        pe.interleaved_to_concatenated(bad)


def test_pair_norm_wrong_total_is_refuted(catalog, refute_step):
    d = catalog.get("positional.pair-norm")
    assert refute_step(d, 2, 2 * sym("n_pairs")).verdict is Verdict.REFUTED  # ‖PE‖² = d_model would be wrong
    enc = pe.sinusoidal_encoding(np.array([0.0, 17.0, 12345.0]), 512)
    assert np.allclose((enc**2).sum(axis=1), 256.0, rtol=0, atol=1e-10)


def test_bound_wrong_constant_is_refuted(catalog, refute_step):
    d = catalog.get("positional.bounded")
    result = refute_step(d, 2, sp.Rational(1, 2))  # sin² + cos² = 1/2
    assert result.verdict is Verdict.REFUTED


def test_wrong_wavelength_exponent_is_refuted(catalog, refute_step):
    d = catalog.get("positional.wavelengths")
    dm = sym("d_model")
    assert refute_step(d, 2, 2 * sp.pi * sp.Integer(10000) ** (1 - 1 / dm)).verdict is Verdict.REFUTED
    # claiming the largest wavelength reaches 10000·2π: the strict bound is not an equality
    assert refute_step(d, 3, 2 * sp.pi * 10000, relation="=").verdict is Verdict.REFUTED
    ratio = catalog.get("positional.wavelength-ratio")
    assert refute_step(ratio, 2, sp.Integer(10000) ** (1 / dm)).verdict is Verdict.REFUTED


def test_wavelength_values():
    lam = pe.wavelengths(4)
    assert lam.tolist() == pytest.approx([2 * math.pi, 200 * math.pi], rel=1e-15)
    lam = pe.wavelengths(512)
    assert lam.size == 256 and lam[0] == 2 * math.pi
    assert lam[-1] == pytest.approx(2 * math.pi * 10000 ** (1 - 2 / 512), rel=1e-12)
    assert f"{lam[-1]:.1f}" == "60611.5"
    assert np.all(np.diff(lam) > 0) and lam[-1] < 2 * math.pi * 10000
    odd = pe.wavelengths(5)  # 3 pairs under the odd rule
    assert odd.tolist() == pytest.approx([2 * math.pi * 10000 ** (2 * i / 5) for i in range(3)], rel=1e-14)
    assert odd[-1] < 2 * math.pi * 10000
    with pytest.raises(ValueError, match=r"^d_model must be a positive integer"):
        pe.wavelengths(0)


def test_dot_product_wrong_claims_are_refuted(catalog, refute_step):
    d = catalog.get("positional.dot-product-offset")
    i, m, dm, k, pos = sym("i_pair"), sym("n_pairs"), sym("d_model"), sym("k"), sym("pos")
    w = sp.Integer(10000) ** (-2 * i / dm)
    # the dot product does not depend on pos: a claim that keeps pos is wrong
    assert refute_step(d, 2, sp.Sum(sp.cos((pos + k) * w), (i, 0, m - 1))).verdict is Verdict.REFUTED
    # a sign slip in the angle-difference formula
    assert refute_step(d, 1, sp.Sum(sp.cos((pos + k) * w + pos * w), (i, 0, m - 1))).verdict is Verdict.REFUTED
    assert pos not in d.end.free_symbols


def test_dot_product_numbers_at_512():
    enc = pe.sinusoidal_encoding(np.array([3.0, 10.0, 500.0, 503.0, 510.0]), 512)
    # offsets of 7 from different positions give the same dot product
    assert float(enc[0] @ enc[1]) == pytest.approx(float(enc[3] @ enc[4]), abs=1e-10)
    omega = 10000.0 ** (-2.0 * np.arange(256) / 512)
    assert float(enc[2] @ enc[3]) == pytest.approx(float(np.cos(3 * omega).sum()), abs=1e-10)


def test_odd_d_model_rule():
    # d_model = 5: three pairs, the last cosine dropped, so column 4 is a sine with ω_2 = 10000^(−4/5)
    enc = pe.sinusoidal_encoding(np.array([0.0, 1.0, 2.0]), 5)
    assert enc.shape == (3, 5)
    assert enc[1].tolist() == pytest.approx([math.sin(1), math.cos(1), math.sin(10000 ** -0.4), math.cos(10000 ** -0.4),
                                             math.sin(10000 ** -0.8)], abs=1e-15)
    assert enc[0].tolist() == [0.0, 1.0, 0.0, 1.0, 0.0]
    one = pe.sinusoidal_encoding(np.array([2.0]), 1)
    assert one.shape == (1, 1) and one[0, 0] == pytest.approx(math.sin(2.0))
    # the odd width keeps the exponent's denominator: not the first 5 columns of the d_model = 6 encoding
    assert not np.allclose(enc, pe.sinusoidal_encoding(np.array([0.0, 1.0, 2.0]), 6)[:, :5])


@pytest.mark.parametrize("bad", [0, -4, 2.5, True, "8"])
def test_encoding_rejects_bad_width(bad):
    with pytest.raises(ValueError, match=r"^d_model must be a positive integer"):
        pe.sinusoidal_encoding(np.arange(3), bad)
