"""The numeric witness: both sides of a step evaluated by mpmath at the same points.

Two uses:

* **confirming** a symbolic proof (:func:`confirm`): at random and special
  points, the two sides must agree to the working precision; a point where
  they differ stably is a *kernel disagreement* and the step is not proved;
* **refuting** a step (:func:`search`): a counterexample is a point where the
  gap between the two sides exceeds the error bound at every precision of
  :data:`SEARCH_DIGITS` and stays put as the precision grows (the gap at 120
  digits within 10⁻⁶ relative of the gap at 60). A gap that moves, or a value
  that cannot be pinned down (slow series, a quadrature with a large error
  estimate, an inexact value at a breakpoint), decides nothing.

Values come from :mod:`derive.kernel.evaluate`, never from sympy's ``doit()``
or ``evalf``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp

from . import limits
from .binders import substitute
from .evaluate import Evaluator, NotEvaluable, Undefined, Unreliable, to_mp
from .hypotheses import NONE, Hypotheses
from .memo import remembered
from .points import ExactReal, Point, _satisfies, generate, length_symbols

#: Precisions (digits) at which a proved step is confirmed: the second only when the first shows a gap.
CONFIRM_DIGITS = (30, 60)
#: Precisions at which a counterexample must show the same gap.
SEARCH_DIGITS = (60, 120)


@dataclass(frozen=True)
class PointResult:
    """What the witness saw at one point."""

    status: str  # "agree", "differ", "unknown", "undefined", "not-evaluable"
    point: Point
    lhs: str = ""
    rhs: str = ""
    gap: str = ""
    digits: int = 0
    reason: str = ""
    relative_gap: float = 0.0


def _flat(x: Any) -> list:
    if isinstance(x, sp.MatrixBase):
        return list(x)
    return [x]


def prepare(expr: Any, point: Point) -> list:
    """``expr`` as a flat list of scalars at ``point``'s lengths (matrix expressions made explicit).

    Depends only on ``expr`` and the integer values the point gives its length symbols, so the result is
    remembered per (expression, lengths): every point and precision of a step, and every consumer of the
    same expression (the quick probe, the witness, the claim search, the cross-check), builds it once.
    """
    expr = sp.sympify(expr, strict=True)
    lengths = _lengths_of(expr)
    sizes = tuple(sorted(((s, int(v)) for s, v in point.values.items()
                          if s in lengths and isinstance(v, Fraction) and v.denominator == 1), key=str))
    key = (expr, sizes)
    hit = _PREPARED.get(key)
    if hit is None:
        hit = _prepare(expr, sizes)
        if len(_PREPARED) > 4096:
            _PREPARED.clear()
        _PREPARED[key] = hit
    if isinstance(hit, NotEvaluable):
        raise NotEvaluable(str(hit))
    return list(hit)


def _prepare(expr: Any, sizes: tuple) -> tuple | NotEvaluable:
    if isinstance(expr, sp.MatrixExpr) and not isinstance(expr, sp.MatrixBase):
        expr = expr.xreplace({s: sp.Integer(v) for s, v in sizes}) if sizes else expr
        try:
            # doit() multiplies explicit matrices directly (as_explicit would build and evaluate Sums)
            done = expr.doit()
            expr = sp.ImmutableMatrix(done if isinstance(done, sp.MatrixBase) else done.as_explicit())
        except (ValueError, TypeError, AttributeError, NotImplementedError) as exc:
            return NotEvaluable(f"a matrix expression of symbolic shape ({exc})")
    return tuple(_flat(expr))


def _lengths_of(expr: Any) -> frozenset:
    hit = _LENGTHS.get(expr)
    if hit is None:
        if len(_LENGTHS) > 4096:
            _LENGTHS.clear()
        hit = _LENGTHS[expr] = frozenset(length_symbols([expr]))
    return hit


def _takes_values(e: Any) -> bool:
    """Does ``e`` depend on a point (a free symbol, an indexed element, a matrix symbol)? Remembered."""
    return remembered(_TAKES_VALUES, e, lambda x: bool(x.free_symbols or _has_elements(x)), limit=4096)


def _has_elements(e: Any) -> bool:
    """Does ``e`` hold an indexed element or a matrix symbol (whose values a point draws from its seed)?
    Remembered (a pure function of the expression, asked by every run of every consumer of a step)."""
    if not isinstance(e, sp.Basic):
        return False
    try:
        return remembered(_ELEMENTS, e, _elements_in, limit=4096)
    except TypeError:  # unhashable: computed every time
        return _elements_in(e)


def _elements_in(e: Any) -> bool:
    return bool(e.atoms(sp.Indexed, sp.MatrixSymbol))


#: whether an expression depends on a point, and whether it holds elements (pure functions of the expression)
_TAKES_VALUES: dict = {}
_ELEMENTS: dict = {}
#: prepared expressions by (expression, integer lengths) and the length symbols of an expression: pure
#: functions of their keys (sympy expressions are immutable), so remembering them changes no result
_PREPARED: dict = {}
_LENGTHS: dict = {}


def _holds(relation: str, a: Any, b: Any, tol: Any) -> bool:
    if relation == "=":
        return abs(a - b) <= tol
    if isinstance(a, mpmath.mpc) or isinstance(b, mpmath.mpc):
        if abs(mpmath.im(a)) > tol or abs(mpmath.im(b)) > tol:
            raise NotEvaluable("an inequality between complex values")
        a, b = mpmath.re(a), mpmath.re(b)
    return {"<=": a <= b + tol, "<": a < b + tol, ">=": a >= b - tol, ">": a > b - tol}[relation]


def _exact_holds(relation: str, a: Fraction, b: Fraction) -> bool:
    return {"=": a == b, "<=": a <= b, "<": a < b, ">=": a >= b, ">": a > b}[relation]


def _gap(relation: str, a: Any, b: Any) -> Any:
    if relation == "=":
        return abs(a - b)
    a, b = mpmath.re(a), mpmath.re(b)
    return abs(a - b)


def compare_at(lhs: Any, rhs: Any, relation: str, point: Point, digits: tuple[int, ...],
               limits_allowed: bool = True, hyps: Hypotheses = NONE, second_scheme: bool = False,
               lazy_limits: bool = False) -> PointResult:
    """Compare ``lhs relation rhs`` at ``point`` at the precisions ``digits`` (see the module docstring).

    With ``second_scheme`` (a search for a counterexample), a gap that rests on a quadrature is confirmed
    by a second, independent quadrature rule (Gauss–Legendre after tanh-sinh) at the first precision:
    both rules can be stable from 60 to 120 digits on the same wrong value (a peak neither samples), but
    not in the same way; a gap the second rule does not reproduce to 10⁻³ is *unknown*, not a difference.

    With hypotheses, the sides are compared with the eliminated symbols replaced
    (``Hypotheses.reduce`` of ``derive.kernel.hypotheses``).

    With ``lazy_limits`` (a search, ``limits_allowed=False``, that only needs its differences confirmed),
    a limit takes its numeric value without sympy's limit at the exact point (the slow part): a point where
    the two sides agree so is reported as agreeing, and any other outcome at a point that deferred a
    limit is evaluated again without deferring, so a difference (a refutation) is exactly what it would
    have been: numeric and sympy's limits agreeing, stable from the first precision to the last.
    """
    lhs, rhs = hyps.reduce(lhs), hyps.reduce(rhs)
    lhs, rhs = _at_exact(lhs, point), _at_exact(rhs, point)
    try:
        left, right = prepare(lhs, point), prepare(rhs, point)
    except NotEvaluable as exc:
        return PointResult("not-evaluable", point, reason=str(exc))
    if len(left) != len(right):
        return PointResult("differ", point, reason="the two sides have different shapes")
    if lazy_limits and limits_allowed is False:
        work = _WORK[0]
        deferred = [0]
        res = _compare(left, right, relation, point, digits, limits_allowed, second_scheme, deferred)
        if not deferred[0]:
            return res
        if res.status == "agree":
            return PointResult("agree", point, digits=res.digits, reason=LAZY_AGREEMENT)
        _WORK[0] = work  # the point's work is counted once, as the evaluation without deferring counts it
    return _compare(left, right, relation, point, digits, limits_allowed, second_scheme, None)


def _at_exact(expr: Any, point: Point) -> Any:
    """``expr`` with the point's irrational values (``ExactReal``: y = √2 at a breakpoint) put in exactly.

    The evaluator sees √2 as 200 digits and the √2 of ``y − √2`` as the working precision's, so their
    difference is a stable ±10⁻⁶⁰ instead of 0 and |y − √2|/(y − √2) a stable ±1 where it has no value (a true
    claim refuted). sympy's arithmetic cancels them exactly (y − √2 becomes 0, the quotient nan: undefined).
    """
    exact = {s: v.exact for s, v in point.values.items() if isinstance(v, ExactReal)}
    if not exact:
        return expr
    if isinstance(expr, sp.MatrixBase):  # a mutable Matrix is no sympy Basic: entry by entry
        return expr.applyfunc(lambda e: _at_exact(e, point))
    if not isinstance(expr, sp.Basic) or not (expr.free_symbols & set(exact)):
        return expr
    try:
        return substitute(expr, exact)
    except (TypeError, ValueError, ArithmeticError):
        return expr


#: the reason of a point where the sides agree with limits whose sympy confirmation was not asked for
LAZY_AGREEMENT = "agrees with numeric limits (sympy's limits at the point not asked)"


def _compare(left: list, right: list, relation: str, point: Point, digits: tuple[int, ...],
             limits_allowed: bool | None, second_scheme: bool, deferred: list | None) -> PointResult:
    """The body of :func:`compare_at` on prepared sides; with ``deferred`` (a one-item counter), limits are
    evaluated without sympy's confirmation and counted there (a result other than "agree" is then no
    result: the caller evaluates the point again)."""
    gaps: list = []
    shown = ("", "", "")
    quadrature = False
    for level, d in enumerate(digits):
        ev = Evaluator(d, point.values, point.element, limits_allowed=limits_allowed,
                       defer_limits=deferred is not None)
        worst = None
        try:
            with mpmath.workdps(d):
                for x, y in zip(left, right, strict=True):
                    a, b = ev.value(x), ev.value(y)
                    if isinstance(a, Fraction) and isinstance(b, Fraction):
                        if _exact_holds(relation, a, b):
                            continue
                        if ev.heuristic:
                            # a numeric limit's 0 (a residue below the tolerance, see _limit_value) is no exact
                            # value: the limit may settle on a wrong one, so it disagrees as a heuristic
                            _spent(ev, deferred)
                            return PointResult("unknown", point, digits=d,
                                               reason="a numeric limit disagrees; limits are heuristic")
                        # an exact disagreement needs no more digits
                        if deferred is not None and (deferred[0] or ev.deferred):
                            return PointResult("differ", point, reason="a deferred limit")  # evaluated again
                        g = abs(a - b)
                        rel = float(g / max(1, abs(a), abs(b)))
                        with mpmath.workdps(15):
                            shown_gap = mpmath.nstr(to_mp(g), 6)
                        return PointResult("differ", point, _num(a), _num(b), shown_gap, d, "exact", rel)
                    ma, mb = to_mp(a), to_mp(b)
                    # error scale: the values, and the largest term a sum cancelled (digits lost there)
                    scale = max(1, abs(ma), abs(mb), ev.magnitude)
                    good = d // 2 if ev.approximate else d - 10
                    tol = mpmath.mpf(10) ** (-good) * scale
                    if not _holds(relation, ma, mb, tol):
                        g = _gap(relation, ma, mb)
                        if worst is None or g / scale > worst[0]:
                            worst = (g / max(1, abs(ma), abs(mb)), ma, mb, g)
        except NotEvaluable as exc:
            _spent(ev, deferred)
            return PointResult("not-evaluable", point, reason=str(exc))
        except Undefined as exc:
            _spent(ev, deferred)
            return PointResult("undefined", point, reason=str(exc))
        except Unreliable as exc:
            _spent(ev, deferred)
            return PointResult("unknown", point, reason=str(exc), digits=d)
        except (MemoryError, OverflowError):  # mpmath asked for a number of 10^(10^k) digits' magnitude
            _spent(ev, deferred)
            return PointResult("unknown", point, reason="a value too large for mpmath at this point", digits=d)
        _spent(ev, deferred)
        quadrature = quadrature or ev.quadrature
        if worst is None:
            return PointResult("agree", point, digits=d)
        if deferred is not None and deferred[0]:
            return PointResult("differ", point, digits=d, reason="a deferred limit")  # evaluated again
        if ev.heuristic:
            # a numeric limit (extrapolated from samples) may settle on a wrong value at every precision
            return PointResult("unknown", point, digits=d, reason="a numeric limit disagrees; limits are heuristic")
        gaps.append(worst[0])
        with mpmath.workdps(d):
            shown = (mpmath.nstr(worst[1], 15), mpmath.nstr(worst[2], 15), mpmath.nstr(worst[3], 6))
        if level == len(digits) - 1:
            break
    if len(gaps) >= 2 and abs(gaps[-1] - gaps[-2]) > mpmath.mpf(10) ** -6 * gaps[-1]:
        return PointResult("unknown", point, *shown, digits=digits[-1], reason="the gap moves with the precision")
    if second_scheme and quadrature:
        other = _gap_by_second_scheme(left, right, relation, point, digits[0], limits_allowed)
        if other is None or abs(other - gaps[0]) > mpmath.mpf(10) ** -3 * gaps[0]:
            return PointResult("unknown", point, *shown, digits=digits[-1], reason=(
                "the gap rests on a quadrature that a second scheme (Gauss–Legendre) does not reproduce"))
    return PointResult("differ", point, *shown, digits=digits[-1], relative_gap=float(gaps[-1]))


def _spent(ev: Evaluator, deferred: list | None) -> None:
    """Count an evaluator's work (and, with ``deferred``, the limits it left unconfirmed)."""
    _WORK[0] += ev.visits
    if deferred is not None:
        deferred[0] += ev.deferred


