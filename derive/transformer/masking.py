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


def _masked_score(x: Any, prefix: Any) -> Any:
    """ẑ_x: the score z_x for a visible key (x ≤ prefix), −∞ for a masked one."""
    import sympy as sp

    from .notation import vec

    return sp.Piecewise((vec("z")[x], x <= prefix), (-sp.oo, True))


def _masked_row_steps(prefix: Any, n_keys: Any, numerator: Any) -> tuple[Any, tuple[Any, ...]]:
    """Start ``numerator / Σ_(l=1)^(n_keys) e^(ẑ_l)`` and the steps to ``numerator / Σ_(l=1)^prefix e^(z_l)``."""
    import sympy as sp

    from ..kernel.sum_moves import MergeSums, RangeCases
    from ..sums import SplitSumAt
    from .notation import sym, vec

    ll, z, e = sym("l"), vec("z"), sp.exp
    f = e(_masked_score(ll, prefix))
    visible = sp.Sum(e(z[ll]), (ll, 1, prefix - 1))
    steps = (
        Step(numerator / (sp.Sum(f, (ll, 1, prefix - 1)) + f.xreplace({ll: prefix})
                          + sp.Sum(f, (ll, prefix + 1, n_keys))),
             "single out the last visible key $l = p$ (whose score is $z_p$)", rule=SplitSumAt(prefix),
             citation=VASWANI_323),
        Step(numerator / (visible + e(z[prefix]) + sp.Sum(sp.Integer(0), (ll, prefix + 1, n_keys))),
             "over $l \\le p - 1$ every key is visible, $e^{\\hat z_l} = e^{z_l}$; over $l \\ge p + 1$ every key is "
             "masked, $e^{\\hat z_l} = e^{-\\infty} = 0$", rule=RangeCases()),
        Step(numerator / (visible + e(z[prefix])), "a sum of zeros is 0"),
        Step(numerator / (visible + sp.Sum(e(z[ll]), (ll, prefix, prefix))), "the term $l = p$ as a one-term sum"),
        Step(numerator / sp.Sum(e(z[ll]), (ll, 1, prefix)), "adjacent ranges $1..p-1$ and $p..p$, the same terms",
             rule=MergeSums()),
    )
    return numerator / sp.Sum(f, (ll, 1, n_keys)), steps


@register(
    "mask.causal-prefix",
    title="A row with −∞ on its last r entries is the softmax of its first p entries, for any p ≥ 1 and r ≥ 0",
    summary="$e^{-\\infty} = 0$ removes the masked keys from the denominator: key j gets $e^{z_j}/\\sum_{l \\le p} "
            "e^{z_l}$ when it is visible (j ≤ p) and 0 when it is masked.",
)
def causal_prefix() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from .notation import sym, vec

    p, r, j, ll = sym("prefix"), sym("n_masked"), sym("j"), sym("l")
    z, e = vec("z"), sp.exp
    start, steps = _masked_row_steps(p, p + r, e(_masked_score(j, p)))
    visible = sp.Sum(e(z[ll]), (ll, 1, p))
    end = sp.Piecewise((e(z[j]), j <= p), (0, True)) / visible
    return Derivation(
        **metadata("mask.causal-prefix"),
        start=start,
        steps=(*steps, Step(end, "the numerator by cases: $e^{z_j}$ for a visible key, $e^{-\\infty} = 0$ for a "
                                 "masked one")),
        assumptions=(
            Assumption("a row of n = p + r keys, p ≥ 1 visible and r ≥ 0 masked, both symbolic; the masked scores "
                       "are $\\hat z_l = z_l$ for l ≤ p and −∞ for l > p (under the causal mask, query p sees keys "
                       "1..p); j is any key of the row"),
        ),
        definitions=((sp.Symbol(r"\hat z_l"), _masked_score(ll, p)),),
        citations=(VASWANI_323,),
        auto_identity_check=False,  # −∞ has no random points; the numpy check below runs real masked rows
        checks=(FunctionCheck("masked rows in numpy (−inf entries)", _prefix_check),),
        notes=("For j ≤ p the result is $\\operatorname{softmax}(z_1, \\dots, z_p)_j$: masking the future is the "
               "same as never computing its scores, and the visible weights still sum to 1; every masked key gets "
               "exactly 0. For the first token (p = 1) the row is (1, 0, …, 0) whatever its score "
               "(mask.first-token).",),
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
                                r"($\mathtt{masked\_fill}$ with a large negative number, e.g. the most negative "
                                "float)"),),
        citations=(VASWANI_323,),
        checks=(FunctionCheck("a fully masked row in three implementations", _fully_masked_check),),
        notes=("The convention matters only for a row with nothing to attend to (padding, or a query before any "
               r"allowed key). With −∞ the denominator is $\sum e^{-\infty} = 0$ and every weight is 0/0, NaN in "
               "IEEE arithmetic, which then spreads through the rest of the network. A finite fill gives 1/n on keys "
               "that should have been invisible. derive's numeric softmax refuses such a row with ValueError "
               r"($\mathtt{softmax\_numeric}$); attention kernels that keep the running sum $\ell$ "
               r"(efficient.online-softmax-merge) can instead test $\ell = 0$ and output a zero row. If the fill is "
               "added to the scores rather than replacing them, softmax.shift-invariance shows it does nothing at "
               "all on a fully masked row.",),
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
    from .notation import sym, vec

    r, u = sym("n_masked"), sym("u_later")
    e, one = sp.exp, sp.Integer(1)
    # key 1 and any later key 1 + u: sympy itself evaluates ẑ_1 = z_1 and e^(ẑ_(1+u)) = e^(−∞) = 0
    numerator = sp.ImmutableMatrix([[e(_masked_score(one, one)), e(_masked_score(1 + u, one))]])
    ll, z = sym("l"), vec("z")
    start = numerator / sp.Sum(e(_masked_score(ll, one)), (ll, 1, 1 + r))
    return Derivation(
        **metadata("mask.first-token"),
        start=start,
        steps=(Step(sp.ImmutableMatrix([[e(z[1]) / sp.Sum(e(z[ll]), (ll, 1, 1)), sp.Integer(0)]]),
                    "the masked row is the softmax of its visible keys (mask.causal-prefix with $p = 1$, $j = 1$)",
                    by="mask.causal-prefix", where={"prefix": one, "j": one}),
               Step(sp.ImmutableMatrix([[one, sp.Integer(0)]]), "$e^{z_1}/e^{z_1} = 1$")),
        assumptions=(Assumption("query 1 of a causal row of 1 + r keys, r ≥ 0 symbolic: key 1 visible with any score "
                                "$z_1$, keys 2..1 + r masked with −∞; the second entry is any later key 1 + u, u ≥ "
                                "1"),),
        citations=(VASWANI_323,),
        auto_identity_check=False,  # −∞ has no random points
        checks=(FunctionCheck("the first row in numpy, any number of masked keys", _first_check),),
        notes=("mask.causal-prefix with p = 1. Token 1's output in every head is therefore its own value vector: "
               "example.exercise-causal-first-token works it out for the two-token example of lecture 002.",),
    )
