"""More figures for the site, where a reader would rather look than read (issue 12).

* ``softmax-jacobian-scale``: the softmax Jacobian vanishes as the scores are scaled up
  (the picture of ``softmax.saturation``; Vaswani et al. 2017, §3.2.1, footnote 4);
* ``norm-geometry``: RMSNorm puts every vector on the sphere of radius √d; LayerNorm first
  removes the mean, so its outputs lie on that sphere *and* in the plane Σ x_i = 0
  (Ba et al. 2016, §3; Zhang & Sennrich 2019, §3);
* ``gelu-swish-relu``: GELU and Swish against ReLU (Hendrycks & Gimpel 2016; Ramachandran et al. 2017).

Each function returns a matplotlib figure with labelled axes and its legend above the axes
(``fig.legend(loc="outside upper center")``), so no legend covers data. They are registered in
:data:`derive.sphinxext.plots.PLOTS` through :data:`MORE_PLOTS`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

#: seed of the random vectors drawn for the figures
PLOT_SEED = 12


def _figure(width: float = 7.0, height: float = 3.4, ncols: int = 1) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt.subplots(1, ncols, figsize=(width, height), layout="constrained")


def softmax_jacobian_norm(scores: np.ndarray, scale: float) -> float:
    """Largest absolute entry of the Jacobian ``diag(s) − s sᵀ`` of softmax at ``scale * scores``.

    Args:
        scores: a score vector, shape ``(n,)``.
        scale: the factor λ (for attention, 1/√d_k undone: scores grow like √d_k).

    Returns:
        ``max_ij |∂s_i/∂z_j|`` (at most 1/4, reached by two equal top scores).
    """
    z = scale * np.asarray(scores, dtype=float)
    s = np.exp(z - z.max())
    s /= s.sum()
    return float(np.max(np.abs(np.diag(s) - np.outer(s, s))))


def softmax_jacobian_scale() -> Any:
    """max |∂s_i/∂z_j| against the scale λ of the scores, for a few score vectors of length 8."""
    rng = np.random.default_rng(PLOT_SEED)
    scales = np.logspace(-1, 1.5, 101)
    fig, ax = _figure(7.0, 3.6)
    for k in range(4):
        g = rng.normal(size=8)
        ax.plot(scales, [softmax_jacobian_norm(g, lam) for lam in scales], label=f"random scores g{k + 1}")
    ax.axhline(0.25, color="gray", lw=0.8, ls=":", label="bound 1/4 (two equal top scores)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("scale λ of the scores z = λg (log)")
    ax.set_ylabel("largest |∂s_i/∂z_j| (log)")
    ax.set_ylim(1e-7, 1)
    fig.legend(loc="outside upper center", fontsize=8, ncols=3)
    return fig


def norm_geometry() -> Any:
    """Left: RMSNorm maps 2-vectors onto the circle of radius √2. Right: 3-vectors and their LayerNorm,
    seen in the plane Σ x_i = 0 (coordinates along (1, −1, 0)/√2 and (1, 1, −2)/√6): a circle of radius √3."""
    rng = np.random.default_rng(PLOT_SEED)
    fig, (left, right) = _figure(7.0, 3.8, ncols=2)
    x = rng.normal(size=(60, 2)) * [1.6, 0.7] + [0.8, 0.4]
    rms = x / np.sqrt((x ** 2).mean(axis=1, keepdims=True))
    t = np.linspace(0, 2 * math.pi, 200)
    left.plot(math.sqrt(2) * np.cos(t), math.sqrt(2) * np.sin(t), color="gray", lw=0.8,
              label="circle of radius √d")
    left.scatter(x[:, 0], x[:, 1], s=9, color="tab:gray", alpha=0.6, label="inputs x")
    left.scatter(rms[:, 0], rms[:, 1], s=12, color="tab:blue", label="RMSNorm(x)")
    left.set_xlabel("x₁")
    left.set_ylabel("x₂")
    left.set_title("RMSNorm, d = 2", fontsize=9)
    y = rng.normal(size=(60, 3)) * [1.5, 0.8, 0.5] + [0.5, 0.0, -0.3]
    centred = y - y.mean(axis=1, keepdims=True)
    ln = centred / np.sqrt((centred ** 2).mean(axis=1, keepdims=True))
    basis = np.array([[1, -1, 0], [1, 1, -2]], dtype=float)
    basis /= np.linalg.norm(basis, axis=1, keepdims=True)
    p_in, p_out = y @ basis.T, ln @ basis.T
    right.plot(math.sqrt(3) * np.cos(t), math.sqrt(3) * np.sin(t), color="gray", lw=0.8)
    right.scatter(p_in[:, 0], p_in[:, 1], s=9, color="tab:gray", alpha=0.6)
    right.scatter(p_out[:, 0], p_out[:, 1], s=12, color="tab:orange", label="LayerNorm(x) (ε = 0)")
    right.set_xlabel("along (1, −1, 0)/√2")
    right.set_ylabel("along (1, 1, −2)/√6")
    right.set_title("LayerNorm, d = 3, in the plane Σ xᵢ = 0", fontsize=9)
    for ax in (left, right):
        ax.set_aspect("equal", adjustable="datalim")
        ax.grid(True, lw=0.3)
    fig.legend(loc="outside upper center", fontsize=8, ncols=4)
    return fig


def gelu(t: np.ndarray) -> np.ndarray:
    """GELU(t) = t Φ(t), Φ the standard normal CDF (Hendrycks & Gimpel 2016, §2)."""
    from math import erf

    return np.asarray(t) * 0.5 * (1.0 + np.vectorize(erf)(np.asarray(t) / math.sqrt(2.0)))


def swish(t: np.ndarray) -> np.ndarray:
    """Swish(t) = SiLU(t) = t σ(t) (Ramachandran et al. 2017, §4)."""
    t = np.asarray(t, dtype=float)
    return t / (1.0 + np.exp(-t))


def gelu_swish_relu() -> Any:
    """ReLU, GELU and Swish on [−4, 3], and a close-up of the negative side where they differ."""
    t = np.linspace(-4, 3, 701)
    fig, (ax, zoom) = _figure(7.0, 3.4, ncols=2)
    curves = (("ReLU: max(0, t)", np.maximum(0, t), "tab:gray", "--"),
              ("GELU: t Φ(t)", gelu(t), "tab:blue", "-"),
              ("Swish: t σ(t)", swish(t), "tab:orange", "-"))
    for label, y, colour, style in curves:
        ax.plot(t, y, color=colour, ls=style, label=label)
        zoom.plot(t, y, color=colour, ls=style)
    ax.set_xlabel("pre-activation t")
    ax.set_ylabel("activation")
    zoom.set_xlim(-4, 1)
    zoom.set_ylim(-0.35, 0.8)
    zoom.set_xlabel("pre-activation t (close-up)")
    zoom.set_ylabel("activation")
    zoom.axhline(0, color="black", lw=0.4)
    for a in (ax, zoom):
        a.grid(True, lw=0.3)
    fig.legend(loc="outside upper center", fontsize=8, ncols=3)
    return fig


#: name -> function returning a matplotlib figure (merged into :data:`derive.sphinxext.plots.PLOTS`)
MORE_PLOTS: dict[str, Callable[[], Any]] = {
    "softmax-jacobian-scale": softmax_jacobian_scale,
    "norm-geometry": norm_geometry,
    "gelu-swish-relu": gelu_swish_relu,
}