def _gap_by_second_scheme(left: list, right: list, relation: str, point: Point, d: int,
                          limits_allowed: bool | None) -> Any:
    """The largest relative gap between the sides at ``d`` digits with Gauss–Legendre quadrature (``None``
    when that scheme gives no value: its error estimate too large, a failure)."""
    ev = Evaluator(d, point.values, point.element, limits_allowed=limits_allowed, scheme="gauss-legendre")
    worst = mpmath.mpf(0)
    try:
        with mpmath.workdps(d):
            for x, y in zip(left, right, strict=True):
                a, b = to_mp(ev.value(x)), to_mp(ev.value(y))
                if not _holds(relation, a, b, mpmath.mpf(0)):
                    worst = max(worst, _gap(relation, a, b) / max(1, abs(a), abs(b)))
    except (NotEvaluable, Undefined, Unreliable):
        return None
    finally:
        _WORK[0] += ev.visits
    return worst


def _undefined_side(lhs: Any, rhs: Any, point: Point, digits: int) -> str:
    """"left"/"right" if exactly that side is undefined at ``point`` (the other has a value), else ""."""
    state = []
    for side in (lhs, rhs):
        try:
            ev = Evaluator(digits, point.values, point.element, limits_allowed=True)
            with mpmath.workdps(digits):
                for x in prepare(side, point):
                    ev.value(x)
            state.append("value")
        except Undefined:
            state.append("undefined")
        except (NotEvaluable, Unreliable):
            return ""
    if state == ["undefined", "value"]:
        return "left"
    if state == ["value", "undefined"]:
        return "right"
    return ""


