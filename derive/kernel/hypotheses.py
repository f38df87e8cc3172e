"""The hypotheses of a claim: what every part of the kernel reads before it proves, searches or confirms.

A step is a claim *under* its derivation's hypotheses: the symbols' sympy
assumptions, the declared ``definitions`` (``lhs := rhs``) and the
``premises`` (``Eq``, ``Le``, ``Lt``, ``Ge``, ``Gt``, ``Ne`` or a pair). This module
turns them into one object, :class:`Hypotheses`, used so:

* **Elimination.** A definition whose left side is a symbol, an indexed
  element ``z[j]`` or an undefined function ``f(x)``, and an equation premise
  that is linear in one of its symbols (``Eq(d_k, d_model/h)`` gives
  ``d_model = d_k·h``, the solution without division preferred), name a
  symbol that the others determine. :meth:`Hypotheses.reduce` substitutes
  them; the witness evaluates the reduced sides, so the eliminated symbol has
  the value the hypotheses give it.
* **Pinned elements.** An equation premise that gives one element of an
  indexed family a value, ``Eq(z[1], 2)`` (integer indices), pins it: the
  element is eliminated like a symbol, a finite sum or product over the
  family with integer bounds is written out term by term first (the
  definition of the sum, so ``Σ_{j=1}^{3} e^{z_j}`` has ``z_1`` in it), and
  every point gives the element that value (:meth:`Hypotheses.admit`), so a
  counterexample is a point where it holds.
* **Elements at a symbolic index.** A definition ``z[j] := c − u[j]`` holds at
  every index. An equation premise ``Eq(z[j], 2)`` at a symbolic ``j`` holds at
  that ``j`` only (hypotheses are read once for all values of their free
  symbols): it replaces exactly the term ``z[j]``, never where ``j`` is bound
  (a sum over ``j``, a derivative), and every point gives ``z`` at the drawn
  ``j`` the value (:meth:`Hypotheses.admit`), so ``z[1] = 2`` does not follow.
* **Admission of a point.** :meth:`Hypotheses.admit` checks every remaining
  premise at a point, exactly (rationals) or at 50 digits with a margin, and
  the assumptions of every eliminated symbol at its value; a point that fails
  an inequality is moved onto the boundary of that inequality (or just inside
  it, for a strict one, or for an integer symbol to the nearest integer
  inside) by solving the premise for one of its symbols; a point that still
  fails, or where a premise cannot be decided, is dropped. So every point the
  witness, the quick probe, the counterexample search, the claim search and
  the claim's cross-check use satisfies every hypothesis, and so does every
  counterexample.
* **Satisfiability.** :meth:`Hypotheses.refusal` says why nothing may be
  proved: the hypotheses are inconsistent (a declaration that is circular or
  contradicts assumptions, a premise that reduces to ``False``, bounds on one
  symbol with an empty intersection), or no point satisfying them all was
  found (then the claim could be vacuous: nothing is proved).
* **Use by the strategies** (:meth:`Hypotheses.specialise`). Besides the
  exact eliminations, a bound ``s ≥ c`` (``s ≤ c``) on a real symbol ``s``
  with ``c`` free of ``s`` is used by writing ``s = c + t`` (``s = c − t``)
  with a fresh ``t ≥ 0`` (``t > 0`` for a strict bound, an integer when
  ``s`` and ``c`` are): every ``s`` the premise allows is of that form, so a
  claim proved for every such ``t`` holds for every such ``s``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.polys.polyerrors import BasePolynomialError

from .binders import free_of, rename_bound, substitute
from .points import ExactReal, Point, _satisfies, exact_real, generate

_INEQ = (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan)
#: digits at which a premise that is not a rational number is decided
_DIGITS = 50


@dataclass(frozen=True)
class Elimination:
    """``target`` is replaced by ``value`` (``exact``: a consequence the strategies may use)."""

    target: Any
    value: Any
    exact: bool
    source: str
    #: a premise about one element at a symbolic index (``z[j] = 2``): it holds for that ``j`` only, so it
    #: replaces exactly the term ``z[j]`` where ``j`` is free, and each point gives ``z`` at the drawn ``j`` the value
    term: bool = False


@dataclass
class Hypotheses:
    """The hypotheses of one derivation (see the module docstring).

    Attributes:
        eliminations: the substitutions the hypotheses determine, in order.
        checks: the premises left after elimination, each ``(g, kind, text)`` with
            ``kind`` one of ``">="``, ``">"``, ``"="``, ``"!="`` meaning ``g kind 0``.
        domains: ``(symbol, reduced value)`` of each eliminated symbol, whose
            assumptions its value must satisfy.
        shown: the premises and definitions as text, for reports.
        contradiction: why the hypotheses are inconsistent, if they are shown to be.
    """

    eliminations: tuple = ()
    checks: tuple = ()
    domains: tuple = ()
    shown: tuple = ()
    contradiction: str = ""
    unusable: tuple = ()
    _refusal: list = field(default_factory=list)
    _memo: dict = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """No hypotheses beyond the symbols' assumptions."""
        return not (self.eliminations or self.checks or self.contradiction or self.unusable)

    # -- expressions ------------------------------------------------------------------------------
    def reduce(self, expr: Any, exact_only: bool = False) -> Any:
        """``expr`` with the eliminated symbols (and defined heads) replaced by what the hypotheses give them."""
        if not self.eliminations or not isinstance(expr, sp.Basic):
            return expr
        key = (expr, exact_only)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = self._reduce(expr, exact_only)
        return hit

    def _reduce(self, expr: Any, exact_only: bool) -> Any:
        from .primitives import _bound_symbols

        # a symbol bound in the expression (a derivative's variable, an index) is not replaced: the
        # point then gives it the value the hypotheses say (see :meth:`admit`)
        bound = _bound_symbols(expr)
        out = expr
        if self._pinned_bases:
            out = _write_out(expr, self._pinned_bases)
            # an element a derivative is taken with respect to stays a variable there; the point pins its value
            bound |= {v for node in sp.preorder_traversal(out) if isinstance(node, sp.Derivative)
                      for v in node.variables}
        for _ in range(6):
            new = out
            for el in self.eliminations:
                if (exact_only and not el.exact) or el.target in bound:
                    continue
                if el.term:
                    # z[j] = 2 says nothing about z at another index: where j is bound (a sum over j, or an
                    # index a definition brought in) the element is another one, so nothing is replaced there
                    if el.target.free_symbols & (bound | _bound_symbols(new)) or any(
                            isinstance(n, sp.Derivative) and el.target in n.variables
                            for n in sp.preorder_traversal(new)):
                        continue
                    new = substitute(new, {el.target: el.value})
                    continue
                new = _replace(new, el.target, el.value)
            if new == out:
                break
            out = new
        return out

    @functools.cached_property
    def _pinned_bases(self) -> frozenset:
        return frozenset(el.target.base for el in self.eliminations if is_pinned(el.target))

    def exprs(self) -> list:
        """Expressions whose symbols a point must give values to (the premises' and the domains')."""
        out = [g for g, _, _ in self.checks]
        out += [v for _, v in self.domains]
        out += [el.target - el.value for el in self.eliminations if el.term]
        return [e for e in out if isinstance(e, sp.Basic)]

    def specialise(self, expr: Any) -> Any:
        """``expr`` under the premises (exact eliminations, then bounds as ``s = c ± t``), for the strategies."""
        expr = self.reduce(expr, exact_only=True)
        for s, shift, t in self._shifts():
            expr = substitute(_shift_derivatives(expr, s, shift, t), {s: shift})
        return expr

    @functools.cached_property
    def _shift_list(self) -> tuple:
        out: list = []
        done: set = set()
        for g, kind, _ in self.checks:
            if kind not in (">=", ">"):
                continue
            g = g.xreplace({s: shift for s, shift, _ in out})
            for s in sorted(g.free_symbols, key=str):
                if s in done or not isinstance(s, sp.Symbol) or s.is_real is not True:
                    continue
                a = g.diff(s)
                if a.free_symbols or not a.is_Rational or a == 0 or not sp.expand(g.diff(s, 2)).is_zero:
                    continue
                c = sp.expand(-(g - a * s) / a)  # g = a (s − c)
                if s in c.free_symbols:
                    continue
                integer = bool(s.is_integer and c.is_integer)
                t = sp.Dummy(f"t_{s}", integer=integer or None, nonnegative=kind == ">=" or None,
                             positive=kind == ">" or None)
                out.append((s, c + t if a > 0 else c - t, t))
                done.add(s)
                break
        return tuple(out)

    def _shifts(self) -> tuple:
        return self._shift_list

    @property
    def usable(self) -> bool:
        """Can the strategies use the hypotheses (an exact elimination or a bound)?"""
        return any(el.exact for el in self.eliminations) or bool(self._shifts())

    # -- points -------------------------------------------------------------------------------------
    def admit(self, point: Point) -> Point | None:
        """``point`` if it satisfies every hypothesis, else a point moved onto the region, else ``None``."""
        if self.empty:
            return point
        if self.contradiction:
            return None  # no point satisfies inconsistent hypotheses
        values = dict(point.values)
        for _ in range(3):
            if not self._pin_terms(values, point):
                return None
            failed = self._failing(values, point)
            if failed is None:
                return None  # a premise cannot be decided at this point
            if not failed:
                if not self._pin(values, point):
                    return None
                out = Point(values, point.seed, point.small_elements, point.label, point.elements)
                self._show_eliminated(out)
                return out
            moved = False
            for g, kind in failed:
                fix = _move_inside(g, kind, values, point.label)
                if fix is not None:
                    values[fix[0]] = fix[1]
                    moved = True
                    break
            if not moved:
                break
        # the premises on one symbol together (0 < x < 10⁻³⁰, x² = 5 and x > 2.236): a value between or at the
        # roots of the premises' polynomials in it, when each move above only met one premise at a time
        failed = self._failing(values, point)
        if failed and self._solve_point(values, point, failed):
            return self.admit(Point(values, point.seed, point.small_elements, point.label, point.elements))
        return None

    def _solve_point(self, values: dict, point: Point, failed: list) -> bool:
        """Give one symbol of a failing premise a value that satisfies every premise (in ``values``; False:
        none found). Candidates: between consecutive real roots of the premises' polynomials in that symbol
        (the other symbols at their values, rational coefficients and degree ≤ 4, or any real coefficients and
        degree 1), then the roots themselves."""
        syms = sorted({x for g, _ in failed for x in g.free_symbols
                       if isinstance(values.get(x), (Fraction, ExactReal))}, key=str)
        for x in syms:
            sub = _exact_values(values, but=x)
            roots: list = []
            for g, _, _ in self.checks:
                if x not in g.free_symbols:
                    continue
                h = g.xreplace(sub)
                if h.free_symbols != {x} or not (h.is_rational_function(x) or _rational_function(h)):
                    continue
                h = sp.together(h)
                for part in sp.fraction(h):
                    try:
                        poly = sp.Poly(part, x)
                    except BasePolynomialError:
                        continue
                    coeffs = poly.all_coeffs()
                    if 0 < poly.degree() <= 4 and all(c.is_Rational for c in coeffs):
                        roots += sp.real_roots(poly)
                    elif poly.degree() == 1 and all(c.is_number and c.is_real for c in coeffs):
                        roots.append(-coeffs[1] / coeffs[0])  # √2 − 10⁻⁶⁰
            if not roots:
                continue
            with mpmath.workdps(_DIGITS):
                # ordered by their values at 50 digits (as floats, √2 and √2 + 10⁻²⁰ tie and the set's order,
                # which depends on the hash seed, would decide), then by their text for an exact tie
                ordered = sorted((mpmath.mpf(sp.N(r, _DIGITS)), str(r), r) for r in set(roots))
                num = [v for v, _, _ in ordered]
                exact = [r for _, _, r in ordered]
                cands = [_rational_between(lo, hi) for lo, hi in zip([num[0] - 2, *num], [*num, num[-1] + 2],
                                                                      strict=True)]
            cands += [Fraction(int(r.p), int(r.q)) if r.is_Rational else exact_real(r) for r in exact]
            old = values[x]
            for v in cands:
                if v is None or not _satisfies(v, x):
                    continue
                values[x] = v
                if self._failing(values, point) == []:
                    return True
            values[x] = old
        return False

    def _pin(self, values: dict, point: Point) -> bool:
        """Give each pinned element its value at the point (False: a value is not in its family's domain)."""
        for el in self.eliminations:
            if is_pinned(el.target):
                val = _value(self.reduce(el.value), values, point)
                if val is None or not _in_domain(val, el.target):
                    return False
                point.elements[(el.target.base, tuple(int(i) for i in el.target.indices))] = val
        return True

    def _pin_terms(self, values: dict, point: Point) -> bool:
        """Give ``z`` at the drawn ``j`` the value of each premise ``z[j] = v`` (False: no index or value there,
        a value outside the family's domain, or two such premises that disagree at this point)."""
        terms = [el for el in self.eliminations if el.term]
        if not terms:
            return True
        for el in terms:
            idx = [_value(i, values, point) for i in el.target.indices]
            if not all(isinstance(i, Fraction) and i.denominator == 1 for i in idx):
                return False
            val = _value(self.reduce(el.value), values, point)
            if val is None or not _in_domain(val, el.target):
                return False
            point.elements[(el.target.base, tuple(int(i) for i in idx))] = val
        for el in terms:  # two premises about one element (j = m at this point) must agree
            g = sp.Add(el.target, -self.reduce(el.value), evaluate=False)
            got = _value(g, values, point)
            if got is None or _decide(got, "=") is not True:
                return False
        return True

    def _failing(self, values: dict, point: Point) -> list | None:
        """The premises that fail at ``values`` (``None``: one cannot be decided there)."""
        failed = []
        for el in self.eliminations:
            if isinstance(el.target, sp.Symbol) and el.target in values:
                # left in the expression (bound there): its value must be the one the hypotheses give
                g = el.target - self.reduce(el.value)
                val = _value(g, values, point)
                if val is None:
                    return None
                if _decide(val, "=") is not True:
                    failed.append((g, "="))
        for s, v in self.domains:
            val = _value(v, values, point)
            if val is None:
                return None
            if not _in_domain(val, s):
                return None
        for g, kind, _ in self.checks:
            val = _value(g, values, point)
            if val is None:
                return None
            ok = _decide(val, kind)
            if ok is None:
                # too close to call at 50 digits: a point on the boundary (y = √2 under y ≥ √2) is decided exactly
                ok = _decide_exact(g, kind, values)
            if ok is None:
                return None
            if not ok:
                if kind == "!=":
                    return None
                failed.append((g, kind))
        return failed

    def _show_eliminated(self, point: Point) -> None:
        for el in self.eliminations:
            if isinstance(el.target, sp.Symbol) and el.target not in point.values:
                val = _value(self.reduce(el.target), point.values, point)
                if isinstance(val, Fraction):
                    point.values[el.target] = val

    # -- satisfiability -----------------------------------------------------------------------------
    def refusal(self) -> str:
        """Why nothing may be proved under these hypotheses ("" when a point satisfies them all)."""
        if self._refusal:
            return self._refusal[0]
        why = ""
        if self.contradiction:
            why = f"the premises are inconsistent: {self.contradiction}"
        elif self.checks or self.domains:
            why = "no point satisfies the premises (none found among 40 candidates)"
            exprs = self.exprs()
            for point in generate(exprs, 0, 16, 20, 4):
                if self.admit(point) is not None:
                    why = ""
                    break
        self._refusal.append(why)
        return why

    def describe(self) -> str:
        """The hypotheses as one line, for reports."""
        return "; ".join(self.shown)


