"""Scaled dot-product attention: the similarity matrix and its convex weights.

Source: Vaswani et al. 2017, §3.2.1:
Attention(Q, K, V) = softmax(QKᵀ/√d_k) V, with Q, K of shape (n, d_k) and V of
shape (n, d_v). Why the scores are divided by √d_k is in
:mod:`derive.transformer.score_variance`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register
from ..rules import Rule

VASWANI_321 = Citation("vaswani2017", "§3.2.1")


def attention_weights(q: np.ndarray, k: np.ndarray, causal: bool = False) -> np.ndarray:
    """softmax(QKᵀ/√d_k) row by row, in float64 (the max trick inside :func:`softmax`).

    Args:
        q: queries, shape ``(n, d_k)``.
        k: keys, shape ``(m, d_k)``.
        causal: mask the scores above the diagonal (token i sees tokens 1..i) with −∞.

    Returns:
        The weights, shape ``(n, m)``; each row is positive where unmasked and sums to 1.

    Raises:
        ValueError: ``q`` and ``k`` are not 2-D with the same width.

    Source: Vaswani et al. 2017, §3.2.1 (the mask: §3.2.3).
    """
    from .softmax_numeric import softmax

    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    if q.ndim != 2 or k.ndim != 2 or q.shape[1] != k.shape[1]:
        raise ValueError(f"q and k must be (n, d_k) and (m, d_k), got {q.shape} and {k.shape}")
    s = q @ k.T / np.sqrt(q.shape[1])  # (n, m)
    if causal:
        s = np.where(np.triu(np.ones(s.shape, bool), 1), -np.inf, s)
    return softmax(s)

# ----------------------------------------------------------------------------
# A rule: the entry of a matrix product
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ProductEntry(Rule):
    """(AB)_ij → Σ_l A_il B_lj: the entry of a matrix product as a sum over the inner dimension.

    Args:
        index: the summation index to use (sympy names it with a dummy otherwise).
    """

    index: Any
    name: str = "entry of a product"

    def apply(self, expr: Any) -> Any:
        import sympy as sp
        from sympy.matrices.expressions.matexpr import MatrixElement

        def entry(x: Any) -> Any:
            out = x.doit()
            for s in out.atoms(sp.Sum):
                dummies = [lim[0] for lim in s.limits if isinstance(lim[0], sp.Dummy)]
                out = out.xreplace({d: self.index for d in dummies})
            return out

        return expr.replace(lambda x: isinstance(x, MatrixElement) and isinstance(x.parent, sp.MatMul), entry)

    def describe(self) -> str:
        return "(AB)_ij = Σ_l A_il B_lj"


# ----------------------------------------------------------------------------
# 1. The similarity matrix
# ----------------------------------------------------------------------------


def _shape_check(seed: int) -> tuple[bool, dict, str]:
    """Shapes: (n×d_k)(d_k×n) → n×n symbolically and in numpy; Q·K without the transpose is an error."""
    import sympy as sp

    from .notation import sym

    n, d_k = sym("n"), sym("d_k")
    Q, K = sp.MatrixSymbol("Q", n, d_k), sp.MatrixSymbol("K", n, d_k)
    symbolic = (Q * K.T).shape
    q3, k3 = sp.MatrixSymbol("Q", 3, 2), sp.MatrixSymbol("K", 3, 2)
    try:
        q3 * k3
        mismatch = False
    except sp.ShapeError:
        mismatch = True
    rng = np.random.default_rng(seed)
    Qn, Kn = rng.standard_normal((5, 8)), rng.standard_normal((5, 8))  # (n, d_k)
    S = Qn @ Kn.T  # (n, n)
    worst = max(abs(S[a, b] - float(np.dot(Qn[a], Kn[b]))) for a in range(5) for b in range(5))
    ok = symbolic == (n, n) and mismatch and S.shape == (5, 5) and worst < 1e-12
    return ok, {"symbolic_shape": str(symbolic), "numpy_shape": list(S.shape), "max_entry_error": worst,
                "QK_without_transpose_rejected": mismatch}, (
        rf"$(n\times d_k)(d_k\times n)$ has shape {symbolic}; at n=5, $d_k=8$ every entry equals $q_i\cdot k_j$ (max "
        rf"error {worst:.1e}); Q·K with shapes $(3\times 2)(3\times 2)$ raises ShapeError")


@register(
    "attention.similarity-matrix",
    title=r"$QK^\top$ is the matrix of all query–key dot products",
    summary=r"$(QK^\top)_{ij} = q_i\cdot k_j$, and $(n\times d_k)(d_k\times n)$ gives an $n\times n$ matrix.",
)
def similarity_matrix() -> Derivation:
    import sympy as sp
    from sympy.matrices.expressions.matexpr import MatrixElement

    from ..numeric import FunctionCheck
    from ..rules import Substitute
    from .notation import sym

    n, d_k, i, j, ell = sym("n"), sym("d_k"), sym("i0"), sym("j0"), sym("l0")
    Q, K = sp.MatrixSymbol("Q", n, d_k), sp.MatrixSymbol("K", n, d_k)
    q, k = sp.IndexedBase("q", real=True), sp.IndexedBase("k", real=True)
    return Derivation(
        **metadata("attention.similarity-matrix"),
        start=MatrixElement(sp.MatMul(Q, K.T), i, j),
        steps=(
            Step(sp.Sum(Q[i, ell] * K[j, ell], (ell, 0, d_k - 1)),
                 "an entry of a product is the sum over the inner dimension, and $(K^\\top)_{lj} = K_{jl}$",
                 rule=ProductEntry(ell), citation=VASWANI_321),
            Step(sp.Sum(q[i, ell] * k[j, ell], (ell, 0, d_k - 1)),
                 "name the rows: the query $q_i$ is row $i$ of $Q$ and the key $k_j$ is row $j$ of $K$; "
                 "the sum is their dot product $q_i \\cdot k_j$",
                 rule=Substitute(((Q[i, ell], q[i, ell]), (K[j, ell], k[j, ell])),
                                 "q_i = row i of Q, k_j = row j of K")),
        ),
        assumptions=(
            Assumption("Q and K have shape $(n, d_k)$: one row per token; rows and columns are counted from 0"),
        ),
        definitions=((q[i, ell], Q[i, ell]), (k[j, ell], K[j, ell])),
        citations=(VASWANI_321,),
        checks=(FunctionCheck(r"shapes and entries of $QK^\top$", _shape_check),),
        auto_identity_check=False,  # matrix symbols of symbolic shape have no numeric value
        notes=("One matrix product scores every (query, key) pair at once: entry (i, j) says how well "
               "token i's query matches token j's key.",),
    )


# ----------------------------------------------------------------------------
# 1b. Attention weights are convex
# ----------------------------------------------------------------------------


def _convex_check(seed: int) -> tuple[bool, dict, str]:
    """Random attention: weights in [0, 1], rows summing to 1, outputs inside [min, max] of V's columns."""

    rng = np.random.default_rng(seed)
    worst_sum, outside, trials = 0.0, 0, 200
    for _ in range(trials):
        n, d_k, d_v = (int(x) for x in rng.integers(1, 17, size=3))
        Q, K, V = rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v))
        A = attention_weights(Q, K)  # (n, n)
        out = A @ V  # (n, d_v)
        worst_sum = max(worst_sum, float(np.max(np.abs(A.sum(axis=1) - 1))))
        outside += int(np.any(A < 0) or np.any(out > V.max(axis=0) + 1e-12) or np.any(out < V.min(axis=0) - 1e-12))
    ok = worst_sum < 1e-12 and outside == 0
    return ok, {"trials": trials, "max_row_sum_error": worst_sum, "outputs_outside_range": outside}, (
        f"{trials} random $(n, d_k, d_v)$ up to 16: rows of weights sum to 1 within {worst_sum:.1e}, {outside} "
        "outputs outside the column range of V")


