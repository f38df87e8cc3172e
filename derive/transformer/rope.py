"""Rotary position embedding (RoPE): relative dot products, norms, and an exact example.

RoPE rotates each pair (x_{2i−1}, x_{2i}) of a query or key at position p by the angle p·θ_i
(Su et al. 2021, RoFormer, §3.2–3.4; eq. (13)–(15) for the block-diagonal rotation and
θ_i = 10000^(−2(i−1)/d)). Pairs are counted from i = 1, as in the paper, and the head
width is d = 2m, m symbolic. The numeric helper :func:`rope_rotate` is the "rotate pairs"
form of eq. (34), interleaved layout as in the paper.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

SU_32 = Citation("su2021", "§3.2")
SU_34 = Citation("su2021", "§3.4.2, eq. (34)")
SU_343 = Citation("su2021", "§3.4.3")


def rope_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """θ_i = base^(−2i/d) for the d/2 pairs of a head of width d.

    Returns:
        Array of shape ``(d // 2,)``, from 1 down to base^(−(d−2)/d).

    Raises:
        ValueError: ``d`` is not a positive even integer.

    Source: Su et al. 2021, §3.3 (θ_i = 10000^(−2(i−1)/d), i = 1..d/2).
    """
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2 or d % 2:
        raise ValueError(f"RoPE needs a positive even head width, got {d!r}")
    return base ** (-2.0 * np.arange(d // 2) / d)


def pair_angles(x: np.ndarray, positions: np.ndarray, base: float = 10000.0) -> tuple[np.ndarray, np.ndarray]:
    """``x`` as float64 ``(n, d)`` and the angles position·θ_i of its pairs, ``(n, d/2)``.

    Raises:
        ValueError: ``x`` is not two-dimensional with an even number of columns, or the
            number of positions differs from the number of rows.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"x must have shape (n, d), got {x.shape}")
    theta = rope_frequencies(x.shape[1], base)  # (d/2,)
    pos = np.asarray(positions, dtype=np.float64).reshape(-1, 1)  # (n, 1)
    if pos.shape[0] != x.shape[0]:
        raise ValueError(f"{pos.shape[0]} positions for {x.shape[0]} rows")
    return x, pos * theta


def rope_rotate(x: np.ndarray, positions: np.ndarray, base: float = 10000.0) -> np.ndarray:
    """Rotate every (x_2i, x_2i+1) pair of each row of ``x`` by position·θ_i.

    Args:
        x: shape ``(n, d)``, d even: n query or key vectors (interleaved pairs).
        positions: shape ``(n,)``: the position of each row.
        base: the constant 10000 of the paper.

    Returns:
        Array ``(n, d)``: R(p)·x for each row, with R(p) block-diagonal of 2×2 rotations
        ``[[cos pθ_i, −sin pθ_i], [sin pθ_i, cos pθ_i]]``.

    Raises:
        ValueError: ``x`` is not two-dimensional with an even number of columns, or the
            number of positions differs from the number of rows.

    Source: Su et al. 2021, §3.4.2, eq. (34).
    """
    x, ang = pair_angles(x, positions, base)
    c, s = np.cos(ang), np.sin(ang)
    even, odd = x[:, 0::2], x[:, 1::2]  # (n, d/2) each
    out = np.empty_like(x)
    out[:, 0::2] = even * c - odd * s
    out[:, 1::2] = even * s + odd * c
    return out


def _symbols() -> tuple[Any, ...]:
    import sympy as sp

    from .notation import sym, vec

    return (sym("i"), sym("n_pairs"), vec("q"), vec("k"), vec("theta"), sym("pos_m"), sym("pos_n"),
            sp.cos, sp.sin)


def _rotated(x: Any, p: Any) -> tuple[Any, Any]:
    """The two components of pair i (components 2i − 1 and 2i, counted from 1) of R(p)·x."""
    i, _, _, _, th, _, _, c, s = _symbols()
    a = p * th[i]
    return x[2 * i - 1] * c(a) - x[2 * i] * s(a), x[2 * i - 1] * s(a) + x[2 * i] * c(a)


