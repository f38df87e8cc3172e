"""Worker: Monte Carlo estimate of E[(q·k)²] = Var(q·k) at d_k, n draws — derive's check or raw numpy.

Usage: montecarlo.py derive|raw D N. Prints one JSON line {seconds, peak_rss_mb, estimate, ...}.
Peak RSS is this process's ``ru_maxrss`` (imports included), read after the run.
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


def main() -> None:
    mode, d, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    import numpy as np

    out: dict = {"mode": mode, "d_k": d, "n": n}
    try:
        from threadpoolctl import threadpool_info

        out["blas"] = [(i.get("internal_api"), i.get("architecture")) for i in threadpool_info()]
    except ImportError:
        pass
    if mode == "derive":
        check = catalog_check(d, n)
        out["source"] = f"{NAME}: {check.name}" if check is not None else "MonteCarloCheck with the sampler above"
        if check is None:
            from derive.numeric import MonteCarloCheck

            check = MonteCarloCheck(f"E[(q·k)^2], d_k={d}", sampler_for(np, d), float(d), n=n)
        t0 = time.perf_counter()
        result = check.run(12345)
        out.update(seconds=time.perf_counter() - t0, estimate=result.figures["estimate"],
                   passed=result.passed, chunk=result.figures.get("chunk"))
    else:
        rng = np.random.default_rng(12345)
        chunk = int(sys.argv[4]) if len(sys.argv) > 4 else 2048
        t0 = time.perf_counter()
        total, done = 0.0, 0
        while done < n:
            size = min(chunk, n - done)
            q = rng.standard_normal((size, d))
            k = rng.standard_normal((size, d))
            s = np.einsum("ij,ij->i", q, k)
            total += float((s * s).sum())
            done += size
        out.update(seconds=time.perf_counter() - t0, estimate=total / n, chunk=chunk)
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


if __name__ == "__main__":
    main()
