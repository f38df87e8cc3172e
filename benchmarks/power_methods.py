"""The three provers compared on the derivative corpus, one case at a time, each under a time limit.

* :func:`by_derive`: derive's public API, the step ``Derivative(F, x) = f`` with no numeric cross-checks;
* :func:`by_simplify`: ``sympy.simplify(sp.diff(F, x) - f) == 0``;
* :func:`by_equals`: ``sp.diff(F, x).equals(f)``.

Each returns ``(verdict, seconds)`` with verdict ``"proved"``, ``"refuted"`` or ``"undecided"``. The two
sympy baselines run under a SIGALRM limit (``limit`` seconds, derive's default step budget unless told)
and count as undecided when they hit it (``timed_out`` in :data:`LAST`); simplify "refutes" only when
it reduces the difference to a nonzero number, ``equals`` when it returns ``False``. Every measurement
starts from an empty sympy cache, so no method reuses results memoised by another.
"""

from __future__ import annotations

import signal
import time
from typing import Any

import sympy as sp
from sympy.core.cache import clear_cache

from derive import Derivation, Step, check
from derive.settings import DEFAULT_BUDGET

from .corpus_derivatives import Case

#: details of the last measurement: {"timed_out": bool, "strategy": str, "cpu_s": float}
LAST: dict[str, Any] = {}


class _Limit(Exception):
    pass


def _alarm(signum, frame):  # noqa: ARG001 - signal handler signature
    raise _Limit


def derivation(case: Case, number: int = 0) -> Derivation:
    """The one-step derivation ``Derivative(F, x) = f`` of ``case`` (no automatic identity check)."""
    return Derivation(name=f"power.case-{number}", title=case.id, start=sp.Derivative(case.F, case.x),
                      steps=(Step(case.f, "differentiate the antiderivative"),), auto_identity_check=False)


def by_derive(case: Case, number: int = 0) -> tuple[str, float]:
    """derive's verdict on the step (its own budget: the default 5 s)."""
    clear_cache()
    d = derivation(case, number)
    t0, c0 = time.perf_counter(), time.process_time()
    report = check(d, numeric=False)
    seconds = time.perf_counter() - t0
    step = report.steps[0]
    LAST.update(timed_out=False, strategy=step.strategy, cpu_s=time.process_time() - c0)
    return str(step.verdict), seconds


def _limited(fn, limit: float) -> tuple[Any, float, bool]:
    clear_cache()
    old = signal.signal(signal.SIGALRM, _alarm)
    t0, c0 = time.perf_counter(), time.process_time()
    timed_out = False
    result = None
    try:
        signal.setitimer(signal.ITIMER_REAL, limit)
        result = fn()
    except _Limit:
        timed_out = True
    except Exception:  # noqa: BLE001 - a baseline that raises has not proved anything
        result = None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    seconds = time.perf_counter() - t0
    LAST.update(timed_out=timed_out, strategy="", cpu_s=time.process_time() - c0)
    return result, seconds, timed_out


def by_simplify(case: Case, limit: float = DEFAULT_BUDGET) -> tuple[str, float]:
    """``simplify(diff(F, x) - f) == 0``: proved; a nonzero number: refuted; else (or timeout) undecided."""
    result, seconds, _ = _limited(lambda: sp.simplify(sp.diff(case.F, case.x) - case.f), limit)
    if result is None:
        return "undecided", seconds
    if result == 0:
        return "proved", seconds
    if isinstance(result, sp.Expr) and result.is_number and result.is_zero is False:
        return "refuted", seconds
    return "undecided", seconds


def by_equals(case: Case, limit: float = DEFAULT_BUDGET) -> tuple[str, float]:
    """``diff(F, x).equals(f)``: True proved, False refuted, None (or timeout) undecided."""
    result, seconds, _ = _limited(lambda: sp.diff(case.F, case.x).equals(case.f), limit)
    return {True: "proved", False: "refuted"}.get(result, "undecided"), seconds


METHODS = {"derive": by_derive, "simplify": by_simplify, "equals": by_equals}
