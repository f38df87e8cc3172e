"""Worker (derive): build and verify the catalog's symbolic Var(q·k) once, then substitute d_k.

Usage: derive_variance.py NAME D1 D2 ... Prints one JSON line: {available, derive_s, subs: {d: [s, value]}}
or {available: false, reason} when the derivation is not in the catalog yet.
"""

from __future__ import annotations

import json
import sys
import time


def main() -> None:
    name, ds = sys.argv[1], [int(a) for a in sys.argv[2:]]
    t0 = time.perf_counter()
    from derive import registry

    registry.load_catalog()
    if name not in registry.names():
        print(json.dumps({"available": False, "reason": f"{name} is not in the catalog on this checkout"}))
        return
    import sympy as sp

    from derive.transformer.notation import sym
    from derive.verify import verify

    t_import = time.perf_counter() - t0
    t1 = time.perf_counter()
    d = registry.get(name)
    report = verify(d)
    derive_s = time.perf_counter() - t1
    from sympy.core.cache import clear_cache

    clear_cache()
    t1 = time.perf_counter()
    verify(d, numeric=False)
    symbolic_s = time.perf_counter() - t1
    d_k = sym("d_k")
    end = d.end
    subs = {}
    for n in ds:
        t2 = time.perf_counter()
        value = end.xreplace({d_k: sp.Integer(n)})
        others = {s: sp.Integer(1) for s in value.free_symbols}  # unit variances
        value = sp.nsimplify(value.xreplace(others).doit())
        subs[n] = [time.perf_counter() - t2, str(value)]
    print(json.dumps({"available": True, "ok": report.ok, "derive_s": derive_s, "symbolic_s": symbolic_s,
                      "import_s": t_import,
                      "claim": sp.sstr(d.claim), "steps": len(d.steps), "subs": subs}))


if __name__ == "__main__":
    main()
