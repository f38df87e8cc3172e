"""Grouped-query attention as multi-head attention on repeated key/value heads.

With h query heads and h_kv key/value heads (h_kv dividing h), query head i reads key/value head
g(i) = ⌈i·h_kv/h⌉, i.e. heads are grouped in blocks of G = h/h_kv consecutive query heads
(Ainslie et al. 2023, §2.2). Implementations compute it as ordinary multi-head attention after
repeating each K/V head G times (Hugging Face's ``repeat_kv``: head i takes K/V head ⌊(i−1)/G⌋ + 1,
the same index). The repetition is a 0/1 matrix R with R_gi = δ(g, g(i)); here the attention
output of MHA on RK, RV is shown to be the GQA output, componentwise, for symbolic sizes.
The parameter and cache savings are derived in params.gqa-attention and params.kv-cache-gqa.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

AINSLIE_22 = Citation("ainslie2023", "§2.2")
VASWANI_322 = Citation("vaswani2017", "§3.2.2")


def kv_head_of(i: int, n_heads: int, n_kv_heads: int) -> int:
    """The key/value head (1-based) that query head ``i`` (1-based) reads: ⌈i·h_kv/h⌉ = ⌊(i−1)/G⌋ + 1, G = h/h_kv.

    Raises:
        ValueError: ``n_kv_heads`` does not divide ``n_heads``, or ``i`` is not in 1..n_heads.

    Source: Ainslie et al. 2023, §2.2.
    """
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError(f"n_kv_heads = {n_kv_heads} must divide n_heads = {n_heads}")
    if not 1 <= i <= n_heads:
        raise ValueError(f"query head {i} is not in 1..{n_heads}")
    return (i - 1) // (n_heads // n_kv_heads) + 1


def repeat_kv(kv: np.ndarray, n_rep: int) -> np.ndarray:
    """Repeat each key/value head ``n_rep`` times along the head axis.

    Args:
        kv: shape ``(n_kv_heads, n, d_k)``.
        n_rep: G = n_heads/n_kv_heads.

    Returns:
        Array ``(n_kv_heads·n_rep, n, d_k)``: head i (0-based) is ``kv[i // n_rep]``.

    Source: the ``repeat_kv`` of Hugging Face's LLaMA implementation, written with numpy.
    """
    return np.repeat(np.asarray(kv, dtype=np.float64), n_rep, axis=0)


def _check(seed: int) -> tuple[bool, dict, str]:
    from .softmax_numeric import softmax

    rng = np.random.default_rng(seed)
    worst, index_ok, cases = 0.0, True, 0
    for h, h_kv in ((8, 2), (8, 8), (8, 1), (12, 4), (32, 8)):
        n, d_k = 5, 4
        G = h // h_kv
        q = rng.normal(size=(h, n, d_k))
        k, v = rng.normal(size=(h_kv, n, d_k)), rng.normal(size=(h_kv, n, d_k))
        kr, vr = repeat_kv(k, G), repeat_kv(v, G)
        mha = softmax(q @ kr.transpose(0, 2, 1) / np.sqrt(d_k)) @ vr  # (h, n, d_k)
        for i in range(1, h + 1):
            g = -(-i * h_kv // h)  # ⌈i·h_kv/h⌉
            index_ok &= g == kv_head_of(i, h, h_kv)
            gqa = softmax(q[i - 1] @ k[g - 1].T / np.sqrt(d_k)) @ v[g - 1]  # (n, d_k)
            worst = max(worst, float(np.max(np.abs(mha[i - 1] - gqa))))
            cases += 1
    ok = index_ok and worst < 1e-12
    return ok, {"(h, h_kv)": [(8, 2), (8, 8), (8, 1), (12, 4), (32, 8)], "heads_compared": cases,
                "max_abs_difference": worst, "ceil(i h_kv/h) == (i-1)//G + 1": bool(index_ok)}, (
        f"MHA on repeat_kv(K), repeat_kv(V) equals per-head GQA within {worst:.1e} for {cases} heads, and "
        "⌈i·h_kv/h⌉ = ⌊(i−1)/G⌋ + 1 for every head (MHA, GQA and MQA shapes)")


@register(
    "multihead.gqa-repeat-kv",
    title=(r"GQA is multi-head attention on K/V heads repeated $h/h_{kv}$ times: head i reads K/V head "
           r"$\lceil i h_{kv}/h \rceil$, for any sizes"),
    summary="With $K^{rep}_i = \\sum_g \\delta_{g, g(i)} K_g$ (and the same for V), the MHA output of head i is "
            "$\\sum_s \\operatorname{softmax}_s(q_{t} \\cdot K_{g(i), s}/\\sqrt{d_k})\\, V_{g(i), s}$: the GQA "
            "output, for symbolic n, $d_k$, h, $h_{kv}$.",
)
def gqa_repeat_kv() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck
    from ..sums import SiftDelta
    from .notation import sym

    n, d_k, h, h_kv, i = sym("n"), sym("d_k"), sym("n_heads"), sym("n_kv_heads"), sym("head_index")
    t, s_, r, e, c, g = (sp.Symbol(nm, integer=True, positive=True) for nm in ("t", "s", "r", "e", "c", "g"))
    Q = sp.IndexedBase("Q", real=True)  # Q[i, t, e]: query head i
    K, V = sp.IndexedBase("K", real=True), sp.IndexedBase("V", real=True)  # K[g, s, e]: K/V head g
    gi = sp.ceiling(i * h_kv / h)
    D = sp.KroneckerDelta

    def rep(M: Any, row: Any, col: Any) -> Any:  # entry (row, col) of repeated head i: Σ_g δ(g, g(i)) M_g
        return sp.Sum(D(g, gi) * M[g, row, col], (g, 1, h_kv))

    def score(key: Any) -> Any:  # exp(q_t · key_s/√d_k), key(s, e) an entry
        return sp.exp(sp.Sum(Q[i, t, e] * key(s_, e), (e, 1, d_k)) / sp.sqrt(d_k))

    def output(key: Any, val: Any) -> Any:
        num = sp.Sum(score(key) * val(s_, c), (s_, 1, n))
        den = sp.Sum(score(key).xreplace({s_: r}), (r, 1, n))
        return num / den

    start = output(lambda a, b: rep(K, a, b), lambda a, b: rep(V, a, b))
    end = output(lambda a, b: K[gi, a, b], lambda a, b: V[gi, a, b])
    return Derivation(
        **metadata("multihead.gqa-repeat-kv"),
        start=start,
        premises=(sp.Le(gi, h_kv),),
        steps=(
            Step(end, "each repeated entry is a sum over the $h_{kv}$ K/V heads with a Kronecker delta: only "
                      "$g = \\lceil i h_{kv}/h \\rceil$ survives, in the keys and in the values",
                 rule=SiftDelta(gi), citation=AINSLIE_22),
        ),
        assumptions=(Assumption("h query heads, $h_{kv}$ key/value heads with $h_{kv}$ dividing h, so $G = h/h_{kv}$ "
                                "query heads share each K/V head; query head i (1 ≤ i ≤ h) is paired with "
                                "$g(i) = \\lceil i h_{kv}/h \\rceil \\le h_{kv}$; n tokens, head width $d_k$, all "
                                "symbolic; output row t, column c"),),
        definitions=((sp.Function("g")(i), gi),),
        citations=(AINSLIE_22, VASWANI_322),
        checks=(FunctionCheck(r"numpy: MHA on $\mathtt{repeat\_kv}(K, V)$ against per-head GQA", _check),),
        notes=("$\\lceil i h_{kv}/h \\rceil = \\lfloor (i-1)/G \\rfloor + 1$ is the index $\\mathtt{repeat\\_kv}$ uses "
               "(checked numerically). So any MHA kernel runs GQA unchanged once K and V are repeated; what GQA "
               "saves is what is stored and read: $W_K, W_V$ of $d_{model} \\times h_{kv} d_k$ "
               "(params.gqa-attention) and a KV cache $h/h_{kv}$ times smaller (params.kv-cache-gqa). "
               "$h_{kv} = h$ is MHA, $h_{kv} = 1$ is multi-query attention.",),
    )
