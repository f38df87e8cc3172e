"""Softmax: shift invariance and the max trick.

Source: Vaswani et al. 2017, §3.2.1 (softmax over the scaled scores). The
numeric helpers live in :mod:`derive.transformer.softmax_numeric`.
"""

from __future__ import annotations

from ..core import Assumption, Citation, Derivation, Step
from ..registry import register

VASWANI_321 = Citation("vaswani2017", "§3.2.1")

#: The float64 example of the max trick (lecture 000) and its shifted softmax, rounded.
MAX_TRICK_Z = (1000.0, 1001.0, 1002.0)
MAX_TRICK_PRINTED = ("0.0900", "0.2447", "0.6652")


def _overflow_demo(seed: int) -> tuple[bool, dict, str]:
    """The naive softmax of [1000, 1001, 1002] overflows in float64; the shifted one does not."""
    import numpy as np

    from .softmax_numeric import softmax

    z = np.array(MAX_TRICK_Z)
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.exp(z) / np.exp(z).sum()
    shifted = softmax(z)
    printed = np.array([float(p) for p in MAX_TRICK_PRINTED])
    threshold = float(np.log(np.finfo(np.float64).max))
    ok = bool(np.all(~np.isfinite(naive)) and np.allclose(shifted, printed, atol=5e-5)
              and np.isclose(shifted.sum(), 1.0))
    figures = {
        "z": list(MAX_TRICK_Z),
        "naive": [str(x) for x in naive],
        "shifted": [round(float(x), 4) for x in shifted],
        "ln(DBL_MAX)": round(threshold, 2),
    }
    msg = (f"naive exp(z)/sum gives {figures['naive']} (exp overflows past ln(DBL_MAX) ≈ {threshold:.2f}); "
           f"shifted gives {figures['shifted']}")
    return ok, figures, msg


def _bounds_check(seed: int) -> tuple[bool, dict, str]:
    """At random z (lengths 1..64, entries up to ±1000), c = max z: 1 <= Σ exp(z_j − c) <= n."""
    import numpy as np

    rng = np.random.default_rng(seed)
    trials, worst_low, worst_high = 500, np.inf, -np.inf
    ok = True
    for _ in range(trials):
        n = int(rng.integers(1, 65))
        z = rng.uniform(-1000, 1000, size=n)
        terms = np.exp(z - z.max())
        s = float(terms.sum())
        # terms may underflow to 0.0 (harmless); the maximum's own term is exactly 1
        ok &= bool(np.all((terms >= 0) & (terms <= 1)) and terms.max() == 1.0 and 1.0 <= s <= n)
        worst_low, worst_high = min(worst_low, s), max(worst_high, s / n)
    return ok, {"trials": trials, "min_denominator": worst_low, "max_denominator_over_n": worst_high}, (
        f"{trials} random vectors: every term in [0, 1] (0 only by underflow), denominator between {worst_low:.3g} and "
        f"{worst_high:.3g}·n")


@register(
    "softmax.shift-invariance",
    title="Softmax is unchanged by adding a constant to every score",
    summary="softmax(z − c·1) = softmax(z) for every real c and every length n.",
)
def shift_invariance() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from .notation import sym, vec

    n, i, j, c = sym("n"), sym("i"), sym("j"), sym("c")
    z = vec("z")
    e = sp.exp
    denom = sp.Sum(e(z[j]) * e(-c), (j, 1, n))
    dbl_max = (2 - sp.Rational(1, 2**52)) * sp.Integer(2) ** 1023
    ex = [e(sp.Integer(k)) for k in (-2, -1, 0)]
    total = sum(ex)
    return Derivation(
        name="softmax.shift-invariance",
        title="Softmax is unchanged by adding a constant to every score",
        summary="softmax(z − c·1) = softmax(z) for every real c and every length n.",
        start=e(z[i] - c) / sp.Sum(e(z[j] - c), (j, 1, n)),
        steps=(
            Step(e(z[i]) * e(-c) / denom,
                 "the exponential of a difference is a product: $e^{a-c} = e^{a}e^{-c}$"),
            # unevaluated, or sympy would cancel e^{-c} already in this step
            Step(sp.Mul(e(z[i]) * e(-c), sp.Pow(sp.Mul(e(-c), sp.Sum(e(z[j]), (j, 1, n)), evaluate=False), -1,
                                                 evaluate=False), evaluate=False),
                 "$e^{-c}$ does not depend on $j$, so it factors out of the sum"),
            Step(e(z[i]) / sp.Sum(e(z[j]), (j, 1, n)),
                 "$e^{-c} > 0$ cancels between numerator and denominator", citation=VASWANI_321),
        ),
        assumptions=(
            Assumption("z is a real vector of any length n ≥ 1, c is any real number, 1 ≤ i ≤ n"),
        ),
        definitions=((sp.Symbol(r"softmax(z)_i"), e(z[i]) / sp.Sum(e(z[j]), (j, 1, n))),),
        citations=(VASWANI_321,),
        checks=(
            FunctionCheck("max trick at z = [1000, 1001, 1002] in float64", _overflow_demo),
            *(ValueCheck(f"softmax([1000, 1001, 1002])_{k + 1}", ex[k] / total, MAX_TRICK_PRINTED[k],
                         "lecture 000, max trick") for k in range(3)),
            ValueCheck("float64 overflow threshold ln(DBL_MAX)", sp.log(dbl_max), "709.78",
                       "IEEE 754 binary64"),
        ),
        notes=(
            "Choosing c = max_j z_j makes every exponent ≤ 0, so no exponential can overflow: "
            "see softmax.max-trick.",
        ),
    )


@register(
    "softmax.max-trick",
    title="With c = max z, the shifted softmax cannot overflow",
    summary="After subtracting the maximum, each exponential is in (0, 1] and the denominator is at most n.",
)
def max_trick() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate, Substitute
    from .notation import sym, vec

    n, j, c = sym("n"), sym("j"), sym("c")
    z = vec("z")
    u = vec("u", nonnegative=True)
    return Derivation(
        name="softmax.max-trick",
        title="With c = max z, the shifted softmax cannot overflow",
        summary="After subtracting the maximum, each exponential is in (0, 1] and the denominator is at most n.",
        start=sp.Sum(sp.exp(z[j] - c), (j, 1, n)),
        steps=(
            Step(sp.Sum(sp.exp(-u[j]), (j, 1, n)),
                 "write $z_j = c - u_j$ with $u_j = c - z_j \\ge 0$, which holds because $c$ is the maximum",
                 rule=Substitute(((z[j], c - u[j]),), "z_j = c − u_j")),
            Step(sp.Sum(sp.Integer(1), (j, 1, n)),
                 "each term $e^{-u_j}$ is at most $e^0 = 1$ because $u_j \\ge 0$ and exp is increasing",
                 relation="<="),
            Step(n, "a sum of n ones is n", rule=Evaluate("the sum")),
        ),
        assumptions=(
            Assumption("c = max_j z_j, so u_j = c − z_j ≥ 0 for every j, with u_j = 0 at the maximum"),
        ),
        citations=(VASWANI_321,),
        auto_identity_check=False,  # the premise c = max z is not something random points respect
        checks=(FunctionCheck("shifted denominator in [1, n] at random z with c = max z", _bounds_check),),
        notes=(
            "Each term is positive and the maximum's own term is e^0 = 1, so the denominator lies in [1, n]: "
            "it can neither overflow nor vanish.",
        ),
    )