@register(
    "attention.convex-combination",
    title="The attention weights of a row are positive and sum to 1",
    summary=(r"$\sum_j \operatorname{softmax}(s)_j = 1$ for every row length n, so each output row is a convex "
             "combination of V's rows."),
)
def convex_combination() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Substitute
    from .notation import sym, vec

    n, j, ell = sym("n"), sym("j"), sym("l")
    s = vec("s")
    denom = sp.Sum(sp.exp(s[ell]), (ell, 1, n))
    return Derivation(
        **metadata("attention.convex-combination"),
        start=sp.Sum(sp.exp(s[j]) / denom, (j, 1, n)),
        steps=(
            Step(sp.Sum(sp.exp(s[j]), (j, 1, n)) / denom,
                 "the denominator does not depend on $j$: it factors out of the sum"),
            Step(sp.Integer(1), "renaming the summation index $j$ to $l$ makes numerator and denominator the "
                                "same sum, which is positive",
                 rule=Substitute(((j, ell),), "j → l (a bound index)")),
        ),
        assumptions=(Assumption(r"$s = (s_1, \dots, s_n)$ is one row of scores, real, of any length n ≥ 1"),),
        definitions=((sp.Symbol("a_j"), sp.exp(s[j]) / denom),
                     (sp.Symbol("output_i"), sp.Sum(sp.Symbol("a_j") * sp.Symbol("v_j"), (j, 1, n)))),
        citations=(VASWANI_321,),
        checks=(FunctionCheck("random attention: convex weights, outputs within V's range", _convex_check),),
        notes=(r"Each weight $e^{s_j}/\sum e^{s_l}$ is positive (a positive number over a sum of positive numbers), "
               r"and the weights sum to 1, so $\text{output}_i = \sum_j a_j v_j$ is a weighted average of the value "
               "rows: see attention.output-bounded.",),
    )