def _replace(expr: Any, target: Any, value: Any) -> Any:
    """``expr`` with ``target`` replaced by ``value``, capture-avoiding (see :mod:`.binders`): a definition
    ``c := k`` under ``Σ_k`` means the outer ``k``, so the sum's own ``k`` is renamed first."""
    if not isinstance(expr, sp.Basic):
        return expr
    if isinstance(target, sp.Symbol) or is_pinned(target):
        return substitute(expr, {target: value})
    if isinstance(target, sp.Indexed):
        base, idx = target.base, target.indices

        def fits(x: Any) -> bool:
            return isinstance(x, sp.Indexed) and x.base == base and len(x.indices) == len(idx)

        if not expr.has(base):  # no element of the family: nothing to replace, nothing renamed
            return expr
        # the indices are the pattern's variables (z[j] := c − u[j] at every j), not symbols of the value
        expr = rename_bound(expr, free_of([value], idx), lambda body: body.has(base))
        return expr.replace(fits, lambda x: substitute(value, dict(zip(idx, x.indices, strict=True))))
    if isinstance(target, AppliedUndef):
        if not expr.has(target.func):
            return expr
        expr = rename_bound(expr, free_of([value], target.args), lambda body: body.has(target.func))
        return expr.replace(target.func, sp.Lambda(target.args, value))
    return substitute(expr, {target: value})


