"""Figure 1: whole-catalog ``derive check`` — cold CPU, warm wall, the costliest derivations (issue 20 targets)."""

from __future__ import annotations

import json
import resource
import tempfile

from .common import Figure, bench_env, derive_command, fmt_ratio, fmt_s, ratio, run_timed, worker

#: issue 20: the whole catalog cold, CPU seconds (user + sys, every worker process)
TOTAL_CPU_TARGET = 10.0
#: issue 20: no derivation over this many CPU seconds
EACH_CPU_TARGET = 1.0
#: issue 20: `derive check` with a full cache, wall seconds
WARM_TARGET = 1.0
#: a quick run checks every QUICK_STRIDE-th derivation of the catalog (sorted by name), so it ends in about a minute
QUICK_STRIDE = 4


def catalog_names() -> list[str]:
    """The catalog's derivation names, sorted (as ``derive list`` gives them)."""
    from derive import registry

    registry.load_catalog()
    return [e.name for e in registry.entries() if e.module in registry.CATALOG_MODULES]


def _costliest(d: dict) -> str:
    items = [(s["seconds"], f"step {s['index']}: {s['strategy']}") for s in d["steps"]]
    items += [(c["seconds"], f"check: {c['name']}") for c in d["checks"]]
    if not items:
        return "—"
    seconds, what = max(items)
    return f"{what} ({fmt_s(seconds)})"


def _cpu_of(report: dict) -> float:
    """A derivation's CPU seconds from its JSON report: its steps' CPU time and its checks' time."""
    return (sum(s.get("cpu_seconds", 0.0) for s in report["steps"])
            + sum(c.get("seconds", 0.0) for c in report["checks"]))