@register(
    "attention.weights-positive",
    title="Every attention weight is strictly positive",
    summary=r"$0 < e^{s_j}/\sum_l e^{s_l}$: a positive number over a sum of positive numbers, for every row length n.",
)
def weights_positive() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from .notation import sym, vec

    n, j, ell = sym("n"), sym("j"), sym("l")
    s = vec("s")
    weight = sp.exp(s[j]) / sp.Sum(sp.exp(s[ell]), (ell, 1, n))
    return Derivation(
        **metadata("attention.weights-positive"),
        start=sp.Integer(0),
        steps=(
            Step(weight,
                 "$e^{s_j} > 0$ and the denominator is a non-empty sum of positive terms", relation="<",
                 citation=VASWANI_321),
        ),
        assumptions=(Assumption("s is one real row of scores of length n ≥ 1 (no position masked)"),),
        citations=(VASWANI_321,),
        checks=(FunctionCheck("random attention: convex weights, outputs within V's range", _convex_check),),
        notes=("A masked position (score −∞) gets weight exactly 0, the limit of this bound; a fully masked row has "
               r"no weights at all ($\mathtt{softmax\_numeric}$ raises ValueError).",),
    )


@register(
    "attention.output-bounded",
    title="An attention output never exceeds the largest value it mixes",
    summary=(r"If every $v_j \le M$ then $\sum_j a_j v_j \le M$: the convex weights cannot push an output outside "
             "V's range."),
)
def output_bounded() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..rules import Substitute
    from .notation import sym, vec

    n, j, ell, M = sym("n"), sym("j"), sym("l"), sym("M")
    s, v = vec("s"), vec("v")
    u = vec("u", nonnegative=True)
    denom = sp.Sum(sp.exp(s[ell]), (ell, 1, n))
    a = sp.exp(s[j]) / denom
    return Derivation(
        **metadata("attention.output-bounded"),
        start=sp.Sum(a * v[j], (j, 1, n)),
        steps=(
            Step(sp.Sum(a * (M - u[j]), (j, 1, n)),
                 "write $v_j = M - u_j$ with $u_j = M - v_j \\ge 0$ (M bounds every $v_j$)",
                 rule=Substitute(((v[j], M - u[j]),), "v_j = M − u_j")),
            Step(sp.Sum(a * M, (j, 1, n)),
                 "each weight is positive and $u_j \\ge 0$, so dropping $-a_j u_j$ can only increase the sum",
                 relation="<="),
            Step(M * sp.Sum(a, (j, 1, n)), "$M$ does not depend on $j$"),
            Step(M, "the weights sum to 1 (attention.convex-combination)", by="attention.convex-combination"),
        ),
        assumptions=(Assumption(r"$v_j$ is one coordinate of value row j, and $M \ge v_j$ for every j (e.g. $M = "
                                r"\max_j v_j$); the same argument bounds the output from below by $\min_j v_j$"),),
        citations=(VASWANI_321,),
        definitions=((v[j], M - u[j]),),
        checks=(FunctionCheck("random attention: convex weights, outputs within V's range", _convex_check),),
    )


# ----------------------------------------------------------------------------
# 1d. Attention alone cannot see the order of the tokens
# ----------------------------------------------------------------------------


