"""Robust to what users' modules do: prints stay off ``--json``; deep expressions and matrix-symbol products
get a verdict (never a RecursionError or TypeError traceback), through the CLI and the API."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
import sympy as sp

from derive import Derivation, Step
from derive.cli import main
from derive.verify import verify

PRINTING = textwrap.dedent('''
    import sympy as sp
    from derive import Derivation, FunctionCheck, Step

    print("module output on import")
    x, y = sp.symbols("x y", real=True)

    def noisy(seed):
        print("check output while verifying")
        return True, {"n": 1}, "fine"

    square = Derivation(name="noisy.square", title="t", start=(x + y) ** 2,
                        steps=(Step(x**2 + 2 * x * y + y**2, "expand"),), checks=(FunctionCheck("noisy", noisy),))
''')

DEEP = textwrap.dedent('''
    import sympy as sp
    from derive import Derivation, Step

    x = sp.Symbol("x", positive=True)
    nested = x
    for _ in range(200):  # 1/(1 + 1/(1 + ... 1/(1 + x))), 200 deep
        nested = 1 / (1 + nested)
    A, B, C = (sp.MatrixSymbol(name, 3, 3) for name in "ABC")
    n = sp.Symbol("n", integer=True, positive=True)
    P, Q = sp.MatrixSymbol("P", n, n), sp.MatrixSymbol("Q", n, n)
    fraction = Derivation(name="deep.fraction", title="t", start=nested,
                          steps=(Step(sp.together(nested), "one fraction"),))
    trace3 = Derivation(name="deep.trace3", title="t", start=sp.Trace(A * B * C),
                        steps=(Step(sp.Trace(C * A * B), "cyclic"),))
    trace_n = Derivation(name="deep.trace-n", title="t", start=sp.Trace(P * Q),
                         steps=(Step(sp.Trace(Q * P), "cyclic"),))
''')


def _cli(tmp_path, *args):
    env = {"DERIVE_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "derive", *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=900)


def test_prints_of_a_module_and_its_checks_stay_off_json_in_process(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DERIVE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "noisy_in.py").write_text(PRINTING.replace("noisy.square", "noisy.square-in"))
    code = main(["check", "--module", str(tmp_path / "noisy_in.py"), "--json", "-j", "1", "--no-cache"])
    out, err = capsys.readouterr()
    data = json.loads(out)  # stdout is the JSON document and nothing else
    assert code == 0 and data["ok"] is True and [r["name"] for r in data["reports"]] == ["noisy.square-in"]
    assert "module output on import" in err and "check output while verifying" in err


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_prints_stay_off_json_through_the_command(tmp_path, jobs):
    (tmp_path / "noisy.py").write_text(PRINTING)
    proc = _cli(tmp_path, "check", "--module", "noisy.py", "--json", "-j", jobs, "--no-cache")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["reports"][0]["name"] == "noisy.square" and data["reports"][0]["checks"][-1]["state"] == "passed"
    assert "module output on import" in proc.stderr and "check output while verifying" in proc.stderr


def test_deep_and_matrix_symbol_expressions_get_a_verdict_through_the_command(tmp_path):
    (tmp_path / "deep.py").write_text(DEEP)
    proc = _cli(tmp_path, "check", "deep.fraction", "--module", "deep.py", "--json", "-j", "1", "--no-cache")
    assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stderr, proc.stderr[-2000:]
    report = json.loads(proc.stdout)["reports"][0]
    # a verdict, never a crash: proved when the step's budget suffices (about 9 s CPU on an idle machine)
    assert report["verdict"] in ("proved", "undecided") and proc.returncode == (0 if report["ok"] else 1)
    if report["verdict"] == "proved":
        assert report["checks"][0]["state"] == "passed" and report["checks"][0]["figures"]["points"] > 0
    # a trace of a product of matrix symbols: no numeric value and no sound strategy yet, but a verdict
    proc = _cli(tmp_path, "check", "deep.trace*", "--module", "deep.py", "--json", "-j", "1", "--no-cache",
                "--budget", "1")
    assert "Traceback" not in proc.stderr and "TypeError" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 1
    reports = {r["name"]: r for r in json.loads(proc.stdout)["reports"]}
    for name in ("deep.trace3", "deep.trace-n"):
        step = reports[name]["steps"][0]
        assert step["verdict"] == "undecided" and "TypeError" not in step["detail"], step
        assert "internal error" not in step["strategy"] and "Trace" in step["detail"]
        assert reports[name]["checks"][0]["state"] == "not evaluated"


def test_deep_expressions_get_a_verdict_through_the_api():
    from derive.recursion import RECURSION_LIMIT, make_room

    assert make_room() and sys.getrecursionlimit() >= RECURSION_LIMIT  # what a script building them calls first
    from fractions import Fraction

    cf, value = sp.Integer(1), Fraction(1)
    for _ in range(200):  # the continued fraction 1 + 1/(1 + 1/(1 + ...)), 200 deep, kept as written
        cf, value = sp.Add(1, sp.Pow(cf, -1, evaluate=False), evaluate=False), 1 + 1 / value
    der = Derivation(name="deep.continued", title="t", start=cf,
                     steps=(Step(sp.Rational(value.numerator, value.denominator), "evaluate"),))
    report = verify(der)
    step = report.steps[0]
    assert str(step.verdict) in {"proved", "undecided"}, report  # never refuted: it is true
    assert not step.strategy.startswith(("recursion limit", "internal error", "verifier failed")), step
    assert report.checks[0].state == "passed" and report.checks[0].figures["points"] == 1
    A, B = sp.MatrixSymbol("A", 2, 2), sp.MatrixSymbol("B", 2, 2)
    trace = verify(Derivation(name="deep.trace2", title="t", start=sp.Trace(A * B),
                              steps=(Step(sp.Trace(B * A), "cyclic"),)))
    step = trace.steps[0]
    assert str(step.verdict) in {"proved", "undecided"} and "internal error" not in step.strategy
