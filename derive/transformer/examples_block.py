"""Worked example of lecture 002: one Pre-LN block computed by hand, exactly.

Two tokens, d_model = 4, two heads (d_k = 2), causal mask, identity
projections W_Q = W_K = W_V = W_O = I, LayerNorm with ε = 0, γ = 1, β = 0,
and an FFN with d_ff = 4, the lecture's W₁, W₂ = I/2 and no biases:

    H = X + MHA(LN(X)),   Y = H + ReLU(LN(H)·W₁)·W₂,   X = [[1, 0, 2, 1], [2, 0, 1, 3]].

Two derivations: ``example.pre-ln-attention`` (X → H) and
``example.pre-ln-block`` (H → Y). Every figure the lecture prints is a
:class:`~derive.numeric.ValueCheck` of the exact value; a float64
recomputation (numpy, this module's private helpers) cross-checks every stage.

Sources: Xiong et al. 2020 (Pre-LN); Vaswani et al. 2017 §3.2.1-§3.3.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register
from .examples_common import at_values, grid_errors, matrix_checks
from .ffn import relu
from .norms import layer_norm

SOURCE = "lecture 002"
XIONG = Citation("xiong2020", "§3, Pre-LN Transformer")
VASWANI_322 = Citation("vaswani2017", "§3.2.2")
VASWANI_33 = Citation("vaswani2017", "§3.3")
BA = Citation("ba2016", "§3")

#: The block's input, one row per token (lecture 002, §2).
X_ROWS = ((1, 0, 2, 1), (2, 0, 1, 3))
#: The FFN's first matrix (lecture 002, §6); W₂ = I/2, no biases.
W1_ROWS = ((1, -1, 0, 0), (0, 1, -1, 0), (0, 0, 1, -1), (1, 0, 0, 1))
W2_SCALE = 0.5
N_HEADS = 2

# Every matrix the lecture prints, as printed (rows = tokens).
PRINTED = {
    "LN(X)": (("0", "-1.414", "1.414", "0"), ("0.447", "-1.342", "-0.447", "1.342")),
    "MHA": (("0", "-1.414", "1.414", "0"), ("0.232", "-1.377", "-0.197", "1.161")),
    "H": (("1", "-1.414", "3.414", "1"), ("2.232", "-1.377", "0.803", "4.161")),
    "LN(H)": (("0", "-1.414", "1.414", "0"), ("0.384", "-1.400", "-0.322", "1.338")),
    "LN(H)W1": (("0", "-1.414", "2.828", "-1.414"), ("1.722", "-1.784", "1.078", "1.660")),
    "ReLU": (("0", "0", "2.828", "0"), ("1.722", "0", "1.078", "1.660")),
    "FFN": (("0", "0", "1.414", "0"), ("0.861", "0", "0.539", "0.830")),
    "Y": (("1", "-1.414", "4.828", "1"), ("3.093", "-1.377", "1.342", "4.991")),
}


# ----------------------------------------------------------------------------
# float64 recomputation with the numpy norms and softmax: an independent route for the cross-check
# ----------------------------------------------------------------------------


def _causal_heads(a: np.ndarray, n_heads: int) -> dict[str, list[np.ndarray]]:
    """Causal self-attention per head with identity projections. a: (n, d_model)."""
    from .attention import attention_weights

    d_k = a.shape[1] // n_heads
    out: dict[str, list[np.ndarray]] = {"weights": [], "outputs": []}
    for k in range(n_heads):
        q = a[:, k * d_k:(k + 1) * d_k]  # (n, d_k): queries = keys = values
        w = attention_weights(q, q, causal=True)  # (n, n)
        out["weights"].append(w)
        out["outputs"].append(w @ q)
    return out


def block_float64() -> dict[str, np.ndarray]:
    """Every stage of the lecture's block in float64: LN(X), MHA, H, LN(H), LN(H)W1, ReLU, FFN, Y."""
    x = np.array(X_ROWS, dtype=np.float64)  # (2, 4)
    a = layer_norm(x, eps=0.0)  # the lecture's ε = 0, γ = 1, β = 0
    heads = _causal_heads(a, N_HEADS)
    mha = np.hstack(heads["outputs"])  # W_O = I
    h = x + mha
    ln_h = layer_norm(h, eps=0.0)
    z = ln_h @ np.array(W1_ROWS, dtype=np.float64)
    r = relu(z)
    f = r * W2_SCALE
    return {"LN(X)": a, "MHA": mha, "H": h, "LN(H)": ln_h, "LN(H)W1": z, "ReLU": r, "FFN": f, "Y": h + f,
            **{f"head {k + 1} weights": w for k, w in enumerate(heads["weights"])}}