def is_pinned(t: Any) -> bool:
    """An element of an indexed family at integer indices (``z[1]``), which a premise may pin to a value."""
    return isinstance(t, sp.Indexed) and all(getattr(i, "is_Integer", False) for i in t.indices)


#: a sum over a pinned family is written out when it has at most this many terms
_WRITE_OUT = 64


def _write_out(expr: Any, bases: frozenset) -> Any:
    """``expr`` with each sum (product) over one of ``bases`` with integer bounds written out term by term.

    This is the definition of a finite sum, applied by substitution (no sympy evaluation of the terms), so a
    pinned element ``z[1]`` appears where ``Σ_j z_j`` used it.
    """
    from .primitives import _bound_symbols

    def fits(x: Any) -> bool:
        if not isinstance(x, (sp.Sum, sp.Product)) or not any(x.function.has(b) for b in bases):
            return False
        if {lim[0] for lim in x.limits} & _bound_symbols(x.function):
            return False  # an index bound again inside (shadowed): left as it is
        count = 1
        for lim in x.limits:
            if len(lim) != 3 or not (lim[1].is_Integer and lim[2].is_Integer):
                return False
            count *= max(int(lim[2]) - int(lim[1]) + 1, 0)
        return count <= _WRITE_OUT

    def out(x: Any) -> Any:
        terms = [x.function]
        for v, lo, hi in x.limits:  # the first limit is the innermost
            terms = [t.xreplace({v: sp.Integer(k)}) for k in range(int(lo), int(hi) + 1) for t in terms]
        return sp.Add(*terms) if isinstance(x, sp.Sum) else sp.Mul(*terms)

    if not isinstance(expr, sp.Basic) or not expr.has(sp.Sum, sp.Product):
        return expr
    return expr.replace(fits, out)


