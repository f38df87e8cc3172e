"""Efficient attention: the online softmax, the cost of decoding with and without a KV cache, and the
arithmetic intensity of decoding attention under MHA, GQA and MQA.

Sources: Milakov & Gimelshein 2018, §3 (Algorithm 3: the running maximum and the rescaled running
sum); Dao et al. 2022, §3.1 (FlashAttention: softmax computed block by block with the statistics
m and ℓ, and the output rescaled); Kaplan et al. 2020, Table 1 (2N forward FLOPs per token; its
2·n_layers·n_ctx·d_attn for the context counts QKᵀ only, and the weighted sum of V costs as much again, so
attending over t positions is 4·n_layers·t·d_attn); Pope et al. 2023 (the KV cache of
inference); Shazeer 2019, §3 (multi-query attention); Ainslie et al. 2023 (grouped-query
attention). The memory of the cache is :mod:`derive.transformer.compute` (params.kv-cache-token,
params.kv-cache, params.kv-cache-gqa).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

MILAKOV_3 = Citation("milakov2018", "§3, Algorithm 3")
DAO_31 = Citation("dao2022", "§3.1")
KAPLAN_T1 = Citation("kaplan2020", "§2.1, Table 1")


def online_softmax(z: np.ndarray, v: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """softmax(z)·v computed block by block with a running maximum and a rescaled running sum.

    Args:
        z: shape ``(n,)``, finite scores of one query.
        v: shape ``(n, d_v)``, the values.
        block: number of scores per block, ≥ 1.

    Returns:
        ``(out, maxima, sums)``: ``out`` of shape ``(d_v,)`` equals ``softmax(z) @ v``; ``maxima`` and
        ``sums`` (shape ``(n_blocks,)``) are the running m and ℓ after each block.

    Raises:
        ValueError: ``block`` < 1, ``z`` is empty or has a non-finite entry, or the shapes disagree.

    Source: Milakov & Gimelshein 2018, Algorithm 3; Dao et al. 2022, §3.1 (the FlashAttention-2
    form: the output is kept unnormalised and divided by ℓ once at the end).
    """
    z = np.asarray(z, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64).reshape(z.shape[0], -1)
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise ValueError(f"block must be a positive integer, got {block!r}")
    if z.ndim != 1 or z.size == 0 or not np.all(np.isfinite(z)):
        raise ValueError("z must be a non-empty vector of finite scores")
    m, ell, acc = -np.inf, 0.0, np.zeros(v.shape[1])  # running max, sum, unnormalised output (d_v,)
    maxima, sums = [], []
    for lo in range(0, z.size, block):
        zb, vb = z[lo:lo + block], v[lo:lo + block]  # (b,), (b, d_v)
        m_new = max(m, float(zb.max()))
        scale = np.exp(m - m_new)  # e^(m_old − m_new); 0 for the first block
        p = np.exp(zb - m_new)  # (b,)
        ell = scale * ell + p.sum()
        acc = scale * acc + p @ vb
        m = m_new
        maxima.append(m)
        sums.append(ell)
    return acc / ell, np.array(maxima), np.array(sums)


def _symbols() -> tuple[Any, ...]:
    from .notation import sym, vec

    return (sym("n"), sym("j"), sym("split"), vec("z"), vec("v"), sym("m_run"), sym("m_1"), sym("m_2"))


def _blocks(weight: Any = None) -> tuple[Any, Any, Any, Any]:
    """Σ_(j≤k), Σ_(j>k) and Σ_(j≤n) of e^(z_j − c)·weight(j), as functions of the shift c, and the term."""
    import sympy as sp

    n, j, k, z, _, _, _, _ = _symbols()

    def term(c: Any) -> Any:
        base = sp.exp(z[j] - c)
        return base * weight(j) if weight is not None else base

    return (lambda c: sp.Sum(term(c), (j, 1, k)), lambda c: sp.Sum(term(c), (j, k + 1, n)),
            lambda c: sp.Sum(term(c), (j, 1, n)), term)


def _merge_check(seed: int) -> tuple[bool, dict, str]:
    from .softmax_numeric import softmax

    rng = np.random.default_rng(seed)
    worst, trials = 0.0, 0
    for n in (1, 2, 7, 64, 513):
        z = rng.normal(scale=20.0, size=n)
        v = rng.normal(size=(n, 3))
        for block in sorted({1, 2, 5, 16, n}):
            out, _, sums = online_softmax(z, v, block)
            ref = softmax(z) @ v
            worst = max(worst, float(np.max(np.abs(out - ref))),
                        abs(float(sums[-1]) - float(np.exp(z - z.max()).sum())) / float(np.exp(z - z.max()).sum()))
            trials += 1
    return worst < 1e-12, {"rows": [1, 2, 7, 64, 513], "trials": trials, "max_error": worst}, (
        rf"block-by-block output = softmax(z)·v and final $\ell = \sum e^{{z_j - \max z}}$ for {trials} (n, block "
        rf"size) pairs, scores up to ±80 (max error {worst:.1e})")


@register(
    "efficient.online-softmax-merge",
    title="Online softmax: merging two blocks' sums with the factors $e^{m_1 - m}$, $e^{m_2 - m}$ gives the row's "
          r"$\sum_j e^{z_j - m}$, for any row length and any split point",
    summary="$e^{m_1-m}\\ell_1 + e^{m_2-m}\\ell_2 = \\sum_{j=1}^{n} e^{z_j-m}$: the denominator of softmax, "
            "whichever index k the row is split after.",
)
def online_softmax_merge() -> Derivation:
    import sympy as sp

    from ..kernel.sum_moves import MergeSums
    from ..numeric import FunctionCheck
    from ..rules import Substitute
    from .notation import sym

    n, j, k, z, _, m, m1, m2 = _symbols()
    l1, l2 = sym("l_1"), sym("l_2")
    first, second, whole, _ = _blocks()
    e = sp.exp
    start = e(m1 - m) * l1 + e(m2 - m) * l2
    return Derivation(
        **metadata("efficient.online-softmax-merge"),
        start=start,
        steps=(
            Step(e(m1 - m) * first(m1) + e(m2 - m) * second(m2), "the definitions of the two blocks' sums",
                 rule=Substitute(((l1, first(m1)), (l2, second(m2))), "ℓ₁, ℓ₂"), citation=MILAKOV_3),
            Step(first(m) + second(m), "move each factor into its sum: $e^{m_1 - m}e^{z_j - m_1} = e^{z_j - m}$, "
                                       "and the same with $m_2$: the old maximum cancels", citation=DAO_31),
            Step(whole(m), "the two sums run over adjacent ranges, $1..k$ and $k+1..n$, with the same terms: "
                           "together they are the sum over the whole row", rule=MergeSums()),
        ),
        definitions=((l1, first(m1)), (l2, second(m2))),
        assumptions=(
            Assumption("a row of n ≥ 1 scores $z_1, \\dots, z_n$ split after index k (any integer; 1 ≤ k < n for two "
                       "non-empty blocks); block 1 holds j ≤ k, block 2 holds j > k"),
            Assumption("m₁, m₂ are the blocks' maxima and m = max(m₁, m₂); the identity holds for every real m₁, m₂, "
                       "m — the maxima only make every exponent ≤ 0, so nothing overflows"),
        ),
        citations=(MILAKOV_3, DAO_31),
        checks=(FunctionCheck("numpy online softmax against the direct softmax, many block sizes", _merge_check),),
        notes=("k is symbolic, so the identity holds for every split point, and by applying it again to each "
               "block, for every division of the row into blocks. Applied block after block, the merge computes "
               "the denominator of softmax in one pass over the "
               "row, never holding the whole row: this is FlashAttention's running statistic ℓ.",),
    )


@register(
    "efficient.online-softmax-output",
    title="Online softmax: the rescaled output accumulators give softmax(z)·v, for any row length and split point",
    summary="$(e^{m_1-m}a_1 + e^{m_2-m}a_2)/(e^{m_1-m}\\ell_1 + e^{m_2-m}\\ell_2) = \\sum_j e^{z_j-m}v_j / \\sum_j "
            "e^{z_j-m}$, each sum over the whole row.",
)
def online_softmax_output() -> Derivation:
    import sympy as sp

    from ..kernel.sum_moves import MergeSums
    from ..numeric import FunctionCheck, IdentityCheck
    from ..rules import Substitute
    from .notation import sym

    n, j, k, z, v, m, m1, m2 = _symbols()
    l1, l2, a1, a2 = sym("l_1"), sym("l_2"), sym("acc_1"), sym("acc_2")
    f1, f2, fw, _ = _blocks()
    g1, g2, gw, _ = _blocks(lambda idx: v[idx])
    e = sp.exp
    start = (e(m1 - m) * a1 + e(m2 - m) * a2) / (e(m1 - m) * l1 + e(m2 - m) * l2)
    subs = ((a1, g1(m1)), (a2, g2(m2)), (l1, f1(m1)), (l2, f2(m2)))
    return Derivation(
        **metadata("efficient.online-softmax-output"),
        start=start,
        steps=(
            Step((e(m1 - m) * g1(m1) + e(m2 - m) * g2(m2)) / (e(m1 - m) * f1(m1) + e(m2 - m) * f2(m2)),
                 "the definitions of the blocks' accumulators and sums", rule=Substitute(subs, "a₁, a₂, ℓ₁, ℓ₂"),
                 citation=DAO_31),
            Step((g1(m) + g2(m)) / (f1(m) + f2(m)),
                 "each rescaling factor moves into its sum and turns $e^{z_j - m_i}$ into $e^{z_j - m}$"),
            Step(gw(m) / fw(m), "merge the adjacent sums $1..k$ and $k+1..n$ in the numerator and in the "
                                "denominator", rule=MergeSums()),
        ),
        definitions=subs,
        assumptions=(
            Assumption("the row and the split of efficient.online-softmax-merge; $v_j$ is one column of V (every "
                       "column is treated alike); $a_1 = \\sum_{j \\le k} e^{z_j-m_1}v_j$ and $a_2 = \\sum_{j>k} "
                       "e^{z_j-m_2}v_j$ are "
                       "the blocks' unnormalised outputs"),
        ),
        citations=(DAO_31, MILAKOV_3),
        checks=(IdentityCheck(start.xreplace(dict(subs)), gw(m) / fw(m), name="claim at random points", n_points=5),
                FunctionCheck("numpy online softmax against the direct softmax, many block sizes", _merge_check)),
        notes=(r"The result is $\sum_j \operatorname{softmax}(z)_j\cdot v_j$ with softmax written shifted by m "
               "(softmax.shift-invariance): block-by-block attention is exact, not an approximation. FlashAttention "
               r"keeps the normalised block output $a/\ell$ instead and rescales by $\ell_1/\ell$ and $\ell_2/\ell$; "
               "the algebra is the same.",),
    )


def _step_check(seed: int) -> tuple[bool, dict, str]:
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(20):
        z = rng.normal(scale=30.0, size=int(rng.integers(1, 300)))
        m, d = -np.inf, 0.0
        for zj in z:  # Milakov & Gimelshein, Algorithm 3
            m_new = max(m, zj)
            d = d * np.exp(m - m_new) + np.exp(zj - m_new)
            m = m_new
        ref = float(np.exp(z - z.max()).sum())
        worst = max(worst, abs(d - ref) / ref)
    return worst < 1e-13, {"rows": 20, "max_rel_error": worst}, (
        rf"one pass $d_j = d_{{j-1}}e^{{m_{{j-1}}-m_j}} + e^{{z_j-m_j}}$ ends at $\sum e^{{z - \max z}}$ on 20 rows "
        rf"(max relative error {worst:.1e})")


@register(
    "efficient.online-softmax-step",
    title=r"Online softmax, one element at a time: rescaling the running sum by $e^{m_{\text{old}} - "
          r"m_{\text{new}}}$ and adding the new term gives the prefix sum $\sum_i e^{z_i - m_j}$, for every prefix "
          "length j",
    summary="If $d_{j-1} = \\sum_{i<j} e^{z_i - m_{j-1}}$, the update $d_{j-1}e^{m_{j-1}-m_j} + e^{z_j - m_j}$ is "
            "$\\sum_{i \\le j} e^{z_i - m_j}$: by induction the last $d_n$ is softmax's denominator.",
)
def online_softmax_step() -> Derivation:
    import sympy as sp

    from ..kernel.sum_moves import MergeSums
    from ..numeric import FunctionCheck, IdentityCheck
    from ..rules import Substitute
    from .notation import sym, vec

    i, j = sym("i"), sym("j")
    z, mp, mj, dp = vec("z"), sym("m_prev"), sym("m_cur"), sym("d_prev")
    e = sp.exp
    f = e(z[i] - mj)
    start = sp.Sum(f, (i, 1, j))
    prev = sp.Sum(e(z[i] - mp), (i, 1, j - 1))
    end = dp * e(mp - mj) + e(z[j] - mj)
    return Derivation(
        **metadata("efficient.online-softmax-step"),
        start=end,
        steps=(
            Step(e(mp - mj) * prev + e(z[j] - mj), "the previous running sum $d_{j-1}$",
                 rule=Substitute(((dp, prev),), "d_(j−1)"), citation=MILAKOV_3),
            Step(sp.Sum(f, (i, 1, j - 1)) + f.xreplace({i: j}), "$e^{m_{j-1} - m_j}e^{z_i - m_{j-1}} = e^{z_i - m_j}$: "
                 "the factor moves into the sum and the old maximum cancels"),
            Step(sp.Sum(f, (i, 1, j - 1)) + sp.Sum(f, (i, j, j)), "the newest term is a sum with the single index "
                                                                   "$i = j$"),
            Step(start, "the newest term joins the sum over $i \\le j - 1$: adjacent ranges, the same terms",
                 rule=MergeSums()),
        ),
        definitions=((dp, prev),),
        assumptions=(Assumption("j ≥ 1; $m_{j-1} = \\max(z_1, \\dots, z_{j-1})$ and $m_j = \\max(m_{j-1}, z_j)$ in the "
                                "algorithm, though the identity holds for any reals; $d_0 = 0$ (an empty sum)"),),
        citations=(MILAKOV_3,),
        checks=(IdentityCheck(end.xreplace({dp: prev}), start, name="claim at random points", n_points=8),
                FunctionCheck("Algorithm 3 in numpy, element by element", _step_check)),
        notes=("The claim holds for every j, so by induction on j the running sum after the last element is "
               "$\\sum_{i=1}^n e^{z_i - m_n}$ with $m_n = \\max z$: one pass instead of two (max, then sum).",),
    )


#: worked example of the merge: z = (1, 3, 2, 0), split after k = 2
EXAMPLE_Z = (1, 3, 2, 0)


@register(
    "efficient.online-softmax-example",
    title="Online softmax for z = (1, 3, 2, 0) split after 2: ℓ = 1 + e⁻¹ + e⁻² + e⁻³",
    summary="Block 1: $m_1 = 3$, $\\ell_1 = e^{-2} + 1$; block 2: $m_2 = 2$, $\\ell_2 = 1 + e^{-2}$; merged with m "
            "= 3.",
)
def online_softmax_example() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck

    e = sp.exp
    one = sp.Integer(1)
    l1 = sp.Add(e(one - 3), e(sp.Integer(0)), evaluate=False)  # e^(1−3) + e^(3−3)
    l2 = sp.Add(e(sp.Integer(0)), e(sp.Integer(-2)), evaluate=False)  # e^(2−2) + e^(0−2)
    start = sp.Add(sp.Mul(e(sp.Integer(0), evaluate=False), l1, evaluate=False),
                   sp.Mul(e(sp.Integer(-1), evaluate=False), l2, evaluate=False), evaluate=False)
    total = 1 + e(-1) + e(-2) + e(-3)
    k = sp.Symbol("k", integer=True)
    row = sp.Lambda(k, sp.Piecewise(*((sp.Integer(v), sp.Eq(k, c)) for c, v in enumerate(EXAMPLE_Z[:-1], 1)),
                                    (sp.Integer(EXAMPLE_Z[-1]), True)))  # z_k for k = 1..4
    return Derivation(
        **metadata("efficient.online-softmax-example"),
        instance="z = (1, 3, 2, 0) split after k = 2",
        start=start,
        steps=(
            Step(sp.Add(e(-2), 1, e(-1), e(-3), evaluate=False),
                 "block 1 needs no rescaling ($m_1 = m = 3$); block 2's sum is multiplied by $e^{2-3}$: the "
                 "merge gives the row's terms $e^{z_j - 3}$ (efficient.online-softmax-merge at $n = 4$, $k = 2$)",
                 by="efficient.online-softmax-merge",
                 where={"z": row, "n": sp.Integer(4), "split": sp.Integer(2), "m_1": sp.Integer(3),
                        "m_2": sp.Integer(2), "m_run": sp.Integer(3)}, citation=DAO_31),
            Step(total, "the four terms $e^{z_j - 3}$ of the whole row, $j = 1, 2, 3, 4$, reordered"),
        ),
        assumptions=(Assumption("z = (1, 3, 2, 0); block 1 = (1, 3) with $m_1 = 3$, $\\ell_1 = e^{1-3} + e^{3-3}$; "
                                "block 2 = (2, 0) with $m_2 = 2$, $\\ell_2 = e^{2-2} + e^{0-2}$; m = max(3, 2) = 3"),),
        citations=(DAO_31,),
        checks=(
            ValueCheck(r"$\ell = \sum_j e^{z_j - 3}$", total, "1.5530", "derived"),
            ValueCheck(r"$\operatorname{softmax}(z)_2 = 1/\ell$, the largest weight", 1 / total, "0.6439", "derived"),
        ),
        notes=(r"The direct computation over the whole row gives the same $\ell$: $e^{1-3} + e^{3-3} + e^{2-3} + "
               "e^{0-3}$. Block 2 never saw the row's maximum, and the factor $e^{m_2-m} = e^{-1}$ corrects for it.",),
    )


def _cache_sizes() -> tuple[Any, ...]:
    from .notation import sym

    return sym("n_params"), sym("n_layers"), sym("n_heads"), sym("d_k"), sym("n"), sym("t_step"), sym("s_pos")


GPT2 = {"n_params": 84_934_656, "n_layers": 12, "n_heads": 12, "d_k": 64}  # GPT-2 small, non-embedding N


def _at(expr: Any, **values: int) -> Any:
    import sympy as sp

    from .notation import sym

    return expr.xreplace({sym(k): sp.Integer(v) for k, v in values.items()})


def with_cache_total() -> Any:
    """2N·n + 2·n_layers·d_attn·n(n + 1): forward FLOPs of decoding n tokens with a KV cache."""
    N, L, h, dk, n, _, _ = _cache_sizes()
    return 2 * N * n + 2 * L * h * dk * n * (n + 1)


def without_cache_total() -> Any:
    """N·n(n + 1) + 2·n_layers·d_attn·n(n + 1)(n + 2)/3: the same without a cache (prefix recomputed)."""
    N, L, h, dk, n, _, _ = _cache_sizes()
    return N * n * (n + 1) + 2 * L * h * dk * n * (n + 1) * (n + 2) / 3


def counted_decoding(cached: bool) -> Any:
    """A cross-check: the closed form against the multiply-adds counted in a real decoding loop.

    The reference decoder of :mod:`derive.params.reference` decodes n tokens of a batch at four sizes
    (MHA and MQA with GELU, GQA and MHA with SwiGLU), with a KV cache or rerunning the prefix; its
    counter's FLOPs of the layers' products (weights, qKᵀ, A·V; the LM head left out as in the
    assumptions) per sequence must equal the closed form with N = the layers' matrix entries.
    """
    from ..crosscheck import FunctionCheck

    total = with_cache_total if cached else without_cache_total

    def check(seed: int) -> tuple[bool, dict, str]:
        from ..params.reference import runs

        rows = []
        for r in runs():
            c = r.config
            counter = r.cached if cached else r.uncached
            counted = counter.flops("weights", "qk", "av") // r.batch
            closed = _at(total(), n_params=r.n_matrix_weights, n_layers=c.n_layers, n_heads=c.n_heads,
                         d_k=c.head_dim, n=r.n)
            rows.append({"d_model": c.d_model, "n_heads": c.n_heads, "n_kv_heads": c.n_kv_heads, "d_k": c.head_dim,
                         "d_ff": c.d_ff, "ffn": c.ffn, "n_layers": c.n_layers, "N": r.n_matrix_weights, "n": r.n,
                         "counted": counted, "closed_form": int(closed), "logit_gap": r.max_logit_gap})
        ok = all(row["counted"] == row["closed_form"] for row in rows) and all(r["logit_gap"] < 1e-9 for r in rows)
        text = "; ".join(f"d_model {r['d_model']}, h {r['n_heads']}/{r['n_kv_heads']}, {r['n_layers']} layers, "
                         f"n {r['n']}: counted {r['counted']:,} = closed {r['closed_form']:,}" for r in rows)
        return ok, {"rows": rows}, (f"checked against a counted forward pass ({'with' if cached else 'without'} a "
                                    f"KV cache, numpy): {text}" if ok else f"disagreement: {rows}")

    how = "a real KV-cache decoding loop" if cached else "rerunning the prefix at every step"
    return FunctionCheck(f"checked against the multiply-adds counted in a numpy decoder ({how}), four sizes",
                         check)


def _intensity_check(end: Any) -> Any:
    from ..params.reference_checks import decoding_intensity

    return decoding_intensity(end)


CACHED_CHECK = counted_decoding(cached=True)
UNCACHED_CHECK = counted_decoding(cached=False)


@register(
    "efficient.kv-cache-flops",
    title=(r"Decoding n tokens with a KV cache costs $2N\cdot n + 2\cdot n_{\text{layers}}\cdot d_{\text{attn}}\cdot "
           "n(n + 1)$ FLOPs, for any n"),
    summary="Token t runs the weights once (2N) and attends over t cached positions ($4 n_{layers} t d_{attn}$: "
            "$2 t d_{attn}$ for $qK^\\top$ and as much for the weighted sum of V, per layer); summed "
            "over t = 1..n the weight part is linear in n.",
)
def kv_cache_flops() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck
    from ..rules import Evaluate

    N, L, h, dk, n, t, _ = _cache_sizes()
    per_token = 2 * N + 4 * L * t * h * dk
    end = with_cache_total()
    return Derivation(
        **metadata("efficient.kv-cache-flops"),
        start=sp.Sum(per_token, (t, 1, n)),
        steps=(
            Step(sp.Add(2 * N * n, sp.Mul(4, L, h, dk, n * (n + 1), sp.Rational(1, 2), evaluate=False), evaluate=False),
                 "n copies of 2N, and $\\sum_{t=1}^n t = n(n+1)/2$",
                 rule=Evaluate("the sum"), citation=KAPLAN_T1),
            Step(end, "$4/2 = 2$"),
        ),
        assumptions=(Assumption("Kaplan's per-token forward count (params.flops-kaplan) with $d_{attn} = h d_k$: "
                                "2N for "
                                "the weights of the new token only (its K and V rows are appended to the cache) and "
                                "$4 n_{layers} t d_{attn}$ to attend over the t positions 1..t ($2 t d_{attn}$ per "
                                "layer for the scores $qK^\\top$ and as much for the weighted sum of V, as in "
                                "params.flops-exact); the prompt is empty, "
                                "embeddings, norms and the LM head are left out"),),
        citations=(KAPLAN_T1, Citation("pope2023")),
        checks=(ValueCheck("GPT-2 small (N = 84,934,656), n = 1024 tokens", _at(end, n=1024, **GPT2),
                           "1.9329e11", "derived"),
                CACHED_CHECK),
        notes=("The memory the cache takes is params.kv-cache-token per token: $2 n_{layers} h_{kv} d_k b$ "
               "bytes; the FLOPs it saves are efficient.no-cache-flops minus this.",),
    )


@register(
    "efficient.no-cache-flops",
    title=r"Decoding n tokens without a cache costs $N\cdot n(n + 1) + 2\cdot n_{\text{layers}}\cdot "
          r"d_{\text{attn}}\cdot n(n + 1)(n + 2)/3$ FLOPs, for any n",
    summary="Token t reruns the whole prefix of t tokens: $\\sum_{t \\le n} \\sum_{s \\le t} (2N + 4 n_{layers} s "
            "d_{attn})$, quadratic in "
            "n for the weights and cubic for attention.",
)
def no_cache_flops() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck
    from ..rules import Evaluate

    N, L, h, dk, n, t, s = _cache_sizes()
    inner = 2 * N + 4 * L * s * h * dk
    end = without_cache_total()
    return Derivation(
        **metadata("efficient.no-cache-flops"),
        start=sp.Sum(sp.Sum(inner, (s, 1, t)), (t, 1, n)),
        steps=(
            Step(sp.Sum(2 * N * t + 2 * L * h * dk * t * (t + 1), (t, 1, n)),
                 "the inner sum is a cached decode of the $t$ tokens of the prefix: $2N t + 2 n_{layers} d_{attn} "
                 "t(t + 1)$ (efficient.kv-cache-flops with $n = t$)", by="efficient.kv-cache-flops", where={n: t},
                 citation=KAPLAN_T1),
            Step(end, "$\\sum_{t=1}^n t = \\frac{n(n+1)}{2}$ and $\\sum_{t=1}^n t(t+1) = \\frac{n(n+1)(n+2)}{3}$",
                 rule=Evaluate("the outer sum")),
        ),
        assumptions=(Assumption("the counts of efficient.kv-cache-flops, but step t recomputes K and V for all t "
                                "tokens of the prefix: t forward passes of 2N plus, for each position s ≤ t, "
                                "attention over s positions"),),
        citations=(KAPLAN_T1, Citation("pope2023")),
        checks=(
            ValueCheck("GPT-2 small, n = 1024 tokens", _at(end, n=1024, **GPT2), "9.5764e13", "derived"),
            ValueCheck("GPT-2 small, n = 1024: no cache over cache", _at(end / with_cache_total(), n=1024, **GPT2),
                       "495.4", "derived"),
            UNCACHED_CHECK,
        ),
        notes=("Without the cache the weight part alone grows as n²: decoding 1024 tokens of GPT-2 small costs "
               "about 500 times more than with the cache. The ratio of the weight parts is (n + 1)/2.",),
    )


@register(
    "efficient.decoding-intensity",
    title=(r"Decoding attention does $2h/(h_{kv}\cdot b)$ FLOPs per byte of KV cache read: $h/h_{kv}$ "
           "times more with GQA"),
    summary="Per token and layer: $4 t h d_k$ FLOPs (scores and weighted sum) over $2 t h_{kv} d_k b$ bytes of cache; "
            "MHA in bf16 does 1 FLOP per byte.",
)
def decoding_intensity() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck
    from .notation import sym

    L, h, dk, t = sym("n_layers"), sym("n_heads"), sym("d_k"), sym("t_step")
    hkv, b = sym("n_kv_heads"), sym("bytes_per_value")
    flops = sp.Mul(L, sp.Add(sp.Mul(2, t, h, dk, evaluate=False), sp.Mul(2, t, h, dk, evaluate=False),
                             evaluate=False), evaluate=False)
    row = sp.Mul(hkv, dk, b, evaluate=False)  # one cached K (or V) row of one layer, in bytes
    bytes_ = sp.Mul(t, sp.Mul(L, sp.Add(row, row, evaluate=False), evaluate=False), evaluate=False)
    end = 2 * h / (hkv * b)
    return Derivation(
        **metadata("efficient.decoding-intensity"),
        start=sp.Mul(flops, sp.Pow(bytes_, -1, evaluate=False), evaluate=False),
        steps=(
            Step(sp.Mul(sp.Mul(4, L, t, h, dk, evaluate=False), sp.Pow(bytes_, -1, evaluate=False), evaluate=False),
                 "the scores $q K^\\top$ and the weighted sum of $V$ "
                 "each take $2 t d_k$ FLOPs per query head", citation=Citation("shazeer2019", "§3")),
            Step(sp.Mul(sp.Mul(4, L, t, h, dk, evaluate=False),
                        sp.Pow(sp.Mul(t, 2 * L * hkv * dk * b, evaluate=False), -1, evaluate=False), evaluate=False),
                 "the $t$ cached tokens take $2 N h_{kv} d_k b$ bytes each (params.kv-cache-token)",
                 by="params.kv-cache-token"),
            Step(end, "$n_{layers}$, $t$ and $d_k$ cancel: the cache is read once per generated token, whatever its "
                      "length", citation=Citation("ainslie2023")),
        ),
        assumptions=(Assumption("one new token at step t, batch 1: every query head reads its group's cached keys "
                                "and values of the t positions, $h_{kv} d_k$ numbers of b bytes each per position "
                                r"and layer (params.kv-cache-token); $h_{kv}$ divides h"),),
        citations=(Citation("shazeer2019", "§3"), Citation("ainslie2023"), Citation("pope2023")),
        checks=(
            ValueCheck(r"MHA $(h_{kv} = h)$, bf16", end.xreplace({hkv: h, b: 2}), "1", "derived"),
            ValueCheck("Llama 2 70B: 64 heads, 8 KV heads, bf16", _at(end, n_heads=64, n_kv_heads=8,
                                                                       bytes_per_value=2), "8", "derived"),
            ValueCheck("Falcon-7B, MQA: 71 heads, 1 KV head, bf16", _at(end, n_heads=71, n_kv_heads=1,
                                                                         bytes_per_value=2), "71", "derived"),
            _intensity_check(end),
        ),
        notes=("An accelerator does a few hundred FLOPs in the time it reads one byte from memory, so at 1 FLOP per "
               r"byte decoding attention is bound by memory bandwidth; the $h/h_{kv} = 8$ of GQA raises the "
               "intensity eightfold and cuts the cache's traffic (and size, params.kv-cache-gqa) by the same factor.",),
    )
