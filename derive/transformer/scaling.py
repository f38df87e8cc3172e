"""Scaling arithmetic: C = 6·N·D, and the compute-optimal split of Hoffmann et al. 2022 (Chinchilla).

Training a model of N (non-embedding) parameters on D tokens costs about 6N FLOPs per token
(params.flops-training: Kaplan et al. 2020, §2.1), so C ≈ 6·N·D in total. Hoffmann et al. 2022
fit N_opt(C) ∝ C^a and D_opt(C) ∝ C^b and find a ≈ b ≈ 0.5 (§3, Table 2: 0.50/0.50, 0.49/0.51,
0.46/0.54 for their three approaches); their parametric fit gives eq. (4),
N_opt = G·(C/6)^a, D_opt = G^(−1)·(C/6)^b with a = β/(α + β), b = α/(α + β). The fitted
exponents are a cited input here, not derived; what follows from them is derived.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

HOFFMANN_3 = Citation("hoffmann2022", "§3, Table 2")
HOFFMANN_EQ4 = Citation("hoffmann2022", "§3.3, eq. (4)")
KAPLAN_21 = Citation("kaplan2020", "§2.1")

#: Chinchilla: 70B parameters, 1.4T tokens (Hoffmann et al. 2022, §4.1)
CHINCHILLA_N, CHINCHILLA_D = 70 * 10**9, 1_400 * 10**9
#: the tokens-per-parameter ratio of Chinchilla, D/N
TOKENS_PER_PARAM = CHINCHILLA_D // CHINCHILLA_N


def compute_optimal(compute: np.ndarray, tokens_per_param: float = 20.0) -> tuple[np.ndarray, np.ndarray]:
    """N and D that spend ``compute`` FLOPs (C = 6·N·D) at a fixed ratio D = r·N.

    Args:
        compute: training budgets C in FLOPs, any shape, positive.
        tokens_per_param: r = D/N (Chinchilla: 20).

    Returns:
        ``(N, D)`` of the shape of ``compute``: N = √(C/(6r)) parameters and D = √(r·C/6) tokens.

    Raises:
        ValueError: a budget or the ratio is not positive.

    Source: scaling.fixed-ratio-split (derived); Hoffmann et al. 2022, §3 for the ratio.
    """
    c = np.asarray(compute, dtype=np.float64)
    if np.any(~(c > 0)) or not tokens_per_param > 0:
        raise ValueError("compute budgets and the tokens-per-parameter ratio must be positive")
    return np.sqrt(c / (6 * tokens_per_param)), np.sqrt(tokens_per_param * c / 6)


def _m(*factors: Any) -> Any:
    """An unevaluated product (so a chain shows the factors as written)."""
    import sympy as sp

    return sp.Mul(*factors, evaluate=False)


def _root(*factors: Any) -> Any:
    """√ of an unevaluated product."""
    import sympy as sp

    return sp.sqrt(_m(*factors), evaluate=False)


def _s(name: str) -> Any:
    from .notation import sym

    return sym(name)


@register(
    "scaling.training-compute",
    title="Training compute: D tokens at 6N FLOPs each cost C = 6·N·D, for any N and D",
    summary=(r"$6N$ per token (forward $2N$, backward $4N$), summed over the $D$ training tokens, is $6ND$; "
             r"Chinchilla: $5.88\cdot 10^{23}$ FLOPs."),
)
def training_compute() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck
    from ..rules import Evaluate

    N, D = _s("n_params"), _s("n_tokens")
    t = _s("t_step")
    end = 6 * N * D
    return Derivation(
        **metadata("scaling.training-compute"),
        start=sp.Sum(6 * N, (t, 1, D)),
        steps=(Step(end, "D equal terms: the cost per token does not depend on which token it is",
                    rule=Evaluate("the sum"), citation=KAPLAN_21),),
        assumptions=(Assumption("6N training FLOPs per token (params.flops-training: the forward pass 2N, the "
                                "backward pass twice that), the context term left out as small ($6 n_{layers} n_{ctx} "
                                "d_{attn}$ in Kaplan's count, $12 n_{layers} n_{ctx} d_{attn}$ with the weighted sum "
                                "of V counted too); one pass over D tokens"),),
        citations=(KAPLAN_21, HOFFMANN_3),
        checks=(
            ValueCheck("Chinchilla, 70B parameters on 1.4T tokens", end.xreplace(
                {N: CHINCHILLA_N, D: CHINCHILLA_D}), "5.88e23", "Hoffmann et al. 2022, §4.1 (sizes)"),
            ValueCheck("Gopher, 280B parameters on 300B tokens", end.xreplace(
                {N: 280 * 10**9, D: 300 * 10**9}), "5.04e23", "Rae et al. 2021 sizes, via Hoffmann et al. 2022"),
        ),
        notes=("Chinchilla and Gopher have about the same budget (5.88·10²³ and 5.04·10²³ FLOPs by this count): "
               "Hoffmann et al. spent it on a model four times smaller trained on almost five times more tokens.",),
    )


@register(
    "scaling.fixed-ratio-split",
    title="At a fixed ratio D = r·N, the budget C = 6·N·D is spent by N = √(C/(6r)) and D = √(r·C/6), for any r",
    summary="C = 6·r·N² gives N = √(C/(6r)) and D = r·N = √(rC/6); at r = 20: N = √(C/120), D = √(10C/3).",
)
def fixed_ratio_split() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck
    from ..rules import Substitute

    C, N, D, r = _s("compute"), _s("n_params"), _s("n_tokens"), _s("tokens_per_param")
    start = sp.ImmutableMatrix([sp.sqrt(C / (6 * r)), sp.sqrt(r * C / 6)])
    return Derivation(
        **metadata("scaling.fixed-ratio-split"),
        start=start,
        premises=(sp.Eq(C, 6 * N * D), sp.Eq(D, r * N)),
        steps=(
            Step(sp.ImmutableMatrix([_root(6, N, D, 1 / (6 * r)), _root(r, 6, N, D, sp.Rational(1, 6))]),
                 "the budget $C = 6ND$", rule=Substitute(((C, 6 * N * D),), "C = 6ND"), citation=KAPLAN_21),
            Step(sp.ImmutableMatrix([_root(6, N, _m(r, N), 1 / (6 * r)), _root(r, 6, N, _m(r, N), sp.Rational(1, 6))]),
                 "the ratio $D = rN$", rule=Substitute(((D, r * N),), "D = rN"), citation=HOFFMANN_3),
            Step(sp.ImmutableMatrix([N, r * N]), "$\\sqrt{N^2} = N$ and $\\sqrt{r^2N^2} = rN$ for positive N and r"),
            Step(sp.ImmutableMatrix([N, D]), "$rN = D$ again", rule=Substitute(((r * N, D),), "rN = D")),
        ),
        assumptions=(Assumption("C, N, D, r positive; the two premises: the budget C = 6·N·D "
                                "(scaling.training-compute) and a fixed number r of tokens per parameter"),),
        citations=(KAPLAN_21, HOFFMANN_3),
        checks=(
            ValueCheck("r = 20, C = 5.88e23: N = √(C/120)", sp.sqrt(sp.Integer(588 * 10**21) / 120), "7e10",
                       "Hoffmann et al. 2022, §4.1 (Chinchilla 70B)"),
            ValueCheck("r = 20, C = 1e24: N = √(C/120)", sp.sqrt(sp.Integer(10**24) / 120), "9.13e10", "derived"),
            ValueCheck("r = 20, C = 1e24: D = √(10C/3)", sp.sqrt(10 * sp.Integer(10**24) / 3), "1.826e12", "derived"),
        ),
        notes=(r"With r = 20 (Chinchilla's 1.4T tokens for 70B parameters), $N_{\text{opt}} = \sqrt{C/120}$ and "
               r"$D_{\text{opt}} = 20\cdot N_{\text{opt}} = \sqrt{10C/3}$: multiplying the budget by 100 multiplies "
               "both the model and the data by 10. The ratio 20 is read off Hoffmann et al.'s fits, not derived; "
               "scaling.equal-exponents shows why a fixed ratio is what exponents a = b = 1/2 mean.",),
    )


@register(
    "scaling.budget-exponents",
    title=(r"Hoffmann et al.'s eq. (4) spends exactly the budget: $6\cdot N_{\text{opt}}\cdot D_{\text{opt}} = C$, "
           "because a + b = 1"),
    summary="$N_{opt} = G(C/6)^a$, $D_{opt} = G^{-1}(C/6)^b$ with $a = \\beta/(\\alpha+\\beta)$, $b = "
            "\\alpha/(\\alpha+\\beta)$: the product is $(C/6)^{a+b} = C/6$.",
)
def budget_exponents() -> Derivation:
    import sympy as sp

    from ..numeric import IdentityCheck
    from ..rules import Substitute

    C, G, a, b = _s("compute"), _s("chin_G"), _s("chin_a"), _s("chin_b")
    al, be = _s("chin_alpha"), _s("chin_beta")
    n_opt, d_opt = _s("n_opt"), _s("d_opt")
    x = C / 6
    fa, fb = be / (al + be), al / (al + be)
    return Derivation(
        **metadata("scaling.budget-exponents"),
        start=6 * n_opt * d_opt,
        steps=(
            Step(6 * (G * x**a) * (x**b / G), "eq. (4): $N_{opt} = G(C/6)^a$, $D_{opt} = G^{-1}(C/6)^b$",
                 rule=Substitute(((n_opt, G * x**a), (d_opt, x**b / G)), "eq. (4)"), citation=HOFFMANN_EQ4),
            Step(6 * x ** sp.Add(a, b, evaluate=False), "G cancels; powers of C/6 add their exponents"),
            Step(6 * x ** sp.Add(fa, fb, evaluate=False),
                 "$a = \\beta/(\\alpha+\\beta)$, $b = \\alpha/(\\alpha+\\beta)$",
                 rule=Substitute(((a, fa), (b, fb)), "a, b"), citation=HOFFMANN_EQ4),
            Step(C, "$(\\alpha + \\beta)/(\\alpha + \\beta) = 1$, and $6 \\cdot C/6 = C$"),
        ),
        definitions=((n_opt, G * x**a), (d_opt, x**b / G), (a, fa), (b, fb)),
        assumptions=(Assumption("Hoffmann et al. 2022, eq. (4), fitted to $L(N, D) = E + A/N^\\alpha + B/D^\\beta$: "
                                "α, β, G > 0; "
                                "the budget counts 6 FLOPs per parameter and token"),),
        citations=(HOFFMANN_EQ4,),
        checks=(IdentityCheck(6 * (G * x**fa) * (x**fb / G), C, name="claim at random points", n_points=10),),
        notes=("So only one of the two exponents is free: the fits of Table 2 report a and b with a + b = 1 (0.50 + "
               r"0.50, 0.49 + 0.51, 0.46 + 0.54), where Kaplan et al. 2020 had found $N_{\text{opt}} \propto "
               "C^{0.73}$.",),
    )


@register(
    "scaling.equal-exponents",
    title=(r"Equal exponents a = b = 1/2 mean a fixed number of tokens per parameter, $D_{\text{opt}}/N_{\text{opt}} "
           "= G^{-2}$"),
    summary="$D_{opt}/N_{opt} = G^{-2}(C/6)^{b-a}$, which does not depend on C exactly when a = b.",
)
def equal_exponents() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck
    from ..rules import Substitute

    C, G, a, b = _s("compute"), _s("chin_G"), _s("chin_a"), _s("chin_b")
    n_opt, d_opt = _s("n_opt"), _s("d_opt")
    x = C / 6
    half = sp.Rational(1, 2)
    return Derivation(
        **metadata("scaling.equal-exponents"),
        start=d_opt / n_opt,
        premises=(sp.Eq(a, half), sp.Eq(b, half)),
        steps=(
            Step((x**b / G) / (G * x**a), "eq. (4)", rule=Substitute(((n_opt, G * x**a), (d_opt, x**b / G)),
                                                                       "eq. (4)"), citation=HOFFMANN_EQ4),
            Step(G**-2 * x ** (b - a), "collect the powers of G and of C/6"),
            Step(_m(G**-2, sp.Pow(x, sp.Add(half, -half, evaluate=False), evaluate=False)),
                 "the fitted exponents $a = b = 0.50$ (Approach 1)",
                 rule=Substitute(((a, half), (b, half)), "a = b = 1/2"), citation=HOFFMANN_3),
            Step(G**-2, "$(C/6)^0 = 1$: the ratio is the same for every budget"),
        ),
        definitions=((n_opt, G * x**a), (d_opt, x**b / G)),
        assumptions=(Assumption("eq. (4) of Hoffmann et al. 2022 with the exponents a = b = 0.50 of their Approach 1 "
                                "(Table 2), taken as a cited input"),),
        citations=(HOFFMANN_EQ4, HOFFMANN_3),
        checks=(ValueCheck("G = 1/√20 gives G⁻² = 20 tokens per parameter", (1 / sp.sqrt(20)) ** -2, "20",
                           "Hoffmann et al. 2022, §4.1 (Chinchilla's 1.4T/70B)"),),
        notes=("$G^{-2} = r$ is then the constant ratio of scaling.fixed-ratio-split; Chinchilla's 1.4T/70B gives r "
               "= 20. With Approach 3's a = 0.46, b = 0.54 the ratio grows slowly, as $(C/6)^{0.08}$.",),
    )


@register(
    "scaling.chinchilla-example",
    title="The split for Chinchilla: C = 6·70·10⁹·1.4·10¹² = 5.88·10²³ FLOPs, and √(C/120) gives back 70B "
          "parameters",
    summary="At r = 20 the budget of Chinchilla returns N = √(C/120) = 7·10¹⁰ and D = √(10C/3) = 1.4·10¹² exactly.",
)
def chinchilla_example() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck

    def p10(k: int) -> Any:
        return sp.Pow(10, k, evaluate=False)

    c = _m(6, _m(7, p10(10)), _m(14, p10(11)))
    start = sp.ImmutableMatrix([_root(c, sp.Rational(1, 120)), _root(10, c, sp.Rational(1, 3))])
    C = sp.Integer(588) * sp.Integer(10) ** 21
    return Derivation(
        **metadata("scaling.chinchilla-example"),
        instance="Chinchilla: N = 70·10⁹, D = 1.4·10¹², r = 20",
        start=start,
        steps=(
            Step(sp.ImmutableMatrix([_root(588, p10(21), sp.Rational(1, 120)),
                                     _root(10, 588, p10(21), sp.Rational(1, 3))]),
                 "$C = 6 \\cdot 7\\cdot10^{10} \\cdot 14\\cdot10^{11} = 588\\cdot10^{21}$", citation=KAPLAN_21),
            Step(sp.ImmutableMatrix([_root(49, p10(20)), _root(196, p10(22))]),
                 "$588/120 = 4.9$ and $10 \\cdot 588/3 = 1960$"),
            Step(sp.ImmutableMatrix([_m(7, p10(10)), _m(14, p10(11))]),
                 "$\\sqrt{49\\cdot10^{20}} = 7\\cdot10^{10}$, $\\sqrt{196\\cdot10^{22}} = 14\\cdot10^{11}$: "
                 "N = 70B and D = 1.4T again", citation=HOFFMANN_3),
            Step(sp.ImmutableMatrix([CHINCHILLA_N, CHINCHILLA_D]),
                 "the same split is scaling.fixed-ratio-split at $C = 5.88\\cdot10^{23}$ and $r = 20$, whose "
                 "premises hold here: $C = 6 N D$ and $D = 20 N$",
                 by="scaling.fixed-ratio-split",
                 where={"compute": c, "tokens_per_param": sp.Integer(20), "n_params": sp.Integer(CHINCHILLA_N),
                        "n_tokens": sp.Integer(CHINCHILLA_D)}),
        ),
        assumptions=(Assumption("Chinchilla: N = 70·10⁹ parameters, D = 1.4·10¹² tokens (Hoffmann et al. 2022, §4.1), "
                                "so r = D/N = 20; C = 6·N·D (scaling.training-compute)"),),
        citations=(HOFFMANN_3, KAPLAN_21),
        checks=(ValueCheck("C in FLOPs", C, "5.88e23", "derived"),
                ValueCheck("tokens per parameter D/N", sp.Integer(CHINCHILLA_D) / CHINCHILLA_N, "20",
                           "Hoffmann et al. 2022, §4.1")),
        notes=("The formulas of scaling.fixed-ratio-split at r = 20 are consistent with the model they were "
               "read from, which is all a worked example can show: the 20 itself is the fit's, not derive's.",),
    )