def _is_bound_free_target(t: Any) -> bool:
    if isinstance(t, sp.Symbol):
        return True
    if isinstance(t, sp.Indexed):
        return all(isinstance(i, sp.Symbol) for i in t.indices) and len(set(t.indices)) == len(t.indices)
    if isinstance(t, AppliedUndef):
        return all(isinstance(a, sp.Symbol) for a in t.args) and len(set(t.args)) == len(t.args)
    return False


def _solve_linear(g: Any, s: Any) -> tuple[Any, bool] | None:
    """``s`` from ``g = 0`` when g (cleared of denominators) is linear in s: (solution, coefficient ≠ 0 proved)."""
    num = sp.together(g)
    num, den = sp.fraction(num)
    num = sp.expand(num)
    if not num.has(s) or not num.is_polynomial(s) or sp.degree(num, s) != 1:
        return None
    a = num.coeff(s, 1)
    b = num.coeff(s, 0)
    return sp.cancel(-b / a), a.is_zero is False and (den.is_zero is False)


def _eliminate(a: Any, b: Any, taken: set) -> Elimination | None:
    """How the equation a = b eliminates a symbol: the solution with no division first."""
    g = sp.sympify(a, strict=True) - sp.sympify(b, strict=True)
    if isinstance(a, sp.Symbol) and a not in taken and a not in sp.sympify(b, strict=True).free_symbols:
        first = [a]
    else:
        first = []
    cands = []
    syms = sorted((s for s in g.free_symbols if isinstance(s, sp.Symbol) and s not in taken), key=str)
    for s in first + [s for s in syms if s not in first]:
        got = _solve_linear(g, s)
        if got is None:
            if s.is_integer:
                continue
            # a symbol the equation fixes non-linearly (σ² = 2/(n_in + n_out)): one solution in its domain
            from . import limits

            if sp.count_ops(g) > SOLVE_OPS:  # decided by size, not by a time limit: the same on every machine
                continue
            ok, sols = limits.run_limited(limits.BACKSTOP, "solving a premise", _solve_unique, g, s)
            if not ok or sols is None:
                continue
            got = (sols, False)
        sol, exact = got
        den = sp.fraction(sp.together(sol))[1]
        plain = not den.free_symbols
        keeps = not s.is_integer or (plain and sol.is_polynomial())
        cands.append((not keeps, not plain, s not in first, (s, sol, exact)))
    if not cands:
        return None
    cands.sort(key=lambda c: c[:3])
    s, sol, exact = cands[0][3]
    return Elimination(s, sol, exact, f"{a} = {b}")


