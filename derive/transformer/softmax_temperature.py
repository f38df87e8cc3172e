"""Softmax temperature: the limits T → 0⁺ and T → ∞, √d_k as a temperature, and saturation.

softmax(z/T)_i = e^{z_i/T} / Σ_j e^{z_j/T}. Source: Vaswani et al. 2017,
§3.2.1 and footnote 4 (the scaling by 1/√d_k and why large scores hurt).
The numeric conventions (T = 0 is the argmax limit, T = inf is uniform) live
in :mod:`derive.transformer.softmax_numeric`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

VASWANI_321 = Citation("vaswani2017", "§3.2.1")


def _scores_below_max() -> tuple[Any, Any, Any, Any, Any]:
    """(z_max, g, T, n, i): scores z_j = z_max − g_j below a maximum, at temperature T."""
    from .notation import sym, vec

    return sym("z_max"), vec("g", positive=True), sym("T"), sym("n"), sym("i")


def _temperature_limit_check(seed: int) -> tuple[bool, dict, str]:
    """softmax(z/T) approaches the T = 0 rule of the numeric helper as T shrinks, and 1/n as T grows."""
    from .softmax_numeric import softmax

    rng = np.random.default_rng(seed)
    worst_zero, worst_inf, trials = 0.0, 0.0, 200
    for _ in range(trials):
        n = int(rng.integers(2, 9))
        z = rng.integers(-3, 4, size=n).astype(float)  # small integers: ties happen
        gap = np.min(np.diff(np.unique(z))) if len(np.unique(z)) > 1 else 1.0
        worst_zero = max(worst_zero, float(np.max(np.abs(softmax(z, 1e-3 * gap) - softmax(z, 0.0)))))
        worst_inf = max(worst_inf, float(np.max(np.abs(softmax(z, 1e9) - 1.0 / n))))
    ok = worst_zero < 1e-12 and worst_inf < 1e-8
    return ok, {"trials": trials, "max_gap_T_small": worst_zero, "max_gap_T_large": worst_inf}, (
        f"{trials} integer score vectors (with ties): |softmax(z/T) − argmax rule| ≤ {worst_zero:.1e} at "
        f"T = 0.001·gap; |softmax(z/T) − 1/n| ≤ {worst_inf:.1e} at T = 1e9")


@register(
    "softmax.temperature-zero",
    title="As T → 0⁺, softmax(z/T) becomes one-hot on the largest score",
    summary="For n scores with a unique maximum, softmax(z/T) → 1 on the maximum and 0 elsewhere as T → 0⁺.",
)
def temperature_zero() -> Derivation:
    import sympy as sp

    from ..kernel.limit_laws import LimitLaws
    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import sym

    top, g, T, n, i = _scores_below_max()
    j = sym("j")
    e = sp.exp
    rest = sp.Sum(e((top - g[j]) / T), (j, 2, n))
    scaled = sp.Sum(e(-g[j] / T), (j, 2, n))
    limit = sp.Sum(sp.Limit(e(-g[j] / T), T, 0, "+"), (j, 2, n))
    return Derivation(
        **metadata("softmax.temperature-zero"),
        start=sp.ImmutableMatrix([sp.Limit(e(top / T) / (e(top / T) + rest), T, 0, "+"),
                                  sp.Limit(e((top - g[i]) / T) / (e(top / T) + rest), T, 0, "+")]),
        steps=(
            Step(sp.ImmutableMatrix([sp.Limit(1 / (1 + scaled), T, 0, "+"),
                                     sp.Limit(e(-g[i] / T) / (1 + scaled), T, 0, "+")]),
                 "multiply numerator and denominator by $e^{-z_{\\max}/T}$: every exponent becomes "
                 "$-g_j/T$ with a gap $g_j > 0$"),
            Step(sp.ImmutableMatrix([1 / (1 + limit), sp.Limit(e(-g[i] / T), T, 0, "+") / (1 + limit)]),
                 "limit laws: the sum has a fixed number $n - 1$ of terms, each with a finite limit, and the "
                 "denominator's limit is not 0", rule=LimitLaws()),
            Step(sp.ImmutableMatrix([1, 0]),
                 "$e^{-g/T} \\to 0$ as $T \\to 0^+$ for every gap $g > 0$", rule=Evaluate("the limits")),
        ),
        assumptions=(Assumption(r"n ≥ 1 scores with a unique maximum, numbered first: $z_1 = z_{\max}$ and "
                                r"$z_j = z_{\max} - g_j$ with a gap $g_j > 0$ for j = 2, …, n (any other order "
                                "is the same up to relabelling); the first entry is the maximum's weight, the second "
                                "the weight of any other score $z_i$, 2 ≤ i ≤ n"),),
        citations=(VASWANI_321,),
        auto_identity_check=False,  # sympy cannot take these limits at numeric gaps quickly; see the check
        checks=(FunctionCheck("numeric softmax at tiny and huge T", _temperature_limit_check),),
        notes=(r"The numeric helper implements T = 0 as this limit ($\mathtt{softmax\_numeric}$.softmax), not as a "
               "division by zero.",),
    )


@register(
    "softmax.temperature-zero-ties",
    title="As T → 0⁺, tied maxima share the weight equally",
    summary="With m of n scores tied for the maximum, softmax(z/T) → 1/m on each of them and 0 elsewhere as T → 0⁺.",
)
def temperature_zero_ties() -> Derivation:
    import sympy as sp

    from ..kernel.limit_laws import LimitLaws
    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import sym

    top, g, T, n, i = _scores_below_max()
    j, m = sym("j"), sym("m")
    e = sp.exp
    den = sp.Sum(e(top / T), (j, 1, m)) + sp.Sum(e((top - g[j]) / T), (j, m + 1, n))
    scaled = sp.Sum(e(-g[j] / T), (j, m + 1, n))
    limit = sp.Sum(sp.Limit(e(-g[j] / T), T, 0, "+"), (j, m + 1, n))
    return Derivation(
        **metadata("softmax.temperature-zero-ties"),
        start=sp.ImmutableMatrix([sp.Limit(e(top / T) / den, T, 0, "+"),
                                  sp.Limit(e((top - g[i]) / T) / den, T, 0, "+")]),
        steps=(
            Step(sp.ImmutableMatrix([sp.Limit(1 / (m + scaled), T, 0, "+"),
                                     sp.Limit(e(-g[i] / T) / (m + scaled), T, 0, "+")]),
                 "multiply numerator and denominator by $e^{-z_{\\max}/T}$: each of the $m$ tied terms "
                 "becomes 1"),
            Step(sp.ImmutableMatrix([1 / (m + limit), sp.Limit(e(-g[i] / T), T, 0, "+") / (m + limit)]),
                 "limit laws: a fixed number of terms, each with a finite limit; the denominator's limit is at "
                 "least $m > 0$", rule=LimitLaws()),
            Step(sp.ImmutableMatrix([1 / m, 0]),
                 "$e^{-g/T} \\to 0$: the $m$ tied entries keep equal shares of the weight",
                 rule=Evaluate("the limits")),
        ),
        assumptions=(Assumption(r"n scores of which the first m (1 ≤ m ≤ n) tie for the maximum $z_{\max}$ and "
                                r"$z_j = z_{\max} - g_j$ with $g_j > 0$ for j = m + 1, …, n; the first entry "
                                "is the weight of a tied score, the second that of any other score $z_i$, m < i ≤ n"),),
        premises=(sp.Le(m, n),),
        citations=(VASWANI_321,),
        auto_identity_check=False,  # as for softmax.temperature-zero
        checks=(FunctionCheck("numeric softmax at tiny and huge T", _temperature_limit_check),),
        notes=("With m = 1 this is softmax.temperature-zero; with m = n every score ties and the weights are "
               "1/n at every temperature.",),
    )


@register(
    "softmax.temperature-infinity",
    title="As T → ∞, softmax(z/T) becomes uniform",
    summary=(r"For any n real scores, $\operatorname{softmax}(z/T)_i \to 1/n$ as T → ∞: every score is divided down "
             "to 0."),
)
def temperature_infinity() -> Derivation:
    import sympy as sp

    from ..kernel.limit_laws import LimitLaws
    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import sym, vec

    z, T, n, i, j = vec("z"), sym("T"), sym("n"), sym("i"), sym("j")
    e = sp.exp
    return Derivation(
        **metadata("softmax.temperature-infinity"),
        start=sp.Limit(e(z[i] / T) / sp.Sum(e(z[j] / T), (j, 1, n)), T, sp.oo),
        steps=(
            Step(sp.Limit(e(z[i] / T), T, sp.oo) / sp.Sum(sp.Limit(e(z[j] / T), T, sp.oo), (j, 1, n)),
                 "limit laws: a quotient of limits, and the sum has a fixed number n of terms",
                 rule=LimitLaws()),
            Step(1 / sp.Sum(1, (j, 1, n)),
                 "each $z_j/T \\to 0$, so each exponential tends to $e^0 = 1$", rule=Evaluate("the limits")),
            Step(1 / n, "a sum of n ones is n"),
        ),
        assumptions=(Assumption("z is any real vector of length n ≥ 1 (no order or gap needed), 1 ≤ i ≤ n"),),
        citations=(VASWANI_321,),
        auto_identity_check=False,  # a limit of a sum of symbolic length: the numeric check covers n = 2..8
        checks=(FunctionCheck("numeric softmax at tiny and huge T", _temperature_limit_check),),
    )


def _sqrt_dk_check(seed: int) -> tuple[bool, dict, str]:
    """softmax(s/√d_k) equals the helper's softmax(s, temperature=√d_k) on random scores."""
    from .softmax_numeric import softmax

    rng = np.random.default_rng(seed)
    worst = 0.0
    for d_k in (1, 4, 64, 512):
        s = rng.normal(scale=np.sqrt(d_k), size=(8, 8))  # unscaled scores: standard deviation √d_k
        worst = max(worst, float(np.max(np.abs(softmax(s / np.sqrt(d_k)) - softmax(s, np.sqrt(d_k))))))
    return worst < 1e-15, {"d_k": [1, 4, 64, 512], "max_abs_difference": worst}, (
        rf"$\operatorname{{softmax}}(s/\sqrt{{d_k}})$ and softmax at temperature $\sqrt{{d_k}}$ agree within "
         rf"{worst:.1e} for $d_k = 1$, 4, 64, 512")


