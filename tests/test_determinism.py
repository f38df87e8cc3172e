"""Determinism: the same command gives the same report, whatever the number of threads.

``derive check --json`` runs twice in fresh processes, once with one BLAS/OpenMP
thread and once with two; the reports must be identical except for timings,
and every random draw must name its seed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import pytest

from derive.settings import DEFAULT_SEED

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in ("seconds", "cpu_seconds")}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def _start(threads: int, *argv: str) -> subprocess.Popen:
    # a cache directory of its own (DERIVE_CACHE_DIR): each run verifies, none reads the other's reports
    cache = tempfile.mkdtemp(prefix=f"derive-determinism-{threads}-")
    env = {**os.environ, **dict.fromkeys(THREAD_VARIABLES, str(threads)), "PYTHONHASHSEED": str(threads),
           "DERIVE_CACHE_DIR": cache}
    return subprocess.Popen([sys.executable, "-m", "derive", "check", "--json", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _sample() -> list[str]:
    """About six catalog derivations spread over the list, plus every attention.* one (Monte Carlo)."""
    out = subprocess.run([sys.executable, "-m", "derive", "list", "--json"], capture_output=True, text=True,
                         check=True).stdout
    names = [row["name"] for row in json.loads(out)]
    stride = max(1, len(names) // 6)
    return sorted(set(names[::stride]) | {n for n in names if n.startswith("attention.")})


@pytest.fixture(scope="module")
def reports():
    """A sample of the catalog checked twice, concurrently: one thread and two threads."""
    names = _sample()
    one, two = _start(1, *names), _start(2, *names)
    (out1, err1), (out2, err2) = one.communicate(timeout=900), two.communicate(timeout=900)
    # exit 1 (a catalog derivation failing) is test_cli's business; here both runs must agree
    assert one.returncode == two.returncode and one.returncode in (0, 1), err1 + err2
    return json.loads(out1), json.loads(out2)


def test_same_report_twice_with_one_and_two_threads(reports):
    a, b = reports
    assert a["reports"], "no derivation was checked"
    assert _without_timings(a) == _without_timings(b)


def test_every_random_draw_names_its_seed(reports):
    data = reports[0]
    assert data["seed"] == DEFAULT_SEED
    for report in data["reports"]:
        assert report["seed"] == DEFAULT_SEED
        assert all(isinstance(step["seed"], int) for step in report["steps"]), report["name"]
        for check in report["checks"]:
            exact = "rounded" in check["figures"]  # a ValueCheck: exact arithmetic, no random draw
            assert exact or isinstance(check["figures"].get("seed"), int), (report["name"], check["name"])


def test_same_point_in_every_process_even_with_symbols_sharing_a_name():
    """Two symbols named i (different assumptions) are drawn in a fixed order, whatever PYTHONHASHSEED."""
    code = ("import numpy as np, sympy as sp\n"
            "from derive.kernel.points import generate\n"
            "a, b = sp.Symbol('i', integer=True), sp.Symbol('i', positive=True)\n"
            "c = [sp.Symbol(f'x{k}', real=True) for k in range(8)]\n"
            "z = sp.IndexedBase('z', real=True)\n"
            "pts = list(generate([a + 2 * b + sum(c) + z[1] * z[2]], 0, 4, 8, 2))\n"
            "print([sorted((sp.srepr(k), str(v)) for k, v in p.values.items()) for p in pts])\n"
            "print([p.element((z, (1,)), z) for p in pts])\n")
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONHASHSEED": str(seed)}) for seed in (0, 1, 2)]
    outs = {p.communicate(timeout=120)[0] for p in procs}
    assert all(p.returncode == 0 for p in procs) and len(outs) == 1, outs


# ---------------------------------------------------------------- verdicts that must not depend on CPU speed
# The symbolic strategies run under a CPU budget; the numeric phases are bounded by a count of evaluated
# nodes and have a reserve of their own (docs/proved.md, "Time limits"). So a false step is refuted however
# little time the strategies had, and with or without the quick probe that may find the point first.

def _verdict(before, claim, budget=10.0, *, probe=True, monkeypatch=None):
    from derive import Step
    from derive.kernel import witness
    from derive.verify import verify_step

    if not probe:
        monkeypatch.setattr(witness, "quick_search", lambda *a, **k: witness.Witness(0, 0, None, "", 0, 0))
    return verify_step(before, Step(claim, "a claim"), index=1, budget=budget)


def test_a_false_step_is_refuted_even_when_the_strategies_have_almost_no_time():
    import sympy as sp

    from derive import Verdict

    x = sp.Symbol("x", real=True)
    r = _verdict((x + 1) ** 2, x**2 + 1, budget=0.01)
    # refuted by the quick probe on a fast machine, by the search in the numeric reserve on a slow one
    assert r.verdict is Verdict.REFUTED, (r.strategy, r.detail)


@pytest.mark.parametrize("probe", [True, False], ids=["with-probe", "without-probe"])
def test_a_limit_that_jumps_at_a_special_point_is_refuted_with_or_without_the_probe(monkeypatch, probe):
    # lim_{x→0⁺} x²/(x² + y²) is 0 for y ≠ 0 and 1 at y = 0: sympy says 0 for real y
    import sympy as sp

    from derive import Verdict

    x, y = sp.symbols("x y", real=True)
    r = _verdict(sp.Limit(x**2 / (x**2 + y**2), x, 0, "+"), sp.Integer(0), 3.0, probe=probe,
                 monkeypatch=monkeypatch)
    assert r.verdict is Verdict.REFUTED, (r.strategy, r.detail)
    assert r.counterexample.point["y"] == "0"


@pytest.mark.parametrize("probe", [True, False], ids=["with-probe", "without-probe"])
def test_a_wrong_closed_form_from_doit_is_never_proved(monkeypatch, probe):
    # sympy 1.14 integrates |sin 2t| over [0, 2π] to 2; the value is 4. The probe (bounded by a node count,
    # so it runs the same everywhere) refutes it; without it, sympy's closed form meets the witness, and a
    # disagreement between the two is undecided (either evaluator may be the wrong one), never proved
    import sympy as sp

    from derive import Verdict

    t = sp.Symbol("t", real=True)
    r = _verdict(sp.Integral(sp.Abs(sp.sin(2 * t)), (t, 0, 2 * sp.pi)), sp.Integer(2), probe=probe,
                 monkeypatch=monkeypatch)
    if probe:
        assert r.verdict is Verdict.REFUTED, (r.strategy, r.detail)
    else:
        assert r.verdict is not Verdict.PROVED, (r.strategy, r.detail)


def _burn(seconds: float) -> None:
    import time

    start = time.process_time()
    while time.process_time() - start < seconds:
        pass


def test_a_limit_search_evaluates_the_same_points_when_sympy_is_slow(monkeypatch):
    # which points are evaluated is decided by sizes and node counts, not by CPU time: the first sympy limit
    # at a point taking 0.8 s (a cold cache on a loaded machine, a profiler) changes no figure of the search
    import sympy as sp

    from derive.kernel import evaluate, witness

    x, y = sp.symbols("x y", real=True)
    lhs = sp.Limit(x**2 / (x**2 + y**2 + 1), x, 0, "+")  # 0 for every y: every point agrees
    evaluate._LIMITS_AT.clear()
    fast = witness.search(lhs, sp.Integer(0), "=", 11)
    evaluate._LIMITS_AT.clear()
    real, calls = sp.Limit.doit, []

    def slow(self, **hints):
        calls.append(self)
        if len(calls) == 1:
            _burn(0.8)
        return real(self, **hints)

    monkeypatch.setattr(sp.Limit, "doit", slow)
    slowed = witness.search(lhs, sp.Integer(0), "=", 11)
    # (the search asks sympy for a limit at a point only where the numeric limits do not simply agree, so here it
    # may not ask at all: the figures must be the same either way)
    assert (slowed.agreed, slowed.evaluated, slowed.unknown, slowed.special) == (
        fast.agreed, fast.evaluated, fast.unknown, fast.special)
    assert fast.unknown == 0 and fast.agreed >= 4


def test_breakpoint_and_limit_sizes_are_capped_before_sympy_is_asked():
    # a size cap (an operation count), decided before the call, replaces the short time limits that made
    # the points depend on the machine; the time limit left is a backstop against hangs only
    import sympy as sp

    from derive.kernel import evaluate, limits

    x = sp.Symbol("x", real=True)
    big = sum(sp.exp(k * x) * x**k for k in range(1, 12)) - 3
    assert sp.count_ops(big) > evaluate.SOLVE_OPS
    assert evaluate._solve_real(big, x) is None
    assert set(evaluate._solve_real(x**2 - 2, x)) == {-sp.sqrt(2), sp.sqrt(2)}
    assert limits.BACKSTOP >= 5.0
