"""Worker: verify every catalog derivation in-process, then the naive baseline on the same steps.

The baseline is what one would write without derive: ``sympy.simplify(after - before) == 0`` for
each step (after applying the step's rule), capped at CAP seconds a step. Prints one JSON line.
"""

from __future__ import annotations

import json
import signal
import sys
import time

CAP = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0


class Capped(Exception):
    pass


def _alarm(signum, frame):
    raise Capped


def naive(sp, before, step):
    target = step.rule.apply(before) if step.rule is not None else before
    if isinstance(target, sp.MatrixExpr) and not isinstance(target, sp.MatrixBase):
        target = target.doit()
    expr = step.expr.doit() if isinstance(step.expr, sp.MatrixExpr) and not isinstance(step.expr, sp.MatrixBase) \
        else step.expr
    diff = sp.simplify(expr - target)
    if isinstance(diff, sp.MatrixBase):
        return all(v == 0 for v in diff)
    if step.relation == "=":
        return diff == 0
    want = {"<=": "is_nonnegative", "<": "is_positive", ">=": "is_nonpositive", ">": "is_negative"}[step.relation]
    return getattr(diff, want) is True


def main() -> None:
    t_import = time.perf_counter()
    import sympy as sp

    from derive import registry
    from derive.verify import verify

    registry.load_catalog()
    t_import = time.perf_counter() - t_import
    out = {"import_s": t_import, "derivations": []}
    # sympy imports much of itself lazily, on first use: one small derivation first, untimed, so that
    # cost is not charged to whichever derivation happens to come first
    t_warm = time.perf_counter()
    verify(registry.get(registry.names()[0]))
    out["warmup_s"] = time.perf_counter() - t_warm
    from sympy.core.cache import clear_cache  # ...but no results memoised by that pass may be reused
    signal.signal(signal.SIGALRM, _alarm)
    for name in registry.names():
        d = registry.get(name)
        clear_cache()
        cpu0 = time.process_time()
        report = verify(d)
        cpu = time.process_time() - cpu0
        steps = [{"index": s.index, "strategy": s.strategy, "seconds": s.seconds, "verdict": str(s.verdict)}
                 for s in report.steps]
        checks = [{"name": c.name, "seconds": c.seconds, "passed": c.passed} for c in report.checks]
        naive_s, closed, capped = 0.0, 0, 0
        clear_cache()
        before = d.start
        for step in d.steps:
            t1 = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, CAP)
            try:
                closed += bool(naive(sp, before, step))
            except Capped:
                capped += 1
            except Exception:  # noqa: BLE001 - the baseline failing on a step counts as not closed
                pass
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            naive_s += time.perf_counter() - t1
            before = step.expr
        out["derivations"].append({
            "name": name, "verify_s": report.seconds, "cpu_s": cpu, "ok": report.ok,
            "symbolic_s": sum(s["seconds"] for s in steps), "steps": steps, "checks": checks,
            "naive_s": naive_s, "naive_closed": closed, "naive_capped": capped, "n_steps": len(steps),
        })
    print(json.dumps(out))


if __name__ == "__main__":
    main()
