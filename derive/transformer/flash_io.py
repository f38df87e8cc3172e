"""FlashAttention's IO complexity: the HBM accesses of standard and of tiled attention, counted.

Dao et al. 2022 (§3.2, Theorem 2; the proof in Appendix C) count reads and writes of high-bandwidth
memory (HBM) for a sequence of N tokens, head width d and an on-chip SRAM of M elements
(d ≤ M ≤ N·d): standard attention (their Algorithm 0) moves Θ(N·d + N²) elements, FlashAttention
(Algorithm 1) Θ(N²·d²/M). Here both counts are written out exactly for the model the theorem
analyses — block sizes B_c = M/(4d) for K, V and B_r for Q, O; T_c = N/B_c outer and T_r = N/B_r
inner iterations, taken to divide evenly — and the orders of growth read off the closed forms.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Assumption, Citation, Derivation, Step
from ..registry import metadata, register

DAO_THM2 = Citation("dao2022", "§3.2, Theorem 2")
DAO_ALG0 = Citation("dao2022", "Appendix B, Algorithm 0")
DAO_ALG1 = Citation("dao2022", "§3.1, Algorithm 1")
DAO_C = Citation("dao2022", "Appendix C, proof of Theorem 2")


def standard_attention_io(n: int, d: int) -> int:
    """HBM elements read and written by standard attention (Algorithm 0): 4·N·d + 4·N².

    Args:
        n: sequence length N (tokens).
        d: head width.

    Returns:
        Elements moved (multiply by the bytes per element for bytes).

    Raises:
        ValueError: ``n`` or ``d`` is not a positive integer.

    Source: Dao et al. 2022, Appendix B (Algorithm 0); derived in efficient.standard-attention-io.
    """
    _check_sizes(n=n, d=d)
    return 4 * n * d + 4 * n * n


def flash_attention_io(n: int, d: int, sram: int, block_rows: int) -> int:
    """HBM elements read and written by FlashAttention's forward pass (Algorithm 1), by walking its loops.

    Args:
        n: sequence length N.
        d: head width.
        sram: on-chip memory M in elements; the K/V block has B_c = M/(4d) rows.
        block_rows: B_r, the rows of a Q/O block.

    Returns:
        Elements moved: each of the T_c = N/B_c outer iterations loads K_j, V_j (2·B_c·d) and, for each
        of the T_r = N/B_r inner iterations, reads Q_i, O_i, ℓ_i, m_i and writes O_i, ℓ_i, m_i.

    Raises:
        ValueError: a size is not a positive integer, or 4d does not divide M, or the blocks do not divide N.

    Source: Dao et al. 2022, §3.1, Algorithm 1; derived in efficient.flash-attention-io.
    """
    _check_sizes(n=n, d=d, sram=sram, block_rows=block_rows)
    if sram % (4 * d) or n % (sram // (4 * d)) or n % block_rows:
        raise ValueError(f"the blocks must divide evenly: 4d = {4 * d} must divide M = {sram}, and "
                         f"B_c = M/(4d) and B_r = {block_rows} must divide N = {n}")
    b_c = sram // (4 * d)
    total = 0
    for _ in range(n // b_c):  # outer loop over K, V blocks
        total += 2 * b_c * d  # load K_j, V_j
        for _ in range(n // block_rows):  # inner loop over Q, O blocks
            total += 2 * block_rows * d + 2 * block_rows  # read Q_i, O_i, ℓ_i, m_i
            total += block_rows * d + 2 * block_rows  # write O_i, ℓ_i, m_i
    return total


def _check_sizes(**sizes: Any) -> None:
    for name, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _symbols() -> tuple:
    import sympy as sp

    from .notation import sym

    return sym("n_ctx"), sym("d_k"), sp.Symbol("M", positive=True), sp.Symbol("B_r", positive=True)


def _loop_check(seed: int) -> tuple[bool, dict, str]:
    """The closed forms against the loops of Algorithm 1 walked element by element, at several sizes."""
    sizes = ((256, 16, 1024, 16), (1024, 64, 16384, 64), (512, 32, 4096, 8), (2048, 128, 65536, 128))
    figures, ok = {}, True
    for n, d, m, b_r in sizes:
        walked = flash_attention_io(n, d, m, b_r)
        closed = 2 * n * d + 4 * n * n * d * (3 * d + 4) // m
        ok &= walked == closed
        figures[f"N={n}, d={d}, M={m}, B_r={b_r}"] = {"walked": walked, "closed form": closed,
                                                      "standard": standard_attention_io(n, d)}
    return ok, figures, (f"Algorithm 1's loops walked at {len(sizes)} sizes move exactly 2Nd + 4N²d(3d + 4)/M "
                         "elements")


@register(
    "efficient.standard-attention-io",
    title="Standard attention reads and writes $4 n_{\\text{ctx}} d_k + 4 n_{\\text{ctx}}^2$ elements of HBM, for any "
          "sizes",
    summary="Load Q, K ($2 n_{\\text{ctx}} d_k$), write S ($n_{\\text{ctx}}^2$), read S and write P "
            "($2 n_{\\text{ctx}}^2$), read P and V ($n_{\\text{ctx}}^2 + n_{\\text{ctx}} d_k$), write O "
            "($n_{\\text{ctx}} d_k$): $\\Theta(n_{\\text{ctx}} d_k + n_{\\text{ctx}}^2)$, for symbolic "
            "$n_{\\text{ctx}}$ and $d_k$.",
)
def standard_attention_io_derivation() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck

    N, d, _, _ = _symbols()
    nd, nn = sp.Mul(N, d, evaluate=False), sp.Pow(N, 2, evaluate=False)
    start = sp.Add(sp.Add(nd, nd, evaluate=False), nn, sp.Add(nn, nn, evaluate=False), sp.Add(nn, nd, evaluate=False),
                   nd, evaluate=False)
    return Derivation(
        **metadata("efficient.standard-attention-io"),
        start=start,
        steps=(Step(4 * N * d + 4 * N**2, "collect: four matrices of size N × d and four of size N × N cross "
                    "the memory bus", citation=DAO_ALG0),),
        assumptions=(Assumption("Algorithm 0 of Dao et al. 2022: $S = QK^\\top$ is written to HBM, read back for "
                                "the softmax, $P$ written and read back for $O = PV$; Q, K, V, O are "
                                "$n_{\\text{ctx}} \\times d_k$ (the paper's N × d); counts in elements"),),
        citations=(DAO_ALG0, DAO_THM2),
        checks=(ValueCheck("N = 1024, d = 64 (a GPT-2 head)", (4 * N * d + 4 * N**2).subs({N: 1024, d: 64}),
                           "4456448", "derived"),),
        notes=("For N ≫ d the $4N^2$ of the score and probability matrices dominates: at N = 1024, d = 64 it "
               "is 94% of the traffic.",),
    )


@register(
    "efficient.flash-attention-io",
    title="FlashAttention's tiled loops move $2 n_{\\text{ctx}} d_k + 4 n_{\\text{ctx}}^2 d_k (3 d_k + 4)/M$ "
          "elements of HBM, for any sizes",
    summary="$T_c = 4 n_{\\text{ctx}} d_k/M$ outer iterations each load one K, V block ($M/2$ elements) and sweep "
            "all of Q, O, ℓ, m ($n_{\\text{ctx}}(3 d_k + 4)$ elements): "
            "$2 n_{\\text{ctx}} d_k + 4 n_{\\text{ctx}}^2 d_k (3 d_k + 4)/M$, for symbolic $n_{\\text{ctx}}$, "
            "$d_k$, M, $B_r$.",
)
def flash_attention_io_derivation() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck

    N, d, M, B_r = _symbols()
    B_c = M / (4 * d)
    T_c, T_r = N / B_c, N / B_r
    start = T_c * (2 * B_c * d + T_r * (sp.Mul(3, B_r, d) + 4 * B_r))
    end = 2 * N * d + 4 * N**2 * d * (3 * d + 4) / M
    return Derivation(
        **metadata("efficient.flash-attention-io"),
        start=start,
        steps=(
            Step(T_c * (M / 2 + N * (3 * d + 4)),
                 "one K, V block is $2 B_c d_k = M/2$ elements; the inner loop's $T_r = n_{\\text{ctx}}/B_r$ "
                 "blocks of $3 B_r d_k + 4 B_r$ (read $Q_i, O_i, \\ell_i, m_i$, write $O_i, \\ell_i, m_i$) add up "
                 "to $n_{\\text{ctx}}(3 d_k + 4)$, whatever $B_r$", citation=DAO_ALG1),
            Step(end, "$T_c = n_{\\text{ctx}}/B_c = 4 n_{\\text{ctx}} d_k/M$ outer iterations; multiply out",
                 citation=DAO_C),
        ),
        assumptions=(Assumption("Algorithm 1 of Dao et al. 2022 (forward pass, one head; its sequence length N "
                                "and head width d are $n_{\\text{ctx}}$ and $d_k$ here): SRAM of M elements, "
                                "$B_c = M/(4d_k)$ rows of K and V per outer iteration, $B_r$ rows of Q and O per inner "
                                "iteration; the blocks divide $n_{\\text{ctx}}$ evenly; the running statistics ℓ, m "
                                "are one number per row; counts in elements"),),
        citations=(DAO_ALG1, DAO_THM2, DAO_C),
        checks=(FunctionCheck("the closed form against Algorithm 1's loops walked element by element", _loop_check),
                ValueCheck("N = 1024, d = 64, M = 98304 (192 KB of SRAM in 16-bit)",
                           end.subs({N: 1024, d: 64, M: 98304}), "666282.7", "derived"),
                ValueCheck("… against standard attention, 4456448 elements", sp.Integer(4456448) / end.subs(
                    {N: 1024, d: 64, M: 98304}), "6.689", "derived")),
        notes=("With $d \\le M \\le Nd$ the term $12N^2d^2/M$ dominates: $16N^2d/M$ is $4/(3d)$ times it, and "
               "$2Nd \\le 12N^2d^2/M$ because $M \\le 6Nd$. So FlashAttention makes $\\Theta(N^2 d^2 / M)$ "
               "accesses, Theorem 2 of Dao et al. Against $\\Theta(Nd + N^2)$ for "
               "standard attention this is fewer by about $M/(3d^2)$ when $N \\gg d$: for d = 64 and M of order "
               "$10^5$ a factor of a few — the measured speed-ups come from this and from never writing the "
               "N × N matrices at all.",
               "The count is for the model the theorem analyses; a real kernel's reads depend on its loop order "
               "(FlashAttention-2 swaps the loops and reads K, V once per Q block instead).",),
    )