def _timed(argv: list[str], cache: str) -> tuple[float, float, object]:
    """(wall, CPU of the process and its workers, completed process or None)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, proc = run_timed(argv, env=bench_env(DERIVE_CACHE_DIR=cache))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, proc


def run(quick: bool) -> Figure:
    fig = Figure("catalog", "Whole-catalog check",
                 columns=["derivation", "CPU", "wall (verify)", "naive simplify", "ratio", "costliest part"])
    everything = catalog_names()
    # a quick run: a fixed sample (every QUICK_STRIDE-th name), the same on every run; the full run: all of it
    chosen = everything[::QUICK_STRIDE] if quick else []
    with tempfile.TemporaryDirectory() as cache:
        # cold: an empty verification cache (the run fills it), then warm: nothing changed
        wall, cpu, proc = _timed([*derive_command(), "check", "--json", *chosen], cache)
        warm, _, warm_proc = _timed([*derive_command(), "check", "--json", *chosen], cache)
        warm2, _, _ = _timed([*derive_command(), "check", "--json", *chosen], cache)
    if proc is None or proc.returncode not in (0, 1):
        return fig.skip(f"derive check did not run: {proc.stderr[-300:] if proc else 'timeout'}")
    cli = json.loads(proc.stdout)
    n = len(cli["reports"])
    failing = [r["name"] for r in cli["reports"] if not r["ok"]]
    warm_ok = warm_proc is not None and warm_proc.returncode in (0, 1)
    by_cpu = {r["name"]: _cpu_of(r) for r in cli["reports"]}
    data = None
    if not quick:
        # in one process: CPU per derivation measured directly, and the naive simplify baseline beside it
        _, data = worker("catalog", "2")
    if data is not None:
        ds = sorted(data["derivations"], key=lambda d: -d["cpu_s"])
    else:
        ds = sorted(({"name": r["name"], "cpu_s": by_cpu[r["name"]], "verify_s": r["seconds"], "naive_s": None,
                      "naive_capped": 0, "naive_closed": 0, "n_steps": len(r["steps"]),
                      "steps": r["steps"], "checks": r["checks"]} for r in cli["reports"]),
                    key=lambda d: -d["cpu_s"])
    for d in ds[:5]:
        naive = "—" if d["naive_s"] is None else (
            fmt_s(d["naive_s"]) + (f" ({d['naive_capped']} capped)" if d["naive_capped"] else ""))
        symbolic = sum(s["seconds"] for s in d["steps"])
        fig.rows.append([d["name"], fmt_s(d["cpu_s"]), fmt_s(d["verify_s"]), naive,
                         fmt_ratio(ratio(d["naive_s"], symbolic)) if d["naive_s"] is not None else "—",
                         _costliest(d)])
    steps = sum(d["n_steps"] for d in ds)
    total_cpu = sum(d["cpu_s"] for d in ds)
    if data is not None:
        naive = sum(d["naive_s"] for d in ds)
        symbolic = sum(s["seconds"] for d in ds for s in d["steps"])
        closed = sum(d["naive_closed"] for d in ds)
        fig.rows.append([f"all {n} derivations ({steps} steps)", fmt_s(total_cpu),
                         fmt_s(sum(d["verify_s"] for d in ds)), fmt_s(naive), fmt_ratio(ratio(naive, symbolic)),
                         f"naive simplify closes {closed}/{steps} steps"])
    else:
        fig.rows.append([f"{'the sample' if quick else 'all'}: {n} derivations ({steps} steps)", fmt_s(total_cpu),
                         fmt_s(sum(d["verify_s"] for d in ds)), "—", "—", "quick run: no naive baseline"])
    if quick:
        # the whole catalog's target, in proportion to the sample (a quick run measures no whole-catalog figure)
        share = TOTAL_CPU_TARGET * n / len(everything)
        fig.target(f"`derive check` of every {QUICK_STRIDE}th derivation of the whole catalog ({len(everything)} "
                   f"derivations): {n} derivations, cold, CPU time (user + sys, all workers); the target is "
                   f"{TOTAL_CPU_TARGET:g} s × {n}/{len(everything)}", cpu, share)
    else:
        fig.target(f"`derive check` of the whole catalog ({n} derivations), cold, CPU time (user + sys, all "
                   "workers)", cpu, TOTAL_CPU_TARGET)
    if ds:
        top = ds[0]
        fig.target(f"most CPU for a single derivation ({top['name']})", top["cpu_s"], EACH_CPU_TARGET)
    if warm_ok:
        what = "the sample" if quick else "`derive check`"
        fig.target(f"{what} with a full cache (nothing changed), wall time", min(warm, warm2), WARM_TARGET)
    over = [d["name"] for d in ds if d["cpu_s"] > EACH_CPU_TARGET]
    if quick:
        fig.notes.append(f"Quick run: every {QUICK_STRIDE}th derivation of the catalog by name ({n} of "
                         f"{len(everything)}), not the whole catalog; `python benchmarks/run.py --only catalog` "
                         "measures all of it.")
    fig.notes += [
        f"The cold run (`derive check --json` on an empty verification cache, a fresh process, one worker per "
        f"CPU) took {fmt_s(wall)} wall and {fmt_s(cpu)} CPU (user + sys of the command and its workers, from "
        f"getrusage; the gap to wall time is other work on this shared machine). The warm run (the same command "
        f"again, every report served from the cache) took {fmt_s(min(warm, warm2))} "
        f"({fmt_ratio(ratio(wall, min(warm, warm2)))} faster).",
        ("CPU per derivation measured in one process with `time.process_time` (after one small derivation to "
         "load sympy's lazily imported parts); the naive baseline is `sympy.simplify(after - before)` per step, "
         "capped at 2 s a step, with sympy's cache cleared before each side. It has no counterexample search and "
         "no cross-checks." if data is not None else
         "Quick run: CPU per derivation is read from the cold run's JSON (each step's CPU time plus its "
         "cross-checks' time); the full run measures it in one process and adds the naive simplify baseline."),
    ]
    if over:
        fig.notes.append(f"Over {EACH_CPU_TARGET:g} s CPU: {', '.join(over)}.")
    if failing:
        fig.notes.append(f"Not passing on this checkout: {', '.join(failing)}.")
    fig.data = {"derivations_count": n, "catalog_count": len(everything), "cli_wall_s": wall, "cli_cpu_s": cpu,
                "cli_cached_s": min(warm, warm2) if warm_ok else None,
                "derivations": [{k: v for k, v in d.items() if k not in ("steps", "checks")} for d in ds],
                "import_s": data["import_s"] if data else None}
    return fig
