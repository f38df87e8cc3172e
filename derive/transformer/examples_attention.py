"""Worked examples of lecture 000: 2-token attention, temperature, max trick, positional-encoding table.

Every figure the lecture prints is a :class:`~derive.numeric.ValueCheck` of an
exact sympy value (``1/(1 + exp(-1/2))``, ``sin(1/100)``, ...), and each
example is recomputed in float64 with the package's numpy helpers.

Sources: Vaswani et al. 2017, §3.2.1 (scaled dot-product attention, softmax)
and §3.5 (sinusoidal positional encoding).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register
from .examples_common import grid_errors, matrix_checks
from .softmax import MAX_TRICK_Z

SOURCE = "lecture 000"
VASWANI_321 = Citation("vaswani2017", "§3.2.1")
VASWANI_35 = Citation("vaswani2017", "§3.5")

#: The 2-token example (lecture 000, step 1): d_k = 4, values of width 2.
Q_ROWS = ((1, 0, 1, 0), (0, 1, 0, 1))
K_ROWS = ((1, 0, 1, 0), (1, 1, 0, 0))
V_ROWS = ((4, 0), (0, 4))
TWO_TOKEN_WEIGHTS = (("0.6225", "0.3775"), ("0.3775", "0.6225"))
TWO_TOKEN_OUTPUT = (("2.49", "1.51"), ("1.51", "2.49"))

#: The temperature table (lecture 000, step 2): softmax(z / T) for z = [2, 0, 1].
TEMPERATURE_Z = (2, 0, 1)
TEMPERATURES = ("0.5", "1", "2")
TEMPERATURE_TABLE = (("0.867", "0.016", "0.117"), ("0.665", "0.090", "0.245"), ("0.506", "0.186", "0.307"))

#: The positional-encoding table (lecture 000, step 4): d_model = 4, pos = 0..3,
#: columns sin(pos), cos(pos), sin(pos/100), cos(pos/100), 4 decimals.
PE_D_MODEL = 4
PE_TABLE = (
    ("0.0000", "1.0000", "0.0000", "1.0000"),
    ("0.8415", "0.5403", "0.0100", "1.0000"),
    ("0.9093", "-0.4161", "0.0200", "0.9998"),
    ("0.1411", "-0.9900", "0.0300", "0.9996"),
)


def _float_vs(label: str, compute, exact, printed: tuple):
    """A FunctionCheck body comparing a float64 recomputation with the exact matrix and the printed table."""

    def run(seed: int) -> tuple[bool, dict, str]:
        import sympy as sp

        got = compute()
        exact_rows = [[float(sp.N(v, 20)) for v in row] for row in exact.tolist()]
        err, half_units = grid_errors(got, exact_rows, printed)
        ok = err < 1e-12 and half_units <= 1.0
        return ok, {"max_abs_error_vs_exact": err, "max_error_vs_printed_in_half_units": round(half_units, 4)}, (
            f"float64 {label}: max |float − exact| = {err:.1e}; printed figures within {half_units:.2f} "
            "half-units of their last digit")

    return run


def two_token_float64() -> np.ndarray:
    """softmax(QKᵀ/√d_k)V for the lecture's 2-token example in float64; shape (2, 2)."""
    from .attention import attention_weights

    q, k, v = (np.array(m, dtype=np.float64) for m in (Q_ROWS, K_ROWS, V_ROWS))
    return attention_weights(q, k) @ v


