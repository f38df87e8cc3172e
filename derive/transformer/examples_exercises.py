"""Lecture 002's smaller worked examples: RMSNorm by hand and the exercises.

* ``example.rmsnorm``: RMSNorm of token 1, x = (1, 0, 2, 1): RMS = √(3/2) ≈ 1.225.
* ``example.exercise-layernorm-constant``: LayerNorm of (2, 2, 2, 2) is 0 for
  every ε > 0; at ε = 0 it is 0/0, which the exact operator refuses.
* ``example.exercise-causal-first-token``: under the causal mask the first
  token's weights are (1, 0) whatever the scores.
* ``example.exercise-residual-zero-init``: a sublayer initialised to output 0
  leaves Y = X with the residual connection, and Y = 0 without it.

Sources: Zhang & Sennrich 2019 (RMSNorm); Ba et al. 2016 (LayerNorm);
Vaswani et al. 2017 §3.2.3 (masking); He et al. 2016 (residual connections).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register
from .examples_block import W1_ROWS, X_ROWS
from .examples_common import grid_errors
from .ffn import relu
from .norms import layer_norm, rms_norm

SOURCE = "lecture 002"
ZHANG = Citation("zhang2019", "§4")
BA = Citation("ba2016", "§3")
VASWANI_323 = Citation("vaswani2017", "§3.2.3")
HE = Citation("he2016", "§3.1")

RMS_PRINTED = "1.225"
RMSNORM_PRINTED = ("0.816", "0", "1.633", "0.816")


@register(
    "example.rmsnorm",
    title="RMSNorm by hand: x = (1, 0, 2, 1)",
    summary="RMS = √((1 + 0 + 4 + 1)/4) = √(3/2) ≈ 1.225, so RMSNorm(x) = x·√(2/3) ≈ (0.816, 0, 1.633, 0.816).",
)
def rmsnorm_example() -> Derivation:
    import sympy as sp

    from ..kernel.primitives import Substitute
    from ..numeric import FunctionCheck, ValueCheck
    from .exact_ops import RMSNorm
    from .notation import sym, vec

    x = sp.ImmutableMatrix([X_ROWS[0]])
    sum_sq = sp.Add(*[v**2 for v in x])
    rms = sp.sqrt(sum_sq / x.cols)
    out = RMSNorm(x).doit()
    src = f"{SOURCE}, §8"
    # the token as a vector x₁ … x₄ whose values are premises, so the law about any x applies to it
    xs, j, d = vec("x"), sym("j"), x.cols
    values = {xs[c]: sp.Integer(v) for c, v in enumerate(X_ROWS[0], 1)}
    row = sp.ImmutableMatrix([list(values)])
    a = 1 / rms  # √6/3: the scale that gives the token RMS 1

    def entries(scale: Any, mean_square: Any) -> Any:
        return sp.ImmutableMatrix([[scale * xs[c] / sp.sqrt(mean_square) for c in range(1, d + 1)]])
    ms = sp.Sum(xs[j] ** 2, (j, 1, d)) / d
    ms_scaled = sp.Sum(a**2 * xs[j] ** 2, (j, 1, d)) / d
    written = sp.Add(*[a**2 * xs[c] ** 2 for c in range(1, d + 1)]) / d

    def float_check(seed: int) -> tuple[bool, dict, str]:
        got = rms_norm(np.array([X_ROWS[0]], dtype=np.float64), eps=0.0)  # (1, 4)
        err, half_units = grid_errors(got, [[float(v) for v in out]], (RMSNORM_PRINTED,))
        return err < 1e-12 and half_units <= 1.0, {"float64": np.round(got[0], 6).tolist(), "max_abs_error": err,
                                                  "max_error_vs_printed_in_half_units": round(half_units, 4)}, (
            f"float64 x/sqrt(mean(x²)) = {np.round(got[0], 6).tolist()}; max |float − exact| = {err:.1e}")

    return Derivation(
        **metadata("example.rmsnorm"),
        start=RMSNorm(row),
        premises=tuple(sp.Eq(e, v) for e, v in values.items()),
        steps=(
            Step(entries(1, ms), r"divide each entry by the root mean square $\sqrt{\sum_j x_j^2/4}$; no mean is "
                                 "subtracted, γ = 1", citation=ZHANG),
            Step(entries(a, ms_scaled), r"RMSNorm ignores a positive scale: rescale x by $a = 1/\operatorname{RMS}"
                                        r"(x) = 1/\sqrt{3/2} = \sqrt{6}/3$ first (norms.rmsnorm-scale-invariance, "
                                        "entry by entry)", by="norms.rmsnorm-scale-invariance",
                 where={"a": a, "x": xs, "d_model": sp.Integer(d), "i": sp.Tuple(1, 2, 3, 4)}),
            Step(entries(a, written), "write out the sum over the four entries"),
            Step(entries(a, 1), r"at x = (1, 0, 2, 1) the rescaled token has mean square $(2/3)(1 + 0 + 4 + 1)/4 "
                                "= 1$: RMS 1, nothing left to divide",
                 rule=Substitute(tuple(values.items()), "x = (1, 0, 2, 1)")),
            Step(out, "at x = (1, 0, 2, 1): √6/3 times each entry", rule=Substitute(tuple(values.items()),
                                                                                   "x = (1, 0, 2, 1)")),
        ),
        assumptions=(Assumption("x = (1, 0, 2, 1), token 1 of the block's input; γ = 1, no ε"),),
        citations=(ZHANG,),
        checks=(
            FunctionCheck("float64 RMSNorm", float_check),
            *(ValueCheck(f"$x_{c + 1}^2$", x[c] ** 2, p, src) for c, p in enumerate("1041")),
            ValueCheck("sum of squares 1 + 0 + 4 + 1", sum_sq, "6", src),
            ValueCheck("RMS", rms, RMS_PRINTED, src),
            *[ValueCheck(rf"$\operatorname{{RMSNorm}}(x)_{i + 1}$", out[i], p, src)
              for i, p in enumerate(RMSNORM_PRINTED)],
        ),
        notes=("Exactly: RMSNorm(x) = (√6/3, 0, 2√6/3, √6/3); √6/3 = 0.81650 rounds down to 0.816.",),
    )


@register(
    "example.exercise-layernorm-constant",
    title="Exercise: LayerNorm of the constant vector (2, 2, 2, 2)",
    summary="μ = 2 and σ² = 0, so LayerNorm gives (0, 0, 0, 0) for every ε > 0; at ε = 0 it is 0/0.",
)
def layernorm_constant() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from .exact_ops import LayerNorm
    from .notation import sym

    eps = sym("eps")
    x = sp.ImmutableMatrix([[2, 2, 2, 2]])
    mu = sp.Add(*x) / 4
    var = sp.Add(*[(v - mu) ** 2 for v in x]) / 4
    zeros = sp.ImmutableMatrix([[0, 0, 0, 0]])
    src = f"{SOURCE}, exercises"
    i, j = sym("i"), sym("j")
    entry = (2 - sp.Sum(2, (j, 1, 4)) / 4) / sp.sqrt(sp.Sum((2 - sp.Sum(2, (i, 1, 4)) / 4) ** 2, (j, 1, 4)) / 4 + eps)

    def eps_zero(seed: int) -> tuple[bool, dict, str]:
        try:
            LayerNorm(x, 0).doit()
        except ZeroDivisionError as exc:
            refused = str(exc)
        else:
            refused = ""
        eps_values = (1e-12, 1e-5, 1.0)
        xf = np.array([2.0, 2.0, 2.0, 2.0])
        outs = [layer_norm(xf, eps=e) for e in eps_values]
        zero_ok = all(np.array_equal(o, np.zeros(4)) for o in outs)
        return bool(refused) and zero_ok, {"eps=0": refused or "no error", "eps tried": list(eps_values)}, (
            f"ε = 0 refused ({refused}); float64 output is exactly 0 at ε = {', '.join(map(str, eps_values))}")

    return Derivation(
        **metadata("example.exercise-layernorm-constant"),
        start=LayerNorm(x, eps),
        steps=(
            Step(sp.ImmutableMatrix([[entry] * 4]),
                 "definition with $\\gamma = 1$, $\\beta = 0$, component by component: every $x_i$ is 2, so "
                 "each entry is the same", citation=BA),
            Step(zeros, "a constant token is mapped to $\\beta = 0$ because $\\varepsilon > 0$ "
                 "(norms.layernorm-constant-input at $c = 2$, $d_{model} = 4$)", by="norms.layernorm-constant-input",
                 where={"c": sp.Integer(2), "d_model": sp.Integer(4), "gamma": sp.Integer(1),
                        "ln_beta": sp.Integer(0)}),
        ),
        assumptions=(Assumption("ε > 0 (the lecture: a very small positive number); γ = 1, β = 0"),),
        citations=(BA,),
        checks=(
            FunctionCheck("ε = 0 is an explicit error, ε > 0 gives 0", eps_zero),
            ValueCheck("mean", mu, "2", src),
            ValueCheck("variance", var, "0", src),
            *[ValueCheck(rf"$\operatorname{{LayerNorm}}(x)_{i + 1}$", sp.Integer(0), "0", src) for i in range(4)],
        ),
        notes=("With a learned shift the output is β: a constant token carries no information after "
               "normalisation except β. At ε = 0 the formula is 0/0: the exact operator raises "
               "ZeroDivisionError rather than return NaN.",),
    )


@register(
    "example.exercise-causal-first-token",
    title="Exercise: the causal mask gives the first token the weights (1, 0)",
    summary="Row 1 of softmax(mask(S)) is (1, 0) for any scores, so token 1's output in each head is its own value.",
)
def causal_first_token() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from .exact_ops import CausalMask, RowSoftmax
    from .notation import sym, vec

    s, ell = vec("s"), sym("l")  # token 1's scores s[1], s[2] on tokens 1 and 2 (any reals)
    s11, s12 = s[1], s[2]
    scores = sp.ImmutableMatrix([[s11, s12]])
    src = f"{SOURCE}, exercises"

    def own_values(seed: int) -> tuple[bool, dict, str]:
        from .examples_block import block_float64
        from .softmax_numeric import softmax

        rng = np.random.default_rng(seed)
        rows = [softmax(np.array([rng.normal(scale=10.0), -np.inf])) for _ in range(100)]
        ok = all(np.array_equal(r, [1.0, 0.0]) for r in rows)
        stages = block_float64()
        own = np.allclose(stages["MHA"][0], stages["LN(X)"][0], atol=1e-15)
        return ok and own, {"random score rows": len(rows), "token 1 MHA row": stages["MHA"][0].tolist()}, (
            "softmax([s, −∞]) = [1, 0] at 100 random s; in the block, token 1's MHA row equals its LN(X) row "
            "(its own value in each head)")

    return Derivation(
        **metadata("example.exercise-causal-first-token"),
        start=RowSoftmax(CausalMask(scores)),
        steps=(
            Step(RowSoftmax(sp.ImmutableMatrix([[s11, -sp.oo]])),
                 "the mask sets the score of the later token 2 to −∞", citation=VASWANI_323),
            Step(sp.ImmutableMatrix([[sp.exp(s11) / sp.Sum(sp.Piecewise((sp.exp(s[ell]), ell <= 1), (0, True)),
                                                           (ell, 1, 2)), 0]]),
                 "softmax: $e^{-\\infty} = 0$, so key 2 adds nothing to the sum over $l = 1, 2$"),
            Step(sp.ImmutableMatrix([[1, 0]]), "the first row under a causal mask with $r = 1$ masked key "
                 "(mask.first-token)", by="mask.first-token", where={"z": s, "n_masked": sp.Integer(1)}),
        ),
        assumptions=(Assumption("s₁, s₂ are any real scores of token 1 on tokens 1 and 2"),),
        citations=(VASWANI_323,),
        checks=(
            FunctionCheck("float64: softmax([s, −∞]) and token 1 in the block", own_values),
            ValueCheck("weight on token 1", sp.Integer(1), "1", src),
            ValueCheck("weight on token 2", sp.Integer(0), "0", src),
        ),
        notes=("So token 1's output is 1·v₁ + 0·v₂ = v₁ in every head: (0, −√2) in head 1 and (√2, 0) in head 2 "
               "of example.pre-ln-attention.",),
    )


@register(
    "example.exercise-residual-zero-init",
    title="Exercise: a sublayer initialised to 0 passes X through the residual",
    summary="With W₂ = 0, b₂ = 0 the FFN outputs 0, so Y = X + 0 = X; without the residual Y would be 0.",
)
def residual_zero_init() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from .exact_ops import LayerNorm, ReLU, matadd, matmul
    from .notation import vec

    x_ = vec("x")
    x = sp.ImmutableMatrix(2, 4, lambda i, j: x_[i + 1, j + 1])  # any real 2×4 input
    hidden = sp.MatrixSymbol("G", 2, 4)  # ReLU(LN(X)·W₁): any values at all
    zero = sp.ZeroMatrix(4, 4)  # W₂ at initialisation

    def stack(seed: int) -> tuple[bool, dict, str]:
        rng = np.random.default_rng(seed)
        x0 = rng.normal(size=(2, 4))
        y_res, y_plain = x0.copy(), x0.copy()
        for _ in range(6):  # six zero-initialised FFN sublayers
            w1f = rng.normal(size=(4, 16))
            def f(h, w=w1f):  # ReLU(LN(h)·W₁)·W₂ with W₂ = 0; ε = 1e-5 so a zero input stays finite
                return relu(layer_norm(h, eps=1e-5) @ w) @ np.zeros((16, 4))

            y_res = y_res + f(y_res)
            y_plain = f(y_plain)
        ok = np.array_equal(y_res, x0) and not np.any(y_plain)
        return ok, {"layers": 6, "with residual: max |Y − X|": float(np.max(np.abs(y_res - x0))),
                    "without residual: max |Y|": float(np.max(np.abs(y_plain)))}, (
            "6 zero-initialised sublayers: with residuals Y = X exactly; without them Y = 0 (the input is lost)")

    return Derivation(
        **metadata("example.exercise-residual-zero-init"),
        start=matadd(x, matmul(hidden, zero), matmul(sp.OneMatrix(2, 1), sp.ZeroMatrix(1, 4))),
        steps=(
            Step(x, "whatever the hidden activations G are, $G \\cdot W_2 + \\mathbf{1} \\cdot b_2$ with $W_2 = 0$, "
                    "$b_2 = 0$ is the zero matrix, so the block is the identity (residual.zero-init at $n = 2$, "
                    "$d_{model} = d_{in} = 4$)", by="residual.zero-init",
                 where={"X": x, "G": hidden, "W_O": zero, "b_O": sp.ZeroMatrix(1, 4)}, citation=HE),
        ),
        assumptions=(Assumption("X is any real 2×4 input; the FFN sublayer is G·W₂ + b₂ with hidden activations "
                                "G = ReLU(LN(X)·W₁ + b₁) and W₂ = 0, b₂ = 0 at initialisation"),),
        definitions=((hidden, ReLU(matmul(LayerNorm(x), sp.ImmutableMatrix(W1_ROWS)))),),
        citations=(HE,),
        checks=(FunctionCheck("float64: six zero-initialised sublayers with and without residuals", stack),),
        notes=("Without the residual connection the same block outputs Y = FFN(LN(X)) = 0: every later layer "
               "receives nothing. With it, each block starts as the identity and learns a correction.",),
    )
