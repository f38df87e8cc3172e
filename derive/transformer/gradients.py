"""Gradients: softmax with cross-entropy, the Jacobians of LayerNorm and RMSNorm, attention's backward pass.

Every derivation here is a chain-rule computation written with index sums of
symbolic length (n classes or tokens, d_model components, d_k or d_v
columns): derivatives of indexed elements give Kronecker deltas
(∂x_m/∂x_j = δ_jm) and the kernel's :class:`~derive.sums.SiftDelta` removes
them. Upstream gradients (∂L/∂O for attention, g = ∂L/∂x̂ for a norm) are
indexed symbols: the results hold for any loss L.

Conventions as in :mod:`derive.transformer.norms`: biased variance, ε inside
the square root, no γ or β (they multiply and shift after the Jacobian).

Sources: Goodfellow et al. 2016, §6.2.2.3 (softmax units and cross-entropy);
Zhang et al. 2023 (D2L), §4.1.2 (the gradient p − y); Ba et al. 2016, §3
(LayerNorm); Zhang & Sennrich 2019, §3–4 (RMSNorm and its invariances);
Dao et al. 2022, Appendix B.2 (the backward pass of attention: dV = PᵀdO,
dP = dO Vᵀ, dS = P ∘ (dP − rowsum(dO ∘ O)), dQ = dS K, dK = dSᵀQ; the scale
1/√d_k from Vaswani et al. 2017, §3.2.1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

GOODFELLOW_CE = Citation("goodfellow2016", "§6.2.2.3")
D2L_CE = Citation("zhang2023d2l", "§4.1.2")
BA_2016 = Citation("ba2016", "§3")
ZHANG_2019 = Citation("zhang2019", "§3–4")
DAO_B2 = Citation("dao2022", "Appendix B.2")
VASWANI_321 = Citation("vaswani2017", "§3.2.1")

#: The worked example of the cross-entropy gradient: scores z and the one-hot target y = e_1.
CE_Z = (2, 0, 1)
CE_PRINTED = ("-0.3348", "0.0900", "0.2447")
#: The worked example of the LayerNorm Jacobian (ε = 0): x = (1, 2, 3).
LN_X = (1, 2, 3)


# ----------------------------------------------------------------------------
# numpy helpers
# ----------------------------------------------------------------------------


def cross_entropy_grad(z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """∂L/∂z of L = −Σ_k y_k log softmax(z)_k, as p·Σ_k y_k − y (p − y when y sums to 1).

    Args:
        z: scores, shape ``(..., n)``.
        y: targets of the same shape (one-hot, or any weights).

    Returns:
        The gradient, shape ``(..., n)``.

    Raises:
        ValueError: the shapes differ or the last axis is empty.

    Source: Goodfellow et al. 2016, §6.2.2.3; Zhang et al. 2023, §4.1.2.
    """
    from .softmax_numeric import softmax

    z, y = np.asarray(z, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if z.shape != y.shape or z.ndim == 0 or z.shape[-1] == 0:
        raise ValueError(f"z and y must have the same shape (..., n) with n >= 1, got {z.shape} and {y.shape}")
    return softmax(z) * y.sum(axis=-1, keepdims=True) - y


def layer_norm_jacobian(x: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """∂x̂_i/∂x_j of x̂ = (x − μ)/√(σ² + ε) (no γ, β): (δ_ij − 1/d − x̂_i x̂_j/d)/√(σ² + ε).

    Args:
        x: one token, shape ``(d_model,)``.
        eps: ε ≥ 0 inside the square root.

    Returns:
        The Jacobian, shape ``(d_model, d_model)``; row i is the gradient of x̂_i.

    Raises:
        ValueError: as :func:`derive.transformer.norms.layer_norm`.

    Source: derived in ``gradients.layernorm-jacobian`` (Ba et al. 2016, §3 for LayerNorm).
    """
    from .norms import layer_norm

    x = np.asarray(x, dtype=np.float64)
    xhat = layer_norm(x, eps=eps)  # (d,)
    d = x.shape[-1]
    s = np.sqrt(x.var() + eps)
    return (np.eye(d) - 1.0 / d - np.outer(xhat, xhat) / d) / s


def rms_norm_jacobian(x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """∂x̂_i/∂x_j of x̂ = x/√(mean(x²) + ε) (no γ): (δ_ij − x̂_i x̂_j/d)/√(mean(x²) + ε).

    Args:
        x: one token, shape ``(d_model,)``.
        eps: ε ≥ 0 inside the square root.

    Returns:
        The Jacobian, shape ``(d_model, d_model)``.

    Raises:
        ValueError: as :func:`derive.transformer.norms.rms_norm`.

    Source: derived in ``gradients.rmsnorm-jacobian`` (Zhang & Sennrich 2019, §4 for RMSNorm).
    """
    from .norms import rms_norm

    x = np.asarray(x, dtype=np.float64)
    xhat = rms_norm(x, eps=eps)  # (d,)
    d = x.shape[-1]
    return (np.eye(d) - np.outer(xhat, xhat) / d) / np.sqrt((x**2).mean() + eps)


def attention_backward(Q: np.ndarray, K: np.ndarray, V: np.ndarray,
                       dO: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The gradients (dQ, dK, dV) of O = softmax(QKᵀ/√d_k)·V for an upstream gradient dO = ∂L/∂O.

    Args:
        Q: queries, shape ``(n, d_k)``.
        K: keys, shape ``(n, d_k)``.
        V: values, shape ``(n, d_v)``.
        dO: ∂L/∂O, shape ``(n, d_v)``.

    Returns:
        ``(dQ, dK, dV)`` of shapes ``(n, d_k)``, ``(n, d_k)``, ``(n, d_v)``.

    Raises:
        ValueError: the shapes do not fit together.

    Source: Dao et al. 2022, Appendix B.2 (with the scale 1/√d_k of Vaswani et al. 2017, §3.2.1).
    """
    from .softmax_numeric import softmax

    Q, K, V, dO = (np.asarray(a, dtype=np.float64) for a in (Q, K, V, dO))
    if not (Q.ndim == K.ndim == V.ndim == dO.ndim == 2 and Q.shape == K.shape and V.shape[0] == K.shape[0]
            and dO.shape == (Q.shape[0], V.shape[1])):
        raise ValueError(f"expected Q, K (n, d_k), V (n, d_v), dO (n, d_v); got {Q.shape}, {K.shape}, {V.shape}, "
                         f"{dO.shape}")
    scale = 1.0 / np.sqrt(Q.shape[1])
    A = softmax(Q @ K.T * scale)  # (n, n)
    dV = A.T @ dO  # (n, d_v)
    dA = dO @ V.T  # (n, n)
    dS = A * (dA - (A * dA).sum(axis=-1, keepdims=True))  # (n, n)
    return dS @ K * scale, dS.T @ Q * scale, dV


def _central(fn, x: np.ndarray, h: float = 1e-6) -> np.ndarray:  # noqa: ANN001
    """Central differences: column j is (fn(x + h e_j) − fn(x − h e_j))/(2h)."""
    cols = [(fn(x + h * e) - fn(x - h * e)) / (2 * h) for e in np.eye(x.size)]
    return np.stack(cols, axis=-1)


# ----------------------------------------------------------------------------
# softmax + cross-entropy
# ----------------------------------------------------------------------------


def _ce_check(seed: int) -> tuple[bool, dict, str]:
    from .softmax_numeric import log_softmax

    rng = np.random.default_rng(seed)
    worst, worst_soft = 0.0, 0.0
    for _ in range(40):
        n = int(rng.integers(2, 10))
        z = rng.normal(scale=2.0, size=n)
        y = np.eye(n)[rng.integers(n)]
        soft = rng.dirichlet(np.ones(n))  # any probability vector

        def loss(v: np.ndarray, t: np.ndarray) -> float:
            return float(-(t * log_softmax(v)).sum())

        for target, key in ((y, "hard"), (soft, "soft")):
            fd = np.array([(loss(z + 1e-6 * e, target) - loss(z - 1e-6 * e, target)) / 2e-6 for e in np.eye(n)])
            err = float(np.max(np.abs(fd - cross_entropy_grad(z, target))))
            worst, worst_soft = (max(worst, err), worst_soft) if key == "hard" else (worst, max(worst_soft, err))
    ok = worst < 1e-8 and worst_soft < 1e-8
    return ok, {"vectors": 40, "max_abs_error_one_hot": worst, "max_abs_error_soft": worst_soft}, (
        f"p − y matches central differences of −Σ y log softmax(z) within {max(worst, worst_soft):.1e} "
        "(40 random z, n ≤ 9, one-hot and Dirichlet targets)")


