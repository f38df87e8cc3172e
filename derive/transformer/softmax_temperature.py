"""Softmax temperature: the limits T → 0⁺ and T → ∞, √d_k as a temperature, and saturation.

softmax(z/T)_i = e^{z_i/T} / Σ_j e^{z_j/T}. Source: Vaswani et al. 2017,
§3.2.1 and footnote 4 (the scaling by 1/√d_k and why large scores hurt).
The numeric conventions (T = 0 is the argmax limit, T = inf is uniform) live
in :mod:`derive.transformer.softmax_numeric`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register
from ..rules import Rule

VASWANI_321 = Citation("vaswani2017", "§3.2.1")


@dataclass(frozen=True)
class ScaleFraction(Rule):
    """Multiply numerator and denominator of every fraction by the same non-zero ``factor``.

    Reaches inside ``Limit`` objects (the limit of equal functions is the same
    limit) and matrices; exponentials are merged (e^a·e^b = e^(a+b)).

    Args:
        factor: a non-zero expression, e.g. ``exp(-z_max/T)``.
    """

    factor: Any
    label: str = ""
    name: str = "scale a fraction"

    def apply(self, expr: Any) -> Any:
        import sympy as sp

        if self.factor.is_zero is not False or self.factor.is_finite is not True:
            raise ValueError(f"the factor {self.factor} must be provably finite and non-zero")

        def merge(x: Any) -> Any:
            x = sp.powsimp(sp.expand(x, power_exp=False))
            return x.replace(lambda y: isinstance(y, sp.exp), lambda y: sp.exp(sp.expand(y.args[0])))

        def scale(f: Any) -> Any:
            num, den = sp.fraction(f)
            return merge(num * self.factor) / merge(den * self.factor)

        def one(e: Any) -> Any:
            if any(isinstance(x, sp.Limit) for x in sp.preorder_traversal(e)):
                return e.replace(lambda x: isinstance(x, sp.Limit), lambda x: sp.Limit(scale(x.args[0]), *x.args[1:]))
            return scale(e)

        return expr.applyfunc(one) if isinstance(expr, sp.MatrixBase) else one(expr)

    def describe(self) -> str:
        return f"multiply numerator and denominator by {self.label or self.factor}"


def _three_scores(gaps: tuple[Any, Any]) -> tuple[Any, list, Any]:
    """(z_max, [z_max, z_max − g_2, z_max − g_3] with the given gaps, T)."""
    from .notation import sym

    top = sym("z_max")
    return top, [top, top - gaps[0], top - gaps[1]], sym("T")


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
    summary="With gaps g_2, g_3 > 0 below the maximum, softmax(z/T) → (1, 0, 0) as T → 0⁺.",
)
def temperature_zero() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import vec

    g = vec("g", positive=True)
    top, z, T = _three_scores((g[2], g[3]))
    den = sum(sp.exp(x / T) for x in z)
    den0 = 1 + sp.exp(-g[3] / T) + sp.exp(-g[2] / T)
    return Derivation(
        **metadata("softmax.temperature-zero"),
        start=sp.ImmutableMatrix([sp.Limit(sp.exp(x / T) / den, T, 0, "+") for x in z]),
        steps=(
            Step(sp.ImmutableMatrix([sp.Limit(e / den0, T, 0, "+")
                                     for e in (1, sp.exp(-g[2] / T), sp.exp(-g[3] / T))]),
                 "multiply numerator and denominator by $e^{-z_{\\max}/T}$: every exponent becomes "
                 "$-g/T$ with a gap $g \\ge 0$",
                 rule=ScaleFraction(sp.exp(-top / T), "e^(−z_max/T)")),
            Step(sp.ImmutableMatrix([1, 0, 0]),
                 "$e^{-g/T} \\to 0$ as $T \\to 0^+$ for every gap $g > 0$", rule=Evaluate("the limits")),
        ),
        assumptions=(Assumption("z = (z_max, z_max − g_2, z_max − g_3) with gaps g_2, g_3 > 0: the first "
                                "score is the unique maximum (any order of the entries is the same up to "
                                "relabelling)"),),
        citations=(VASWANI_321,),
        auto_identity_check=False,  # sympy cannot take these limits at numeric gaps quickly; see the check
        checks=(FunctionCheck("numeric softmax at tiny and huge T", _temperature_limit_check),),
        notes=("The numeric helper implements T = 0 as this limit (softmax_numeric.softmax), not as a "
               "division by zero.",),
    )


@register(
    "softmax.temperature-zero-ties",
    title="As T → 0⁺, tied maxima share the weight equally",
    summary="For z = (z_max, z_max, z_max − g), softmax(z/T) → (1/2, 1/2, 0) as T → 0⁺.",
)
def temperature_zero_ties() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import vec

    g = vec("g", positive=True)
    top, z, T = _three_scores((sp.Integer(0), g[3]))
    den = sum(sp.exp(x / T) for x in z)
    den0 = 2 + sp.exp(-g[3] / T)
    return Derivation(
        **metadata("softmax.temperature-zero-ties"),
        start=sp.ImmutableMatrix([sp.Limit(sp.exp(x / T) / den, T, 0, "+") for x in z]),
        steps=(
            Step(sp.ImmutableMatrix([sp.Limit(e / den0, T, 0, "+") for e in (1, 1, sp.exp(-g[3] / T))]),
                 "multiply numerator and denominator by $e^{-z_{\\max}/T}$",
                 rule=ScaleFraction(sp.exp(-top / T), "e^(−z_max/T)")),
            Step(sp.ImmutableMatrix([sp.Rational(1, 2), sp.Rational(1, 2), 0]),
                 "$e^{-g_3/T} \\to 0$: the two tied entries keep equal shares of the weight",
                 rule=Evaluate("the limits")),
        ),
        assumptions=(Assumption("z = (z_max, z_max, z_max − g_3) with g_3 > 0: two entries tie for the maximum"),),
        citations=(VASWANI_321,),
        auto_identity_check=False,  # as for softmax.temperature-zero
        checks=(FunctionCheck("numeric softmax at tiny and huge T", _temperature_limit_check),),
    )


@register(
    "softmax.temperature-infinity",
    title="As T → ∞, softmax(z/T) becomes uniform",
    summary="For any real scores, softmax(z/T) → (1/3, 1/3, 1/3) as T → ∞: every score is divided down to 0.",
)
def temperature_infinity() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import sym, vec

    z, T = vec("z"), sym("T")
    zs = [z[1], z[2], z[3]]
    den = sum(sp.exp(x / T) for x in zs)
    return Derivation(
        **metadata("softmax.temperature-infinity"),
        start=sp.ImmutableMatrix([sp.Limit(sp.exp(x / T) / den, T, sp.oo) for x in zs]),
        steps=(
            Step(sp.ImmutableMatrix([sp.Rational(1, 3)] * 3),
                 "each $z_i/T \\to 0$, so each exponential tends to $e^0 = 1$ and each weight to 1/3",
                 rule=Evaluate("the limits")),
        ),
        assumptions=(Assumption("z_1, z_2, z_3 are any real scores (no order or gap needed)"),),
        citations=(VASWANI_321,),
        checks=(FunctionCheck("numeric softmax at tiny and huge T", _temperature_limit_check),),
        notes=("For n scores the same argument gives 1/n each; the numeric check covers n = 2..8.",),
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
        f"softmax(s/√d_k) and softmax at temperature √d_k agree within {worst:.1e} for d_k = 1, 4, 64, 512")


@register(
    "softmax.sqrt-dk-temperature",
    title="Dividing the scores by √d_k is softmax at temperature T = √d_k",
    summary="softmax(z/T) with T = √d_k is exactly the attention weight softmax(s/√d_k).",
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
        assumptions=(Assumption("s_j = q·k_j are the unscaled scores of one query against n keys"),),
        citations=(VASWANI_321,),
        auto_identity_check=False,  # replaced by a lighter one: each point expands two sums
        checks=(
            IdentityCheck(sp.Subs(weight(T), T, sp.sqrt(d_k)), weight(sp.sqrt(d_k)), "claim at random points",
                          n_points=8),
            FunctionCheck("scaled scores vs temperature √d_k", _sqrt_dk_check),
            ValueCheck("temperature of the lecture's example, d_k = 4", sp.sqrt(4), "2", "lecture 000, §2"),
        ),
        notes=("√d_k is the standard deviation of the unscaled scores (attention.score-variance), so this "
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
        f"n = {n}, d_k = {d_k}: median Frobenius norm of the Jacobian {med['unscaled']:.3g} unscaled vs "
        f"{med['scaled']:.3g} scaled by 1/√d_k (median top weight unscaled {np.median(top):.3f})")


@register(
    "softmax.saturation",
    title="Scaling the scores up makes the softmax Jacobian vanish",
    summary="For z = (0, −g) scaled by λ, every Jacobian entry ±s_1 s_2 tends to 0 as λ → ∞: gradients die.",
)
def saturation() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import sym

    gain, g = sym("gain"), sp.Symbol("g", positive=True)
    den = 1 + sp.exp(-gain * g)
    s1, s2 = 1 / den, sp.exp(-gain * g) / den
    J = [[s1 * (1 - s1), -s1 * s2], [-s2 * s1, s2 * (1 - s2)]]
    return Derivation(
        **metadata("softmax.saturation"),
        start=sp.ImmutableMatrix([[sp.Limit(x, gain, sp.oo) for x in row] for row in J]),
        steps=(
            Step(sp.ImmutableMatrix([[0, 0], [0, 0]]),
                 "$s_1 \\to 1$ and $s_2 \\to 0$, so every entry $s_i(\\delta_{ij} - s_j)$ tends to 0",
                 rule=Evaluate("the limits")),
        ),
        assumptions=(Assumption("two scores with gap g > 0, written as (0, −g) by shift invariance "
                                "(softmax.shift-invariance), multiplied by λ > 0; s = softmax(λ·z) and "
                                "J_ij = s_i(δ_ij − s_j) (softmax.jacobian)"),),
        citations=(Citation("vaswani2017", "§3.2.1, footnote 4"),),
        auto_identity_check=False,  # limits at numeric gaps are slow in sympy; see the numeric check
        checks=(FunctionCheck("Jacobian size at d_k = 512, unscaled vs scaled", _saturation_check),),
        notes=("Unscaled scores have standard deviation √d_k (attention.score-variance), which acts like a "
               "large λ: the softmax saturates and its Jacobian, through which every gradient passes, "
               "shrinks. Dividing by √d_k keeps the scores at unit variance.",),
    )
