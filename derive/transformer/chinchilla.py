"""Chinchilla's compute-optimal N and D, derived from the fitted loss (Hoffmann et al. 2022, §3.3 and Appendix D).

Hoffmann et al. fit the final loss of a model of N parameters trained on D tokens as
L(N, D) = E + A/N^α + B/D^β (their eq. (2)) and minimise it on the budget line C = 6·N·D. Putting
D = C/(6N) leaves one variable; the derivative dL/dN has one zero, where L is smallest:
N_opt = G·(C/6)^(β/(α+β)), D_opt = G⁻¹·(C/6)^(α/(α+β)) with G = (αA/(βB))^(1/(α+β)) — their eq. (4).
Everything here holds for any positive α, β, A, B, E and C; the fitted values (their eq. (10),
Appendix D.2: E = 1.69, A = 406.4, B = 410.7, α = 0.34, β = 0.28) only enter the numeric cross-checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

HOFFMANN_LOSS = Citation("hoffmann2022", "§3.3, eq. (2)")
HOFFMANN_EQ4 = Citation("hoffmann2022", "§3.3, eq. (4)")
HOFFMANN_D = Citation("hoffmann2022", "Appendix D.2")
KAPLAN_21 = Citation("kaplan2020", "§2.1")

#: The fitted parametric loss of Hoffmann et al. 2022, eq. (10) (Appendix D.2): E, A, B, α, β.
FIT = {"E": 1.69, "A": 406.4, "B": 410.7, "alpha": 0.34, "beta": 0.28}


def fitted_loss(n_params: np.ndarray, n_tokens: np.ndarray, fit: dict[str, float] | None = None) -> np.ndarray:
    """The parametric loss L(N, D) = E + A/N^α + B/D^β (nats per token).

    Args:
        n_params: N, parameters, any shape, positive.
        n_tokens: D, training tokens, broadcastable with ``n_params``, positive.
        fit: the constants ``E, A, B, alpha, beta``; :data:`FIT` (Hoffmann et al.'s eq. (10)) when ``None``.

    Returns:
        The loss, of the broadcast shape.

    Raises:
        ValueError: a size is not positive.

    Source: Hoffmann et al. 2022, §3.3, eq. (2); the constants from Appendix D.2.
    """
    f = FIT if fit is None else fit
    n, d = np.asarray(n_params, dtype=np.float64), np.asarray(n_tokens, dtype=np.float64)
    if np.any(~(n > 0)) or np.any(~(d > 0)):
        raise ValueError("the number of parameters and of tokens must be positive")
    return f["E"] + f["A"] / n ** f["alpha"] + f["B"] / d ** f["beta"]


def chinchilla_optimum(compute: np.ndarray, fit: dict[str, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The compute-optimal N and D of the fitted loss on the budget C = 6·N·D.

    Args:
        compute: budgets C in FLOPs, any shape, positive.
        fit: as for :func:`fitted_loss`.

    Returns:
        ``(N_opt, D_opt)`` of the shape of ``compute``: N_opt = G·(C/6)^(β/(α+β)) parameters and
        D_opt = G⁻¹·(C/6)^(α/(α+β)) tokens, G = (αA/(βB))^(1/(α+β)).

    Raises:
        ValueError: a budget is not positive.

    Source: derived in scaling.chinchilla-n-opt and scaling.chinchilla-d-opt (Hoffmann et al. 2022, eq. (4)).
    """
    f = FIT if fit is None else fit
    c = np.asarray(compute, dtype=np.float64)
    if np.any(~(c > 0)):
        raise ValueError("compute budgets must be positive")
    al, be = f["alpha"], f["beta"]
    g = (al * f["A"] / (be * f["B"])) ** (1 / (al + be))
    return g * (c / 6) ** (be / (al + be)), (c / 6) ** (al / (al + be)) / g


def _s(name: str) -> Any:
    from .notation import sym

    return sym(name)


def _symbols() -> tuple:
    return (_s("n_real"), _s("compute"), _s("chin_alpha"), _s("chin_beta"), _s("chin_A"), _s("chin_B"),
            _s("chin_E"))


def _g(al: Any, be: Any, A: Any, B: Any) -> Any:
    """G = (αA/(βB))^(1/(α+β)), written out (so that random points of α, β, A, B respect it)."""
    import sympy as sp

    return sp.Pow(al * A / (be * B), 1 / (al + be), evaluate=False)


def _power_of_product(expr: Any) -> Any:
    """(ab)^c = a^c b^c and a^c a^e = a^(c+e) for positive bases (a proposal; the kernel checks it)."""
    import sympy as sp

    return sp.powsimp(sp.expand_power_base(expr), combine="base")


def _exponents(expr: Any) -> Any:
    """Every exponent put over one denominator and factored: 1 − β/(α+β) → α/(α+β) (a proposal)."""
    import sympy as sp

    return expr.replace(lambda p: isinstance(p, sp.Pow) and not p.exp.is_Number,
                        lambda p: sp.Pow(p.base, sp.factor(sp.together(p.exp))))


def _minimiser_check(seed: int) -> tuple[bool, dict, str]:
    """The closed form against a numeric minimisation of L(N, C/(6N)) over log N (golden-section search)."""
    rng = np.random.default_rng(seed)
    budgets = np.concatenate([[5.88e23, 1e21, 1e25], 10 ** rng.uniform(18, 27, size=5)])
    fits = [FIT] + [{"E": 1.0, "A": float(rng.uniform(50, 800)), "B": float(rng.uniform(50, 800)),
                     "alpha": float(rng.uniform(0.1, 0.8)), "beta": float(rng.uniform(0.1, 0.8))} for _ in range(3)]
    worst = 0.0
    phi = (np.sqrt(5) - 1) / 2
    for fit in fits:
        for c in budgets:
            def loss(log_n: float, c: float = c, fit: dict = fit) -> float:
                n = np.exp(log_n)
                return float(fitted_loss(n, c / (6 * n), fit))

            lo, hi = 0.0, np.log(c / 6)  # N from 1 to C/6 (D ≥ 1)
            for _ in range(100):  # the bracket shrinks by 0.618 each time
                a, b = hi - phi * (hi - lo), lo + phi * (hi - lo)
                if loss(a) < loss(b):
                    hi = b
                else:
                    lo = a
            n_num = np.exp((lo + hi) / 2)
            n_opt, _ = chinchilla_optimum(np.array(c), fit)
            worst = max(worst, abs(np.log(n_num) - np.log(float(n_opt))))
    n70, d70 = chinchilla_optimum(np.array(5.88e23))
    ok = worst < 1e-6
    return ok, {"fits": len(fits), "budgets": len(budgets), "max_abs_log_error": worst,
                "N_opt at 5.88e23 (eq. (10) fit)": float(n70), "D_opt at 5.88e23": float(d70)}, (
        f"golden-section minimisation of L(N, C/(6N)) finds the closed-form N_opt within a factor "
        f"e^{worst:.1e} ({len(fits)} fits × {len(budgets)} budgets from 1e18 to 1e27); Chinchilla's budget "
        f"with the eq. (10) fit: N_opt = {float(n70):.3g}, D_opt = {float(d70):.3g}")


LOSS_ASSUMPTION = ("the fitted loss $L(N, D) = E + A/N^\\alpha + B/D^\\beta$ with any positive $E, A, B, \\alpha, "
                   "\\beta$; the budget $C = 6ND$ (scaling.training-compute), so $D = C/(6N)$; N is treated as a "
                   "positive real")


@register(
    "scaling.chinchilla-loss-slope",
    title=r"On the budget line D = C/(6N), $dL/dN = (\beta B (6N/C)^\beta - \alpha A N^{-\alpha})/N$",
    summary="Substituting $D = C/(6N)$ into $L = E + A/N^\\alpha + B/D^\\beta$ and differentiating gives "
            "$(\\beta B (6N/C)^\\beta - \\alpha A N^{-\\alpha})/N$, for any positive $\\alpha, \\beta, A, B, C$.",
)
def chinchilla_loss_slope() -> Derivation:
    import sympy as sp

    from ..numeric import IdentityCheck
    from .softmax import Differentiate

    N, C, al, be, A, B, E = _symbols()
    D = sp.Symbol("D", positive=True)  # tokens, a positive real for the calculus
    loss = E + A / N**al + B / (C / (6 * N)) ** be
    end = (be * B * (6 * N / C) ** be - al * A * N**-al) / N
    return Derivation(
        **metadata("scaling.chinchilla-loss-slope"),
        start=sp.Derivative(loss, N),
        steps=(
            Step(-al * A * N ** (-al - 1) + be * B * (6 * N / C) ** be / N,
                 "power rule: $\\frac{d}{dN} N^{-\\alpha} = -\\alpha N^{-\\alpha-1}$, and "
                 "$(C/(6N))^{-\\beta} = (6/C)^\\beta N^\\beta$ has derivative $\\beta (6N/C)^\\beta / N$; "
                 "E does not depend on N", rule=Differentiate(), citation=HOFFMANN_D),
            Step(end, "take out the common factor $1/N$ ($N^{-\\alpha-1} = N^{-\\alpha}/N$)"),
        ),
        assumptions=(Assumption(LOSS_ASSUMPTION),),
        definitions=((sp.Function("L")(N, D), E + A / N**al + B / D**be),),
        citations=(HOFFMANN_LOSS, HOFFMANN_D, KAPLAN_21),
        checks=(IdentityCheck(sp.diff(loss, N), end, name="sympy's own derivative against the result",
                              n_points=10),),
        notes=("The bracket $\\beta B (6N/C)^\\beta - \\alpha A N^{-\\alpha}$ grows strictly with N "
               "(scaling.chinchilla-minimum): it is negative for small models, where the parameter term "
               "dominates, and positive for large ones, where the data term does. So L has exactly one "
               "stationary point on the budget line, and it is the minimum.",),
    )


@register(
    "scaling.chinchilla-minimum",
    title=(r"The slope's bracket $\beta B (6N/C)^\beta - \alpha A N^{-\alpha}$ grows strictly with N: one zero, "
           "a minimum of L"),
    summary="Its derivative $(\\beta^2 B (6N/C)^\\beta + \\alpha^2 A N^{-\\alpha})/N$ is positive, so the "
            "stationary point of L on the budget line is unique and a minimum, for any positive constants.",
)
def chinchilla_minimum() -> Derivation:
    import sympy as sp

    from ..numeric import IdentityCheck
    from .softmax import Differentiate

    N, C, al, be, A, B, _ = _symbols()
    bracket = be * B * (6 * N / C) ** be - al * A * N**-al
    return Derivation(
        **metadata("scaling.chinchilla-minimum"),
        start=sp.Derivative(bracket, N),
        steps=(
            Step(be**2 * B * (6 * N / C) ** be / N + al**2 * A * N ** (-al - 1),
                 "power rule on both terms: $\\frac{d}{dN} N^\\beta = \\beta N^\\beta/N$ and "
                 "$\\frac{d}{dN} N^{-\\alpha} = -\\alpha N^{-\\alpha}/N$", rule=Differentiate()),
            Step(sp.Integer(0), "both terms are products of positive numbers", relation=">"),
        ),
        assumptions=(Assumption("$\\alpha, \\beta, A, B, C, N > 0$ (the constants of the fit are positive, "
                                "Hoffmann et al. 2022, eq. (10))"),),
        citations=(HOFFMANN_D,),
        checks=(IdentityCheck(sp.diff(bracket, N), sp.Integer(0), relation=">",
                              name="the derivative of the bracket is positive at random points", n_points=10),),
        notes=("The bracket tends to $-\\infty$ as $N \\to 0$ (the term $-\\alpha A N^{-\\alpha}$) and to "
               "$+\\infty$ as $N \\to \\infty$; being strictly increasing it crosses zero exactly once. "
               "dL/dN has the bracket's sign, so L falls before that point and rises after it: the zero "
               "(scaling.chinchilla-n-opt) is the one global minimum on the budget line.",),
    )


@register(
    "scaling.chinchilla-n-opt",
    title=(r"The slope vanishes at $N_{opt} = G (C/6)^{\beta/(\alpha+\beta)}$, "
           r"$G = (\alpha A/(\beta B))^{1/(\alpha+\beta)}$: "
           "Hoffmann et al.'s eq. (4)"),
    summary="At $N = G (C/6)^{\\beta/(\\alpha+\\beta)}$ both terms of the bracket are "
            "$(C/6)^{-\\alpha\\beta/(\\alpha+\\beta)}$ times constants that cancel because "
            "$G^{\\alpha+\\beta} = \\alpha A/(\\beta B)$, for any positive $\\alpha, \\beta, A, B, C$.",
)
def chinchilla_n_opt() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Transform

    N, C, al, be, A, B, _ = _symbols()
    s = al + be
    x = C / 6
    G = _g(al, be, A, B)
    n_opt = G * x ** (be / s)
    start = be * B * (n_opt / x) ** be - al * A * n_opt**-al
    common = x ** (-al * be / s)
    return Derivation(
        **metadata("scaling.chinchilla-n-opt"),
        start=start,
        steps=(
            Step(be * B * G**be * common - al * A * G**-al * common,
                 "$(N/(C/6))^\\beta = G^\\beta (C/6)^{\\beta^2/(\\alpha+\\beta) - \\beta}$ and "
                 "$N^{-\\alpha} = G^{-\\alpha} (C/6)^{-\\alpha\\beta/(\\alpha+\\beta)}$: the same power of C/6, "
                 "since $\\beta^2/(\\alpha+\\beta) - \\beta = -\\alpha\\beta/(\\alpha+\\beta)$",
                 rule=Transform(_power_of_product, "the power of a product is the product of the powers")),
            Step(common * G**-al * (be * B * sp.Pow(G, s, evaluate=False) - al * A),
                 "take out $(C/6)^{-\\alpha\\beta/(\\alpha+\\beta)} G^{-\\alpha}$"),
            Step(sp.Mul(common, G**-al, sp.Add(sp.Mul(be * B, al * A / (be * B), evaluate=False), -al * A,
                                               evaluate=False), evaluate=False),
                 "$G^{\\alpha+\\beta} = \\alpha A/(\\beta B)$, the definition of G", citation=HOFFMANN_EQ4),
            Step(sp.Integer(0), "$\\beta B \\cdot \\alpha A/(\\beta B) = \\alpha A$"),
        ),
        assumptions=(Assumption(LOSS_ASSUMPTION + "; the bracket is the slope dL/dN times N "
                                "(scaling.chinchilla-loss-slope) with $6N/C = N/(C/6)$"),),
        citations=(HOFFMANN_EQ4, HOFFMANN_D),
        checks=(FunctionCheck("the closed form against a numeric minimisation of L on the budget line",
                              _minimiser_check),),
        notes=("So $N_{opt} = G (C/6)^a$ with $a = \\beta/(\\alpha+\\beta)$: eq. (4) of Hoffmann et al. is a "
               "consequence of the form of the fit, not a separate fit. With their constants "
               "($\\alpha = 0.34$, $\\beta = 0.28$) $a = 0.28/0.62 \\approx 0.45$, the 0.46 of their Approach 3.",),
    )


@register(
    "scaling.chinchilla-d-opt",
    title=r"The budget then buys $D_{opt} = C/(6 N_{opt}) = G^{-1} (C/6)^{\alpha/(\alpha+\beta)}$ tokens",
    summary="$D_{opt} = (C/6)/N_{opt} = G^{-1}(C/6)^{1 - \\beta/(\\alpha+\\beta)} = "
            "G^{-1}(C/6)^{\\alpha/(\\alpha+\\beta)}$, for any positive $\\alpha, \\beta, A, B, C$.",
)
def chinchilla_d_opt() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck
    from ..rules import Transform

    _, C, al, be, A, B, _ = _symbols()
    s = al + be
    x = C / 6
    G = _g(al, be, A, B)
    f = FIT
    g_fit = (sp.Rational(34, 100) * sp.Rational(4064, 10) / (sp.Rational(28, 100) * sp.Rational(4107, 10))) ** (
        1 / sp.Rational(62, 100))
    return Derivation(
        **metadata("scaling.chinchilla-d-opt"),
        start=C / (6 * (G * x ** (be / s))),
        steps=(
            Step(G**-1 * x ** sp.Add(1, -be / s, evaluate=False),
                 "$C/6$ divided by $(C/6)^{\\beta/(\\alpha+\\beta)}$ subtracts the exponents"),
            Step(G**-1 * x ** (al / s), "$1 - \\beta/(\\alpha+\\beta) = \\alpha/(\\alpha+\\beta)$",
                 rule=Transform(_exponents, "exponents over a common denominator"), citation=HOFFMANN_EQ4),
        ),
        assumptions=(Assumption(LOSS_ASSUMPTION + "; $N_{opt} = G (C/6)^{\\beta/(\\alpha+\\beta)}$ "
                                "(scaling.chinchilla-n-opt)"),),
        citations=(HOFFMANN_EQ4, KAPLAN_21),
        checks=(ValueCheck("G with the fitted constants of eq. (10)", g_fit, "1.3447", "Hoffmann et al. 2022, "
                           "Appendix D.2 (constants); derived"),
                ValueCheck("exponent a = β/(α+β) with the fit", sp.Rational(28, 62), "0.4516",
                           f"α = {f['alpha']}, β = {f['beta']}"),
                ValueCheck("exponent b = α/(α+β) with the fit", sp.Rational(34, 62), "0.5484",
                           f"α = {f['alpha']}, β = {f['beta']}")),
        notes=("The exponents add to one (scaling.budget-exponents), so $6 N_{opt} D_{opt} = C$: the split "
               "spends the budget exactly. With the fitted constants the data exponent 0.55 exceeds the "
               "parameter exponent 0.45, so the optimal number of tokens per parameter grows slowly with C.",),
    )