@register(
    "gradients.softmax-cross-entropy",
    title=r"Softmax with cross-entropy: $\partial L/\partial z_j = p_j - y_j$",
    summary=r"For $L = -\sum_k y_k \log \operatorname{softmax}(z)_k$ and targets with $\sum_k y_k = 1$ (one-hot or "
            r"any probability vector), $\partial L/\partial z_j = p_j - y_j$, for symbolic n.",
)
def softmax_cross_entropy() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Substitute, Transform
    from ..sums import SiftDelta
    from .notation import sym, vec
    from .softmax import Differentiate, _expand_log_positive

    n, j, k, ell = sym("n"), sym("j"), sym("k_class"), sym("l")
    z, y, p = vec("z"), vec("y"), vec("p")
    S = sp.Sum(sp.exp(z[ell]), (ell, 1, n))
    Y = sp.Sum(y[k], (k, 1, n))
    loss = -sp.Sum(y[k] * sp.log(sp.exp(z[k]) / S), (k, 1, n))
    zy = sp.Sum(y[k] * z[k], (k, 1, n))
    return Derivation(
        **metadata("gradients.softmax-cross-entropy"),
        start=sp.Derivative(loss, z[j]),
        premises=(sp.Eq(Y, 1), sp.Le(j, n)),
        steps=(
            Step(sp.Derivative(-sp.Sum(y[k] * (z[k] - sp.log(S)), (k, 1, n)), z[j]),
                 "log-softmax: $\\log \\frac{e^{z_k}}{\\sum_l e^{z_l}} = z_k - \\log \\sum_l e^{z_l}$ "
                 "(softmax.log-softmax)",
                 rule=Transform(_expand_log_positive, "log(a/b) = log a − log b for a, b > 0")),
            Step(sp.Derivative(-zy + Y * sp.log(S), z[j]),
                 "split the sum; $\\log \\sum_l e^{z_l}$ does not depend on $k$"),
            Step(sp.Derivative(-zy + sp.log(S), z[j]), "the targets sum to one: $\\sum_k y_k = 1$",
                 rule=Substitute(((Y, sp.Integer(1)),), "Σ_k y_k = 1 (premise)")),
            Step(-sp.Sum(y[k] * sp.KroneckerDelta(j, k), (k, 1, n))
                 + sp.Sum(sp.exp(z[ell]) * sp.KroneckerDelta(j, ell), (ell, 1, n)) / S,
                 "differentiate: $\\partial z_k/\\partial z_j = \\delta_{jk}$ and "
                 "$\\partial \\log u = \\partial u / u$", rule=Differentiate()),
            Step(-y[j] + sp.exp(z[j]) / S, "only the terms $k = j$ and $l = j$ survive ($1 \\le j \\le n$)",
                 rule=SiftDelta(j), citation=GOODFELLOW_CE),
            Step(p[j] - y[j], "$p_j = \\operatorname{softmax}(z)_j$",
                 rule=Substitute(((sp.exp(z[j]) / S, p[j]),), "definition of p"), citation=D2L_CE),
        ),
        assumptions=(Assumption(r"$z \in \mathbb{R}^n$ are the scores (logits) for n classes, n symbolic; y are the "
                                r"targets with $\sum_k y_k = 1$: a one-hot vector, a label-smoothed one, or any "
                                "probability vector; 1 ≤ j ≤ n"),),
        definitions=((p[j], sp.exp(z[j]) / S), (sp.Symbol("L"), loss)),
        citations=(GOODFELLOW_CE, D2L_CE),
        auto_identity_check=False,  # the Derivative of a symbolic-length sum has no numeric value
        checks=(FunctionCheck("p − y against central differences of the loss", _ce_check),),
        notes=(r"Without the premise $\sum_k y_k = 1$ the same steps give $p_j\cdot \sum_k y_k - y_j$. The gradient "
               r"sums to zero over j $(\sum p = \sum y = 1)$, and its size is bounded by 2: a confident wrong "
               r"prediction gives a gradient near $e_{\text{wrong}} - e_{\text{right}}$, not an exploding one.",),
    )


def _ce_example_values() -> tuple[Any, Any]:
    import sympy as sp

    e = sp.E
    den = e**2 + e + 1
    return den, sp.ImmutableMatrix([[-(e + 1) / den, 1 / den, e / den]])


@register(
    "gradients.example-cross-entropy",
    title="Cross-entropy gradient for z = (2, 0, 1), y = e₁ (n = 3)",
    summary="p − y = (−(1 + e)/(1 + e + e²), 1/(1 + e + e²), e/(1 + e + e²)) ≈ (−0.3348, 0.0900, 0.2447).",
)
def example_cross_entropy() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from ..rules import Substitute
    from .notation import sym, vec

    n, k, ell = 3, sym("k_class"), sym("l")
    z = vec("z")
    S = sp.Sum(sp.exp(z[ell]), (ell, 1, n))
    m = sp.Symbol("m", integer=True)
    onehot = sp.Lambda(m, sp.KroneckerDelta(m, 1))  # y = e₁ as a family: y_k = δ_k1
    soft = sp.Lambda(m, sp.exp(z[m]) / S)  # p_k = softmax(z)_k
    loss = -sp.Sum(sp.KroneckerDelta(k, 1) * sp.log(sp.exp(z[k]) / S), (k, 1, n))
    start = sp.ImmutableMatrix([[sp.Derivative(loss, z[c]) for c in (1, 2, 3)]])

    def grad(upto: int, den: Any) -> Any:  # entries 1..upto by the law (p_j − y_j), the others as defined
        return sp.ImmutableMatrix([[sp.exp(z[c]) / den - sp.KroneckerDelta(c, 1) if c <= upto else start[0, c - 1]
                                     for c in (1, 2, 3)]])
    written = sp.Add(*[sp.exp(z[c]) for c in (1, 2, 3)])
    values = {z[c]: sp.Integer(v) for c, v in enumerate(CE_Z, 1)}
    den, exact = _ce_example_values()
    at_point = grad(3, written).xreplace(values)

    def float_check(seed: int) -> tuple[bool, dict, str]:
        got = cross_entropy_grad(np.array(CE_Z, dtype=float), np.array([1.0, 0.0, 0.0]))
        err = float(np.max(np.abs(got - np.array([float(v) for v in exact]))))
        return err < 1e-15 and abs(float(got.sum())) < 1e-15, {"float64": got.tolist(), "max_abs_error": err}, (
            f"float64 p − y = {np.round(got, 4).tolist()}, max |float − exact| = {err:.1e}, sum {got.sum():.1e}")

    return Derivation(
        **metadata("gradients.example-cross-entropy"),
        instance="n = 3, z = (2, 0, 1), y = e₁",
        start=start,
        premises=tuple(sp.Eq(e, v) for e, v in values.items()),
        steps=(
            *(Step(grad(c, S), f"entry {c}: $\\partial L/\\partial z_{c} = p_{c} - y_{c}$ "
                               f"(gradients.softmax-cross-entropy at $n = 3$, $j = {c}$, $y = e_1$)",
                   by="gradients.softmax-cross-entropy",
                   where={"n": sp.Integer(n), "j": sp.Integer(c), "y": onehot, "p": soft}, citation=D2L_CE)
              for c in (1, 2, 3)),
            Step(grad(3, written), "write out the sum over the three classes"),
            Step(at_point, "at $z = (2, 0, 1)$", rule=Substitute(tuple(values.items()), "z = (2, 0, 1)")),
            Step(exact, "common denominator $1 + e + e^2$", citation=D2L_CE),
        ),
        assumptions=(Assumption("n = 3 classes, scores z = (2, 0, 1), target y = e₁ = (1, 0, 0)"),),
        citations=(D2L_CE,),
        checks=(FunctionCheck(r"float64 $\mathtt{cross\_entropy\_grad}$ at z = (2, 0, 1)", float_check),
                *(ValueCheck(f"$(p - y)_{c + 1}$", exact[c], CE_PRINTED[c], "this chapter") for c in range(3)),
                ValueCheck("sum of the gradient", sum(exact), "0", r"$\sum p = \sum y = 1$")),
        notes=("The target class gets a negative gradient (gradient descent raises z₁), the others positive ones "
               "in proportion to their probabilities; the three entries add to 0.",),
    )


# ----------------------------------------------------------------------------
# LayerNorm and RMSNorm Jacobians
# ----------------------------------------------------------------------------


def _norm_symbols() -> tuple:
    from .notation import sym, vec

    return (vec("x"), sym("d_model"), sym("i"), sym("j"), sym("l"), sym("b_row"), sym("eps"), sym("mu"),
            sym("sigma2"), sym("s_len"))


def _jacobian_fd_check(kind: str):  # noqa: ANN202
    def run(seed: int) -> tuple[bool, dict, str]:
        from .norms import layer_norm, rms_norm

        rng = np.random.default_rng(seed)
        worst = 0.0
        for _ in range(20):
            d = int(rng.integers(2, 12))
            x = rng.normal(0.5, 2.0, size=d)
            eps = float(rng.choice([0.0, 1e-5, 0.3]))
            norm = layer_norm if kind == "layernorm" else rms_norm

            def fn(v: np.ndarray, e: float = eps, f=norm) -> np.ndarray:  # noqa: ANN001
                return f(v, eps=e)

            closed = layer_norm_jacobian(x, eps) if kind == "layernorm" else rms_norm_jacobian(x, eps)
            worst = max(worst, float(np.max(np.abs(_central(fn, x) - closed))))
        return worst < 1e-7, {"tokens": 20, "max_abs_error": worst}, (
            rf"closed-form {kind} Jacobian matches central differences within {worst:.1e} (20 random tokens, "
            rf"$d_{{\text{{model}}}} \le 11$, $\varepsilon$ ∈ {{0, 1e-5, 0.3}})")

    return run


