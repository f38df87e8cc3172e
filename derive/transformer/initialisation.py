"""Initialisation and signal propagation: fan-in variance, Xavier/Glorot, He, and the residual stream.

The variance laws are derived with the expectation rules of
:mod:`derive.expectation` for a *symbolic* fan-in and a symbolic number of
residual additions, exactly as ``attention.score-variance`` derives Var(q·k):
the definition of the variance, the square of a sum, its diagonal split,
linearity, independence and the known moments, then sums of constants.

Sources: Glorot & Bengio 2010, §4.2 (eq. 12: Var[W] = 2/(n_in + n_out), and the
uniform form ±√6/√(n_in + n_out), eq. 16); He et al. 2015, §2.2
(E[relu(y)²] = Var[y]/2 for a symmetric y, hence Var[w] = 2/n_in);
Radford et al. 2019, §2.3 (GPT-2 scales the weights of the residual layers by
1/√N, N the number of residual layers); Zhang et al. 2023 (D2L), §5.4.2.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

GLOROT_42 = Citation("glorot2010", "§4.2, eq. 12")
GLOROT_16 = Citation("glorot2010", "§4.2, eq. 16")
HE_22 = Citation("he2015", "§2.2")
RADFORD_23 = Citation("radford2019", "§2.3")
D2L_542 = Citation("zhang2023d2l", "§5.4.2")

#: The worked example of Xavier initialisation: a 512 → 2048 projection (d_model → d_ff of the base model).
XAVIER_FAN = (512, 2048)
#: GPT-2's initial standard deviation of every weight (Radford et al. 2019's released code; nanoGPT's 0.02).
GPT2_STD = 0.02


# ----------------------------------------------------------------------------
# numpy helpers
# ----------------------------------------------------------------------------


def xavier_std(fan_in: int, fan_out: int) -> float:
    """Glorot & Bengio's standard deviation √(2/(fan_in + fan_out)).

    Raises:
        ValueError: a fan is not a positive integer.

    Source: Glorot & Bengio 2010, §4.2, eq. 12.
    """
    for name, v in (("fan_in", fan_in), ("fan_out", fan_out)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    return float(np.sqrt(2.0 / (fan_in + fan_out)))


def he_std(fan_in: int) -> float:
    """He et al.'s standard deviation √(2/fan_in) for a layer followed by ReLU.

    Raises:
        ValueError: ``fan_in`` is not a positive integer.

    Source: He et al. 2015, §2.2.
    """
    if not isinstance(fan_in, (int, np.integer)) or isinstance(fan_in, bool) or fan_in < 1:
        raise ValueError(f"fan_in must be a positive integer, got {fan_in!r}")
    return float(np.sqrt(2.0 / fan_in))


def residual_variance(depth: np.ndarray, sigma_0: float = 1.0, sigma_f: float = 1.0,
                      n_res: int | None = None) -> np.ndarray:
    """Var of the residual stream after ``depth`` additions of independent mean-0 branch outputs.

    Args:
        depth: number of residual additions so far (array of integers ≥ 0).
        sigma_0: standard deviation of the stream before the first block.
        sigma_f: standard deviation of one branch's output before any scaling.
        n_res: if given, every branch output is scaled by 1/√n_res (GPT-2: n_res = 2·n_layers).

    Returns:
        σ_0² + depth·σ_f² (unscaled) or σ_0² + depth·σ_f²/n_res (scaled), shape of ``depth``.

    Source: derived in ``init.residual-growth`` and ``init.gpt2-residual-scaling``.
    """
    depth = np.asarray(depth, dtype=np.float64)
    scale = 1.0 if n_res is None else 1.0 / n_res
    return sigma_0**2 + depth * sigma_f**2 * scale


# ----------------------------------------------------------------------------
# the variance of a sum of independent products
# ----------------------------------------------------------------------------


def _linear_chain(model: Any, w: Any, x: Any, n: Any, moments: tuple,
                  final: Any = None) -> tuple[Any, tuple[Step, ...]]:
    """Var(Σ_{i=1}^{n} w_i x_i), the steps of attention.score-variance with the weights' mean 0."""
    import sympy as sp

    from ..expectation import (
        E,
        ExpandSquare,
        Independence,
        Linearity,
        Moments,
        Var,
        VarianceDefinition,
    )
    from ..expectation import SplitDiagonal as Split
    from ..rules import Evaluate
    from .notation import sym

    vw, mx, vx = moments
    i, j = sym("i"), sym("j")
    y = sp.Sum(w[i] * x[i], (i, 1, n))
    p = w[i] * x[i] * w[j] * x[j]
    lower, upper, rows = (j, 1, i - 1), (j, i + 1, n), (i, 1, n)

    def chain(diag: Any, off: Any, mean: Any) -> Any:
        return sp.Sum(diag, rows) + sp.Sum(off, lower, rows) + sp.Sum(off, upper, rows) - sp.Sum(mean, rows) ** 2

    steps = (
        Step(E(y**2) - E(y) ** 2, "definition of the variance: $E[Y^2] - E[Y]^2$", rule=VarianceDefinition()),
        Step(E(sp.Sum(p, (j, 1, n), rows)) - E(y) ** 2, "the square of a sum is the double sum of all products",
             rule=ExpandSquare()),
        Step(E(sp.Sum(w[i] ** 2 * x[i] ** 2, rows) + sp.Sum(sp.Sum(p, lower) + sp.Sum(p, upper), rows)) - E(y) ** 2,
             "split the double sum into the diagonal $j = i$ and the pairs $j \\ne i$", rule=Split()),
        Step(chain(E(w[i] ** 2 * x[i] ** 2), E(p), E(w[i] * x[i])),
             "linearity of expectation", rule=Linearity(model)),
        Step(chain(E(w[i] ** 2) * E(x[i] ** 2), E(w[i]) * E(x[i]) * E(w[j]) * E(x[j]), E(w[i]) * E(x[i])),
             "independence: the weights are independent of the inputs, and components with different indices "
             "of each other", rule=Independence(model), citation=GLOROT_42),
        Step(chain(vw * (vx + mx**2), sp.Integer(0), sp.Integer(0)),
             "the moments: $E[w_i] = 0$, $E[w_i^2] = \\sigma_w^2$, $E[x_i^2] = \\sigma_x^2 + \\mu_x^2$",
             rule=Moments(model)),
        Step(n * vw * (vx + mx**2) if final is None else final, "a sum of $n$ equal terms, and sums of zeros",
             rule=Evaluate("the sums")),
    )
    return Var(y), steps


