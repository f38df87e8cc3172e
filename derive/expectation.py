"""Expectation and variance algebra over sums of symbolic length.

``sympy.stats`` computes moments of *given* random variables (a fixed number of
them); it cannot say that ``Var(Σ_{i=1}^{d_k} q_i k_i) = d_k`` for a symbolic
``d_k``. This module supplies what the proof needs: an unevaluated
expectation :class:`E` and variance :class:`Var`, and small mechanical
:class:`~derive.rules.Rule` s, each one textbook law:

* :class:`VarianceDefinition`  Var(X) = E[X²] − E[X]²
* :class:`ExpandSquare`        (Σ_i f_i)² = Σ_i Σ_j f_i f_j
* :class:`SplitDiagonal`       Σ_i Σ_j g_ij = Σ_i g_ii + Σ_i (Σ_{j<i} g_ij + Σ_{j>i} g_ij)
* :class:`Linearity`           E over Σ, +, and constant factors
* :class:`Independence`        E[Π X] = Π E[X] for distinct independent variables
* :class:`Moments`             E[q_i] = μ_q, E[q_i²] = σ_q² + μ_q²

Random variables are the elements ``q[i]`` of the indexed families named in a
:class:`RandomModel`: the families are mutually independent and the elements
of a family are i.i.d. Two elements of the same family are known to be
distinct variables only when their indices provably differ, e.g. ``q[1]`` and
``q[2]``, or ``q[i]`` and ``q[j]`` inside ``Σ_{j=i+1}^{n}``; a rule that cannot
establish distinctness leaves the expectation alone, so a wrong application
fails to prove rather than passing.

Source of the laws: any probability text; their use for attention scores is
Vaswani et al. 2017, §3.2.1, footnote 4.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from .rules import Rule

__all__ = [
    "E",
    "Var",
    "RandomModel",
    "VarianceDefinition",
    "ExpandSquare",
    "SplitDiagonal",
    "Linearity",
    "Independence",
    "Moments",
]


class _Operator(sp.Function):
    """An unevaluated operator of one random expression (E, Var).

    It has no numeric value (random-point checks skip it: ``numeric_value``);
    rules of this module rewrite it.
    """

    nargs = 1
    is_number = False
    #: operators have no value at a point: numeric checks must not evaluate them
    numeric_value = False
    #: LaTeX before and after the argument; the text form uses ``_str``.
    _tex: tuple[str, str] = ("", "")
    _str: tuple[str, str] = ("", "")

    def _latex(self, printer: Any, exp: Any = None) -> str:
        tex = self._tex[0] + printer._print(self.args[0]) + self._tex[1]
        return tex if exp is None else f"{tex}^{{{exp}}}"

    def _sympystr(self, printer: Any) -> str:
        return self._str[0] + printer._print(self.args[0]) + self._str[1]


class E(_Operator):
    """The expectation E[X] of a random expression X, kept unevaluated."""

    _tex = (r"\mathbb{E}\left[", r"\right]")
    _str = ("E[", "]")


class Var(_Operator):
    """The variance Var(X) of a random expression X, kept unevaluated."""

    _tex = (r"\operatorname{Var}\left(", r"\right)")
    _str = ("Var(", ")")


@dataclass(frozen=True)
class RandomModel:
    """Which indexed families are random, and their first two moments.

    Attributes:
        moments: ``((base, mean, variance), ...)``: each ``base`` is a
            ``sympy.IndexedBase`` whose elements ``base[i]`` are i.i.d. with the
            given mean and variance; different families are independent.
    """

    moments: tuple[tuple[Any, Any, Any], ...]

    @property
    def bases(self) -> frozenset:
        """The random families."""
        return frozenset(b for b, _, _ in self.moments)

    def is_random(self, expr: Any) -> bool:
        """True when ``expr`` contains an element of a random family."""
        return any(idx.base in self.bases for idx in sp.sympify(expr).atoms(sp.Indexed))


def _each(expr: Any, fn: Any) -> Any:
    """Apply ``fn`` to a scalar expression, or entrywise to a matrix."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(fn)
    return fn(expr)


@dataclass(frozen=True)
class VarianceDefinition(Rule):
    """Var(X) → E[X²] − E[X]² (the definition of variance, in moment form)."""

    name: str = "variance definition"

    def apply(self, expr: Any) -> Any:
        return _each(expr, lambda e: e.replace(lambda x: isinstance(x, Var),
                                               lambda x: E(x.args[0] ** 2) - E(x.args[0]) ** 2))

    def describe(self) -> str:
        return "Var(X) = E[X²] − E[X]²"