@register(
    "gradients.layernorm-jacobian",
    title=(r"The Jacobian of LayerNorm: $\partial \hat{x}_i/\partial x_j = (\delta_{ij} - 1/d - \hat{x}_i "
           r"\hat{x}_j/d)/\sqrt{\sigma^2 + \varepsilon}$"),
    summary=(r"For $\hat{x} = (x - \mu)/\sqrt{\sigma^2 + \varepsilon}$ (no $\gamma$, $\beta$, biased $\sigma^2$, "
             r"$\varepsilon$ inside the root), derived for symbolic $d_{\text{model}}$."),
)
def layernorm_jacobian() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Substitute
    from ..sums import SiftDelta
    from .softmax import Differentiate

    x, d, i, j, ell, b, _, mu, s2, s = _norm_symbols()
    eps = sp.Symbol("eps", nonnegative=True)  # ε = 0 allowed, as long as σ² + ε > 0 (a premise)
    D = sp.KroneckerDelta
    M = sp.Sum(x[b], (b, 1, d)) / d
    V = sp.Sum((x[ell] - M) ** 2, (ell, 1, d)) / d
    root = sp.sqrt(V + eps)
    dmean = sp.Sum(D(j, b), (b, 1, d)) / d
    xh_i, xh_j = sp.Symbol("xhat_i", real=True), sp.Symbol("xhat_j", real=True)
    centred = sp.Sum(x[ell] - M, (ell, 1, d))
    step6 = (D(i, j) - 1 / d) / root - (x[i] - M) * (x[j] - M) / (d * root**3)
    step7 = (D(i, j) - 1 / d) / sp.sqrt(s2 + eps) - (x[i] - mu) * (x[j] - mu) / (d * (s2 + eps) ** sp.Rational(3, 2))
    return Derivation(
        **metadata("gradients.layernorm-jacobian"),
        start=sp.Derivative((x[i] - M) / root, x[j]),
        premises=(sp.Le(j, d), sp.Eq(centred, 0), sp.Gt(V + eps, 0)),
        steps=(
            Step(sp.Derivative(x[i] - M, x[j]) / root - (x[i] - M) * sp.Derivative(V, x[j]) / (2 * root**3),
                 "quotient rule, and $\\partial \\sqrt{u} = \\partial u / (2\\sqrt{u})$ for the denominator"),
            Step((D(i, j) - dmean) / root
                 - (x[i] - M) * sp.Sum((2 * D(j, ell) - 2 * dmean) * (x[ell] - M), (ell, 1, d)) / (2 * d * root**3),
                 "differentiate the sums term by term: $\\partial x_b / \\partial x_j = \\delta_{jb}$",
                 rule=Differentiate()),
            Step((D(i, j) - 1 / d) / root
                 - (x[i] - M) * sp.Sum((2 * D(j, ell) - 2 / d) * (x[ell] - M), (ell, 1, d)) / (2 * d * root**3),
                 "$\\sum_b \\delta_{jb} = 1$: so $\\partial \\mu / \\partial x_j = 1/d_{\\text{model}}$",
                 rule=SiftDelta(j)),
            Step((D(i, j) - 1 / d) / root
                 - (x[i] - M) * (sp.Sum((x[ell] - M) * D(j, ell), (ell, 1, d))
                                 - sp.Sum(x[ell] - M, (ell, 1, d)) / d) / (d * root**3),
                 "split the sum over $l$"),
            Step((D(i, j) - 1 / d) / root
                 - (x[i] - M) * (x[j] - M - sp.Sum(x[ell] - M, (ell, 1, d)) / d) / (d * root**3),
                 "only the term $l = j$ of the first sum survives", rule=SiftDelta(j)),
            Step(step6, "the centred components sum to zero: $\\sum_l (x_l - \\mu) = 0$ (norms.layernorm-mean); "
                        "so $\\partial \\sigma^2/\\partial x_j = 2(x_j - \\mu)/d_{\\text{model}}$",
                 rule=Substitute(((centred, sp.Integer(0)),), "Σ_l (x_l − μ) = 0")),
            Step(step7, "write $\\mu$ and $\\sigma^2$ for their sums",
                 rule=Substitute(((V * d, d * s2), (sp.Sum(x[b], (b, 1, d)), d * mu)), "definitions of μ and σ²")),
            Step((D(i, j) - 1 / d) / s - (x[i] - mu) * (x[j] - mu) / (d * s**3),
                 "$s = \\sqrt{\\sigma^2 + \\varepsilon}$", rule=Substitute(((s2 + eps, s**2),), "definition of s")),
            Step((D(i, j) - 1 / d) / s - xh_i * xh_j / (d * s),
                 "$x_i - \\mu = s\\,\\hat{x}_i$ and $x_j - \\mu = s\\,\\hat{x}_j$",
                 rule=Substitute(((x[i] - mu, s * xh_i), (x[j] - mu, s * xh_j)), "definition of x̂")),
            Step((D(i, j) - 1 / d - xh_i * xh_j / d) / s, "collect over the common factor $1/s$", citation=BA_2016),
        ),
        assumptions=(Assumption(r"x is one token of any length $d_{\text{model}} \ge 1$; 1 ≤ i, $j \le "
                                r"d_{\text{model}}$; biased variance $\sigma^2$, $\varepsilon \ge 0$ inside the square "
                                r"root with $\sigma^2 + \varepsilon > 0$ ($\varepsilon = 0$ allowed for a token that "
                                r"is not constant); no $\gamma$, $\beta$"),),
        definitions=((mu, M), (s2, sp.Sum((x[ell] - mu) ** 2, (ell, 1, d)) / d), (s, sp.sqrt(s2 + eps)),
                     (xh_i, (x[i] - mu) / s), (xh_j, (x[j] - mu) / s)),
        citations=(BA_2016,),
        auto_identity_check=False,  # the Derivative of a symbolic-length sum has no numeric value
        checks=(FunctionCheck(r"closed form against central differences of $\mathtt{norms.layer\_norm}$",
                              _jacobian_fd_check("layernorm")),),
        notes=(r"As a matrix: $J = (I - 11^\top /d - \hat{x}\hat{x}^\top /d)/s$, symmetric. With $\gamma$ the output "
               r"$\gamma \odot \hat{x} + \beta$ has Jacobian $\operatorname{diag}(\gamma)\cdot J$. J·1 = 0 (a "
               r"constant shift of x changes nothing) and $J\cdot \hat{x} = (\varepsilon/(\sigma^2 + "
               r"\varepsilon))\cdot \hat{x}/s$, which vanishes for $\varepsilon = 0$ (scaling $x - \mu$ changes "
               "nothing).",),
    )


def _vjp_steps(kind: str) -> tuple[Any, tuple[Step, ...], tuple]:
    """Σ_i g_i J_ij for the LayerNorm (kind 'layernorm') or RMSNorm ('rmsnorm') Jacobian."""
    import sympy as sp

    from ..sums import SiftDelta
    from .notation import vec

    _, d, i, j, _, _, _, _, _, s = _norm_symbols()
    g, xh = vec("g"), vec("xhat")
    D = sp.KroneckerDelta
    mean_g = sp.Sum(g[i], (i, 1, d)) / d
    gx = sp.Sum(g[i] * xh[i], (i, 1, d))
    centre = 1 / d if kind == "layernorm" else 0
    start = sp.Sum(g[i] * (D(i, j) - centre - xh[i] * xh[j] / d) / s, (i, 1, d))
    split = (sp.Sum(g[i] * D(i, j), (i, 1, d)) - (mean_g if kind == "layernorm" else 0) - xh[j] * gx / d) / s
    end = (g[j] - (mean_g if kind == "layernorm" else 0) - xh[j] * gx / d) / s
    steps = (
        Step(split, "split the sum over $i$; $1/s$ and $\\hat{x}_j$ do not depend on $i$"),
        Step(end, "only the term $i = j$ of the first sum survives ($1 \\le j \\le d_{\\text{model}}$)",
             rule=SiftDelta(j)),
    )
    return start, steps, (g, xh, gx, mean_g)


