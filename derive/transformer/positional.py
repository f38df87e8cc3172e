"""Sinusoidal positional encoding and its rotation identity.

Source: Vaswani et al. 2017, §3.5:
PE(pos, 2i) = sin(pos · ω_i), PE(pos, 2i+1) = cos(pos · ω_i), ω_i = 10000^(−2i/d_model).
Layout: interleaved pairs (sin, cos) as in the paper; index i counts pairs from 0.
"""

from __future__ import annotations

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import register

VASWANI_35 = Citation("vaswani2017", "§3.5")


def sinusoidal_encoding(positions: np.ndarray, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The sinusoidal encoding of ``positions``, interleaved (sin, cos) pairs.

    Args:
        positions: shape ``(n,)``, real positions (integers in practice).
        d_model: encoding width, a positive integer. For odd ``d_model`` the
            rule is: compute ``(d_model + 1) // 2`` pairs and drop the final
            cosine, so column ``d_model - 1`` is a sine (as truncating
            implementations do).
        base: the constant 10000 of the paper.

    Returns:
        Array of shape ``(n, d_model)``: column ``2i`` is ``sin(pos·ω_i)``,
        column ``2i+1`` is ``cos(pos·ω_i)``, ``ω_i = base^(−2i/d_model)``.

    Raises:
        ValueError: ``d_model`` is not a positive integer.

    Source: Vaswani et al. 2017, §3.5.
    """
    if isinstance(d_model, bool) or not isinstance(d_model, (int, np.integer)) or d_model < 1:
        raise ValueError(f"d_model must be a positive integer, got {d_model!r}")
    pos = np.asarray(positions, dtype=np.float64).reshape(-1, 1)  # (n, 1)
    pairs = (d_model + 1) // 2
    omega = base ** (-2.0 * np.arange(pairs) / d_model)  # (pairs,)
    angles = pos * omega  # (n, pairs)
    out = np.empty((pos.shape[0], 2 * pairs))
    out[:, 0::2] = np.sin(angles)
    out[:, 1::2] = np.cos(angles)
    return out[:, :d_model]


def rotation_blocks(offset: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """Block-diagonal matrix M(k) with PE(pos + k) = M(k) · PE(pos) (even ``d_model``).

    Returns:
        Array ``(d_model, d_model)`` whose 2×2 blocks are
        ``[[cos kω_i, sin kω_i], [−sin kω_i, cos kω_i]]``.
    """
    if d_model % 2:
        raise ValueError(f"the rotation form needs an even d_model, got {d_model}")
    omega = base ** (-2.0 * np.arange(d_model // 2) / d_model)
    m = np.zeros((d_model, d_model))
    for i, w in enumerate(omega):
        c, s = np.cos(offset * w), np.sin(offset * w)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    return m


def _full_width_check(seed: int) -> tuple[bool, dict, str]:
    rng = np.random.default_rng(seed)
    d_model, trials = 512, 25
    worst = 0.0
    for _ in range(trials):
        pos, k = rng.integers(0, 2048), rng.uniform(-500, 500)
        lhs = sinusoidal_encoding(np.array([pos + k]), d_model)[0]
        rhs = rotation_blocks(k, d_model) @ sinusoidal_encoding(np.array([pos]), d_model)[0]
        worst = max(worst, float(np.max(np.abs(lhs - rhs))))
    ok = worst < 1e-9
    return ok, {"d_model": d_model, "trials": trials, "max_abs_error": worst}, (
        f"PE(pos+k) = M(k)·PE(pos) on all {d_model} dimensions at {trials} random (pos, k); "
        f"max error {worst:.1e}")


@register(
    "positional.rotation",
    title="A shift in position is a rotation of each sinusoid pair",
    summary="(PE_2i, PE_2i+1) at pos + k is a 2×2 rotation by k·ω_i of the pair at pos.",
)
def rotation() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from .notation import sym

    w, pos, k = sym("omega"), sym("pos"), sym("k")
    i, d_model = sp.Symbol("i", integer=True, nonnegative=True), sym("d_model")
    s, c = sp.sin, sp.cos
    rot = sp.ImmutableMatrix([[c(k * w), s(k * w)], [-s(k * w), c(k * w)]])
    pair = sp.ImmutableMatrix([s(w * pos), c(w * pos)])
    return Derivation(
        name="positional.rotation",
        title="A shift in position is a rotation of each sinusoid pair",
        summary="(PE_2i, PE_2i+1) at pos + k is a 2×2 rotation by k·ω_i of the pair at pos.",
        start=sp.ImmutableMatrix([s(w * (pos + k)), c(w * (pos + k))]),
        steps=(
            Step(sp.ImmutableMatrix([s(w * pos) * c(w * k) + c(w * pos) * s(w * k),
                                     c(w * pos) * c(w * k) - s(w * pos) * s(w * k)]),
                 "angle-addition formulas for sine and cosine", citation=VASWANI_35),
            Step(sp.MatMul(rot, pair, evaluate=False),
                 "the same two lines as a matrix times the pair at pos; the matrix involves only k and ω"),
        ),
        assumptions=(
            Assumption("pos and k are real; ω = ω_i = 10000^(−2i/d_model) > 0 is the pair's frequency"),
        ),
        definitions=(
            (sp.Symbol("PE_{pos,2i}"), s(w * pos)),
            (sp.Symbol("PE_{pos,2i+1}"), c(w * pos)),
            (w, sp.Integer(10000) ** (-2 * i / d_model)),
        ),
        citations=(VASWANI_35,),
        checks=(FunctionCheck("full d_model = 512 encoding, block-diagonal rotation", _full_width_check),),
        notes=("The matrix is orthogonal with determinant 1 (a rotation by −k·ω_i in the (sin, cos) plane) "
               "and does not depend on pos: relative offsets are linear maps of the encoding.",),
    )