def _float_check(stages: tuple[str, ...], exact: dict, at: tuple = ()):
    """A FunctionCheck body: float64 stages vs the exact values (1e-12) and the printed ones (half a unit)."""

    def run(seed: int) -> tuple[bool, dict, str]:
        got = block_float64()
        worst_exact, worst_printed = 0.0, 0.0
        for name in stages:
            want = [[float(at_values(v, at, 20)) for v in row] for row in exact[name].tolist()]
            err, half_units = grid_errors(got[name], want, PRINTED[name])
            worst_exact, worst_printed = max(worst_exact, err), max(worst_printed, half_units)
        ok = worst_exact < 1e-12 and worst_printed <= 1.0
        return ok, {"stages": list(stages), "max_abs_error_vs_exact": worst_exact,
                    "max_error_vs_printed_in_half_units": round(worst_printed, 4)}, (
            f"float64 recomputation of {', '.join(stages)}: max |float − exact| = {worst_exact:.1e}; "
            f"every printed figure within {worst_printed:.2f} half-units of its last digit")

    return run


def _link_check(named, derived):
    def run(seed: int) -> tuple[bool, dict, str]:
        from ..verify import prove_relation

        proved, strategy = prove_relation(named, derived)
        return proved, {"strategy": strategy}, (f"proved equal ({strategy})" if proved else f"not proved: {strategy}")

    return run


# ----------------------------------------------------------------------------
# exact stages
# ----------------------------------------------------------------------------


def _exact_inputs() -> dict:
    import sympy as sp

    return {"X": sp.ImmutableMatrix(X_ROWS), "W1": sp.ImmutableMatrix(W1_ROWS),
            "W2": sp.ImmutableMatrix.eye(4) * sp.Rational(1, 2)}


def weight_constants() -> tuple:
    """α, β: token 2's causal softmax weight on token 1 in head 1 and in head 2, and their exact values."""
    import sympy as sp

    from .exact_ops import causal_attention, head_columns, layer_norm_row
    from .notation import sym

    a = sp.ImmutableMatrix([layer_norm_row(list(r)) for r in X_ROWS])
    w = [causal_attention(head_columns(a, N_HEADS, k))["weights"][1, 0] for k in range(N_HEADS)]
    alpha, beta = sym("alpha"), sym("beta")
    return alpha, beta, {alpha: w[0], beta: w[1]}


