"""Figures of the chapters on positions, efficient attention and scaling (matplotlib, Agg, fixed seeds).

Each function returns a matplotlib figure; :data:`derive.sphinxext.plots.PLOTS` names them for the
``derive-plot`` directive. The numbers come from the catalog modules: :mod:`derive.transformer.rope`,
:mod:`derive.transformer.alibi`, :mod:`derive.transformer.efficient`, :mod:`derive.transformer.scaling`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: seed of every random draw in these figures (the same as the other figures')
SEED = 20170612


def _figure(width: float = 7.0, height: float = 3.4, ncols: int = 1) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt.subplots(1, ncols, figsize=(width, height), layout="constrained")


def rope_offset() -> Any:
    """RoPE score of q = k = (1, …, 1), d = 128, against the offset m − n, at two absolute key positions."""
    from ..transformer.rope import rope_rotate

    d, offsets = 128, np.arange(0, 513)
    q = np.ones((1, d))
    fig, ax = _figure()
    for n0, style in ((0, "-"), (1000, "--")):
        keys = rope_rotate(np.repeat(q, offsets.size, axis=0), np.full(offsets.size, n0))  # (offsets, d)
        queries = rope_rotate(np.repeat(q, offsets.size, axis=0), n0 + offsets)  # (offsets, d)
        ax.plot(offsets, np.sum(queries * keys, axis=1), style, label=f"key at n = {n0}, query at n + offset")
    ax.set_xlabel("offset m − n")
    ax.set_ylabel(r"$\langle R(m)q,\, R(n)k\rangle$")
    ax.set_title("RoPE, d = 128, q = k = (1, …, 1): the two curves coincide")
    ax.legend(fontsize=8)
    return fig


def alibi_bias_matrix() -> Any:
    """The causal ALiBi bias of 12 tokens for heads 1 and 8 of h = 8 (slopes 1/2 and 1/256)."""
    from ..transformer.alibi import alibi_bias, alibi_slopes

    slopes = alibi_slopes(8)
    fig, axes = _figure(7.0, 3.4, ncols=2)
    for ax, k in zip(axes, (0, 7), strict=True):
        bias = alibi_bias(12, float(slopes[k]))  # (12, 12), −inf above the diagonal
        shown = np.ma.masked_invalid(bias)
        im = ax.imshow(shown, cmap="viridis", vmin=float(np.min(bias[np.isfinite(bias)])), vmax=0)
        ax.set_title(f"head {k + 1}: m = 1/{round(1 / slopes[k])}", fontsize=10)
        ax.set_xlabel("key j")
        ax.set_ylabel("query i")
        ax.set_xticks(range(0, 12, 2))
        ax.set_yticks(range(0, 12, 2))
        fig.colorbar(im, ax=ax, shrink=0.8)
    return fig


def online_softmax_running() -> Any:
    """Running maximum and running sum of the online softmax over a row of 64 scores, blocks of 8."""
    from ..transformer.efficient import online_softmax

    rng = np.random.default_rng(SEED)
    z = rng.normal(scale=2.0, size=64)
    z[40] = 7.0  # a late maximum forces a rescaling
    _, maxima, sums = online_softmax(z, np.ones((64, 1)), 8)
    blocks = np.arange(1, maxima.size + 1) * 8
    fig, (left, right) = _figure(7.0, 3.2, ncols=2)
    left.plot(np.arange(1, 65), z, ".", color="0.6", label="scores $z_j$")
    left.step(blocks, maxima, where="post", label="running max m")
    left.set_xlabel("index j (blocks of 8)")
    left.legend(fontsize=8)
    right.plot(blocks, sums, "o-", label=r"running sum $\ell$")
    right.axhline(float(np.exp(z - z.max()).sum()), color="k", ls=":", label=r"$\sum_j e^{z_j - \max z}$")
    right.set_xlabel("scores seen")
    right.legend(fontsize=8)
    return fig


def compute_optimal_split() -> Any:
    """N_opt = √(C/120) and D_opt = √(10C/3) against C, with three trained models."""
    from ..transformer.scaling import compute_optimal

    c = np.logspace(19, 26, 50)
    n_opt, d_opt = compute_optimal(c, 20.0)
    fig, ax = _figure()
    ax.loglog(c, n_opt, label=r"$N_{opt} = \sqrt{C/120}$ (parameters)")
    ax.loglog(c, d_opt, label=r"$D_{opt} = \sqrt{10C/3}$ (tokens)")
    for name, n, d in (("Chinchilla", 70e9, 1.4e12), ("Gopher", 280e9, 300e9), ("GPT-3", 175e9, 300e9)):
        ax.loglog([6 * n * d], [n], "o", color="C0")
        ax.loglog([6 * n * d], [d], "s", color="C1")
        ax.annotate(name, (6 * n * d, n), textcoords="offset points", xytext=(4, -10), fontsize=8)
    ax.set_xlabel("training compute C (FLOPs)")
    ax.set_ylabel("count")
    ax.set_title("Compute-optimal split at 20 tokens per parameter (circles N, squares D)", fontsize=10)
    ax.legend(fontsize=8)
    return fig
