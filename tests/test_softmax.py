"""Softmax: temperature limits, √d_k as temperature, Jacobian, saturation, log-softmax, numeric edge cases."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from derive import Verdict
from derive import check as verify
from derive.transformer.softmax_numeric import log_softmax, logsumexp, softmax, softmax_jacobian

NAMES = [
    "softmax.shift-invariance",
    "softmax.max-trick",
    "softmax.max-trick-lower-bound",
    "softmax.temperature-zero",
    "softmax.temperature-zero-ties",
    "softmax.temperature-infinity",
    "softmax.sqrt-dk-temperature",
    "softmax.jacobian",
    "softmax.saturation",
    "softmax.log-softmax",
]


@pytest.mark.parametrize("name", NAMES)
def test_proved_cross_checked_and_rendered(assert_proves, name):
    assert_proves(name)


def test_temperature_limits_values(catalog):
    n, m = (next(x for x in catalog.get(name).end.free_symbols | catalog.get(name).start.free_symbols
                 if x.name == k) for name, k in (("softmax.temperature-infinity", "n"),
                                                 ("softmax.temperature-zero-ties", "m")))
    assert catalog.get("softmax.temperature-zero").end == sp.ImmutableMatrix([1, 0])
    assert catalog.get("softmax.temperature-zero-ties").end == sp.ImmutableMatrix([1 / m, 0])
    assert catalog.get("softmax.temperature-infinity").end == 1 / n
    # general: the length n of the score vector is a symbol in every one of them
    for name in ("softmax.temperature-zero", "softmax.temperature-zero-ties", "softmax.temperature-infinity",
                 "softmax.saturation"):
        d = catalog.get(name)
        assert any(isinstance(s, sp.Sum) and s.limits[0][2].free_symbols for s in d.start.atoms(sp.Sum)), name


@pytest.mark.parametrize("name, wrong", [
    ("softmax.temperature-zero", [sp.Rational(1, 2), sp.Rational(1, 2)]),  # uniform at T → 0
    ("softmax.temperature-zero-ties", [1, 0]),  # ties not shared
    ("softmax.temperature-infinity", 1),  # one-hot at T → ∞
    ("softmax.saturation", [[sp.Rational(1, 4), 0], [0, sp.Rational(1, 4)]]),  # Jacobian not vanishing
])
def test_wrong_limits_are_refuted(catalog, name, wrong, with_last):
    wrong = sp.ImmutableMatrix(wrong) if isinstance(wrong, list) else sp.Integer(wrong)
    report = verify(with_last(catalog.get(name), wrong), numeric=False)
    assert report.steps[-1].verdict is Verdict.REFUTED
    assert not report.ok


def test_wrong_jacobian_sign_is_refuted(catalog, with_last):
    d = catalog.get("softmax.jacobian")
    z = sp.IndexedBase("z", real=True)
    (S,) = {x for x in d.end.atoms(sp.Sum)}
    i, j = sorted((x for x in d.end.free_symbols if x.name in ("i", "j")), key=str)
    delta = sp.KroneckerDelta(i, j)
    for wrong in (sp.exp(z[i]) / S * (sp.exp(z[j]) / S - delta),  # sign flipped
                  sp.exp(z[i]) / S * (1 - sp.exp(z[j]) / S)):  # δ_ij replaced by 1
        report = verify(with_last(d, wrong), numeric=False)
        assert report.steps[-1].verdict is Verdict.REFUTED, wrong


def test_wrong_log_softmax_is_refuted(catalog, with_last):
    d = catalog.get("softmax.log-softmax")
    (S_c,) = {x for x in d.end.atoms(sp.Sum)}
    z_i = next(x for x in d.end.atoms(sp.Indexed) if str(x) == "z[i]")
    report = verify(with_last(d, z_i - sp.log(S_c)), numeric=False)  # forgot the shift c
    assert report.steps[-1].verdict is Verdict.REFUTED


def test_sqrt_dk_temperature_at_the_lecture_width():
    # d_k = 4: dividing by √4 is temperature 2, the lecture's third row for z = [2, 0, 1]
    z = np.array([2.0, 0.0, 1.0])
    assert np.allclose(softmax(z / np.sqrt(4)), softmax(z, 2.0), atol=1e-15)
    assert [f"{x:.3f}" for x in softmax(z, 2.0)] == ["0.506", "0.186", "0.307"]


def test_saturation_figures(catalog):
    check = catalog.get("softmax.saturation").checks[0]
    result = check.run(1)
    assert result.passed
    assert result.figures["median_jacobian_norm_unscaled"] < 0.25 * result.figures["median_jacobian_norm_scaled"]
    assert result.figures["median_top_weight_unscaled"] > 0.9


# ----------------------------------------------------------------------------
# numeric helpers: edge cases
# ----------------------------------------------------------------------------


def test_temperature_zero_is_argmax_with_ties_shared():
    assert softmax([1.0, 3.0, 2.0], 0.0).tolist() == [0.0, 1.0, 0.0]
    assert softmax([3.0, 1.0, 3.0], 0.0).tolist() == [0.5, 0.0, 0.5]
    assert softmax([[1.0, -np.inf], [2.0, 2.0]], 0.0).tolist() == [[1.0, 0.0], [0.5, 0.5]]


def test_temperature_infinity_is_uniform_over_unmasked():
    assert softmax([5.0, -2.0, 1e6], np.inf).tolist() == pytest.approx([1 / 3] * 3)
    assert softmax([5.0, -np.inf, 1.0], np.inf).tolist() == [0.5, 0.0, 0.5]


def test_fully_masked_row_and_nan_raise():
    with pytest.raises(ValueError, match="fully masked"):
        softmax([[0.0, 1.0], [-np.inf, -np.inf]])
    with pytest.raises(ValueError, match="fully masked"):
        logsumexp([-np.inf, -np.inf])
    with pytest.raises(ValueError, match="fully masked"):
        log_softmax([-np.inf])
    with pytest.raises(ValueError, match="NaN"):
        softmax([0.0, np.nan])
    with pytest.raises(ValueError, match="NaN"):
        logsumexp([np.nan])
    for bad in (-1.0, np.nan):
        with pytest.raises(ValueError, match="temperature"):
            softmax([0.0, 1.0], bad)


def test_partially_masked_and_infinite_scores_never_nan():
    out = softmax([0.0, -np.inf, 0.0])
    assert out.tolist() == [0.5, 0.0, 0.5]
    out = softmax([1.0, np.inf, np.inf, -np.inf])
    assert out.tolist() == [0.0, 0.5, 0.5, 0.0]
    assert not np.any(np.isnan(softmax(np.array([[1e308, -1e308], [np.inf, 0.0]]))))


def test_large_scores_and_logsumexp():
    assert softmax([1000.0, 1001.0, 1002.0]).round(4).tolist() == [0.0900, 0.2447, 0.6652]
    assert logsumexp([1000.0, 1000.0]) == pytest.approx(1000 + np.log(2), rel=1e-15)
    assert logsumexp(np.array([[0.0, 0.0], [1e4, -1e4]])).tolist() == pytest.approx([np.log(2), 1e4])
    assert log_softmax([0.0, 1000.0]).tolist() == [-1000.0, 0.0]
    assert logsumexp([1.0, np.inf]) == np.inf


def test_jacobian_helper():
    s = softmax(np.array([0.3, -1.2, 2.0]))
    J = softmax_jacobian(s)
    assert np.allclose(J, J.T) and np.allclose(J.sum(axis=1), 0)
    assert J[0, 1] == pytest.approx(-s[0] * s[1]) and J[2, 2] == pytest.approx(s[2] * (1 - s[2]))
    with pytest.raises(ValueError, match="1-D"):
        softmax_jacobian(np.eye(2))