def _fresh_index(expr: Any, like: Any) -> Any:
    """An integer symbol named j, j1, j2... not used in ``expr``."""
    used = {s.name for s in expr.free_symbols} | {
        str(lim[0]) for s in expr.atoms(sp.Sum) for lim in s.limits}
    name, k = "j", 0
    while name in used or name == str(like):
        k += 1
        name = f"j{k}"
    return sp.Symbol(name, integer=True, positive=bool(like.is_positive))


@dataclass(frozen=True)
class ExpandSquare(Rule):
    """(Σ_i f(i))² → Σ_i Σ_j f(i) f(j): a square of a single sum as a double sum."""

    name: str = "square of a sum"

    def apply(self, expr: Any) -> Any:
        def is_sq(x: Any) -> bool:
            return (isinstance(x, sp.Pow) and x.exp == 2 and isinstance(x.base, sp.Sum)
                    and len(x.base.limits) == 1)

        def expand(x: Any) -> Any:
            s = x.base
            i, lo, hi = s.limits[0]
            j = _fresh_index(s, i)
            # one Sum with two limits, inner index first (the form sympy gives a nested sum)
            return sp.Sum(s.function * s.function.xreplace({i: j}), (j, lo, hi), (i, lo, hi))

        return _each(expr, lambda e: e.replace(is_sq, expand))

    def describe(self) -> str:
        return "(Σ_i f_i)² = Σ_i Σ_j f_i f_j"


@dataclass(frozen=True)
class SplitDiagonal(Rule):
    """Σ_i Σ_j g(i, j) over one range → diagonal Σ_i g(i, i) plus the pairs j < i and j > i.

    Applies to a double sum whose two indices run over the same range; the
    off-diagonal part is written with the ranges ``j = lo..i−1`` and
    ``j = i+1..hi``, so "j ≠ i" is visible in the limits. Valid for integer
    bounds with ``hi ≥ lo − 1`` (an empty range sums to 0), e.g. ``1..d_k``.
    """

    name: str = "split the diagonal"

    def apply(self, expr: Any) -> Any:
        def parts(x: Any) -> tuple | None:
            """(g, j, i, lo, hi) of Σ_i Σ_j g written as Sum(g, (j, lo, hi), (i, lo, hi)) or nested."""
            if not isinstance(x, sp.Sum):
                return None
            if len(x.limits) == 2:
                g, (j, lo_j, hi_j), (i, lo, hi) = x.function, x.limits[0], x.limits[1]
            elif len(x.limits) == 1 and isinstance(x.function, sp.Sum) and len(x.function.limits) == 1:
                g, (j, lo_j, hi_j), (i, lo, hi) = x.function.function, x.function.limits[0], x.limits[0]
            else:
                return None
            return (g, j, i, lo, hi) if (lo_j, hi_j) == (lo, hi) else None

        def split(x: Any) -> Any:
            g, j, i, lo, hi = parts(x)
            off = sp.Sum(g, (j, lo, i - 1)) + sp.Sum(g, (j, i + 1, hi))
            return sp.Sum(g.xreplace({j: i}), (i, lo, hi)) + sp.Sum(off, (i, lo, hi))

        def is_double(x: Any) -> bool:
            return parts(x) is not None

        return _each(expr, lambda e: e.replace(is_double, split))

    def describe(self) -> str:
        return "Σ_i Σ_j = diagonal (j = i) + off-diagonal (j < i, j > i)"


@dataclass(frozen=True)
class Linearity(Rule):
    """Linearity of expectation: E[Σ X] = Σ E[X], E[X + Y] = E[X] + E[Y], E[cX] = c E[X], E[c] = c.

    "Constant" means: no element of a random family of ``model``. The
    argument is expanded (distributing products over sums) first.
    """

    model: RandomModel
    name: str = "linearity of expectation"

    def _lin(self, arg: Any) -> Any:
        if isinstance(arg, sp.Sum):
            return sp.Sum(self._lin(arg.function), *arg.limits)
        arg = sp.expand(arg)
        if isinstance(arg, sp.Add):
            return sp.Add(*[self._lin(t) for t in arg.args])
        if not self.model.is_random(arg):
            return arg
        if isinstance(arg, sp.Mul):
            const = [f for f in arg.args if not self.model.is_random(f)]
            rand = [f for f in arg.args if self.model.is_random(f)]
            if const:
                return sp.Mul(*const) * self._lin(sp.Mul(*rand))
            sums = [f for f in rand if isinstance(f, sp.Sum)]
            if len(sums) == 1 and len(rand) == 1:
                return self._lin(sums[0])
        return E(arg)

    def apply(self, expr: Any) -> Any:
        return _each(expr, lambda e: e.replace(lambda x: isinstance(x, E), lambda x: self._lin(x.args[0])))

    def describe(self) -> str:
        return "linearity of expectation"