def _vjp_check(kind: str):  # noqa: ANN202
    def run(seed: int) -> tuple[bool, dict, str]:
        from .norms import layer_norm, rms_norm

        rng = np.random.default_rng(seed)
        worst, worst_ones, worst_x = 0.0, 0.0, 0.0
        for _ in range(20):
            d = int(rng.integers(2, 16))
            x, g = rng.normal(0.3, 1.5, size=d), rng.normal(size=d)
            eps = 0.0
            J = layer_norm_jacobian(x, eps) if kind == "layernorm" else rms_norm_jacobian(x, eps)
            xh = layer_norm(x, eps=eps) if kind == "layernorm" else rms_norm(x, eps=eps)
            s = np.sqrt(x.var()) if kind == "layernorm" else np.sqrt((x**2).mean())
            closed = (g - (g.mean() if kind == "layernorm" else 0.0) - xh * (g @ xh) / d) / s
            v = g @ J  # (d,)
            worst = max(worst, float(np.max(np.abs(v - closed))))
            worst_ones, worst_x = max(worst_ones, abs(float(v.sum()))), max(worst_x, abs(float(v @ xh)))
        ok = worst < 1e-12 and worst_x < 1e-11 and (kind == "rmsnorm" or worst_ones < 1e-11)
        return ok, {"tokens": 20, "eps": 0.0, "max_abs_error": worst, "max_abs_sum": worst_ones,
                    "max_abs_dot_xhat": worst_x}, (
            rf"$g^\top J$ matches the closed form within {worst:.1e}; at $\varepsilon = 0 |\sum_j v_j| \le "
            rf"{worst_ones:.1e}$, |v·x̂| ≤ {worst_x:.1e} (20 random tokens)")

    return run


@register(
    "gradients.layernorm-vjp",
    title=(r"LayerNorm's backward pass: $(g^\top J)_j = (g_j - \operatorname{mean}(g) - \hat{x}_j\cdot (g\cdot "
           r"\hat{x})/d)/s$"),
    summary=(r"The gradient reaching x from an upstream gradient $g = \partial L/\partial \hat{x}$, for symbolic "
             r"$d_{\text{model}}$."),
)
def layernorm_vjp() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck

    _, d, _, j, _, _, eps, mu, s2, s = _norm_symbols()
    start, steps, (g, xh, _, _) = _vjp_steps("layernorm")
    return Derivation(
        **metadata("gradients.layernorm-vjp"),
        start=start,
        premises=(sp.Le(j, d),),
        steps=(*steps[:-1], Step(steps[-1].expr, steps[-1].justification, rule=steps[-1].rule, citation=BA_2016)),
        assumptions=(Assumption(r"$g_i = \partial L/\partial \hat{x}_i$ is the upstream gradient of any loss L; the "
                                r"Jacobian is gradients.layernorm-jacobian; $s = \sqrt{\sigma^2 + \varepsilon}$ (the "
                                r"algebra holds for any $s > 0$); $1 \le j \le d_{\text{model}}$"),),
        citations=(BA_2016,),
        auto_identity_check=False,  # replaced by the finite check below (x̂ and g as free vectors are too loose)
        checks=(FunctionCheck(r"$g^\top J$ of the numpy Jacobian against the closed form", _vjp_check("layernorm")),),
        notes=("Backward through LayerNorm: centre the upstream gradient, remove its component along x̂, divide by "
               r"s. This is what frameworks compute without forming the $d_{\text{model}} \times d_{\text{model}}$ "
               "Jacobian.",),
    )


def _orth_premises(kind: str, eps_zero: bool) -> tuple:
    """Σ_j x̂_j = 0 (LayerNorm) and Σ_j x̂_j² = d·σ²/(σ² + ε) (or d at ε = 0), as premises."""
    import sympy as sp

    from .notation import sym, vec

    _, d, _, j, _, _, eps, _, s2, _ = _norm_symbols()
    xh = vec("xhat")
    var = s2 if kind == "layernorm" else sym("rms2")
    sq = d if eps_zero else d * var / (var + eps)
    out = (sp.Eq(sp.Sum(xh[j] ** 2, (j, 1, d)), sq),)
    if kind == "layernorm":
        out = (sp.Eq(sp.Sum(xh[j], (j, 1, d)), 0), *out)
    return out


@register(
    "gradients.layernorm-grad-orthogonal-ones",
    title=r"LayerNorm's input gradient is orthogonal to 1: $\sum_j (g^\top J)_j = 0$",
    summary="Adding a constant to every component of x changes nothing, so the gradient has no component along 1; "
            r"derived for symbolic $d_{\text{model}}$ and any $\varepsilon > 0$.",
)
def layernorm_grad_orthogonal_ones() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Evaluate, Substitute

    _, d, i, j, _, _, _, _, _, s = _norm_symbols()
    vjp, steps, (g, xh, gx, mean_g) = _vjp_steps("layernorm")
    v = steps[-1].expr
    zero_mean, _ = _orth_premises("layernorm", False)
    sum_xh = sp.Sum(xh[j], (j, 1, d))
    return Derivation(
        **metadata("gradients.layernorm-grad-orthogonal-ones"),
        start=sp.Sum(vjp, (j, 1, d)),
        premises=(zero_mean,),
        steps=(
            Step(sp.Sum(v, (j, 1, d)), "each component of $g^\\top J$ in closed form (gradients.layernorm-vjp)",
                 by="gradients.layernorm-vjp"),
            Step((sp.Sum(g[j], (j, 1, d)) - sp.Sum(mean_g, (j, 1, d)) - gx * sum_xh / d) / s,
                 "split the sum over $j$; $1/s$ and $\\sum_i g_i \\hat{x}_i$ do not depend on $j$"),
            Step((sp.Sum(g[j], (j, 1, d)) - sp.Sum(g[i], (i, 1, d)) - gx * sum_xh / d) / s,
                 "$d_{\\text{model}}$ equal terms: $\\sum_j \\frac{1}{d}\\sum_i g_i = \\sum_i g_i$",
                 rule=Evaluate("the sum of a constant")),
            Step((sp.Sum(g[j], (j, 1, d)) - sp.Sum(g[i], (i, 1, d))) / s,
                 "$\\hat{x}$ has mean zero: $\\sum_j \\hat{x}_j = 0$ (norms.layernorm-mean)",
                 rule=Substitute(((sum_xh, sp.Integer(0)),), "Σ_j x̂_j = 0 (premise)")),
            Step(sp.Integer(0), "the two sums are the same ($j$ and $i$ are bound indices)", citation=BA_2016),
        ),
        assumptions=(Assumption(r"$v_j = (g_j - \operatorname{mean}(g) - \hat{x}_j\cdot (g\cdot \hat{x})/d)/s$ is "
                                "the input gradient (gradients.layernorm-vjp); x̂ has mean 0 (norms.layernorm-mean)"),),
        citations=(BA_2016,),
        checks=(FunctionCheck(r"$\sum_j (g^\top J)_j$ at random tokens (numpy)", _vjp_check("layernorm")),),
    )


def _along_xhat(kind: str, eps_zero: bool) -> tuple[Any, tuple[Step, ...], tuple]:
    import sympy as sp

    from ..rules import Substitute
    from .notation import sym

    _, d, i, j, _, _, eps, _, s2, s = _norm_symbols()
    vjp, steps, (g, xh, gx, mean_g) = _vjp_steps(kind)
    v = steps[-1].expr
    prem = _orth_premises(kind, eps_zero)
    sum_xh, sum_sq = sp.Sum(xh[j], (j, 1, d)), sp.Sum(xh[j] ** 2, (j, 1, d))
    var = s2 if kind == "layernorm" else sym("rms2")
    gxj = sp.Sum(g[j] * xh[j], (j, 1, d))
    ln = kind == "layernorm"
    split = (gxj - (mean_g * sum_xh if ln else 0) - gx * sum_sq / d) / s
    after = []
    if ln:
        after.append(Step((gxj - gx * sum_sq / d) / s, "$\\sum_j \\hat{x}_j = 0$ (norms.layernorm-mean)",
                          rule=Substitute(((sum_xh, sp.Integer(0)),), "Σ_j x̂_j = 0 (premise)")))
    sq = prem[-1].rhs
    what = ("$\\sum_j \\hat{x}_j^2 = d_{\\text{model}}$ when $\\varepsilon = 0$" if eps_zero else
            "$\\sum_j \\hat{x}_j^2 = d_{\\text{model}}\\,\\sigma^2/(\\sigma^2 + \\varepsilon)$ "
            "(norms.layernorm-variance)" if ln else
            "$\\sum_j \\hat{x}_j^2 = d_{\\text{model}}\\,\\overline{x^2}/(\\overline{x^2} + \\varepsilon)$")
    after.append(Step((gxj - gx * sq / d) / s, what, rule=Substitute(((sum_sq, sq),), "Σ_j x̂_j² (premise)")))
    end = sp.Integer(0) if eps_zero else eps / (var + eps) * gx / s
    after.append(Step(end, "the two sums are the same ($j$ and $i$ are bound indices)" + (
        "" if eps_zero else "; $1 - \\sigma^2/(\\sigma^2 + \\varepsilon) = \\varepsilon/(\\sigma^2 + \\varepsilon)$"),
        citation=BA_2016 if ln else ZHANG_2019))
    steps_out = (Step(sp.Sum(v * xh[j], (j, 1, d)),
                      f"each component of $g^\\top J$ in closed form (gradients.{kind}-vjp)",
                      by=f"gradients.{kind}-vjp"),
                 Step(split, "split the sum over $j$; $1/s$ and the sums over $i$ do not depend on $j$"), *after)
    return sp.Sum(vjp * xh[j], (j, 1, d)), steps_out, prem


