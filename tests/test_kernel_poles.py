"""Parameter values where a step's value jumps: a pole an integral's range takes in, a limit's lowest term vanishing.

Held-out breakers (session 8) found false steps proved: ∫₀¹ dx/(x − a)² = 1/(a − 1) − 1/a under a premise that
excluded the one breakpoint the witness drew inside [0, 1] (a ≠ 1/2, a > 1/2…), and lim_{x→0⁺} of a ratio whose
lowest power of x has a coefficient vanishing at y = 3/7 (or √2), where the limit is another value.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from derive import Derivation, Step, Verdict
from derive.kernel import hypotheses
from derive.kernel.points import ExactReal, _limit_trailing, generate
from derive.verify import verify

x, a, y = sp.symbols("x a y", real=True)
HALF = sp.Rational(1, 2)


def _integral_step(power: int, premises: tuple, relation: str = "=", shift: int = 0) -> Step:
    integral = sp.Integral((x - a) ** -power, (x, 0, 1))
    k = power - 1
    rhs = (1 / (a - 1) ** k - 1 / a**k) / k - shift
    d = Derivation(name="t.integral-pole-premise", title="t", start=integral,
                   steps=(Step(rhs, "integrate", relation=relation),), premises=premises)
    return verify(d).steps[0]


def test_a_pole_inside_the_range_is_drawn_where_the_premises_allow_it():
    """The breakpoint of ∫₀¹ dx/(x − a)² is a value of a inside [0, 1] that the premises admit (its middle, else
    ever closer to the end they leave), before the ends; none when the premises exclude the whole set."""
    unit = sp.Integral(1 / (x - a) ** 2, (x, 0, 1))

    def drawn(premise):
        hyps = hypotheses.of((), (premise,))
        return [p.values[a] for p in generate([unit, *hyps.exprs()], 0, 0, 0, 1, accept=hyps.admit)]

    assert [p.values[a] for p in generate([unit], 0, 0, 0, 1)] == [Fraction(1, 2)]
    assert drawn(sp.Ne(a, HALF)) == [Fraction(1, 4)]
    assert drawn(sp.Gt(a, HALF)) == [Fraction(3, 4)]
    assert drawn(sp.Gt(a, sp.Rational(3, 4))) == [Fraction(7, 8)]
    assert drawn(sp.Lt(a, HALF)) == [Fraction(1, 4)]
    assert drawn(sp.Gt(a, sp.sqrt(2) / 2)) == [Fraction(3, 4)]
    (near_one,) = drawn(sp.Gt(a, sp.Rational(999, 1000)))
    assert Fraction(999, 1000) < near_one < 1
    assert drawn(sp.Gt(a, 2)) == []


def test_an_integral_whose_pole_the_premises_let_into_the_range_is_not_proved():
    """∫₀¹ dx/(x − a)² diverges for every a in [0, 1]: under a ≠ 1/2, a > 1/2, a > 3/4, a < 1/2, a > √2/2 the
    closed form 1/(a − 1) − 1/a (and the 1/(x − a)⁴ analogue, and an inequality below it) is not proved — the
    left side is undefined at a point inside the set the premise allows; under a > 2 and a < −1 it is."""
    for premise in (sp.Ne(a, HALF), sp.Gt(a, HALF), sp.Gt(a, sp.Rational(3, 4)), sp.Lt(a, HALF),
                    sp.Gt(a, sp.sqrt(2) / 2)):
        step = _integral_step(2, (premise,))
        assert step.verdict is not Verdict.PROVED, (premise, step)
        assert "left side is undefined" in step.detail, (premise, step.detail)
    for power, relation, shift in ((4, "=", 0), (2, ">=", 1)):
        step = _integral_step(power, (sp.Gt(a, HALF),), relation, shift)
        assert step.verdict is not Verdict.PROVED, (power, relation, step)
    for premise in (sp.Gt(a, 2), sp.Lt(a, -1)):
        assert _integral_step(2, (premise,)).verdict is Verdict.PROVED, premise


def test_a_limit_at_a_finite_point_is_not_proved_where_its_lowest_term_vanishes():
    """lim_{x→0⁺} c·x/(c·x + x²) is 1 except where c = y − 3/7 (or y − √2) vanishes, where it is 0: the
    coefficient of the lowest power of x is a breakpoint (an irrational one an exact point), so the step is
    refuted there, with or without a premise y ≥ 0 that allows it; under y > 2 it is proved."""
    for c, where in ((y - sp.Rational(3, 7), "3/7"), (y - sp.sqrt(2), "sqrt(2)")):
        lim = sp.Limit(x * c / (x**2 + x * c), x, 0, "+")
        assert _limit_trailing(lim) == (c,)
        (br,) = generate([lim], 0, 0, 0, 1)
        assert br.label == f"breakpoint y = {where}"
        assert isinstance(br.values[y], ExactReal) == (where == "sqrt(2)")
        for premises in ((), (sp.Ge(y, 0),)):
            d = Derivation(name="t.limit-finite-jump", title="t", start=lim, steps=(Step(sp.Integer(1), "lim"),),
                           premises=premises)
            step = verify(d).steps[0]
            assert step.verdict is Verdict.REFUTED, (where, premises, step)
            assert step.counterexample.point["y"] == where
            assert step.counterexample.lhs.startswith("0")
        ok = Derivation(name="t.limit-finite-jump-ok", title="t", start=lim, steps=(Step(sp.Integer(1), "lim"),),
                        premises=(sp.Gt(y, 2),))
        assert verify(ok).verdict is Verdict.PROVED, where


def test_the_lowest_term_of_a_limit_at_a_finite_point_is_read_around_that_point():
    """At x → 1 the polynomial x² − 2x + y has its lowest power of (x − 1) with coefficient y − 1 (the constant
    term there), and a power x^(y − 1) at x → 0 changes at y = 1; at infinity there is no lowest term."""
    assert _limit_trailing(sp.Limit((x - 1) / (x**2 - 2 * x + y), x, 1)) == (y - 1,)
    assert _limit_trailing(sp.Limit(x ** (y - 1), x, 0, "+")) == (y - 1,)
    assert _limit_trailing(sp.Limit(x * (y - 1), x, sp.oo)) == ()


def test_a_breakpoint_survives_a_symbol_rebuilt_by_sympy():
    """sympy's symbol cache is bounded: after many expressions, Symbol("a", real=True) is a new object equal to
    the old one, while the remembered breakpoints of an integral still hold the old one. The other symbols of a
    point were told apart by identity, so a itself was substituted into its own breakpoint and none was drawn
    (∫₀¹ dx/(x − a)⁴ under a > 1/2 was proved after the kernel's boundary tests had run in the same process)."""
    from derive.kernel import points

    unit = sp.Integral(1 / (x - a) ** 2, (x, 0, 1))
    points._integral_poles(unit)  # remembered with this a
    sp.core.cache.clear_cache()  # what a full symbol cache does to the oldest symbols
    again = sp.Symbol("a", real=True)
    rebuilt = sp.Integral(1 / (sp.Symbol("x", real=True) - again) ** 2, (x, 0, 1))
    assert again == a and again is not a and rebuilt.free_symbols == {again}
    points._ANALYSIS.clear()
    assert [p.values[again] for p in generate([rebuilt], 0, 0, 0, 3)] == [Fraction(1, 2), 0, 1]