def _distinct(a: Any, b: Any, known: frozenset) -> bool:
    """Are the indices ``a`` and ``b`` provably different?"""
    if frozenset((a, b)) in known:
        return True
    return (a - b).is_zero is False


@dataclass(frozen=True)
class Independence(Rule):
    """E[X·Y·…] = E[X]·E[Y]·… for products of independent random variables.

    Factors are grouped by variable (family and index); each group keeps its
    own expectation (E[q_i² k_i²] = E[q_i²]·E[k_i²]). Two elements of one
    family count as different variables only when their indices provably
    differ (different numbers, or the limits of an enclosing sum such as
    ``Σ_{j=i+1}^{n}``); otherwise the expectation is left unchanged.
    """

    model: RandomModel
    name: str = "independence"

    def _factor(self, arg: Any, known: frozenset) -> Any:
        factors = arg.args if isinstance(arg, sp.Mul) else (arg,)
        groups: dict[tuple, list] = {}
        for f in factors:
            base = f.base if isinstance(f, sp.Pow) and f.exp.is_Integer and f.exp > 0 else f
            if not (isinstance(base, sp.Indexed) and base.base in self.model.bases and len(base.indices) == 1):
                return E(arg)  # not a plain product of random elements: leave alone
            groups.setdefault((base.base, base.indices[0]), []).append(f)
        keys = list(groups)
        for a in range(len(keys)):
            for b in range(a + 1, len(keys)):
                (fa, ia), (fb, ib) = keys[a], keys[b]
                if fa == fb and not _distinct(ia, ib, known):
                    return E(arg)  # maybe the same variable: independence does not apply
        return sp.Mul(*[E(sp.Mul(*groups[key])) for key in keys])

    def _walk(self, expr: Any, known: frozenset, bound: tuple) -> Any:
        if isinstance(expr, E):
            return self._factor(expr.args[0], known)
        if isinstance(expr, sp.Sum):
            new_known, new_bound = set(known), list(bound)
            for j, lo, hi in expr.limits:
                for s in set(bound) | (lo.free_symbols | hi.free_symbols):
                    if s == j or not s.is_integer:
                        continue
                    if (lo - s).is_positive or (s - hi).is_positive:
                        new_known.add(frozenset((j, s)))
                new_bound.append(j)
            return sp.Sum(self._walk(expr.function, frozenset(new_known), tuple(new_bound)), *expr.limits)
        if not expr.args or isinstance(expr, (sp.Indexed, sp.Symbol)):
            return expr
        return expr.func(*[self._walk(a, known, bound) for a in expr.args])

    def apply(self, expr: Any) -> Any:
        return _each(expr, lambda e: self._walk(e, frozenset(), ()))

    def describe(self) -> str:
        return "independence: E[XY] = E[X]E[Y]"


@dataclass(frozen=True)
class Moments(Rule):
    """Known moments: E[x_i] = μ and E[x_i²] = σ² + μ² for each family x of ``model``."""

    model: RandomModel
    name: str = "known moments"

    def apply(self, expr: Any) -> Any:
        table = {b: (m, v) for b, m, v in self.model.moments}

        def known(x: Any) -> Any:
            arg = x.args[0]
            power = 1
            if isinstance(arg, sp.Pow) and arg.exp in (1, 2):
                arg, power = arg.base, int(arg.exp)
            if isinstance(arg, sp.Indexed) and arg.base in table:
                mean, var = table[arg.base]
                return mean if power == 1 else var + mean**2
            return x

        return _each(expr, lambda e: e.replace(lambda x: isinstance(x, E), known))

    def describe(self) -> str:
        return "known moments: E[x] = μ, E[x²] = σ² + μ²"
