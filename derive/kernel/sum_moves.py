"""Four moves on finite sums of symbolic length, as primitive rules.

* ``MergeSums`` — :math:`\\sum_{j=a}^{c} f + \\sum_{j=c+1}^{b} f \\to \\sum_{j=a}^{b} f`, and
  :math:`\\sum_{j=a}^{c-1} f + f(c) + \\sum_{j=c+1}^{b} f \\to \\sum_{j=a}^{b} f`. Soundness: with
  Karr's convention (sympy's), :math:`\\sum_a^c + \\sum_{c+1}^b = \\sum_a^b` for all integers a, b, c
  (the argument of ``SplitSumAt``, read backwards). Side condition: the bounds
  are integers; the two summands are the same up to the name of the index.
* ``ExchangeSums`` — Σ_b (g · Σ_c f) → Σ_c Σ_b g·f, and Σ_b Σ_c f → Σ_c Σ_b f.
  Soundness: a factor g free of c is a constant of the inner sum (linearity),
  and a finite double sum over a rectangle does not depend on the order of
  summation; with Karr's convention each sum is a signed sum over a set of
  integers and the two signs commute. Side conditions: neither range depends
  on the other index; g is free of c.
* ``RangeCases`` — inside :math:`\\sum_{l=lo}^{hi} f`, a ``Piecewise`` condition of the form
  ``l ≤ q`` (or <, ≥, >; q free of l) is replaced by True when it holds at every
  l of the range and by False when it fails at every l. Soundness: the summand
  is only ever evaluated at lo ≤ l ≤ hi. Side conditions: the range is not
  reversed (hi − lo + 1 ≥ 0 is proved: a reversed Karr sum runs over other
  integers) and the comparison with the range's ends is proved from the
  symbols' assumptions or the derivation's inequality premises.
* ``ShiftIndex`` — :math:`\\sum_{j=a}^{b} f(j) \\to \\sum_{j=a+k}^{b+k} f(j-k)` for one named sum. Soundness:
  j ↦ j + k is a bijection of the two ranges (and of their complements, for Karr's reversed sums).
  Side conditions: k and the bounds are integers; the summand does not bind j again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from .rule import Rule


def _single(s: Any) -> bool:
    return isinstance(s, sp.Sum) and len(s.limits) == 1


def _renamed(s: Any, j: Any) -> Any:
    """The summand of ``s`` with its index renamed to ``j``."""
    k = s.limits[0][0]
    return s.function.xreplace({k: j}) if k != j else s.function


def _zero(e: Any) -> bool:
    return sp.expand(e) == 0


# ----------------------------------------------------------------------------
# merging adjacent sums
# ----------------------------------------------------------------------------


def _merge_once(expr: Any) -> Any | None:
    if not isinstance(expr, sp.Add):
        return None
    terms = list(expr.args)
    sums = [t for t in terms if _single(t)]
    for s1 in sums:
        j, a, c = s1.limits[0]
        if c.is_integer is not True or a.is_integer is not True:
            continue
        f = s1.function
        for s2 in sums:
            if s2 is s1:
                continue
            _, lo2, b = s2.limits[0]
            if b.is_integer is not True or _renamed(s2, j) != f:
                continue
            rest = list(terms)
            if _zero(lo2 - c - 1):  # Σ_a^c + Σ_{c+1}^b
                rest.remove(s1)
                rest.remove(s2)
                return sp.Add(*rest, sp.Sum(f, (j, a, b)))
            if _zero(lo2 - c - 2):  # Σ_a^{c} + f(c + 1) + Σ_{c+2}^b
                middle = f.xreplace({j: c + 1})
                if middle in rest:
                    rest.remove(s1)
                    rest.remove(s2)
                    rest.remove(middle)
                    return sp.Add(*rest, sp.Sum(f, (j, a, b)))
    return None


def _merge(expr: Any) -> Any:
    def one(e: Any) -> Any:
        def visit(node: Any) -> Any:
            out = _merge_once(node)
            while out is not None:
                node = out
                out = _merge_once(node) if isinstance(node, sp.Add) else None
            return node

        return e.replace(lambda n: isinstance(n, sp.Add) and _merge_once(n) is not None, visit)

    return expr.applyfunc(one) if isinstance(expr, sp.MatrixBase) else one(expr)


@dataclass(frozen=True)
class MergeSums(Rule):
    """Σ_a^c f + Σ_(c+1)^b f → Σ_a^b f (also with the term f(c+1) written apart); see the module."""

    name: str = "merge adjacent sums"

    def apply(self, expr: Any) -> Any:
        out = _merge(expr)
        if out == expr:
            raise ValueError("no two adjacent sums of the same summand")
        return out

    def describe(self) -> str:
        return "merge adjacent sums of the same terms"

    def check(self, expr: Any, ctx: Any, prove_equal: Any) -> str | None:
        if _merge(expr) == expr:
            return "no two sums of the same summand over adjacent integer ranges"
        return None


# ----------------------------------------------------------------------------
# exchanging the order of summation
# ----------------------------------------------------------------------------


def _exchanged(s: Any) -> Any | None:
    """Σ_b (g·Σ_c f) or Σ_b Σ_c f with independent ranges, summed the other way round; else None."""
    if not _single(s):
        return None
    b, lo_b, hi_b = s.limits[0]
    inner = [t for t in sp.Mul.make_args(s.function) if _single(t)]
    if len(inner) != 1:
        return None
    (t,) = inner
    c, lo_c, hi_c = t.limits[0]
    g = sp.Mul(*[x for x in sp.Mul.make_args(s.function) if x is not t])
    if c == b or c in g.free_symbols or c in (lo_b.free_symbols | hi_b.free_symbols):
        return None
    if b in (lo_c.free_symbols | hi_c.free_symbols):
        return None
    if any(isinstance(n, sp.Sum) and n.limits[0][0] == b for n in sp.preorder_traversal(t.function)):
        return None  # the inner summand binds b again
    return sp.Sum(sp.Sum(g * t.function, (b, lo_b, hi_b)), (c, lo_c, hi_c))


@dataclass(frozen=True)
class ExchangeSums(Rule):
    """Σ_b (g·Σ_c f) → Σ_c Σ_b g·f over independent ranges (see the module).

    Args:
        index: the outer index b whose sums are exchanged with the sum they hold.
    """

    index: Any
    name: str = "exchange the order of summation"

    def _target(self, n: Any) -> bool:
        return _single(n) and n.limits[0][0] == self.index and _exchanged(n) is not None

    def apply(self, expr: Any) -> Any:
        def one(e: Any) -> Any:
            return e.replace(self._target, _exchanged)

        return expr.applyfunc(one) if isinstance(expr, sp.MatrixBase) else one(expr)

    def describe(self) -> str:
        return f"exchange the sum over {self.index} with the sum inside it"

    def check(self, expr: Any, ctx: Any, prove_equal: Any) -> str | None:
        items = list(expr) if isinstance(expr, sp.MatrixBase) else [expr]
        if not any(self._target(n) for e in items for n in sp.preorder_traversal(e)):
            return (f"no sum over {self.index} holding one sum over an independent range (with a factor free of "
                    "the inner index)")
        return None


# ----------------------------------------------------------------------------
# the range of a sum inside its summand
# ----------------------------------------------------------------------------


def _decide(cond: Any, idx: Any, lo: Any, hi: Any, ctx: Any) -> Any:
    """True/False if ``cond`` holds/fails at every idx in [lo, hi]; else the condition unchanged."""
    if not isinstance(cond, (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan)):
        return cond
    gap = sp.expand(cond.lhs - cond.rhs)  # cond: gap REL 0
    coeff = gap.coeff(idx)
    q = sp.expand(-(gap - coeff * idx))  # gap = coeff·idx − q
    if coeff not in (1, -1) or idx in q.free_symbols:
        return cond
    # normalise to idx REL' q·coeff
    q = q * coeff
    below = isinstance(cond, (sp.LessThan, sp.StrictLessThan)) == (coeff == 1)  # idx ≤ q or idx < q
    strict = isinstance(cond, (sp.StrictLessThan, sp.StrictGreaterThan))

    def nonneg(e: Any) -> bool:
        return ctx.nonnegative(e) if ctx is not None else sp.sympify(e, strict=True).is_nonnegative is True

    def positive(e: Any) -> bool:
        e = sp.expand(e)
        return sp.sympify(e, strict=True).is_positive is True or (all(x.is_integer for x in e.free_symbols | {e})
                                                    and nonneg(e - 1))

    if below:  # idx ≤ q (or idx < q)
        if (positive(q - hi) if strict else nonneg(q - hi)):
            return sp.true
        if (nonneg(lo - q) if strict else positive(lo - q)):
            return sp.false
    else:  # idx ≥ q (or idx > q)
        if (positive(lo - q) if strict else nonneg(lo - q)):
            return sp.true
        if (nonneg(q - hi) if strict else positive(q - hi)):
            return sp.false
    return cond


def _refined(s: Any, ctx: Any) -> Any | None:
    if not _single(s):
        return None
    idx, lo, hi = s.limits[0]
    if any(isinstance(n, (sp.Sum, sp.Product, sp.Integral, sp.Lambda)) and idx in n.bound_symbols
           for n in sp.preorder_traversal(s.function)):
        return None  # the summand binds the index again
    if not (ctx.nonnegative(hi - lo + 1) if ctx is not None else (hi - lo + 1).is_nonnegative is True):
        return None
    pieces = [p for p in sp.preorder_traversal(s.function) if isinstance(p, sp.Piecewise)]
    changes = {}
    for pw in pieces:
        new_args = []
        for expr, cond in pw.args:
            new_args.append((expr, _decide(cond, idx, lo, hi, ctx)))
        if any(c is not old for (_, c), (_, old) in zip(new_args, pw.args, strict=True)):
            changes[pw] = sp.Piecewise(*new_args)
    if not changes:
        return None
    return sp.Sum(s.function.xreplace(changes), (idx, lo, hi))


@dataclass(frozen=True)
class RangeCases(Rule):
    """Piecewise conditions on a sum's index decided by the sum's range (see the module)."""

    name: str = "decide cases by the range of the sum"

    def apply(self, expr: Any, ctx: Any = None) -> Any:
        def one(e: Any) -> Any:
            return e.replace(lambda n: _refined(n, ctx) is not None, lambda n: _refined(n, ctx))

        return expr.applyfunc(one) if isinstance(expr, sp.MatrixBase) else one(expr)

    def describe(self) -> str:
        return "decide the cases of the summand by the range of the sum"

    def check(self, expr: Any, ctx: Any, prove_equal: Any) -> str | None:
        items = list(expr) if isinstance(expr, sp.MatrixBase) else [expr]
        if not any(_refined(n, ctx) is not None for e in items for n in sp.preorder_traversal(e)):
            return "no case of a summand that the sum's range decides (or the range may be reversed)"
        return None


# ----------------------------------------------------------------------------
# shifting the index of a sum
# ----------------------------------------------------------------------------


def _shifted(s: Any, by: Any) -> Any:
    """Σ_{j=a}^{b} f(j) → Σ_{j=a+k}^{b+k} f(j − k)."""
    j, lo, hi = s.limits[0]
    return sp.Sum(s.function.xreplace({j: j - by}), (j, lo + by, hi + by))


@dataclass(frozen=True)
class ShiftIndex(Rule):
    """:math:`\\sum_{j=a}^{b} f(j) \\to \\sum_{j=a+k}^{b+k} f(j-k)` for the sum ``target`` (an integer k).

    Soundness: j ↦ j + k maps the integers a, …, b one to one onto a + k, …, b + k; with Karr's convention
    (a reversed range is minus the complementary one) both sides also agree for b < a, since the shift maps
    the complementary range onto the complementary range. Side conditions: k and the bounds are integers;
    the summand does not bind j again; ``target`` occurs in the expression.

    Args:
        target: the sum to shift (exactly as it occurs).
        by: the integer k added to both bounds.
    """

    target: Any
    by: Any
    name: str = "shift the index of a sum"

    def apply(self, expr: Any) -> Any:
        return expr.xreplace({self.target: _shifted(self.target, self.by)})

    def describe(self) -> str:
        return f"shift the index of a sum by {self.by}"

    def check(self, expr: Any, ctx: Any, prove_equal: Any) -> str | None:
        s = self.target
        if not _single(s) or not expr.has(s):
            return "the sum to shift does not occur in the expression"
        j, lo, hi = s.limits[0]
        if sp.sympify(self.by, strict=True).is_integer is not True:
            return f"the shift {self.by} is not known to be an integer"
        if lo.is_integer is not True or hi.is_integer is not True:
            return "the bounds of the sum are not known to be integers"
        from .primitives import _rebinds

        if _rebinds(s.function, j):
            return f"the summand binds {j} again"
        return None