@register(
    "example.pre-ln-attention",
    title="Pre-LN block by hand, part 1: H = X + MHA(LN(X))",
    summary="Lecture 002's 2-token, 2-head causal attention sublayer with identity projections, exactly.",
)
def pre_ln_attention() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from .exact_ops import (
        CausalMask,
        HStack,
        LayerNorm,
        MultiHead,
        RowSoftmax,
        causal_attention,
        head_columns,
        matadd,
        matmul,
    )

    inp = _exact_inputs()
    x = inp["X"]
    a = LayerNorm(x).doit()
    heads = [causal_attention(head_columns(a, N_HEADS, k)) for k in range(N_HEADS)]
    cols = [head_columns(a, N_HEADS, k) for k in range(N_HEADS)]
    mha = MultiHead(a, N_HEADS).doit()
    h = x + mha
    r2 = sp.sqrt(2)

    def per_head(stage):
        return HStack(*[stage(k) for k in range(N_HEADS)])

    # token 2's scores in head k as a family z_m, m = 1, 2 (a line through the two scores), and its weights
    # by the definition of softmax, each with its own score subtracted once ``shifted``
    j, m = sp.Symbol("j", integer=True, positive=True), sp.Symbol("m", integer=True)
    s2 = [heads[k]["scores"].row(1) for k in range(N_HEADS)]
    rows = [sp.Lambda(m, s2[k][0] + (m - 1) * (s2[k][1] - s2[k][0])) for k in range(N_HEADS)]

    def weights(k: int, shifted: bool) -> sp.ImmutableMatrix:
        def w(c: int) -> sp.Expr:
            own = s2[k][c] if shifted else 0
            return sp.exp(rows[k](c + 1) - own) / sp.Sum(sp.exp(rows[k](j) - own), (j, 1, 2))
        return sp.ImmutableMatrix([[1, 0], [w(0), w(1)]])
    pairs = [(k, c) for k in range(N_HEADS) for c in range(2)]

    steps = (
        Step(matadd(x, MultiHead(a, N_HEADS)),
             "LayerNorm of each token (ε = 0, γ = 1, β = 0): token 1 has μ = 1, σ² = 1/2, "
             "token 2 has μ = 3/2, σ² = 5/4", citation=BA),
        Step(matadd(x, per_head(lambda k: matmul(RowSoftmax(CausalMask(matmul(1 / r2, cols[k], cols[k].T))),
                                                 cols[k]))),
             "identity projections: head k uses columns 2k−1, 2k of LN(X) as queries, keys and values; each head is "
             r"$\operatorname{softmax}(\operatorname{mask}(QK^\top /\sqrt{d_k}))V$ with $d_k = 2$, and $W_O = I$ "
             "concatenates them",
             citation=VASWANI_322),
        Step(matadd(x, per_head(lambda k: matmul(RowSoftmax(CausalMask(heads[k]["scores"])), cols[k]))),
             (r"the scores $q_i\cdot k_j/\sqrt{2}$: head 1 gives $3/\sqrt{5}$ for token 2 on token 1, head 2 gives "
              r"$-1/\sqrt{5}$")),
        Step(matadd(x, per_head(lambda k: matmul(RowSoftmax(heads[k]["masked"]), cols[k]))),
             "causal mask: token 1 may not look at token 2 (score −∞)"),
        Step(matadd(x, per_head(lambda k: matmul(weights(k, False), cols[k]))),
             "softmax of each row; exp(−∞) = 0 gives token 1 the weights (1, 0); token 2's two scores are written "
             "$z_j$, j = 1, 2"),
        Step(matadd(x, per_head(lambda k: matmul(weights(k, True), cols[k]))),
             "token 2's weights in each head: subtract the entry's own score from both scores "
             "(softmax.shift-invariance at $n = 2$)", by="softmax.shift-invariance",
             where={"z": sp.Tuple(*[rows[k] for k, _ in pairs]), "n": sp.Integer(2),
                    "c": sp.Tuple(*[s2[k][c] for k, c in pairs]), "i": sp.Tuple(*[c + 1 for _, c in pairs])},
             citation=VASWANI_322),
        Step(matadd(x, per_head(lambda k: matmul(heads[k]["weights"], cols[k]))),
             "so token 2's weights are 1/(1 + exp(s₂ − s₁)) and 1/(1 + exp(s₁ − s₂)), logistic functions of the "
             "score gap"),
        Step(matadd(x, mha), "weights times values, heads side by side"),
        Step(h, "the residual connection adds the input back", citation=XIONG),
    )
    checks = _attention_value_checks(a, heads, mha, h)
    return Derivation(
        **metadata("example.pre-ln-attention"),
        start=matadd(x, MultiHead(LayerNorm(x), N_HEADS)),
        steps=steps,
        assumptions=(
            Assumption(r"$X = \begin{bmatrix}1 & 0 & 2 & 1 \\ 2 & 0 & 1 & 3\end{bmatrix}$: 2 tokens, "
                        r"$d_{\text{model}} = 4$; 2 heads, $d_k = d_v = 2$"),
            Assumption(r"$W_Q = W_K = W_V = W_O = I$; causal mask; LayerNorm with $\varepsilon = 0$, $\gamma = 1$, "
                        r"$\beta = 0$"),
        ),
        citations=(XIONG, VASWANI_322, BA),
        checks=(FunctionCheck("float64 recomputation of LN(X), MHA and H",
                              _float_check(("LN(X)", "MHA", "H"), {"LN(X)": a, "MHA": mha, "H": h})),
                *checks,
                ValueCheck("lecture's 1.898 is 1.342·1.414 (rounded factors)",
                           sp.Rational(1342, 1000) * sp.Rational(1414, 1000), "1.898", SOURCE)),
        notes=(
            "Exact values: head 1's score for token 2 on token 1 is 3/√5 and on itself √2; head 2's are "
            "−1/√5 and √2. Token 2's weights are α = 1/(1 + exp(√2 − 3/√5)) ≈ 0.482 (head 1) and "
            "β = 1/(1 + exp(√2 + 1/√5)) ≈ 0.135 (head 2).",
            "Rounding in the lecture: it prints q₂·k₁ = 1.898 in head 1, which is the product of the "
            "rounded 1.342 and 1.414; the exact value 3√2/√5 = 3√10/5 = 1.89737 rounds to 1.897. The "
            "score after dividing by √2, 3/√5 ≈ 1.342, is printed correctly.",
        ),
    )


