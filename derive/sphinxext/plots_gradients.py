"""Figures of the chapters on gradients and on initialisation (drawn by ``derive-plot``).

Each function returns a matplotlib figure computed from the package: the closed
forms of :mod:`derive.transformer.gradients` and
:mod:`derive.transformer.initialisation`, with seeded Monte Carlo points beside
them. They are registered in :data:`derive.sphinxext.plots.PLOTS`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: seed of every random draw in these figures (the one of :mod:`derive.sphinxext.plots`)
SEED = 20170612


def _figure(width: float = 7.0, height: float = 3.4, ncols: int = 1) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt.subplots(1, ncols, figsize=(width, height), layout="constrained")


def residual_variance() -> Any:
    """Var of the residual stream against depth, with and without GPT-2's 1/√(2·n_layers) scaling.

    Lines: σ_0² + l·σ_f² and σ_0² + l·σ_f²/N (N = 2·n_layers) from
    :func:`~derive.transformer.initialisation.residual_variance`; dots: sample variances
    of 4,000 simulated streams with uniform branch outputs (seeded).
    """
    from ..transformer.initialisation import residual_variance as closed

    n_layers = 12
    N = 2 * n_layers  # residual additions of GPT-2 small
    depth = np.arange(N + 1)
    rng = np.random.default_rng(SEED)
    f = rng.uniform(-np.sqrt(3), np.sqrt(3), size=(4000, N))  # σ_f = 1
    h0 = rng.standard_normal(4000)  # σ_0 = 1
    plain = np.concatenate([h0[:, None], h0[:, None] + np.cumsum(f, axis=1)], axis=1)  # (4000, N + 1)
    scaled = np.concatenate([h0[:, None], h0[:, None] + np.cumsum(f, axis=1) / np.sqrt(N)], axis=1)
    fig, ax = _figure()
    ax.plot(depth, closed(depth), color="tab:red", label="unscaled: $\\sigma_0^2 + l\\,\\sigma_f^2$")
    ax.plot(depth, closed(depth, n_res=N), color="tab:blue",
            label=f"GPT-2, branches $\\times 1/\\sqrt{{{N}}}$: $\\sigma_0^2 + l\\,\\sigma_f^2/{N}$")
    ax.plot(depth[::2], plain.var(axis=0)[::2], "o", color="tab:red", ms=3, label="simulated (4,000 streams)")
    ax.plot(depth[::2], scaled.var(axis=0)[::2], "o", color="tab:blue", ms=3)
    ax.set_xlabel(f"residual additions l (two per layer; n_layers = {n_layers})")
    ax.set_ylabel("Var(residual stream)")
    ax.legend(fontsize=8, loc="upper left")
    return fig


def layernorm_gradient() -> Any:
    """‖gᵀJ‖ through LayerNorm and RMSNorm when the input token is scaled by c (ε = 1e-5).

    The gradient reaching x is divided by √(σ² + ε) (gradients.layernorm-jacobian): it falls like
    1/c while σ² ≫ ε and levels off at 1/√ε once σ² ≪ ε.
    """
    from ..transformer.gradients import layer_norm_jacobian, rms_norm_jacobian

    rng = np.random.default_rng(SEED)
    d, eps = 64, 1e-5
    z, g = rng.standard_normal(d), rng.standard_normal(d)
    scales = np.logspace(-5, 2, 71)
    ln = [np.linalg.norm(g @ layer_norm_jacobian(c * z, eps)) for c in scales]
    rms = [np.linalg.norm(g @ rms_norm_jacobian(c * z, eps)) for c in scales]
    fig, ax = _figure()
    ax.loglog(scales, ln, color="tab:blue", label="LayerNorm")
    ax.loglog(scales, rms, color="tab:orange", ls="--", label="RMSNorm")
    ax.axvline(np.sqrt(eps), color="gray", lw=0.8, ls=":")
    ax.text(np.sqrt(eps) * 1.3, min(ln) * 2, "$\\sigma = \\sqrt{\\varepsilon}$", fontsize=8, color="gray")
    ax.set_xlabel("scale c of the input token x = c·z (σ ≈ c)")
    ax.set_ylabel(f"‖gradient reaching x‖  (‖g‖ = {np.linalg.norm(g):.1f})")
    ax.legend(fontsize=8)
    return fig
