"""Numerically stable softmax for the cross-checks and plots (numpy only).

Conventions, chosen once and documented here:

* the maximum is subtracted before exponentiating (the max trick), so no
  finite input overflows;
* ``temperature=0`` is the limit T → 0⁺: the weight is shared equally by the
  entries that attain the maximum (a one-hot vector when there is one);
  ``temperature=inf`` is the limit T → ∞: uniform over the unmasked entries;
* ``+inf`` scores take all the weight, shared equally; NaN scores raise
  ``ValueError``;
* a row whose entries are all ``-inf`` (fully masked) raises ``ValueError``:
  there is no distribution to return, and NaN is never returned.
"""

from __future__ import annotations

import numpy as np


def logsumexp(z: np.ndarray, axis: int = -1) -> np.ndarray:
    """log Σ exp(z) along ``axis``, computed as max + log Σ exp(z − max).

    Raises:
        ValueError: a slice is entirely ``-inf`` (fully masked).
    """
    z = np.asarray(z, dtype=np.float64)
    if np.any(np.isnan(z)):
        raise ValueError("scores contain NaN; log-sum-exp is undefined there")
    m = np.max(z, axis=axis, keepdims=True)
    if np.any(np.isneginf(m)):
        raise ValueError("softmax of a fully masked row (all -inf) is undefined; mask fewer positions")
    finite_m = np.where(np.isposinf(m), 0.0, m)  # a +inf maximum: the result is +inf
    with np.errstate(invalid="ignore"):
        total = np.sum(np.exp(np.where(np.isposinf(m), 0.0, z - finite_m)), axis=axis)
    return np.squeeze(m, axis=axis) + np.where(np.isposinf(np.squeeze(m, axis=axis)), 0.0, np.log(total))


def log_softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    """log softmax(z) = z − logsumexp(z), stable for large |z|.

    Raises:
        ValueError: a slice is entirely ``-inf``.
    """
    z = np.asarray(z, dtype=np.float64)
    return z - np.expand_dims(logsumexp(z, axis=axis), axis)


def softmax(z: np.ndarray, temperature: float = 1.0, axis: int = -1) -> np.ndarray:
    """softmax(z / T) along ``axis``, with the max trick.

    Args:
        z: scores, any shape; ``-inf`` marks a masked position. ``+inf`` scores
            take all the weight, shared equally (the limit of a score growing
            without bound).
        temperature: T ≥ 0. ``T = 0`` returns the argmax limit (ties share
            equally); ``T = inf`` returns the T → ∞ limit, uniform over the
            unmasked positions.
        axis: the axis that sums to 1.

    Returns:
        Array of the same shape as ``z``, non-negative, summing to 1 along
        ``axis``; never NaN.

    Raises:
        ValueError: ``temperature`` is negative or NaN, ``z`` contains NaN,
            or a slice is all ``-inf``.
    """
    z = np.asarray(z, dtype=np.float64)
    if np.isnan(temperature) or temperature < 0:
        raise ValueError(f"temperature must be a number >= 0 (or inf), got {temperature!r}")
    if np.any(np.isnan(z)):
        raise ValueError("scores contain NaN; softmax is undefined there")
    m = np.max(z, axis=axis, keepdims=True)
    if np.any(np.isneginf(m)):
        raise ValueError("softmax of a fully masked row (all -inf) is undefined; mask fewer positions")
    if np.isposinf(temperature):
        hits = (~np.isneginf(z)).astype(np.float64)
        return hits / hits.sum(axis=axis, keepdims=True)
    if temperature == 0:
        hits = (z == m).astype(np.float64)
        return hits / hits.sum(axis=axis, keepdims=True)
    # rows whose maximum is +inf: the +inf entries share the weight (exponent 0), the rest get none
    with np.errstate(over="ignore"):  # z − m below −DBL_MAX is −inf, whose exponential is exactly 0
        shifted = np.where(np.isposinf(m), np.where(np.isposinf(z), 0.0, -np.inf),
                           z - np.where(np.isposinf(m), 0.0, m))
    w = np.exp(shifted / temperature)
    return w / w.sum(axis=axis, keepdims=True)


def softmax_jacobian(s: np.ndarray) -> np.ndarray:
    """Jacobian ∂s_i/∂z_j = s_i(δ_ij − s_j) of softmax at a point, from its output ``s``.

    Args:
        s: shape ``(n,)``, a probability vector (the softmax output).

    Returns:
        Array ``(n, n)``: ``diag(s) − s sᵀ``; symmetric, rows summing to 0.

    Raises:
        ValueError: ``s`` is not one-dimensional.

    Source: derivation ``softmax.jacobian``.
    """
    s = np.asarray(s, dtype=np.float64)
    if s.ndim != 1:
        raise ValueError(f"expected a 1-D probability vector, got shape {s.shape}")
    return np.diag(s) - np.outer(s, s)