def _attention_value_checks(a, heads, mha, h) -> list:
    import sympy as sp

    from ..numeric import ValueCheck

    x = sp.ImmutableMatrix(X_ROWS)
    src = f"{SOURCE}, §3"
    checks = []
    checks.append(ValueCheck(r"head width $d_{\text{model}}/h = "
                             r"4/2$", sp.Integer(len(X_ROWS[0])) / N_HEADS, "2", f"{SOURCE}, §2"))
    for t, (mu, sq, var, root) in enumerate((("1", ("0", "1", "1", "0"), "0.5", "0.707"),
                                            ("1.5", ("0.25", "2.25", "0.25", "2.25"), "1.25", "1.118"))):
        row = list(x.row(t))
        m = sp.Add(*row) / 4
        v = sp.Add(*[(e - m) ** 2 for e in row]) / 4
        checks += [ValueCheck(f"token {t + 1} mean", m, mu, src), ValueCheck(f"token {t + 1} variance", v, var, src),
                   ValueCheck(f"token {t + 1} standard deviation", sp.sqrt(v), root, src)]
        checks += [ValueCheck(f"token {t + 1} squared deviation {c + 1}", (row[c] - m) ** 2, sq[c], src)
                   for c in range(4)]
    checks += matrix_checks("LN(X)", a, PRINTED["LN(X)"], src)
    src = f"{SOURCE}, §4"
    r2 = sp.sqrt(2)
    for k, (head, printed) in enumerate(zip(heads, (
        {"q1": ("0", "-1.414"), "q2": ("0.447", "-1.342"), "dot21": "1.897", "dot22": "2", "s21": "1.342",
         "s22": "1.414", "w2": ("0.482", "0.518"), "out1": ("0", "-1.414"), "out2": ("0.232", "-1.377")},
        {"q1": ("1.414", "0"), "q2": ("-0.447", "1.342"), "dot21": "-0.632", "dot22": "2", "s21": "-0.447",
         "s22": "1.414", "w2": ("0.135", "0.865"), "out1": ("1.414", "0"), "out2": ("-0.197", "1.161")},
    ), strict=True)):
        tag = f"head {k + 1}"
        cols = a[:, 2 * k:2 * k + 2]
        checks += matrix_checks(f"{tag} q/k/v", cols, (printed["q1"], printed["q2"]), src)
        checks += [
            # head 1's q2·k1 and q2·k2 are not printed as such (the lecture shows 0 + 1.898 and 0.2 + 1.8)
            ValueCheck(f"{tag} q2·k1", (cols.row(1) * cols.row(0).T)[0], printed["dot21"], src if k else "derived"),
            ValueCheck(f"{tag} q2·k2", (cols.row(1) * cols.row(1).T)[0], printed["dot22"], src if k else "derived"),
            ValueCheck(rf"{tag} divisor $\sqrt{{d_k}}$", r2, "1.414", src),
            ValueCheck(f"{tag} score token 2 → 1", head["scores"][1, 0], printed["s21"], src),
            ValueCheck(f"{tag} score token 2 → 2", head["scores"][1, 1], printed["s22"], src),
        ]
        checks += matrix_checks(f"{tag} weights", head["weights"], (("1", "0"), printed["w2"]), src)
        checks += matrix_checks(f"{tag} output", head["output"], (printed["out1"], printed["out2"]), src)
    checks += [
        ValueCheck("head 1 q2·k1 terms: (1/√5)·0", a[1, 0] * a[0, 0], "0", src),
        ValueCheck("head 1 q2·k2 terms: (1/√5)²", (a[1, 0]) ** 2, "0.2", src),
        ValueCheck("head 1 q2·k2 terms: (−3/√5)²", (a[1, 1]) ** 2, "1.8", src),
        ValueCheck("head 2 token 2 self-weight in percent", 100 * heads[1]["weights"][1, 1], "87", src),
    ]
    checks += matrix_checks("MHA", mha, PRINTED["MHA"], src)
    checks += matrix_checks("H", h, PRINTED["H"], f"{SOURCE}, §5")
    return checks


