"""Figure 3: exact parameter counts vs allocating the weights (numpy) and PyTorch meta-device instantiation."""

from __future__ import annotations

import timeit

from .common import Figure, fmt_ratio, fmt_s, ratio, worker
from .models import CONFIGS, total

#: The numpy baseline commits float32 weights; only models that fit in this many bytes are allocated.
ALLOC_LIMIT = 4 * 2**30


def _derive_count(name: str) -> tuple[int, float] | None:
    try:
        from derive.params import count, get_preset
    except ImportError:
        return None
    arch = get_preset(name).arch
    timer = timeit.Timer(lambda: count(arch))
    loops, _ = timer.autorange()
    seconds = min(timer.repeat(5, loops)) / loops
    return int(count(arch)), seconds


def run(quick: bool) -> Figure:
    fig = Figure("params", "Parameter counting vs instantiation",
                 columns=["model", "derive count", "time", "numpy allocation (float32)", "ratio",
                          "torch meta device", "ratio"])
    mine_available = _derive_count("gpt2") is not None
    for name in CONFIGS:
        expected = total(name)
        mine = _derive_count(name)
        if mine is None:
            ours, ours_s = "not available yet", None
        else:
            ours = f"{mine[0]:,}" + ("" if mine[0] == expected else f" (baseline model: {expected:,})")
            ours_s = mine[1]
        nbytes = 4 * expected
        if nbytes <= ALLOC_LIMIT:
            _, alloc = worker("alloc_numpy", name)
            assert alloc is not None
            alloc_cell = f"{fmt_s(alloc['seconds'])}, peak RSS {alloc['peak_rss_mb']:,.0f} MB"
            alloc_ratio = fmt_ratio(ratio(alloc["seconds"], ours_s))
            fig.data[f"{name}/numpy"] = alloc
        else:
            alloc_cell = f"not allocated: {nbytes / 2**30:,.0f} GiB of float32 > {ALLOC_LIMIT / 2**30:.0f} GiB"
            alloc_ratio = "—"
        _, meta = worker("torch_meta", name)
        if meta and meta.get("available"):
            agree = "" if meta["count"] == expected else f" (counts {meta['count']:,})"
            meta_cell, meta_ratio = fmt_s(meta["seconds"]) + agree, fmt_ratio(ratio(meta["seconds"], ours_s))
            fig.data[f"{name}/torch"] = meta
        else:
            meta_cell, meta_ratio = "torch not installed (`pip install -e '.[bench]'`)", "—"
        fig.rows.append([name, ours, fmt_s(ours_s), alloc_cell, alloc_ratio, meta_cell, meta_ratio])
        fig.data[f"{name}/derive"] = {"count": mine[0] if mine else None, "seconds": ours_s,
                                      "baseline_model_count": expected}
    if not mine_available:
        fig.notes.append("derive side not available yet: `derive.params` is not on this checkout.")
    fig.notes += [
        "derive: `derive.params.count(get_preset(name).arch)`, an exact Python int, best of 5 timeit repeats.",
        "numpy: every weight allocated as float32 with `np.ones` (pages committed, as a loaded model's are), "
        "then `.size` summed, in a fresh process. GPT-2 small needs 0.5 GB; LLaMA-7B would need 25 GiB and "
        "GPT-3 175B 650 GiB, more than this 24 GiB machine has, so those rows are not allocated: that is the "
        "point of counting instead.",
        "torch: the same modules (Embedding, Linear, LayerNorm/RMSNorm) built under `torch.device('meta')`, "
        "which allocates no storage, then `numel` summed with the tied head counted once.",
    ]
    return fig
