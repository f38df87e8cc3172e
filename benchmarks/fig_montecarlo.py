"""Figure 4: Monte Carlo throughput (samples·d_k/s) and peak memory of the variance cross-check vs raw numpy."""

from __future__ import annotations

from .common import Figure, fmt_ratio, fmt_s, worker

D_K = 512
RSS_TARGET_MB = 300.0
SLOWDOWN_TARGET = 1.5


def run(quick: bool) -> Figure:
    n = 25_000 if quick else 400_000
    repeat = 2 if quick else 3
    fig = Figure("montecarlo", "Monte Carlo throughput and memory",
                 columns=["", "best time", "samples·d_k/s", "peak RSS", "chunk (draws)", "estimate of d_k"])
    _, mem = worker("montecarlo", "rss", str(D_K), str(n))
    _, tm = worker("montecarlo", "time", str(D_K), str(n), str(repeat))
    assert mem is not None and tm is not None
    fig.rows.append(["derive `MonteCarloCheck.run`", fmt_s(tm["derive_s"]), f"{n * D_K / tm['derive_s']:.3g}",
                     f"{mem['peak_rss_mb']:.0f} MB", f"{mem['chunk']:,}", f"{tm['derive_estimate']:.2f}"])
    fig.rows.append(["raw numpy: generate + einsum", fmt_s(tm["raw_s"]), f"{n * D_K / tm['raw_s']:.3g}", "—",
                     f"{tm['chunk']:,}", f"{tm['raw_estimate']:.2f}"])
    slowdown = tm["derive_s"] / tm["raw_s"]
    cpu_slowdown = tm["derive_cpu_s"] / tm["raw_cpu_s"]
    fig.rows.append(["ratio derive / raw: wall", fmt_ratio(slowdown), "", "", "", ""])
    fig.rows.append(["ratio derive / raw: CPU", fmt_ratio(cpu_slowdown),
                     f"(CPU {fmt_s(tm['derive_cpu_s'])} vs {fmt_s(tm['raw_cpu_s'])})", "", "", ""])
    fig.target(f"peak RSS of the derive check at d_k = {D_K}, n = {n:,}", mem["peak_rss_mb"], RSS_TARGET_MB, "MB")
    fig.target("derive ÷ raw numpy, wall time", slowdown, SLOWDOWN_TARGET, "×")
    fig.target("derive ÷ raw numpy, CPU time (less disturbed by other work on the machine)", cpu_slowdown,
               SLOWDOWN_TARGET, "×")
    fig.notes += [
        f"Both sides draw q, k ~ N(0, I_{D_K}) and average (q·k)², n = {n:,} draws ({2 * n * D_K:.2g} normal "
        f"variates), in one process with OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE unset, interleaved, best of {repeat} "
        "(the raw loop uses derive's chunk size). derive adds the chunk-merged mean and variance, the z-bound "
        "and the power check.",
        "derive sizes its chunks from the measured memory of a 1,024-draw probe chunk (32 MiB per chunk); "
        f"drawing all of q and k at once would need {2 * n * D_K * 8 / 2**30:.1f} GiB.",
        "Peak RSS is `ru_maxrss` of a fresh process that ran only derive's check, interpreter and imports "
        "included.",
        f"derive side: {tm.get('source')}.",
    ]
    if tm.get("blas"):
        fig.notes.append(f"BLAS as threadpoolctl reports it: {tm['blas']}.")
    fig.data = {"rss": mem, "time": tm}
    return fig