@register(
    "gradients.layernorm-grad-along-xhat",
    title=(r"LayerNorm's input gradient along x̂: $(g^\top J)\cdot \hat{x} = \varepsilon/(\sigma^2 + "
           r"\varepsilon)\cdot (g\cdot \hat{x})/s$"),
    summary=r"With $\varepsilon > 0$ the gradient keeps a component along x̂, smaller than g·x̂/s by the factor "
            r"$\varepsilon/(\sigma^2 + \varepsilon)$; derived for symbolic $d_{\text{model}}$.",
)
def layernorm_grad_along_xhat() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck

    _, _, _, _, _, _, eps, _, s2, s = _norm_symbols()
    start, steps, prem = _along_xhat("layernorm", False)
    return Derivation(
        **metadata("gradients.layernorm-grad-along-xhat"),
        start=start,
        premises=prem,
        steps=steps,
        assumptions=(Assumption(r"$v_j = (g_j - \operatorname{mean}(g) - \hat{x}_j\cdot (g\cdot \hat{x})/d)/s$ is "
                                "the input gradient (gradients.layernorm-vjp); x̂ has mean 0 and mean square "
                                r"$\sigma^2/(\sigma^2 + \varepsilon)$ (norms.layernorm-mean, "
                                r"norms.layernorm-variance); $\varepsilon > 0$"),),
        definitions=((s, sp.sqrt(s2 + eps)),),
        citations=(BA_2016,),
        checks=(FunctionCheck(r"$(g^\top J)\cdot \hat{x}$ at random tokens, $\varepsilon = 0$ "
                              r"(numpy)", _vjp_check("layernorm")),
                FunctionCheck((r"$(g^\top J)\cdot \hat{x}$ against $\varepsilon/(\sigma^2 + \varepsilon)\cdot "
                               r"(g\cdot \hat{x})/s$ at $\varepsilon > 0$ (numpy)"), _along_check("layernorm"))),
        notes=("With ε = 1e-5 and σ² ≈ 1 the factor is about 1e-5: the gradient is orthogonal to x̂ for all "
               "practical purposes (gradients.layernorm-grad-orthogonal-xhat proves it exactly for ε = 0).",),
    )


def _along_check(kind: str):  # noqa: ANN202
    def run(seed: int) -> tuple[bool, dict, str]:
        from .norms import layer_norm, rms_norm

        rng = np.random.default_rng(seed)
        worst = 0.0
        for _ in range(20):
            d = int(rng.integers(2, 16))
            x, g, eps = rng.normal(0.3, 1.5, size=d), rng.normal(size=d), float(rng.uniform(0.01, 2.0))
            ln = kind == "layernorm"
            J = layer_norm_jacobian(x, eps) if ln else rms_norm_jacobian(x, eps)
            xh = layer_norm(x, eps=eps) if ln else rms_norm(x, eps=eps)
            var = x.var() if ln else (x**2).mean()
            claim = eps / (var + eps) * (g @ xh) / np.sqrt(var + eps)
            worst = max(worst, abs(float((g @ J) @ xh - claim)))
        return worst < 1e-12, {"tokens": 20, "eps": "uniform(0.01, 2)", "max_abs_error": worst}, (
            f"(gᵀJ)·x̂ = ε/(v + ε)·(g·x̂)/√(v + ε) within {worst:.1e} at 20 random tokens and ε")

    return run


@register(
    "gradients.layernorm-grad-orthogonal-xhat",
    title="With ε = 0, LayerNorm's input gradient is orthogonal to x̂",
    summary=(r"$(g^\top J)\cdot \hat{x} = 0$ when $\varepsilon = 0$ $(\sum_j \hat{x}_j^2 = d_{\text{model}})$: "
             r"rescaling $x - \mu$ changes nothing, for symbolic $d_{\text{model}}$."),
)
def layernorm_grad_orthogonal_xhat() -> Derivation:
    from ..numeric import FunctionCheck

    start, steps, prem = _along_xhat("layernorm", True)
    return Derivation(
        **metadata("gradients.layernorm-grad-orthogonal-xhat"),
        start=start,
        premises=prem,
        steps=steps,
        assumptions=(Assumption(r"$\varepsilon = 0$ and $\sigma^2 > 0$, so $s = \sigma$ and $\hat{x} = (x - "
                                r"\mu)/\sigma$ has mean 0 and $\sum_j \hat{x}_j^2 = d_{\text{model}}$; $v_j = (g_j - "
                                r"\operatorname{mean}(g) - \hat{x}_j\cdot (g\cdot \hat{x})/d)/s$ "
                                "(gradients.layernorm-vjp)"),),
        citations=(BA_2016,),
        checks=(FunctionCheck(r"$(g^\top J)\cdot \hat{x}$ at random tokens, $\varepsilon = 0$ "
                              r"(numpy)", _vjp_check("layernorm")),),
        notes=(r"Together with gradients.layernorm-grad-orthogonal-ones: at $\varepsilon = 0$ the input gradient "
               r"lies in the $(d_{\text{model}} - 2)$-dimensional subspace orthogonal to 1 and to x̂.",),
    )


@register(
    "gradients.rmsnorm-jacobian",
    title=(r"The Jacobian of RMSNorm: $\partial \hat{x}_i/\partial x_j = (\delta_{ij} - \hat{x}_i "
           r"\hat{x}_j/d)/\sqrt{\operatorname{mean}(x^2) + \varepsilon}$"),
    summary=(r"For $\hat{x} = x/\sqrt{\operatorname{mean}(x^2) + \varepsilon}$ (no $\gamma$), derived for symbolic "
             r"$d_{\text{model}}$."),
)
def rmsnorm_jacobian() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Substitute
    from ..sums import SiftDelta
    from .notation import sym
    from .softmax import Differentiate

    x, d, i, j, ell, _, eps, _, _, s = _norm_symbols()
    ms = sym("rms2")
    D = sp.KroneckerDelta
    MS = sp.Sum(x[ell] ** 2, (ell, 1, d)) / d
    root = sp.sqrt(MS + eps)
    xh_i, xh_j = sp.Symbol("xhat_i", real=True), sp.Symbol("xhat_j", real=True)
    return Derivation(
        **metadata("gradients.rmsnorm-jacobian"),
        start=sp.Derivative(x[i] / root, x[j]),
        premises=(sp.Le(j, d),),
        steps=(
            Step(sp.Derivative(x[i], x[j]) / root - x[i] * sp.Derivative(MS, x[j]) / (2 * root**3),
                 "quotient rule, and $\\partial \\sqrt{u} = \\partial u / (2\\sqrt{u})$"),
            Step(D(i, j) / root - x[i] * (2 * sp.Sum(x[ell] * D(j, ell), (ell, 1, d)) / d) / (2 * root**3),
                 "differentiate: $\\partial x_l/\\partial x_j = \\delta_{jl}$", rule=Differentiate()),
            Step(D(i, j) / root - x[i] * x[j] / (d * root**3),
                 "only the term $l = j$ survives: $\\partial\\,\\overline{x^2}/\\partial x_j = 2x_j/d_{\\text{model}}$",
                 rule=SiftDelta(j)),
            Step(D(i, j) / s - x[i] * x[j] / (d * s**3), "$s = \\sqrt{\\overline{x^2} + \\varepsilon}$",
                 rule=Substitute(((MS + eps, s**2),), "definition of s")),
            Step(D(i, j) / s - xh_i * xh_j / (d * s), "$x_i = s\\,\\hat{x}_i$, $x_j = s\\,\\hat{x}_j$",
                 rule=Substitute(((x[i], s * xh_i), (x[j], s * xh_j)), "definition of x̂")),
            Step((D(i, j) - xh_i * xh_j / d) / s, "collect over $1/s$", citation=ZHANG_2019),
        ),
        assumptions=(Assumption(r"x is one token of any length $d_{\text{model}} \ge 1$; 1 ≤ i, $j \le "
                                 r"d_{\text{model}}$; $\varepsilon > 0$; no $\gamma$"),),
        definitions=((ms, MS), (s, sp.sqrt(ms + eps)), (xh_i, x[i] / s), (xh_j, x[j] / s)),
        citations=(ZHANG_2019,),
        auto_identity_check=False,  # the Derivative of a symbolic-length sum has no numeric value
        checks=(FunctionCheck(r"closed form against central differences of $\mathtt{norms.rms\_norm}$",
                              _jacobian_fd_check("rmsnorm")),),
        notes=(r"As a matrix $J = (I - \hat{x}\hat{x}^\top /d)/s$: LayerNorm's Jacobian without the centring term "
               r"$11^\top /d$. RMSNorm is therefore not invariant to a shift of x, only (for $\varepsilon = 0$) to a "
               "rescaling.",),
    )


