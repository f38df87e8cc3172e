"""Multi-head attention: how the heads share the model width (dimension arithmetic only).

Source: Vaswani et al. 2017, §3.2.2: h heads, each of width d_k = d_v = d_model/h;
the h head outputs are concatenated (width h·d_v) and projected by W^O.
Parameter counts live with the other counts, not here.
"""

from __future__ import annotations

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

VASWANI_322 = Citation("vaswani2017", "§3.2.2")

#: The base model of the paper and the lecture: d_model = 512 split over h = 8 heads.
BASE_D_MODEL, BASE_HEADS = 512, 8


def head_width(d_model: int, n_heads: int) -> int:
    """Width of one head, ``d_k = d_v = d_model // n_heads``.

    Raises:
        ValueError: ``n_heads`` does not divide ``d_model``, or either is not a positive integer.

    Source: Vaswani et al. 2017, §3.2.2.
    """
    for name, value in (("d_model", d_model), ("n_heads", n_heads)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if d_model % n_heads:
        raise ValueError(f"n_heads = {n_heads} does not divide d_model = {d_model}: the heads cannot share "
                         "the width equally")
    return d_model // n_heads


def _divisors_check(seed: int) -> tuple[bool, dict, str]:
    """For every h dividing 512, h heads of width 512/h concatenate back to 512; other h are refused."""
    widths, refused = {}, []
    for h in range(1, BASE_D_MODEL + 1):
        try:
            widths[h] = head_width(BASE_D_MODEL, h)
        except ValueError:
            refused.append(h)
    ok = all(h * w == BASE_D_MODEL for h, w in widths.items()) and len(widths) == 10 and widths[8] == 64
    return ok, {"divisors": sorted(widths), "refused": len(refused)}, (
        f"{len(widths)} head counts divide {BASE_D_MODEL} (1, 2, 4, …, 512), each concatenating back to "
        f"{BASE_D_MODEL}; the other {len(refused)} are refused with ValueError")


def _forward_shapes_check(seed: int) -> tuple[bool, dict, str]:
    """A numpy multi-head attention pass at d_model = 512, h = 8: every intermediate has the derived shape."""
    from .attention import attention_weights

    rng = np.random.default_rng(seed)
    n, d_model, h = 5, BASE_D_MODEL, BASE_HEADS
    d_k = d_v = head_width(d_model, h)
    X = rng.normal(size=(n, d_model))  # (n, d_model)
    heads, shapes = [], set()
    for _ in range(h):
        Wq, Wk, Wv = (rng.normal(size=(d_model, d)) / np.sqrt(d_model) for d in (d_k, d_k, d_v))
        Q, K, V = X @ Wq, X @ Wk, X @ Wv  # (n, d_k), (n, d_k), (n, d_v)
        A = attention_weights(Q, K)  # (n, n)
        heads.append(A @ V)  # (n, d_v)
        shapes.add((Q.shape, K.shape, V.shape, A.shape, heads[-1].shape))
    concat = np.concatenate(heads, axis=1)  # (n, h·d_v)
    out = concat @ rng.normal(size=(h * d_v, d_model))  # (n, d_model)
    ok = shapes == {((n, d_k), (n, d_k), (n, d_v), (n, n), (n, d_v))} and concat.shape == out.shape == (n, d_model)
    return ok, {"n": n, "d_model": d_model, "h": h, "d_k": d_k, "concat": list(concat.shape),
                "output": list(out.shape)}, (
        rf"n = {n}, $d_{{\text{{model}}}} = {d_model}$, h = {h}: Q, K of each head ({n}, {d_k}), scores ({n}, {n}), "
        rf"head output ({n}, {d_v}); concatenation {concat.shape} and $W^O$ output {out.shape}")


@register(
    "multihead.head-dims",
    title=r"h heads of width $d_{\text{model}}/h$ concatenate back to $d_{\text{model}}$",
    summary=(r"$d_k = d_v = d_{\text{model}}/h$, and concatenating the h head outputs gives width $h\cdot d_v = "
             r"d_{\text{model}}$."),
)
def head_dims() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, IdentityCheck, ValueCheck
    from ..rules import Evaluate, Substitute
    from .notation import sym

    d_model, h, d_v, d_k = sym("d_model"), sym("n_heads"), sym("d_v"), sym("d_k")
    w = sp.Symbol("w", integer=True, positive=True)  # d_model = h·w: h divides d_model
    head = sp.Symbol("a", integer=True, positive=True)  # counts the heads
    return Derivation(
        **metadata("multihead.head-dims"),
        start=sp.Sum(d_v, (head, 1, h)),
        steps=(
            Step(sp.Sum(d_model / h, (head, 1, h)), "every head outputs $d_v = d_{model}/h$ columns",
                 rule=Substitute(((d_v, d_model / h),), r"$d_v = d_{\text{model}}/h$"), citation=VASWANI_322),
            Step(d_model, "h blocks of the same width side by side: $h \\cdot d_{model}/h = d_{model}$",
                 rule=Evaluate("the sum of h equal widths")),
        ),
        assumptions=(Assumption(r"h divides $d_{\text{model}}$, so $d_k = d_v = d_{\text{model}}/h$ is an integer"),),
        definitions=((d_k, d_model / h), (d_v, d_model / h), (d_model, h * w)),
        citations=(VASWANI_322,),
        checks=(
            IdentityCheck(sp.Sum(d_model / h, (head, 1, h)), d_model, ("claim at random points, $d_v = "
                                                                       r"d_{\text{model}}/h$")),
            ValueCheck(r"$d_k = d_v$ at $d_{\text{model}} = 512$, h = 8", sp.Integer(BASE_D_MODEL) / BASE_HEADS, "64",
                       "lecture 000, §3"),
            ValueCheck("width of the concatenation, 8 heads × 64", sp.Integer(BASE_HEADS) * 64, "512",
                       "lecture 000, §3"),
            FunctionCheck("every divisor h of 512", _divisors_check),
            FunctionCheck("shapes through a multi-head forward pass", _forward_shapes_check),
        ),
        notes=(r"Each head works in a $d_{\text{model}}/h$-dimensional subspace; the heads split the width rather "
               r"than multiply it, so $W^O$ maps $h\cdot d_v = d_{\text{model}}$ back to $d_{\text{model}}$.",),
    )


# ----------------------------------------------------------------------------
# The cost of the heads: the same products as one head of full width
# ----------------------------------------------------------------------------


def _matmul_cost_check(seed: int) -> tuple[bool, dict, str]:
    """Count the multiply-adds of a numpy multi-head pass from its operand shapes, for every h dividing 16."""
    from .attention import attention_weights

    rng = np.random.default_rng(seed)
    n, d_model = 5, 16
    x = rng.normal(size=(n, d_model))  # (n, d_model)
    costs = {}
    for h in (h for h in range(1, d_model + 1) if d_model % h == 0):
        d_k = head_width(d_model, h)
        macs = 0

        def mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            nonlocal macs
            macs += a.shape[0] * a.shape[1] * b.shape[1]  # (m, k)·(k, p): m·k·p multiply-adds
            return a @ b

        heads = []
        for _ in range(h):
            q, k, v = (mm(x, rng.normal(size=(d_model, d_k))) for _ in range(3))  # (n, d_k) each
            mm(q, k.T)  # the scores, (n, n): counted here, recomputed inside attention_weights
            heads.append(mm(attention_weights(q, k), v))  # (n, d_v)
        mm(np.concatenate(heads, axis=1), rng.normal(size=(d_model, d_model)))  # W^O
        costs[h] = macs
    closed = 4 * n * d_model**2 + 2 * n**2 * d_model
    ok = set(costs.values()) == {closed}
    return ok, {"n": n, "d_model": d_model, "multiply-adds by h": costs, "4·n·d² + 2·n²·d": closed}, (
        rf"n = {n}, $d_{{\text{{model}}}} = {d_model}$: every h in {sorted(costs)} takes "
        rf"{sorted(set(costs.values()))} multiply-adds; the closed form gives {closed}")


@register(
    "multihead.cost",
    title=r"h heads of width $d_{\text{model}}/h$ cost the matrix products of one full-width head",
    summary=(r"$h\cdot (3\cdot n\cdot d_{\text{model}}\cdot d_k + n^2\cdot d_k + n^2\cdot d_v) + n\cdot h\cdot "
             r"d_v\cdot d_{\text{model}} = 4\cdot n\cdot d_{\text{model}}^2 + 2\cdot n^2\cdot d_{\text{model}}$ for "
             "every h."),
)
def cost() -> Derivation:
    from ..numeric import FunctionCheck, IdentityCheck
    from ..rules import Substitute
    from .notation import sym

    d, h, d_k, d_v, n = sym("d_model"), sym("n_heads"), sym("d_k"), sym("d_v"), sym("n")
    start = h * (3 * n * d * d_k + n**2 * d_k + n**2 * d_v) + n * h * d_v * d
    split = h * (3 * n * d * (d / h) + n**2 * (d / h) + n**2 * (d / h)) + n * h * (d / h) * d
    end = 4 * n * d**2 + 2 * n**2 * d
    return Derivation(
        **metadata("multihead.cost"),
        start=start,
        steps=(
            Step(split, "each head has width $d_k = d_v = d_{model}/h$",
                 rule=Substitute(((d_k, d / h), (d_v, d / h)), r"$d_k = d_v = "
                                                               r"d_{\text{model}}/h$"), citation=VASWANI_322),
            Step(end, "h cancels in every term: the count of one head of width $d_{model}$ (h = 1)"),
        ),
        assumptions=(Assumption("cost = multiply-adds of the matrix products for n tokens: Q, K, V projections ($n "
                                r"\times d_{\text{model}}$ times $d_{\text{model}} \times d_k$, per head), scores "
                                r"$QK^\top (n \times d_k$ times $d_k \times n$), mixing AV ($n \times n$ times $n "
                                r"\times d_v$) and $W^O (n \times h\cdot d_v$ times $h\cdot d_v \times "
                                r"d_{\text{model}}$)"),
                     Assumption(r"h divides $d_{\text{model}}$")),
        definitions=((d_k, d / h), (d_v, d / h)),
        citations=(VASWANI_322,),
        checks=(
            IdentityCheck(split, end, r"claim at random points, $d_k = d_v = d_{\text{model}}/h$"),
            FunctionCheck("multiply-adds counted from the shapes of a numpy pass, every h dividing 16",
                          _matmul_cost_check),
        ),
        notes=("Only the softmax is not free of h: h·n² exponentials instead of n², small beside the products.",
               "The paper's remark that several reduced heads cost about as much as one full-width head is this "
               "identity."),
    )
