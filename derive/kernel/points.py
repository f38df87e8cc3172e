"""Points at which the witness evaluates a step: random ones and special ones.

Random points alone miss failures on sets of measure zero. Besides seeded
random values drawn from each symbol's domain (its sympy assumptions), every
symbol also takes, one at a time, the special values of its domain: 0, ±1,
±2, ±1/2, 3/2, magnitudes from 10⁻¹² to 10¹², complex values when the symbol
is not declared real, and the breakpoints of ``floor``, ``ceiling``, ``Min``,
``Max``, ``Abs``, ``sign``, ``Heaviside`` and ``Piecewise`` found in the
expressions, where a limit's denominator vanishes at its point, where a
coefficient of the variable of a limit at infinity vanishes, and where a
parameter puts a pole of an integrand in its range (``solve`` proposes them;
values in the symbol's domain are used, a rational one first, else a real
irrational one such as √2 or log 2, carried as an ``ExactReal``; those of
limits and integrals come before the special values). Symbols that bound a sum or a product (symbolic
lengths) take small integers, the empty range included when the domain allows.
Elements of indexed families (``z[1]``, ``z[2]``…) get their own values, drawn
when first used; some points draw them from {0, 1, 2} so that ties occur.

Every point is exact (``Fraction``) except the complex ones (mpmath ``mpc``) and
irrational breakpoints (``ExactReal``: mpmath at ``EXACT_DIGITS`` digits that
remembers its exact sympy value, so sympy's limit at the point can use it).
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from . import limits
from .memo import remembered

_SPECIAL_REAL = [Fraction(0), Fraction(1), Fraction(-1), Fraction(2), Fraction(-2), Fraction(1, 2),
                 Fraction(-1, 2), Fraction(3, 2), Fraction(1, 10**12), Fraction(-1, 10**12), Fraction(10**12),
                 Fraction(-(10**12)), Fraction(10**6), Fraction(7)]
_SPECIAL_INT = [Fraction(0), Fraction(1), Fraction(-1), Fraction(2), Fraction(-2), Fraction(3), Fraction(10**12),
                Fraction(-(10**12))]
_SPECIAL_COMPLEX = [mpmath.mpc(0, 1), mpmath.mpc(1, 1), mpmath.mpc(-0.5, 1.5), mpmath.mpc(-2, -1),
                    mpmath.mpc(0, -2)]


#: digits of an irrational point value: beyond the 120 of the counterexample search, so every evaluation
#: sees it as exact to its working precision
EXACT_DIGITS = 200


class ExactReal(mpmath.mpf):
    """A real irrational value of a point (a breakpoint such as √2): mpmath at ``EXACT_DIGITS`` digits.

    Attributes:
        exact: the sympy number it approximates (``sqrt(2)``), shown in reports and used by sympy's
            limit at the point; the evaluator sees an ordinary inexact mpmath number.
    """

    __slots__ = ("exact",)


def exact_real(value: Any) -> ExactReal | None:
    """``value`` (a real, finite, irrational sympy number) as an ``ExactReal``, else ``None``."""
    if not isinstance(value, sp.Expr) or value.free_symbols or value.is_real is not True \
            or value.is_finite is not True or value.is_rational is not False:
        return None
    try:
        digits = value.evalf(EXACT_DIGITS + 10)
    except (TypeError, ValueError, ArithmeticError):
        return None
    if not digits.is_Float:
        return None
    with mpmath.workdps(EXACT_DIGITS):
        out = ExactReal(digits._mpf_)
    out.exact = value
    return out


def _satisfies(value: Any, obj: Any) -> bool:
    """Does ``value`` have every property that ``obj`` assumes?"""
    if isinstance(value, ExactReal):
        facts = getattr(obj, "assumptions0", {})
        return all(getattr(value.exact, f"is_{key}", None) is fact for key, fact in facts.items()
                   if isinstance(fact, bool))
    if isinstance(value, mpmath.mpc):
        facts = getattr(obj, "assumptions0", {})
        return not any(facts.get(k) for k in ("real", "extended_real", "rational", "integer", "positive",
                                              "negative", "nonnegative", "nonpositive", "zero"))
    key = (value, _facts(obj))
    hit = _SATISFIES.get(key)
    if hit is None:
        exact = sp.Rational(value.numerator, value.denominator)
        hit = all(getattr(exact, f"is_{k}", None) is f for k, f in key[1])
        if len(_SATISFIES) > 65536:
            _SATISFIES.clear()
        _SATISFIES[key] = hit
    return hit


#: whether an exact value has a set of assumptions (a pure function of the two, so remembered)
_SATISFIES: dict = {}
#: the (name, truth) assumptions of a sympy object, sorted (a pure function of the object, so remembered)
_FACTS: dict = {}


def _facts(obj: Any) -> tuple:
    """The assumptions ``obj`` states (true or false), as a sorted tuple of ``(name, truth)``."""
    try:
        hit = _FACTS.get(obj)
    except TypeError:  # unhashable: computed every time
        hit, obj_key = None, None
    else:
        obj_key = obj
    if hit is None:
        facts = getattr(obj, "assumptions0", {})
        hit = tuple(sorted((k, f) for k, f in facts.items() if isinstance(f, bool)))
        if obj_key is not None:
            if len(_FACTS) > 65536:
                _FACTS.clear()
            _FACTS[obj_key] = hit
    return hit
#: the sympy object whose assumptions an indexed element's value must satisfy, by (base, indices)
_LIKE: dict = {}
#: the CRC-32 of an indexed element's name (its seed beside the point's), by (base, indices)
_CRC: dict = {}


_ENTRY = sp.Symbol("entry", real=True)


def _is_complex(obj: Any) -> bool:
    return obj.is_real is not True and obj.is_integer is not True and obj.is_extended_real is not True


def random_value(obj: Any, rng: np.random.Generator, ints_upto: int = 5, small: bool = False) -> Any:
    """An exact random value in ``obj``'s domain (``None`` if none is found after 50 draws)."""
    for _ in range(50):
        if small:
            v = Fraction(int(rng.integers(0, 3)))
        elif obj.is_integer:
            lo = 1 if obj.is_positive else (0 if obj.is_nonnegative else -ints_upto)
            v = Fraction(int(rng.integers(lo, ints_upto + 1)))
        elif obj.is_positive:
            v = Fraction(round(rng.uniform(0.25, 3.0) * 64), 64) or Fraction(1, 4)
        elif obj.is_nonnegative:
            v = Fraction(round(rng.uniform(0.0, 3.0) * 64), 64)
        elif obj.is_negative:
            v = -(Fraction(round(rng.uniform(0.25, 3.0) * 64), 64) or Fraction(1, 4))
        else:
            v = Fraction(round(rng.uniform(-3.0, 3.0) * 64), 64)
        if _satisfies(v, obj):
            return v
    return None


