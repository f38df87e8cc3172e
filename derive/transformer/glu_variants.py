"""GEGLU and ReGLU: the GLU variants of Shazeer 2020 beside SwiGLU.

A gated linear unit multiplies an activated projection (the gate) by a linear one (the value):
FFN_GEGLU(x) = (GELU(xW) ⊙ xV)W₂ and FFN_ReGLU(x) = (max(0, xW) ⊙ xV)W₂ (Shazeer 2020, §2, eq. (5)–(6);
no biases). All variants have the three weight matrices of SwiGLU, hence the same count 3·d_model·d_ff
and the same 2/3 width rule (params.swiglu-width). What differs is the gate: ReGLU is exactly of degree 2
in x for positive scales, GEGLU (like SwiGLU, ffn.swiglu) only near the origin.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

SHAZEER_2 = Citation("shazeer2020", "§2, eq. (5)–(6)")
HENDRYCKS_2 = Citation("hendrycks2016", "§2")


def glu_ffn(x: np.ndarray, w: np.ndarray, v: np.ndarray, w2: np.ndarray, gate: str = "gelu") -> np.ndarray:
    """A GLU-variant FFN (act(xW) ⊙ xV)W₂ without biases.

    Args:
        x: shape ``(..., d_model)``.
        w: gate weights, shape ``(d_model, d_ff)``.
        v: value weights, shape ``(d_model, d_ff)``.
        w2: output weights, shape ``(d_ff, d_model)``.
        gate: ``"gelu"`` (GEGLU, exact GELU), ``"relu"`` (ReGLU) or ``"swish"`` (SwiGLU).

    Returns:
        Array of shape ``(..., d_model)``.

    Raises:
        ValueError: a shape does not match, or ``gate`` is not one of the three.

    Source: Shazeer 2020, §2.
    """
    from .ffn import gelu, relu, swiglu

    acts = {"gelu": gelu, "relu": relu}
    if gate == "swish":
        return swiglu(x, w, v, w2)
    if gate not in acts:
        raise ValueError(f"gate must be 'gelu', 'relu' or 'swish', got {gate!r}")
    swiglu(x, w, v, w2)  # the shape checks of the SwiGLU helper
    x = np.asarray(x, dtype=np.float64)
    return (acts[gate](x @ w) * (x @ v)) @ w2  # (..., d_ff) -> (..., d_model)


def _check(seed: int) -> tuple[bool, dict, str]:
    rng = np.random.default_rng(seed)
    d_model, d_ff = 6, 16
    x = rng.normal(size=(5, d_model))
    w, v = rng.normal(size=(d_model, d_ff)), rng.normal(size=(d_model, d_ff))
    w2 = rng.normal(size=(d_ff, d_model))
    quad = 0.5 * ((x @ w) * (x @ v)) @ w2
    s = 1e-4
    geglu_rel = float(np.max(np.abs(glu_ffn(s * x, w, v, w2, "gelu") / s**2 - quad)) / np.max(np.abs(quad)))
    reglu_gap = max(float(np.max(np.abs(glu_ffn(a * x, w, v, w2, "relu") - a**2 * glu_ffn(x, w, v, w2, "relu"))))
                    for a in (0.1, 2.0, 30.0))
    geglu_not = float(np.max(np.abs(glu_ffn(3 * x, w, v, w2, "gelu") - 9 * glu_ffn(x, w, v, w2, "gelu"))))
    ok = geglu_rel < 1e-3 and reglu_gap < 1e-9 and geglu_not > 1e-2
    return ok, {"d_model": d_model, "d_ff": d_ff, "s": s, "geglu_relative_gap_quadratic": geglu_rel,
                "reglu_max_gap_degree_2": reglu_gap, "geglu_gap_at_a=3": geglu_not}, (
        f"GEGLU(s·x)/s² at s = 1e-4 is ½(xW ⊙ xV)W₂ to {geglu_rel:.1e}; ReGLU(a·x) = a²·ReGLU(x) within "
        f"{reglu_gap:.1e} for a = 0.1, 2, 30; GEGLU is not of degree 2 away from 0 (gap {geglu_not:.2f} at a = 3)")


def _symbols() -> tuple:
    import sympy as sp

    from .notation import sym, vec

    k, c = (sp.Symbol(n, integer=True, positive=True) for n in "kc")
    return sym("d_ff"), k, c, vec("u"), vec("v"), sp.IndexedBase("W_2", real=True)


def _block(term: Any, k: Any, c: Any, d_ff: Any, W2: Any) -> Any:
    """Output c of the FFN: Σ_k term_k·(W₂)_kc."""
    import sympy as sp

    return sp.Sum(term * W2[k, c], (k, 1, d_ff))


ASSUMPTION = ("$u_k = (xW)_k$ and $v_k = (xV)_k$ are the gate and value pre-activations of hidden unit k (no "
              "biases), so scaling x by s scales both by s; output c of the FFN is $\\sum_k g(u_k) v_k (W_2)_{kc}$, "
              "for any $d_{model}$ and $d_{ff}$")


@register(
    "ffn.geglu",
    title="GEGLU near zero: GEGLU(s·x)W₂/s² = ½(xW ⊙ xV)W₂ + a remainder carrying erf(s·xW/√2), for any widths",
    summary="Each unit $\\operatorname{GELU}(s u)\\,(s v)/s^2 = \\tfrac{1}{2} u v + \\tfrac{1}{2} u v\\,"
            "\\operatorname{erf}(s u/\\sqrt{2})$; the second term vanishes as $s \\to 0$ (as for SwiGLU, "
            "$\\Phi(0) = \\sigma(0) = 1/2$).",
)
def geglu() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Transform

    s = sp.Symbol("s", positive=True)
    d_ff, k, c, u, v, W2 = _symbols()

    def gelu(t: Any) -> Any:  # t·Φ(t), as written
        return sp.Mul(t, (1 + sp.erf(t / sp.sqrt(2))) / 2, evaluate=False)

    half = sp.Rational(1, 2)
    return Derivation(
        **metadata("ffn.geglu"),
        start=_block(sp.Mul(gelu(s * u[k]), s * v[k], sp.Pow(s, -2, evaluate=False), evaluate=False), k, c, d_ff, W2),
        steps=(
            Step(_block(half * u[k] * v[k] * (1 + sp.erf(s * u[k] / sp.sqrt(2))), k, c, d_ff, W2),
                 "$\\operatorname{GELU}(t) = \\frac{t}{2}(1 + \\operatorname{erf}(t/\\sqrt{2}))$ at $t = s u_k$; "
                 "the two factors s cancel $s^2$", citation=HENDRYCKS_2),
            Step(_block(half * u[k] * v[k], k, c, d_ff, W2)
                 + _block(half * u[k] * v[k] * sp.erf(s * u[k] / sp.sqrt(2)), k, c, d_ff, W2),
                 "split the sum: the quadratic form $\\frac{1}{2}(xW \\odot xV)W_2$ and a remainder whose every "
                 "term carries $\\operatorname{erf}(s u_k/\\sqrt{2}) \\to \\operatorname{erf}(0) = 0$",
                 rule=Transform(lambda e: e.replace(lambda t: isinstance(t, sp.Sum), lambda t: sp.expand(t)),
                                "split the sum"), citation=SHAZEER_2),
        ),
        assumptions=(Assumption(ASSUMPTION + "; GELU is the exact $t\\,\\Phi(t) = \\frac{t}{2}(1 + "
                                "\\operatorname{erf}(t/\\sqrt{2}))$; s > 0"),),
        citations=(SHAZEER_2, HENDRYCKS_2),
        checks=(FunctionCheck("numpy GEGLU and ReGLU near 0 and under scaling", _check),),
        notes=("Since $|\\operatorname{erf}(z)| \\le 2|z|/\\sqrt{\\pi}$, the remainder is $O(s)$: GEGLU(s·x)W₂ "
               "$= \\frac{s^2}{2}(xW \\odot xV)W_2 + O(s^3)$. GEGLU, SwiGLU (ffn.swiglu) and the bilinear GLU "
               "(without the ½) all start as this quadratic form near the origin; they differ in how the gate "
               "saturates for large pre-activations.",),
    )


@register(
    "ffn.reglu-homogeneity",
    title="ReGLU is positively homogeneous of degree 2: ReGLU(a·x) = a²·ReGLU(x) for a > 0, unit by unit",
    summary="$\\max(0, a u_k)\\,(a v_k) = a^2 \\max(0, u_k)\\,v_k$ for $a > 0$, unit by unit, so every output "
            "of $(\\max(0, xW) \\odot xV)W_2$ scales with $a^2$.",
)
def reglu_homogeneity() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Transform
    from .notation import sym

    a, u, v = sp.Symbol("a", positive=True), sym("t"), sp.Symbol("v", real=True)
    return Derivation(
        **metadata("ffn.reglu-homogeneity"),
        start=sp.Max(0, a * u) * (a * v) - a**2 * (sp.Max(0, u) * v),
        steps=(
            Step((a * u + sp.Abs(a * u)) / 2 * (a * v) - a**2 * ((u + sp.Abs(u)) / 2 * v),
                 "$\\max(0, t) = (t + |t|)/2$ for every real t",
                 rule=Transform(lambda e: e.rewrite(sp.Abs), "rewrite max as (t + |t|)/2")),
            Step(sp.Integer(0), "$|a t| = a|t|$ because $a > 0$: both terms are $a^2 (t + |t|) v/2$",
                 citation=SHAZEER_2),
        ),
        assumptions=(Assumption("one hidden unit: gate pre-activation $t = (xW)_k$ and value $v = (xV)_k$, "
                                "no biases, so scaling x by a > 0 scales both by a; output c of the FFN is "
                                "$\\sum_k \\max(0, t_k) v_k (W_2)_{kc}$, a sum of such units with fixed weights, "
                                "so the law holds for any $d_{model}$ and $d_{ff}$"),),
        citations=(SHAZEER_2,),
        checks=(FunctionCheck("numpy GEGLU and ReGLU near 0 and under scaling", _check),),
        notes=("A bias-free ReLU FFN is homogeneous of degree 1 (ffn.bias-free-homogeneity); gating by a second "
               "linear projection adds one more factor a. For a < 0 the law fails: the gate then sees the other "
               "side of the kink.",),
    )