@register(
    "softmax.sqrt-dk-temperature",
    title=r"Dividing the scores by $\sqrt{d_k}$ is softmax at temperature $T = \sqrt{d_k}$",
    summary=(r"softmax(z/T) with $T = \sqrt{d_k}$ is exactly the attention weight "
             r"$\operatorname{softmax}(s/\sqrt{d_k})$."),
)
def sqrt_dk_temperature() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, IdentityCheck, ValueCheck
    from ..rules import Evaluate
    from .notation import sym, vec

    n, j, ell, T, d_k = sym("n"), sym("j"), sym("l"), sym("T"), sym("d_k")
    s = vec("s")

    def weight(temp: Any) -> Any:
        return sp.exp(s[j] / temp) / sp.Sum(sp.exp(s[ell] / temp), (ell, 1, n))

    return Derivation(
        **metadata("softmax.sqrt-dk-temperature"),
        start=sp.Subs(weight(T), T, sp.sqrt(d_k)),
        steps=(
            Step(weight(sp.sqrt(d_k)), "set $T = \\sqrt{d_k}$: the scaled attention weight of score $s_j$",
                 rule=Evaluate("the substitution T = √d_k"), citation=VASWANI_321),
        ),
        assumptions=(Assumption(r"$s_j = q\cdot k_j$ are the unscaled scores of one query against n keys"),),
        citations=(VASWANI_321,),
        auto_identity_check=False,  # replaced by a lighter one: each point expands two sums
        checks=(
            IdentityCheck(sp.Subs(weight(T), T, sp.sqrt(d_k)), weight(sp.sqrt(d_k)), "claim at random points",
                          n_points=8),
            FunctionCheck(r"scaled scores vs temperature $\sqrt{d_k}$", _sqrt_dk_check),
            ValueCheck("temperature of the lecture's example, $d_k = 4$", sp.sqrt(4), "2", "lecture 000, §2"),
        ),
        notes=(r"$\sqrt{d_k}$ is the standard deviation of the unscaled scores (attention.score-variance), so this "
               "temperature brings them back to unit variance: see softmax.saturation for why that matters.",),
    )


