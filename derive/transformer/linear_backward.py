"""The backward pass of a linear layer Y = XW + b: dX = dY·Wᵀ, dW = Xᵀ·dY, db = Σ_rows dY.

Componentwise, with index sums of symbolic length (n rows, d_in inputs, d_out outputs), in the
style of the attention backward pass (:mod:`derive.transformer.gradients`): the chain rule sums
dY_ae·∂Y_ae/∂(parameter) over every output entry, the derivatives of indexed entries are Kronecker
deltas, and the kernel's :class:`~derive.sums.SiftDelta` removes them. The upstream gradient
dY_ae = ∂L/∂Y_ae is an indexed symbol, so the results hold for any loss L.

Sources: Goodfellow et al. 2016, §6.5 (back-propagation; the gradients of a matrix product,
§6.5.6); the same three products are the linear layers of every Transformer block.
"""

from __future__ import annotations

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

GOODFELLOW_BACKPROP = Citation("goodfellow2016", "§6.5.6")


def linear_backward(X: np.ndarray, W: np.ndarray, dY: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The gradients (dX, dW, db) of Y = X·W + b for an upstream gradient dY = ∂L/∂Y.

    Args:
        X: inputs, shape ``(n, d_in)`` (one row per token).
        W: weights, shape ``(d_in, d_out)``.
        dY: ∂L/∂Y, shape ``(n, d_out)``.

    Returns:
        ``(dX, dW, db)`` of shapes ``(n, d_in)``, ``(d_in, d_out)``, ``(d_out,)``.

    Raises:
        ValueError: the shapes do not fit together.

    Source: derived in gradients.linear-dx, gradients.linear-dw, gradients.linear-db
    (Goodfellow et al. 2016, §6.5.6).
    """
    X, W, dY = (np.asarray(a, dtype=np.float64) for a in (X, W, dY))
    if not (X.ndim == W.ndim == dY.ndim == 2 and X.shape[1] == W.shape[0] and dY.shape == (X.shape[0], W.shape[1])):
        raise ValueError(f"expected X (n, d_in), W (d_in, d_out), dY (n, d_out); got {X.shape}, {W.shape}, {dY.shape}")
    return dY @ W.T, X.T @ dY, dY.sum(axis=0)  # (n, d_in), (d_in, d_out), (d_out,)


def _check(seed: int) -> tuple[bool, dict, str]:
    """dX, dW, db against central differences of L = Σ G∘(XW + b) (so dY = G), at three sizes."""
    rng = np.random.default_rng(seed)
    worst = 0.0
    sizes = ((1, 1, 1), (4, 3, 5), (6, 7, 2))
    for n, d_in, d_out in sizes:
        X, W, b, G = (rng.normal(size=s) for s in ((n, d_in), (d_in, d_out), (d_out,), (n, d_out)))

        def loss(X_: np.ndarray, W_: np.ndarray, b_: np.ndarray) -> float:
            return float((G * (X_ @ W_ + b_)).sum())  # noqa: B023 - evaluated in this iteration

        grads = linear_backward(X, W, G)
        for which, M in enumerate((X, W, b)):
            fd = np.zeros_like(M)
            for idx in np.ndindex(M.shape):
                e = np.zeros_like(M)
                e[idx] = 1e-6
                plus, minus = [X, W, b], [X, W, b]
                plus[which], minus[which] = M + e, M - e
                fd[idx] = (loss(*plus) - loss(*minus)) / 2e-6
            worst = max(worst, float(np.max(np.abs(fd - grads[which]))))
    return worst < 1e-7, {"sizes (n, d_in, d_out)": [list(s) for s in sizes], "max_abs_error": worst}, (
        f"dY·Wᵀ, Xᵀ·dY and the column sums of dY match central differences of L = Σ dY∘Y within {worst:.1e} "
        "(n, d_in, d_out = (1, 1, 1), (4, 3, 5), (6, 7, 2))")


def _checks() -> tuple:
    from ..numeric import FunctionCheck

    return (FunctionCheck(r"$\mathtt{linear\_backward}$ against central differences", _check),)


def _symbols() -> tuple:
    import sympy as sp

    from .notation import sym

    a, e = sp.Symbol("a", integer=True, positive=True), sp.Symbol("e", integer=True, positive=True)
    X, W, dY = (sp.IndexedBase(nm, real=True) for nm in ("X", "W", "dY"))
    return (sym("n"), sym("d_in"), sym("d_out"), sym("i"), sym("j"), sym("c_col"), sym("b_row"), a, e, X, W,
            sp.IndexedBase("b", real=True), dY)


def _output(X, W, bias, a, e, b, d_in):  # noqa: ANN001, ANN202 - sympy objects
    """Y_ae = Σ_b X_ab W_be + b_e."""
    import sympy as sp

    return sp.Sum(X[a, b] * W[b, e], (b, 1, d_in)) + bias[e]


ASSUMPTION = ("$Y = XW + b$: X is n × $d_{in}$ (one row per token), W is $d_{in}$ × $d_{out}$, the bias b is added "
              "to every row; n, $d_{in}$, $d_{out}$ symbolic; $dY_{ae} = \\partial L/\\partial Y_{ae}$ for any loss L; "
              "the chain rule sums over every output entry")


@register(
    "gradients.linear-dx",
    title="Linear layer backward: $dX = dY\\,W^\\top$, for any sizes",
    summary="$\\partial L/\\partial X_{ij} = \\sum_c dY_{ic} W_{jc}$, from $Y_{ae} = \\sum_b X_{ab} W_{be} + b_e$, "
            "for symbolic n, $d_{in}$, $d_{out}$.",
)
def linear_dx() -> Derivation:
    import sympy as sp

    from ..sums import SiftDelta
    from .softmax import Differentiate

    n, d_in, d_out, i, j, c, b, a, e, X, W, bias, dY = _symbols()
    D = sp.KroneckerDelta
    return Derivation(
        **metadata("gradients.linear-dx"),
        start=sp.Sum(sp.Sum(dY[a, e] * sp.Derivative(_output(X, W, bias, a, e, b, d_in), X[i, j]), (a, 1, n)),
                     (e, 1, d_out)),
        premises=(sp.Le(i, n), sp.Le(j, d_in)),
        steps=(
            Step(sp.Sum(sp.Sum(dY[a, e] * sp.Sum(D(a, i) * D(b, j) * W[b, e], (b, 1, d_in)), (a, 1, n)),
                        (e, 1, d_out)),
                 "$\\partial X_{ab}/\\partial X_{ij} = \\delta_{ai}\\,\\delta_{bj}$; the bias does not depend on X",
                 rule=Differentiate()),
            Step(sp.Sum(sp.Sum(dY[a, e] * D(a, i) * W[j, e], (a, 1, n)), (e, 1, d_out)),
                 "only $b = j$ survives", rule=SiftDelta(j)),
            Step(sp.Sum(W[j, e] * sp.Sum(dY[a, e] * D(a, i), (a, 1, n)), (e, 1, d_out)),
                 "$W_{je}$ does not depend on a: take it out of the inner sum"),
            Step(sp.Sum(dY[i, e] * W[j, e], (e, 1, d_out)), "only the row $a = i$ survives", rule=SiftDelta(i),
                 citation=GOODFELLOW_BACKPROP),
        ),
        assumptions=(Assumption(ASSUMPTION + "; $1 \\le i \\le n$, $1 \\le j \\le d_{in}$"),),
        citations=(GOODFELLOW_BACKPROP,),
        checks=_checks(),
        notes=("In matrix form $dX = dY\\,W^\\top$: the gradient flows back through the transposed weights, "
               "row by row, so each token's input gradient depends only on that token's output gradient.",),
    )


@register(
    "gradients.linear-dw",
    title="Linear layer backward: $dW = X^\\top dY$, for any sizes",
    summary="$\\partial L/\\partial W_{jc} = \\sum_a X_{aj}\\, dY_{ac}$: a sum over the n rows (tokens), "
            "for symbolic n, $d_{in}$, $d_{out}$.",
)
def linear_dw() -> Derivation:
    import sympy as sp

    from ..sums import SiftDelta
    from .softmax import Differentiate

    n, d_in, d_out, i, j, c, b, a, e, X, W, bias, dY = _symbols()
    D = sp.KroneckerDelta
    return Derivation(
        **metadata("gradients.linear-dw"),
        start=sp.Sum(sp.Sum(dY[a, e] * sp.Derivative(_output(X, W, bias, a, e, b, d_in), W[j, c]), (e, 1, d_out)),
                     (a, 1, n)),
        premises=(sp.Le(j, d_in), sp.Le(c, d_out)),
        steps=(
            Step(sp.Sum(sp.Sum(dY[a, e] * sp.Sum(X[a, b] * D(b, j) * D(c, e), (b, 1, d_in)), (e, 1, d_out)),
                        (a, 1, n)),
                 "$\\partial W_{be}/\\partial W_{jc} = \\delta_{bj}\\,\\delta_{ce}$; the bias does not depend on W",
                 rule=Differentiate()),
            Step(sp.Sum(sp.Sum(dY[a, e] * X[a, j] * D(c, e), (e, 1, d_out)), (a, 1, n)),
                 "only $b = j$ survives", rule=SiftDelta(j)),
            Step(sp.Sum(X[a, j] * sp.Sum(dY[a, e] * D(c, e), (e, 1, d_out)), (a, 1, n)),
                 "$X_{aj}$ does not depend on e: take it out of the inner sum"),
            Step(sp.Sum(X[a, j] * dY[a, c], (a, 1, n)), "only the column $e = c$ survives", rule=SiftDelta(c),
                 citation=GOODFELLOW_BACKPROP),
        ),
        assumptions=(Assumption(ASSUMPTION + "; $1 \\le j \\le d_{in}$, $1 \\le c \\le d_{out}$"),),
        citations=(GOODFELLOW_BACKPROP,),
        checks=_checks(),
        notes=("In matrix form $dW = X^\\top dY$, a sum over tokens of outer products $x_a\\, dy_a^\\top$: "
               "the weight gradient of a batch is the sum of the per-token ones, which is why it costs as many "
               "FLOPs as the forward product ($2 n\\, d_{in} d_{out}$), and the backward pass about twice the "
               "forward one (params.flops-training).",),
    )


@register(
    "gradients.linear-db",
    title="Linear layer backward: db = the column sums of dY, for any sizes",
    summary="$\\partial L/\\partial b_c = \\sum_a dY_{ac}$: the bias is added to every row, so its gradient "
            "sums the rows, for symbolic n and $d_{out}$.",
)
def linear_db() -> Derivation:
    import sympy as sp

    from ..sums import SiftDelta
    from .softmax import Differentiate

    n, d_in, d_out, i, j, c, b, a, e, X, W, bias, dY = _symbols()
    D = sp.KroneckerDelta
    return Derivation(
        **metadata("gradients.linear-db"),
        start=sp.Sum(sp.Sum(dY[a, e] * sp.Derivative(_output(X, W, bias, a, e, b, d_in), bias[c]), (a, 1, n)),
                     (e, 1, d_out)),
        premises=(sp.Le(c, d_out),),
        steps=(
            Step(sp.Sum(dY[a, e] * D(c, e), (a, 1, n), (e, 1, d_out)),
                 "$\\partial b_e/\\partial b_c = \\delta_{ce}$; the product XW does not depend on b",
                 rule=Differentiate()),
            Step(sp.Sum(D(c, e) * sp.Sum(dY[a, e], (a, 1, n)), (e, 1, d_out)),
                 "$\\delta_{ce}$ does not depend on a: take it out of the inner sum"),
            Step(sp.Sum(dY[a, c], (a, 1, n)), "only the column $e = c$ survives", rule=SiftDelta(c),
                 citation=GOODFELLOW_BACKPROP),
        ),
        assumptions=(Assumption(ASSUMPTION + "; $1 \\le c \\le d_{out}$"),),
        citations=(GOODFELLOW_BACKPROP,),
        checks=_checks(),
        notes=("A bias is a weight whose input is the constant 1: $db = dY^\\top \\mathbf{1}$ is dW's formula "
               "with a column of ones for X.",),
    )
