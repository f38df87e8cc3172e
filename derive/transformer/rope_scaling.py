"""Position interpolation (Chen et al. 2023): RoPE's angles stay in the trained range when positions are scaled.

A model trained with RoPE on contexts of L tokens has seen the angles p·θ_i for 0 ≤ p < L only.
Run on a window of L' > L tokens, the positions L … L' − 1 give angles it never saw
(extrapolation). Chen et al. (§2.2, eq. (4)–(5)) instead rescale every position: m ↦ m·L/L'.
Every angle of the extended window is then below L·θ_i, inside the range seen in training
(interpolation). Pairs are counted from 1 as in RoFormer, head width d = 2·n_pairs.
"""

from __future__ import annotations

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

CHEN_22 = Citation("chen2023", "§2.2, eq. (4)–(5)")
SU_33 = Citation("su2021", "§3.3")


def interpolated_angles(positions: np.ndarray, trained: int, extended: int, d: int,
                        base: float = 10000.0) -> np.ndarray:
    """The RoPE angles m·(L/L')·θ_i of position interpolation.

    Args:
        positions: m, shape ``(n,)``, in ``[0, extended)``.
        trained: L, the context length of training.
        extended: L' ≥ L, the context length to run at.
        d: the head width (even).
        base: the constant 10000 of RoPE.

    Returns:
        Angles in radians, shape ``(n, d // 2)``.

    Raises:
        ValueError: ``d`` is not a positive even integer, ``extended < trained``, or ``trained`` is not positive.

    Source: Chen et al. 2023, §2.2, eq. (4)–(5).
    """
    from .rope import rope_frequencies

    if not 0 < trained <= extended:
        raise ValueError(f"need 0 < L ≤ L', got L = {trained!r}, L' = {extended!r}")
    theta = rope_frequencies(d, base)  # (d/2,)
    return np.asarray(positions, dtype=np.float64).reshape(-1, 1) * (trained / extended) * theta


def _check(seed: int) -> tuple[bool, dict, str]:
    from .rope import rope_frequencies

    figures, ok = {}, True
    for L, L2, d in ((2048, 8192, 128), (2048, 32768, 128), (4096, 16384, 64)):
        pos = np.arange(L2)
        theta = rope_frequencies(d)
        pi_max = interpolated_angles(pos, L, L2, d).max(axis=0)  # (d/2,)
        extrap_max = (pos.reshape(-1, 1) * theta).max(axis=0)
        ok &= bool(np.all(pi_max < L * theta)) and bool(np.all(extrap_max > (L - 1) * theta))
        figures[f"L={L}, L'={L2}, d={d}"] = {
            "max interpolated angle / L·θ (last pair)": float(pi_max[-1] / (L * theta[-1])),
            "max extrapolated angle / (L − 1)·θ (last pair)": float(extrap_max[-1] / ((L - 1) * theta[-1]))}
    return ok, figures, ("every interpolated angle lies below L·θ_i for all pairs, while plain extrapolation "
                         "exceeds the trained (L − 1)·θ_i (LLaMA's L = 2048 extended to 8192 and 32768, and "
                         "4096 to 16384)")


@register(
    "rope.position-interpolation",
    title=(r"Position interpolation keeps every RoPE angle below $L\theta_i$: $m (L/L') \theta_i < L\theta_i$ for "
           r"$0 \le m < L'$, for any L, L' and pair"),
    summary="Writing $L' = m + 1 + r$ ($r \\ge 0$): $m \\frac{L}{L'} \\theta_i = L\\theta_i - L\\theta_i "
            "\\frac{1 + r}{L'} < L\\theta_i$, so the extended window only uses angles the model was trained on.",
)
def position_interpolation() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from .notation import sym

    L, m, r, i, half = sym("ctx_train"), sym("pos_ext"), sym("r_ext"), sym("i"), sym("n_pairs")
    Lp = m + 1 + r
    theta = sp.Integer(10000) ** (-(i - 1) / half)  # 10000^(−2(i−1)/d) with d = 2·n_pairs
    return Derivation(
        **metadata("rope.position-interpolation"),
        start=m * (L / Lp) * theta,
        steps=(
            Step(L * theta - L * theta * (1 + r) / Lp, "$m = L' - (1 + r)$: the last position is $L' - 1$",
                 citation=CHEN_22),
            Step(L * theta, "the subtracted term is positive ($L, \\theta_i > 0$, $1 + r \\ge 1$)", relation="<"),
        ),
        assumptions=(Assumption("trained context L > 0; extended window of L' positions 0 … L' − 1, any L' "
                                "(written $L' = m + 1 + r$ with $r \\ge 0$ so that $m < L'$ is visible); "
                                "$\\theta_i = 10000^{-2(i-1)/d}$, pair i counted from 1 as in RoFormer, head width "
                                "$d = 2 n_{pairs}$"),),
        definitions=((sp.Symbol("L'"), Lp),),
        citations=(CHEN_22, SU_33),
        checks=(FunctionCheck("numpy: interpolated against extrapolated angles at LLaMA's sizes", _check),),
        notes=("Without the rescaling, position $L' - 1$ turns pair i by $(L' - 1)\\theta_i$, up to $L'/L$ times "
               "the largest angle seen in training; for the slow pairs (small $\\theta_i$) that is a region the "
               "model never visited. Interpolation instead packs $L'/L$ positions into each unit of trained "
               "position: neighbouring tokens are closer in angle, which a short fine-tune (Chen et al.: about "
               "1000 steps) adapts to.",),
    )
