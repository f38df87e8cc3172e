"""The invariances of the norms themselves: RMSNorm ignores a positive scale, LayerNorm a scale and a shift.

Zhang & Sennrich 2019 (§4) list the re-scaling invariance of RMSNorm (and the re-centring one of
LayerNorm, which RMSNorm gives up); Ba et al. 2016 (§5.1, Table 1) tabulate the invariances of
LayerNorm under re-scaling and re-centring of a single training case. Both hold exactly only with
ε = 0; with ε > 0 a scale a acts as a change of ε to ε/a² (norms.rmsnorm-eps-scale), so tiny
inputs are not blown up to unit size. Conventions as in :mod:`derive.transformer.norms`: biased
variance, ε inside the square root, no γ or β (they act after the normalisation).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

ZHANG_2019 = Citation("zhang2019", "§4")
BA_51 = Citation("ba2016", "§5.1, Table 1")


def _symbols() -> tuple:
    from .notation import sym, vec

    return vec("x"), sym("d_model"), sym("i"), sym("j"), sym("a"), sym("c"), sym("eps")


def _frac(num: Any, den: Any) -> Any:
    """num/den as written (sympy would cancel common factors and move √d_model up)."""
    import sympy as sp

    return sp.Mul(num, sp.Pow(den, -1, evaluate=False), evaluate=False)


def _root(e: Any) -> Any:
    """√e as written."""
    import sympy as sp

    return sp.Pow(e, sp.Rational(1, 2), evaluate=False)


def _ms(x: Any, j: Any, d: Any) -> Any:
    """mean(x²) = (1/d)·Σ_j x_j², as written."""
    import sympy as sp

    return _frac(sp.Sum(x[j] ** 2, (j, 1, d)), d)


def _pull_constant(expr: Any) -> Any:
    """Σ_j c·f(j) → c·Σ_j f(j) for every factor c free of j (a proposal; the kernel checks it)."""
    import sympy as sp

    def move(s: Any) -> Any:
        (var, lo, hi), = s.limits
        body = sp.expand(s.function)
        inside, outside = [], []
        for f in sp.Mul.make_args(body):
            (inside if f.has(var) else outside).append(f)
        return sp.Mul(*outside) * sp.Sum(sp.Mul(*inside), (var, lo, hi))

    return expr.replace(lambda s: isinstance(s, sp.Sum) and len(s.limits) == 1 and not isinstance(
        sp.expand(s.function), sp.Add), move)


def _rms_check(seed: int) -> tuple[bool, dict, str]:
    from .norms import rms_norm

    rng = np.random.default_rng(seed)
    x = rng.normal(size=(32, 64))  # (tokens, d_model)
    worst = 0.0
    for a in (1e-3, 0.5, 7.0, 1e4):
        worst = max(worst, float(np.max(np.abs(rms_norm(a * x, eps=0.0) - rms_norm(x, eps=0.0)))))
    tiny = 1e-4 * x  # mean square about 1e-8, against ε = 1e-6
    shrunk = float(np.max(np.abs(rms_norm(tiny, eps=1e-6))) / np.max(np.abs(rms_norm(tiny, eps=0.0))))
    eps_law = float(np.max(np.abs(rms_norm(1e-2 * x, eps=1e-6) - rms_norm(x, eps=1e-6 / 1e-4))))
    ok = worst < 1e-12 and shrunk < 0.11 and eps_law < 1e-12
    return ok, {"tokens": 32, "d_model": 64, "scales": [1e-3, 0.5, 7.0, 1e4], "max_abs_change_eps0": worst,
                "output_ratio_at_1e-4_eps_1e-6": shrunk, "max_abs_gap_eps_over_a2": eps_law}, (
        f"ε = 0: rms_norm(a·x) = rms_norm(x) within {worst:.1e} for a from 1e-3 to 1e4; ε = 1e-6: inputs of size "
        f"1e-4 come out {shrunk:.3f} times their ε = 0 output, and rms_norm(0.01·x, ε) = rms_norm(x, ε/1e-4) "
        f"within {eps_law:.1e}")


def _ln_check(seed: int) -> tuple[bool, dict, str]:
    from .norms import layer_norm

    rng = np.random.default_rng(seed)
    x = rng.normal(size=(32, 64))
    worst = 0.0
    for a, c in ((0.01, 3.0), (2.5, -40.0), (300.0, 0.5)):
        worst = max(worst, float(np.max(np.abs(layer_norm(a * x + c, eps=0.0) - layer_norm(x, eps=0.0)))))
    with_eps = float(np.max(np.abs(layer_norm(0.01 * x + 3.0, eps=1e-5) - layer_norm(x, eps=1e-5))))
    ok = worst < 1e-9 and with_eps > 1e-3
    return ok, {"tokens": 32, "d_model": 64, "max_abs_change_eps0": worst, "max_abs_change_eps1e-5_a0.01": with_eps}, (
        f"ε = 0: layer_norm(a·x + c) = layer_norm(x) within {worst:.1e} for (a, c) = (0.01, 3), (2.5, −40), "
        f"(300, 0.5); with ε = 1e-5 and a = 0.01 the output moves by {with_eps:.3f}: the shift invariance stays, "
        "the scale invariance does not")


@register(
    "norms.rmsnorm-scale-invariance",
    title=r"RMSNorm ignores a positive scale: RMSNorm(a·x) = RMSNorm(x) for a > 0 and ε = 0, for any $d_{model}$",
    summary="$a x_i/\\sqrt{\\frac{1}{d}\\sum_j (a x_j)^2} = x_i/\\sqrt{\\frac{1}{d}\\sum_j x_j^2}$: the factor "
            "$a^2$ leaves the sum and $\\sqrt{a^2} = a$ cancels, for symbolic $d_{model}$.",
)
def rmsnorm_scale_invariance() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Transform

    x, d, i, j, a, _, _ = _symbols()
    return Derivation(
        **metadata("norms.rmsnorm-scale-invariance"),
        start=_frac(a * x[i], _root(_frac(sp.Sum((a * x[j]) ** 2, (j, 1, d)), d))),
        steps=(
            Step(_frac(a * x[i], _root(sp.Mul(a**2, _ms(x, j, d), evaluate=False))),
                 "$(a x_j)^2 = a^2 x_j^2$, and $a^2$ does not depend on j: it leaves the sum",
                 rule=Transform(_pull_constant, "take a constant factor out of a sum")),
            Step(_frac(a * x[i], sp.Mul(a, _root(_ms(x, j, d)), evaluate=False)),
                 "$\\sqrt{a^2 m} = a\\sqrt{m}$ for $a > 0$"),
            Step(_frac(x[i], _root(_ms(x, j, d))), "a cancels", citation=ZHANG_2019),
        ),
        assumptions=(Assumption("one token x of any width $d_{model}$, not all zero; a > 0; ε = 0; no gain γ "
                                "(it multiplies after the normalisation)"),),
        citations=(ZHANG_2019,),
        checks=(FunctionCheck(r"numpy $\mathtt{rms\_norm}$ of scaled tokens, with and without ε", _rms_check),),
        notes=("For a < 0 the same steps give $\\sqrt{a^2} = -a$ and RMSNorm(a·x) = −RMSNorm(x). "
               "The invariance is what Zhang & Sennrich call re-scaling invariance; its infinitesimal form is "
               "gradients.rmsnorm-grad-orthogonal-xhat (the input gradient has no component along x).",),
    )


@register(
    "norms.rmsnorm-eps-scale",
    title=r"With ε > 0, scaling the input by a is RMSNorm with ε/a² instead of ε, for any $d_{model}$",
    summary="$a x_i/\\sqrt{a^2 \\overline{x^2} + \\varepsilon} = x_i/\\sqrt{\\overline{x^2} + \\varepsilon/a^2}$: "
            "the invariance holds only where $\\varepsilon \\ll a^2\\,\\overline{x^2}$.",
)
def rmsnorm_eps_scale() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Transform

    x, d, i, j, a, _, eps = _symbols()
    ms = _ms(x, j, d)
    return Derivation(
        **metadata("norms.rmsnorm-eps-scale"),
        start=_frac(a * x[i], _root(_frac(sp.Sum((a * x[j]) ** 2, (j, 1, d)), d) + eps)),
        steps=(
            Step(_frac(a * x[i], _root(sp.Mul(a**2, ms, evaluate=False) + eps)),
                 "$(a x_j)^2 = a^2 x_j^2$, and $a^2$ leaves the sum",
                 rule=Transform(_pull_constant, "take a constant factor out of a sum")),
            Step(_frac(a * x[i], sp.Mul(a, _root(sp.Add(ms, _frac(eps, a**2), evaluate=False)), evaluate=False)),
                 "$a^2 m + \\varepsilon = a^2 (m + \\varepsilon/a^2)$ and $\\sqrt{a^2} = a$ for $a > 0$"),
            Step(_frac(x[i], _root(sp.Add(ms, _frac(eps, a**2), evaluate=False))), "a cancels", citation=ZHANG_2019),
        ),
        assumptions=(Assumption("one token x of any width $d_{model}$; a > 0; ε > 0 inside the square root; "
                                "no gain γ"),),
        citations=(ZHANG_2019,),
        checks=(FunctionCheck(r"numpy $\mathtt{rms\_norm}$ of scaled tokens, with and without ε", _rms_check),),
        notes=("So the output is unchanged only while ε/a² stays negligible against the mean square: a token "
               "scaled down far enough ($a^2\\,\\overline{x^2} \\ll \\varepsilon$) comes out close to "
               "$a x/\\sqrt{\\varepsilon}$, near 0, not at unit size. That is ε's purpose: it keeps an all-zero "
               "token from being divided by 0.",),
    )


@register(
    "norms.layernorm-shift-scale-invariance",
    title=(r"LayerNorm ignores a shift and a positive scale: LN(a·x + c) = LN(x) for a > 0 and ε = 0, "
           r"for any $d_{model}$"),
    summary="The mean of $a x + c$ is $a\\mu + c$, so $c$ cancels in $a x_i + c - (a\\mu + c) = a(x_i - \\mu)$; the "
            "standard deviation is $a\\sigma$, so $a$ cancels, for symbolic $d_{model}$.",
)
def layernorm_shift_scale_invariance() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Transform
    from .norms import _sum_of_constant

    x, d, i, j, a, c, _ = _symbols()
    k = sp.Symbol("k", integer=True, positive=True)
    y = sp.IndexedBase("y", real=True)
    mu = sp.Sum(x[j], (j, 1, d)) / d

    def ln(expr_of: Any, mean: Any = None) -> Any:  # (v_i − mean(v))/√(mean((v − mean v)²)), v_l = expr_of(l)
        mean = sp.Sum(expr_of(j), (j, 1, d)) / d if mean is None else mean
        return _frac(expr_of(i) - mean, _root(_frac(sp.Sum((expr_of(k) - mean) ** 2, (k, 1, d)), d)))

    def affine_x(l_: Any) -> Any:
        return a * x[l_] + c

    start = ln(affine_x)
    affine = sp.Sum(a * x[j] + c, (j, 1, d))
    s0 = ln(affine_x, (a * sp.Sum(x[j], (j, 1, d)) + sp.Sum(c, (j, 1, d))) / d)
    mean_y = a * mu + c
    s1 = ln(affine_x, mean_y)
    s2 = _frac(a * (x[i] - mu), _root(_frac(sp.Sum(a**2 * (x[k] - mu) ** 2, (k, 1, d)), d)))
    s3 = _frac(a * (x[i] - mu), _root(sp.Mul(a**2, _frac(sp.Sum((x[k] - mu) ** 2, (k, 1, d)), d), evaluate=False)))
    end = ln(lambda l_: x[l_])
    return Derivation(
        **metadata("norms.layernorm-shift-scale-invariance"),
        start=start,
        steps=(
            Step(s0, "linearity: the sum of $a x_j + c$ is $a \\sum_j x_j + \\sum_j c$",
                 rule=Transform(lambda e: e.xreplace({affine: sp.expand(affine)}), "split the sum")),
            Step(s1, "$\\sum_j c = d\\,c$, so the mean of $a x + c$ is $a\\mu + c$",
                 rule=Transform(_sum_of_constant, "sum of a term free of the index")),
            Step(s2, "c cancels: every deviation from the mean is $a(x_k - \\mu)$, and $(a u)^2 = a^2 u^2$"),
            Step(s3, "$a^2$ does not depend on k: it leaves the sum",
                 rule=Transform(_pull_constant, "take a constant factor out of a sum")),
            Step(end, "$\\sqrt{a^2 v} = a\\sqrt{v}$ for $a > 0$, and a cancels", citation=BA_51),
        ),
        assumptions=(Assumption("one token x of any width $d_{model}$, not constant ($\\sigma^2 > 0$); a > 0, c real; "
                                "ε = 0; no γ, β (they act after the normalisation)"),),
        definitions=((sp.Symbol("mu"), mu), (y[k], a * x[k] + c)),
        citations=(BA_51, ZHANG_2019),
        checks=(FunctionCheck(r"numpy $\mathtt{layer\_norm}$ of shifted and scaled tokens, with and without ε",
                              _ln_check),),
        notes=("With ε > 0 the shift invariance survives (it never touches the variance) but the scale one "
               "becomes the ε/a² law of norms.rmsnorm-eps-scale. RMSNorm keeps only the scale invariance: "
               "without centring, a shift c changes its mean square.",),
    )
