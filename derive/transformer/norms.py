"""LayerNorm, RMSNorm and the residual connection.

Conventions (stated once, used by every derivation and helper here):

* the mean and the variance are taken over the last axis, the ``d_model``
  components of one token;
* the variance is the **biased** one, σ² = (1/d_model)·Σ (x_i − μ)², as in
  Ba et al. 2016 and the frameworks' LayerNorm;
* ε sits **inside** the square root: (x − μ)/√(σ² + ε).

Other conventions (the unbiased variance, ε added to σ) give different numbers;
``norms.layernorm-variance`` reports how much.

Sources: Ba et al. 2016 (LayerNorm), Zhang & Sennrich 2019 (RMSNorm),
He et al. 2016 (residual connections), Vaswani et al. 2017 §3.1 (Post-LN),
Xiong et al. 2020 (Pre-LN).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

BA_2016 = Citation("ba2016", "§3")
ZHANG_2019 = Citation("zhang2019", "§4")
HE_2016 = Citation("he2016", "§3.1")
XIONG_2020 = Citation("xiong2020", "§3")
VASWANI_31 = Citation("vaswani2017", "§3.1")


# ----------------------------------------------------------------------------
# Numeric helpers (numpy only)
# ----------------------------------------------------------------------------


def _as_tokens(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError(f"expected an array of shape (..., d_model) with d_model >= 1, got shape {x.shape}")
    return x


def _affine(name: str, value: np.ndarray | None, d_model: int, default: float) -> np.ndarray:
    if value is None:
        return np.full(d_model, default)
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape != (d_model,):
        raise ValueError(f"{name} must have shape ({d_model},), got {arr.shape}")
    return arr


def _check_eps(eps: float) -> float:
    if not np.isfinite(eps) or eps < 0:
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    return float(eps)


def layer_norm(
    x: np.ndarray,
    gamma: np.ndarray | None = None,
    beta: np.ndarray | None = None,
    eps: float = 1e-5,
) -> np.ndarray:
    """LayerNorm over the last axis: γ ⊙ (x − μ)/√(σ² + ε) + β.

    Args:
        x: shape ``(..., d_model)``; each slice along the last axis is one token.
        gamma: gain, shape ``(d_model,)``; ones when ``None``.
        beta: shift, shape ``(d_model,)``; zeros when ``None``.
        eps: ε ≥ 0, added to the **biased** variance inside the square root.

    Returns:
        Array of the shape of ``x``.

    Raises:
        ValueError: ``x`` is a scalar or has an empty last axis; ``gamma`` or
            ``beta`` is not of shape ``(d_model,)``; ``eps`` is negative or not
            finite; ``eps == 0`` and some token is constant (σ² = 0, so the
            normalisation would be 0/0).

    Source: Ba et al. 2016, §3; Vaswani et al. 2017, §3.1.
    """
    x = _as_tokens(x)
    d_model = x.shape[-1]
    g, b, eps = _affine("gamma", gamma, d_model, 1.0), _affine("beta", beta, d_model, 0.0), _check_eps(eps)
    mu = x.mean(axis=-1, keepdims=True)  # (..., 1)
    # a constant token is centred exactly (its float mean may differ from its value in the last bit)
    constant = np.all(x == x[..., :1], axis=-1, keepdims=True)  # (..., 1)
    centred = np.where(constant, 0.0, x - mu)  # (..., d_model)
    var = (centred**2).mean(axis=-1, keepdims=True)  # (..., 1), biased
    if eps == 0 and np.any(var == 0):
        raise ValueError("LayerNorm with eps = 0 of a constant token (variance 0) is 0/0; use eps > 0")
    return g * centred / np.sqrt(var + eps) + b


def rms_norm(x: np.ndarray, gamma: np.ndarray | None = None, eps: float = 1e-6) -> np.ndarray:
    """RMSNorm over the last axis: γ ⊙ x / √(mean(x²) + ε) (no centring, no β).

    Args:
        x: shape ``(..., d_model)``.
        gamma: gain, shape ``(d_model,)``; ones when ``None``.
        eps: ε ≥ 0 inside the square root (the lecture's example uses 0).

    Returns:
        Array of the shape of ``x``.

    Raises:
        ValueError: bad shapes as for :func:`layer_norm`; ``eps`` negative or not
            finite; ``eps == 0`` and some token is all zeros (0/0).

    Source: Zhang & Sennrich 2019, §4.
    """
    x = _as_tokens(x)
    g, eps = _affine("gamma", gamma, x.shape[-1], 1.0), _check_eps(eps)
    ms = (x**2).mean(axis=-1, keepdims=True)  # (..., 1)
    if eps == 0 and np.any(ms == 0):
        raise ValueError("RMSNorm with eps = 0 of an all-zero token (mean square 0) is 0/0; use eps > 0")
    return g * x / np.sqrt(ms + eps)


# ----------------------------------------------------------------------------
# LayerNorm statistics
# ----------------------------------------------------------------------------


def _sum_of_constant(expr):  # noqa: ANN001, ANN202 - sympy objects
    """Evaluate every sum whose term does not involve its index: Σ_{i=a}^{b} c = (b − a + 1)·c."""
    import sympy as sp

    def constant(node) -> bool:  # noqa: ANN001
        return isinstance(node, sp.Sum) and not any(node.function.has(v) for v in node.variables)

    return expr.replace(constant, lambda node: node.doit())


def _ln_symbols():  # noqa: ANN202 - sympy objects
    from .notation import sym, vec

    return vec("x"), sym("d_model"), sym("i"), sym("j"), sym("mu"), sym("sigma2"), sym("eps")


def _mean_check(seed: int) -> tuple[bool, dict, str]:
    rng = np.random.default_rng(seed)
    x = rng.normal(5.0, 3.0, size=(64, 512))  # far from mean 0 on purpose
    out = layer_norm(x, eps=1e-5)  # (64, 512)
    worst = float(np.max(np.abs(out.mean(axis=-1))))
    ok = worst < 1e-12
    return ok, {"tokens": 64, "d_model": 512, "input_mean": 5.0, "max_abs_row_mean": worst}, (
        f"64 tokens of width 512 with mean ≈ 5: every normalised row has |mean| ≤ {worst:.1e}")


@register(
    "norms.layernorm-mean",
    title="LayerNorm output has mean 0 (before γ and β)",
    summary=(r"$(1/d_{\text{model}})\cdot \sum_i (x_i - \mu)/\sqrt{\sigma^2 + \varepsilon} = 0$ for every token, for "
             r"symbolic $d_{\text{model}}$."),
)
def layernorm_mean() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, IdentityCheck
    from ..rules import Substitute, Transform

    x, d, i, j, mu, s2, eps = _ln_symbols()
    mean = sp.Sum(x[j], (j, 1, d)) / d
    s = sp.sqrt(s2 + eps)
    start = sp.Sum((x[i] - mean) / s, (i, 1, d)) / d
    split = sp.Sum(x[i], (i, 1, d)) / (d * s) + sp.Sum(-mean, (i, 1, d)) / (d * s)
    return Derivation(
        **metadata("norms.layernorm-mean"),
        start=start,
        steps=(
            Step(sp.Sum(x[i] - mean, (i, 1, d)) / (d * s), "1/√(σ² + ε) does not depend on i"),
            Step(split, "linearity: the sum of a difference is the difference of the sums",
                 rule=Transform(sp.expand, "split the sum")),
            Step(sp.Sum(x[i], (i, 1, d)) / (d * s) - sp.Sum(x[j], (j, 1, d)) / (d * s),
                 r"$\mu$ does not depend on i, so $\sum_i \mu = d_{\text{model}}\cdot \mu = \sum_j x_j$",
                 rule=Transform(_sum_of_constant, "sum of a term free of the index")),
            Step(sp.Integer(0), r"$\sum_j x_j$ and $\sum_i x_i$ are the same sum (j is a bound index)",
                 rule=Substitute(((sp.Sum(x[j], (j, 1, d)), sp.Sum(x[i], (i, 1, d))),), "rename the bound index j → i"),
                 citation=BA_2016),
        ),
        assumptions=(Assumption(r"x is one token, a real vector of any length $d_{\text{model}} \ge 1$; $\sigma^2 "
                                 r"\ge 0$, $\varepsilon > 0$"),),
        definitions=((mu, mean), (s2, sp.Sum((x[j] - mu) ** 2, (j, 1, d)) / d)),
        citations=(BA_2016,),
        auto_identity_check=False,  # fewer random points than the default: each one expands nested sums
        checks=(IdentityCheck(start, sp.Integer(0), name="mean of the normalised token at random points",
                              n_points=8),
                FunctionCheck(r"row means of the numpy $\mathtt{layer\_norm}$", _mean_check)),
        notes=("Only the centring matters here: any positive divisor, √(σ² + ε) included, keeps the mean at 0. "
               "After the affine part the mean of the output is the mean of β when γ is constant.",),
    )


def _conventions_check(seed: int) -> tuple[bool, dict, str]:
    """Biased vs unbiased variance and ε inside vs outside the root, on the lecture's token and random ones."""
    rng = np.random.default_rng(seed)
    x = np.array([1.0, 0.0, 2.0, 1.0])  # lecture 002, token 1
    d = x.size
    mu, var = x.mean(), x.var()
    figures: dict = {"x": x.tolist()}
    ok = True
    for eps in (0.0, 1e-5, 0.1):
        ours = layer_norm(x, eps=eps)
        inside = (x - mu) / np.sqrt(var + eps)
        unbiased = (x - mu) / np.sqrt(x.var(ddof=1) + eps)
        outside = (x - mu) / (np.sqrt(var) + eps)
        ok &= bool(np.allclose(ours, inside, rtol=0, atol=1e-15))
        figures[f"eps={eps}"] = {
            "biased, eps inside": np.round(inside, 6).tolist(),
            "max |unbiased - biased|": float(np.max(np.abs(unbiased - inside))),
            "max |eps outside - inside|": float(np.max(np.abs(outside - inside))),
        }
        if eps == 0:
            # with ε = 0 the unbiased output is the biased one times √((d−1)/d), exactly
            ok &= bool(np.allclose(unbiased, inside * np.sqrt((d - 1) / d), rtol=1e-15, atol=0))
            ok &= bool(np.allclose(outside, inside, rtol=1e-15, atol=0))
        else:
            ok &= bool(np.max(np.abs(unbiased - inside)) > 1e-3 and np.max(np.abs(outside - inside)) > 0)
    # the derived variance σ²/(σ² + ε) on random tokens
    tokens = rng.normal(0.5, 2.0, size=(64, 16))
    eps = 0.25
    out = layer_norm(tokens, eps=eps)
    claim = tokens.var(axis=-1) / (tokens.var(axis=-1) + eps)
    err = float(np.max(np.abs(out.var(axis=-1) - claim)))
    ok &= err < 1e-12
    figures["random tokens"] = {"n": 64, "d_model": 16, "eps": eps, "max |var - σ²/(σ²+ε)|": err}
    msg = (f"x = {x.tolist()}, ε = 1e-5: unbiased variance moves the output by "
           f"{figures['eps=1e-05']['max |unbiased - biased|']:.4f}, ε outside the root by "
           f"{figures['eps=1e-05']['max |eps outside - inside|']:.1e}; at ε = 0 unbiased = biased·√(3/4) exactly")
    return ok, figures, msg


@register(
    "norms.layernorm-variance",
    title="LayerNorm output has (biased) variance σ²/(σ² + ε)",
    summary=(r"$(1/d_{\text{model}})\cdot \sum_i ((x_i - \mu)/\sqrt{\sigma^2 + \varepsilon})^2 = \sigma^2/(\sigma^2 "
             r"+ \varepsilon)$: just below 1, and exactly 1 only as $\varepsilon \to 0$."),
)
def layernorm_variance() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, IdentityCheck
    from ..rules import Substitute

    x, d, i, j, mu, s2, eps = _ln_symbols()
    s = sp.sqrt(s2 + eps)
    start = sp.Sum(((x[i] - mu) / s) ** 2, (i, 1, d)) / d
    squares = sp.Sum((x[i] - mu) ** 2, (i, 1, d))
    # the claim with μ and σ² replaced by their definitions, for the random-point check
    s2_def = sp.Sum((x[j] - mu) ** 2, (j, 1, d)) / d
    mu_def = sp.Sum(x[j], (j, 1, d)) / d
    full = start.xreplace({s2: s2_def}).xreplace({mu: mu_def})
    return Derivation(
        **metadata("norms.layernorm-variance"),
        start=start,
        steps=(
            Step(squares / (d * (s2 + eps)), "the square of the constant 1/√(σ² + ε) comes out of the sum"),
            Step(s2 / (s2 + eps), (r"the biased variance is defined by $\sum_i (x_i - \mu)^2 = d_{\text{model}}\cdot "
                                   r"\sigma^2$"),
                 rule=Substitute(((squares, d * s2),), "definition of σ² (biased)"), citation=BA_2016),
        ),
        assumptions=(
            Assumption(r"x is one token of length $d_{\text{model}}$; $\mu$ is its mean, so the output has mean 0 "
                       "(norms.layernorm-mean) and its variance is the mean of its squares"),
            Assumption(r"conventions: biased variance (divide by $d_{\text{model}}$), $\varepsilon > 0$ inside the "
                        "square root"),
        ),
        definitions=((mu, mu_def), (s2, s2_def)),
        citations=(BA_2016,),
        checks=(
            IdentityCheck(full, (s2 / (s2 + eps)).xreplace({s2: s2_def}).xreplace({mu: mu_def}),
                          name="claim with μ and σ² expanded, at random points", n_points=5),
            FunctionCheck("conventions: biased vs unbiased variance, ε inside vs outside", _conventions_check),
        ),
        notes=(r"With the unbiased variance $s^2 = d_{\text{model}}\cdot \sigma^2/(d_{\text{model}} - 1)$ in the "
               r"denominator the output variance would be $\sigma^2/(s^2 + \varepsilon) \ne \sigma^2/(\sigma^2 + "
               r"\varepsilon)$: at $\varepsilon = 0$ it is $(d_{\text{model}} - 1)/d_{\text{model}}$, not 1.",),
    )


def _constant_check(seed: int) -> tuple[bool, dict, str]:
    x = np.array([2.0, 2.0, 2.0, 2.0])  # lecture 002, exercise
    beta = np.array([0.5, -1.0, 0.0, 3.0])
    gamma = np.array([2.0, 3.0, -1.0, 0.5])
    out = layer_norm(x, gamma, beta, eps=1e-5)
    ok = bool(np.array_equal(out, beta))
    try:
        layer_norm(x, eps=0.0)
        raised = ""
    except ValueError as exc:
        raised = str(exc)
    ok &= bool(raised)
    return ok, {"x": x.tolist(), "beta": beta.tolist(), "output eps=1e-5": out.tolist(), "eps=0": raised}, (
        f"LayerNorm({x.tolist()}) = β exactly with ε = 1e-5; with ε = 0 the helper raises: {raised!r}")


@register(
    "norms.layernorm-constant-input",
    title="A constant token is mapped to β (ε > 0)",
    summary=(r"$x_i = c$ for all i gives $\mu = c$, $\sigma^2 = 0$ and $\operatorname{LayerNorm}(x) = \gamma\cdot "
             r"0/\sqrt{\varepsilon} + \beta = \beta$; with $\varepsilon = 0$ it is 0/0."),
)
def layernorm_constant_input() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, IdentityCheck
    from ..rules import Evaluate
    from .notation import sym

    _, d, i, j, _, _, eps = _ln_symbols()
    c, g, b = sym("c"), sym("gamma"), sym("ln_beta")
    mean = sp.Sum(c, (j, 1, d)) / d
    var = sp.Sum((c - sp.Sum(c, (i, 1, d)) / d) ** 2, (j, 1, d)) / d
    start = g * (c - mean) / sp.sqrt(var + eps) + b
    return Derivation(
        **metadata("norms.layernorm-constant-input"),
        start=start,
        steps=(
            Step(sp.Add(sp.Mul(g, sp.Add(c, -c, evaluate=False),
                               sp.Pow(sp.sqrt(sp.Add(0, eps, evaluate=False)), -1, evaluate=False), evaluate=False),
                        b, evaluate=False),  # unevaluated: sympy would cancel c − c at once
                 (r"$\mu = (1/d_{\text{model}})\cdot \sum c = c$ and $\sigma^2 = (1/d_{\text{model}})\cdot \sum (c - "
                  "c)^2 = 0$"), rule=Evaluate("the sums")),
            Step(b, "0/√ε = 0 because ε > 0", citation=BA_2016),
        ),
        assumptions=(Assumption("every component of the token equals c; ε > 0 (with ε = 0 the quotient is 0/0, "
                                "which the numpy helper reports as an error)"),),
        citations=(BA_2016,),
        auto_identity_check=False,  # fewer random points than the default: each one expands nested sums
        checks=(IdentityCheck(start, b, name="claim at random points", n_points=8),
                FunctionCheck("LayerNorm of (2, 2, 2, 2): β with ε > 0, an error with ε = 0", _constant_check),),
    )


def _rms_check(seed: int) -> tuple[bool, dict, str]:
    rng = np.random.default_rng(seed)
    x = rng.normal(0.7, 1.5, size=(32, 8))
    z = x - x.mean(axis=-1, keepdims=True)  # zero-mean tokens
    gamma = rng.normal(size=8)
    same = float(np.max(np.abs(rms_norm(z, gamma, eps=1e-5) - layer_norm(z, gamma, eps=1e-5))))
    differ = float(np.min(np.max(np.abs(rms_norm(x, gamma, eps=1e-5) - layer_norm(x, gamma, eps=1e-5)), axis=-1)))
    ok = same < 1e-12 and differ > 1e-3
    return ok, {"tokens": 32, "d_model": 8, "max_gap_zero_mean": same, "min_gap_nonzero_mean": differ}, (
        f"zero-mean tokens: RMSNorm = LayerNorm(β = 0) (max gap {same:.1e}); raw tokens (mean ≈ 0.7) "
        f"differ by at least {differ:.3f} per token")


@register(
    "norms.rmsnorm-equals-layernorm",
    title="RMSNorm is LayerNorm without β on zero-mean tokens",
    summary=(r"With $\mu = 0$, $\gamma\cdot (x_i - \mu)/\sqrt{\sigma^2 + \varepsilon}$ becomes $\gamma\cdot "
             r"x_i/\sqrt{\operatorname{mean}(x^2) + \varepsilon}$, which is RMSNorm."),
)
def rmsnorm_equals_layernorm() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Substitute
    from .notation import sym

    x, d, i, j, mu, _, eps = _ln_symbols()
    g = sym("gamma")
    start = g * (x[i] - mu) / sp.sqrt(sp.Sum((x[j] - mu) ** 2, (j, 1, d)) / d + eps)
    return Derivation(
        **metadata("norms.rmsnorm-equals-layernorm"),
        start=start,
        steps=(
            Step(g * x[i] / sp.sqrt(sp.Sum(x[j] ** 2, (j, 1, d)) / d + eps),
                 "the token has mean μ = 0: centring does nothing and σ² is the mean square",
                 rule=Substitute(((mu, sp.Integer(0)),), "μ = 0 (premise)"), citation=ZHANG_2019),
        ),
        assumptions=(Assumption("the token has mean 0 (μ = 0); LayerNorm is taken with β = 0; same ε inside the "
                                "square root in both"),),
        definitions=((sp.Symbol("RMSNorm(x)_i"), g * x[i] / sp.sqrt(sp.Sum(x[j] ** 2, (j, 1, d)) / d + eps)),),
        citations=(ZHANG_2019, BA_2016),
        premises=(sp.Eq(mu, 0),),
        checks=(FunctionCheck("RMSNorm vs LayerNorm(β = 0) on zero-mean and on raw tokens", _rms_check),),
        notes=((r"RMSNorm has $d_{\text{model}}$ parameters $(\gamma)$ against LayerNorm's $2\cdot d_{\text{model}}$ "
                r"$(\gamma, \beta)$, and skips the mean."),),
    )


# ----------------------------------------------------------------------------
# Residual connection, Pre-LN and Post-LN
# ----------------------------------------------------------------------------


def _zero_init_check(seed: int) -> tuple[bool, dict, str]:
    from .ffn import ffn

    rng = np.random.default_rng(seed)
    n, d_model, d_ff = 2, 4, 16
    X = rng.normal(size=(n, d_model))
    w1, b1 = rng.normal(size=(d_model, d_ff)), rng.normal(size=d_ff)
    w2, b2 = np.zeros((d_ff, d_model)), np.zeros(d_model)  # zero-initialised last projection
    pre_ln = X + ffn(layer_norm(X), w1, b1, w2, b2)  # (n, d_model)
    w2_random = rng.normal(size=(d_ff, d_model))
    moved = float(np.max(np.abs(X + ffn(layer_norm(X), w1, b1, w2_random, b2) - X)))
    still = float(np.max(np.abs(pre_ln - X)))
    ok = still == 0.0 and moved > 1e-3
    return ok, {"tokens": n, "d_model": d_model, "d_ff": d_ff, "max_change_zero_init": still,
                "max_change_random_w2": moved}, (
        f"X + FFN(LN(X)) with W₂ = 0, b₂ = 0 returns X exactly; with a random W₂ it moves X by up to {moved:.2f}")


@register(
    "residual.zero-init",
    title="A residual block whose sublayer outputs 0 is the identity",
    summary=(r"$Y = X + G\cdot W_O + 1\cdot b_O^\top$ with $W_O = 0$ and $b_O = 0$ (zero-initialised last "
             "projection) gives Y = X."),
)
def residual_zero_init() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Substitute
    from .notation import sym

    n, d, d_in = sym("n"), sym("d_model"), sym("d_in")
    X, G = sp.MatrixSymbol("X", n, d), sp.MatrixSymbol("G", n, d_in)
    W, b = sp.MatrixSymbol("W_O", d_in, d), sp.MatrixSymbol("b_O", 1, d)
    ones = sp.OneMatrix(n, 1)
    zero_w, zero_b = sp.ZeroMatrix(d_in, d), sp.ZeroMatrix(1, d)
    return Derivation(
        **metadata("residual.zero-init"),
        start=sp.MatAdd(X, sp.MatMul(G, W), sp.MatMul(ones, b)),
        steps=(
            Step(sp.MatAdd(X, sp.MatMul(G, zero_w), sp.MatMul(ones, zero_b), evaluate=False),
                 "the sublayer's last projection is initialised to zero: $W_O = 0$, $b_O = 0$",
                 rule=Substitute(((W, zero_w), (b, zero_b)), "W_O = 0, b_O = 0"), citation=HE_2016),
            Step(X, "$G \\cdot 0 = 0$ and $\\mathbf{1} \\cdot 0 = 0$, so the sublayer adds nothing: $X + 0 = X$"),
        ),
        assumptions=(Assumption(r"X is n tokens $\times d_{\text{model}}$, for any n and $d_{\text{model}}$; G $(n "
                                r"\times d_{\text{in}})$ is whatever the sublayer computes before its final linear "
                                r"map $W_O$ $(d_{\text{in}} \times d_{\text{model}})$, $b_O$ its bias $(1 \times "
                                r"d_{\text{model}})$, 1 the column of n ones"),),
        citations=(HE_2016, VASWANI_31),
        premises=((W, zero_w), (b, zero_b)),
        checks=(FunctionCheck("Pre-LN FFN sublayer with zero last projection, in numpy", _zero_init_check),),
        notes=("A deep stack of such blocks starts as the identity map, which is why residual networks can be "
               "initialised this way and trained deeper.",),
    )


def _jacobian_check(seed: int) -> tuple[bool, dict, str]:
    rng = np.random.default_rng(seed)
    d = 5
    W, b = rng.normal(size=(d, d)), rng.normal(size=d)
    x = rng.normal(size=d)

    def block(v: np.ndarray) -> np.ndarray:
        return v + np.tanh(v @ W + b)  # (d,)

    h = 1e-6
    numeric = np.stack([(block(x + h * e) - block(x - h * e)) / (2 * h) for e in np.eye(d)], axis=1)  # (d, d)
    dF = (W * (1 - np.tanh(x @ W + b) ** 2)).T  # ∂F_a/∂x_c = W[c, a]·tanh'(u_a)
    err = float(np.max(np.abs(numeric - (np.eye(d) + dF))))
    ok = err < 1e-7
    return ok, {"d": d, "F": "tanh(xW + b)", "step": h, "max_abs_error": err}, (
        f"central differences of x + tanh(xW + b) match I + ∂F/∂x (d = {d}, max error {err:.1e})")


def _direction() -> tuple[Any, Any, Any, Any, Any, Any]:
    """(d_model, a, b, c, t, (x, v)): a point x, a direction v, the step t and component indices."""
    import sympy as sp

    from .notation import sym, vec

    a, b, c = (sp.Symbol(k, integer=True, positive=True) for k in "abc")
    return sym("d_model"), a, b, c, sp.Symbol("t", real=True), (vec("x"), vec("v"))


def _at_zero(expr: Any, t: Any) -> Any:
    """d/dt expr at t = 0."""
    import sympy as sp

    return sp.Subs(sp.Derivative(expr, t), t, 0)


@register(
    "residual.jacobian",
    title="The Jacobian of a residual block is I + ∂F/∂X",
    summary=r"For Y = X + F(X) of any width, the slope along every direction v is $(I + J_F)\cdot v$: the identity "
            "always reaches the gradient.",
)
def residual_jacobian() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate, Substitute

    d, a, b, _, t, (x, v) = _direction()
    J = sp.IndexedBase("J_F", real=True)
    phi = sp.Function("phi")(a, t)  # φ_a(t) = F_a(x + t·v)
    chain = (_at_zero(phi, t), sp.Sum(J[a, b] * v[b], (b, 1, d)))
    return Derivation(
        **metadata("residual.jacobian"),
        start=_at_zero(x[a] + t * v[a] + phi, t),
        steps=(
            Step(v[a] + chain[0], "differentiate term by term: $x_a$ is constant, $t v_a$ has slope $v_a$",
                 rule=Evaluate("the derivatives"), citation=HE_2016),
            Step(v[a] + chain[1], "chain rule: the slope of $F_a(x + t v)$ at $t = 0$ is $(J_F v)_a$",
                 rule=Substitute((chain,), "φ_a′(0) = Σ_b (J_F)_ab v_b")),
        ),
        assumptions=(Assumption(r"x and v are vectors of any width $d_{\text{model}}$, $1 \le a \le "
                                r"d_{\text{model}}$; Y(x) = x + F(x) with F any differentiable sublayer; moving x "
                                r"along v, component a of Y is $x_a + t\cdot v_a + \varphi_a(t)$ with $\varphi_a(t) "
                                r"= F_a(x + t\cdot v)$"),
                     Assumption(r"$J_F$ is the Jacobian of F at x, $(J_F)_{ab} = \partial F_a/\partial x_b$; the "
                                r"result $v_a + (J_F v)_a$ for every direction v is component a of $(I + J_F)\cdot "
                                r"v$, so $\partial Y/\partial x = I + J_F$")),
        definitions=(chain,),
        citations=(HE_2016,),
        auto_identity_check=False,  # undefined functions have no values; the finite differences check it
        checks=(FunctionCheck("finite differences of x + tanh(xW + b)", _jacobian_check),),
        notes=("Backpropagation multiplies by ∂Y/∂X; because of the I term the incoming gradient reaches X "
               "unchanged, and the sublayer's contribution is added to it rather than multiplied into it.",),
    )


def _pre_post_check(seed: int) -> tuple[bool, dict, str]:
    rng = np.random.default_rng(seed)
    n, d = 6, 8
    X = rng.normal(1.0, 3.0, size=(n, d))
    W, b = rng.normal(size=(d, d)) / np.sqrt(d), rng.normal(size=d)

    def F(v: np.ndarray) -> np.ndarray:
        return np.tanh(v @ W + b)  # (..., d)

    eps = 1e-5
    post = layer_norm(X + F(X), eps=eps)  # (n, d)
    pre = X + F(layer_norm(X, eps=eps))  # (n, d)
    post_mean, post_var = float(np.max(np.abs(post.mean(-1)))), post.var(-1)
    pre_mean = float(np.max(np.abs(pre.mean(-1))))
    # ∂(Pre-LN)/∂x − I equals the Jacobian of F∘LN (central differences on token 0)
    x0, h = X[0], 1e-6

    def jac(fn):
        return np.stack([(fn(x0 + h * e) - fn(x0 - h * e)) / (2 * h) for e in np.eye(d)], axis=1)

    gap = float(np.max(np.abs(jac(lambda v: v + F(layer_norm(v, eps=eps))) - np.eye(d)
                              - jac(lambda v: F(layer_norm(v, eps=eps))))))
    ok = post_mean < 1e-12 and bool(np.all(post_var < 1)) and pre_mean > 0.1 and gap < 1e-7
    return ok, {"tokens": n, "d_model": d, "post_ln_max_abs_mean": post_mean,
                "post_ln_var": np.round(post_var, 6).tolist(), "pre_ln_max_abs_mean": pre_mean,
                "pre_ln_identity_gap": gap}, (
        f"Post-LN rows: mean ≤ {post_mean:.1e}, variance < 1; Pre-LN rows keep the input's offset "
        f"(|mean| up to {pre_mean:.2f}); ∂(Pre-LN)/∂x − I = ∂F(LN(x))/∂x (gap {gap:.1e})")


@register(
    "norms.pre-ln-post-ln",
    title="Pre-LN keeps an identity path in the Jacobian; Post-LN sends everything through LN",
    summary=(r"Pre-LN X + F(LN(X)) has Jacobian $I + J_F\cdot J_{\text{LN}}$; Post-LN LN(X + F(X)) has "
             r"$J_{\text{LN}}\cdot (I + J_F)$."),
)
def pre_ln_post_ln() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate, Substitute

    d, a, b, c, t, (x, v) = _direction()
    JF, JLN = sp.IndexedBase("J_F", real=True), sp.IndexedBase("J_LN", real=True)  # Pre-LN: at LN(x), at x
    KLN, KF = sp.IndexedBase("K_LN", real=True), sp.IndexedBase("K_F", real=True)  # Post-LN: at x + F(x), at x
    psi = sp.Function("psi")(a, t)  # ψ_a(t) = F_a(LN(x + t·v))
    chi = sp.Function("chi")(a, t)  # χ_a(t) = LN_a(x + t·v + F(x + t·v))
    pre_chain = (_at_zero(psi, t), sp.Sum(JF[a, c] * sp.Sum(JLN[c, b] * v[b], (b, 1, d)), (c, 1, d)))
    post_chain = (_at_zero(chi, t), sp.Sum(KLN[a, c] * (v[c] + sp.Sum(KF[c, b] * v[b], (b, 1, d))), (c, 1, d)))
    start = sp.ImmutableMatrix([_at_zero(x[a] + t * v[a] + psi, t), _at_zero(chi, t)])
    return Derivation(
        **metadata("norms.pre-ln-post-ln"),
        start=start,
        steps=(
            Step(sp.ImmutableMatrix([v[a] + pre_chain[0], post_chain[0]]),
                 "differentiate term by term (top row Pre-LN, bottom row Post-LN)", rule=Evaluate("the derivatives")),
            Step(sp.ImmutableMatrix([v[a] + pre_chain[1], post_chain[1]]),
                 "chain rule through both maps: $(J_F J_{LN} v)_a$ for Pre-LN, $(K_{LN}(v + K_F v))_a$ for Post-LN",
                 rule=Substitute((pre_chain, post_chain), "chain rule"), citation=XIONG_2020),
        ),
        assumptions=(Assumption("Post-LN (the original Transformer): H = LN(X + F(X)); Pre-LN: H = X + F(LN(X)); LN "
                                "and the sublayer F are any differentiable maps of vectors of width "
                                r"$d_{\text{model}}$, $1 \le a \le d_{\text{model}}$, and x moves along any "
                                "direction v"),
                     Assumption(r"Pre-LN: $J_F$ is $\partial F/\partial u$ at u = LN(x) and $J_{\text{LN}}$ is "
                                r"$\partial \operatorname{LN}/\partial x$ at x, so the slope is $((I + J_F\cdot "
                                r"J_{\text{LN}})\cdot v)_a$; Post-LN: $K_{\text{LN}}$ is $\partial "
                                r"\operatorname{LN}/\partial u$ at u = x + F(x) and $K_F$ is $\partial F/\partial x$ "
                                r"at x, so the slope is $(K_{\text{LN}}\cdot (I + K_F)\cdot v)_a$")),
        definitions=(pre_chain, post_chain),
        citations=(XIONG_2020, VASWANI_31),
        auto_identity_check=False,  # undefined functions have no values; the numeric check below stands in
        checks=(FunctionCheck("Post-LN rows are normalised, Pre-LN rows are not; Pre-LN Jacobian = I + ∂F(LN)/∂x",
                              _pre_post_check),),
        notes=("In Pre-LN the identity I is added outside every LayerNorm, so across L blocks the gradient keeps a "
               "path that no normalisation rescales; in Post-LN every path, the residual one included, is "
               "multiplied by a LayerNorm Jacobian in each block. Xiong et al. 2020 show that at initialisation this "
               "placement gives Post-LN large gradients near the output, hence its need for a learning-rate "
               "warm-up, which Pre-LN does without.",
               "Post-LN's output is normalised (mean 0 before β); Pre-LN's output H is not, which is why Pre-LN "
               "models add a final LayerNorm after the last block."),
    )
