"""The causal mask as −∞ scores: a masked row is the softmax of its visible prefix; fully masked rows.

Vaswani et al. 2017, §3.2.3: the decoder sets the scores of illegal connections to −∞ before
the softmax. With e^(−∞) = 0 (the limit of e^x as x → −∞, and IEEE 754's exp(−inf) = 0) the
masked keys get weight 0 and the rest are renormalised among themselves. A row with every
key masked has the sum 0 and the weights 0/0: NaN in naive code. The convention of this
package (:mod:`derive.transformer.softmax_numeric`) is to refuse such a row with
``ValueError``; a fill with a finite value instead of −∞ gives uniform weights
(:func:`fully_masked_fill`), which this module proves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

VASWANI_323 = Citation("vaswani2017", "§3.2.3")


def _neg_inf_exp() -> Any:
    import sympy as sp

    return sp.exp(-sp.oo, evaluate=False)


def _prefix_check(seed: int) -> tuple[bool, dict, str]:
    from .softmax_numeric import softmax

    rng = np.random.default_rng(seed)
    worst, exact_zero = 0.0, True
    for _ in range(200):
        p, r = int(rng.integers(1, 40)), int(rng.integers(0, 40))
        z = rng.normal(scale=5.0, size=p + r)
        masked = np.concatenate([z[:p], np.full(r, -np.inf)])
        w = softmax(masked)
        worst = max(worst, float(np.max(np.abs(w[:p] - softmax(z[:p])))))
        exact_zero &= bool(np.all(w[p:] == 0.0))
    return worst < 1e-15 and exact_zero, {"trials": 200, "max_abs_error": worst, "masked_exactly_zero": exact_zero}, (
        f"200 random rows (p ≤ 39 visible, r ≤ 39 masked): masked softmax = softmax of the prefix (max error "
        f"{worst:.1e}), masked weights exactly 0")


@register(
    "mask.causal-prefix",
    title="A row with −∞ on its last r entries is the softmax of its first p entries, for any p ≥ 1 and r ≥ 0",
    summary="$e^{-\\infty} = 0$ removes the masked keys from the denominator: weight $e^{z_j}/\\sum_{l \\le p} "
            "e^{z_l}$ "
            "on a visible key, 0 on a masked one.",
)
def causal_prefix() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from .notation import sym, vec

    p, r, j, ll = sym("prefix"), sym("n_masked"), sym("j"), sym("l")
    z = vec("z")
    e = sp.exp
    visible = sp.Sum(e(z[ll]), (ll, 1, p))
    inf = _neg_inf_exp()
    denom = sp.Add(visible, sp.Sum(inf, (ll, 1, r)), evaluate=False)
    start = sp.ImmutableMatrix([[e(z[j]) / denom, sp.Mul(inf, sp.Pow(denom, -1), evaluate=False)]])
    zero_denom = sp.Add(visible, sp.Sum(sp.Integer(0), (ll, 1, r)), evaluate=False)
    return Derivation(
        **metadata("mask.causal-prefix"),
        start=start,
        steps=(
            Step(sp.ImmutableMatrix([[e(z[j]) / zero_denom, sp.Integer(0)]]),
                 "$e^{-\\infty} = \\lim_{x\\to-\\infty} e^x = 0$ (also IEEE 754's exp(−inf)): every masked term "
                 "and the masked weight's numerator vanish", citation=VASWANI_323),
            Step(sp.ImmutableMatrix([[e(z[j]) / visible, sp.Integer(0)]]), "a sum of r zeros is 0"),
        ),
        premises=(sp.Le(j, p),),
        assumptions=(
            Assumption("a row of n = p + r keys: the first p visible with scores $z_1, \\dots, z_p$, the last r "
                       "masked with "
                       "score −∞ (under the causal mask, query p sees keys 1..p); p ≥ 1, r ≥ 0, both symbolic"),
            Assumption("the row's sum of exponentials is taken in its two groups, $\\sum_{l \\le p} e^{z_l}$ + Σ "
                       "over the "
                       "r masked entries of $e^{-\\infty}$; the first entry of the claim is a visible key j ≤ p, "
                       "the second "
                       "any masked key"),
        ),
        definitions=((sp.Symbol(r"\operatorname{softmax}(\hat z)_j"), e(z[j]) / denom),),
        citations=(VASWANI_323,),
        auto_identity_check=False,  # −∞ has no random points; the numpy check below runs real masked rows
        checks=(FunctionCheck("masked rows in numpy (−inf entries)", _prefix_check),),
        notes=("The result is $\\operatorname{softmax}(z_1, \\dots, z_p)$: masking the future is the same as never "
               "computing its scores, "
               "and the visible weights still sum to 1. For the first token (p = 1) the row is (1, 0, …, 0) "
               "whatever its score: example.exercise-causal-first-token works that case for two tokens.",),
    )


def fully_masked_demo(n: int = 4) -> dict[str, Any]:
    """What three implementations return for a row whose n keys are all masked.

    Returns:
        ``{"naive": array of NaN, "finite_fill": uniform 1/n, "derive": "ValueError: ..."}``:
        the naive exp/sum on −inf, ``masked_fill`` with the most negative float64, and
        :func:`derive.transformer.softmax_numeric.softmax`, which refuses the row.
    """
    from .softmax_numeric import softmax

    row = np.full(n, -np.inf)
    with np.errstate(invalid="ignore"):
        naive = np.exp(row) / np.exp(row).sum()
    filled = np.full(n, np.finfo(np.float64).min)
    finite = softmax(filled)
    try:
        softmax(row)
        refused = "returned a value"
    except ValueError as exc:
        refused = f"ValueError: {exc}"
    return {"naive": naive, "finite_fill": finite, "derive": refused}


def _fully_masked_check(seed: int) -> tuple[bool, dict, str]:
    out = fully_masked_demo(4)
    ok = bool(np.all(np.isnan(out["naive"])) and np.allclose(out["finite_fill"], 0.25)
              and out["derive"].startswith("ValueError"))
    return ok, {"naive": [str(x) for x in out["naive"]], "finite_fill": out["finite_fill"].tolist(),
                "derive": out["derive"]}, (
        "all −inf: naive exp/sum gives NaN (0/0); filled with float64's most negative value: uniform 1/4; "
        "derive's softmax refuses the row (ValueError)")


@register(
    "mask.fully-masked-fill",
    title="A fully masked row filled with a finite −C gets the uniform weights 1/n, for any n",
    summary="With −∞ the row is 0/0 (NaN); with a finite fill $e^{-C}/(n e^{-C}) = 1/n$: every masked key equally.",
)
def fully_masked_fill() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import sym

    n, ll, c = sym("n"), sym("l"), sym("c")
    e = sp.exp
    return Derivation(
        **metadata("mask.fully-masked-fill"),
        start=e(-c) / sp.Sum(e(-c), (ll, 1, n)),
        steps=(
            Step(sp.Mul(e(-c), sp.Pow(sp.Mul(n, e(-c), evaluate=False), -1, evaluate=False), evaluate=False),
                 "every term of the sum is the same $e^{-C}$", rule=Evaluate("the sum")),
            Step(1 / n, "$e^{-C} > 0$ cancels, however large C is"),
        ),
        assumptions=(Assumption("every one of the row's n ≥ 1 scores is replaced by the same finite value −C "
                                "(masked_fill with a large negative number, e.g. the most negative float)"),),
        citations=(VASWANI_323,),
        checks=(FunctionCheck("a fully masked row in three implementations", _fully_masked_check),),
        notes=("The convention matters only for a row with nothing to attend to (padding, or a query before any "
               "allowed key). With −∞ the denominator is Σ e^(−∞) = 0 and every weight is 0/0, NaN in IEEE "
               "arithmetic, which then spreads through the rest of the network. A finite fill gives 1/n on keys "
               "that should have been invisible. derive's numeric softmax refuses such a row with ValueError "
               "(softmax_numeric); attention kernels that keep the running sum ℓ (efficient.online-softmax-merge) "
               "can instead test ℓ = 0 and output a zero row. If the fill is added to the scores rather than "
               "replacing them, softmax.shift-invariance shows it does nothing at all on a fully masked row.",),
    )


def _first_check(seed: int) -> tuple[bool, dict, str]:
    from .softmax_numeric import softmax

    rng = np.random.default_rng(seed)
    ok = True
    for r in range(0, 64):
        row = np.concatenate([[rng.normal(scale=100.0)], np.full(r, -np.inf)])
        w = softmax(row)
        ok &= bool(w[0] == 1.0 and np.all(w[1:] == 0.0))
    return ok, {"rows": 64, "masked": "0..63"}, "first row of a causal mask, 0 to 63 masked keys, scores up to ±300: " \
        "exactly (1, 0, …, 0)"


@register(
    "mask.first-token",
    title="Under the causal mask the first token's weights are (1, 0, …, 0), for any row length",
    summary="With p = 1 visible key and r masked ones the row is $(e^{z_1}/e^{z_1}, 0) = (1, 0)$ whatever $z_1$ "
            "and r.",
)
def first_token() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate
    from .notation import sym, vec

    r, ll = sym("n_masked"), sym("l")
    z = vec("z")
    e = sp.exp
    inf = _neg_inf_exp()
    denom = sp.Add(sp.Sum(e(z[ll]), (ll, 1, 1)), sp.Sum(inf, (ll, 1, r)), evaluate=False)
    start = sp.ImmutableMatrix([[sp.Mul(e(z[1]), sp.Pow(denom, -1), evaluate=False),
                                 sp.Mul(inf, sp.Pow(denom, -1), evaluate=False)]])
    one_term = sp.Add(e(z[1]), sp.Sum(sp.Integer(0), (ll, 1, r)), evaluate=False)
    return Derivation(
        **metadata("mask.first-token"),
        start=start,
        steps=(
            Step(sp.ImmutableMatrix([[sp.Mul(e(z[1]), sp.Pow(one_term, -1), evaluate=False), sp.Integer(0)]]),
                 "the visible part has the single term $l = 1$, and $e^{-\\infty} = 0$ (mask.causal-prefix with "
                 "p = 1)", rule=Evaluate("the one-term sum"), citation=VASWANI_323),
            Step(sp.ImmutableMatrix([[sp.Integer(1), sp.Integer(0)]]), "a sum of r zeros is 0, and "
                                                                       "$e^{z_1}/e^{z_1} = 1$"),
        ),
        assumptions=(Assumption("query 1 of a causal row of 1 + r keys, r ≥ 0 symbolic: key 1 visible with any "
                                "score $z_1$, keys 2..1+r masked with −∞; the second entry stands for every masked "
                                "key"),),
        citations=(VASWANI_323,),
        auto_identity_check=False,  # −∞ has no random points
        checks=(FunctionCheck("the first row in numpy, any number of masked keys", _first_check),),
        notes=("Token 1's output in every head is therefore its own value vector: "
               "example.exercise-causal-first-token works it out for the two-token example of lecture 002.",),
    )