SATURATION_SHAPE = {"n": 16, "d_k": 512, "trials": 200}


def _saturation_check(seed: int) -> tuple[bool, dict, str]:
    """At d_k = 512, the Jacobian of softmax on unscaled scores is much smaller than on scaled ones."""
    from .softmax_numeric import softmax, softmax_jacobian

    rng = np.random.default_rng(seed)
    n, d_k, trials = SATURATION_SHAPE["n"], SATURATION_SHAPE["d_k"], SATURATION_SHAPE["trials"]
    norms = {"unscaled": [], "scaled": []}
    top = []
    for _ in range(trials):
        q, K = rng.standard_normal(d_k), rng.standard_normal((n, d_k))
        s = K @ q  # (n,) unscaled scores, standard deviation √d_k
        for label, z in (("unscaled", s), ("scaled", s / np.sqrt(d_k))):
            p = softmax(z)
            norms[label].append(float(np.linalg.norm(softmax_jacobian(p))))
            if label == "unscaled":
                top.append(float(p.max()))
    med = {k: float(np.median(v)) for k, v in norms.items()}
    ok = med["unscaled"] < 0.25 * med["scaled"]
    return ok, {**SATURATION_SHAPE, "median_jacobian_norm_unscaled": round(med["unscaled"], 4),
                "median_jacobian_norm_scaled": round(med["scaled"], 4),
                "median_top_weight_unscaled": round(float(np.median(top)), 4)}, (
        rf"n = {n}, $d_k = {d_k}$: median Frobenius norm of the Jacobian {med['unscaled']:.3g} unscaled vs "
        rf"{med['scaled']:.3g} scaled by $1/\sqrt{{d_k}}$ (median top weight unscaled {np.median(top):.3f})")


