"""ALiBi: attention with a bias linear in the distance, and its geometric slopes.

Press et al. 2022, §3: no position embedding is added; instead the score of query i on key
j ≤ i gets the bias −m·(i − j), where m is a fixed slope per head. For h heads the slopes are
2^(−8/h), 2^(−16/h), …, 2^(−8) (head k has m_k = 2^(−8k/h), k = 1..h).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

PRESS_3 = Citation("press2022", "§3")


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The slopes m_k = 2^(−8k/n_heads), k = 1..n_heads.

    Returns:
        Array of shape ``(n_heads,)``, decreasing from 2^(−8/n_heads) to 2^(−8) = 1/256.

    Raises:
        ValueError: ``n_heads`` is not a positive integer.

    Source: Press et al. 2022, §3 (stated there for powers of two; the formula is used for every h).
    """
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer, got {n_heads!r}")
    return 2.0 ** (-8.0 * np.arange(1, n_heads + 1) / n_heads)


def alibi_bias(n: int, slope: float) -> np.ndarray:
    """The causal ALiBi bias matrix of one head: B[i, j] = −slope·(i − j) for j ≤ i, −∞ above the diagonal.

    Returns:
        Array ``(n, n)`` of float64 (rows are queries, columns keys).

    Raises:
        ValueError: ``n`` is not a positive integer.

    Source: Press et al. 2022, §3, Figure 3.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    i, j = np.arange(n).reshape(-1, 1), np.arange(n).reshape(1, -1)
    with np.errstate(invalid="ignore"):
        return np.where(j <= i, -slope * (i - j).astype(np.float64), -np.inf)


def _slopes_check(seed: int) -> tuple[bool, dict, str]:
    figures: dict = {}
    ok = True
    for h in (1, 2, 8, 12, 16, 64):
        m = alibi_slopes(h)
        ratio = m[1:] / m[:-1] if h > 1 else np.array([m[0]])
        ok &= bool(np.allclose(ratio, 2.0 ** (-8.0 / h), rtol=1e-13) and np.isclose(m[0], 2.0 ** (-8.0 / h))
                   and np.isclose(m[-1], 1 / 256))
        figures[f"h={h}"] = {"first": float(m[0]), "last": float(m[-1])}
    return ok, figures, (r"ratio $2^{-8/h}$ between neighbours, first $2^{-8/h}$, last 1/256, "
                         "for h in 1, 2, 8, 12, 16, 64")


@register(
    "alibi.slopes-geometric",
    title="ALiBi's slopes $2^{-8k/h}$ form a geometric sequence with ratio $2^{-8/h}$, for any number of heads",
    summary="$m_{k+1}/m_k = 2^{-8/h}$, which is also the first slope: $m_k = (2^{-8/h})^k$, ending at $2^{-8}$.",
)
def slopes_geometric() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from .notation import sym

    h, k = sym("n_heads"), sym("head_index")

    def slope(idx: Any) -> Any:
        return sp.Pow(2, -8 * idx / h)

    return Derivation(
        **metadata("alibi.slopes-geometric"),
        start=slope(k + 1) / slope(k),
        steps=(
            Step(sp.Pow(2, -8 * (k + 1) / h + 8 * k / h), "a quotient of powers of 2 subtracts the exponents",
                 citation=PRESS_3),
            Step(sp.Pow(2, -8 / h), "$-8(k+1)/h + 8k/h = -8/h$: the ratio does not depend on $k$"),
        ),
        assumptions=(Assumption("h ≥ 1 heads; head k = 1..h has slope $m_k = 2^{-8k/h}$ (Press et al. 2022, §3)"),),
        definitions=((sp.Symbol("m_k"), slope(k)),),
        citations=(PRESS_3,),
        checks=(
            *(ValueCheck(f"h = 8: slope of head {kk}", slope(kk).subs(h, 8), printed, "Press et al. 2022, §3")
              for kk, printed in ((1, "0.5"), (2, "0.25"), (8, "0.00390625"))),
            ValueCheck("h = 16: slope of head 1, $2^{-1/2}$", slope(1).subs(h, 16), "0.7071", "Press et al. 2022, §3"),
            FunctionCheck("numpy slopes for several h", _slopes_check),
        ),
        notes=("The first slope equals the ratio, so $m_k = (2^{-8/h})^k$; the last head always has $m_h = 2^{-8} = "
               "1/256$, whatever h. For h = 8: 1/2, 1/4, …, 1/256.",),
    )


def _ratio_check(seed: int) -> tuple[bool, dict, str]:
    from .softmax_numeric import softmax

    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(50):
        n = int(rng.integers(2, 64))
        m = float(rng.choice(alibi_slopes(8)))
        z = rng.normal(scale=3.0, size=n)
        w = softmax(z + alibi_bias(n, m)[n - 1])  # the last query sees all n keys
        a, b = rng.integers(0, n, size=2)
        want = np.exp(z[a] - z[b] - m * (b - a))
        worst = max(worst, abs(w[a] / w[b] / want - 1))
    return worst < 1e-10, {"trials": 50, "max_rel_error": worst}, (
        rf"$w_j/w_l = \exp (z_j - z_l - m(l - j))$ on 50 random rows (max relative error {worst:.1e})")


def _weights(j: Any, i: Any, n_keys: Any) -> Any:
    import sympy as sp

    from .notation import sym, vec

    z, m, s = vec("z"), sym("alibi_slope"), sym("s_pos")
    denom = sp.Sum(sp.exp(z[s] - m * (i - s)), (s, 1, n_keys))
    return sp.Mul(sp.exp(z[j] - m * (i - j)), sp.Pow(denom, -1, evaluate=False), evaluate=False)


@register(
    "alibi.weight-ratio",
    title="With ALiBi, the weights of two keys differ by the factor exp(score difference − m·distance difference), "
          "for any row length",
    summary="$w_j/w_l = \\exp((z_j - z_l) - m((i - j) - (i - l))) = \\exp(z_j - z_l - m(l - j))$.",
)
def weight_ratio() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from .notation import sym, vec

    i, j, ll = sym("i"), sym("j"), sym("l")
    z, m = vec("z"), sym("alibi_slope")
    sp_ = sym("s_pos")

    def shifted(key: Any) -> Any:  # key's weight with the bias +m·key (the right side of alibi.row-shift)
        return sp.exp(z[key] + m * key) / sp.Sum(sp.exp(z[sp_] + m * sp_), (sp_, 1, i))
    return Derivation(
        **metadata("alibi.weight-ratio"),
        start=sp.Mul(_weights(j, i, i), sp.Pow(_weights(ll, i, i), -1, evaluate=False), evaluate=False),
        steps=(
            Step(sp.Mul(shifted(j), sp.Pow(_weights(ll, i, i), -1, evaluate=False), evaluate=False),
                 "the bias $-m(i - j)$ acts as $+mj$ on key $j$'s weight (alibi.row-shift, a row of $i$ keys)",
                 by="alibi.row-shift", where={"n": i}, citation=PRESS_3),
            Step(sp.Mul(shifted(j), sp.Pow(shifted(ll), -1, evaluate=False), evaluate=False),
                 "and likewise on key $l$'s weight (alibi.row-shift)", by="alibi.row-shift",
                 where={"n": i, "j": ll}),
            Step(sp.exp(z[j] - z[ll] - m * (ll - j)), "the two weights share the denominator $\\sum_s e^{z_s + ms}$, "
                 "which cancels; a quotient of exponentials is the exponential of the difference"),
        ),
        assumptions=(Assumption("query i attends to keys 1..i (causal); $z_s = q_i \\cdot k_s/\\sqrt{d_k}$ are the "
                                "scores; the "
                                "head's slope m > 0; 1 ≤ j, l ≤ i"),),
        definitions=((sp.Symbol("w_j"), _weights(j, i, i)),),
        citations=(PRESS_3,),
        checks=(FunctionCheck("ALiBi softmax rows in numpy", _ratio_check),),
        notes=("Each step of distance multiplies a key's weight by $e^{-m}$ at equal scores: the bias is a recency "
               "prior whose strength is the slope, steep for the first heads, almost flat for the last. The ratio "
               "does not involve s or the row length, so it holds for any number of keys.",),
    )


@register(
    "alibi.row-shift",
    title="ALiBi's bias −m(i − j) acts as +m·j: the query's position only shifts the row, for any row length",
    summary="$\\operatorname{softmax}_j(z_j - m(i - j)) = \\operatorname{softmax}_j(z_j + mj)$: $e^{-mi}$ is common to "
            "the row and cancels.",
)
def row_shift() -> Derivation:
    import sympy as sp

    from ..numeric import IdentityCheck
    from .notation import sym, vec

    i, j, s, n = sym("i"), sym("j"), sym("s_pos"), sym("n")
    z, m = vec("z"), sym("alibi_slope")
    e = sp.exp
    start = e(z[j] - m * (i - j)) / sp.Sum(e(z[s] - m * (i - s)), (s, 1, n))
    end = e(z[j] + m * j) / sp.Sum(e(z[s] + m * s), (s, 1, n))
    denom = sp.Mul(e(-m * i), sp.Sum(e(z[s] + m * s), (s, 1, n)), evaluate=False)
    return Derivation(
        **metadata("alibi.row-shift"),
        start=start,
        steps=(
            Step(sp.Mul(e(-m * i), e(z[j] + m * j), sp.Pow(denom, -1, evaluate=False), evaluate=False),
                 "$e^{z - m(i - j)} = e^{-mi}e^{z + mj}$ in the numerator and in every term of the sum, where "
                 "$e^{-mi}$ does not depend on $s$ and factors out", citation=PRESS_3),
            Step(end, "$e^{-mi} > 0$ cancels: this is softmax.shift-invariance with $c = mi$"),
        ),
        assumptions=(Assumption("a row of n keys (n = i under the causal mask), scores $z_s$, slope m > 0, any "
                                "query position i"),),
        citations=(PRESS_3,),
        checks=(IdentityCheck(start, end, name="claim at random points", n_points=8),),
        notes=("ALiBi therefore adds to each key a bias that grows linearly with the key's own index; "
               "together with the causal mask this is the same as penalising distance from the query.",),
    )


#: the worked example: query 3 of a causal row, equal scores, slope 1/2
EXAMPLE_SLOPE = (1, 2)


@register(
    "alibi.example",
    title="ALiBi for i = 3, m = 1/2, equal scores: weights ∝ $(e^{-1}, e^{-1/2}, 1)$",
    summary="Query 3 with scores all equal: softmax(−1, −1/2, 0) ≈ (0.186, 0.307, 0.506), most weight on itself.",
)
def example() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck
    from ..rules import Evaluate
    from .notation import sym

    m = sp.Rational(*EXAMPLE_SLOPE)
    s = sym("s_pos")
    i = 3
    e = sp.exp
    denom_sum = sp.Sum(e(-m * (i - s)), (s, 1, i))
    k = sp.Symbol("k", integer=True)

    def shifted(jj: int) -> Any:  # key jj's weight with the bias +m·jj (alibi.row-shift at z = 0)
        return e(m * jj) / sp.Sum(e(m * s), (s, 1, i))
    total = e(-1) + e(-m) + 1
    start = sp.ImmutableMatrix([[e(-m * (i - jj)) / denom_sum for jj in (1, 2, 3)]])
    return Derivation(
        **metadata("alibi.example"),
        instance="query i = 3, slope m = 1/2, equal scores",
        start=start,
        steps=(
            *(Step(sp.ImmutableMatrix([[shifted(jj) if jj <= upto else e(-m * (i - jj)) / denom_sum
                                        for jj in (1, 2, 3)]]),
                   f"key {upto}: the bias $-m(i - j)$ acts as $+mj$ (alibi.row-shift at $i = n = 3$, "
                   f"$m = 1/2$, equal scores $z_s = 0$)", by="alibi.row-shift",
                   where={"z": sp.Lambda(k, 0), "alibi_slope": m, "i": sp.Integer(i), "n": sp.Integer(i),
                          "j": sp.Integer(upto)})
              for upto in (1, 2, 3)),
            Step(sp.ImmutableMatrix([[e(-1) / total, e(-m) / total, 1 / total]]),
                 "the sum has three terms; divide numerator and denominator by $e^{3/2}$: weights in the ratio of "
                 "the biases $-\\frac12(3 - j) = -1, -\\frac12, 0$ for keys 1, 2, 3",
                 rule=Evaluate("the sum"), citation=PRESS_3),
            Step(sp.ImmutableMatrix([[1 / (1 + e(sp.Rational(1, 2)) + e(1)), 1 / (e(-sp.Rational(1, 2)) + 1 + e(
                sp.Rational(1, 2))), 1 / total]]), "divide numerator and denominator by each numerator"),
        ),
        assumptions=(Assumption("query i = 3 of a causal row, all three scores equal (they cancel, "
                                "softmax.shift-invariance), slope m = 1/2 (head 1 of h = 8 heads, whose slopes are "
                                "1/2, 1/4, …, 1/256; with h = 16 head 1 has $2^{-1/2}$)"),),
        citations=(PRESS_3,),
        checks=tuple(ValueCheck(f"weight on key {jj}", e(-m * (i - jj)) / total, printed, "derived")
                     for jj, printed in ((1, "0.186"), (2, "0.307"), (3, "0.506"))),
        notes=(r"Each step back in distance divides the weight by $e^{1/2} \approx 1.65$: the keys' weights form a "
               "geometric sequence at equal scores.",),
    )
