"""Softmax: shift invariance, the max trick, its Jacobian and log-softmax.

Source: Vaswani et al. 2017, §3.2.1 (softmax over the scaled scores). The
temperature limits are in :mod:`derive.transformer.softmax_temperature`, the
numeric helpers in :mod:`derive.transformer.softmax_numeric`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register
from ..rules import Rule

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
    msg = (rf"naive exp(z)/sum gives {figures['naive']} (exp overflows past ln($\mathtt{{DBL\_MAX}}$) ≈ "
           rf"{threshold:.2f}); shifted gives {figures['shifted']}")
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
        **metadata("softmax.shift-invariance"),
        start=e(z[i] - c) / sp.Sum(e(z[j] - c), (j, 1, n)),
        steps=(
            Step(e(z[i]) * e(-c) / denom,
                 "the exponential of a difference is a product: $e^{a-c} = e^{a}e^{-c}$"),
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
            *(ValueCheck(rf"$\operatorname{{softmax}}([1000, 1001, 1002])_{k + 1}$", ex[k] / total,
                         MAX_TRICK_PRINTED[k], "lecture 000, max trick") for k in range(3)),
            ValueCheck(r"float64 overflow threshold ln($\mathtt{DBL\_MAX}$)", sp.log(dbl_max), "709.78",
                       "IEEE 754 binary64"),
        ),
        notes=(
            r"Choosing $c = \max_j z_j$ makes every exponent ≤ 0, so no exponential can overflow: see "
            "softmax.max-trick.",
        ),
    )


def _shift_below_max() -> tuple[Any, Step, tuple[Any, Any, Any, Any]]:
    """Start Σ_j e^(z_j − c) and its first step, z_j = c − u_j with u_j ≥ 0 (c is the maximum).

    Returns:
        ``(start, step, (n, j, c, u))`` shared by the max-trick bounds.
    """
    import sympy as sp

    from ..rules import Substitute
    from .notation import sym, vec

    n, j, c = sym("n"), sym("j"), sym("c")
    z, u = vec("z"), vec("u", nonnegative=True)
    step = Step(sp.Sum(sp.exp(-u[j]), (j, 1, n)),
                "write $z_j = c - u_j$ with $u_j = c - z_j \\ge 0$, which holds because $c$ is the maximum",
                rule=Substitute(((z[j], c - u[j]),), "z_j = c − u_j"))
    return sp.Sum(sp.exp(z[j] - c), (j, 1, n)), step, (n, j, c, u)


def _bounds() -> Any:
    from ..numeric import FunctionCheck

    return FunctionCheck("shifted denominator in [1, n] at random z with c = max z", _bounds_check)


def _max_definitions() -> tuple:
    """c is the maximum: every z_j = c − u_j with u_j ≥ 0 (u is declared non-negative), for every index j.

    A definition of the family (not a premise, which would hold at one index j only).
    """
    from .notation import sym, vec

    z, u, j, c = vec("z"), vec("u", nonnegative=True), sym("j"), sym("c")
    return ((z[j], c - u[j]),)


@register(
    "softmax.max-trick",
    title="With c = max z, the shifted softmax cannot overflow",
    summary="After subtracting the maximum, each exponential is in (0, 1] and the denominator is at most n.",
)
def max_trick() -> Derivation:
    import sympy as sp

    from ..rules import Evaluate

    start, shift, (n, j, _, _) = _shift_below_max()
    return Derivation(
        **metadata("softmax.max-trick"),
        start=start,
        definitions=_max_definitions(),
        steps=(
            shift,
            Step(sp.Sum(sp.Integer(1), (j, 1, n)),
                 "each term $e^{-u_j}$ is at most $e^0 = 1$ because $u_j \\ge 0$ and exp is increasing",
                 relation="<="),
            Step(n, "a sum of n ones is n", rule=Evaluate("the sum")),
        ),
        assumptions=(
            Assumption(r"$c = \max_j z_j$, so $u_j = c - z_j \ge 0$ for every j, with $u_j = 0$ at the maximum"),
        ),
        citations=(VASWANI_321,),
        checks=(_bounds(),),
        notes=(
            "Each term is positive and the maximum's own term is $e^0 = 1$, so the denominator lies in [1, n]: it "
            "can neither overflow nor vanish.",
        ),
    )


@register(
    "softmax.max-trick-lower-bound",
    title="With c = max z, the shifted denominator is at least 1",
    summary=(r"The maximum's own term is $e^0 = 1$ and the others are positive, so $\sum_j e^{z_j - c} \ge 1$: no "
             "underflow to 0."),
)
def max_trick_lower_bound() -> Derivation:
    import sympy as sp

    from ..rules import Substitute
    from ..sums import DropNonnegative, SplitSumAt
    from .notation import sym

    start, shift, (n, j, _, u) = _shift_below_max()
    m = sym("m")
    f = sp.exp(-u[j])
    return Derivation(
        **metadata("softmax.max-trick-lower-bound"),
        start=start,
        definitions=_max_definitions(),
        premises=(sp.Le(m, n), sp.Eq(u[m], 0)),
        steps=(
            shift,
            Step(sp.Sum(f, (j, 1, m - 1)) + sp.exp(-u[m]) + sp.Sum(f, (j, m + 1, n)),
                 "single out the term of the index $m$ where the maximum sits ($1 \\le m \\le n$)",
                 rule=SplitSumAt(m)),
            Step(sp.exp(-u[m]), "the two remaining sums have positive terms (or none)", rule=DropNonnegative(),
                 relation=">="),
            Step(sp.Integer(1), "$u_m = c - z_m = 0$ because $z_m$ is the maximum",
                 rule=Substitute(((u[m], sp.Integer(0)),), "$u_m = 0$")),
        ),
        assumptions=(
            Assumption(r"$c = \max_j z_j = z_m$ for an index 1 ≤ m ≤ n, so $u_j = c - z_j \ge 0$ and $u_m = 0$"),
        ),
        citations=(VASWANI_321,),
        checks=(_bounds(),),
        notes=(r"Together with softmax.max-trick: $1 \le \sum_j e^{z_j - c} \le n$, so the shifted denominator can "
               "neither overflow nor vanish, and the division is always safe.",),
    )


@dataclass(frozen=True)
class Differentiate(Rule):
    """Carry out the derivatives (``Derivative`` objects) one level deep, leaving sums unevaluated."""

    name: str = "differentiate"

    def apply(self, expr: Any) -> Any:
        import sympy as sp

        return expr.replace(lambda x: isinstance(x, sp.Derivative), lambda x: x.doit(deep=False))

    def describe(self) -> str:
        return "differentiate"


def _jacobian_numeric(seed: int) -> tuple[bool, dict, str]:
    """The closed form diag(s) − s sᵀ against central finite differences at random z."""
    from .softmax_numeric import softmax, softmax_jacobian

    rng = np.random.default_rng(seed)
    worst, h = 0.0, 1e-6
    for _ in range(50):
        n = int(rng.integers(1, 9))
        z = rng.normal(scale=2.0, size=n)
        fd = np.empty((n, n))
        for col in range(n):
            e = np.zeros(n)
            e[col] = h
            fd[:, col] = (softmax(z + e) - softmax(z - e)) / (2 * h)
        worst = max(worst, float(np.max(np.abs(softmax_jacobian(softmax(z)) - fd))))
    return worst < 1e-8, {"vectors": 50, "max_abs_error": worst}, (
        f"diag(s) − s sᵀ matches central differences within {worst:.1e} at 50 random z (n ≤ 8)")


@register(
    "softmax.jacobian",
    title=r"The softmax Jacobian: $\partial s_i/\partial z_j = s_i(\delta_{ij} - s_j)$",
    summary=(r"Differentiating $\operatorname{softmax}(z)_i$ by $z_j$ gives $s_i(\delta_{ij} - s_j)$ for every "
             "length n."),
)
def jacobian() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..sums import SiftDelta
    from .notation import sym, vec

    n, i, j, ell = sym("n"), sym("i"), sym("j"), sym("l")
    z = vec("z")
    S = sp.Sum(sp.exp(z[ell]), (ell, 1, n))
    d = sp.KroneckerDelta(i, j)
    return Derivation(
        **metadata("softmax.jacobian"),
        start=sp.Derivative(sp.exp(z[i]) / S, z[j]),
        premises=(sp.Le(j, n),),
        steps=(
            Step(sp.exp(z[i]) * d / S - sp.exp(z[i]) * sp.Sum(sp.exp(z[ell]) * sp.KroneckerDelta(j, ell),
                                                               (ell, 1, n)) / S**2,
                 "quotient rule; $\\partial z_i/\\partial z_j = \\delta_{ij}$", rule=Differentiate()),
            Step(sp.exp(z[i]) * d / S - sp.exp(z[i]) * sp.exp(z[j]) / S**2,
                 "only the term $l = j$ of the sum survives ($1 \\le j \\le n$)", rule=SiftDelta(j)),
            Step(sp.exp(z[i]) / S * (d - sp.exp(z[j]) / S), "factor out $s_i = e^{z_i}/\\sum_l e^{z_l}$"),
        ),
        assumptions=(Assumption("1 ≤ i, j ≤ n; s = softmax(z)"),),
        definitions=((sp.Symbol("s_i"), sp.exp(z[i]) / S),),
        citations=(VASWANI_321,),
        auto_identity_check=False,  # the Derivative of a symbolic-length sum has no numeric value
        checks=(FunctionCheck("closed form vs finite differences", _jacobian_numeric),),
        notes=(r"As a matrix: $J = \operatorname{diag}(s) - s s^\top$. Its rows sum to 0 (softmax is shift "
               r"invariant).",),
    )


#: Scores for the saturation evidence: n tokens, key width d_k (lecture 000's 512).
def _log_softmax_check(seed: int) -> tuple[bool, dict, str]:
    """The stable log-softmax is finite where the naive log(softmax) underflows to −inf."""
    from .softmax_numeric import log_softmax

    z = np.array([0.0, 1000.0])
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        naive = np.log(np.exp(z) / np.exp(z).sum())
    stable = log_softmax(z)
    ok = bool(np.all(np.isfinite(stable)) and stable[0] == -1000.0 and stable[1] == 0.0
              and not np.all(np.isfinite(naive)))
    return ok, {"z": z.tolist(), "naive": [str(x) for x in naive], "stable": stable.tolist()}, (
        f"z = [0, 1000]: naive log(softmax) gives {[str(x) for x in naive]}, stable gives {stable.tolist()}")


@register(
    "softmax.log-softmax",
    title=r"$\log \operatorname{softmax}(z)_i = z_i$ − logsumexp(z), computed with the max subtracted",
    summary=(r"$\log \operatorname{softmax}(z)_i = z_i - \log \sum e^{z_j} = z_i - c - \log \sum e^{z_j - c}$ for "
             "any real c."),
)
def log_softmax() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, IdentityCheck
    from ..rules import Transform
    from .notation import sym, vec

    n, i, j, c = sym("n"), sym("i"), sym("j"), sym("c")
    z = vec("z")
    S = sp.Sum(sp.exp(z[j]), (j, 1, n))
    S_c = sp.Sum(sp.exp(z[j] - c), (j, 1, n))
    return Derivation(
        **metadata("softmax.log-softmax"),
        start=sp.log(sp.exp(z[i]) / S),
        steps=(
            Step(sp.log(sp.exp(z[i] - c) / S_c), "subtract $c$ from every score: softmax does not change "
                 "(softmax.shift-invariance)", by="softmax.shift-invariance"),
            Step(z[i] - c - sp.log(S_c), "the log of a quotient of positive numbers is a difference; "
                                         "$\\log e^{z_i - c} = z_i - c$",
                 rule=Transform(_expand_log_positive, "log(a/b) = log a − log b for a, b > 0")),
        ),
        assumptions=(Assumption("z is real of any length n ≥ 1; c is any real number (c = max z in practice, "
                                "so every exponent is ≤ 0)"),),
        definitions=((sp.Symbol("logsumexp(z)"), sp.log(S)),),
        citations=(VASWANI_321,),
        auto_identity_check=False,  # replaced by a lighter one: each point expands three sums
        checks=(IdentityCheck(sp.log(sp.exp(z[i]) / S), z[i] - c - sp.log(S_c), "claim at random points",
                              n_points=8),
                FunctionCheck("log-softmax at z = [0, 1000] in float64", _log_softmax_check),),
    )


def _expand_log_positive(expr: Any) -> Any:
    """expand_log with the positivity of exponentials and sums of exponentials made explicit.

    Every factor inside the logs handled here is e^x or a sum of e^x terms,
    both positive; sympy cannot infer that of a symbolic-length ``Sum``.
    """
    import sympy as sp

    def positive(x: Any) -> bool:
        if isinstance(x, sp.exp):
            return bool(x.args[0].is_real)
        if isinstance(x, sp.Sum):
            return positive(x.function)
        if isinstance(x, (sp.Mul, sp.Add)):
            return all(positive(a) for a in x.args)
        return bool(x.is_positive)

    def split(lg: Any) -> Any:
        arg = lg.args[0]
        factors = sp.Mul.make_args(arg)
        if not all(positive(f) if not (isinstance(f, sp.Pow) and f.exp == -1) else positive(f.base)
                   for f in factors):
            return lg
        out = 0
        for f in factors:
            if isinstance(f, sp.Pow) and f.exp == -1:
                out -= sp.log(f.base)
            else:
                out += sp.log(f)
        return out

    return expr.replace(lambda x: isinstance(x, sp.log), split)
