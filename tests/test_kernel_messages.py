"""What the kernel says about a step: the set a step holds off, the names in a counterexample (issue 19)."""

from __future__ import annotations

import json
import re
import textwrap

import sympy as sp

from derive import Derivation, Step, Verdict
from derive.cli import main
from derive.verify import verify

MODULE = textwrap.dedent(
    """
    import sympy as sp
    from derive import Derivation, Step, register

    x, a = sp.symbols("x a", real=True)
    z = sp.IndexedBase("z")
    i, j, n = sp.symbols("i j n", integer=True, positive=True)


    @register("mine.integral-pole", title="an integral singular at a parameter")
    def pole():
        return Derivation(name="mine.integral-pole", title="an integral singular at a parameter",
                          start=sp.Integral(1 / (x - a) ** 2, (x, 0, 1)),
                          steps=(Step(1 / (a - 1) - 1 / a, "integrate"),))


    @register("mine.family", title="a false step about a family")
    def family():
        return Derivation(name="mine.family", title="a false step about a family",
                          start=sp.exp(z[i]) / sp.Sum(sp.exp(z[j]), (j, 1, n)),
                          steps=(Step(sp.exp(z[i]) / n, "wrong"),))
    """
)


def test_an_integral_singular_at_a_parameter_value_holds_only_off_a_set_of_it():
    """∫₀¹ dx/(x − a)² = 1/(a − 1) − 1/a fails at a = 1/2 (a breakpoint: the integral diverges there), not on
    a region: the step is undecided and says that it holds only off a set of a (it said "the two sides differ
    on a region", and called it a kernel disagreement)."""
    x, a = sp.symbols("x a", real=True)
    d = Derivation(name="t.integral-pole-message", title="t", start=sp.Integral(1 / (x - a) ** 2, (x, 0, 1)),
                   steps=(Step(1 / (a - 1) - 1 / a, "integrate"),))
    step = verify(d).steps[0]
    assert step.verdict is Verdict.UNDECIDED
    assert step.strategy.endswith("(holds only off a set of a)"), step.strategy
    # a = 1/2 is both a special value and the integral's breakpoint: named as whichever was drawn first
    named = r"the left side is undefined at a = 1/2 \(a (breakpoint|special value)\)"
    assert re.search(named, step.detail), step.detail
    assert "holds only off a set of a; not proved" in step.detail
    assert "region" not in step.detail and "DISAGREEMENT" not in step.detail


def test_the_name_of_a_family_is_no_variable_of_a_counterexample():
    """A false step about z[i] is refuted at a point that gives z[1], z[2]… values; the family's name z is
    not a symbol of the point (it was drawn a value and shown as z = 15/16, and took special values of its own)."""
    z = sp.IndexedBase("z")
    i, j, n = sp.symbols("i j n", integer=True, positive=True)
    d = Derivation(name="t.family-point", title="t", start=sp.exp(z[i]) / sp.Sum(sp.exp(z[j]), (j, 1, n)),
                   steps=(Step(sp.exp(z[i]) / n, "wrong"),))
    step = verify(d).steps[0]
    assert step.verdict is Verdict.REFUTED
    point = step.counterexample.point
    assert "z" not in point and "z[1]" in point and set(point) >= {"i", "n"}, point
    # a symbol z that also stands alone keeps its value
    zs = sp.Symbol("z")
    both = Derivation(name="t.family-and-symbol", title="t", start=zs * z[i], steps=(Step(zs + z[i], "wrong"),))
    step = verify(both).steps[0]
    assert step.verdict is Verdict.REFUTED and "z" in step.counterexample.point, step.counterexample


def test_the_messages_on_the_terminal_and_in_json(tmp_path, capsys):
    module = tmp_path / "mine.py"
    module.write_text(MODULE)
    code = main(["check", "--module", str(module), "mine.*", "--no-cache", "--jobs", "1"])
    out, _ = capsys.readouterr()
    assert code == 1
    assert "the step holds only off a set of a; not proved" in out and "(holds only off a set of a)" in out, out
    assert "differ on a region" not in out
    cex = next(line for line in out.splitlines() if "counterexample:" in line)
    assert " z=" not in cex and "z[1]=" in cex, cex
    code = main(["check", "--module", str(module), "mine.*", "--no-cache", "--jobs", "1", "--json"])
    out, _ = capsys.readouterr()
    reports = {r["name"]: r for r in json.loads(out)["reports"]}
    step = reports["mine.integral-pole"]["steps"][0]
    assert "holds only off a set of a" in step["detail"] and "holds only off a set of a" in step["strategy"]
    point = reports["mine.family"]["steps"][0]["counterexample"]["point"]
    assert "z" not in point and "z[1]" in point, point
