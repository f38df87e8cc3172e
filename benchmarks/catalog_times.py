"""Time ``derive check`` per derivation (wall and CPU seconds), slowest first.

Usage: ``python benchmarks/catalog_times.py [PREFIX ...]`` (e.g. ``attention softmax``).
CPU time is reported beside wall time because a loaded machine inflates the latter.
"""

from __future__ import annotations

import sys
import time


def main(prefixes: list[str]) -> int:
    t0, c0 = time.perf_counter(), time.process_time()
    from derive import registry
    from derive.verify import verify

    registry.load_catalog()
    import sympy  # noqa: F401 - count the import once, before the first derivation

    print(f"imports: {time.perf_counter() - t0:.2f} s wall, {time.process_time() - c0:.2f} s CPU")
    rows = []
    for name in registry.names():
        if prefixes and not any(name.startswith(p) for p in prefixes):
            continue
        w, c = time.perf_counter(), time.process_time()
        ok = verify(registry.get(name)).ok
        rows.append((time.process_time() - c, time.perf_counter() - w, name, ok))
    for cpu, wall, name, ok in sorted(rows, reverse=True):
        print(f"{name:40s} {cpu:6.2f} s CPU {wall:6.2f} s wall {'ok' if ok else 'FAILED'}")
    print(f"{len(rows)} derivations: {sum(r[0] for r in rows):.2f} s CPU, {sum(r[1] for r in rows):.2f} s wall")
    return 0 if all(r[3] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