#: Largest operation count (``sp.count_ops``) of a premise ``g = 0`` that sympy's ``solve`` is asked to solve
#: for a symbol it fixes non-linearly (the catalog's reach 24)
SOLVE_OPS = 60


def _solve_unique(g: Any, s: Any) -> Any:
    try:
        sols = sp.solve(g, s)
    except (NotImplementedError, ValueError, TypeError):
        return None
    return sols[0] if len(sols) == 1 and s not in sols[0].free_symbols else None


def _kind(p: Any) -> tuple[Any, str] | None:
    """A premise as ``(g, kind)``: ``g ≥ 0``, ``g > 0``, ``g = 0`` or ``g ≠ 0``."""
    if isinstance(p, (sp.LessThan, sp.StrictLessThan)):
        return p.rhs - p.lhs, ">=" if isinstance(p, sp.LessThan) else ">"
    if isinstance(p, (sp.GreaterThan, sp.StrictGreaterThan)):
        return p.lhs - p.rhs, ">=" if isinstance(p, sp.GreaterThan) else ">"
    if isinstance(p, sp.Unequality):
        return p.lhs - p.rhs, "!="
    if isinstance(p, sp.Equality):
        return p.lhs - p.rhs, "="
    return None


def build(definitions: tuple, premises: tuple) -> Hypotheses:
    """The :class:`Hypotheses` of declared ``definitions`` and ``premises`` (see the module docstring)."""
    shown = [f"{a} := {b}" for a, b in definitions] + [str(p) if not isinstance(p, tuple) else f"{p[0]} = {p[1]}"
                                                      for p in premises]
    elims: list[Elimination] = []
    taken: set = set()
    unusable: list = []
    for a, b in definitions:
        a = sp.sympify(a, strict=True)
        if isinstance(a, (sp.MatrixBase, sp.MatrixExpr)) and not isinstance(a, sp.MatrixSymbol):
            unusable.append(f"{a} := {b}")
            continue
        if isinstance(a, sp.MatrixSymbol) or _is_bound_free_target(a):
            elims.append(Elimination(a, sp.sympify(b, strict=True), True, f"{a} := {b}"))
            taken.add(a)
        else:
            unusable.append(f"{a} := {b}")
    rest: list = []
    early = ""
    for p in premises:
        if isinstance(p, tuple):
            a, b = (sp.sympify(x, strict=True) for x in p)
            if isinstance(a, sp.MatrixSymbol) and a not in taken:
                elims.append(Elimination(a, b, True, f"{a} = {b}"))
                taken.add(a)
            else:
                unusable.append(f"{a} = {b}")
            continue
        if isinstance(p, sp.Equality) and not isinstance(p.lhs, (sp.MatrixBase, sp.MatrixExpr)):
            el, value = (p.lhs, p.rhs) if is_pinned(p.lhs) else (p.rhs, p.lhs)
            if is_pinned(el) and el not in taken and not value.has(el.base):
                # z[1] = 2: the element is pinned (eliminated, and every point gives it that value)
                elims.append(Elimination(el, value, True, f"{p.lhs} = {p.rhs}"))
                taken.add(el)
                continue
            el, value = (p.lhs, p.rhs) if isinstance(p.lhs, sp.Indexed) else (p.rhs, p.lhs)
            if (isinstance(el, sp.Indexed) and el not in taken and not value.has(el.base)
                    and not any(isinstance(i, sp.Indexed) for i in el.indices)):
                # z[j] = 2 at a symbolic j: a premise about that one element, read universally over j once
                # (so not "z at every index is 2", which would prove z[1] = 2); a family defined at every
                # index is declared among the definitions (z[j] := c − u[j])
                elims.append(Elimination(el, value, True, f"{p.lhs} = {p.rhs}", term=True))
                taken.add(el)
                continue
            so_far = Hypotheses(eliminations=tuple(elims))
            lhs, rhs = so_far.reduce(p.lhs), so_far.reduce(p.rhs)
            if (lhs - rhs).is_zero is False:
                early = early or f"{p} cannot hold with the other declarations ({lhs} ≠ {rhs})"
                continue
            if (lhs - rhs).is_zero is True:
                continue
            indexed = lhs.atoms(sp.Indexed) or rhs.atoms(sp.Indexed)
            el = _eliminate(lhs, rhs, taken) if not indexed else None
            if el is not None:
                elims.append(el)
                taken.add(el.target)
                continue
            if not indexed and not (lhs - rhs).has(sp.Sum, sp.Integral, sp.Limit, sp.Derivative):
                rest.append(sp.Eq(lhs, rhs, evaluate=False))
                continue
            # an equation the points cannot be made to satisfy (a constraint on a sum of elements):
            # the witness may not refute under it
            unusable.append(str(p))
            continue
        rest.append(p)
    hyp = Hypotheses(eliminations=tuple(elims), shown=tuple(shown), unusable=tuple(unusable))
    contradiction = early
    checks = []
    for p in rest:
        got = _kind(p)
        if got is None:
            unusable.append(str(p))
            continue
        g, kind = got
        g = hyp.reduce(g)
        truth = _decide_symbolic(g, kind)
        if truth is False:
            contradiction = contradiction or f"{p} cannot hold ({g} {kind} 0 is false)"
        elif truth is None:
            checks.append((g, kind, str(p)))
    domains = []
    for el in elims:
        if is_pinned(el.target) or el.term:
            val = hyp.reduce(el.value)
            for key in ("integer", "positive", "nonnegative", "negative", "nonpositive", "real"):
                if el.target.assumptions0.get(key) and getattr(val, f"is_{key}", None) is False:
                    contradiction = contradiction or f"{el.source} contradicts the assumptions on {el.target.base}"
        if isinstance(el.target, sp.Symbol) and any(v for k, v in el.target.assumptions0.items()
                                                   if k not in ("commutative",) and v):
            domains.append((el.target, hyp.reduce(el.value)))
            val = domains[-1][1]
            for key in ("integer", "positive", "nonnegative", "negative", "nonpositive", "real"):
                if el.target.assumptions0.get(key) and getattr(val, f"is_{key}", None) is False:
                    contradiction = contradiction or f"{el.source} contradicts the assumptions on {el.target}"
    contradiction = contradiction or _empty_bounds(checks)
    return Hypotheses(tuple(elims), tuple(checks), tuple(domains), tuple(shown), contradiction, tuple(unusable))