def _relative_check(seed: int) -> tuple[bool, dict, str]:
    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 0
    for d in (2, 8, 64, 128):
        q, k = rng.normal(size=(1, d)), rng.normal(size=(1, d))
        for _ in range(6):
            m, n = rng.integers(0, 4096, size=2)
            shift = rng.integers(-2000, 2000)
            a = float((rope_rotate(q, [m]) @ rope_rotate(k, [n]).T)[0, 0])
            b = float((rope_rotate(q, [m + shift]) @ rope_rotate(k, [n + shift]).T)[0, 0])
            theta = rope_frequencies(d)
            A = q[0, 0::2] * k[0, 0::2] + q[0, 1::2] * k[0, 1::2]
            B = q[0, 0::2] * k[0, 1::2] - q[0, 1::2] * k[0, 0::2]
            closed = float(np.sum(A * np.cos((m - n) * theta) + B * np.sin((m - n) * theta)))
            worst = max(worst, abs(a - b), abs(a - closed))
            trials += 1
    ok = worst < 1e-9
    return ok, {"head_widths": [2, 8, 64, 128], "trials": trials, "max_abs_error": worst}, (
        f"⟨R(m)q, R(n)k⟩ = ⟨R(m+s)q, R(n+s)k⟩ = closed form at {trials} random (q, k, m, n, s), "
        f"d from 2 to 128 (max error {worst:.1e})")


@register(
    "rope.relative-dot-product",
    title="RoPE: the rotated query–key dot product depends only on the offset m − n, for any even head width",
    summary="$\\langle R(m)q, R(n)k\\rangle = \\sum_i [(q_{2i-1}k_{2i-1} + q_{2i}k_{2i})\\cos((m-n)\\theta_i) + "
            "(q_{2i-1}k_{2i} - q_{2i}k_{2i-1})\\sin((m-n)\\theta_i)]$ over the d/2 pairs: the positions enter only "
            "through m − n.",
)
def relative_dot_product() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, IdentityCheck

    i, half, q, k, th, pm, pn, c, s = _symbols()
    rq0, rq1 = _rotated(q, pm)
    rk0, rk1 = _rotated(k, pn)
    a, b = pm * th[i], pn * th[i]
    dot = q[2 * i - 1] * k[2 * i - 1] + q[2 * i] * k[2 * i]
    cross = q[2 * i - 1] * k[2 * i] - q[2 * i] * k[2 * i - 1]
    start = sp.Sum(rq0 * rk0 + rq1 * rk1, (i, 1, half))
    end = sp.Sum(dot * c((pm - pn) * th[i]) + cross * s((pm - pn) * th[i]), (i, 1, half))
    return Derivation(
        **metadata("rope.relative-dot-product"),
        start=start,
        steps=(
            Step(sp.Sum(dot * (c(a) * c(b) + s(a) * s(b)) + cross * (s(a) * c(b) - c(a) * s(b)), (i, 1, half)),
                 "multiply out each pair's two products and collect the four products $q_\\cdot k_\\cdot$: the "
                 "matching ones carry $\\cos a\\cos b + \\sin a\\sin b$, the crossed ones $\\pm(\\sin a\\cos b - "
                 "\\cos a\\sin b)$", citation=SU_32),
            Step(end, "angle-difference formulas: $\\cos a\\cos b + \\sin a\\sin b = \\cos(a-b)$ and "
                      "$\\sin a\\cos b - \\cos a\\sin b = \\sin(a-b)$, with $a - b = (m-n)\\theta_i$",
                 citation=SU_34),
        ),
        assumptions=(
            Assumption("an even head width d with d/2 ≥ 1 pairs (symbolic); q, k real, indexed from 1; the query "
                       "at position m, the key at n; any real frequencies $\\theta_i$ (RoFormer: "
                       "$\\theta_i = 10000^{-2(i-1)/d}$)"),
            Assumption("R(p) rotates pair i, $(x_{2i-1}, x_{2i})$, by the angle $p\\theta_i$ (RoFormer eq. (13))"),
        ),
        definitions=((sp.Symbol(r"\langle R(m)q,\,R(n)k\rangle"),
                      sp.Sum(sp.Symbol("(R(m)q)_{2i-1}") * sp.Symbol("(R(n)k)_{2i-1}")
                             + sp.Symbol("(R(m)q)_{2i}") * sp.Symbol("(R(n)k)_{2i}"), (i, 1, half))),),
        citations=(SU_32, SU_34),
        auto_identity_check=False,  # a cheaper random-point check below (each point expands a symbolic sum)
        checks=(IdentityCheck(start, end, name="claim at random points", n_points=8),
                FunctionCheck("numpy RoPE: shifting both positions leaves the score unchanged", _relative_check)),
        notes=("m and n occur only as m − n: shifting both positions by the same s leaves every score unchanged, "
               "which is what RoFormer calls encoding relative position through absolute rotations. Unlike the "
               "sinusoidal dot product (positional.dot-product-offset), the sine terms are odd in m − n, so the "
               "score can tell a key before the query from one after it.",),
    )