def special_values(obj: Any) -> list:
    """The special values of ``obj``'s domain (those its assumptions allow)."""
    cands = _SPECIAL_INT if obj.is_integer else _SPECIAL_REAL
    out = [v for v in cands if _satisfies(v, obj)]
    if _is_complex(obj):
        out += [v for v in _SPECIAL_COMPLEX if _satisfies(v, obj)]
    return out


def _order(obj: Any) -> tuple[str, str]:
    """The sort key of a symbol (its name, then its full form): a pure function of it, remembered."""
    return _per_expression(_ORDER, obj, _sort_key, limit=65536)


def _sort_key(obj: Any) -> tuple[str, str]:
    return str(obj), sp.srepr(obj)


#: the sort keys of symbols (:func:`_order`)
_ORDER: dict = {}


@dataclass
class Point:
    """One point: exact values of the free symbols, and the indexed elements drawn so far."""

    values: dict
    seed: int
    small_elements: bool = False
    label: str = "random"
    elements: dict = field(default_factory=dict)

    def element(self, key: tuple, obj: Any) -> Any:
        """The value of an indexed element or a matrix entry, drawn when first asked for."""
        hit = self.elements.get(key)
        if hit is not None:  # values are Fractions (never None): drawn before
            return hit
        # the element's name, printed and hashed once (sympy's printer is slow)
        crc = _per_expression(_CRC, key, lambda k: zlib.crc32(f"{k[0]}{k[1]}".encode()), limit=65536)
        rng = np.random.default_rng([self.seed, crc])
        # built once: sympy then remembers its assumptions on the object
        like = _per_expression(_LIKE, key, lambda k: k[0][k[1]] if isinstance(k[0], sp.IndexedBase) else _ENTRY,
                               limit=65536)
        v = random_value(like, rng, small=self.small_elements)
        if v is None:
            from .evaluate import NotEvaluable

            raise NotEvaluable(f"no value in the domain of {like}")
        self.elements[key] = v
        return v

    def shown(self) -> dict[str, str]:
        """The point as text (name → value), the elements used included."""
        out = {str(k): _text(v) for k, v in sorted(self.values.items(), key=lambda kv: _order(kv[0]))}
        for (base, idx), v in sorted(self.elements.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
            out[f"{base}[{', '.join(map(str, idx))}]"] = _text(v)
        return out


def _text(v: Any) -> str:
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    if isinstance(v, ExactReal):
        return str(v.exact)
    return mpmath.nstr(v, 15)


def length_symbols(exprs: list) -> set:
    """Symbols in the bounds of sums and products and in the shapes of matrix symbols."""
    out: set = set()
    for e in exprs:
        out |= _per_expression(_LENGTHS_OF, e, _lengths_one)
    return out


def _lengths_one(e: Any) -> frozenset:
    out: set = set()
    for node in e.atoms(sp.Sum, sp.Product):
        for lim in node.limits:
            for bound in lim[1:]:
                out |= bound.free_symbols
    for m in sp.preorder_traversal(e):  # every matrix expression: symbols, 0, 1, I, products
        if isinstance(m, sp.MatrixExpr) and not isinstance(m, sp.MatrixBase):
            for size in m.shape:
                out |= sp.sympify(size, strict=True).free_symbols
    return frozenset(s for s in out if isinstance(s, sp.Symbol))


def _per_expression(table: dict, e: Any, fn: Callable[[Any], Any], limit: int = 4096) -> Any:
    """``fn(e)``, remembered in ``table`` per expression (each analysis below is a pure function of one
    expression, and consecutive steps share one: the claim of a step is the next step's start)."""
    try:
        return remembered(table, e, fn, limit=limit)
    except TypeError:  # an unhashable expression: analysed every time
        return fn(e)


#: the per-expression parts of the analysis of a point's expressions (pure functions of the expression)
_LENGTHS_OF: dict = {}
_INDEX_OF: dict = {}
_FREE_OF: dict = {}
_KINKS_OF: dict = {}


def _index_symbols(exprs: list) -> set:
    out: set = set()
    for e in exprs:
        out |= _per_expression(_INDEX_OF, e, _index_one)
    return out


def _index_one(e: Any) -> frozenset:
    out: set = set()
    for idx in e.atoms(sp.Indexed):
        for i in idx.indices:
            out |= i.free_symbols
    return frozenset(out)


def _kinks(exprs: list) -> list:
    """Expressions whose value crosses a breakpoint, as ``(g, integer_steps, first)``: g = 0 (or, with
    ``integer_steps``, g an integer); ``first`` for those of a limit or an integral (evaluated before the
    special values)."""
    out: list = []
    first: list = []  # where a limit's or an integral's value changes with a parameter
    for e in exprs:
        out_e, first_e = _per_expression(_KINKS_OF, e, _kinks_one)
        out += out_e
        first += first_e
    # the same expression met twice takes one slot; one with an infinity or nan in it (a denominator read at
    # T = 0 where it holds 1/T: exp(zoo·z)) has no zero to solve for, so it is no breakpoint and takes none
    unique = [(g, False, True) for g in dict.fromkeys(first)] + [(g, k, False) for g, k in dict.fromkeys(out)]
    return [u for u in unique if not u[0].has(*_NOT_FINITE)][:12]


def _kinks_one(e: Any) -> tuple:
    """The ``(out, first)`` lists of :func:`_kinks` for one expression, in the order its nodes are met."""
    out: list = []
    first: list = []
    for node in sp.preorder_traversal(e):
        name = type(node).__name__
        if name in ("Abs", "sign", "Heaviside", "floor", "ceiling", "frac", "KroneckerDelta"):
            arg = node.args[0] if name != "KroneckerDelta" else node.args[0] - node.args[1]
            out.append((arg, name in ("floor", "ceiling", "frac")))
        elif name in ("Min", "Max"):
            out += [(x - y, False) for k, x in enumerate(node.args) for y in node.args[k + 1:]]
        elif name == "Piecewise":
            for _, cond in node.args:
                for rel in cond.atoms(sp.core.relational.Relational):
                    out.append((rel.lhs - rel.rhs, False))
        elif name == "Limit":
            first += [*_limit_poles(node), *_limit_leading(node), *_limit_trailing(node)]
        elif name == "Integral":
            first += _integral_poles(node)
    return tuple(out), tuple(first)


#: values that make an expression no breakpoint (and never a point's value)
_NOT_FINITE = (sp.zoo, sp.nan, sp.oo, -sp.oo)


def _limit_poles(node: Any) -> list:
    """Where a limit's value can jump: a denominator of its function that vanishes at the limit point for some
    value of the other symbols (lim_{x→0} x/(x + y − 5) is 0 except at y = 5, where it is 1)."""
    f, var, x0 = node.args[0], node.args[1], node.args[2]
    if not x0.is_finite or sp.count_ops(f) > 60:
        return []
    try:
        den = f.as_numer_denom()[1].xreplace({var: x0})
    except Exception:  # noqa: BLE001 - no denominator to read: no breakpoint
        return []
    return [den] if den.free_symbols and not den.is_number else []


@functools.lru_cache(maxsize=256)
def _limit_leading(node: Any) -> tuple:
    """Where a limit at infinity can change its value: the coefficients, in the other symbols, of the limit
    variable's terms. lim_{t→∞} t(y − 3/7)/(t(y − 3/7) + 1) is 1 except at y = 3/7, where the leading term
    vanishes and the limit is 0; lim atan(t(y − π)²) is π/2 except at y = π. Each factor ``c(y)`` that
    multiplies a power of t (``c·tᵏ``, ``c·t`` inside a function), the leading coefficient of a polynomial
    in t, and an exponent ``tᶜ⁽ʸ⁾`` is returned (its zeros are breakpoints; a proposal, checked by evaluation);
    not one with an indexed element or a sum, which takes its own values.
    """
    f, var, x0 = node.args[0], node.args[1], node.args[2]
    if x0.is_finite is not False or sp.count_ops(f) > 60:
        return ()
    leading: list = []  # leading coefficients first: t·y − t + 1 changes its order at y = 1, not at y = 0
    out: list = []
    for sub in sp.preorder_traversal(f):
        if isinstance(sub, sp.Mul) and sub.has(var):
            out += [a for a in sub.args if not a.has(var)]  # each factor's zeros
        elif isinstance(sub, sp.Add) and sub.has(var) and sub.is_polynomial(var):
            try:
                leading.append(sp.Poly(sub, var).LC())
            except sp.PolynomialError:
                continue
        elif isinstance(sub, sp.Pow) and sub.base.has(var) and not sub.exp.has(var):
            out.append(sub.exp)
    # an element's coefficient (g[m]) has no breakpoint: elements take their own values, not solved ones
    return tuple(dict.fromkeys(c for c in leading + out
                               if c.free_symbols - {var} and not c.has(sp.Indexed, sp.Sum)))


@functools.lru_cache(maxsize=256)
def _limit_trailing(node: Any) -> tuple:
    """Where a limit at a finite point x₀ can change its value: the coefficients, in the other symbols, of the
    lowest powers of x − x₀. lim_{x→0⁺} (y − 3/7)x/((y − 3/7)x + x²) is 1 except at y = 3/7, where the lowest
    term vanishes and the limit is 0. Each factor ``c(y)`` of a product with x in it, the lowest nonzero
    coefficient of a polynomial in x − x₀, and an exponent ``c(y)`` of a power whose base vanishes at x₀ is
    returned (its zeros are breakpoints; a proposal, checked by evaluation); as for a limit at infinity,
    not one with an indexed element or a sum.
    """
    f, var, x0 = node.args[0], node.args[1], node.args[2]
    if x0.is_finite is not True or x0.has(sp.Indexed, sp.Sum) or sp.count_ops(f) > 60:
        return ()
    lowest: list = []  # the lowest coefficients first: x·y + x² − x changes its order at y = 1
    out: list = []
    for sub in sp.preorder_traversal(f):
        if isinstance(sub, sp.Mul) and sub.has(var):
            out += [a for a in sub.args if not a.has(var)]
        elif isinstance(sub, sp.Add) and sub.has(var) and sub.is_polynomial(var):
            try:
                lowest.append(sp.Poly(sub.xreplace({var: var + x0}) if x0 != 0 else sub, var).EC())
            except (sp.PolynomialError, sp.GeneratorsNeeded):
                continue
        elif isinstance(sub, sp.Pow) and sub.base.has(var) and not sub.exp.has(var):
            try:
                at = sub.base.xreplace({var: x0})
            except (TypeError, ValueError):
                continue
            if at == 0:
                out.append(sub.exp)
    return tuple(dict.fromkeys(c for c in lowest + out
                               if c.free_symbols - {var} and not c.has(sp.Indexed, sp.Sum)))


#: how wide a stand-in range an infinite bound of an integral gets (∫₀^∞ dx/(x − a)² diverges for every a ≥ 0:
#: the points are drawn in a ∈ [0, 16])
_INFINITE_RANGE = 16
#: where inside a range of parameter values a breakpoint is drawn: the middle first, then ever closer to its
#: ends (a premise a > 3/4 or a ≠ 1/2 leaves part of a ∈ [0, 1] only), down to 2⁻¹⁶ of its width
_INSIDE = (Fraction(1, 2),) + tuple(t for k in range(2, 17) for t in (Fraction(1, 2**k), 1 - Fraction(1, 2**k)))


@functools.lru_cache(maxsize=256)
def _integral_poles(node: Any) -> tuple:
    """Where a parameter puts a singularity of an integrand inside its range: for ∫_lo^hi over x of a
    negative power of a base vanishing at x = r(a) (a polynomial of degree ≤ 2 in x), the parameter values
    with r inside the range, and at its ends. ∫₀¹ dx/(x − a)² diverges for every a in [0, 1]; the
    breakpoints draw a inside that set (a = 1/2 first, else as close to its ends as the premises need:
    a = 7/8 under a > 3/4) and a = 0, 1, where the witness finds the integral undefined.
    Returned as ``Tuple(r, lo, hi)`` (the set where lo ≤ r ≤ hi; an infinite bound stands in as a finite one
    :data:`_INFINITE_RANGE` away) and expressions ``r − m`` whose zeros are the ends (a proposal, checked by
    evaluation).
    """
    f = node.function
    bound = {lim[0] for lim in node.limits}
    if sp.count_ops(f) > 60:
        return ()
    out: list = []
    for lim in node.limits:
        if len(lim) != 3:
            continue
        var, lo, hi = lim
        targets = [t for t in (lo, hi) if t.is_finite is not False]
        if len(targets) == 2:
            span = (lo, hi)
        elif len(targets) == 1:
            span = (lo, lo + _INFINITE_RANGE) if lo in targets else (hi - _INFINITE_RANGE, hi)
        else:
            span = None
        for sub in sp.preorder_traversal(f):
            if not (isinstance(sub, sp.Pow) and sub.base.has(var) and sub.exp.is_negative):
                continue
            base = sub.base
            if not base.is_polynomial(var):
                continue
            try:
                poly = sp.Poly(base, var)
            except sp.PolynomialError:
                continue
            if not 1 <= poly.degree() <= 2:
                continue
            for r in sp.roots(poly, var):
                if r.is_real is False or r.has(*bound):
                    continue
                if span is not None:
                    out.append(sp.Tuple(r, *span))
                out += [r - m for m in targets]
    return tuple(dict.fromkeys(g for g in out if g.free_symbols and not g.has(*bound)))[:6]


def _free(exprs: list) -> list:
    """The symbols that take a value at a point: free symbols, but not the name of an indexed family (``z``
    of ``z[i]``, whose elements take their own values) unless it also stands alone as a symbol."""
    free: set = set()
    labels: set = set()
    plain: set = set()
    for e in exprs:
        free_e, labels_e, plain_e = _per_expression(_FREE_OF, e, _free_one)
        free |= free_e
        labels |= labels_e
        plain |= plain_e
    free -= labels - plain
    return sorted((s for s in free if isinstance(s, sp.Symbol)), key=_order)


def _free_one(e: Any) -> tuple:
    """(free symbols, labels of indexed families, symbols that stand alone) of one expression."""
    plain: set = set()
    labels: set = set()
    bases = e.atoms(sp.IndexedBase)
    if not bases:  # every symbol of an expression without a family stands alone
        plain |= {s for s in e.free_symbols if isinstance(s, sp.Symbol)}
    else:
        labels |= {b.label for b in bases}
        stack = [e]
        while stack:
            node = stack.pop()
            if isinstance(node, sp.IndexedBase):
                continue
            if isinstance(node, sp.Symbol):
                plain.add(node)
            stack.extend(node.args)
    return frozenset(e.free_symbols), frozenset(labels), frozenset(plain)


def generate(exprs: list, seed: int, n_random: int, n_special: int, n_breaks: int,
             accept: Callable[[Point], Point | None] | None = None) -> Iterator[Point]:
    """The points for ``exprs``: ``n_random`` random ones, then up to ``n_special`` special, ``n_breaks`` breakpoints.

    The breakpoints of limits and integrals (a parameter value where a limit's value or an integral's
    convergence changes) come before the special values, the others after them; ``n_breaks`` bounds both.
    With ``accept`` (the admission of a point by the hypotheses, ``Hypotheses.admit``), a breakpoint is
    the first solution that ``accept`` admits, as admitted: y² = 2 under y > 0 gives y = √2, not −√2 (a
    dropped breakpoint is no point at all, and it does not count against ``n_breaks``).

    Symbols with no value in their domain (``irrational=True``) leave the
    point without them: the evaluator then reports the step as not evaluable.
    """
    exprs = [sp.sympify(e, strict=True) for e in exprs]
    rng = np.random.default_rng(seed)
    lengths, free, index_syms, kinks = _analysis(exprs)
    ordered_lengths = sorted(lengths, key=_order)  # the same order at every point (sorted once)

    def base_point(k: int, small: bool = False) -> dict:
        vals: dict = {}
        for s in ordered_lengths:
            v = random_value(s, rng, ints_upto=4)
            if v is not None:
                vals[s] = v
        smallest = min((int(v) for v in vals.values()), default=4)
        for s in free:
            if s in vals:
                continue
            if s in index_syms and s.is_integer:
                v = random_value(s, rng, ints_upto=max(smallest, 1))
            else:
                v = random_value(s, rng)
            if v is not None:
                vals[s] = v
        return vals

    count = 0
    for k in range(n_random):
        yield Point(base_point(k), int(rng.integers(2**32)), small_elements=(k % 4 == 3))
        count += 1
    # special values, one symbol at a time, the others random
    specials: list[tuple[Any, Any]] = []
    for s in free:
        if s in lengths:
            vals = [Fraction(v) for v in (0, 1, 2) if _satisfies(Fraction(v), s)]
        elif s in index_syms and s.is_integer:
            vals = [v for v in (Fraction(1), Fraction(0)) if _satisfies(v, s)]
        else:
            vals = special_values(s)
        specials += [(s, v) for v in vals]
    # interleave symbols so a small budget still reaches every symbol
    by_symbol: dict = {}
    for s, v in specials:
        by_symbol.setdefault(s, []).append(v)
    order = []
    depth = max((len(v) for v in by_symbol.values()), default=0)
    for d in range(depth):
        for s in by_symbol:
            if d < len(by_symbol[s]):
                order.append((s, by_symbol[s][d]))

    def special_points() -> Iterator[Point]:
        for s, v in order[:n_special]:
            pt = base_point(count)
            pt[s] = v
            yield Point(pt, int(rng.integers(2**32)), label=f"special {s} = {_text(v)}")

    # breakpoints: solve g = c for one symbol, the others at a random rational point
    made = [0]

    def at_breakpoint(pt: dict, s: Any, v: Any) -> Point | None:
        """``pt`` with ``s = v``, as the premises admit it (None when they do not, or move ``s`` off ``v``)."""
        made_pt = Point({**pt, s: v}, int(rng.integers(2**32)), label=f"breakpoint {s} = {_text(v)}")
        if accept is not None:
            made_pt = accept(made_pt)
            if made_pt is None or made_pt.values.get(s) != v:
                return None
        return made_pt

    def first_admitted(pt: dict, s: Any, values: Any) -> Point | None:
        """The point at the first of ``values`` that the premises admit (others are outside them, or moved
        off the value)."""
        return next((p for p in (at_breakpoint(pt, s, v) for v in values) if p is not None), None)

    def breakpoints(kinks: list) -> Iterator[Point]:
        for g, integer_steps in kinks:
            if made[0] >= n_breaks:
                return
            syms = sorted((s for s in g.free_symbols if s in free and s not in lengths), key=_order)
            for s in syms[:2]:
                pt = base_point(count)
                rest = {o: sp.Rational(v.numerator, v.denominator) for o, v in pt.items()
                        if o != s and isinstance(v, Fraction)}
                if isinstance(g, sp.Tuple):
                    # a set of values (where an integrand's pole lies in its range): the first value inside
                    # it that the premises admit, not only its ends
                    made_pt = first_admitted(pt, s, _range_values(g, rest, s))
                    if made_pt is not None:
                        yield made_pt
                        made[0] += 1
                    if made[0] >= n_breaks:
                        return
                    continue
                targets = [0, 1, -1] if integer_steps else [0]
                alone = g.free_symbols == {s}  # then sympy's solve of a non-polynomial g is tried (and remembered)
                for c in targets:
                    ok, sols = limits.run_limited(limits.BACKSTOP, "breakpoints", _linear_solve, g.xreplace(rest) - c,
                                                  s, alone)
                    # a rational solution first; else a real irrational one (x + y² − 2 vanishes at y = √2 only)
                    sols = sorted(sols or [], key=lambda r: not r.is_Rational) if ok else []
                    values = (Fraction(int(r.p), int(r.q)) if r.is_Rational else exact_real(r) for r in sols)
                    made_pt = first_admitted(pt, s, (v for v in values if v is not None and _satisfies(v, s)))
                    if made_pt is not None:
                        yield made_pt
                        made[0] += 1
                if made[0] >= n_breaks:
                    return

    # where a limit or an integral changes with a parameter (a limit's pole or leading coefficient, a
    # singularity entering an integral's range): right after the random points, before the special values,
    # since a search that must evaluate sympy's limit at each point has work for a few points only
    yield from breakpoints([(g, steps) for g, steps, first in kinks if first])
    yield from special_points()
    yield from breakpoints([(g, steps) for g, steps, first in kinks if not first])


def _range_values(g: Any, rest: dict, s: Any) -> Iterator[Fraction]:
    """Rational values of ``s`` (the other symbols at ``rest``) in the set where ``lo ≤ r ≤ hi`` for
    ``g = Tuple(r, lo, hi)``: in each stretch of it between the solutions of r = lo and r = hi (a stretch
    unbounded on one side taken :data:`_INFINITE_RANGE` long), the points of :data:`_INSIDE` (its middle
    first, then ever closer to its ends). A proposal: the caller keeps the first one the premises admit."""
    r, lo, hi = (e.xreplace(rest) for e in g)
    alone = (g[0] - g[1]).free_symbols == {s}
    ends: list = []
    for m in (lo, hi):
        ok, sols = limits.run_limited(limits.BACKSTOP, "breakpoints", _linear_solve, r - m, s, alone)
        for sol in (sols or []) if ok else []:
            if sol.is_Rational:
                ends.append(Fraction(int(sol.p), int(sol.q)))
            elif sol.is_number and sol.is_real and sol.is_finite:
                ends.append(Fraction(int(sp.floor(sol * 2**40)), 2**40))
    ends = sorted(set(ends))
    if not ends:
        return
    stretches = [(ends[0] - _INFINITE_RANGE, ends[0]), *zip(ends, ends[1:], strict=False),
                 (ends[-1], ends[-1] + _INFINITE_RANGE)]
    for a, b in stretches:
        m = (a + b) / 2
        mid = r.xreplace({s: sp.Rational(m.numerator, m.denominator)})
        inside = [(mid - lo).is_nonnegative, (hi - mid).is_nonnegative]
        if not all(inside):
            continue  # r is outside [lo, hi] on the whole stretch (or it cannot tell)
        for t in _INSIDE:
            v = a + t * (b - a)
            if _satisfies(v, s):
                yield v


def _analysis(exprs: list) -> tuple:
    """(length symbols, free symbols in order, index symbols, kinks) of ``exprs``: a pure function of the
    expressions, remembered (every consumer of a step and every precision generates points for them)."""
    try:
        key = tuple(exprs)
        hit = _ANALYSIS.get(key)
    except TypeError:  # an unhashable expression: analysed every time
        key, hit = None, None
    if hit is None:
        lengths = frozenset(length_symbols(exprs))
        hit = (lengths, tuple(_free(exprs)), frozenset(_index_symbols(exprs) - lengths), tuple(_kinks(exprs)))
        if key is not None:
            if len(_ANALYSIS) > 1024:
                _ANALYSIS.clear()
            _ANALYSIS[key] = hit
    return hit


_ANALYSIS: dict = {}


def _linear_solve(g: Any, s: Any, alone: bool = False) -> list:
    """Real solutions of g = 0 for s when g is a polynomial of degree ≤ 2 in s, or (``alone``: s is the only
    symbol of the breakpoint's expression) what sympy's ``solve`` gives for a small g, polynomial of higher
    degree or not (a proposal: a point only; checked by evaluation)."""
    if not g.is_polynomial(s):
        if alone and g.free_symbols == {s} and sp.count_ops(g) <= 20:
            return list(_solve_alone(g, s))
        return []
    poly = sp.Poly(g, s)
    if poly.degree() > 2 and alone and g.free_symbols == {s} and sp.count_ops(g) <= 20:
        return list(_solve_alone(g, s))  # y³ = 2 at y = ∛2
    if poly.degree() > 2 or poly.free_symbols - {s}:
        return []
    return [r for r in sp.roots(poly, s) if r.is_real]


@functools.lru_cache(maxsize=256)
def _solve_alone(g: Any, s: Any) -> tuple:
    """Real solutions of a non-polynomial g(s) = 0 (``exp(y) = 2`` at y = log 2), by sympy's ``solve``: at
    most 4, each a real finite number; remembered, since the same breakpoint is asked for at every point."""
    try:
        sols = sp.solve(g, s)
    except (NotImplementedError, ValueError, TypeError, AttributeError):
        return ()
    return tuple(r for r in sols if isinstance(r, sp.Expr) and not r.free_symbols and r.is_real is True)[:4]
