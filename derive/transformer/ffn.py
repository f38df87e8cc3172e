"""The position-wise feed-forward network: ReLU, GELU and SwiGLU.

FFN(x) = max(0, xW₁ + b₁)W₂ + b₂ (Vaswani et al. 2017, §3.3), applied to every
token separately; GELU (Hendrycks & Gimpel 2016) replaces the ReLU in GPT and
BERT; SwiGLU (Swish(xW) ⊙ xV)W₂ uses three weight matrices and no biases
(Shazeer 2020), with Swish t·σ(t) from Ramachandran et al. 2017.
Parameter counts live in the parameter modules, not here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

VASWANI_33 = Citation("vaswani2017", "§3.3")
SHAZEER_2 = Citation("shazeer2020", "§2")
HENDRYCKS_2 = Citation("hendrycks2016", "§2")
RAMACHANDRAN = Citation("ramachandran2017", "§4", "Swish, x·σ(βx)")

#: GELU's tanh approximation constant (Hendrycks & Gimpel, as used by GPT-2 and BERT).
GELU_TANH_C = 0.044715

#: Bound on |GELU(t) − GELU_tanh(t)| checked by ``ffn.gelu`` (the maximum is ≈ 4.73e-4 at |t| ≈ 2.70).
GELU_TANH_BOUND = 5e-4

_erf = np.frompyfunc(math.erf, 1, 1)


# ----------------------------------------------------------------------------
# Numeric helpers (numpy only)
# ----------------------------------------------------------------------------


def relu(x: np.ndarray) -> np.ndarray:
    """max(0, x), elementwise; any shape."""
    return np.maximum(0.0, np.asarray(x, dtype=np.float64))


def gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    """GELU, elementwise; any shape.

    Args:
        x: pre-activations.
        approximate: ``"none"`` for the exact x·Φ(x) = x/2·(1 + erf(x/√2));
            ``"tanh"`` for x/2·(1 + tanh(√(2/π)(x + 0.044715x³))).

    Raises:
        ValueError: ``approximate`` is neither ``"none"`` nor ``"tanh"``.

    Source: Hendrycks & Gimpel 2016, §2.
    """
    x = np.asarray(x, dtype=np.float64)
    if approximate == "none":
        return 0.5 * x * (1.0 + np.asarray(_erf(x / math.sqrt(2.0)), dtype=np.float64))
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + GELU_TANH_C * x**3)))
    raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")


def swish(x: np.ndarray) -> np.ndarray:
    """Swish (SiLU) x·σ(x), elementwise, without overflow for large |x|; any shape.

    Source: Ramachandran et al. 2017, §4 (β = 1).
    """
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(x))  # in (0, 1]: never overflows
    sigma = np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return x * sigma


_ACTIVATIONS = {"relu": relu, "gelu": gelu, "gelu_tanh": lambda x: gelu(x, "tanh")}


def _matrix(name: str, w: np.ndarray, rows: int) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != rows:
        raise ValueError(f"{name} must have shape ({rows}, ·), got {w.shape}")
    return w


def _bias(name: str, b: np.ndarray | None, size: int) -> np.ndarray:
    if b is None:
        return np.zeros(size)
    b = np.asarray(b, dtype=np.float64)
    if b.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},), got {b.shape}")
    return b


def _tokens(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0:
        raise ValueError("x must have shape (..., d_model), got a scalar")
    return x


def ffn(
    x: np.ndarray,
    w1: np.ndarray,
    b1: np.ndarray | None,
    w2: np.ndarray,
    b2: np.ndarray | None,
    activation: str = "relu",
) -> np.ndarray:
    """The position-wise FFN act(xW₁ + b₁)W₂ + b₂.

    Args:
        x: shape ``(..., d_model)``.
        w1: shape ``(d_model, d_ff)``.
        b1: shape ``(d_ff,)`` or ``None`` (no bias).
        w2: shape ``(d_ff, d_model)``.
        b2: shape ``(d_model,)`` or ``None``.
        activation: ``"relu"`` (the paper), ``"gelu"`` or ``"gelu_tanh"``.

    Returns:
        Array of shape ``(..., d_model)``.

    Raises:
        ValueError: a shape does not match, or ``activation`` is unknown.

    Source: Vaswani et al. 2017, §3.3.
    """
    x = _tokens(x)
    if activation not in _ACTIVATIONS:
        raise ValueError(f"activation must be one of {sorted(_ACTIVATIONS)}, got {activation!r}")
    d_model = x.shape[-1]
    w1 = _matrix("w1", w1, d_model)
    d_ff = w1.shape[1]
    w2 = _matrix("w2", w2, d_ff)
    if w2.shape[1] != d_model:
        raise ValueError(f"w2 must have shape ({d_ff}, {d_model}), got {w2.shape}")
    hidden = _ACTIVATIONS[activation](x @ w1 + _bias("b1", b1, d_ff))  # (..., d_ff)
    return hidden @ w2 + _bias("b2", b2, d_model)  # (..., d_model)


def swiglu(x: np.ndarray, w: np.ndarray, v: np.ndarray, w2: np.ndarray) -> np.ndarray:
    """The SwiGLU FFN (Swish(xW) ⊙ xV)W₂, without biases.

    Args:
        x: shape ``(..., d_model)``.
        w: gate weights, shape ``(d_model, d_ff)``.
        v: value weights, shape ``(d_model, d_ff)``.
        w2: output weights, shape ``(d_ff, d_model)``.

    Returns:
        Array of shape ``(..., d_model)``.

    Raises:
        ValueError: a shape does not match.

    Source: Shazeer 2020, §2 (FFN_SwiGLU).
    """
    x = _tokens(x)
    d_model = x.shape[-1]
    w = _matrix("w", w, d_model)
    v = _matrix("v", v, d_model)
    if v.shape != w.shape:
        raise ValueError(f"v must have the shape of w {w.shape}, got {v.shape}")
    w2 = _matrix("w2", w2, w.shape[1])
    if w2.shape[1] != d_model:
        raise ValueError(f"w2 must have shape ({w.shape[1]}, {d_model}), got {w2.shape}")
    return (swish(x @ w) * (x @ v)) @ w2  # (..., d_ff) ⊙ (..., d_ff) -> (..., d_model)


# ----------------------------------------------------------------------------
# Derivations
# ----------------------------------------------------------------------------


def _ffn_definitions(kind: str) -> tuple:
    """Entrywise definitions for one token x (length d_model), symbolic d_model and d_ff."""
    import sympy as sp

    from .notation import sym, vec

    x, d_model, d_ff = vec("x"), sym("d_model"), sym("d_ff")
    i, j, k, t = sym("i"), sym("j"), sym("k_hidden"), sym("t")
    W1, W2, b1, b2 = vec("W_1"), vec("W_2"), vec("b_1"), vec("b_2")
    if kind == "relu":
        pre = sp.Sum(x[i] * W1[i, k], (i, 1, d_model)) + b1[k]
        return ((sp.Symbol("FFN(x)_j"), sp.Sum(sp.Max(0, pre) * W2[k, j], (k, 1, d_ff)) + b2[j]),)
    W, V = vec("W"), vec("V")
    swish = sp.Function("Swish")
    gate = swish(sp.Sum(x[i] * W[i, k], (i, 1, d_model)))
    value = sp.Sum(x[i] * V[i, k], (i, 1, d_model))
    return ((sp.Symbol("SwiGLU(x)_j"), sp.Sum(gate * value * W2[k, j], (k, 1, d_ff))),
            (swish(t), t / (1 + sp.exp(-t))))


def _homogeneity_check(seed: int) -> tuple[bool, dict, str]:
    rng = np.random.default_rng(seed)
    d_model, d_ff = 8, 32
    x = rng.normal(size=(4, d_model))
    w1, w2 = rng.normal(size=(d_model, d_ff)), rng.normal(size=(d_ff, d_model))
    b1, b2 = rng.normal(size=d_ff), rng.normal(size=d_model)
    gaps, bias_gaps = [], []
    for a in (0.5, 3.0):
        gaps.append(float(np.max(np.abs(ffn(a * x, w1, None, w2, None) - a * ffn(x, w1, None, w2, None)))))
        bias_gaps.append(float(np.max(np.abs(ffn(a * x, w1, b1, w2, b2) - a * ffn(x, w1, b1, w2, b2)))))
    ok = max(gaps) < 1e-12 and min(bias_gaps) > 1e-3
    return ok, {"scales": [0.5, 3.0], "max_gap_no_bias": max(gaps), "min_gap_with_bias": min(bias_gaps)}, (
        f"FFN(a·x) = a·FFN(x) without biases (max gap {max(gaps):.1e}); with biases it fails "
        f"(gap ≥ {min(bias_gaps):.2f})")


@register(
    "ffn.relu-homogeneity",
    title="ReLU is positively homogeneous: max(0, a·t) = a·max(0, t) for a > 0",
    summary="max(0, a·t) = a·max(0, t) for a > 0, via max(0, t) = (t + |t|)/2.",
)
def relu_homogeneity() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Transform
    from .notation import sym

    a, t = sym("a"), sym("t")
    return Derivation(
        **metadata("ffn.relu-homogeneity"),
        start=sp.Max(0, a * t) - a * sp.Max(0, t),
        steps=(
            Step((a * t + sp.Abs(a * t)) / 2 - a * (t + sp.Abs(t)) / 2,
                 "max(0, u) = (u + |u|)/2 for every real u", rule=Transform(lambda e: e.rewrite(sp.Abs),
                                                                           "rewrite max as (u + |u|)/2")),
            Step(sp.Integer(0), "|a·t| = a·|t| because a > 0", citation=VASWANI_33),
        ),
        assumptions=(Assumption("a > 0, t real (one pre-activation xW₁ + b₁ component)"),),
        definitions=_ffn_definitions("relu"),
        citations=(VASWANI_33,),
        checks=(FunctionCheck("FFN(a·x) vs a·FFN(x), with and without biases", _homogeneity_check),),
        notes=("Applied unit by unit it makes a bias-free ReLU FFN homogeneous too: see ffn.bias-free-homogeneity.",),
    )


@register(
    "ffn.bias-free-homogeneity",
    title="A bias-free ReLU FFN is positively homogeneous: FFN(a·x) = a·FFN(x) for a > 0",
    summary=(r"With $b_1 = b_2 = 0$, every output of $\max (0, xW_1)W_2$ scales with a > 0, for any "
             r"$d_{\text{model}}$ and $d_{\text{ff}}$."),
)
def bias_free_homogeneity() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Substitute
    from .notation import sym, vec

    a, d, d_ff = sym("a"), sym("d_model"), sym("d_ff")
    i, k, c = (sp.Symbol(n, integer=True, positive=True) for n in "ikc")
    x, h = vec("x"), vec("h")
    W1, W2 = sp.IndexedBase("W_1", real=True), sp.IndexedBase("W_2", real=True)
    pre = sp.Sum(x[i] * W1[i, k], (i, 1, d))  # h_k, the pre-activation of unit k

    def out(f: Any) -> Any:  # Σ_k f(k)·(W₂)_kc, output c of the FFN
        return sp.Sum(f * W2[k, c], (k, 1, d_ff))

    unit = sp.Eq(sp.Max(0, a * h[k]), a * sp.Max(0, h[k]))
    return Derivation(
        **metadata("ffn.bias-free-homogeneity"),
        start=out(sp.Max(0, sp.Sum(a * x[i] * W1[i, k], (i, 1, d)))) - a * out(sp.Max(0, pre)),
        steps=(
            Step(out(sp.Max(0, a * pre)) - a * out(sp.Max(0, pre)),
                 "the constant $a$ comes out of each pre-activation: $(a x)W_1 = a(xW_1)$"),
            Step(out(sp.Max(0, a * h[k])) - a * out(sp.Max(0, h[k])),
                 "name the pre-activation of unit $k$: $h_k = (xW_1)_k$", rule=Substitute(((pre, h[k]),), "h_k")),
            Step(out(a * sp.Max(0, h[k])) - a * out(sp.Max(0, h[k])),
                 "ReLU is positively homogeneous, unit by unit (ffn.relu-homogeneity)",
                 rule=Substitute(((unit.lhs, unit.rhs),), "max(0, a·h_k) = a·max(0, h_k)")),
            Step(sp.Integer(0), "the two sums are equal"),
        ),
        assumptions=(Assumption(r"a > 0; x is a token of width $d_{\text{model}}$, $W_1$ is $d_{\text{model}} \times "
                                r"d_{\text{ff}}$, $W_2$ is $d_{\text{ff}} \times d_{\text{model}}$, for any widths; "
                                r"no biases $(b_1 = b_2 = 0)$; $1 \le c \le d_{\text{model}}$"),),
        definitions=((h[k], pre),),
        premises=(unit,),
        citations=(VASWANI_33,),
        checks=(FunctionCheck("FFN(a·x) vs a·FFN(x), with and without biases", _homogeneity_check),),
        notes=("The premise is ffn.relu-homogeneity applied to each unit's pre-activation $h_k$. The biases break "
               "the law, which the numeric check shows.",),
    )


def _gelu_check(seed: int) -> tuple[bool, dict, str]:
    grid = np.linspace(-10.0, 10.0, 20_001)  # spacing 1e-3
    exact, approx = gelu(grid), gelu(grid, "tanh")
    gap = np.abs(exact - approx)
    k = int(np.argmax(gap))
    odd = float(np.max(np.abs(exact - gelu(-grid) - grid)))
    ok = float(gap[k]) <= GELU_TANH_BOUND and odd < 1e-12
    return ok, {"grid": "[-10, 10], spacing 1e-3", "max_abs_gap": float(gap[k]), "at": float(abs(grid[k])),
                "bound": GELU_TANH_BOUND, "max |GELU(t) − GELU(−t) − t|": odd}, (
        rf"$|\operatorname{{GELU}} - \operatorname{{GELU}}_{{\tanh}}| \le {gap[k]:.3e}$ (at |t| ≈ "
        rf"{abs(grid[k]):.2f}) ≤ {GELU_TANH_BOUND}; GELU(t) − GELU(−t) = t to {odd:.0e}")


@register(
    "ffn.gelu",
    title="GELU has the same odd part as ReLU: GELU(t) − GELU(−t) = t",
    summary="With GELU(t) = t·Φ(t), Φ(t) + Φ(−t) = 1 gives GELU(t) − GELU(−t) = t, as max(0, t) − max(0, −t) = t.",
)
def gelu_odd_part() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Substitute
    from .notation import sym

    t = sym("t")
    u = sp.Dummy("u", real=True)
    Phi, GELU = sp.Function("Phi"), sp.Function("GELU")
    erf = sp.erf(t / sp.sqrt(2))
    return Derivation(
        **metadata("ffn.gelu"),
        start=GELU(t) - GELU(-t),
        steps=(
            Step(t * Phi(t) + t * Phi(-t), "GELU(u) = u·Φ(u), so −GELU(−t) = t·Φ(−t)",
                 rule=Substitute(((GELU, sp.Lambda(u, u * Phi(u))),), "the definition of GELU")),
            Step(t * (1 + erf) / 2 + t * (1 - erf) / 2,
                 "Φ(u) = (1 + erf(u/√2))/2, and erf is odd",
                 rule=Substitute(((Phi, sp.Lambda(u, (1 + sp.erf(u / sp.sqrt(2))) / 2)),), "the normal CDF Φ")),
            Step(t, "the erf terms cancel"),
        ),
        assumptions=(Assumption("t real; Φ is the standard normal CDF"),),
        definitions=((GELU(t), t * Phi(t)), (Phi(t), (1 + sp.erf(t / sp.sqrt(2))) / 2),
                     (sp.Symbol("GELU_tanh(t)"),
                      t / 2 * (1 + sp.tanh(sp.sqrt(2 / sp.pi) * (t + sp.Float(GELU_TANH_C, 6) * t**3))))),
        citations=(HENDRYCKS_2, Citation("shazeer2020", "§2", "GEGLU: GELU in a gated FFN")),
        checks=(FunctionCheck("exact GELU vs its tanh approximation on [−10, 10]", _gelu_check),),
        notes=("GELU and ReLU differ only in their even part: GELU(t) = t/2 + (t/2)·erf(t/√2) against "
               "ReLU(t) = t/2 + |t|/2, and erf(t/√2)·t → |t| as |t| grows.",),
    )


def _gelu_taylor_check(seed: int) -> tuple[bool, dict, str]:
    import mpmath

    with mpmath.workdps(50):
        c = mpmath.mpf(GELU_TANH_C)
        a = mpmath.sqrt(2 / mpmath.pi)
        claim = (c - 2 / (3 * mpmath.pi) + mpmath.mpf(1) / 6) / mpmath.sqrt(2 * mpmath.pi)
        rows = {}
        for t in (mpmath.mpf("1e-2"), mpmath.mpf("1e-3")):
            approx = t / 2 * (1 + mpmath.tanh(a * (t + c * t**3)))
            exact = t / 2 * (1 + mpmath.erf(t / mpmath.sqrt(2)))
            rows[float(t)] = float((approx - exact) / t**4)
    gap = abs(rows[1e-3] - float(claim))
    ok = gap < 1e-6 * abs(float(claim)) * 1e3 and abs(rows[1e-2] - float(claim)) > gap  # O(t²) convergence
    return ok, {"digits": 50, "c": GELU_TANH_C, "claim": float(claim),
                "ratio_at_t": {str(k): v for k, v in rows.items()}}, (
        rf"$(\operatorname{{GELU}}_{{\tanh}} - \operatorname{{GELU}})/t^4$ at t = 1e-2, 1e-3 (50 digits): "
        rf"{rows[1e-2]:.6e}, {rows[1e-3]:.6e} → {float(claim):.6e}")


def _swish_derivative_check(seed: int) -> tuple[bool, dict, str]:
    rng = np.random.default_rng(seed)
    t = rng.uniform(-8, 8, size=200)
    h = 1e-6
    numeric = (swish(t + h) - swish(t - h)) / (2 * h)
    sigma = 1 / (1 + np.exp(-t))
    claim = sigma * (1 + t * (1 - sigma))
    err = float(np.max(np.abs(numeric - claim)))
    at0 = float((swish(np.array(h)) - swish(np.array(-h))) / (2 * h))
    grid = np.linspace(-2.0, -0.5, 150_001)  # spacing 1e-5
    t_min = float(grid[np.argmin(swish(grid))])  # where the slope changes sign
    ok = err < 1e-7 and abs(at0 - 0.5) < 1e-9 and abs(t_min + 1.278) < 1e-3
    return ok, {"points": 200, "step": h, "max_abs_error": err, "derivative_at_0": at0, "argmin": t_min,
                "min": float(swish(np.array(t_min)))}, (
        f"central differences match σ(1 + t(1 − σ)) at 200 random t (max error {err:.1e}); slope at 0 = {at0:.6f}; "
        f"minimum Swish({t_min:.3f}) = {float(swish(np.array(t_min))):.3f}")


def _swish_relu_check(seed: int) -> tuple[bool, dict, str]:
    t = np.linspace(-60.0, 60.0, 120_001)
    gap = np.abs(swish(t) - relu(t))
    bound = np.abs(t) * np.exp(-np.abs(t))
    k = int(np.argmax(gap))
    rounding = 4 * np.spacing(np.abs(t))  # float64 cannot resolve less than this next to t
    ok = bool(np.all(gap <= bound + rounding))
    far = float(gap[np.abs(t) >= 40].max())
    return ok, {"grid": "[-60, 60], spacing 1e-3", "max_gap": float(gap[k]), "at": float(abs(t[k])),
                "max_gap_beyond_40": far}, (
        rf"gap within $|t|\cdot e^{{-|t|}}$ everywhere (to float64 rounding); largest {gap[k]:.4f} at |t| ≈ "
        rf"{abs(t[k]):.2f}; {far:.1e} for |t| ≥ 40 (rounding level)")


@register(
    "ffn.gelu-tanh",
    title="The tanh approximation of GELU agrees with it to order t³",
    summary=r"$(\operatorname{GELU\_tanh}(t) - \operatorname{GELU}(t))/t^4 \to (c - 2/(3\pi) + 1/6)/\sqrt{2\pi}$ as "
            r"t → 0: $c = 2/(3\pi) - 1/6 \approx 0.04554$ would also match $t^4$; the fitted c = 0.044715 trades "
            "that for a smaller error away from 0.",
)
def gelu_tanh() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from ..rules import Evaluate
    from .notation import sym

    t, c = sym("t"), sym("c")
    a = sp.sqrt(2 / sp.pi)
    approx = t / 2 * (1 + sp.tanh(a * (t + c * t**3)))
    exact = t / 2 * (1 + sp.erf(t / sp.sqrt(2)))
    leading = (c - 2 / (3 * sp.pi) + sp.Rational(1, 6)) / sp.sqrt(2 * sp.pi)
    fitted = sp.Rational(44715, 10**6)
    return Derivation(
        **metadata("ffn.gelu-tanh"),
        start=sp.Limit((approx - exact) / t**4, t, 0),
        steps=(
            Step(sp.Limit((sp.tanh(a * (t + c * t**3)) - sp.erf(t / sp.sqrt(2))) / (2 * t**3), t, 0),
                 "the 1's cancel and t/2 divides t⁴"),
            Step(leading, "Taylor series at 0: tanh u = u − u³/3 + …, erf(t/√2) = √(2/π)(t − t³/6 + …); "
                 "the t terms agree and the t³ terms leave this coefficient", rule=Evaluate("the limit"),
                 citation=HENDRYCKS_2),
        ),
        assumptions=(Assumption("c is the cubic coefficient of the approximation (0.044715 in GPT-2 and BERT)"),),
        definitions=((sp.Symbol("GELU(t)"), exact), (sp.Symbol("GELU_tanh(t)"), approx)),
        citations=(HENDRYCKS_2,),
        auto_identity_check=False,  # evaluating the claim at a point is redoing the limit; see the checks
        checks=(
            ValueCheck("the Taylor-matching constant 2/(3π) − 1/6", 2 / (3 * sp.pi) - sp.Rational(1, 6), "0.04554"),
            ValueCheck("leading coefficient at the fitted c = 0.044715", leading.subs(c, fitted), "-3.29e-4"),
            FunctionCheck("the ratio at small t, in 50-digit arithmetic", _gelu_taylor_check),
        ),
        notes=(r"The limit is finite for every c, so $\operatorname{GELU\_tanh} - \operatorname{GELU} = O(t^4)$: the "
               "two agree in their t, $t^2$ and $t^3$ terms whatever c is. The fitted c ≈ 0.044715 misses the $t^4$ "
               r"term by $3.3\cdot 10^{-4}\cdot t^4$ and keeps the largest gap on the real line at $4.73\cdot "
               "10^{-4}$ (see ffn.gelu).",),
    )


@register(
    "ffn.swish-derivative",
    title="The derivative of Swish: σ(t)·(1 + t·(1 − σ(t)))",
    summary=(r"d/dt $[t\cdot \sigma(t)] = \sigma(t) + t\cdot \sigma(t)(1 - \sigma(t))$ with $\sigma(t) = 1/(1 + "
             "e^{-t})$; it is 1/2 at 0."),
)
def swish_derivative() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import sym

    t = sym("t")
    sigma = 1 / (1 + sp.exp(-t))
    return Derivation(
        **metadata("ffn.swish-derivative"),
        start=sp.Derivative(t * sigma, t),
        steps=(
            Step(sigma + t * sp.exp(-t) / (1 + sp.exp(-t)) ** 2, "product rule and the chain rule",
                 rule=Evaluate("the derivative")),
            Step(sigma * (1 + t * (1 - sigma)), r"$e^{-t}/(1 + e^{-t})^2 = \sigma(t)(1 - "
                                                r"\sigma(t))$", citation=RAMACHANDRAN),
        ),
        assumptions=(Assumption("t real; Swish(t) = t·σ(t) (β = 1, also called SiLU)"),),
        definitions=((sp.Symbol("Swish(t)"), t * sigma),),
        citations=(RAMACHANDRAN, SHAZEER_2),
        auto_identity_check=False,  # an unevaluated derivative has no value at a point; differences stand in
        checks=(FunctionCheck("central differences of the numpy Swish", _swish_derivative_check),),
        notes=("Unlike ReLU's derivative (0 or 1), Swish's is smooth and equals 1/2 at t = 0. Since "
               "Swish(t) − Swish(−t) = t (as for ReLU and GELU), Swish'(t) + Swish'(−t) = 1: the slope is negative "
               "below t ≈ −1.278, where Swish has its minimum ≈ −0.278 (it is not monotone), and exceeds 1 above "
               "t ≈ 1.278.",),
    )


@register(
    "ffn.swish-limits",
    title="Swish tends to ReLU at both ends",
    summary="Swish(t) − t → 0 as t → ∞ and Swish(t) → 0 as t → −∞: Swish is a smooth ReLU.",
)
def swish_limits() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import sym

    t = sym("t")
    sw = t / (1 + sp.exp(-t))
    return Derivation(
        **metadata("ffn.swish-limits"),
        start=sp.ImmutableMatrix([sp.Limit(sw - t, t, sp.oo), sp.Limit(sw, t, -sp.oo)]),
        steps=(Step(sp.ImmutableMatrix([0, 0]), (r"$\sigma(t) \to 1$ faster than t grows, and $t\cdot e^t \to 0$ as "
                                                 "t → −∞"),
                    rule=Evaluate("the limits"), citation=RAMACHANDRAN),),
        assumptions=(Assumption(r"$\operatorname{Swish}(t) = t\cdot \sigma(t) = t/(1 + e^{-t})$"),),
        citations=(RAMACHANDRAN, SHAZEER_2),
        auto_identity_check=False,  # no free symbols: evaluating the claim is redoing the limits
        checks=(FunctionCheck((r"$|\operatorname{Swish}(t) - \operatorname{ReLU}(t)| \le |t|\cdot e^{-|t|}$ on [−60, "
                               "60]"), _swish_relu_check),),
        notes=(r"Exactly, $\operatorname{Swish}(t) - \operatorname{ReLU}(t) = -|t|\cdot \sigma(-|t|)$, whose size is "
               r"at most $|t|\cdot e^{-|t|}$: the gap is largest near |t| ≈ 1.28 (about 0.28) and vanishes "
               "exponentially.",),
    )


def _swiglu_check(seed: int) -> tuple[bool, dict, str]:
    rng = np.random.default_rng(seed)
    d_model, d_ff = 6, 16
    x = rng.normal(size=(3, d_model))
    w, v, w2 = rng.normal(size=(d_model, d_ff)), rng.normal(size=(d_model, d_ff)), rng.normal(size=(d_ff, d_model))
    # the helper against the per-unit formula Σ_k Swish(x·w_k)(x·v_k)W₂[k, :]
    loop = np.zeros_like(x)
    for n in range(x.shape[0]):
        for k in range(d_ff):
            g = x[n] @ w[:, k]
            loop[n] += g / (1 + math.exp(-g)) * (x[n] @ v[:, k]) * w2[k]
    gap = float(np.max(np.abs(swiglu(x, w, v, w2) - loop)))
    # near 0: SwiGLU(s·x)/s² → ½(xW ⊙ xV)W₂
    s = 1e-4
    quad = 0.5 * ((x @ w) * (x @ v)) @ w2
    rel = float(np.max(np.abs(swiglu(s * x, w, v, w2) / s**2 - quad)) / np.max(np.abs(quad)))
    ok = gap < 1e-12 and rel < 1e-3
    return ok, {"d_model": d_model, "d_ff": d_ff, "max_gap_vs_loop": gap, "s": s, "relative_gap_quadratic": rel}, (
        f"helper = per-unit formula (gap {gap:.1e}); SwiGLU(s·x)/s² at s = 1e-4 is ½(xW ⊙ xV)W₂ to {rel:.1e}")


@register(
    "ffn.swiglu",
    title="SwiGLU is quadratic near zero: SwiGLU(s·x) ≈ s²·½(xW ⊙ xV)W₂",
    summary="With $\\operatorname{SwiGLU}(x) = (\\operatorname{Swish}(xW) \\odot xV)W_2$, the output matrix included, "
            "for any widths SwiGLU(s·x)/s² → ½(xW ⊙ xV)W₂ as s → 0: each unit Swish(s·u)·(s·v) ≈ s²·u·v/2.",
)
def swiglu_near_zero() -> Derivation:
    import sympy as sp

    from ..kernel.limit_laws import LimitLaws
    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import sym, vec

    s, d_ff = sp.Symbol("s", positive=True), sym("d_ff")
    k, c = (sp.Symbol(n, integer=True, positive=True) for n in "kc")
    u, v, W2 = vec("u"), vec("v"), sp.IndexedBase("W_2", real=True)

    def swish(t: Any) -> Any:
        return t / (1 + sp.exp(-t))

    def block(term: Any) -> Any:  # output c: Σ_k term_k·(W₂)_kc
        return sp.Sum(term * W2[k, c], (k, 1, d_ff))

    return Derivation(
        **metadata("ffn.swiglu"),
        start=sp.Limit(block(swish(s * u[k]) * (s * v[k]) / s**2), s, 0),
        steps=(Step(sp.Sum(sp.Limit(swish(s * u[k]) * (s * v[k]) / s**2 * W2[k, c], s, 0), (k, 1, d_ff)),
                    r"limit laws: the sum has a fixed number $d_{\text{ff}}$ of terms, each with a finite limit",
                    rule=LimitLaws()),
               Step(block(u[k] * v[k] / 2), "σ(0) = 1/2, so Swish(s·u) = s·u/2 + O(s²)",
                    rule=Evaluate("the limits"), citation=SHAZEER_2),),
        assumptions=(Assumption("$u_k = (xW)_k$ and $v_k = (xV)_k$ are the gate and value pre-activations of hidden "
                                r"unit k (no biases); scaling x by s scales both by s; $\operatorname{SwiGLU}(x) = "
                                r"(\operatorname{Swish}(xW) \odot xV)W_2$ includes the output matrix $W_2$ (Shazeer "
                                r"2020's $\operatorname{FFN}_{\text{SwiGLU}}$; W and V are $W_1$ and $W_3$ of "
                                "LLaMA's code); the limit is output c of SwiGLU(s·x) divided by $s^2$, for any "
                                r"$d_{\text{model}}$ and $d_{\text{ff}}$"),),
        definitions=_ffn_definitions("swiglu"),
        citations=(SHAZEER_2,),
        checks=(FunctionCheck("numpy SwiGLU vs the per-unit formula, and its s → 0 limit", _swiglu_check),),
        notes=(r"Three matrices: W and V are $d_{\text{model}} \times d_{\text{ff}}$, $W_2$ is $d_{\text{ff}} \times "
               r"d_{\text{model}}$. The gate makes the block second order near the origin, where a bias-free ReLU "
               "FFN is positively homogeneous (ffn.bias-free-homogeneity) and a linear GLU would be exactly "
               "bilinear.",),
    )