def _permutation_check(seed: int) -> tuple[bool, dict, str]:
    """Random n, Q, K, V and permutations: attention of the permuted tokens is the permuted attention;
    adding sinusoidal positions before the projections breaks it."""
    from .positional import sinusoidal_encoding

    rng = np.random.default_rng(seed)
    worst, broken, moved, trials = 0.0, 0, 0, 100
    for _ in range(trials):
        n, d = int(rng.integers(2, 9)), 2 * int(rng.integers(1, 5))
        x = rng.normal(size=(n, d))  # (n, d): token embeddings
        wq, wk, wv = (rng.normal(size=(d, d)) for _ in range(3))
        perm = rng.permutation(n)

        def attend(t: np.ndarray, wq: np.ndarray = wq, wk: np.ndarray = wk, wv: np.ndarray = wv) -> np.ndarray:
            return attention_weights(t @ wq, t @ wk) @ (t @ wv)  # (n, d)

        worst = max(worst, float(np.max(np.abs(attend(x[perm]) - attend(x)[perm]))))
        if not np.array_equal(perm, np.arange(n)):
            moved += 1
            pe = sinusoidal_encoding(np.arange(n), d)  # (n, d): positions stay in place
            broken += int(not np.allclose(attend(x[perm] + pe), attend(x + pe)[perm], atol=1e-9))
    ok = worst < 1e-12 and broken >= 0.9 * moved
    return ok, {"trials": trials, "max |Attn(PX) − P·Attn(X)|": worst, "permutations moving a token": moved,
                "broken by positions": broken}, (
        f"{trials} random n ≤ 8: attention of permuted tokens = permuted attention (max error {worst:.1e}); "
        f"with sinusoidal positions added the equality fails in {broken} of the {moved} that move a token")


@register(
    "attention.permutation-equivariance",
    title="Attention alone cannot see word order: permuting the tokens permutes the outputs",
    summary=(r"$\operatorname{softmax}(P S P^\top)\, P V = P \operatorname{softmax}(S)\, V$ for n tokens and any "
             "permutation P: without positions, order is invisible."),
)
def permutation_equivariance() -> Derivation:
    import sympy as sp

    from ..kernel.permutations import Reindex, permutation
    from ..numeric import FunctionCheck
    from .notation import sym

    n = sym("n")
    r, c, m, e = (sp.Symbol(k, integer=True, positive=True) for k in "rcme")
    S, V = sp.IndexedBase("S", real=True), sp.IndexedBase("V", real=True)
    pi = permutation("pi", 1, n)

    def output(row: Any, key: Any) -> Any:  # Σ_c softmax(S_row,·)_c · V_{c,e}, keys and values taken through key()
        den = sp.Sum(sp.exp(S[row, key(m)]), (m, 1, n))
        return sp.Sum(sp.exp(S[row, key(c)]) / den * V[key(c), e], (c, 1, n))

    den_fixed = sp.Sum(sp.exp(S[pi(r), m]), (m, 1, n))
    return Derivation(
        **metadata("attention.permutation-equivariance"),
        start=output(pi(r), pi),
        steps=(
            Step(sp.Sum(sp.exp(S[pi(r), pi(c)]) / den_fixed * V[pi(c), e], (c, 1, n)),
                 "the normaliser sums over every key, and $\\pi$ only changes the order of its terms",
                 rule=Reindex(pi, m), citation=VASWANI_321),
            Step(output(pi(r), lambda k: k),
                 "the same for the weighted sum of the values: $c$ appears only through $\\pi(c)$",
                 rule=Reindex(pi, c)),
        ),
        assumptions=(
            Assumption(r"n tokens, for any n, reordered by a permutation $\pi$ of $1, \dots, n$: the new token r is "
                       r"the old token $\pi(r)$. With projections applied row by row, the reordered tokens have the "
                       r"scaled scores $S_{\pi(r)\pi(c)}$ and the values $V_{\pi(c)}$"),
            Assumption("the expression is entry (r, e) of the attention output of the reordered tokens; the result "
                       "is entry (π(r), e) of the original output, i.e. the output rows are reordered the same way"),
        ),
        citations=(VASWANI_321, Citation("vaswani2017", "§3.5")),
        auto_identity_check=False,  # π has no numeric values; the numeric check draws random permutations
        checks=(FunctionCheck("random n, Q, K, V and permutations; positions break it", _permutation_check),),
        notes=("Rows of the output follow the tokens wherever they go, so a reordered sentence gets the same "
               "outputs in the new order: this is why the encoder adds positional encodings to the embeddings.",),
    )