def _mc_linear(label: str, n_in: int, std_w: float, draw_x: Callable, second_moment: float,
               wrong: tuple[float, ...]) -> Any:
    from ..numeric import MonteCarloCheck

    def sampler(rng: np.random.Generator, size: int) -> np.ndarray:
        w = rng.normal(0.0, std_w, size=(size, n_in))  # (size, fan_in)
        x = draw_x(rng, (size, n_in))  # (size, fan_in)
        return np.einsum("si,si->s", w, x) ** 2  # (size,): y² with E[y] = 0

    return MonteCarloCheck(label, sampler, expected=float(n_in * std_w**2 * second_moment), n=20_000,
                           chunk=max(1, 2**18 // n_in), alternatives=tuple(float(v) for v in wrong),
                           meta={"fan_in": n_in})


@register(
    "init.linear-variance",
    title=(r"A linear layer's output variance: $\operatorname{Var}(\sum w_i x_i) = n_{\text{in}}\cdot "
           r"\operatorname{Var}(w)\cdot E[x^2]$"),
    summary=r"For independent weights of mean 0 and inputs of any mean, $\operatorname{Var}(y) = n_{\text{in}} "
            r"\sigma_w^2$ $(\sigma_x^2 + \mu_x^2)$, derived for a symbolic fan-in $n_{\text{in}}$.",
)
def linear_variance() -> Derivation:
    import sympy as sp

    from ..expectation import RandomModel
    from .notation import sym, vec

    w, x = vec("w"), vec("x")
    n, sw, mx, sx = sym("fan_in"), sym("sigma_w"), sym("mu_x"), sym("sigma_x")
    model = RandomModel(((w, sp.Integer(0), sw**2), (x, mx, sx**2)))
    start, steps = _linear_chain(model, w, x, n, (sw**2, mx, sx**2))

    def shifted(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return 0.5 + 2.0 * rng.standard_normal(shape)  # μ_x = 0.5, σ_x = 2: E[x²] = 4.25

    return Derivation(
        **metadata("init.linear-variance"),
        start=start,
        steps=steps,
        assumptions=(Assumption(r"$w_1, \dots, w_{n_{\text{in}}}$ i.i.d. with mean 0 and variance $\sigma_w^2$; "
                                r"$x_1, \dots, x_{n_{\text{in}}}$ i.i.d. with mean $\mu_x$ and variance "
                                r"$\sigma_x^2$, independent of the weights; no bias (or a bias of 0 at "
                                "initialisation)"),),
        citations=(GLOROT_42, HE_22, D2L_542),
        checks=(_mc_linear(r"Var(y), $n_{\text{in}} = 64$, $\sigma_w = 0.125$, $x \sim N(0.5, "
                           r"2^2)$", 64, 0.125, shifted, 4.25,
                           (64 * 0.125**2 * 4.0, 64 * 0.125**2 * 4.25 * 2)),
                _mc_linear(r"Var(y), $n_{\text{in}} = 512$, $\sigma_w = 1/\sqrt{512}$, x ~ N(0, 1)", 512, 512**-0.5,
                           lambda rng, shape: rng.standard_normal(shape), 1.0, (0.5, 2.0))),
        notes=(r"Keeping $\operatorname{Var}(y) = E[x^2]$ layer after layer needs $n_{\text{in}}\cdot \sigma_w^2 = "
               r"1$, i.e. $\sigma_w = 1/\sqrt{n_{\text{in}}}$ (LeCun); the backward pass asks $n_{\text{out}}\cdot "
               r"\sigma_w^2 = 1$ instead, hence Glorot's compromise (init.xavier-average).",),
    )


@register(
    "init.xavier-average",
    title=(r"Xavier/Glorot: $\operatorname{Var}(w) = 2/(n_{\text{in}} + n_{\text{out}})$ makes $n_{\text{in}}\cdot "
           r"\operatorname{Var}(w)$ and $n_{\text{out}}\cdot \operatorname{Var}(w)$ average to 1"),
    summary=r"The forward condition $n_{\text{in}}\cdot \operatorname{Var}(w) = 1$ and the backward one "
            r"$n_{\text{out}}\cdot \operatorname{Var}(w) = 1$ cannot both hold unless $n_{\text{in}} = "
            r"n_{\text{out}}$; Glorot's choice satisfies their average, for symbolic fans.",
)
def xavier_average() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Substitute
    from .notation import sym

    n_in, n_out, sw = sym("fan_in"), sym("fan_out"), sym("sigma_w")
    xavier = 2 / (n_in + n_out)

    def check(seed: int) -> tuple[bool, dict, str]:
        rows = []
        for fi, fo in ((512, 2048), (2048, 512), (768, 768), (4096, 11008)):
            v = xavier_std(fi, fo) ** 2
            rows.append((fi, fo, fi * v, fo * v))
        ok = all(abs((a + b) / 2 - 1) < 1e-12 for _, _, a, b in rows) and rows[2][2] == rows[2][3]
        return ok, {"fans": [r[:2] for r in rows], "forward_gain": [round(r[2], 4) for r in rows],
                    "backward_gain": [round(r[3], 4) for r in rows]}, (
            r"forward gains $n_{\text{in}}\cdot\operatorname{Var}(w)$: " + ", ".join(f"{r[2]:.3f}" for r in rows)
            + "; backward gains: " + ", ".join(f"{r[3]:.3f}" for r in rows) + "; each pair averages to 1")

    return Derivation(
        **metadata("init.xavier-average"),
        start=(n_in * sw**2 + n_out * sw**2) / 2,
        premises=(sp.Eq(sw**2, xavier),),
        steps=(
            Step(sw**2 * (n_in + n_out) / 2, "factor out $\\sigma_w^2$"),
            Step(sp.Mul(xavier, (n_in + n_out) / 2, evaluate=False),
                 "Glorot's choice $\\sigma_w^2 = 2/(n_{in} + n_{out})$",
                 rule=Substitute(((sw**2, xavier),), "σ_w² = 2/(n_in + n_out)"), citation=GLOROT_42),
            Step(sp.Integer(1), "cancel $n_{in} + n_{out}$"),
        ),
        assumptions=(Assumption(r"a layer with $n_{\text{in}}$ inputs and $n_{\text{out}}$ outputs; the forward pass "
                                r"keeps the variance when $n_{\text{in}}\cdot \operatorname{Var}(w) = 1$ "
                                "(init.linear-variance), the backward pass keeps the gradient's variance when "
                                r"$n_{\text{out}}\cdot \operatorname{Var}(w) = 1$ (the same law for $W^\top$)"),),
        citations=(GLOROT_42,),
        checks=(FunctionCheck(r"forward and backward gains of $\mathtt{xavier\_std}$ for four layer shapes", check),),
        notes=(r"$2/(n_{\text{in}} + n_{\text{out}})$ is the harmonic mean of $1/n_{\text{in}}$ and "
               r"$1/n_{\text{out}}$: between the two conditions, equal to both when $n_{\text{in}} = "
               r"n_{\text{out}}$.",),
    )


@register(
    "init.xavier-uniform",
    title=(r"Xavier uniform: U[−a, a] with $a = \sqrt{6}/\sqrt{n_{\text{in}} + n_{\text{out}}}$ has variance "
           r"$2/(n_{\text{in}} + n_{\text{out}})$"),
    summary=(r"$\operatorname{Var}(U[-a, a]) = \int t^2/(2a) dt = a^2/3$, and $a^2 = 6/(n_{\text{in}} + "
             r"n_{\text{out}})$ gives Glorot's variance; symbolic fans."),
)
def xavier_uniform() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate, Substitute
    from .notation import sym

    t, a = sym("t"), sym("bound")
    n_in, n_out = sym("fan_in"), sym("fan_out")
    a_value = sp.sqrt(6) / sp.sqrt(n_in + n_out)

    def check(seed: int) -> tuple[bool, dict, str]:
        rng = np.random.default_rng(seed)
        fi, fo = XAVIER_FAN
        bound = float(np.sqrt(6.0 / (fi + fo)))
        draws = rng.uniform(-bound, bound, size=400_000)
        var, claim = float(draws.var()), 2.0 / (fi + fo)
        se = claim * np.sqrt(0.8 / draws.size)  # Var(w²)/E[w²]² = 9/5 − 1 = 4/5 for a uniform
        ok = abs(var - claim) < 6 * se
        return ok, {"fans": list(XAVIER_FAN), "a": bound, "draws": draws.size, "sample_variance": var,
                    "claim": claim}, (
            f"U[−a, a] with a = {bound:.5f}: sample variance {var:.3e} vs 2/2560 = {claim:.3e} (400,000 draws)")

    return Derivation(
        **metadata("init.xavier-uniform"),
        start=sp.Integral(t**2 / (2 * a), (t, -a, a)),
        premises=(sp.Eq(a, a_value),),
        steps=(
            Step(a**2 / 3, "$\\int_{-a}^{a} t^2\\,dt = 2a^3/3$", rule=Evaluate("the integral")),
            Step(sp.Mul(a_value**2, sp.Rational(1, 3), evaluate=False),
                 "Glorot's bound $a = \\sqrt{6}/\\sqrt{n_{in} + n_{out}}$",
                 rule=Substitute(((a, a_value),), r"$a = \sqrt{6}/\sqrt{n_{\text{in}} + "
                                                  r"n_{\text{out}}}$"), citation=GLOROT_16),
            Step(2 / (n_in + n_out), "$6/3 = 2$", citation=GLOROT_42),
        ),
        assumptions=(Assumption("w ~ U[−a, a]: density 1/(2a) on [−a, a], mean 0, so Var(w) = E[w²]"),),
        citations=(GLOROT_16, GLOROT_42),
        checks=(FunctionCheck("sample variance of U[−a, a] at 512 → 2048", check),),
    )


@register(
    "init.example-xavier-512-2048",
    title=r"Xavier for a 512 → 2048 projection $(n_{\text{in}} = 512, n_{\text{out}} = 2048)$",
    summary=(r"Var(w) = 2/2560 = 1/1280, $\sigma_w = 1/\sqrt{1280} \approx 0.02795$, uniform bound $a = "
             r"\sqrt{6/2560} = \sqrt{15}/80 \approx 0.04841$."),
)
def example_xavier() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from .notation import sym

    fi, fo = (sp.Integer(v) for v in XAVIER_FAN)
    var = sp.Rational(1, 1280)
    t, fans = sym("t"), sp.Add(fi, fo, evaluate=False)
    bound = sp.sqrt(6) / sp.sqrt(fans)  # Glorot's uniform bound at these fans
    # left: the variance of U[−a, a] at that bound, ∫ t²/(2a) dt; right: the bound itself
    start = sp.ImmutableMatrix([[sp.Integral(t**2 / (2 * bound), (t, -bound, bound)), bound]])

    def float_check(seed: int) -> tuple[bool, dict, str]:
        std = xavier_std(*XAVIER_FAN)
        return abs(std - 1 / np.sqrt(1280)) < 1e-15, {"xavier_std": std, "he_std(512)": he_std(512)}, (
            rf"$\mathtt{{xavier\_std}}$(512, 2048) = {std:.6f}; for comparison $\mathtt{{he\_std}}$(512) = "
            rf"{he_std(512):.6f} and GPT-2's fixed 0.02")

    return Derivation(
        **metadata("init.example-xavier-512-2048"),
        instance=r"$n_{\text{in}} = 512$, $n_{\text{out}} = 2048$",
        start=start,
        steps=(
            Step(sp.ImmutableMatrix([[2 / fans, bound]]), "the uniform law at $n_{in} = 512$, $n_{out} = 2048$: "
                 "$U[-a, a]$ at Glorot's bound has variance $2/(n_{in} + n_{out})$ (init.xavier-uniform)",
                 by="init.xavier-uniform", where={"fan_in": fi, "fan_out": fo, "bound": bound}),
            Step(sp.ImmutableMatrix([[var, sp.sqrt(15) / 80]]), "$n_{in} + n_{out} = 2560$; "
                 "$6/2560 = 15/6400$, and $\\sqrt{6400} = 80$", citation=GLOROT_16),
        ),
        assumptions=(Assumption(r"$n_{\text{in}} = 512$ ($d_{\text{model}}$ of the base Transformer), $n_{\text{out}} "
                                r"= 2048$ (its $d_{\text{ff}}$); left: the variance of $U[-a, a]$ at the uniform "
                                r"bound, which is $\operatorname{Var}(w) = 2/(n_{\text{in}} + n_{\text{out}})$ "
                                "(eq. 12); right: "
                                "the bound a (eq. 16)"),),
        citations=(GLOROT_42, GLOROT_16),
        auto_identity_check=False,  # no free symbols
        checks=(FunctionCheck(r"float64 $\mathtt{xavier\_std}$(512, 2048)", float_check),
                ValueCheck("Var(w) = 1/1280", var, "0.00078125", "this chapter"),
                ValueCheck(r"$\sigma_w = 1/\sqrt{1280}$", 1 / sp.sqrt(1280), "0.02795", "this chapter"),
                ValueCheck("a = √15/80", sp.sqrt(15) / 80, "0.04841", "this chapter"),
                ValueCheck(r"forward gain $n_{\text{in}}\cdot \operatorname{Var}(w) = "
                           r"512/1280$", fi * var, "0.4", "this chapter"),
                ValueCheck(r"backward gain $n_{\text{out}}\cdot \operatorname{Var}(w) = "
                           r"2048/1280$", fo * var, "1.6", "this chapter")),
        notes=(r"The forward gain $n_{\text{in}}\cdot \operatorname{Var}(w)$ is 0.4 and the backward gain 1.6: each "
               "is off from 1 by the same amount, 0.6, in opposite directions (their mean (0.4 + 1.6)/2 is 1, which "
               r"is what $\operatorname{Var}(w) = 2/(n_{\text{in}} + n_{\text{out}})$ fixes), and their ratio is "
               r"$n_{\text{out}}/n_{\text{in}} = 4$.",),
    )


# ----------------------------------------------------------------------------
# He initialisation
# ----------------------------------------------------------------------------


def _symmetric_samplers() -> dict[str, Callable[[np.random.Generator, int], np.ndarray]]:
    """Three symmetric, mean-0 distributions of variance 4 (σ_x = 2)."""
    return {
        "normal": lambda rng, size: 2.0 * rng.standard_normal(size),
        "uniform[-2√3, 2√3]": lambda rng, size: rng.uniform(-2 * np.sqrt(3), 2 * np.sqrt(3), size),
        "laplace(b = √2)": lambda rng, size: rng.laplace(0.0, np.sqrt(2.0), size),
    }


@register(
    "init.relu-second-moment",
    title="E[relu(x)²] = Var(x)/2 for x ~ N(0, σ²)",
    summary="relu(t) = (t + |t|)/2; the odd part t|t| integrates to 0 against the even density, leaving "
            "½·E[x²] = σ²/2, for symbolic σ.",
)
def relu_second_moment() -> Derivation:
    import sympy as sp

    from ..numeric import IdentityCheck, MonteCarloCheck
    from ..rules import Evaluate
    from .notation import sym

    t, sx = sym("t"), sym("sigma_x")
    phi = sp.exp(-t**2 / (2 * sx**2)) / (sx * sp.sqrt(2 * sp.pi))
    R = sp.oo
    start = sp.Integral(((t + sp.Abs(t)) / 2) ** 2 * phi, (t, -R, R))
    mc = tuple(
        MonteCarloCheck(f"E[relu(x)²], x {name}, Var(x) = 4", (lambda f: lambda rng, size: np.maximum(f(rng, size), 0)
                                                                ** 2)(draw),
                        expected=2.0, n=200_000, alternatives=(4.0, 1.0), meta={"distribution": name})
        for name, draw in _symmetric_samplers().items())
    return Derivation(
        **metadata("init.relu-second-moment"),
        instance="x ~ N(0, σ²); any symmetric x by Monte Carlo only",
        start=start,
        steps=(
            Step(sp.Integral((t**2 + t * sp.Abs(t)) * phi / 2, (t, -R, R)),
                 "square out, with $|t|^2 = t^2$"),
            Step(sp.Integral(t**2 * phi, (t, -R, R)) / 2 + sp.Integral(t * sp.Abs(t) * phi, (t, -R, R)) / 2,
                 "linearity of the integral"),
            Step(sp.Integral(t**2 * phi, (t, -R, R)) / 2,
                 "$t|t|\\,\\varphi(t)$ is odd because the density is even: its integral is 0", citation=HE_22),
            Step(sx**2 / 2, "the second moment of $N(0, \\sigma^2)$ is $\\sigma^2$", rule=Evaluate("the integral")),
        ),
        assumptions=(Assumption(r"$x \sim N(0, \sigma_x^2)$ with density $\varphi$; relu(t) = max(t, 0) = (t + "
                                r"|t|)/2"),),
        citations=(HE_22,),
        auto_identity_check=False,  # replaced by a lighter one: each point integrates numerically
        checks=(IdentityCheck(start, sx**2 / 2, "claim at random σ", n_points=5), *mc),
        notes=("Only the symmetry of the density is used in step 3: He et al. (§2.2) state the result for any "
               "distribution symmetric about 0, and the Monte Carlo checks confirm it for uniform and Laplace "
               "inputs too. The proof above is for the normal density (the last step evaluates its integral).",),
    )


@register(
    "init.he-variance",
    title=(r"He initialisation: $\operatorname{Var}(w) = 2/n_{\text{in}}$ keeps Var(y) = Var(x) through ReLU (normal "
           "pre-activations)"),
    summary=(r"$\operatorname{Var}(\sum w_i \operatorname{relu}(x_i)) = n_{\text{in}}\cdot (2/n_{\text{in}})\cdot "
             r"\operatorname{Var}(x)/2 = \operatorname{Var}(x)$, for a symbolic fan-in $n_{\text{in}}$."),
)
def he_variance() -> Derivation:
    import sympy as sp

    from ..expectation import RandomModel, Var
    from ..rules import Substitute
    from .notation import sym, vec

    w, r, i = vec("w"), vec("r"), sym("i")
    n, sx, mr, sr = sym("fan_in"), sym("sigma_x"), sym("mu_r"), sym("sigma_r")
    vw = 2 / n
    # relu outputs r_i = relu(x_i) with some mean μ_r and standard deviation σ_r; their second moment
    # σ_r² + μ_r² is the integral of relu² against the normal density (a premise: what r is), whose value
    # σ_x²/2 the step citing init.relu-second-moment takes from that derivation
    model = RandomModel(((w, sp.Integer(0), vw), (r, mr, sr**2)))
    # E[r²] of r = relu(x), x ~ N(0, σ_x²), as the integral init.relu-second-moment evaluates
    t = sym("t")
    phi = sp.exp(-t**2 / (2 * sx**2)) / (sx * sp.sqrt(2 * sp.pi))
    moment = sp.Integral(((t + sp.Abs(t)) / 2) ** 2 * phi, (t, -sp.oo, sp.oo))
    second = sp.Eq(sr**2 + mr**2, moment)
    start = Var(sp.Sum(w[i] * r[i], (i, 1, n)))
    steps = (
        Step(sp.Mul(n, vw, sr**2 + mr**2, evaluate=False),
             "a linear layer's output variance $n_{in} \\sigma_w^2 E[r^2]$ (init.linear-variance) with "
             "$\\sigma_w^2 = 2/n_{in}$ and inputs $r_i$ of mean $\\mu_r$ and variance $\\sigma_r^2$",
             by="init.linear-variance", where={"x": r, "sigma_w": sp.sqrt(vw), "mu_x": mr, "sigma_x": sr}),
        Step(sp.Mul(n, vw, moment, evaluate=False),
             "$E[r_i^2] = \\sigma_r^2 + \\mu_r^2$ is the second moment of relu(x) for $x \\sim N(0, \\sigma_x^2)$",
             rule=Substitute(((sr**2 + mr**2, moment),), "E[r²] = ∫ relu(t)² φ(t) dt (premise)")),
        Step(sp.Mul(n, vw, sx**2 / 2, evaluate=False), "$E[\\operatorname{relu}(x)^2] = \\sigma_x^2/2$ "
             "(init.relu-second-moment)", by="init.relu-second-moment", where={"sigma_x": sx}),
        Step(sx**2, "$n_{in} \\cdot \\frac{2}{n_{in}} \\cdot \\frac{\\sigma_x^2}{2} = \\sigma_x^2$",
             citation=HE_22),
    )

    def draw_relu(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return np.maximum(rng.standard_normal(shape), 0.0)  # relu of N(0, 1): E[r²] = 1/2

    return Derivation(
        **metadata("init.he-variance"),
        start=start,
        steps=steps,
        premises=(second,),
        models=(model,),
        assumptions=(Assumption(r"$w_i$ i.i.d., mean 0, $\operatorname{Var}(w) = 2/n_{\text{in}}$ (He); $r_i = "
                                r"\operatorname{relu}(x_i)$ with $x_i$ i.i.d. $N(0, \sigma_x^2)$, so $r_i$ has some "
                                r"mean $\mu_r$ and variance $\sigma_r^2$, whose second moment $E[r_i^2] = \sigma_r^2 + "
                                r"\mu_r^2$ is the integral of $\operatorname{relu}(t)^2$ against the normal density "
                                "(its value comes from init.relu-second-moment); weights independent of inputs"),),
        citations=(HE_22, D2L_542),
        checks=(_mc_linear(r"Var(y), $n_{\text{in}} = 256$, $\sigma_w = \sqrt{2/256}$, r = relu(N(0, "
                           r"1))", 256, np.sqrt(2 / 256),
                           draw_relu, 0.5, (0.5, 2.0)),),
        notes=(r"With Xavier's or LeCun's $\operatorname{Var}(w) = 1/n_{\text{in}}$ instead, every ReLU layer halves "
               "the variance: after L layers it is $2^{-L}$ of the input's.",),
    )


# ----------------------------------------------------------------------------
# the residual stream
# ----------------------------------------------------------------------------


def _residual_chain(scale: Any, N: Any) -> tuple[Any, tuple[Step, ...], Any]:
    """Var(h_0 + Σ_{l=1}^{N} scale·f_l): (start, steps, model)."""
    import sympy as sp

    from ..expectation import (
        E,
        ExpandSquare,
        Independence,
        Linearity,
        Moments,
        RandomModel,
        SplitDiagonal,
        Var,
        VarianceDefinition,
    )
    from ..rules import Evaluate
    from .notation import sym, vec

    h, f = vec("h"), vec("f")
    ell, m = sym("l"), sym("b_row")
    mu0, s0, sf = sym("mu_0"), sym("sigma_0"), sym("sigma_f")
    model = RandomModel(((h, mu0, s0**2), (f, sp.Integer(0), sf**2)))
    c = scale
    S = sp.Sum(f[ell], (ell, 1, N))
    X = h[0] + c * S
    p = f[ell] * f[m]
    rows = (ell, 1, N)
    mean = (E(h[0]) + c * sp.Sum(E(f[ell]), rows)) ** 2
    cross = 2 * c * E(sp.Sum(h[0] * f[ell], rows))
    diag = sp.Sum(f[ell] ** 2, rows) + sp.Sum(sp.Sum(p, (m, 1, ell - 1)) + sp.Sum(p, (m, ell + 1, N)), rows)
    s5 = E(h[0] ** 2) + cross + c**2 * E(diag) - mean
    s6 = Linearity(model).apply(s5)
    s7 = Independence(model).apply(s6)
    s8 = Moments(model).apply(s7)
    steps = (
        Step(E(X**2) - E(X) ** 2, "definition of the variance", rule=VarianceDefinition()),
        Step(E(h[0] ** 2) + 2 * c * E(h[0] * S) + c**2 * E(S**2) - (E(h[0]) + c * sp.Sum(E(f[ell]), rows)) ** 2,
             "expand the square; linearity of expectation", rule=Linearity(model)),
        Step(E(h[0] ** 2) + cross + c**2 * E(S**2) - mean, "$h_0$ does not depend on $l$: move it into the sum"),
        Step(E(h[0] ** 2) + cross + c**2 * E(sp.Sum(p, (m, 1, N), rows)) - mean,
             "the square of a sum is the double sum of all products", rule=ExpandSquare()),
        Step(s5, "split the double sum into the diagonal and the pairs $m \\ne l$", rule=SplitDiagonal()),
        Step(s6, "linearity of expectation", rule=Linearity(model)),
        Step(s7, "independence: the branch outputs are independent of each other and of $h_0$",
             rule=Independence(model)),
        Step(s8, "the moments: $E[f_l] = 0$, $E[f_l^2] = \\sigma_f^2$, $E[h_0] = \\mu_0$, "
                 "$E[h_0^2] = \\sigma_0^2 + \\mu_0^2$", rule=Moments(model)),
    )
    return Var(X), steps, (s0, sf, Evaluate)


def _residual_mc(n_res: int, scaled: bool) -> Any:
    from ..numeric import MonteCarloCheck

    c = 1 / np.sqrt(n_res) if scaled else 1.0

    def sampler(rng: np.random.Generator, size: int) -> np.ndarray:
        h0 = 0.3 + 0.5 * rng.standard_normal(size)  # μ_0 = 0.3, σ_0 = 0.5
        f = rng.uniform(-np.sqrt(3), np.sqrt(3), size=(size, n_res))  # σ_f = 1, not normal on purpose
        return (h0 + c * f.sum(axis=1) - 0.3) ** 2  # (size,)

    claim = 0.25 + (1.0 if scaled else n_res)
    wrong = (0.25 + n_res, 0.25 + np.sqrt(n_res)) if scaled else (0.25 + 1.0, 0.25 + n_res**2)
    return MonteCarloCheck(rf"$\operatorname{{Var}}(h_N)$, $N = {n_res}$, $\sigma_0 = 0.5$, $\sigma_f = 1$"
                           + (r", scaled by $1/\sqrt{N}$" if scaled else ""),
                           sampler, expected=float(claim), n=20_000, chunk=max(1, 2**18 // n_res),
                           alternatives=tuple(float(v) for v in wrong),
                           meta={"N": n_res, "scaled": scaled})


@register(
    "init.residual-growth",
    title=(r"Without scaling, the residual stream's variance grows linearly: $\operatorname{Var}(h_N) = \sigma_0^2 + "
           r"N\cdot \sigma_f^2$ ($\sigma_0^2 + c^2 N \sigma_f^2$ with branches scaled by c)"),
    summary=r"After N additions of independent mean-0 branch outputs of variance $\sigma_f^2$, each scaled by a "
            "constant c (c = 1: no scaling), for a symbolic N.",
)
def residual_growth() -> Derivation:
    from .notation import sym

    N, c = sym("n_res"), sym("c")
    start, steps, (s0, sf, Evaluate) = _residual_chain(c, N)
    return Derivation(
        **metadata("init.residual-growth"),
        start=start,
        steps=(*steps, Step(s0**2 + c**2 * N * sf**2, "a sum of $N$ equal terms, and sums of zeros",
                            rule=Evaluate("the sums"), citation=RADFORD_23)),
        assumptions=(Assumption(r"$h_N = h_0 + c\sum_{l=1}^N f_l$: the stream after N residual additions (two per "
                                "Transformer layer); the branch outputs $f_l$ are i.i.d. with mean 0 and variance "
                                r"$\sigma_f^2$, independent of each other and of $h_0$ (mean $\mu_0$, variance "
                                r"$\sigma_0^2$) — the usual idealisation at initialisation"),),
        citations=(RADFORD_23,),
        checks=(_residual_mc(48, False),),
        notes=(r"For GPT-2 small ($n_{\text{layers}} = 12$, N = 24 additions) the stream's variance would be "
               r"$\sigma_0^2 + 24\cdot \sigma_f^2$: the standard deviation grows like $\sqrt{N}$, and each Pre-LN "
               "sublayer sees its input rescaled by LayerNorm while the residual path keeps growing.",),
    )


@register(
    "init.gpt2-residual-scaling",
    title=r"GPT-2's $1/\sqrt{N}$ scaling of the residual branches makes the final variance $\operatorname{Var}(h_N) "
          r"= \sigma_0^2 + \sigma_f^2$, for any number N of residual additions",
    summary=r"With each branch output scaled by $1/\sqrt{N} (N = 2\cdot n_{\text{layers}}$ residual additions), the "
            r"N contributions add up to one $\sigma_f^2$, for a symbolic N.",
)
def gpt2_residual_scaling() -> Derivation:
    import sympy as sp

    from .notation import sym

    N = sym("n_res")
    start, _, (s0, sf, _) = _residual_chain(1 / sp.sqrt(N), N)
    model, = {m for s in _residual_chain(1 / sp.sqrt(N), N)[1] if (m := getattr(s.rule, "model", None))}
    return Derivation(
        **metadata("init.gpt2-residual-scaling"),
        start=start,
        steps=(Step(s0**2 + sf**2, "the stream's variance $\\sigma_0^2 + c^2 N \\sigma_f^2$ "
                    "(init.residual-growth) at $c = 1/\\sqrt{N}$: $N$ terms $\\sigma_f^2/N$ add up to "
                    "$\\sigma_f^2$", by="init.residual-growth", where={"c": 1 / sp.sqrt(N)},
                    citation=RADFORD_23),),
        models=(model,),
        assumptions=(Assumption("as init.residual-growth, with every branch's last projection scaled by "
                                r"$1/\sqrt{N}$ at initialisation, so each branch output is $f_l/\sqrt{N}$; GPT-2 "
                                r"counts $N = 2\cdot n_{\text{layers}}$ residual layers (attention and MLP in each "
                                "block)"),),
        citations=(RADFORD_23,),
        checks=(_residual_mc(48, True),),
        notes=(r"Scaling a linear projection's weights by $1/\sqrt{N}$ scales its output by $1/\sqrt{N}$ and its "
               "variance by 1/N. The GPT-2 paper states the scaling (§2.3); OpenAI's released GPT-2 code does not "
               "apply it (its initialiser uses 0.02 for every weight). nanoGPT and Hugging Face's GPT2 "
               r"implementation do: their residual projections get the standard deviation $0.02/\sqrt{2\cdot "
               r"n_{\text{layers}}}$ instead of 0.02.",
               "Only the variance after the last of the N additions is derived here; after l < N scaled additions it "
               r"is $\sigma_0^2 + (l/N)\cdot \sigma_f^2$, still below the final value.",),
    )
