"""Worker: derive, simplify and equals on every EVERY-th case of the derivative corpus; one JSON line.

``python benchmarks/workers/power.py EVERY [METHODS]``: METHODS is a comma-separated subset of
derive,simplify,equals (default all). Progress goes to stderr.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))


def main() -> None:
    every = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    wanted = sys.argv[2].split(",") if len(sys.argv) > 2 else ["derive", "simplify", "equals"]
    from benchmarks import power_methods as pm
    from benchmarks.corpus_derivatives import cases

    corpus = cases()
    chosen = [(i, c) for i, c in enumerate(corpus) if i % every == 0]
    # untimed warm-up: sympy and derive import much lazily, on first use
    for method in wanted:
        pm.METHODS[method](corpus[0])
    out = {"every": every, "n_corpus": len(corpus), "methods": wanted, "cases": []}
    t0 = time.perf_counter()
    for k, (i, c) in enumerate(chosen):
        row = {"id": c.id, "category": c.category, "truth": c.truth, "mutation": c.mutation}
        for method in wanted:
            verdict, seconds = pm.METHODS[method](c, i) if method == "derive" else pm.METHODS[method](c)
            row[method] = {"verdict": verdict, "seconds": seconds, **pm.LAST}
        out["cases"].append(row)
        if k % 20 == 0:
            print(f"{k}/{len(chosen)} {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