@register(
    "example.two-token-attention",
    title="Attention by hand: two tokens, $d_k = 4$",
    summary=(r"Lecture 000's $2\times 2$ similarity matrix, its softmax weights $1/(1 + e^{\mp 1/2})$ and the mixed "
             "values."),
)
def two_token_attention() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from .exact_ops import RowSoftmax, matmul, softmax_row

    q, k, v = (sp.ImmutableMatrix(m) for m in (Q_ROWS, K_ROWS, V_ROWS))
    d_k = q.cols
    half = 1 / sp.sqrt(d_k)
    scores = q * k.T
    scaled = scores * half
    weights = sp.ImmutableMatrix([softmax_row(list(scaled.row(r))) for r in range(2)])
    j, m = sp.Symbol("j", integer=True, positive=True), sp.Symbol("m", integer=True)
    # the scores of row r as a family z_m, m = 1, 2 (a line through the two scores)
    rows = [sp.Lambda(m, scaled[r, 0] + (m - 1) * (scaled[r, 1] - scaled[r, 0])) for r in range(2)]

    def table(upto: int) -> Any:  # the weights as defined; the first ``upto`` (row by row) shifted by their score
        def weight(r: int, c: int) -> Any:
            shift = scaled[r, c] if 2 * r + c < upto else 0
            return sp.exp(rows[r](c + 1) - shift) / sp.Sum(sp.exp(rows[r](j) - shift), (j, 1, 2))
        return sp.ImmutableMatrix(2, 2, lambda r, c: weight(r, c))
    out = weights * v
    src = f"{SOURCE}, step 1"
    exps = [[sp.exp(s) for s in scaled.row(r)] for r in range(2)]
    checks = [
        ValueCheck(r"$\sqrt{d_k}$", sp.sqrt(d_k), "2", src),
        *(ValueCheck(f"q₁·k₁ term {c + 1}", q[0, c] * k[0, c], p, src) for c, p in enumerate("1010")),
        *matrix_checks(r"$QK^\top$", scores, (("2", "1"), ("0", "1")), src),
        *matrix_checks(r"$QK^\top/\sqrt{d_k}$", scaled, (("1.0", "0.5"), ("0.0", "0.5")), src),
        ValueCheck("row 1: $e^{1.0}$", exps[0][0], "2.7183", src),
        ValueCheck("row 1: $e^{0.5}$", exps[0][1], "1.6487", src),
        ValueCheck("row 1: $e^{1.0} + e^{0.5}$", exps[0][0] + exps[0][1], "4.3670", src),
        ValueCheck("row 2: $e^{0.0}$", exps[1][0], "1.0000", src),
        ValueCheck("row 2: $e^{0.5}$", exps[1][1], "1.6487", src),
        ValueCheck("row 2: $e^{0.0} + e^{0.5}$", exps[1][0] + exps[1][1], "2.6487", src),
        *matrix_checks("weights", weights, TWO_TOKEN_WEIGHTS, src),
        *matrix_checks("output", out, TWO_TOKEN_OUTPUT, src),
    ]
    return Derivation(
        **metadata("example.two-token-attention"),
        start=matmul(RowSoftmax(matmul(half, q, k.T)), v),
        steps=(
            Step(matmul(RowSoftmax(matmul(half, scores)), v),
                 r"entry (i, j) of $QK^\top$ is the dot product $q_i\cdot k_j$: 2, 1 for token 1 and 0, 1 for token 2",
                 citation=VASWANI_321),
            Step(matmul(RowSoftmax(scaled), v), r"divide by $\sqrt{d_k} = \sqrt{4} = 2$"),
            Step(matmul(table(0), v), "softmax of each row: exp of each score over the row's sum of exps, the "
                                      "scores of row r written $z_j$ for $j = 1, 2$"),
            *(Step(matmul(table(upto), v),
                   f"weight ({(upto - 1) // 2 + 1}, {(upto - 1) % 2 + 1}): subtract the entry's own score from both "
                   "scores (softmax.shift-invariance at $n = 2$)", by="softmax.shift-invariance",
                   where={"z": rows[(upto - 1) // 2], "n": sp.Integer(2), "c": scaled[(upto - 1) // 2, (upto - 1) % 2],
                          "i": sp.Integer((upto - 1) % 2 + 1)}, citation=VASWANI_321)
              # an entry whose own score is 0 needs no shift (the step would repeat the previous one)
              for upto in range(1, 5) if scaled[(upto - 1) // 2, (upto - 1) % 2] != 0),
            Step(matmul(weights, v),
                 "with two scores the weight is 1/(1 + exp(other − own)), a logistic function of the score gap "
                 "1/2"),
            Step(out, "each output row is the weighted average of the value rows [4, 0] and [0, 4]"),
        ),
        assumptions=(
            Assumption(r"$Q = \begin{bmatrix}1 & 0 & 1 & 0 \\ 0 & 1 & 0 & 1\end{bmatrix}$, $K = \begin{bmatrix}1 & 0 "
                       r"& 1 & 0 \\ 1 & 1 & 0 & 0\end{bmatrix}$, $V = \begin{bmatrix}4 & 0 \\ 0 & 4\end{bmatrix}$; "
                       "$d_k = 4$"),
        ),
        citations=(VASWANI_321,),
        checks=(FunctionCheck(r"float64 $\operatorname{softmax}(QK^\top /\sqrt{d_k})V$ with the package's softmax",
                              _float_vs("attention output", two_token_float64, out, TWO_TOKEN_OUTPUT)),
                *checks),
        notes=(
            r"Exact weights: $1/(1 + e^{-1/2}) \approx 0.622459$ and $1/(1 + e^{1/2}) \approx 0.377541$; outputs are "
            "4 times those, ≈ 2.48984 and 1.51016.",
            "Token 1 puts more weight on itself (score 2 against 1); token 2 prefers token 2 (1 against 0).",
        ),
    )


def temperature_float64() -> np.ndarray:
    """softmax(z / T) for z = [2, 0, 1] at T = 0.5, 1, 2 (rows), float64; shape (3, 3)."""
    from .softmax_numeric import softmax

    z = np.array(TEMPERATURE_Z, dtype=np.float64)
    return np.array([softmax(z, temperature=float(t)) for t in TEMPERATURES])


@register(
    "example.temperature-table",
    title="Softmax with temperature: z = [2, 0, 1] at T = 0.5, 1, 2",
    summary="Lecture 000's temperature table: exact softmax(z/T) rows, sharper for small T, flatter for large T.",
)
def temperature_table() -> Derivation:
    import sympy as sp

    from ..kernel.primitives import Substitute
    from ..numeric import FunctionCheck, ValueCheck
    from .exact_ops import RowSoftmax, matmul, softmax_row
    from .notation import vec

    ts = [sp.Rational(t) for t in TEMPERATURES]
    z, j, k = vec("z"), sp.Symbol("j", integer=True, positive=True), sp.Symbol("k", integer=True)
    values = {z[c]: sp.Integer(v) for c, v in enumerate(TEMPERATURE_Z, 1)}
    z_rows = sp.ImmutableMatrix([list(values)] * 3)  # z₁, z₂, z₃ in every row
    inv_t = sp.ImmutableMatrix.diag(*[1 / t for t in ts])
    scaled = inv_t * z_rows
    table_def = sp.ImmutableMatrix([softmax_row(list(scaled.row(r).xreplace(values)), "definition")
                                    for r in range(3)])
    src = f"{SOURCE}, step 2"
    rows = [sp.Lambda(k, z[k] / t) for t in ts]  # the scores of row r as a family: z_k / T_r

    def table(shifted: int) -> Any:  # softmax(z/T) by definition; the largest weight of rows < shifted moved
        def weight(r: int, c: int) -> Any:
            c_r = rows[r](1) if c == 0 and r < shifted else 0  # z₁/T is the row's largest score
            return sp.exp(rows[r](c + 1) - c_r) / sp.Sum(sp.exp(rows[r](j) - c_r), (j, 1, 3))
        return sp.ImmutableMatrix(3, 3, weight)
    return Derivation(
        **metadata("example.temperature-table"),
        start=RowSoftmax(matmul(inv_t, z_rows)),
        premises=tuple(sp.Eq(e, v) for e, v in values.items()),
        steps=(
            Step(RowSoftmax(scaled), "divide each row's scores by its temperature: z/0.5, z/1, z/2"),
            Step(table(0), r"softmax of each row: $\exp (z_i/T)$ over the row's sum $\sum_j \exp (z_j/T)$",
                 citation=VASWANI_321),
            *(Step(table(r + 1), f"row $T = {TEMPERATURES[r]}$: subtract the largest score $z_1/T$ from every score "
                                 "(softmax.shift-invariance at $n = 3$): the top weight is 1 over a sum of "
                                 "$e^{(z_j - z_1)/T} \\le 1$", by="softmax.shift-invariance",
                   where={"z": rows[r], "n": sp.Integer(3), "c": rows[r](1), "i": sp.Integer(1)},
                   citation=VASWANI_321)
              for r in range(3)),
            Step(table(3).doit(), "write out the sums over the three scores"),
            Step(table(3).doit().xreplace(values), "at z = (2, 0, 1)", rule=Substitute(tuple(values.items()),
                                                                                      "z = (2, 0, 1)")),
            Step(table_def, "multiply the top weights by $e^{z_1/T}$ above and below"),
        ),
        assumptions=(Assumption(r"z = [2, 0, 1]; row t of the table is $\operatorname{softmax}(z / T_t)$, T = 1/2, "
                                 "1, 2"),),
        citations=(VASWANI_321,),
        checks=(FunctionCheck("float64 softmax(z, temperature=T) with the package's softmax",
                              _float_vs("temperature table", temperature_float64, table_def, TEMPERATURE_TABLE)),
                *[ValueCheck(f"T = {TEMPERATURES[r]}: weight {c + 1}", table_def[r, c], p, src)
                  for r, row in enumerate(TEMPERATURE_TABLE) for c, p in enumerate(row)]),
        notes=(
            r"By softmax.sqrt-dk-temperature the 2-token example $(d_k = 4)$ runs at $T = \sqrt{d_k} = 2$, the "
            "table's last row.",
            r"Exact first row: $e^4/(e^4 + e^2 + 1) \approx 0.86681$; the middle entries are $1/(e^4 + e^2 + 1)$, "
            "$1/(e^2 + e + 1)$, $1/(e + e^{1/2} + 1)$.",
        ),
    )


@register(
    "example.max-trick",
    title="The max trick by hand: z = [1000, 1001, 1002]",
    summary="Subtracting max z = 1002 leaves [−2, −1, 0], whose exponentials e⁻², e⁻¹, 1 cannot overflow.",
)
def max_trick_example() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck
    from .exact_ops import RowSoftmax, softmax_row

    z = sp.ImmutableMatrix([[int(v) for v in MAX_TRICK_Z]])
    top = max(z)
    shifted = z - sp.ImmutableMatrix([[top] * 3])
    weights_def = sp.ImmutableMatrix([softmax_row(list(shifted), "definition")])
    ex = [sp.exp(v) for v in shifted]
    src = f"{SOURCE}, step 2"
    j, k = sp.Symbol("j", integer=True, positive=True), sp.Symbol("k", integer=True)
    family = sp.Lambda(k, int(MAX_TRICK_Z[0]) - 1 + k)  # z_k = 999 + k: 1000, 1001, 1002

    def row(upto: int) -> Any:  # weights 1..upto with the scores shifted by max z, the others as defined
        def weight(i: int, c: int) -> Any:
            return sp.exp(family(i) - c) / sp.Sum(sp.exp(family(j) - c), (j, 1, 3))
        return sp.ImmutableMatrix([[weight(i, top if i <= upto else 0) for i in (1, 2, 3)]])
    return Derivation(
        **metadata("example.max-trick"),
        start=RowSoftmax(z),
        steps=(
            Step(row(0), "the definition, with the scores written $z_j = 999 + j$ for $j = 1, 2, 3$"),
            *(Step(row(upto), f"weight {upto}: subtract $c = \\max z = 1002$ from every score "
                              "(softmax.shift-invariance at $n = 3$)", by="softmax.shift-invariance",
                   where={"z": family, "n": sp.Integer(3), "c": sp.Integer(top), "i": sp.Integer(upto)},
                   citation=VASWANI_321)
              for upto in (1, 2, 3)),
            Step(weights_def, "softmax of the shifted scores: every exponent is ≤ 0"),
        ),
        assumptions=(Assumption("z = [1000, 1001, 1002]; c = max z = 1002"),),
        citations=(VASWANI_321,),
        checks=(
            ValueCheck(r"$\max z$", top, "1002", src),
            *[ValueCheck(rf"$z_{i + 1} - \max z$", shifted[i], p, src) for i, p in enumerate(("-2", "-1", "0"))],
            *[ValueCheck(f"$e^{{{shifted[i]}}}$", ex[i], p, src) for i, p in enumerate(("0.1353", "0.3679", "1.0000"))],
            ValueCheck("e⁻² + e⁻¹ + e⁰", sp.Add(*ex), "1.5032", src),
        ),
        notes=(
            "The rounded weights 0.0900, 0.2447, 0.6652, and the float64 overflow of the unshifted softmax, are "
            "checked in softmax.shift-invariance (one home for those checks).",
        ),
    )


def pe_float64() -> np.ndarray:
    """The lecture's table from :func:`~derive.transformer.positional.sinusoidal_encoding`; shape (4, 4)."""
    from .positional import sinusoidal_encoding

    return sinusoidal_encoding(np.arange(4), PE_D_MODEL)


@register(
    "example.pe-table",
    title=r"Positional encoding by hand: $d_{\text{model}} = 4$, positions 0 to 3",
    summary="Lecture 000's table: PE(pos) = (sin pos, cos pos, sin(pos/100), cos(pos/100)), exactly.",
)
def pe_table() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from ..rules import Evaluate

    d = PE_D_MODEL
    omega = [sp.Pow(10000, sp.Rational(-2 * i, d), evaluate=False) for i in range(d // 2)]

    def row(pos: int, freqs: list) -> list:
        out = []
        for w in freqs:
            angle = sp.Mul(pos, w, evaluate=False)
            out += [sp.sin(angle, evaluate=False), sp.cos(angle, evaluate=False)]
        return out

    start = sp.ImmutableMatrix([row(p, omega) for p in range(4)])
    table = sp.ImmutableMatrix([row(p, [w.doit() for w in omega]) for p in range(4)]).doit()
    src = f"{SOURCE}, step 4"
    # row 3 from row 2: each (sin, cos) pair turned by its frequency (positional.rotation with k = 1)
    freqs = [w.doit() for w in omega]

    def turned(w: Any) -> list:
        return [sp.cos(w) * sp.sin(2 * w) + sp.sin(w) * sp.cos(2 * w),
                -sp.sin(w) * sp.sin(2 * w) + sp.cos(w) * sp.cos(2 * w)]
    rotated = sp.ImmutableMatrix([*table.tolist()[:3], [v for w in freqs for v in turned(w)]])
    return Derivation(
        **metadata("example.pe-table"),
        start=start,
        steps=(
            Step(table, "the frequencies are $10000^{-0/4} = 1$ and $10000^{-2/4} = 1/100$; sin 0 = 0, cos 0 = 1",
                 rule=Evaluate("the powers of 10000"), citation=VASWANI_35),
            Step(rotated, "one position further is a rotation: row 3's fast pair is row 2's turned by 1 radian, its "
                          "slow pair row 2's turned by 1/100 radian (positional.rotation with k = 1)",
                 by="positional.rotation", where={"i": sp.Tuple(0, 1), "d_model": sp.Integer(d),
                                                  "pos": sp.Integer(2), "k": sp.Integer(1)}),
        ),
        assumptions=(Assumption(r"$d_{\text{model}} = 4$, pos = 0, 1, 2, 3; columns (sin, cos) pairs interleaved, "
                                r"pair i with frequency $10000^{-2i/d_{\text{model}}}$"),),
        citations=(VASWANI_35,),
        checks=(
            FunctionCheck(r"$\mathtt{sinusoidal\_encoding}$(arange(4), 4) in float64",
                          _float_vs("positional encoding", pe_float64, table, PE_TABLE)),
            ValueCheck("$10000^{0/4}$", sp.Integer(10000) ** sp.Rational(0, 4), "1", src),
            ValueCheck("$10000^{2/4}$", sp.Integer(10000) ** sp.Rational(2, 4), "100", src),
            *matrix_checks("PE", table, PE_TABLE, src),
            ValueCheck("cos(0.01) to 5 decimals", sp.cos(sp.Rational(1, 100)), "0.99995", src),
        ),
        notes=(
            "cos(1/100) = 0.9999500004..., printed 1.0000 at four decimals (the lecture notes it is 0.99995).",
            "Each row is (sin pos, cos pos, sin(pos/100), cos(pos/100)): a fast clock turning 1 radian per "
            "position and a slow one turning 1/100 radian.",
        ),
    )
