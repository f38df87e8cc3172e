"""Worker: Monte Carlo estimate of E[(q·k)²] = Var(q·k) at d_k, n draws — derive's check or raw numpy.

Usage: montecarlo.py rss D N | montecarlo.py time D N REPEAT. Prints one JSON line.
Peak RSS is the ``ru_maxrss`` of a process that ran only derive's check (imports included).
"""

from __future__ import annotations

import json
import resource
import sys
import time

NAME = "attention.score-variance"


def sampler_for(np, d: int):
    def sampler(rng, size):
        q = rng.standard_normal((size, d))  # (size, d_k)
        k = rng.standard_normal((size, d))  # (size, d_k)
        s = np.einsum("ij,ij->i", q, k)  # (size,): q·k per draw
        return s * s
    return sampler


def catalog_check(d: int, n: int):
    """The catalog's own Monte Carlo check of Var(q·k) at ``d`` (normal components), with ``n`` draws; or None."""
    import dataclasses

    from derive import registry
    from derive.numeric import MonteCarloCheck

    registry.load_catalog()
    if NAME not in registry.names():
        return None
    for check in registry.get(NAME).checks:
        meta = getattr(check, "meta", {}) or {}
        if isinstance(check, MonteCarloCheck) and meta.get("d_k") == d and meta.get("distribution", "normal") == \
                "normal":
            return dataclasses.replace(check, n=n)
    return None


def raw(np, d: int, n: int, chunk: int, seed: int) -> float:
    """The baseline: generate q, k in chunks, dot, average (q·k)²."""
    rng = np.random.default_rng(seed)
    total, done = 0.0, 0
    while done < n:
        size = min(chunk, n - done)
        q = rng.standard_normal((size, d))  # (size, d_k)
        k = rng.standard_normal((size, d))  # (size, d_k)
        s = np.einsum("ij,ij->i", q, k)  # (size,)
        total += float((s * s).sum())
        done += size
    return total / n


def main() -> None:
    """``rss D N``: derive's check alone, then ru_maxrss. ``time D N R``: both sides interleaved R times."""
    mode, d, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    import numpy as np

    out: dict = {"mode": mode, "d_k": d, "n": n}
    try:
        from threadpoolctl import threadpool_info

        out["blas"] = [(i.get("internal_api"), i.get("architecture")) for i in threadpool_info()]
    except ImportError:
        pass
    check = catalog_check(d, n)
    out["source"] = f"{NAME}: {check.name}" if check is not None else "MonteCarloCheck with the sampler above"
    if check is None:
        from derive.numeric import MonteCarloCheck

        check = MonteCarloCheck(f"E[(q·k)^2], d_k={d}", sampler_for(np, d), float(d), n=n)
    if mode == "rss":
        t0 = time.perf_counter()
        result = check.run(12345)
        out.update(seconds=time.perf_counter() - t0, estimate=result.figures["estimate"], passed=result.passed,
                   chunk=result.figures.get("chunk"),
                   peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    else:
        repeat = int(sys.argv[4])
        times: dict[str, list[float]] = {"derive": [], "raw": []}
        cpu: dict[str, list[float]] = {"derive": [], "raw": []}
        for r in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            result = check.run(12345 + r)
            times["derive"].append(time.perf_counter() - t0)
            cpu["derive"].append(time.process_time() - c0)
            chunk = int(result.figures.get("chunk") or 2048)
            t0, c0 = time.perf_counter(), time.process_time()
            estimate = raw(np, d, n, chunk, 12345 + r)
            times["raw"].append(time.perf_counter() - t0)
            cpu["raw"].append(time.process_time() - c0)
        out.update(times=times, cpu=cpu, derive_cpu_s=min(cpu["derive"]), raw_cpu_s=min(cpu["raw"]),
                   derive_s=min(times["derive"]), raw_s=min(times["raw"]), chunk=chunk,
                   derive_estimate=result.figures["estimate"], raw_estimate=estimate, passed=result.passed)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