#: nodes evaluated by the witness (a machine-independent measure of its work)
_WORK = [0]


def _num(v: Any) -> str:
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    return mpmath.nstr(v, 15)


def counterexample(res: PointResult) -> Any:
    """A :class:`~derive.report.Counterexample` of a point where the two sides differ."""
    from ..report import Counterexample

    return Counterexample(point=res.point.shown(), lhs=res.lhs, rhs=res.rhs, gap=res.gap or res.reason,
                          digits=res.digits)


@dataclass(frozen=True)
class Witness:
    """The outcome of evaluating a step at many points.

    Attributes:
        agreed: points where both sides agree.
        evaluated: points where both sides had a value (agreeing or not).
        differ: the first point where the sides differ stably (``None`` if none).
        not_evaluable: why the step has no numeric value, when no point could be evaluated.
        unknown: points where the value could not be pinned down.
        special: agreeing points that were special (not random) points.
        outside: points dropped because they violate a premise or definition (and could not be moved
            onto the region the premises define).
        premises: the hypotheses the points were checked against, as one line ("" when none).
        doubtful: unknown points where a numeric limit disagreed with the other side (a heuristic, so no
            refutation, but no confirmation of a closed form either).
        doubted_at: the first of those points (the caller may search it with sympy's limit at the point).
    """

    agreed: int
    evaluated: int
    differ: PointResult | None
    not_evaluable: str
    unknown: int
    special: int
    outside: int = 0
    premises: str = ""
    doubtful: int = 0
    doubted_at: Point | None = None
    #: random points skipped as isolated singularities (one side undefined there, both defined and
    #: agreeing at a point next to it: see ``_nearby``)
    isolated: int = 0

    def summary(self) -> str:
        """One line for reports, e.g. ``"mpmath agrees at 12 points (8 special)"``."""
        if self.differ is not None:
            return f"mpmath disagrees at {self.differ.point.label} point"
        if self.evaluated == 0:
            return f"no numeric witness ({self.not_evaluable or 'no point could be evaluated'})"
        text = f"mpmath agrees at {self.agreed} points ({self.special} special)"
        return text + (f"; {self.unknown} undecidable" if self.unknown else "")