def _decide_symbolic(g: Any, kind: str) -> bool | None:
    """Is ``g kind 0`` decided by the assumptions alone (True/False), or open (None)?"""
    try:
        if kind == ">=":
            return g.is_nonnegative
        if kind == ">":
            return g.is_positive
        if kind == "=":
            return g.is_zero
        return None if g.is_zero is None else not g.is_zero
    except (TypeError, AttributeError):
        return None


def _empty_bounds(checks: list) -> str:
    """Two bounds on one symbol that no value satisfies (lower above upper), with its assumptions."""
    lo: dict = {}
    hi: dict = {}
    for g, kind, text in checks:
        syms = g.free_symbols
        if len(syms) != 1 or kind not in (">=", ">"):
            continue
        (s,) = syms
        if not g.is_polynomial(s) or sp.degree(g, s) != 1:
            continue
        a = g.coeff(s, 1)
        c = -g.coeff(s, 0) / a
        strict = kind == ">"
        if a > 0:
            if s not in lo or c >= lo[s][0]:
                lo[s] = (c, strict, text)
        elif s not in hi or c <= hi[s][0]:
            hi[s] = (c, strict, text)
    for s in set(lo) | set(hi):
        low = lo.get(s, (sp.S.NegativeInfinity, True, ""))
        high = hi.get(s, (sp.S.Infinity, True, ""))
        dom = sp.Interval(low[0], high[0], low[1], high[1])
        if s.is_positive:
            dom = dom & sp.Interval.open(0, sp.oo)
        elif s.is_nonnegative:
            dom = dom & sp.Interval(0, sp.oo)
        if s.is_integer and dom is not sp.S.EmptySet and dom.inf.is_finite and dom.sup.is_finite:
            lo_i, hi_i = sp.ceiling(dom.inf), sp.floor(dom.sup)
            if not any(sp.Integer(k) in dom for k in range(int(lo_i), min(int(hi_i), int(lo_i) + 2) + 1)):
                dom = sp.S.EmptySet
        if dom is sp.S.EmptySet:
            texts = " and ".join(t for t in (low[2], high[2]) if t) or "the bounds"
            return f"no value of {s} satisfies {texts} with its assumptions"
    return ""


def _value(e: Any, values: dict, point: Point) -> Any:
    """The value of ``e`` at the point: a Fraction when exact, an mpmath number at 50 digits, or None."""
    if not isinstance(e, sp.Basic):
        return None
    out = e
    if _rational_function(e):  # exact and cheap (sympy would also raise 2 to a 10¹²-th power exactly)
        sub = {s: sp.Rational(v.numerator, v.denominator) for s, v in values.items() if isinstance(v, Fraction)}
        try:
            out = e.xreplace(sub)
        except (TypeError, ValueError, ZeroDivisionError):
            out = e
    if out.is_Rational:
        return Fraction(int(out.p), int(out.q))
    from .evaluate import Evaluator, NotEvaluable, Undefined, Unreliable

    try:
        ev = Evaluator(_DIGITS, values, point.element, limits_allowed=None)
        return ev.value(e)
    except (NotEvaluable, Undefined, Unreliable, ValueError, TypeError, ZeroDivisionError, ArithmeticError):
        return None