@register(
    "gradients.rmsnorm-vjp",
    title=r"RMSNorm's backward pass: $(g^\top J)_j = (g_j - \hat{x}_j\cdot (g\cdot \hat{x})/d)/s$",
    summary=(r"The gradient reaching x from an upstream gradient $g = \partial L/\partial \hat{x}$, for symbolic "
             r"$d_{\text{model}}$."),
)
def rmsnorm_vjp() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck

    _, d, _, j, _, _, _, _, _, _ = _norm_symbols()
    start, steps, _ = _vjp_steps("rmsnorm")
    return Derivation(
        **metadata("gradients.rmsnorm-vjp"),
        start=start,
        premises=(sp.Le(j, d),),
        steps=(*steps[:-1], Step(steps[-1].expr, steps[-1].justification, rule=steps[-1].rule,
                                 citation=ZHANG_2019)),
        assumptions=(Assumption(r"$g_i = \partial L/\partial \hat{x}_i$ is the upstream gradient of any loss L; the "
                                r"Jacobian is gradients.rmsnorm-jacobian; $s = \sqrt{\operatorname{mean}(x^2) + "
                                r"\varepsilon}$; $1 \le j \le d_{\text{model}}$"),),
        citations=(ZHANG_2019,),
        checks=(FunctionCheck(r"$g^\top J$ of the numpy Jacobian against the closed form", _vjp_check("rmsnorm")),),
    )


@register(
    "gradients.rmsnorm-grad-along-xhat",
    title=(r"RMSNorm's input gradient along x̂: $(g^\top J)\cdot \hat{x} = \varepsilon/(\operatorname{mean}(x^2) + "
           r"\varepsilon)\cdot (g\cdot \hat{x})/s$"),
    summary=r"The component along x̂ is damped by $\varepsilon/(\operatorname{mean}(x^2) + \varepsilon)$, for "
            r"symbolic $d_{\text{model}}$; RMSNorm has no counterpart of LayerNorm's orthogonality to 1.",
)
def rmsnorm_grad_along_xhat() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from .notation import sym

    _, _, _, _, _, _, eps, _, _, s = _norm_symbols()
    start, steps, prem = _along_xhat("rmsnorm", False)
    return Derivation(
        **metadata("gradients.rmsnorm-grad-along-xhat"),
        start=start,
        premises=prem,
        steps=steps,
        assumptions=(Assumption(r"$v_j = (g_j - \hat{x}_j\cdot (g\cdot \hat{x})/d)/s$ (gradients.rmsnorm-vjp); "
                                r"$\sum_j \hat{x}_j^2 = d\cdot \operatorname{mean}(x^2)/(\operatorname{mean}(x^2) + "
                                r"\varepsilon)$ because x̂ = x/s; $\varepsilon > 0$"),),
        definitions=((s, sp.sqrt(sym("rms2") + eps)),),
        citations=(ZHANG_2019,),
        checks=(FunctionCheck(r"$(g^\top J)\cdot \hat{x}$ against the formula at $\varepsilon > 0$ "
                              r"(numpy)", _along_check("rmsnorm")),),
    )


@register(
    "gradients.rmsnorm-grad-orthogonal-xhat",
    title="With ε = 0, RMSNorm's input gradient is orthogonal to x̂",
    summary=(r"$(g^\top J)\cdot \hat{x} = 0$ when $\varepsilon = 0$ $(\sum_j \hat{x}_j^2 = d_{\text{model}})$: "
             r"RMSNorm ignores the scale of x, for symbolic $d_{\text{model}}$."),
)
def rmsnorm_grad_orthogonal_xhat() -> Derivation:
    from ..numeric import FunctionCheck

    start, steps, prem = _along_xhat("rmsnorm", True)
    return Derivation(
        **metadata("gradients.rmsnorm-grad-orthogonal-xhat"),
        start=start,
        premises=prem,
        steps=steps,
        assumptions=(Assumption(r"$\varepsilon = 0$ and x ≠ 0, so $\hat{x} = x/\sqrt{\operatorname{mean}(x^2)}$ and "
                                r"$\sum_j \hat{x}_j^2 = d_{\text{model}}$; $v_j = (g_j - \hat{x}_j\cdot (g\cdot "
                                r"\hat{x})/d)/s$ (gradients.rmsnorm-vjp)"),),
        citations=(ZHANG_2019,),
        checks=(FunctionCheck(r"$(g^\top J)\cdot \hat{x}$ at random tokens, $\varepsilon = 0$ "
                              r"(numpy)", _vjp_check("rmsnorm")),),
        notes=("Zhang & Sennrich 2019 (§4) state the re-scaling invariance of RMSNorm; the orthogonality of the "
               "gradient to x̂ is its infinitesimal form.",),
    )


@register(
    "gradients.example-layernorm-jacobian",
    title=r"The LayerNorm Jacobian for x = (1, 2, 3), $\varepsilon = 0$ $(d_{\text{model}} = 3)$",
    summary=(r"$J = (\sqrt{6}/12)\cdot \begin{bmatrix}1 & -2 & 1 \\ -2 & 4 & -2 \\ 1 & -2 & 1\end{bmatrix}$: rank 1, "
             "rows summing to 0, J·x̂ = 0."),
)
def example_layernorm_jacobian() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from ..rules import Substitute

    x, _, _, _, ell, b, _, _, _, _ = _norm_symbols()
    n = 3
    M = sp.Sum(x[b], (b, 1, n)) / n
    root = sp.sqrt(sp.Sum((x[ell] - M) ** 2, (ell, 1, n)) / n)  # ε = 0
    start = sp.ImmutableMatrix(n, n, lambda r, c: sp.Derivative((x[r + 1] - M) / root, x[c + 1]))

    def closed(mean: Any, s: Any) -> Any:  # the law's (δ_ij − 1/d − x̂_i x̂_j/d)/s at d = 3
        xhat = [(x[k] - mean) / s for k in (1, 2, 3)]
        return sp.ImmutableMatrix(n, n, lambda r, c: (sp.KroneckerDelta(r, c) - sp.Rational(1, 3)
                                                      - xhat[r] * xhat[c] / 3) / s)
    general = closed(M, root)
    mean_w = sp.Add(*[x[k] for k in (1, 2, 3)]) / n
    written = closed(mean_w, sp.sqrt(sp.Add(*[(x[k] - mean_w) ** 2 for k in (1, 2, 3)]) / n))
    point = tuple((x[k], sp.Integer(v)) for k, v in enumerate(LN_X, 1))
    exact = sp.sqrt(6) / 12 * sp.ImmutableMatrix([[1, -2, 1], [-2, 4, -2], [1, -2, 1]])
    entries = [(r, c) for r in (1, 2, 3) for c in (1, 2, 3)]

    def float_check(seed: int) -> tuple[bool, dict, str]:
        got = layer_norm_jacobian(np.array(LN_X, dtype=float), eps=0.0)
        err = float(np.max(np.abs(got - np.array(exact.tolist(), dtype=float))))
        rank = int(np.linalg.matrix_rank(got, tol=1e-12))
        return err < 1e-15 and rank == 1, {"float64": np.round(got, 6).tolist(), "max_abs_error": err,
                                           "rank": rank}, (
            f"float64 Jacobian matches the exact one within {err:.1e}; rank {rank}")

    return Derivation(
        **metadata("gradients.example-layernorm-jacobian"),
        instance=r"$d_{\text{model}} = 3$, x = (1, 2, 3), $\varepsilon = 0$",
        start=start,
        premises=tuple(sp.Eq(a, b) for a, b in point),
        steps=(
            Step(general, "the general Jacobian at $d_{\\text{model}} = 3$, $\\varepsilon = 0$, entry by entry "
                          "(gradients.layernorm-jacobian; it needs $\\sigma^2 + \\varepsilon > 0$, and here "
                          "$\\sigma^2 = 2/3$)", by="gradients.layernorm-jacobian",
                 where={"d_model": sp.Integer(n), "eps": sp.Integer(0), "x": x,
                        "i": sp.Tuple(*[r for r, _ in entries]), "j": sp.Tuple(*[c for _, c in entries])}),
            Step(written, "write out the sums over the three components"),
            Step(exact, "at $x = (1, 2, 3)$: $\\mu = 2$, $\\sigma^2 = 2/3$, $\\hat{x} = \\sqrt{3/2}\\,(-1, 0, 1)$ "
                        "and $1/s = \\sqrt{3/2} = \\sqrt{6}/2$",
                 rule=Substitute(point, "x = (1, 2, 3)"), citation=BA_2016),
        ),
        assumptions=(Assumption(r"$d_{\text{model}} = 3$, x = (1, 2, 3), $\varepsilon = 0$ (so $\sigma^2 = 2/3 > 0$ "
                                 r"is needed); no $\gamma$, $\beta$"),),
        citations=(BA_2016,),
        checks=(FunctionCheck(r"float64 $\mathtt{layer\_norm\_jacobian}$ at x = (1, 2, 3)", float_check),
                ValueCheck(r"$J_{11} = \sqrt{6}/12$", exact[0, 0], "0.2041", "this chapter"),
                ValueCheck(r"$J_{22} = \sqrt{6}/3$", exact[1, 1], "0.8165", "this chapter")),
        notes=(r"For $d_{\text{model}} = 3$ the two directions 1 and x̂ leave one direction, (1, −2, 1), so J has "
               r"rank 1: J = (1/s)·w $w^\top /\|w\|^2$ with w = (1, −2, 1) and $1/s = \sqrt{6}/2$, the projection "
               "onto w divided by s.",),
    )