def run(lhs: Any, rhs: Any, relation: str, seed: int, *, digits: tuple[int, ...], n_random: int,
        n_special: int, n_breaks: int, stop_at_differ: bool = True, work: float = float("inf"),
        limits_allowed: bool = True, lopsided: bool | str = False, hyps: Hypotheses = NONE,
        lazy_limits: bool = False) -> Witness:
    """Evaluate ``lhs relation rhs`` at the points of :func:`derive.kernel.points.generate`.

    No new point is started once ``work`` expression nodes have been evaluated
    (a count, not a time: the same points on every machine) and one point agreed (for a search
    without ``lopsided``: or one point could not be decided). A sympy limit at an exact point counts
    as :data:`~derive.kernel.evaluate.LIMIT_AT_WORK` nodes.
    With ``lopsided``, a *random* point where one side has a value and the other
    is undefined counts as a difference: random points miss the isolated
    singularities of an identity (x/x at 0), so one side undefined there means
    the two differ on a region (the witness of a proof, never a refutation) —
    unless the side has a value at points next to it where the two agree
    (``_nearby``): then the random point hit an isolated singularity after
    all, and is skipped (counted in ``Witness.isolated``).
    With ``lazy_limits`` (``limits_allowed=False`` only), points are compared as :func:`compare_at` does
    with it: sympy's limit at a point is asked for only where the point does not simply agree.

    With ``hyps`` (:mod:`derive.kernel.hypotheses`), only points that satisfy every premise and
    definition are evaluated (a point outside is moved onto the region or dropped), so every
    difference found is at such a point. When every point was dropped, :data:`MORE_CANDIDATES` more
    random ones are drawn (another seed); if none of them satisfies the hypotheses either, the
    reason says so (:data:`NO_ADMISSIBLE_POINT`).
    """
    start = _WORK[0]
    lhs, rhs = hyps.reduce(lhs), hyps.reduce(rhs)
    exprs = [e for side in (lhs, rhs) for e in _flat(sp.sympify(side, strict=True))]
    extra = hyps.exprs()
    outside = 0
    agreed = evaluated = unknown = special = doubtful = isolated = 0
    settled = 0  # points evaluated, not counting lazy agreements (whose limits sympy was not asked about)
    doubted_at = None
    reason = ""
    differ = None
    constant = not any(_takes_values(e) for e in exprs)
    if constant:  # every point is the same point
        n_random, n_special, n_breaks = 1, 0, 0
    if constant:
        extra = []
    def points() -> Any:
        # a breakpoint is drawn among the solutions the hypotheses admit (y² = 2 under y > 0: y = √2)
        yield from generate(exprs + extra, seed, n_random, n_special, n_breaks,
                            accept=None if hyps.empty or constant else hyps.admit)
        if not settled and outside and not reason and not hyps.empty and not constant:
            # every point missed the region the premises and definitions define (a definition ℓ := Σ_{j≤k}
            # of a positive ℓ needs k ≥ 1): more random candidates, so a step is witnessed on that region
            for more in generate(exprs + extra, seed + 1, MORE_CANDIDATES, 0, 0):
                if settled >= max(n_random, 2):
                    return  # as many points as the run meant to draw at random
                yield more

    # a point's values fix it unless an indexed family or a matrix symbol draws elements from its seed
    plain = not any(_has_elements(e) for e in exprs + extra)
    seen: set = set()
    for point in points():
        limits.checkpoint()
        # a search (not the witness of a proof) also ends on points it could not decide; its breakpoints (a
        # limit's or an integral's jump, at most n_breaks) are evaluated whatever the random points cost, so
        # whether the jump is looked at does not depend on the random points a derivation's name draws
        if _WORK[0] - start > work and (agreed or differ or (unknown and not lopsided)):
            if lopsided:
                break
            if point.label == "random":
                continue  # the breakpoints come after the random points
            if not point.label.startswith("breakpoint"):
                break
        if not hyps.empty and not constant:
            point = hyps.admit(point)
            if point is None:
                outside += 1
                continue
        if plain:  # points moved onto a premise's boundary often coincide: each is evaluated once
            key = frozenset(point.values.items())
            if key in seen:
                continue
            seen.add(key)
        # a search (not the witness of a proof) confirms a gap that rests on a quadrature by a second scheme
        res = compare_at(lhs, rhs, relation, point, digits, limits_allowed, second_scheme=not lopsided,
                         lazy_limits=lazy_limits)
        if res.status == "not-evaluable":
            reason = reason or res.reason
            continue
        if res.status == "undefined":
            if lopsided and (point.label == "random" or lopsided == "everywhere"):
                side = _undefined_side(lhs, rhs, point, digits[0])
                # a random point may land on a pole of one form; a special point under "everywhere" is where
                # a generic limit fails, at that value alone, so it is not moved
                near = (_nearby(lhs, rhs, relation, point, digits, limits_allowed, hyps)
                        if side and point.label == "random" else None)
                if near is not None and near.status == "agree":
                    isolated += 1  # a pole or a 0/0 the random point happened to land on: not a region
                    continue
                if near is not None and near.status == "differ":
                    differ = near
                    if stop_at_differ:
                        break
                    continue
                if side:
                    differ = PointResult("differ", point, digits=digits[0], reason=(
                        f"the {side} side is undefined at a {point.label} point, the other is not"))
                    if stop_at_differ:
                        break
            continue
        if res.status == "unknown":
            unknown += 1
            if res.reason.startswith("a numeric limit disagrees"):
                doubtful += 1
                doubted_at = doubted_at or point
            continue
        evaluated += 1
        settled += res.reason != LAZY_AGREEMENT
        if res.status == "agree":
            agreed += 1
            special += point.label != "random"
        elif differ is None:
            if hyps.unusable and not lopsided:
                # a premise the points cannot be checked against: a difference here refutes nothing
                unknown += 1
                continue
            differ = res
            if stop_at_differ:
                break
    if not evaluated and outside and not reason:
        reason = f"{NO_ADMISSIBLE_POINT} ({outside} points violated them)"
    return Witness(agreed, evaluated, differ, reason, unknown, special, outside, hyps.describe(), doubtful,
                   doubted_at, isolated)


