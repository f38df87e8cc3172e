"""RoPE's long-term decay: the Abel summation behind the bound of Su et al. 2021, §3.4.3.

Written as a complex sum over the d/2 pairs (rope.complex-multiplication), the RoPE score is
Re Σ_i h_i e^{i(m−n)θ_i} with h_i = (q_{2i−1} + i q_{2i})·conj(k_{2i−1} + i k_{2i}). With the partial sums
S_j = Σ_{i=1}^{j} e^{i(m−n)θ_i} (S_0 = 0), summation by parts moves the oscillation into S:
Σ_i h_i (S_i − S_{i−1}) = h_M S_M − h_1 S_0 − Σ_{i=1}^{M−1} S_i (h_{i+1} − h_i), M = d/2. With the paper's
conventions (S_0 = 0, h_{M+1} = 0) the boundary terms join the sum, and the triangle inequality gives
|Σ_i h_i e^{i(m−n)θ_i}| ≤ (max_i |h_{i+1} − h_i|)·Σ_{i=1}^{M} |S_i|. The average (1/M)Σ|S_i| falls as the
relative distance m − n grows — that part is a numerical observation (the paper's Fig. 2), checked here.
Pairs are counted from 1 as in RoFormer; θ_i = 10000^(−2(i−1)/d).
"""

from __future__ import annotations

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

SU_343 = Citation("su2021", "§3.4.3, eq. (36)–(37)")


def decay_bound_average(offsets: np.ndarray, d: int, base: float = 10000.0) -> np.ndarray:
    """(1/M)·Σ_{j=1}^{M} |S_j| with S_j = Σ_{i=1}^{j} e^{i·offset·θ_i}, M = d/2: the factor of Su et al.'s bound.

    Args:
        offsets: relative distances m − n, shape ``(n,)``.
        d: head width (even).
        base: the constant 10000 of RoPE.

    Returns:
        Shape ``(n,)``: (M + 1)/2 at offset 0 (there S_j = j), falling (with oscillations) as the offset grows.

    Raises:
        ValueError: ``d`` is not a positive even integer.

    Source: Su et al. 2021, §3.4.3 and Fig. 2.
    """
    from .rope import rope_frequencies

    theta = rope_frequencies(d, base)  # (M,)
    off = np.asarray(offsets, dtype=np.float64).reshape(-1, 1)  # (n, 1)
    partial = np.cumsum(np.exp(1j * off * theta), axis=1)  # (n, M): S_1 … S_M
    return np.abs(partial).mean(axis=1)


def _check(seed: int) -> tuple[bool, dict, str]:
    from .rope import rope_frequencies

    rng = np.random.default_rng(seed)
    d, M = 128, 64
    theta = rope_frequencies(d)
    worst_identity, bound_ok = 0.0, True
    for _ in range(20):
        q, k = rng.normal(size=d), rng.normal(size=d)
        h = (q[0::2] + 1j * q[1::2]) * np.conj(k[0::2] + 1j * k[1::2])  # (M,)
        off = float(rng.integers(0, 5000))
        e = np.exp(1j * off * theta)
        S = np.concatenate([[0.0], np.cumsum(e)])  # S_0 … S_M
        lhs = np.sum(h * e)
        abel = h[-1] * S[M] - h[0] * S[0] - np.sum(S[1:M] * (h[1:] - h[:-1]))
        worst_identity = max(worst_identity, abs(lhs - abel))
        h_ext = np.concatenate([h, [0.0]])  # h_{M+1} = 0
        bound = np.max(np.abs(np.diff(h_ext))) * np.sum(np.abs(S[1:]))
        bound_ok &= bool(abs(lhs) <= bound + 1e-9)
    offsets = np.array([0, 10, 100, 1000, 10000])
    avg = decay_bound_average(offsets, d)
    falls = bool(abs(avg[0] - (M + 1) / 2) < 1e-12 and avg[1] < avg[0] and avg[2] < avg[1] and avg[4] < 0.2 * avg[0])
    ok = worst_identity < 1e-9 and bound_ok and falls
    return ok, {"d": d, "trials": 20, "max_abs_identity_error": float(worst_identity), "bound_holds": bound_ok,
                "offsets": offsets.tolist(), "(1/M)Σ|S_j|": np.round(avg, 4).tolist()}, (
        r"the Abel form equals $\sum_i h_i e^{i \cdot \mathrm{offset} \cdot \theta_i}$ "
        f"within {worst_identity:.1e} and the bound holds in 20 random trials ($d = 128$); "
        r"$\frac{1}{M}\sum_j |S_j|$" f" = {', '.join(f'{a:.3f}' for a in avg)} at offsets 0, 10, 100, 1000, 10000")