def _rational_function(e: Any) -> bool:
    """``e.is_rational_function()``, remembered per expression (a pure function of it: every point of every
    consumer asks it again of the same premises)."""
    hit = _RATIONAL.get(e)
    if hit is None:
        if len(_RATIONAL) > 4096:
            _RATIONAL.clear()
        hit = _RATIONAL[e] = bool(e.is_rational_function())
    return hit


_RATIONAL: dict = {}


def _decide(val: Any, kind: str) -> bool | None:
    """``val kind 0`` decided exactly, or at 50 digits with a margin (None: too close to call)."""
    if isinstance(val, Fraction):
        return {">=": val >= 0, ">": val > 0, "=": val == 0, "!=": val != 0}[kind]
    with mpmath.workdps(_DIGITS):
        if isinstance(val, mpmath.mpc):
            if abs(mpmath.im(val)) > mpmath.mpf(10) ** -30:
                return None if kind in (">=", ">") else kind == "!="
            val = mpmath.re(val)
        margin = mpmath.mpf(10) ** -(_DIGITS // 2) * max(1, abs(val))
        if abs(val) <= margin:
            return None
        return {">=": val > 0, ">": val > 0, "=": False, "!=": True}[kind]


def _decide_exact(g: Any, kind: str, values: dict) -> bool | None:
    """``g kind 0`` at a point too close to call numerically, decided with the point's exact values.

    Only where every symbol of ``g`` has an exact value (a ``Fraction`` or an ``ExactReal`` breakpoint) and
    ``g`` there is exactly zero: sympy's automatic evaluation gives 0 (√2 − √2, exp(log 2) − 2), or ``g``
    is an algebraic number whose minimal polynomial is x (exact arithmetic on algebraic numbers). Zero
    satisfies ``≥`` and ``=`` and fails ``>`` and ``≠``; a value sympy reduces to a rational number (the
    irrational parts cancelled) is decided by its sign, and so is one that sympy's ``evalf`` at 120 digits
    puts clearly away from 0 (above 10⁻¹⁰⁰: a 41-digit rational point in a window of width 10⁻⁴⁰); anything
    else (a transcendental value sympy does not reduce to 0, a value below 10⁻¹⁰⁰) stays undecided (``None``)."""
    sub = {}
    for s in g.free_symbols:
        v = values.get(s)
        if isinstance(v, ExactReal):
            sub[s] = v.exact
        elif isinstance(v, Fraction):
            sub[s] = sp.Rational(v.numerator, v.denominator)
        else:
            return None
    try:
        e = g.xreplace(sub)
        if e.free_symbols or not e.is_number:
            return None
        zero = e == 0
        if not zero and e.is_algebraic is True and sp.count_ops(e) <= 40:
            x = sp.Dummy("x")
            zero = sp.minimal_polynomial(e, x) == x
    except (TypeError, ValueError, ArithmeticError, NotImplementedError, AttributeError, BasePolynomialError):
        return None
    if not zero:
        if e.is_Rational:  # the irrational parts cancelled exactly: √2 − (√2 − 10⁻⁶⁰) is 10⁻⁶⁰
            return {">=": e >= 0, ">": e > 0, "=": False, "!=": True}[kind]
        # a nonzero number below the 50-digit margin (x − √2 with x a 41-digit rational): sympy's evalf at 120
        # digits, which keeps track of its own error, gives its sign when it is clearly away from 0 there
        try:
            approx = e.evalf(120)
        except (TypeError, ValueError, ArithmeticError):
            return None
        if not approx.is_Float or abs(approx) < sp.Float("1e-100", 120):
            return None
        return {">=": approx > 0, ">": approx > 0, "=": False, "!=": True}[kind]
    return {">=": True, ">": False, "=": True, "!=": False}[kind]


def _in_domain(val: Any, s: Any) -> bool:
    if isinstance(val, Fraction):
        return _satisfies(val, s)
    if isinstance(val, mpmath.mpc):
        return _satisfies(val, s)
    facts = s.assumptions0
    if facts.get("integer") or facts.get("rational") or facts.get("zero"):
        return False  # an inexact value cannot be shown to be an integer
    with mpmath.workdps(_DIGITS):
        margin = mpmath.mpf(10) ** -(_DIGITS // 2)
        if facts.get("positive") and not val > margin:
            return False
        if facts.get("nonnegative") and not val > -margin:
            return False
        if facts.get("negative") and not val < -margin:
            return False
        if facts.get("nonpositive") and not val < margin:
            return False
    return True


def _move_inside(g: Any, kind: str, values: dict, label: str) -> tuple[Any, Fraction] | None:
    """A symbol of ``g`` and a value putting the point on the boundary of ``g kind 0`` (or just inside)."""
    if not _rational_function(g):
        return None
    syms = sorted((s for s in g.free_symbols if isinstance(values.get(s), Fraction)), key=str)
    # keep the symbol a special point is about when another can move
    syms.sort(key=lambda s: label.startswith(f"special {s} ") or label.startswith(f"breakpoint {s} "))
    for s in syms:
        if not g.is_polynomial(s) or sp.degree(g, s) != 1:
            continue
        # an irrational breakpoint of another symbol (y = √2) enters with its exact value
        sub = _exact_values(values, but=s)
        h = sp.expand(g.xreplace(sub))
        if h.free_symbols - {s}:
            continue
        a, b = h.coeff(s, 1), h.coeff(s, 0)
        if not (a.is_Rational and b.is_Rational):
            got = _inside_irrational(a, b, kind, s)
            if got is not None:
                return s, got
            continue
        if a == 0:
            continue
        c = Fraction(int((-b / a).p), int((-b / a).q))
        if kind == "=":
            if _satisfies(c, s):
                return s, c
            continue
        up = a > 0  # inside is s ≥ c (or s > c)
        step = 1 if up else -1
        if s.is_integer:
            base = Fraction(c.__ceil__() if up else c.__floor__())
            cands = [base + k * step for k in range(4)]
        else:
            cands = [c] + [c + step * Fraction(d) for d in (Fraction(1, 2), 1, 2, 5)]
        for v in cands:
            inside = (v - c) * step
            if inside < 0 or (kind == ">" and inside == 0):
                continue
            if _satisfies(v, s):
                return s, v
    return None


def _inside_irrational(a: Any, b: Any, kind: str, s: Any) -> Fraction | None:
    """A rational value of ``s`` strictly inside ``a·s + b ≥ 0`` (``> 0``) when the boundary ``−b/a`` is a real
    irrational number (y > x at the breakpoint y = √2 moves x to 90/64 or below); ``None`` for an equation,
    which no rational value meets, or when the sign of ``a`` is not clear at 50 digits."""
    if kind not in (">=", ">") or not (a.is_number and b.is_number):
        return None
    try:
        with mpmath.workdps(_DIGITS):
            av, bv = mpmath.mpf(sp.N(a, _DIGITS)), mpmath.mpf(sp.N(b, _DIGITS))
            margin = mpmath.mpf(10) ** -(_DIGITS // 2)
            if abs(av) <= margin:
                return None
            c = -bv / av
            up = av > 0  # inside is s > c
            if s.is_integer:
                base = Fraction(int(mpmath.ceil(c)) if up else int(mpmath.floor(c)))
                cands = [base + k * (1 if up else -1) for k in range(4)]
            else:
                grid = (mpmath.ceil(c * 64) if up else mpmath.floor(c * 64))
                base = Fraction(int(grid), 64)
                cands = [base + (1 if up else -1) * d for d in (0, Fraction(1, 64), Fraction(1, 2), 1, 2, 5)]
            for v in cands:
                inside = (mpmath.mpf(v.numerator) / v.denominator - c) * (1 if up else -1)
                if inside > margin and _satisfies(v, s):
                    return v
    except (TypeError, ValueError, ArithmeticError):
        return None
    return None


def _exact_values(values: dict, but: Any = None) -> dict:
    """The point's exact values as sympy numbers (rationals, and irrational breakpoints by their ``exact``),
    for every symbol but ``but``; inexact values are left out."""
    return {o: sp.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v.exact
            for o, v in values.items() if o != but and isinstance(v, (Fraction, ExactReal))}


def _rational_between(lo: Any, hi: Any) -> Fraction | None:
    """A rational number strictly between the mpmath numbers ``lo < hi`` with the smallest denominator found
    among powers of ten (the midpoint, rounded)."""
    if not lo < hi:
        return None
    mid = (lo + hi) / 2
    for digits in range(0, _DIGITS - 5):
        scale = 10**digits
        v = Fraction(int(mpmath.nint(mid * scale)), scale)
        if lo < mpmath.mpf(v.numerator) / v.denominator < hi:
            return v
    return None


@functools.lru_cache(maxsize=256)
def _cached(definitions: tuple, premises: tuple) -> Hypotheses:
    return build(definitions, premises)


def of(definitions: tuple = (), premises: tuple = ()) -> Hypotheses:
    """The hypotheses of a derivation, built once per distinct declaration (see :func:`build`)."""
    if not definitions and not premises:
        return NONE
    try:
        return _cached(tuple(definitions), tuple(premises))
    except TypeError:  # an unhashable declaration (a mutable Matrix)
        return build(tuple(definitions), tuple(premises))


NONE = Hypotheses()


def _shift_derivatives(expr: Any, s: Any, shift: Any, t: Any) -> Any:
    """``expr`` with each derivative in ``s`` taken in ``t`` instead, where ``s = shift = c ± t``.

    d/ds f(s) = ±d/dt f(c ± t) (ds/dt = ±1, per order): substituting ``s`` alone would ask sympy for a
    derivative with respect to the expression ``c ± t``, which it refuses (a ValueError).
    """
    sign = shift.diff(t)

    def in_t(d: Any) -> Any:
        order = sum(int(n) for v, n in d.variable_count if v == s)
        counts = [(t if v == s else v, n) for v, n in d.variable_count]
        return sign**order * sp.Derivative(substitute(d.expr, {s: shift}), *counts)

    return expr.replace(lambda e: isinstance(e, sp.Derivative) and s in e.variables, in_t) \
        if isinstance(expr, sp.Basic) else expr