# ----------------------------------------------------------------------------
# Attention's backward pass
# ----------------------------------------------------------------------------


def _attn_symbols() -> tuple:
    import sympy as sp

    from .notation import sym

    names = ("Q", "K", "V", "A", "S", "dO", "dA", "dS")
    return (sym("n"), sym("d_k"), sym("d_v"), sym("i"), sym("j"), sym("c_col"), sym("b_row"), sym("l"),
            *(sp.IndexedBase(nm, real=True) for nm in names))


def _attention_check(seed: int) -> tuple[bool, dict, str]:
    from .softmax_numeric import softmax

    rng = np.random.default_rng(seed)
    n, d_k, d_v = 5, 4, 3
    Q, K, V, W = (rng.normal(size=s) for s in ((n, d_k), (n, d_k), (n, d_v), (n, d_v)))

    def loss(Q_: np.ndarray, K_: np.ndarray, V_: np.ndarray) -> float:
        out = softmax(Q_ @ K_.T / np.sqrt(d_k)) @ V_  # (n, d_v)
        return float((W * out).sum())  # L = Σ W∘O, so dO = W

    dQ, dK, dV = attention_backward(Q, K, V, W)
    worst = 0.0
    for which, (M, grad) in enumerate(((Q, dQ), (K, dK), (V, dV))):
        fd = np.zeros_like(M)
        for idx in np.ndindex(M.shape):
            e = np.zeros_like(M)
            e[idx] = 1e-6
            args = [Q, K, V]
            plus, minus = list(args), list(args)
            plus[which], minus[which] = M + e, M - e
            fd[idx] = (loss(*plus) - loss(*minus)) / 2e-6
        worst = max(worst, float(np.max(np.abs(fd - grad))))
    return worst < 1e-8, {"n": n, "d_k": d_k, "d_v": d_v, "max_abs_error": worst}, (
        rf"dQ, dK, dV match central differences of $L = \sum$ dO∘O within {worst:.1e} $(n = 5, d_k = 4, d_v = 3)$")


def _attention_checks() -> tuple:
    from ..numeric import FunctionCheck

    return (FunctionCheck(r"$\mathtt{attention\_backward}$ against central differences", _attention_check),)


ATTN_ASSUMPTION = (r"O = A·V with A = softmax(S) row by row and $S = QK^\top /\sqrt{d_k}$; n tokens, widths $d_k$, "
                   r"$d_v$, all symbolic; $dO_{ic} = \partial L/\partial O_{ic}$ for any loss L; the chain rule sums "
                   "over every entry the parameter reaches")


@register(
    "gradients.attention-dv",
    title=r"Attention backward: $dV = A^\top \cdot dO$",
    summary=(r"$\partial L/\partial V_{jc} = \sum_i A_{ij} dO_{ic}$, from $O_{ac} = \sum_b A_{ab} V_{bc}$, for "
             "symbolic n and $d_v$."),
)
def attention_dv() -> Derivation:
    import sympy as sp

    from ..sums import SiftDelta
    from .softmax import Differentiate

    n, _, d_v, i, j, c, b, ell, _, _, V, A, _, dO, _, _ = _attn_symbols()
    a, e = sp.Symbol("a", integer=True, positive=True), sp.Symbol("e", integer=True, positive=True)
    D = sp.KroneckerDelta
    out = sp.Sum(A[a, b] * V[b, e], (b, 1, n))  # O_ae
    return Derivation(
        **metadata("gradients.attention-dv"),
        start=sp.Sum(sp.Sum(dO[a, e] * sp.Derivative(out, V[j, c]), (e, 1, d_v)), (a, 1, n)),
        premises=(sp.Le(j, n), sp.Le(c, d_v)),
        steps=(
            Step(sp.Sum(sp.Sum(dO[a, e] * sp.Sum(A[a, b] * D(b, j) * D(c, e), (b, 1, n)), (e, 1, d_v)), (a, 1, n)),
                 "$\\partial V_{be}/\\partial V_{jc} = \\delta_{bj}\\,\\delta_{ce}$", rule=Differentiate()),
            Step(sp.Sum(sp.Sum(dO[a, e] * A[a, j] * D(c, e), (e, 1, d_v)), (a, 1, n)),
                 "only $b = j$ survives", rule=SiftDelta(j)),
            Step(sp.Sum(A[a, j] * sp.Sum(dO[a, e] * D(c, e), (e, 1, d_v)), (a, 1, n)),
                 "$A_{aj}$ does not depend on $e$: take it out of the inner sum"),
            Step(sp.Sum(dO[a, c] * A[a, j], (a, 1, n)), "only $e = c$ survives", rule=SiftDelta(c),
                 citation=DAO_B2),
        ),
        assumptions=(Assumption(ATTN_ASSUMPTION + r"; 1 ≤ j ≤ n, $1 \le c \le d_v$"),),
        citations=(DAO_B2,),
        checks=_attention_checks(),
        notes=(r"In matrix form $dV = A^\top dO$: each value row j collects the upstream gradients of every query, "
               "weighted by how much that query attended to token j.",),
    )


@register(
    "gradients.attention-da",
    title=r"Attention backward: $dA = dO\cdot V^\top$",
    summary=(r"$\partial L/\partial A_{ij} = \sum_c dO_{ic} V_{jc}$, from $O_{ac} = \sum_b A_{ab} V_{bc}$, for "
             "symbolic n and $d_v$."),
)
def attention_da() -> Derivation:
    import sympy as sp

    from ..sums import SiftDelta
    from .softmax import Differentiate

    n, _, d_v, i, j, c, b, _, _, _, V, A, _, dO, _, _ = _attn_symbols()
    a = sp.Symbol("a", integer=True, positive=True)
    D = sp.KroneckerDelta
    out = sp.Sum(A[a, b] * V[b, c], (b, 1, n))  # O_ac
    return Derivation(
        **metadata("gradients.attention-da"),
        start=sp.Sum(sp.Sum(dO[a, c] * sp.Derivative(out, A[i, j]), (a, 1, n)), (c, 1, d_v)),
        premises=(sp.Le(i, n), sp.Le(j, n)),
        steps=(
            Step(sp.Sum(sp.Sum(dO[a, c] * sp.Sum(D(a, i) * D(b, j) * V[b, c], (b, 1, n)), (a, 1, n)), (c, 1, d_v)),
                 "$\\partial A_{ab}/\\partial A_{ij} = \\delta_{ai}\\,\\delta_{bj}$", rule=Differentiate()),
            Step(sp.Sum(sp.Sum(dO[a, c] * D(a, i) * V[j, c], (a, 1, n)), (c, 1, d_v)), "only $b = j$ survives",
                 rule=SiftDelta(j)),
            Step(sp.Sum(V[j, c] * sp.Sum(dO[a, c] * D(a, i), (a, 1, n)), (c, 1, d_v)),
                 "$V_{jc}$ does not depend on $a$: take it out of the inner sum"),
            Step(sp.Sum(dO[i, c] * V[j, c], (c, 1, d_v)), "only $a = i$ survives", rule=SiftDelta(i),
                 citation=DAO_B2),
        ),
        assumptions=(Assumption(ATTN_ASSUMPTION + "; 1 ≤ i, j ≤ n"),),
        citations=(DAO_B2,),
        checks=_attention_checks(),
    )