@register(
    "rope.long-term-decay",
    title="RoPE's decay bound starts from summation by parts: the oscillating factors move into partial sums, "
          "for any number of pairs",
    summary="$\\sum_{i=1}^{M} h_i (S_i - S_{i-1}) = h_M S_M - h_1 S_0 - \\sum_{i=1}^{M-1} S_i (h_{i+1} - h_i)$ "
            "(Abel), for symbolic M; with $S_0 = 0$, $h_{M+1} = 0$ it bounds the score by "
            "$\\max_i |h_{i+1} - h_i| \\sum_i |S_i|$.",
)
def long_term_decay() -> Derivation:
    import sympy as sp

    from ..kernel.sum_moves import ShiftIndex
    from ..numeric import FunctionCheck
    from ..rules import Transform
    from ..sums import SplitSumAt
    from .notation import sym

    M = sym("n_pairs")
    i = sp.Symbol("i", integer=True)
    h, S = sp.IndexedBase("h", complex=True), sp.IndexedBase("S", complex=True)
    start = sp.Sum(h[i] * (S[i] - S[i - 1]), (i, 1, M))
    earlier = sp.Sum(h[i] * S[i - 1], (i, 1, M))
    s1 = sp.Sum(h[i] * S[i], (i, 1, M)) - earlier
    s2 = sp.Sum(h[i] * S[i], (i, 1, M)) - sp.Sum(h[i + 1] * S[i], (i, 0, M - 1))
    s3 = sp.Sum(h[i] * S[i], (i, 1, M - 1)) + h[M] * S[M] - sp.Sum(h[i + 1] * S[i], (i, 0, M - 1))
    s4 = (sp.Sum(h[i] * S[i], (i, 1, M - 1)) + h[M] * S[M] - h[1] * S[0]
          - sp.Sum(h[i + 1] * S[i], (i, 1, M - 1)))
    end = h[M] * S[M] - h[1] * S[0] - sp.Sum(S[i] * (h[i + 1] - h[i]), (i, 1, M - 1))
    return Derivation(
        **metadata("rope.long-term-decay"),
        start=start,
        steps=(
            Step(s1, "linearity: split the sum of the difference",
                 rule=Transform(lambda e: e.replace(lambda t: isinstance(t, sp.Sum), lambda t: sp.expand(t)),
                                "split the sum")),
            Step(s2, "shift the index of the second sum by one, $i \\to i + 1$", rule=ShiftIndex(earlier, -1)),
            Step(s3, "single out the last term $i = M$ of the first sum", rule=SplitSumAt(M)),
            Step(s4, "single out the first term $i = 0$ of the second sum", rule=SplitSumAt(0)),
            Step(end, "collect the two sums over $1 \\le i \\le M - 1$", citation=SU_343),
        ),
        assumptions=(Assumption("M = d/2 pairs, any M ≥ 1; $h_i$ and $S_i$ any complex numbers. In RoFormer "
                                "$h_i = (q_{2i-1} + \\mathrm{i}\\,q_{2i})"
                                "\\overline{(k_{2i-1} + \\mathrm{i}\\,k_{2i})}$ "
                                "and $S_j = \\sum_{i=1}^{j} e^{\\mathrm{i}(m-n)\\theta_i}$, so $S_i - S_{i-1} = "
                                "e^{\\mathrm{i}(m-n)\\theta_i}$ and the left side is the complex score whose real part "
                                "is the RoPE dot product"),),
        citations=(SU_343,),
        checks=(FunctionCheck("numpy: the Abel form, the bound and the decay of its factor at d = 128", _check),),
        notes=("With $S_0 = 0$ and $h_{M+1} = 0$ (the paper's conventions) the boundary term $h_M S_M$ is the "
               "$i = M$ term of $-\\sum_i S_i (h_{i+1} - h_i)$, so the score is $-\\sum_{i=1}^{M} S_i (h_{i+1} - h_i)$ "
               "and the triangle inequality gives $|\\cdot| \\le \\max_i |h_{i+1} - h_i| \\sum_{i=1}^{M} |S_i|$. "
               "The decay is in the second factor: $\\frac{1}{M}\\sum_i |S_i|$ is $(M + 1)/2$ at offset 0 and falls as "
               "$m - n$ grows (computed, not derived: Su et al. show it in their Fig. 2). The bound holds for any "
               "q and k; the score of particular vectors need not decay.",),
    )
