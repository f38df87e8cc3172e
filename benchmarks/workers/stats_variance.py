"""Worker (baseline): sympy.stats variance of q·k = Σ_{i<d} q_i k_i with q_i, k_i iid N(0, 1), explicit d.

Usage: stats_variance.py D. Prints one JSON line {d, seconds, value}.
"""

from __future__ import annotations

import json
import sys
import time


def main() -> None:
    d = int(sys.argv[1])
    import sympy as sp
    from sympy.stats import Normal, variance

    t0 = time.perf_counter()
    q = [Normal(f"q_{i}", 0, 1) for i in range(d)]
    k = [Normal(f"k_{i}", 0, 1) for i in range(d)]
    value = sp.simplify(variance(sp.Add(*[qi * ki for qi, ki in zip(q, k, strict=True)])))
    print(json.dumps({"d": d, "seconds": time.perf_counter() - t0, "value": str(value)}))


if __name__ == "__main__":
    main()
