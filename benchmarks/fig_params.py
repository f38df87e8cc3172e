"""Figure 3: exact parameter counts vs allocating the weights (numpy) and PyTorch meta-device instantiation;
and counting a real config.json (parameters, FLOPs and memory) vs transformers on the meta device."""

from __future__ import annotations

import json
import timeit
from pathlib import Path

from .common import Figure, fmt_ratio, fmt_s, ratio, worker
from .models import CONFIGS, total

#: The numpy baseline commits float32 weights; only models that fit in this many bytes are allocated.
ALLOC_LIMIT = 4 * 2**30
#: timeit repeats of each count (best of them is reported); a quick run takes 2
REPEATS = [5]
#: each timeit repeat runs the count for at least this many seconds (a quick run: 0.02 s)
MIN_SECONDS = [0.2]


def _best(fn) -> float:
    """Seconds of one call of ``fn``: the best of ``REPEATS[0]`` timeit repeats of at least ``MIN_SECONDS[0]``."""
    timer = timeit.Timer(fn)
    loops = 1
    while timer.timeit(loops) < MIN_SECONDS[0]:
        loops *= 2
    return min(timer.repeat(REPEATS[0], loops)) / loops


def _derive_count(name: str) -> tuple[int, float] | None:
    try:
        from derive.params import count, get_preset
    except ImportError:
        return None
    arch = get_preset(name).arch
    return int(count(arch)), _best(lambda: count(arch))


#: The real config.json files of the test suite, one per family.
CONFIG_DIRS = (Path(__file__).resolve().parents[1] / "tests" / "data",
               Path(__file__).resolve().parents[1] / "tests" / "data" / "configs")
#: Counting a config (parameters, FLOPs and memory) must stay under this (seconds).
CONFIG_LIMIT = 1e-3


def config_files() -> list[Path]:
    return sorted(p for d in CONFIG_DIRS for p in d.glob("*-config.json"))


def _derive_config(path: Path) -> tuple[int, int, float] | None:
    """(total, forward FLOPs, seconds) of mapping a parsed config and computing parameters, FLOPs and memory."""
    try:
        from derive.params.budget import budget
        from derive.params.hf_config import from_dict
    except ImportError:
        return None
    data = json.loads(path.read_text())

    def once() -> object:
        return budget(from_dict(data, path.name).arch)

    seconds = _best(once)
    b = once()
    return b.total, b.flops.forward, seconds


def _configs(fig: Figure) -> None:
    worst = 0.0
    hf_available = True
    for path in config_files():
        mine = _derive_config(path)
        if mine is None:
            fig.notes.append("config rows skipped: derive.params.budget is not on this checkout")
            return
        total_, _, secs = mine
        worst = max(worst, secs)
        # transformers missing: one fresh process says so, the other files do not start one each
        meta = worker("hf_meta", str(path))[1] if hf_available else None
        hf_available = bool(meta and meta.get("available"))
        if meta and meta.get("available"):
            agree = "" if meta["count"] == total_ else f" (counts {meta['count']:,})"
            meta_cell, meta_ratio = fmt_s(meta["seconds"]) + agree, fmt_ratio(ratio(meta["seconds"], secs))
            fig.data[f"config/{path.name}/transformers"] = meta
        else:
            meta_cell, meta_ratio = "transformers not installed", "—"
        fig.rows.append([f"config {path.name.removesuffix('-config.json')}", f"{total_:,}", fmt_s(secs),
                         "—", "—", meta_cell, meta_ratio])
        fig.data[f"config/{path.name}/derive"] = {"count": total_, "seconds": secs}
    fig.target("counting a config.json: parameters, FLOPs and memory (slowest file)", worst, CONFIG_LIMIT)
    fig.notes += [
        "config rows: `budget(from_dict(json).arch)` — map the parsed config.json, count every component, FLOPs "
        "per token at the model's context, KV cache and training memory — best of 5 timeit repeats (2 in a "
        "quick run), as for the models. Baseline: "
        "the class in `architectures` built by transformers under `torch.device('meta')` and `numel` summed "
        "(best of 3 builds in a fresh process, import excluded). transformers 5 ties T5 v1.1's head whatever "
        "the file says, hence its smaller count on those rows.",
    ]


def run(quick: bool) -> Figure:
    REPEATS[0] = 2 if quick else 5
    MIN_SECONDS[0] = 0.02 if quick else 0.2
    fig = Figure("params", "Parameter counting vs instantiation",
                 columns=["model", "derive count", "time", "numpy allocation (float32)", "ratio",
                          "torch meta device", "ratio"])
    mine_available = _derive_count("gpt2") is not None
    torch_available = True
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
        meta = worker("torch_meta", name)[1] if torch_available else None
        torch_available = bool(meta and meta.get("available"))
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
    _configs(fig)
    fig.notes += [
        "derive: `derive.params.count(get_preset(name).arch)`, an exact Python int, best of 5 timeit repeats "
        "of at least 0.2 s each (2 of 0.02 s in a quick run).",
        "numpy: every weight allocated as float32 with `np.ones` (pages committed, as a loaded model's are), "
        "then `.size` summed, in a fresh process. GPT-2 small needs 0.5 GB; LLaMA-7B would need 25 GiB and "
        "GPT-3 175B 650 GiB, more than this 24 GiB machine has, so those rows are not allocated: that is the "
        "point of counting instead.",
        "torch: the same modules (Embedding, Linear, LayerNorm/RMSNorm) built under `torch.device('meta')`, "
        "which allocates no storage, then `numel` summed with the tied head counted once.",
    ]
    return fig
