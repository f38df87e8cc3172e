"""The trust boundary: only derive/kernel issues a proved verdict, primitives are trusted by exact class."""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import sympy as sp

from derive import Derivation, Step, Verdict
from derive import check as verify
from derive.kernel.primitives import PRIMITIVES, Substitute, is_primitive

PACKAGE = Path(__file__).resolve().parents[1] / "derive"


def _proved_constructions(path: Path) -> list[int]:
    """Lines where a StepResult is built with Verdict.PROVED."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                named = isinstance(arg, ast.Attribute) and arg.attr == "PROVED"
                if named and getattr(arg.value, "id", "") == "Verdict":
                    out.append(node.lineno)
    return out


def test_only_the_kernel_constructs_a_proved_verdict():
    outside = {str(p.relative_to(PACKAGE.parent)): lines for p in sorted(PACKAGE.rglob("*.py"))
               if (lines := _proved_constructions(p)) and "kernel" not in p.parts}
    assert outside == {}
    inside = [p.name for p in (PACKAGE / "kernel").glob("*.py") if _proved_constructions(p)]
    assert inside == ["decide.py"]


def test_the_kernel_imports_nothing_untrusted():
    untrusted = ("transformer", "render", "cli", "sphinxext", "cache", "registry", "params", "pytest_plugin")
    for path in (PACKAGE / "kernel").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level >= 2 and node.module:
                assert node.module.split(".")[0] not in untrusted, (path.name, node.module)


def test_a_subclass_of_a_primitive_inherits_no_trust():
    x = sp.Symbol("x", real=True)

    class Liar(Substitute):
        def apply(self, expr):  # claims whatever the step wants
            return sp.Integer(0)

    rule = Liar(((x, 0),), "x = 0")
    assert not is_primitive(rule) and is_primitive(Substitute(((x, 0),)))
    # no premise x = 0 here: under one, x = 0 would be true (premises are used without a rule)
    d = Derivation(name="boundary.liar", title="t", start=x,
                   steps=(Step(sp.Integer(0), "x = 0", rule=rule),), auto_identity_check=False)
    # as a proposer it is re-proved: x = 0 is false as an identity
    assert verify(d, numeric=False).steps[0].verdict is not Verdict.PROVED
    assert len(PRIMITIVES) == 17


def test_a_limit_false_only_where_its_denominator_vanishes_is_not_proved():
    """lim_{x→0⁺} x/(x + y − 5) is 0 except at y = 5, where it is 1: neither the one-step claim nor a chain of two
    steps that each hold almost everywhere may be proved (the breakpoints include y = 5; a held-out breaker)."""
    from derive.verify import verify

    x, y = sp.symbols("x y", real=True)
    c = y - sp.Rational(7, 3)
    one = Derivation(name="t.limit-pole-one", title="t", start=sp.Limit(x / (x + y - 5), x, 0, "+"),
                     steps=(Step(sp.Integer(0), "the limit"),))
    two = Derivation(name="t.limit-pole-two", title="t", start=sp.Limit(x / (x + c), x, 0, "+"),
                     steps=(Step(sp.Limit(x, x, 0, "+") / c, "quotient"), Step(sp.Integer(0), "lim x = 0")))
    for d in (one, two):
        assert verify(d).verdict is not Verdict.PROVED, d.name


def test_a_limit_false_only_at_an_irrational_value_is_not_proved():
    """lim_{x→0⁺} x/(x + y² − 2) is 1 at y = ±√2 and lim x/(x + e^y − 2) is 1 at y = log 2, 0 elsewhere: the
    breakpoints are irrational, so the witness evaluates there too (an ExactReal point): neither is proved, and
    each is refuted at that point."""
    from derive.kernel.points import ExactReal, _limit_poles, generate
    from derive.verify import verify

    x, y = sp.symbols("x y", real=True)
    for den, where in ((x + y**2 - 2, {sp.sqrt(2), -sp.sqrt(2)}), (x + sp.exp(y) - 2, {sp.log(2)})):
        lim = sp.Limit(x / den, x, 0, "+")
        assert _limit_poles(lim) == [den.xreplace({x: 0})]
        breaks = [p.values[y] for p in generate([lim], 0, 0, 0, 2) if p.label.startswith("breakpoint")]
        assert breaks and all(isinstance(v, ExactReal) and v.exact in where for v in breaks), breaks
        d = Derivation(name="t.limit-pole-irrational", title="t", start=lim, steps=(Step(sp.Integer(0), "the limit"),))
        step = verify(d).steps[0]
        # refuted there: sympy's limit at the exact point and the numeric limit agree (1), the step says 0
        assert step.verdict is Verdict.REFUTED, step
        assert step.counterexample.point["y"] in {str(w) for w in where}
        assert step.counterexample.lhs.startswith("1.0") and step.counterexample.rhs.startswith("0")


def test_a_limit_at_infinity_false_where_its_leading_coefficient_vanishes_is_not_proved():
    """lim_{t→∞} t(y − 3/7)/(t(y − 3/7) + 1) is 1 except at y = 3/7, where it is 0, and lim atan(t(y − π)²) is
    π/2 except at y = π, where it is 0: the coefficients of t are breakpoints (held-out breakers), evaluated
    before the special values, so both are refuted there; under y > 1 (y > 4) the generic value holds."""
    from derive.kernel.points import ExactReal, _limit_leading, generate
    from derive.verify import verify

    t = sp.Symbol("t", positive=True)
    y = sp.Symbol("y", real=True)
    c = y - sp.Rational(3, 7)
    ratio = sp.Limit(t * c / (t * c + 1), t, sp.oo)
    arctan = sp.Limit(sp.atan(t * (y - sp.pi) ** 2), t, sp.oo)
    assert _limit_leading(ratio) == (c,)
    assert _limit_leading(arctan) == ((y - sp.pi) ** 2,)
    labels = [p.label for p in generate([ratio], 0, 1, 4, 1)]
    assert labels[:2] == ["random", "breakpoint y = 3/7"], labels
    (pi_point,) = [p for p in generate([arctan], 0, 0, 0, 1)]
    assert isinstance(pi_point.values[y], ExactReal) and pi_point.values[y].exact == sp.pi
    for lim, generic, where in ((ratio, sp.Integer(1), "3/7"), (arctan, sp.pi / 2, "pi")):
        d = Derivation(name="t.limit-leading", title="t", start=lim, steps=(Step(generic, "the limit"),))
        step = verify(d).steps[0]
        # sympy's limit at the exact point and the numeric one agree (0); the step says 1 (π/2)
        assert step.verdict is Verdict.REFUTED, step
        assert step.counterexample.point["y"] == where
        assert step.counterexample.lhs.startswith("0") and not step.counterexample.rhs.startswith("0")
    ok = Derivation(name="t.limit-leading-ok", title="t", start=ratio, steps=(Step(sp.Integer(1), "the limit"),),
                    premises=(sp.Gt(y, 1),))
    assert verify(ok).verdict is Verdict.PROVED


def test_an_integral_whose_singularity_a_parameter_moves_into_the_range_is_not_proved():
    """∫_{1.41}^{1.42} dx/(x − a)² = 1/(a − 1.42) − 1/(a − 1.41) holds for a outside [1.41, 1.42] only (the
    integral diverges inside), and ∫₀¹ dx/(x − a)² = 1/(a − 1) − 1/a outside [0, 1]: the parameter values that
    put the pole inside the range (its middle first) and at its ends are breakpoints, where the left side is
    undefined and the right side has a value, so neither is proved for every a; under a > 2 both are."""
    from derive.kernel.points import _integral_poles, generate
    from derive.verify import verify

    x, a = sp.symbols("x a", real=True)
    lo, hi = sp.Rational(141, 100), sp.Rational(142, 100)
    narrow = sp.Integral(1 / (x - a) ** 2, (x, lo, hi))
    unit = sp.Integral(1 / (x - a) ** 2, (x, 0, 1))
    assert _integral_poles(narrow) == (sp.Tuple(a, lo, hi), a - lo, a - hi)
    assert [p.values[a] for p in generate([unit], 0, 0, 0, 3)] == [Fraction(1, 2), 0, 1]
    for integral, rhs in ((narrow, 1 / (a - hi) - 1 / (a - lo)), (unit, 1 / (a - 1) - 1 / a)):
        d = Derivation(name="t.integral-pole", title="t", start=integral, steps=(Step(rhs, "integrate"),))
        step = verify(d).steps[0]
        assert step.verdict is Verdict.UNDECIDED, step
        assert "left side is undefined" in step.detail, step.detail
        ok = Derivation(name="t.integral-pole-ok", title="t", start=integral, steps=(Step(rhs, "integrate"),),
                        premises=(sp.Gt(a, 2),))
        assert verify(ok).verdict is Verdict.PROVED, integral


def test_a_limit_at_infinity_is_not_undefined_where_a_sample_hits_a_pole():
    """mpmath samples a limit at infinity at t = 1, 2, 3…: (y·t + 1)/(t − 2) has a pole at t = 2, which says
    nothing about t → ∞ (the limit is y), so the samples move off the integers and the true step is proved (it
    was a kernel disagreement); lim (t·y − t + 1)/(t·y − t + 2) = 1 is refuted where its leading coefficient
    y − 1 vanishes (the limit is 1/2 there), and proved under y > 3."""
    import mpmath

    from derive.kernel.evaluate import Evaluator
    from derive.verify import verify

    t = sp.Symbol("t", positive=True)
    y = sp.Symbol("y", real=True)
    with mpmath.workdps(30):
        assert Evaluator(30, {}, None).value(sp.Limit((t + 1) / (t - 2), t, sp.oo)) == 1
    pole = Derivation(name="t.limit-sample-pole", title="t", start=sp.Limit((y * t + 1) / (t - 2), t, sp.oo),
                      steps=(Step(y, "the limit"),))
    assert verify(pole).verdict is Verdict.PROVED
    ratio = sp.Limit((t * y - t + 1) / (t * y - t + 2), t, sp.oo)
    step = verify(Derivation(name="t.limit-lc", title="t", start=ratio, steps=(Step(sp.Integer(1), "lim"),))).steps[0]
    assert step.verdict is Verdict.REFUTED and step.counterexample.point["y"] == "1", step
    assert step.counterexample.lhs.startswith("0.5")
    ok = Derivation(name="t.limit-lc-ok", title="t", start=ratio, steps=(Step(sp.Integer(1), "lim"),),
                    premises=(sp.Gt(y, 3),))
    assert verify(ok).verdict is Verdict.PROVED


def test_a_limit_breakpoint_that_satisfies_the_premises_is_drawn():
    """lim_{t→∞} t(y² − 2)/(t(y² − 2) + 1) = 1 is false at y = √2 (the limit is 0 there): under y > 0 (y ≥ 1, a
    definition z := y², an equation premise z = y²) the breakpoint the premises admit is drawn (√2, not −√2,
    which they exclude) and the step is refuted there, as it is with no premise at −√2; an e^y = 2 breakpoint
    under y > 0 likewise; under y > 2 the breakpoints are excluded and the true step is never refuted."""
    from derive.kernel import hypotheses
    from derive.kernel.points import ExactReal, generate
    from derive.verify import verify

    t = sp.Symbol("t", positive=True)
    x, y, z = sp.symbols("x y z", real=True)

    def ratio(c):
        return sp.Limit(t * c / (t * c + 1), t, sp.oo)

    squared, exponential = ratio(y**2 - 2), ratio(sp.exp(y) - 2)
    hyps = hypotheses.of((), (sp.Gt(y, 0),))
    (br,) = [p for p in generate([squared], 0, 0, 0, 1, accept=hyps.admit)]
    assert isinstance(br.values[y], ExactReal) and br.values[y].exact == sp.sqrt(2), br.shown()
    assert [p for p in generate([squared], 0, 0, 0, 1, accept=hypotheses.of((), (sp.Gt(y, 2),)).admit)] == []
    cases = [(squared, (), (), "sqrt(2)"), (squared, (sp.Gt(y, 0),), (), "sqrt(2)"),
             (squared, (sp.Ge(y, 1),), (), "sqrt(2)"), (ratio(z - 2), (sp.Eq(z, y**2), sp.Gt(y, 0)), (), "sqrt(2)"),
             (ratio(z - 2), (sp.Gt(y, 0),), ((z, y**2),), "sqrt(2)"), (exponential, (sp.Gt(y, 0),), (), "log(2)"),
             # another symbol is moved to a rational value inside the premises at the irrational breakpoint
             (squared, (sp.Gt(y, x), sp.Gt(x, 1)), (), "sqrt(2)"), (squared, (sp.Lt(y, x), sp.Gt(y, 0)), (), "sqrt(2)")]
    for lim, premises, definitions, where in cases:
        d = Derivation(name="t.limit-premise", title="t", start=lim, steps=(Step(sp.Integer(1), "the limit"),),
                       premises=premises, definitions=definitions)
        step = verify(d).steps[0]
        assert step.verdict is Verdict.REFUTED, (premises, definitions, step)
        # with no premise the first root drawn is −√2; under one, the root the premises admit
        assert step.counterexample.point["y"] in {where, f"-{where}"} if not premises else \
            step.counterexample.point["y"] == where, step.counterexample
        assert step.counterexample.lhs.startswith("0")
        if x in sp.Tuple(*premises).free_symbols:  # x was moved inside: 1 < x < √2, or x > √2
            shown = Fraction(step.counterexample.point["x"])
            assert (1 < shown < 1.4142135) if sp.Gt(x, 1) in premises else shown > 1.4142136, shown
    ok = Derivation(name="t.limit-premise-ok", title="t", start=squared, steps=(Step(sp.Integer(1), "the limit"),),
                    premises=(sp.Gt(y, 2),))
    assert verify(ok).steps[0].verdict is not Verdict.REFUTED


def test_a_limit_of_a_commutative_expression_gets_every_strategy():
    """sympy leaves ``Limit.is_commutative`` undecided, so a sum or a product holding a limit was treated as
    non-commuting and got the order-keeping strategies only: lim f(x)·(sin²y + cos²y) = lim f(x) was undecided.
    A limit of a commutative scalar expression commutes; non-commuting symbols (inside a limit too) and matrix
    symbols keep the order-keeping strategies, so P·Q = Q·P stays unproved."""
    from derive.kernel.strategies import noncommutative

    x, y = sp.symbols("x y", real=True)
    f = sp.Function("f")
    P, Q = sp.symbols("P Q", commutative=False)
    A, B = sp.MatrixSymbol("A", 2, 2), sp.MatrixSymbol("B", 2, 2)
    lim = sp.Limit(f(x), x, 0)
    assert not noncommutative(lim * (sp.sin(y) ** 2 + sp.cos(y) ** 2) - lim, y * lim + lim**2)
    assert noncommutative(sp.Limit(x * P, x, 0) * y - 1) and noncommutative(lim * P - P * lim)
    assert noncommutative(sp.Trace(A * B) + lim)
    proved = Derivation(name="t.limit-commutes", title="t", start=lim * (sp.sin(y) ** 2 + sp.cos(y) ** 2),
                        steps=(Step(lim, "sin² + cos² = 1"),), auto_identity_check=False)
    step = verify(proved).steps[0]
    assert step.verdict is Verdict.PROVED, step  # by trigsimp or by rewriting sin and cos as exponentials
    assert "no numeric witness" in step.witness
    for start, end in ((P * Q, Q * P), (sp.Limit(x * P * Q, x, 1), sp.Limit(x * Q * P, x, 1))):
        d = Derivation(name="t.nc", title="t", start=start, steps=(Step(end, "swap"),), auto_identity_check=False)
        step = verify(d).steps[0]
        assert step.verdict is not Verdict.PROVED, step


def test_a_denominator_read_where_it_is_infinite_is_no_breakpoint():
    """lim_{T→0⁺} of a softmax at temperature T: its denominator read at T = 0 is exp(zoo·z_max) + …, which has
    no zero to solve for; it took a breakpoint slot (softmax.temperature-zero) and is dropped (y, the factor of
    1/T, stays: the limit is 1/2 at y = 0), and no point of any step of that derivation has an infinite value."""
    from derive import registry
    from derive.kernel import witness
    from derive.kernel.points import _analysis, generate

    y = sp.Symbol("y", real=True)
    T = sp.Symbol("T", positive=True)
    assert _analysis([sp.Limit(1 / (1 + sp.exp(-y / T)), T, 0, "+")])[3] == ((y, False, True),)
    registry.load_catalog()
    d = registry.get("softmax.temperature-zero")
    chain = [d.start, *(s.expr for s in d.steps)]
    for before, after in zip(chain, chain[1:], strict=False):
        exprs = [e for side in (before, after) for e in witness._flat(side)]
        assert not any(g.has(sp.zoo, sp.nan, sp.oo) for g, _, _ in _analysis(exprs)[3])
        for p in generate(exprs, 1, 2, 24, 8):
            assert "zoo" not in p.label and "oo" not in " ".join(p.shown().values()), p.shown()