#: how far (and in which directions) ``_nearby`` moves a point: the k-th movable symbol by ``±1/(d + 10k)``,
#: different for each symbol so that a singular set such as ``x = y`` is left as well
NEARBY = (1009, -2003)


def _nearby(lhs: Any, rhs: Any, relation: str, point: Point, digits: tuple[int, ...], limits_allowed: bool | None,
            hyps: Hypotheses) -> PointResult | None:
    """The sides at points next to ``point``, where one side was undefined and the other not.

    A single point where one side is undefined does not show a region: a random rational can land on a pole
    of one form of a rational function (a nested fraction ``1/(1 + 1/(1 + x))`` at ``x = −1/2``) that the
    other form cancelled. Each real, non-integer symbol with a rational value is moved by a small, fixed
    offset (:data:`NEARBY`, in both directions in turn). Returns the first nearby result where both sides
    have a value (``"agree"``: the point was an isolated singularity; ``"differ"``: a difference at the
    nearby point, which satisfies the hypotheses too), or ``None`` when the side stays undefined nearby (or
    nothing can be moved): then the two sides differ on a region, as far as the witness can tell.
    """
    movable = sorted((s for s, v in point.values.items() if isinstance(v, Fraction) and isinstance(s, sp.Symbol)
                      and not s.is_integer), key=str)
    if not movable:
        return None
    for base in NEARBY:
        values = dict(point.values)
        for k, s in enumerate(movable):
            moved = values[s] + Fraction(1 if base > 0 else -1, abs(base) + 10 * k)
            if not _satisfies(moved, s):
                break
            values[s] = moved
        else:
            near = Point(values, point.seed, point.small_elements, point.label, dict(point.elements))
            if not hyps.empty:
                near = hyps.admit(near)
                if near is None:
                    continue
            res = compare_at(lhs, rhs, relation, near, digits, limits_allowed)
            if res.status in ("agree", "differ"):
                return res
    return None