def _norm_check(seed: int) -> tuple[bool, dict, str]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(64, 128))
    pos = rng.integers(0, 100_000, size=64)
    err = float(np.max(np.abs(np.linalg.norm(rope_rotate(x, pos), axis=1) - np.linalg.norm(x, axis=1))))
    return err < 1e-9, {"vectors": 64, "d": 128, "max_abs_error": err}, (
        f"‖R(p)x‖ = ‖x‖ for 64 random vectors of width 128 at positions up to 1e5 (max error {err:.1e})")


@register(
    "rope.norm-preserved",
    title="RoPE keeps the length of every query and key, for any even head width",
    summary="$\\lVert R(p)x\\rVert^2 = \\sum_i (x_{2i-1}^2 + x_{2i}^2) = \\lVert x\\rVert^2$: each 2×2 block is a "
            "rotation.",
)
def norm_preserved() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, IdentityCheck
    from .notation import sym

    i, half, q, _, th, _, _, c, s = _symbols()
    p = sym("pos")
    r0, r1 = _rotated(q, p)
    start = sp.Sum(r0**2 + r1**2, (i, 1, half))
    end = sp.Sum(q[2 * i - 1] ** 2 + q[2 * i] ** 2, (i, 1, half))
    return Derivation(
        **metadata("rope.norm-preserved"),
        start=start,
        steps=(
            Step(end, "the squared length is the rotated dot product of $x$ with itself at the same position: "
                      "offset $0$, $\\cos 0 = 1$ and $\\sin 0 = 0$ (rope.relative-dot-product with $k = q$, "
                      "$m = n = p$)", by="rope.relative-dot-product", where={"k": q, "pos_m": p, "pos_n": p},
                 citation=SU_32),
        ),
        assumptions=(Assumption("an even head width d with d/2 pairs (symbolic); x real, indexed from 1; p and "
                                r"$\theta_i$ real"),),
        definitions=((sp.Symbol(r"\lVert x \rVert^2"), end),),
        citations=(SU_32,),
        checks=(IdentityCheck(start, end, name="claim at random points", n_points=8),
                FunctionCheck("numpy RoPE keeps norms", _norm_check)),
        notes=("RoPE changes the direction of q and k, never their length, so it cannot by itself inflate or "
               "shrink the scores: |q·k| ≤ ‖q‖‖k‖ holds with or without the rotation.",),
    )


#: the worked example: head width 2, θ = π/3, q = (1, 2), k = (3, 1), positions (m, n) = (2, 1) and (5, 4)
EXAMPLE_Q, EXAMPLE_K = (1, 2), (3, 1)


def _rot(angle: Any) -> Any:
    import sympy as sp

    return sp.ImmutableMatrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


