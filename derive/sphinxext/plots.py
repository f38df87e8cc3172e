"""``derive-plot NAME``: figures drawn with matplotlib while the docs build.

Every figure is computed from the package (the positional encoding of
:mod:`derive.transformer.positional`, the stable softmax of
:mod:`derive.transformer.softmax_numeric`, ...), with the Agg backend and
fixed seeds, and written as PNG only when its bytes change, so a rebuild
gives identical files. The directive's content is the caption.

Available figures: see :data:`PLOTS`.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

from . import plots_gradients, plots_positions

#: seed of every random draw in the figures
PLOT_SEED = 20170612


def _figure(width: float = 7.0, height: float = 3.4, ncols: int = 1) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt.subplots(1, ncols, figsize=(width, height), layout="constrained")


def pe_heatmap() -> Any:
    """The sinusoidal encoding of positions 0..127 at d_model = 128 (Vaswani et al. 2017, §3.5)."""
    from ..transformer.positional import sinusoidal_encoding

    pe = sinusoidal_encoding(np.arange(128), 128)  # (positions, d_model)
    fig, ax = _figure(7.0, 4.0)
    im = ax.imshow(pe, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1, origin="lower")
    ax.set_xlabel("dimension (even: sin, odd: cos)")
    ax.set_ylabel("position")
    ax.set_title(r"PE(pos, ·) for $d_{model}$ = 128")
    fig.colorbar(im, ax=ax, shrink=0.8)
    return fig


def pe_waves() -> Any:
    """A few columns of the encoding against position: the frequency falls as the pair index grows."""
    from ..transformer.positional import sinusoidal_encoding

    pos = np.linspace(0, 100, 1001)
    pe = sinusoidal_encoding(pos, 128)
    fig, ax = _figure()
    for i in (0, 2, 8, 24):
        ax.plot(pos, pe[:, 2 * i], label=f"dimension {2 * i} (pair i = {i})")
    ax.set_xlabel("position")
    ax.set_ylabel("PE")
    fig.legend(loc="outside upper center", fontsize=8, ncols=2)
    return fig


def softmax_temperature() -> Any:
    """softmax(z / T) of one score vector at several temperatures."""
    from ..transformer.softmax_numeric import softmax

    z = np.array([3.0, 1.5, 1.0, 0.2, -1.0])
    temps = (0.25, 0.5, 1.0, 2.0, 5.0)
    fig, ax = _figure()
    width = 0.8 / len(temps)
    x = np.arange(z.size)
    for k, t in enumerate(temps):
        ax.bar(x + (k - (len(temps) - 1) / 2) * width, softmax(z, temperature=t), width, label=f"T = {t:g}")
    ax.set_xticks(x, [f"z = {v:g}" for v in z])
    ax.set_ylabel("probability")
    ax.set_ylim(0, 1)
    ax.set_xlabel("score")
    fig.legend(loc="outside upper center", fontsize=8, ncols=5)
    return fig


def qk_samples(n: int = 20_000, seed: int = PLOT_SEED) -> tuple[np.ndarray, int]:
    """``n`` draws of q·k at the lecture's d_k = 512, from the sampler of the Monte Carlo check.

    The sampler is :func:`derive.transformer.score_variance.score_sampler` (standard normal
    components), the one the ``attention.*`` variance derivations estimate with.

    Returns:
        ``(samples, d_k)``: samples of shape ``(n,)`` and the width used.
    """
    from ..transformer.score_variance import LECTURE_DK, score_sampler

    sampler = score_sampler("normal", LECTURE_DK, power=1)
    return sampler(np.random.default_rng(seed), n), LECTURE_DK


def qk_histogram() -> Any:
    """Histogram of q·k and of q·k/√d_k at d_k = 512."""
    dots, d_k = qk_samples()
    fig, (left, right) = _figure(7.0, 3.2, ncols=2)
    left.hist(dots, bins=60, color="tab:red", label="q·k")
    left.set_title(f"q·k, std {dots.std():.1f} (√{d_k} ≈ {np.sqrt(d_k):.1f})", fontsize=9)
    scaled = dots / np.sqrt(d_k)
    right.hist(scaled, bins=60, color="tab:blue", label="q·k / √d_k")
    right.set_title(f"q·k / √d_k, std {scaled.std():.2f}", fontsize=9)
    left.set_xlabel("score q·k")
    right.set_xlabel("scaled score q·k / √d_k")
    for ax in (left, right):
        ax.set_ylabel("count (of 20,000 draws)")
    fig.legend(loc="outside upper center", fontsize=8, ncols=2)
    return fig


#: presets shown in the parameter-share figure
SHARE_PRESETS = ("lecture-layer", "bert-base", "gpt2", "gpt3-175b", "llama-7b", "llama2-70b", "mistral-7b")


def layer_shares(preset: str) -> dict[str, float]:
    """Share of one layer's parameters in attention, FFN and norms (encoder layer for encoder–decoders).

    Computed from :func:`derive.params.breakdown` (exact counts; the shares are floats only for drawing).
    """
    from ..params import breakdown, get_preset

    arch = get_preset(preset).arch
    rows = [r for r in breakdown(arch, formulas=False)
            if r.copies == arch.n_layers and not r.key.startswith("decoder.")]
    per_group: dict[str, int] = {}
    for r in rows:
        per_group[r.group] = per_group.get(r.group, 0) + r.per_copy
    total = sum(per_group.values())
    return {g: n / total for g, n in per_group.items()}


def param_share() -> Any:
    """Stacked bars: attention vs FFN vs norms within one layer, for several presets."""
    from ..params import get_preset

    fig, ax = _figure(7.0, 3.6)
    labels = [get_preset(p).arch.name for p in SHARE_PRESETS]
    left = np.zeros(len(SHARE_PRESETS))
    colours = {"attention": "tab:blue", "ffn": "tab:orange", "norm": "tab:gray"}
    shares = [layer_shares(p) for p in SHARE_PRESETS]
    for group, colour in colours.items():
        values = np.array([s.get(group, 0.0) for s in shares])
        ax.barh(labels, values, left=left, color=colour, label=group)
        for y, (x0, v) in enumerate(zip(left, values, strict=True)):
            if v > 0.08:
                ax.text(x0 + v / 2, y, f"{100 * v:.1f} %", ha="center", va="center", fontsize=8, color="white")
        left += values
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of one layer's parameters")
    fig.legend(loc="outside upper center", fontsize=8, ncols=3)
    return fig


#: name -> function returning a matplotlib figure
PLOTS: dict[str, Callable[[], Any]] = {
    "pe-heatmap": pe_heatmap,
    "pe-waves": pe_waves,
    "softmax-temperature": softmax_temperature,
    "qk-histogram": qk_histogram,
    "param-share": param_share,
    "residual-variance": plots_gradients.residual_variance,
    "layernorm-gradient": plots_gradients.layernorm_gradient,
    "rope-offset": plots_positions.rope_offset,
    "alibi-bias": plots_positions.alibi_bias_matrix,
    "online-softmax": plots_positions.online_softmax_running,
    "compute-optimal": plots_positions.compute_optimal_split,
}
from .plots_more import MORE_PLOTS  # noqa: E402 - the figures of issue 12, in their own module

PLOTS.update(MORE_PLOTS)


def png_bytes(name: str, dpi: int = 110) -> bytes:
    """The PNG of figure ``name`` (no timestamp or software metadata, so the bytes are stable).

    Drawn once per version of derive's source and of matplotlib: later builds (the Korean edition, a
    fresh output directory) read it from the verification cache (:func:`derive.cache.remember_bytes`).
    """
    import matplotlib

    from ..cache import remember_bytes

    return remember_bytes("plots", (name, str(dpi), matplotlib.__version__), lambda: _draw(name, dpi))


def _draw(name: str, dpi: int) -> bytes:
    import matplotlib.pyplot as plt

    fig = PLOTS[name]()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


class PlotDirective(SphinxDirective):
    """``derive-plot NAME``: draw figure NAME and show it; the content is the caption."""

    required_arguments = 1
    has_content = True
    option_spec: ClassVar[dict] = {"alt": directives.unchanged, "name": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        from . import write_if_changed

        name = self.arguments[0]
        if name not in PLOTS:
            raise self.error(f"unknown plot {name!r}; known: {', '.join(sorted(PLOTS))}")
        rel = f"_generated/plots/{name}.png"
        write_if_changed(Path(self.env.srcdir) / rel, png_bytes(name))
        from . import note_module_dependencies

        note_module_dependencies(self, __name__, "derive.sphinxext.plots_more", "derive.params",
                                 "derive.transformer.positional",
                                 "derive.transformer.softmax_numeric")
        figure = nodes.figure(classes=["derive-plot"])
        figure += nodes.image(uri="/" + rel, alt=self.options.get("alt", name))
        if self.content:
            caption_text = " ".join(self.content)
            holder = nodes.Element()
            self.state.nested_parse(self.content, self.content_offset, holder)
            para = holder.children[0] if holder.children else nodes.paragraph(caption_text, caption_text)
            # the caption's source text and place make it a message of the page's translation catalog
            caption = nodes.caption(caption_text, "", *para.children)
            caption.source, caption.line = self.get_source_info()
            figure += caption
        self.add_name(figure)
        return [figure]


def setup(app: Any) -> None:
    app.add_directive("derive-plot", PlotDirective)
