"""RoPE as complex multiplication, and the interleaved and rotate-half layouts as one map, permuted.

Su et al. 2021 (§3.2, eq. (12)–(13)) write the rotation of a pair as a complex product:
the pair (x_{2i−1}, x_{2i}) read as x_{2i−1} + i·x_{2i} is multiplied by e^(i·m·θ_i). Implementations
differ in which coordinates form a pair: the paper (and :func:`derive.transformer.rope.rope_rotate`)
pairs neighbours 2i − 1, 2i ("interleaved"); GPT-NeoX and the Hugging Face LLaMA code pair i with
i + d/2 ("rotate half"). The second is the first with the coordinates permuted, so a model
trained with one is the other with its W_Q, W_K columns permuted (the conversion scripts do that).
In the derivations pairs are counted from 1 as in RoFormer, (x_{2i−1}, x_{2i}); the numpy helpers index arrays
from 0. The head width is d = 2m.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

SU_32 = Citation("su2021", "§3.2, eq. (12)–(13)")
SU_34 = Citation("su2021", "§3.4.2, eq. (34)")


def rope_rotate_half(x: np.ndarray, positions: np.ndarray, base: float = 10000.0) -> np.ndarray:
    """RoPE in the rotate-half layout: component i pairs with i + d/2 (GPT-NeoX, Hugging Face LLaMA).

    Args:
        x: shape ``(n, d)``, d even: n query or key vectors.
        positions: shape ``(n,)``.
        base: the constant 10000 of the paper.

    Returns:
        Array ``(n, d)``: x·cos(pθ) + rotate_half(x)·sin(pθ) with rotate_half(x) = [−x₂, x₁] for the halves
        x₁, x₂ and θ repeated over both halves.

    Raises:
        ValueError: as :func:`derive.transformer.rope.rope_rotate`.

    Source: Su et al. 2021, §3.4.2, eq. (34), with the pairs (i, i + d/2).
    """
    from .rope import pair_angles

    x, pair = pair_angles(x, positions, base)  # (n, d), (n, d/2)
    ang = np.concatenate([pair, pair], axis=1)  # (n, d)
    half = x.shape[1] // 2
    rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=1)  # (n, d)
    return x * np.cos(ang) + rotated * np.sin(ang)


def interleaved_to_half(d: int) -> np.ndarray:
    """The permutation π with (rotate-half vector)_j = (interleaved vector)_π(j).

    π(j) = 2j for j < d/2, else 2(j − d/2) + 1; shape ``(d,)``.

    Raises:
        ValueError: ``d`` is not a positive even integer.
    """
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2 or d % 2:
        raise ValueError(f"RoPE needs a positive even head width, got {d!r}")
    m = d // 2
    return np.array([2 * j if j < m else 2 * (j - m) + 1 for j in range(d)])


def _layout_check(seed: int) -> tuple[bool, dict, str]:
    from .rope import rope_rotate

    rng = np.random.default_rng(seed)
    worst, score_gap = 0.0, 0.0
    widths = (2, 4, 8, 64, 128)
    for d in widths:
        perm = interleaved_to_half(d)
        q, k = rng.normal(size=(5, d)), rng.normal(size=(5, d))
        pos_q, pos_k = rng.integers(0, 4096, size=5), rng.integers(0, 4096, size=5)
        inter_q, inter_k = rope_rotate(q, pos_q), rope_rotate(k, pos_k)
        half_q, half_k = rope_rotate_half(q[:, perm], pos_q), rope_rotate_half(k[:, perm], pos_k)
        worst = max(worst, float(np.max(np.abs(half_q - inter_q[:, perm]))))
        score_gap = max(score_gap, float(np.max(np.abs(half_q @ half_k.T - inter_q @ inter_k.T))))
    ok = worst < 1e-12 and score_gap < 1e-10
    return ok, {"head_widths": list(widths), "vectors_each": 5, "max_abs_difference": worst,
                "max_abs_score_difference": score_gap}, (
        f"rotate_half(x[:, π]) = rope_rotate(x)[:, π] within {worst:.1e} and the scores agree within "
        f"{score_gap:.1e}, d from 2 to 128")


def _complex_check(seed: int) -> tuple[bool, dict, str]:
    from .rope import rope_frequencies, rope_rotate

    rng = np.random.default_rng(seed)
    worst = 0.0
    for d in (2, 16, 128):
        x = rng.normal(size=(4, d))
        pos = rng.integers(0, 8192, size=4)
        z = x[:, 0::2] + 1j * x[:, 1::2]  # (4, d/2)
        rotated = z * np.exp(1j * pos[:, None] * rope_frequencies(d))
        out = rope_rotate(x, pos)
        worst = max(worst, float(np.max(np.abs(rotated - (out[:, 0::2] + 1j * out[:, 1::2])))))
    ok = worst < 1e-10
    return ok, {"head_widths": [2, 16, 128], "max_abs_difference": worst}, (
        r"$(x_{2i-1} + i x_{2i})\, e^{i p \theta_i}$ "
        f"equals the rotated pair of rope_rotate within {worst:.1e}, $d$ up to 128")


@register(
    "rope.complex-multiplication",
    title=r"RoPE's rotation of a pair is multiplication by $e^{i m \theta_i}$, for every pair of any even head width",
    summary="$(x_{2i-1} + \\mathrm{i}\\,x_{2i})\\,e^{\\mathrm{i} m\\theta_i} = (x_{2i-1}\\cos m\\theta_i - x_{2i}\\sin "
            "m\\theta_i) + \\mathrm{i}\\,(x_{2i-1}\\sin m\\theta_i + x_{2i}\\cos m\\theta_i)$: the real and "
            "imaginary parts are the rows of the 2 × 2 rotation, for symbolic pair index and width.",
)
def complex_multiplication() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Transform
    from .notation import sym, vec

    i, d, m = sym("i"), sym("d_model"), sym("pos_m")
    x = vec("x")
    u, v = x[2 * i - 1], x[2 * i]
    phi = m * sp.Integer(10000) ** (-2 * (i - 1) / d)
    c, s = sp.cos(phi), sp.sin(phi)
    I = sp.I  # noqa: E741 - the imaginary unit, as written
    return Derivation(
        **metadata("rope.complex-multiplication"),
        start=(u + I * v) * sp.exp(I * phi),
        steps=(
            Step((u + I * v) * (c + I * s), "Euler's formula $e^{\\mathrm{i}\\varphi} = \\cos\\varphi + "
                 "\\mathrm{i}\\sin\\varphi$", rule=Transform(lambda e: e.rewrite(sp.cos), "Euler's formula")),
            Step(u * c + I * u * s + I * v * c + I**2 * v * s, "multiply out"),
            Step(sp.Add(u * c - v * s, I * (u * s + v * c), evaluate=False),
                 "$\\mathrm{i}^2 = -1$; collect the real and the imaginary part", citation=SU_32),
        ),
        assumptions=(Assumption("pair i (counted from 1, as in RoFormer) of a query or key x of even width "
                                "$d = 2m$, any d; real components; position m real; "
                                "$\\theta_i = 10000^{-2(i-1)/d}$"),),
        definitions=((sym("theta"), sp.Integer(10000) ** (-2 * (i - 1) / d)),),
        citations=(SU_32, SU_34),
        checks=(FunctionCheck(r"numpy: complex product against $\mathtt{rope\_rotate}$", _complex_check),),
        notes=("The real part is the first row of the rotation $R(m\\theta_i)$ applied to the pair, the imaginary "
               "part the second: RoPE is $q \\mapsto q \\odot e^{\\mathrm{i} m \\theta}$ on "
               "$\\mathbb{C}^{d/2}$, which is how LLaMA's reference code computes it. Then "
               "$\\operatorname{Re}[(q e^{\\mathrm{i}m\\theta})\\overline{(k e^{\\mathrm{i}n\\theta})}] = "
               "\\operatorname{Re}[q \\bar{k} e^{\\mathrm{i}(m-n)\\theta}]$ depends only on $m - n$ "
               "(rope.relative-dot-product).",),
    )


@register(
    "rope.layouts",
    title="The rotate-half layout is the interleaved one with coordinates permuted, for any even head width",
    summary="With $y_j = x_{\\pi(j)}$, $\\pi(j) = 2j - 1$ for $j \\le m$ and $2(j-m)$ otherwise, rotate-half RoPE of "
            "y gives at $i$ and $m + i$ exactly the interleaved RoPE of x at $2i - 1$ and $2i$, for symbolic m.",
)
def layouts() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import sym, vec

    i, r, col, pos = sym("i"), sym("r_pairs"), sym("b_row"), sym("pos_m")
    x = vec("x")
    m = i + r  # number of pairs, written so that 1 <= i <= m is visible to sympy
    d = 2 * m
    phi = pos * sp.Integer(10000) ** (-2 * (i - 1) / d)
    c, s = sp.cos(phi), sp.sin(phi)

    def perm(jj: Any) -> Any:
        return sp.Piecewise((2 * jj - 1, jj <= m), (2 * (jj - m), True))

    def y(jj: Any) -> Any:  # y = x permuted: y_jj = Σ_c x_c δ(c, π(jj))
        return sp.Sum(x[col] * sp.KroneckerDelta(col, perm(jj)), (col, 1, d))

    start = sp.ImmutableMatrix([y(i) * c - y(m + i) * s, y(m + i) * c + y(i) * s])
    end = sp.ImmutableMatrix([x[2 * i - 1] * c - x[2 * i] * s, x[2 * i - 1] * s + x[2 * i] * c])
    jj, half = sym("j"), sym("n_pairs")
    return Derivation(
        **metadata("rope.layouts"),
        start=start,
        steps=(
            Step(end, "the Kronecker delta keeps the single term $c = \\pi(j)$: $y_i = x_{2i-1}$ and "
                      "$y_{m+i} = x_{2i}$; what remains is the interleaved rotation of pair i",
                 rule=Evaluate("the sums"), citation=SU_34),
        ),
        assumptions=(
            Assumption("head width $d = 2m$; pair i has $1 \\le i \\le m$, written $m = i + r$ with $r \\ge 0$; "
                       "real components, position real; the same angle $\\theta_i = 10000^{-2(i-1)/d}$ for pair i in "
                       "both layouts"),
            Assumption("rotate half: component i pairs with $m + i$, output $y_i\\cos - y_{m+i}\\sin$ at i and "
                       "$y_{m+i}\\cos + y_i\\sin$ at $m + i$; interleaved (the paper): component $2i - 1$ pairs "
                       "with $2i$"),
        ),
        definitions=((sp.Function("pi")(jj), sp.Piecewise((2 * jj - 1, jj <= half), (2 * (jj - half), True))),),
        citations=(SU_34,),
        checks=(FunctionCheck("numpy: rotate-half of permuted vectors against the interleaved rotation",
                              _layout_check),),
        notes=("So rotate-half RoPE of Px is P times interleaved RoPE of x, with P the permutation matrix of π. "
               "A permutation keeps dot products, so every score $q^\\top k$ and every attention weight is the "
               "same in the two layouts once the columns of $W_Q$ and $W_K$ are permuted by π — which is what "
               "the conversion of the original LLaMA weights to the Hugging Face layout does.",),
    )