#: random candidates drawn again when no point of a run satisfied the hypotheses
MORE_CANDIDATES = 32
#: how a witness that found no point satisfying the hypotheses starts its reason
NO_ADMISSIBLE_POINT = "no point satisfying the premises"


def confirm(lhs: Any, rhs: Any, relation: str, seed: int, work: int = 5_000, *, everywhere: bool = False,
            hyps: Hypotheses = NONE) -> Witness:
    """The witness of a proved step: 2 random, up to 2 special and 1 breakpoint point at 30 (then 60) digits.

    The witness of a proof is a check of sympy's algebra, which errs on whole regions (a branch, a sign)
    rather than at single points; the counterexample search of an unproved step (:func:`search`) is
    the one that hunts measure-zero failures, with 24 special and 8 breakpoint points.

    Stops starting new points once ``work`` nodes were evaluated and one point agreed. With ``everywhere``
    (a proof that took a limit by sympy's ``doit()``: sympy's limits hold for generic values of the other
    symbols), one side undefined where the other has a value is a difference at special points too.
    """
    if everywhere:  # the special points are where a generic limit goes wrong: evaluate them all
        return run(lhs, rhs, relation, seed, digits=CONFIRM_DIGITS, n_random=2, n_special=8, n_breaks=2,
                   work=max(work, 60_000), lopsided="everywhere", hyps=hyps)
    return run(lhs, rhs, relation, seed, digits=CONFIRM_DIGITS, n_random=2, n_special=2, n_breaks=1, work=work,
               lopsided=True, hyps=hyps)