@register(
    "softmax.saturation",
    title="With a unique largest score, scaling the scores up makes the softmax Jacobian vanish",
    summary=r"For n scores with a unique maximum, scaled by $\lambda$, every Jacobian entry $s_a(\delta_{ab} - s_b)$ "
            r"tends to 0 as $\lambda$ → ∞: gradients die.",
)
def saturation() -> Derivation:
    import sympy as sp

    from ..kernel.limit_laws import LimitLaws
    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import sym, vec

    gain, g, n, i, j, m = sym("gain"), vec("g", positive=True), sym("n"), sym("i"), sym("j"), sym("l")
    e = sp.exp
    den = 1 + sp.Sum(e(-gain * g[m]), (m, 2, n))
    lim_den = 1 + sp.Sum(sp.Limit(e(-gain * g[m]), gain, sp.oo), (m, 2, n))
    s1, si, sj = 1 / den, e(-gain * g[i]) / den, e(-gain * g[j]) / den
    delta = sp.KroneckerDelta(i, j)
    J = [[s1 * (1 - s1), -s1 * sj], [-si * s1, si * (delta - sj)]]
    L1 = 1 / lim_den
    Li, Lj = (sp.Limit(e(-gain * g[k]), gain, sp.oo) / lim_den for k in (i, j))
    pushed = [[L1 * (1 - L1), -L1 * Lj], [-Li * L1, Li * (delta - Lj)]]
    return Derivation(
        **metadata("softmax.saturation"),
        start=sp.ImmutableMatrix([[sp.Limit(x, gain, sp.oo) for x in row] for row in J]),
        steps=(
            Step(sp.ImmutableMatrix(pushed),
                 "limit laws: products and quotients of limits; each sum has a fixed number $n - 1$ of terms "
                 "and the denominator's limit is at least 1", rule=LimitLaws()),
            Step(sp.ImmutableMatrix([[0, 0], [0, 0]]),
                 "$e^{-\\lambda g} \\to 0$ for $g > 0$, so $s_1 \\to 1$ and every other $s_i \\to 0$; each "
                 "entry $s_a(\\delta_{ab} - s_b)$ tends to 0", rule=Evaluate("the limits")),
        ),
        assumptions=(Assumption("n ≥ 2 scores with a unique maximum, shifted to 0 by shift invariance "
                                r"(softmax.shift-invariance) and numbered first: $z = (0, -g_2, \dots, -g_n)$ with "
                                r"gaps $g_j > 0$, multiplied by $\lambda > 0$; $s = "
                                r"\operatorname{softmax}(\lambda\cdot z)$ and $J_{ab} = s_a(\delta_{ab} - s_b)$ "
                                "(softmax.jacobian)"),
                     Assumption("the matrix lists the four kinds of entry: $J_{11}$, $J_{1j}$, $J_{i1}$ and $J_{ij}$ "
                                "for any 2 ≤ i, j ≤ n")),
        citations=(Citation("vaswani2017", "§3.2.1, footnote 4"),),
        auto_identity_check=False,  # limits of sums of symbolic length: see the numeric check
        checks=(FunctionCheck("Jacobian size at $d_k = 512$, unscaled vs scaled", _saturation_check),),
        notes=(r"Unscaled scores have standard deviation $\sqrt{d_k}$ (attention.score-variance), which acts like a "
               r"large $\lambda$: the softmax saturates and its Jacobian, through which every gradient passes, "
               r"shrinks. Dividing by $\sqrt{d_k}$ keeps the scores at unit variance.",
               "The unique maximum is needed: tied scores (0, 0) give s = (½, ½) at every scale, and the Jacobian "
               r"stays $\begin{bmatrix} 1/4 & -1/4 \\ -1/4 & 1/4 \end{bmatrix}$."),
    )