@register(
    "example.pre-ln-block",
    title="Pre-LN block by hand, part 2: Y = H + FFN(LN(H))",
    summary=(r"Lecture 002's FFN sublayer $(d_{\text{ff}} = 4, \operatorname{ReLU}, W_2 = I/2)$ on the attention "
             "output H, exactly."),
)
def pre_ln_block() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from .exact_ops import LayerNorm, ReLU, causal_attention, head_columns, layer_norm_row, matadd, matmul

    inp = _exact_inputs()
    x, w1, w2 = inp["X"], inp["W1"], inp["W2"]
    alpha, beta, values = weight_constants()
    at = tuple(values.items())
    # H with token 2's weights named: head outputs α·v₁ + (1 − α)·v₂ (values = LN(X) columns)
    a = sp.ImmutableMatrix([layer_norm_row(list(r)) for r in X_ROWS])
    v = [head_columns(a, N_HEADS, k) for k in range(N_HEADS)]  # (2, d_k) values of each head
    mha_named = sp.ImmutableMatrix.hstack(*[
        sp.ImmutableMatrix([list(v[k].row(0)), list(w * v[k].row(0) + (1 - w) * v[k].row(1))])
        for k, w in enumerate((alpha, beta))])
    h = sp.ImmutableMatrix(x + mha_named).applyfunc(sp.expand)
    ln_h = LayerNorm(h).doit()
    z = (ln_h * w1).applyfunc(sp.expand)
    r = ReLU(z, at).doit()
    f = r * w2
    y = (h + f).applyfunc(sp.expand)
    # token 1's row of H is X₁ + LN(X₁) = (1 + √2)·X₁ − √2: an affine image y = a·x + c of x = X₁, so its
    # LayerNorm is LN(X₁) (norms.layernorm-shift-scale-invariance); X₁ = (1, 0, 2, 1) as a family x_m
    from .notation import sym as _sym

    j, k, m = _sym("j"), sp.Symbol("k", integer=True, positive=True), sp.Symbol("m", integer=True)
    delta = sp.KroneckerDelta
    xs = sp.Lambda(m, sum(v * delta(m, c) for c, v in enumerate(X_ROWS[0], 1) if v))
    a_, c_ = 1 + sp.sqrt(2), -sp.sqrt(2)

    def ln_entry(f: Any, i: int) -> Any:  # (f(i) − mean f)/√(mean (f − mean f)²) over the four entries
        mean = sp.Sum(f(j), (j, 1, 4)) / 4
        return (f(i) - mean) / sp.sqrt(sp.Sum((f(k) - mean) ** 2, (k, 1, 4)) / 4)

    def ln_rows(f: Any) -> Any:
        return sp.ImmutableMatrix([[ln_entry(f, i) for i in (1, 2, 3, 4)], list(ln_h.row(1))])

    def block(ln_part: Any) -> Any:
        return matadd(h, matmul(ReLU(matmul(ln_part, w1), at), w2))
    steps = (
        Step(block(ln_rows(lambda q: a_ * xs(q) + c_)),
             "LayerNorm of each row of H (ε = 0, γ = 1, β = 0); token 1's row of H is $X_1 + "
             r"\operatorname{LN}(X_1) = (1 + \sqrt{2})\,x - \sqrt{2}$ with $x = X_1 = (1, 0, 2, 1)$, written "
             r"$x_m = \delta_{m1} + 2\delta_{m3} + \delta_{m4}$",
             citation=BA),
        Step(block(ln_rows(xs)),
             "LayerNorm ignores the shift and the positive scale: token 1's row of LN(H) is LN(X₁) "
             "(norms.layernorm-shift-scale-invariance with $a = 1 + \\sqrt{2}$, $c = -\\sqrt{2}$, entry by entry)",
             by="norms.layernorm-shift-scale-invariance",
             where={"x": xs, "a": a_, "c": c_, "d_model": sp.Integer(4), "i": sp.Tuple(1, 2, 3, 4)}),
        Step(block(ln_h), "evaluate the sums: LN(X₁) = (0, −√2, √2, 0), as in example.pre-ln-attention"),
        Step(matadd(h, matmul(ReLU(z, at), w2)), (r"multiply by $W_1$ $(d_{\text{model}} \times d_{\text{ff}}, "
                                                  r"d_{\text{ff}} = 4)$"),
             citation=VASWANI_33),
        Step(matadd(h, matmul(r, w2)),
             "ReLU keeps the positive entries; each sign is read at the exact α, β", citation=VASWANI_33),
        Step(matadd(h, r * w2), "multiply by W₂ = I/2"),
        Step(y, "the residual connection adds H back", citation=XIONG),
    )
    exact = {"H": h, "LN(H)": ln_h, "LN(H)W1": z, "ReLU": r, "FFN": f, "Y": y}
    checks = []
    for name in ("LN(H)", "LN(H)W1", "ReLU", "FFN", "Y"):
        checks += matrix_checks(name, exact[name], PRINTED[name], f"{SOURCE}, §6", at)
    # α, β are the weights of example.pre-ln-attention: check the named H against that H
    h_attn = x + sp.ImmutableMatrix(sp.Matrix.hstack(*[causal_attention(head_columns(a, N_HEADS, k))["output"]
                                                       for k in range(N_HEADS)]))
    link = FunctionCheck("H with α, β substituted equals H of example.pre-ln-attention (symbolic proof)",
                         _link_check(h.xreplace(values), h_attn))
    return Derivation(
        **metadata("example.pre-ln-block"),
        start=matadd(h, matmul(ReLU(matmul(LayerNorm(h), w1), at), w2)),
        steps=steps,
        assumptions=(
            Assumption("H = X + MHA(LN(X)) from example.pre-ln-attention, with token 2's causal weights on "
                       "token 1 named α (head 1) and β (head 2)"),
            Assumption(r"$\operatorname{FFN}(x) = \operatorname{ReLU}(x\cdot W_1 + b_1)\cdot W_2 + b_2$ with "
                        r"$d_{\text{ff}} = 4$, the lecture's $W_1$, $W_2 = I/2$, $b_1 = b_2 = 0$"),
        ),
        definitions=(*at, (sp.IndexedBase("y", real=True)[k], a_ * xs(k) + c_)),
        citations=(XIONG, VASWANI_33),
        checks=(FunctionCheck("float64 recomputation of LN(H), LN(H)W₁, ReLU, FFN and Y",
                              _float_check(("LN(H)", "LN(H)W1", "ReLU", "FFN", "Y"), exact, at)),
                link, *checks),
        notes=(
            "Token 1's row is exact in surds: Y₁ = (1, −√2, 2 + 2√2, 1). Token 2's entries are exact "
            "expressions in α and β; the value checks substitute their definitions.",
            "The float64 check recomputes the whole block from X with numpy (causal softmax with the "
            "max trick) and compares every stage with the exact values and with the lecture's figures.",
        ),
    )