#: Nodes the counterexample search evaluates before it starts no new point: a count, so the points searched
#: (and so whether a step is refuted) are the same on every machine.
SEARCH_WORK = 60_000


def search(lhs: Any, rhs: Any, relation: str, seed: int, *, n_random: int = 10, work: int = SEARCH_WORK,
           hyps: Hypotheses = NONE) -> Witness:
    """Look for a counterexample: random, up to 24 special and 8 breakpoint points, stable from 60 to 120 digits.

    No new point is started once ``work`` nodes were evaluated (and one point was).
    """
    return run(lhs, rhs, relation, seed, digits=SEARCH_DIGITS, n_random=n_random, n_special=24, n_breaks=8,
               limits_allowed=False, hyps=hyps, work=work, lazy_limits=True)


#: Nodes the quick probe evaluates before it starts no new point (a count: the same points on every machine).
PROBE_WORK = 3_000


def quick_search(lhs: Any, rhs: Any, relation: str, seed: int, hyps: Hypotheses = NONE) -> Witness:
    """A cheap probe for an obviously false step (30 then 60 digits; the caller re-checks a difference).

    No new point is started once :data:`PROBE_WORK` nodes were evaluated (and one point was).
    """
    return run(lhs, rhs, relation, seed, digits=(30, 60), n_random=6, n_special=6, n_breaks=2,
               limits_allowed=False, hyps=hyps, work=PROBE_WORK, lazy_limits=True)


#: Expression nodes after which an identity cross-check starts no new point (it has evaluated one): a count,
#: so the same points are checked on every machine. The catalog's costliest check (a Gaussian moment at 30
#: points) counts about 400 000; a claim whose every point is an oscillatory quadrature stops after a few.
CHECK_WORK = 2_000_000


def cross_check(lhs: Any, rhs: Any, relation: str, seed: int, n_random: int, hyps: Hypotheses = NONE) -> Witness:
    """An identity cross-check: random, 12 special and 4 breakpoint points, a gap stable from 30 to 60 digits.

    No new point is started once :data:`CHECK_WORK` nodes were evaluated (and one point was)."""
    return run(lhs, rhs, relation, seed, digits=(30, 60), n_random=n_random, n_special=12, n_breaks=4,
               limits_allowed=None, hyps=hyps, work=CHECK_WORK)