@register(
    "rope.example",
    title="RoPE for d = 2, θ = π/3: positions (2, 1) and (5, 4) give the same score (5 − 5√3)/2",
    summary="q = (1, 2), k = (3, 1): (R(2)q)·(R(1)k) = (R(5)q)·(R(4)k) = 5·cos(π/3) − 5·sin(π/3).",
)
def example() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck

    th = sp.pi / 3
    q, k = sp.ImmutableMatrix(EXAMPLE_Q), sp.ImmutableMatrix(EXAMPLE_K)
    def score(m: int, n: int) -> Any:  # (R(mθ)q)ᵀ (R(nθ)k), unevaluated
        return sp.MatMul(sp.Transpose(sp.MatMul(_rot(m * th), q, evaluate=False)),
                         sp.MatMul(_rot(n * th), k, evaluate=False), evaluate=False)

    first, second = score(2, 1), score(5, 4)
    # q = (1, 2) and k = (3, 1) indexed from 1 as families: q_t = t, k_t = 5 − 2t
    t, i = sp.Symbol("t", integer=True), _symbols()[0]
    # q_(2i−1), q_(2i), k_(2i−1), k_(2i) of the families q_t = t, k_t = 5 − 2t (components counted from 1)
    qo, qe, ko, ke = 2 * i - 1, 2 * i, 7 - 4 * i, 5 - 4 * i
    closed = sp.Sum((ko * qo + ke * qe) * sp.cos(th) + (ke * qo - ko * qe) * sp.sin(th), (i, 1, 1))
    h = sp.sqrt(3) / 2
    rq2 = sp.ImmutableMatrix([[-sp.Rational(1, 2) - 2 * h, h - 1]])  # R(2π/3)·q, as a row
    rk1 = sp.ImmutableMatrix([sp.Rational(3, 2) - h, 3 * h + sp.Rational(1, 2)])  # R(π/3)·k
    value = sp.ImmutableMatrix([[sp.Add(sp.Mul(5, sp.cos(th, evaluate=False), evaluate=False),
                                        sp.Mul(-5, sp.sin(th, evaluate=False), evaluate=False), evaluate=False)]])
    return Derivation(
        **metadata("rope.example"),
        instance="d = 2, θ = π/3, q = (1, 2), k = (3, 1)",
        start=first,
        steps=(
            Step(sp.MatMul(rq2, rk1, evaluate=False),
                 "rotate: $R(2\\theta)q$ with $\\cos\\frac{2\\pi}{3} = -\\frac12$, $\\sin\\frac{2\\pi}{3} = "
                 "\\frac{\\sqrt3}{2}$, and $R(\\theta)k$ with $\\cos\\frac{\\pi}{3} = \\frac12$"),
            Step(sp.ImmutableMatrix([[sp.Rational(5, 2) - 5 * h]]), "multiply the row by the column and collect: "
                 "the rational parts give $\\frac52$, the parts in $\\sqrt3$ give $-\\frac{5\\sqrt3}{2}$"),
            Step(value, "$q\\cdot k = 5$ and $q_0k_1 - q_1k_0 = -5$: $(q\\cdot k)\\cos\\theta + "
                        "(q_0k_1 - q_1k_0)\\sin\\theta$"),
            Step(sp.ImmutableMatrix([[closed]]), "the same number as the closed form of "
                 "rope.relative-dot-product for one pair with $m - n = 1$", citation=SU_32),
            Step(second, "which is the rotated dot product at positions (5, 4), whose offset is also 1 "
                         "(rope.relative-dot-product)", by="rope.relative-dot-product",
                 where={"q": sp.Lambda(t, t), "k": sp.Lambda(t, 5 - 2 * t), "theta": sp.Lambda(t, th),
                        "n_pairs": sp.Integer(1), "pos_m": sp.Integer(5), "pos_n": sp.Integer(4)}),
        ),
        assumptions=(Assumption(r"one pair (d = 2), $\theta = \pi/3$ (chosen for exact values; RoFormer's $\theta_0$ "
                                "is 1); q = (1, 2), k = (3, 1)"),),
        citations=(SU_32,),
        checks=(ValueCheck("(R(2)q)·(R(1)k)", (5 - 5 * sp.sqrt(3)) / 2, "-1.8301", "derived"),
                ValueCheck("the unrotated q·k", sp.Integer(5), "5", "derived")),
        notes=("The two positions differ (2, 1) and (5, 4) but the offset is 1 in both: the score is the same "
               "number, (5 − 5√3)/2 ≈ −1.83, while the unrotated dot product is 5.",),
    )