@register(
    "gradients.attention-ds",
    title=r"Attention backward through $\operatorname{softmax}$: $dS_{ij} = A_{ij}(dA_{ij} - \sum_b A_{ib} dA_{ib})$",
    summary="The softmax Jacobian applied row by row to dA, for symbolic n.",
)
def attention_ds() -> Derivation:
    import sympy as sp

    from ..rules import Substitute
    from ..sums import SiftDelta
    from .softmax import Differentiate

    n, _, _, i, j, _, b, ell, _, _, _, A, S, _, dA, _ = _attn_symbols()
    a = sp.Symbol("a", integer=True, positive=True)
    D = sp.KroneckerDelta

    def Z(r: Any) -> Any:
        return sp.Sum(sp.exp(S[r, ell]), (ell, 1, n))

    s1 = sp.Sum(sp.Sum(dA[a, b] * (sp.exp(S[a, b]) * D(a, i) * D(b, j) / Z(a)
                                   - sp.exp(S[a, b]) * sp.Sum(sp.exp(S[a, ell]) * D(a, i) * D(ell, j), (ell, 1, n))
                                   / Z(a) ** 2), (a, 1, n)), (b, 1, n))
    s2 = sp.Sum(sp.Sum(dA[a, b] * (sp.exp(S[a, b]) * D(a, i) * D(b, j) / Z(a)
                                   - sp.exp(S[a, b]) * sp.exp(S[a, j]) * D(a, i) / Z(a) ** 2), (a, 1, n)), (b, 1, n))
    s2b = sp.Sum(sp.Sum(dA[a, b] * sp.exp(S[a, b]) * D(a, i) * D(b, j) / Z(a), (a, 1, n))
                 - sp.Sum(dA[a, b] * sp.exp(S[a, b]) * sp.exp(S[a, j]) * D(a, i) / Z(a) ** 2, (a, 1, n)), (b, 1, n))
    s3 = sp.Sum(dA[i, b] * (sp.exp(S[i, b]) * D(b, j) / Z(i) - sp.exp(S[i, b]) * sp.exp(S[i, j]) / Z(i) ** 2),
                (b, 1, n))
    pij, pib = sp.exp(S[i, j]) / Z(i), sp.exp(S[i, b]) / Z(i)
    s4 = sp.Sum(dA[i, b] * sp.exp(S[i, b]) * D(b, j), (b, 1, n)) / Z(i) - pij * sp.Sum(dA[i, b] * pib, (b, 1, n))
    s5 = sp.Mul(dA[i, j], pij, evaluate=False) - sp.Mul(pij, sp.Sum(sp.Mul(dA[i, b], pib, evaluate=False), (b, 1, n)),
                                                        evaluate=False)
    s6 = A[i, j] * dA[i, j] - A[i, j] * sp.Sum(A[i, b] * dA[i, b], (b, 1, n))
    return Derivation(
        **metadata("gradients.attention-ds"),
        start=sp.Sum(sp.Sum(dA[a, b] * sp.Derivative(sp.exp(S[a, b]) / Z(a), S[i, j]), (a, 1, n)), (b, 1, n)),
        premises=(sp.Le(i, n), sp.Le(j, n)),
        steps=(
            Step(s1, "quotient rule; $\\partial S_{ab}/\\partial S_{ij} = \\delta_{ai}\\,\\delta_{bj}$",
                 rule=Differentiate()),
            Step(s2, "only $l = j$ survives in the denominator's derivative", rule=SiftDelta(j)),
            Step(s2b, "split the inner sum over $a$ in two"),
            Step(s3, "only the row $a = i$ depends on $S_{ij}$", rule=SiftDelta(i)),
            Step(s4, "split the sum over $b$; $A_{ij}$ does not depend on $b$"),
            Step(s5, "only $b = j$ survives in the first sum", rule=SiftDelta(j)),
            Step(s6, "$A_{ij} = e^{S_{ij}}/\\sum_l e^{S_{il}}$ (softmax of row i)",
                 rule=Substitute(((pij, A[i, j]), (pib, A[i, b])), "definition of A")),
            Step(A[i, j] * (dA[i, j] - sp.Sum(A[i, b] * dA[i, b], (b, 1, n))), "factor out $A_{ij}$",
                 citation=DAO_B2),
        ),
        assumptions=(Assumption(r"A = softmax(S) row by row; $dA_{ab} = \partial L/\partial A_{ab}$ for any loss L; "
                                "n symbolic; 1 ≤ i, j ≤ n"),),
        definitions=((A[i, j], pij), (A[i, b], pib)),
        citations=(DAO_B2, VASWANI_321),
        checks=_attention_checks(),
        notes=(r"This is softmax.jacobian applied to each row: $dS_i = (\operatorname{diag}(A_i) - A_i "
               r"A_i^\top)\cdot dA_i$. FlashAttention computes $\sum_b A_{ib} dA_{ib}$ as $D_i = \sum_c dO_{ic} "
               r"O_{ic}$, which needs no $n \times n$ matrix; that exchange of two sums is checked numerically here, "
               r"not proved as a step of this derivation.",),
    )


def _scores(Q: Any, K: Any, r: Any, t: Any, e: Any, d_k: Any) -> Any:
    import sympy as sp

    return sp.Sum(Q[r, e] * K[t, e], (e, 1, d_k)) / sp.sqrt(d_k)


@register(
    "gradients.attention-dq",
    title=r"Attention backward: $dQ = dS\cdot K/\sqrt{d_k}$",
    summary=(r"$\partial L/\partial Q_{ic} = \sum_j dS_{ij} K_{jc}/\sqrt{d_k}$, from $S_{ab} = \sum_e Q_{ae} "
             r"K_{be}/\sqrt{d_k}$, for symbolic n and $d_k$."),
)
def attention_dq() -> Derivation:
    import sympy as sp

    from ..sums import SiftDelta
    from .softmax import Differentiate

    n, d_k, _, i, j, c, b, _, Q, K, _, _, _, _, _, dS = _attn_symbols()
    a, e = sp.Symbol("a", integer=True, positive=True), sp.Symbol("e", integer=True, positive=True)
    D = sp.KroneckerDelta
    return Derivation(
        **metadata("gradients.attention-dq"),
        start=sp.Sum(sp.Sum(dS[a, b] * sp.Derivative(_scores(Q, K, a, b, e, d_k), Q[i, c]), (a, 1, n)), (b, 1, n)),
        premises=(sp.Le(i, n), sp.Le(c, d_k)),
        steps=(
            Step(sp.Sum(sp.Sum(dS[a, b] * sp.Sum(D(a, i) * D(c, e) * K[b, e], (e, 1, d_k)) / sp.sqrt(d_k),
                               (a, 1, n)), (b, 1, n)),
                 "$\\partial Q_{ae}/\\partial Q_{ic} = \\delta_{ai}\\,\\delta_{ce}$", rule=Differentiate()),
            Step(sp.Sum(sp.Sum(dS[a, b] * D(a, i) * K[b, c] / sp.sqrt(d_k), (a, 1, n)), (b, 1, n)),
                 "only $e = c$ survives", rule=SiftDelta(c)),
            Step(sp.Sum(K[b, c] * sp.Sum(dS[a, b] * D(a, i), (a, 1, n)), (b, 1, n)) / sp.sqrt(d_k),
                 "$K_{bc}/\\sqrt{d_k}$ does not depend on $a$: take it out of the inner sum"),
            Step(sp.Sum(dS[i, b] * K[b, c], (b, 1, n)) / sp.sqrt(d_k), "only the row $a = i$ survives",
                 rule=SiftDelta(i), citation=DAO_B2),
        ),
        assumptions=(Assumption(r"$S = QK^\top /\sqrt{d_k}$; $dS_{ab} = \partial L/\partial S_{ab}$ "
                                r"(gradients.attention-ds); n, $d_k$ symbolic; 1 ≤ i ≤ n, $1 \le c \le d_k$"),),
        citations=(DAO_B2, VASWANI_321),
        checks=_attention_checks(),
    )


@register(
    "gradients.attention-dk",
    title=r"Attention backward: $dK = dS^\top \cdot Q/\sqrt{d_k}$",
    summary=(r"$\partial L/\partial K_{jc} = \sum_i dS_{ij} Q_{ic}/\sqrt{d_k}$, from $S_{ab} = \sum_e Q_{ae} "
             r"K_{be}/\sqrt{d_k}$, for symbolic n and $d_k$."),
)
def attention_dk() -> Derivation:
    import sympy as sp

    from ..sums import SiftDelta
    from .softmax import Differentiate

    n, d_k, _, i, j, c, b, _, Q, K, _, _, _, _, _, dS = _attn_symbols()
    a, e = sp.Symbol("a", integer=True, positive=True), sp.Symbol("e", integer=True, positive=True)
    D = sp.KroneckerDelta
    return Derivation(
        **metadata("gradients.attention-dk"),
        start=sp.Sum(sp.Sum(dS[a, b] * sp.Derivative(_scores(Q, K, a, b, e, d_k), K[j, c]), (b, 1, n)), (a, 1, n)),
        premises=(sp.Le(j, n), sp.Le(c, d_k)),
        steps=(
            Step(sp.Sum(sp.Sum(dS[a, b] * sp.Sum(D(b, j) * D(c, e) * Q[a, e], (e, 1, d_k)) / sp.sqrt(d_k),
                               (b, 1, n)), (a, 1, n)),
                 "$\\partial K_{be}/\\partial K_{jc} = \\delta_{bj}\\,\\delta_{ce}$", rule=Differentiate()),
            Step(sp.Sum(sp.Sum(dS[a, b] * D(b, j) * Q[a, c] / sp.sqrt(d_k), (b, 1, n)), (a, 1, n)),
                 "only $e = c$ survives", rule=SiftDelta(c)),
            Step(sp.Sum(Q[a, c] * sp.Sum(dS[a, b] * D(b, j), (b, 1, n)), (a, 1, n)) / sp.sqrt(d_k),
                 "$Q_{ac}/\\sqrt{d_k}$ does not depend on $b$: take it out of the inner sum"),
            Step(sp.Sum(dS[a, j] * Q[a, c], (a, 1, n)) / sp.sqrt(d_k), "only the column $b = j$ survives",
                 rule=SiftDelta(j), citation=DAO_B2),
        ),
        assumptions=(Assumption(r"$S = QK^\top /\sqrt{d_k}$; $dS_{ab} = \partial L/\partial S_{ab}$ "
                                r"(gradients.attention-ds); n, $d_k$ symbolic; 1 ≤ j ≤ n, $1 \le c \le d_k$"),),
        citations=(DAO_B2, VASWANI_321),
        checks=_attention_checks(),
        notes=(r"The scale $1/\sqrt{d_k}$ of the forward pass reappears in dQ and dK; dV does not see it.",),
    )
