"""Why attention divides by √d_k: mean and variance of the score q·k.

Source: Vaswani et al. 2017, §3.2.1, footnote 4: if the components of q and k
are independent with mean 0 and variance 1, then ``q·k = Σ_{i=1}^{d_k} q_i k_i`` has
mean 0 and variance d_k. Here that is derived for a *symbolic* d_k with the
expectation rules of :mod:`derive.expectation` (plus the general form for any
means and variances); sympy.stats (fixed d_k = 1..3) and Monte Carlo sampling
(three distributions, d_k = 4, 64, 512) cross-check it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

VASWANI_321 = Citation("vaswani2017", "§3.2.1")
VASWANI_FN4 = Citation("vaswani2017", "§3.2.1, footnote 4")

#: The key widths of the Monte Carlo checks.
MC_DIMS = (4, 64, 512)
#: Draws of the Monte Carlo checks per key width (enough to reject the wrong claims d_k² and √d_k).
MC_DRAWS = {4: 20_000, 64: 4_000, 512: 1_000}
#: Lecture 000's figure: at d_k = 512 the unscaled scores spread about ±√512.
LECTURE_DK = 512

# ----------------------------------------------------------------------------
# Samplers (numpy; mean 0 and variance 1 per component)
# ----------------------------------------------------------------------------

SQRT3 = float(np.sqrt(3.0))


def _normal(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.standard_normal(shape)


def _rademacher(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.integers(0, 2, size=shape).astype(np.float64) * 2.0 - 1.0


def _uniform(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.uniform(-SQRT3, SQRT3, size=shape)


#: name -> sampler of components with mean 0 and variance 1.
DISTRIBUTIONS: dict[str, Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]] = {
    "normal": _normal,
    "rademacher": _rademacher,
    "uniform[-√3,√3]": _uniform,
}


def score_sampler(dist: str, d_k: int, scale: float = 1.0, center: float = 0.0,
                  power: int = 2, loc: tuple[float, float] = (0.0, 0.0),
                  sd: tuple[float, float] = (1.0, 1.0)) -> Callable[[np.random.Generator, int], np.ndarray]:
    """A sampler of ``(scale·q·k − center)**power`` for q, k with i.i.d. components.

    Components are ``loc + sd·x`` with ``x`` from :data:`DISTRIBUTIONS` ``[dist]``
    (mean 0, variance 1). ``size`` rows are drawn at once: the caller's chunk
    bounds the memory to ``2·size·d_k`` floats.
    """
    draw = DISTRIBUTIONS[dist]

    def sampler(rng: np.random.Generator, size: int) -> np.ndarray:
        q = loc[0] + sd[0] * draw(rng, (size, d_k))  # (size, d_k)
        k = loc[1] + sd[1] * draw(rng, (size, d_k))  # (size, d_k)
        return (scale * np.einsum("nd,nd->n", q, k) - center) ** power  # (size,)

    return sampler


def _chunk(d_k: int) -> int:
    """Rows per chunk so that one chunk holds about 2¹⁸ components per matrix."""
    return max(1, 2**18 // d_k)


# ----------------------------------------------------------------------------
# 2. Mean and variance of the dot product
# ----------------------------------------------------------------------------


def _model(general: bool) -> tuple[Any, Any, Any, Any, Any, Any, Any]:
    """(model, q, k, mu_q, var_q, mu_k, var_k) for the general or the standard (0, 1) components."""
    from ..expectation import RandomModel
    from .notation import sym, vec

    q, k = vec("q"), vec("k")
    if general:
        mq, mk, sq, sk = sym("mu_q"), sym("mu_k"), sym("sigma_q"), sym("sigma_k")
        vq, vk = sq**2, sk**2
    else:
        import sympy as sp

        mq = mk = sp.Integer(0)
        vq = vk = sp.Integer(1)
    return RandomModel(((q, mq, vq), (k, mk, vk))), q, k, mq, vq, mk, vk


def _variance_steps(general: bool, scale: Any) -> tuple[Any, tuple[Step, ...]]:
    """Var(scale·q·k) for symbolic d_k: (start, steps), each step one law of expectation."""
    import sympy as sp

    from ..expectation import (
        E,
        ExpandSquare,
        Independence,
        Linearity,
        Moments,
        SplitDiagonal,
        Var,
        VarianceDefinition,
    )
    from ..rules import Evaluate
    from .notation import sym

    model, q, k, mq, vq, mk, vk = _model(general)
    d_k, i, j = sym("d_k"), sym("i"), sym("j")
    c = scale
    x = sp.Sum(q[i] * k[i], (i, 1, d_k))
    p = q[i] * k[i] * q[j] * k[j]
    lower, upper = (j, 1, i - 1), (j, i + 1, d_k)
    rows = (i, 1, d_k)

    bracket = d_k * (vq + mq**2) * (vk + mk**2) + d_k * (d_k - 1) * mq**2 * mk**2 - d_k**2 * mq**2 * mk**2

    def chain(diag: Any, off: Any, mean: Any) -> Any:
        return c**2 * (sp.Sum(diag, rows) + sp.Sum(off, lower, rows) + sp.Sum(off, upper, rows)) \
            - c**2 * sp.Sum(mean, rows) ** 2

    steps = (
        Step(E(c**2 * x**2) - E(c * x) ** 2, "definition of the variance: $E[X^2] - E[X]^2$",
             rule=VarianceDefinition()),
        Step(E(c**2 * sp.Sum(p, (j, 1, d_k), rows)) - E(c * x) ** 2,
             "the square of a sum is the double sum of all products", rule=ExpandSquare()),
        Step(E(c**2 * (sp.Sum(q[i] ** 2 * k[i] ** 2, rows)
                       + sp.Sum(sp.Sum(p, lower) + sp.Sum(p, upper), rows))) - E(c * x) ** 2,
             "split the double sum into the diagonal $j = i$ and the pairs $j < i$, $j > i$",
             rule=SplitDiagonal()),
        Step(chain(E(q[i] ** 2 * k[i] ** 2), E(p), E(q[i] * k[i])),
             "linearity: the expectation of a sum is the sum of expectations; constants factor out",
             rule=Linearity(model)),
        Step(chain(E(q[i] ** 2) * E(k[i] ** 2), E(q[i]) * E(k[i]) * E(q[j]) * E(k[j]), E(q[i]) * E(k[i])),
             "independence: $q$ and $k$ are independent, and so are components with different indices "
             "($j \\neq i$ in the off-diagonal sums)", rule=Independence(model), citation=VASWANI_FN4),
        Step(chain((vq + mq**2) * (vk + mk**2), mq**2 * mk**2, mq * mk),
             "the moments of one component: $E[q_i] = \\mu_q$, $E[q_i^2] = \\sigma_q^2 + \\mu_q^2$ (same for k)",
             rule=Moments(model)),
        Step(sp.Mul(c**2, bracket, evaluate=False) if c != 1 else bracket,
             "sums of constants: $d_k$ diagonal terms and $d_k(d_k - 1)$ off-diagonal pairs",
             rule=Evaluate("the sums")),
    )
    return Var(c * x), steps


def _stats_check(general: bool) -> Callable[[int], tuple[bool, dict, str]]:
    """sympy.stats (a separate symbolic route) at d_k = 1, 2, 3 with two-point components."""

    def run(seed: int) -> tuple[bool, dict, str]:
        import sympy as sp
        from sympy.stats import FiniteRV, variance

        _, _, _, mq, vq, mk, vk = _model(general)
        sq, sk = sp.sqrt(vq), sp.sqrt(vk)
        got = {}
        ok = True
        for d in (1, 2, 3):
            # a two-point variable mean ± sd has the given mean and variance
            qs = [FiniteRV(f"q{a}", {mq - sq: sp.S.Half, mq + sq: sp.S.Half}) for a in range(d)]
            ks = [FiniteRV(f"k{a}", {mk - sk: sp.S.Half, mk + sk: sp.S.Half}) for a in range(d)]
            value = variance(sum(a * b for a, b in zip(qs, ks, strict=True)))
            claim = d * (vq * vk + mq**2 * vk + mk**2 * vq)
            ok &= sp.expand(value - claim) == 0
            got[f"d_k={d}"] = sp.sstr(sp.factor(value))
        return ok, got, "sympy.stats variance of Σ q_i k_i with two-point components: " + "; ".join(
            f"{key}: {val}" for key, val in got.items())

    return run


def _mc_checks(scale_power: float, expected: Callable[[int], float],
               alternatives: Callable[[int], tuple[float, ...]], label: str,
               dists: tuple[str, ...] = tuple(DISTRIBUTIONS)) -> tuple:
    """Monte Carlo of E[(d_k^(−scale_power)·q·k)²] at each width in :data:`MC_DIMS`."""
    from ..numeric import MonteCarloCheck

    out = []
    for dist in dists:
        for d in MC_DIMS:
            out.append(MonteCarloCheck(
                f"{label}, {dist}, $d_k = {d}$", score_sampler(dist, d, scale=d ** (-scale_power)),
                expected=expected(d), n=MC_DRAWS[d], chunk=_chunk(d), alternatives=alternatives(d),
                meta={"distribution": dist, "d_k": d}))
    return tuple(out)


STANDARD = Assumption(r"the $d_k$ components $q_1, \dots, q_{d_k}$, $k_1, \dots, k_{d_k}$ are independent, each with "
                      "mean 0 and variance 1 (the premise of Vaswani et al. 2017, footnote 4)")


@register(
    "attention.score-mean",
    title="The dot product of independent mean-0 vectors has mean 0",
    summary=r"$E[q\cdot k] = \sum E[q_i]E[k_i] = 0$ for any $d_k$.",
)
def score_mean() -> Derivation:
    import sympy as sp

    from ..expectation import E, Independence, Linearity, Moments
    from ..numeric import MonteCarloCheck
    from ..rules import Evaluate
    from .notation import sym

    model, q, k, *_ = _model(False)
    d_k, i = sym("d_k"), sym("i")
    return Derivation(
        **metadata("attention.score-mean"),
        start=E(sp.Sum(q[i] * k[i], (i, 1, d_k))),
        steps=(
            Step(sp.Sum(E(q[i] * k[i]), (i, 1, d_k)), "linearity of expectation over the sum",
                 rule=Linearity(model)),
            Step(sp.Sum(E(q[i]) * E(k[i]), (i, 1, d_k)), "$q_i$ and $k_i$ are independent",
                 rule=Independence(model)),
            Step(sp.Sum(sp.Integer(0), (i, 1, d_k)), "each component has mean 0", rule=Moments(model)),
            Step(sp.Integer(0), "a sum of zeros", rule=Evaluate("the sum")),
        ),
        assumptions=(STANDARD,),
        citations=(VASWANI_FN4,),
        checks=tuple(
            MonteCarloCheck(f"E[q·k], {dist}, $d_k = 64$", score_sampler(dist, 64, power=1), expected=0.0,
                            n=MC_DRAWS[64], chunk=_chunk(64), alternatives=(1.0, -1.0),
                            meta={"distribution": dist, "d_k": 64})
            for dist in DISTRIBUTIONS),
    )


@register(
    "attention.score-variance",
    title="The dot product of $d_k$ unit-variance components has variance $d_k$",
    summary=(r"$\operatorname{Var}(q\cdot k) = d_k$ for a symbolic $d_k$, derived by linearity, independence and "
             "$E[q_i^2] = 1$."),
)
def score_variance() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck

    return Derivation(
        **metadata("attention.score-variance"),
        start=_standard_start(sp.Integer(1)),
        steps=(_standard_step(sp.Integer(1), "$c = 1$"),),
        assumptions=(STANDARD,),
        citations=(VASWANI_FN4,),
        models=(_model(False)[0],),
        checks=(
            FunctionCheck("sympy.stats at $d_k = 1$, 2, 3 (Rademacher components)", _stats_check(False)),
            *_mc_checks(0.0, float, lambda d: (float(d * d), float(np.sqrt(d))), r"$E[(q\cdot k)^2] = d_k$"),
            ValueCheck(r"spread of the unscaled scores at $d_k = 512$: $\sqrt{512}$", sp.sqrt(LECTURE_DK), "22.6",
                       "issue 3 (lecture 000, §1 prints ±√512 ≈ ±23)"),
            ValueCheck("spread of the unscaled scores at $d_k = 512$, as printed", sp.sqrt(LECTURE_DK), "23",
                       "lecture 000, §1"),
        ),
        notes=(r"The standard deviation of an unscaled score is $\sqrt{d_k}$: at $d_k = 512$ the scores spread about "
               r"$\pm \sqrt{512}$ ≈ ±22.6, which pushes softmax into saturation (softmax.saturation).",),
    )


def _standard_start(scale: Any) -> Any:
    """Var(scale·q·k) for the standard components (mean 0, variance 1)."""
    import sympy as sp

    from ..expectation import Var
    from .notation import sym, vec

    q, k, d_k, i = vec("q"), vec("k"), sym("d_k"), sym("i")
    return Var(scale * sp.Sum(q[i] * k[i], (i, 1, d_k)))


def _standard_step(scale: Any, shown: str) -> Step:
    """The general variance law at μ_q = μ_k = 0, σ_q = σ_k = 1 and the scale ``scale``: c²·d_k."""
    import sympy as sp

    from .notation import sym

    d_k = sym("d_k")
    where = {sym("c"): scale, sym("mu_q"): 0, sym("mu_k"): 0, sym("sigma_q"): 1, sym("sigma_k"): 1}
    return Step(sp.simplify(scale**2 * d_k),
                f"the general law with $\\mu_q = \\mu_k = 0$, $\\sigma_q = \\sigma_k = 1$ and {shown}: "
                "$c^2 d_k (1 + 0 + 0)$", by="attention.score-variance-general", where=where)


@register(
    "attention.scaled-variance",
    title=r"Dividing by $\sqrt{d_k}$ gives the scores variance 1",
    summary=r"$\operatorname{Var}(q\cdot k/\sqrt{d_k}) = d_k/d_k = 1$ whatever the key width.",
)
def scaled_variance() -> Derivation:
    import sympy as sp

    from .notation import sym

    c = 1 / sp.sqrt(sym("d_k"))
    return Derivation(
        **metadata("attention.scaled-variance"),
        start=_standard_start(c),
        steps=(_standard_step(c, "$c = 1/\\sqrt{d_k}$, so $c^2 d_k = d_k / d_k = 1$"),),
        assumptions=(STANDARD,),
        citations=(VASWANI_321, VASWANI_FN4),
        models=(_model(False)[0],),
        checks=_mc_checks(0.5, lambda d: 1.0, lambda d: (float(d), float(np.sqrt(d))),
                          r"$E[(q\cdot k/\sqrt{d_k})^2] = 1$", dists=("normal",)),
        notes=(r"Without the factor $1/\sqrt{d_k}$ the variance would be $d_k$ (attention.score-variance).",),
    )


#: Component moments of the general Monte Carlo check: (mean, sd) of q and of k.
GENERAL_MC = {"loc": (0.5, -1.0), "sd": (2.0, 0.5), "d_k": 16, "n": 40_000}


def _general_mc() -> tuple:
    from ..numeric import MonteCarloCheck

    (mq, mk), (sq, sk), d, n = GENERAL_MC["loc"], GENERAL_MC["sd"], GENERAL_MC["d_k"], GENERAL_MC["n"]
    claim = d * (sq**2 * sk**2 + mq**2 * sk**2 + mk**2 * sq**2)
    wrong = (d * sq**2 * sk**2,  # the mean-0 formula applied regardless
             d * (sq**2 + mq**2) * (sk**2 + mk**2))  # second moments instead of the variance
    return tuple(
        MonteCarloCheck(rf"Var(q·k), {dist}, $d_k = {d}$, $\mu = {GENERAL_MC['loc']}$, $\sigma = {GENERAL_MC['sd']}$",
                        score_sampler(dist, d, center=d * mq * mk, loc=(mq, mk), sd=(sq, sk)),
                        expected=claim, n=n, chunk=_chunk(d), alternatives=wrong,
                        meta={"distribution": dist, "d_k": d})
        for dist in ("normal", "rademacher"))


@register(
    "attention.score-variance-general",
    title="Variance of the scaled dot product for components of any mean and variance",
    summary=r"$\operatorname{Var}(c\, q\cdot k) = c^2 d_k(\sigma_q^2\sigma_k^2 + \mu_q^2\sigma_k^2 + "
            r"\mu_k^2\sigma_q^2)$ "
            r"for any real scale c, derived for symbolic $d_k$.",
)
def score_variance_general() -> Derivation:

    from ..numeric import FunctionCheck
    from .notation import sym

    d_k, mq, mk, sq, sk, c = (sym(n) for n in ("d_k", "mu_q", "mu_k", "sigma_q", "sigma_k", "c"))
    start, steps = _variance_steps(True, c)
    return Derivation(
        **metadata("attention.score-variance-general"),
        start=start,
        steps=(*steps, Step(c**2 * d_k * (sq**2 * sk**2 + mq**2 * sk**2 + mk**2 * sq**2), "expand and collect")),
        assumptions=(Assumption("the components are independent; every $q_i$ has mean $\\mu_q$ and variance "
                                "$\\sigma_q^2$, every $k_i$ mean $\\mu_k$ and variance $\\sigma_k^2$; "
                                "the scores are scaled by a real constant $c$"),),
        citations=(VASWANI_FN4,),
        checks=(FunctionCheck(r"sympy.stats at $d_k = 1$, 2, 3 (two-point components, symbolic $\mu$, $\sigma$)",
                              _stats_check(True)),
                *_general_mc()),
        notes=(r"With $\mu_q = \mu_k = 0$ and $\sigma_q = \sigma_k = 1$ this is attention.score-variance (c = 1) and "
               r"attention.scaled-variance ($c = 1/\sqrt{d_k}$); both cite it. Non-zero means add "
               "variance: centring queries and keys is part of why the $\\sqrt{d_k}$ scaling suffices.",),
    )
