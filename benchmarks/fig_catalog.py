"""Figure 1: whole-catalog ``derive check`` wall time, and the slowest derivations."""

from __future__ import annotations

import json
import resource
import tempfile

from .common import Figure, bench_env, derive_command, fmt_ratio, fmt_s, ratio, run_timed, worker

TOTAL_TARGET = 5.0
EACH_TARGET = 1.0
#: issue 11: the whole catalog with the proof kernel (two witnesses per step), CPU seconds
KERNEL_CPU_TARGET = 10.0


def _costliest(d: dict) -> str:
    items = [(s["seconds"], f"step {s['index']}: {s['strategy']}") for s in d["steps"]]
    items += [(c["seconds"], f"check: {c['name']}") for c in d["checks"]]
    seconds, what = max(items)
    return f"{what} ({fmt_s(seconds)})"


def run(quick: bool) -> Figure:
    fig = Figure("catalog", "Whole-catalog check",
                 columns=["derivation", "derive (verify)", "of which symbolic", "naive simplify", "ratio",
                          "costliest part"])
    with tempfile.TemporaryDirectory() as cache:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall, proc = run_timed([*derive_command(), "check", "--no-cache", "--json"],
                               env=bench_env(DERIVE_CACHE_DIR=cache))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        serial, _ = run_timed([*derive_command(), "check", "--no-cache", "--json", "--jobs", "1"],
                              env=bench_env(DERIVE_CACHE_DIR=cache))
        warm, _ = run_timed([*derive_command(), "check", "--json"], env=bench_env(DERIVE_CACHE_DIR=cache))
        warm2, _ = run_timed([*derive_command(), "check", "--json"], env=bench_env(DERIVE_CACHE_DIR=cache))
    if proc is None or proc.returncode not in (0, 1):
        return fig.skip(f"derive check did not run: {proc.stderr[-300:] if proc else 'timeout'}")
    cli = json.loads(proc.stdout)
    n = len(cli["reports"])
    failing = [r["name"] for r in cli["reports"] if not r["ok"]]
    _, data = worker("catalog", "3" if quick else "10")
    assert data is not None
    ds = sorted(data["derivations"], key=lambda d: -d["verify_s"])
    for d in ds[:5]:
        fig.rows.append([d["name"], fmt_s(d["verify_s"]), fmt_s(d["symbolic_s"]),
                         fmt_s(d["naive_s"]) + (f" ({d['naive_capped']} capped)" if d["naive_capped"] else ""),
                         fmt_ratio(ratio(d["naive_s"], d["symbolic_s"])), _costliest(d)])
    symbolic = sum(d["symbolic_s"] for d in ds)
    naive = sum(d["naive_s"] for d in ds)
    closed = sum(d["naive_closed"] for d in ds)
    steps = sum(d["n_steps"] for d in ds)
    fig.rows.append([f"all {n} derivations ({steps} steps)", fmt_s(sum(d["verify_s"] for d in ds)),
                     fmt_s(symbolic), fmt_s(naive), fmt_ratio(ratio(naive, symbolic)),
                     f"naive simplify closes {closed}/{steps} steps"])
    fig.target(f"`derive check` of the whole catalog ({n} derivations), wall time incl. start-up", wall,
               TOTAL_TARGET)
    fig.target("the same, CPU time (user + sys)", cpu, TOTAL_TARGET)
    fig.target("the same, CPU time, with the proof kernel's witnesses (issue 11 target)", cpu, KERNEL_CPU_TARGET)
    slowest = ds[0] if ds else None
    if slowest:
        fig.target(f"slowest single derivation ({slowest['name']})", slowest["verify_s"], EACH_TARGET)
        by_cpu = max(ds, key=lambda d: d["cpu_s"])
        fig.target(f"most CPU for a single derivation ({by_cpu['name']})", by_cpu["cpu_s"], EACH_TARGET)
    fig.notes += [
        "Ratio = naive `sympy.simplify(after - before)` per step ÷ derive's ordered strategies on the same "
        "steps, in one process (> 1: derive is faster), after one untimed pass so that sympy's lazy "
        "imports are not charged to the first derivation (the CLI time below is cold and includes them), and "
        "with sympy's cache cleared before each side of each derivation. "
        "The naive baseline has no counterexample search and no numeric cross-checks, so the fair "
        "comparison is the symbolic column.",
        f"The CLI run (`derive check --no-cache --json`, fresh process) took {fmt_s(wall)} wall and "
        f"{fmt_s(cpu)} CPU (user + sys; the gap is other work on this shared machine); sympy and the catalog "
        f"take {fmt_s(data['import_s'])} to import. With the verification cache warm (nothing changed), "
        f"`derive check` takes {fmt_s(min(warm, warm2))} ({fmt_ratio(wall / min(warm, warm2))} faster). "
        f"In one process (`--jobs 1`) the cold check takes {fmt_s(serial)}: by default the derivations are "
        f"verified in one worker process per CPU ({fmt_ratio(serial / wall)} faster here).",
    ]
    if failing:
        fig.notes.append(f"Not passing on this checkout: {', '.join(failing)}.")
    fig.data = {"cli_wall_s": wall, "cli_serial_s": serial, "cli_cpu_s": cpu, "cli_cached_s": min(warm, warm2),
                "derivations": ds, "import_s": data["import_s"]}
    return fig
