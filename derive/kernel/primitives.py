"""The primitive rules: the only rules whose output the kernel accepts without re-proving it.

Every other rule (:class:`~derive.rules.Evaluate`, :class:`~derive.rules.Transform`,
rules written for the catalog or by users) only *proposes* the next expression;
the kernel must then prove the step with its own strategies. A primitive rule is
accepted instead when, and only when, the kernel has checked its side
conditions on this very expression. The kernel recognises a primitive by its
exact class (a subclass inherits no trust) and runs the application below, not
an override.

The list (each class's docstring states its soundness argument and its side conditions):

* ``Substitute`` — replace a symbol, subexpression or head by what it equals; the pair is declared
  (a definition or an ``Eq`` premise), follows from declared definitions, renames a bound index, or is proved;
* ``SplitSumAt`` — :math:`\\sum_a^b f = \\sum_a^{m-1} f + f(m) + \\sum_{m+1}^b f`; m is an integer;
* ``DropNonnegative`` — S + Σ f ≥ S; f ≥ 0 over the range (index written lo + k, k ≥ 0), the range is
  not reversed, the step's relation is ≥;
* ``SiftDelta`` — Σ_l f(l) δ_jl = f(j); j is an integer and lo ≤ j ≤ hi is proved (assumptions or premises);
* ``ExpandSquare`` — (Σ_i f_i)² = Σ_i Σ_j f_i f_j; j is fresh;
* ``SplitDiagonal`` — :math:`\\sum_i \\sum_j g = \\sum_i g_{ii} + \\sum_i (\\sum_{j<i} + \\sum_{j>i}) g`;
  both ranges are the same;
* ``VarianceDefinition`` — Var X = E[X²] − E[X]²;
* ``Linearity`` — E is linear; constants contain no random element of the model;
* ``Independence`` — E[XY] = E[X] E[Y]; the indices are provably different;
* ``Moments`` — E[x_i] = μ, E[x_i²] = σ² + μ²; the model declares x;
* ``LimitLaws`` (:mod:`derive.kernel.limit_laws`) — lim (a + b), lim ab, lim a/b, lim a^c and lim Σ_j f_j
  (bounds free of the limit variable) are built from the limits of the parts; each part's limit is finite
  (sympy proposes it, mpmath confirms it), denominators' limits are non-zero;
* ``Reindex`` (:mod:`derive.kernel.permutations`) — Σ_j f(π(j)) = Σ_j f(j); π is declared a permutation of
  exactly the sum's range, and the summand depends on j only through π(j);
* ``Lemma`` (:mod:`derive.kernel.lemmas`) — a proved derivation's claim at an instance; the cited
  derivation is proved and not circular, the instance keeps its symbols' assumptions and satisfies its
  premises, and it occurs in the expression;
* ``MergeSums``, ``ExchangeSums``, ``RangeCases`` (:mod:`derive.kernel.sum_moves`) —
  :math:`\\sum_a^c f + \\sum_{c+1}^b f = \\sum_a^b f`; Σ_b g·Σ_c f = Σ_c Σ_b g·f over independent ranges;
  a Piecewise condition on the index decided by the (not reversed) range of its sum;
* ``ShiftIndex`` (:mod:`derive.kernel.sum_moves`) — :math:`\\sum_{j=a}^{b} f(j) = \\sum_{j=a+k}^{b+k} f(j-k)`;
  k and the bounds are integers.

No rule rewrites a summand that binds its own index again inside.

The probability rules assume the ``RandomModel`` the derivation names
(its families are independent and i.i.d.): that is a premise of the
derivation, shown with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from .binders import free_of, rename_bound, substitute
from .lemmas import Lemma
from .limit_laws import LimitLaws
from .permutations import Reindex
from .rule import Rule
from .sum_moves import ExchangeSums, MergeSums, RangeCases, ShiftIndex

# ----------------------------------------------------------------------------
# what the derivation declares
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Context:
    """What a derivation declares, for the side conditions of primitive rules.

    Attributes:
        definitions: ``(lhs, rhs)`` pairs the derivation defines ("where lhs = rhs").
        premises: sympy relationals the derivation assumes (``Eq(d_k, d_model/h)``, ``Le(j, n)``).
    """

    definitions: tuple = ()
    premises: tuple = ()
    models: tuple = ()
    """The :class:`~derive.kernel.primitives.RandomModel` of every probability rule of the derivation (the
    hypotheses its expectations are taken under); a cited claim about expectations needs one at its instance."""
    citations: tuple = ()
    """``(name, proved, reason, derivation)`` of each derivation the steps cite (:mod:`~derive.kernel.lemmas`),
    as the running layer verified it (or served it from the cache) before the steps were checked."""

    def equations(self) -> list[tuple[Any, Any]]:
        """Every declared equation, as (lhs, rhs) pairs (a premise may be ``Eq(a, b)`` or a pair ``(a, b)``)."""
        out = [(a, b) for a, b in self.definitions]
        out += [(p.lhs, p.rhs) for p in self.premises if isinstance(p, sp.Equality)]
        out += [tuple(p) for p in self.premises if isinstance(p, tuple) and len(p) == 2]
        return out

    def inconsistency(self) -> str | None:
        """Why the declarations contradict themselves or the symbols' assumptions, or ``None``.

        A contradictory premise would make every claim "true" under it (ex falso), so the primitive
        rules refuse to use declarations that are circular (s = s + 1, or s = t + 1 with t = s),
        that the symbols' assumptions refute (p = −1 for a positive p), or an inequality premise the
        assumptions refute (j ≤ 0 for a positive j). Contradictions sympy cannot see stay possible.
        """
        eqs = self.equations()
        defs = {a: b for a, b in eqs if isinstance(a, (sp.Symbol, sp.Indexed))}
        for a, b in eqs:
            a, b = sp.sympify(a, strict=True), sp.sympify(b, strict=True)
            matrix = isinstance(a, (sp.MatrixBase, sp.MatrixExpr)) or isinstance(b, (sp.MatrixBase, sp.MatrixExpr))
            if isinstance(a, sp.MatrixBase) or isinstance(b, sp.MatrixBase):
                continue
            e = b
            for _ in range(6):
                if a in e.free_symbols or (isinstance(a, sp.Indexed) and e.has(a)):
                    return f"the declaration {a} = {b} is circular"
                new = e.xreplace(defs)
                if new == e:
                    break
                e = new
            if not matrix and (a - b).is_zero is False:
                return f"the declaration {a} = {b} contradicts the assumptions on its symbols"
        for p in self.premises:
            if isinstance(p, (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan)):
                gap = p.rhs - p.lhs if isinstance(p, (sp.LessThan, sp.StrictLessThan)) else p.lhs - p.rhs
                strict = isinstance(p, (sp.StrictLessThan, sp.StrictGreaterThan))
                if (gap.is_nonpositive if strict else gap.is_negative) is True:
                    return f"the premise {p} contradicts the assumptions on its symbols"
        return None

    def nonnegative(self, e: Any) -> bool:
        """Is ``e ≥ 0`` proved, from the symbols' assumptions or from an inequality premise?"""
        e = sp.sympify(e, strict=True)
        if e.is_nonnegative is True:
            return True
        for p in self.premises:
            if isinstance(p, (sp.LessThan, sp.StrictLessThan)):
                gap = p.rhs - p.lhs
            elif isinstance(p, (sp.GreaterThan, sp.StrictGreaterThan)):
                gap = p.lhs - p.rhs
            else:
                continue
            # e = gap + (something ≥ 0)
            if sp.expand(e - gap).is_nonnegative is True:
                return True
        return False


def _bound_symbols(expr: Any) -> set:
    out: set = set()
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (sp.Sum, sp.Product, sp.Integral)):
            out |= {lim[0] for lim in node.limits}
        elif isinstance(node, sp.Lambda):
            out |= set(node.variables)
        elif isinstance(node, sp.Derivative):
            out |= set(v for v in node.variables if isinstance(v, sp.Symbol))
    return out


# ----------------------------------------------------------------------------
# substitution
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Substitute(Rule):
    """Replace symbols, subexpressions or function heads by what they equal.

    Soundness: replacing a term by an equal term anywhere in an expression
    gives an equal expression (equality is a congruence). The kernel accepts
    the replacement only when each pair is known to be an equality: the
    derivation declares it (a ``definitions`` pair or an ``Eq`` premise; a
    defined indexed pair ``z[j] := c − u[j]`` holds for every ``j``, a premise
    ``z[j] = 2`` only for its own ``j``, so it is not used where ``j`` is bound), or the kernel
    proves ``old = new`` itself (renaming a bound index). A replaced symbol
    must not also be bound inside the expression (that would change a
    different variable). An undeclared pair is only a proposal: the kernel
    then has to prove the step without it, so ``x := 0`` never "proves" x = 0.

    Args:
        pairs: ``((old, new), ...)``; ``old`` a symbol, an expression, or an
            undefined function head with ``new`` a ``sympy.Lambda``.
        label: what is substituted, for reports (e.g. ``"definition of softmax"``).
    """

    pairs: tuple[tuple[Any, Any], ...]
    label: str = ""
    name: str = "substitute"

    def apply(self, expr: Any) -> Any:
        from sympy.core.function import FunctionClass

        heads = [(o, n) for o, n in self.pairs if isinstance(o, FunctionClass)]
        plain = {o: n for o, n in self.pairs if not isinstance(o, FunctionClass)}
        # renaming a bound index (k ↦ j where k is only bound) is alpha-conversion, done as it is; every
        # other pair replaces free occurrences only, and without capture (c ↦ k under Σ_k renames that k)
        free = expr.free_symbols if isinstance(expr, sp.Basic) else set()
        bound = _bound_symbols(expr)
        renames = {o: n for o, n in plain.items() if isinstance(o, sp.Symbol) and o in bound and o not in free}
        out = expr.xreplace(renames) if renames else expr
        rest = {o: n for o, n in plain.items() if o not in renames}
        out = substitute(out, rest) if rest else out
        if not heads:
            return out
        out = rename_bound(out, free_of(n for _, n in heads), lambda body: any(body.has(o) for o, _ in heads))
        return out.subs(heads)

    def describe(self) -> str:
        return f"substitute {self.label}" if self.label else "substitute"

    def check(self, expr: Any, ctx: Context, prove_equal: Any) -> str | None:
        from sympy.core.function import FunctionClass

        declared = ctx.equations()
        bound = _bound_symbols(expr)
        for old, new in self.pairs:
            if isinstance(old, FunctionClass):
                if not isinstance(new, sp.Lambda):
                    return f"the head {old} must be replaced by a Lambda"
                ok = any(isinstance(lhs, sp.Function) and lhs.func == old
                         and sp.simplify(new(*lhs.args) - rhs) == 0 for lhs, rhs in declared)
                if not ok:
                    return f"the definition of {old} is not declared by the derivation"
                continue
            if isinstance(old, sp.Symbol) and old in bound:
                # renaming a bound index (alpha-conversion): sound exactly when the result is alpha-equal
                from .strategies import alpha_equal

                if old not in expr.free_symbols and alpha_equal(expr, expr.xreplace({old: new})):
                    continue
                return f"{old} is bound inside the expression and the renaming to {new} is not a pure renaming"
            rebound = ""
            if any(_same(old, a) and _same(new, b) or _same(old, b) and _same(new, a) for a, b in declared):
                shared = sp.sympify(old, strict=True).free_symbols & bound
                if not (shared and _premise_only(old, new, ctx)):
                    continue
                # a premise z[j] = 2 holds at its own j (read universally once), not at every value a sum or a
                # derivative binds j to; a family defined at every index is a definition
                rebound = (f"the premise {old} = {new} holds for one value of "
                           f"{', '.join(sorted(map(str, shared)))}, which is bound inside the expression, and "
                           "is not proved for every value (declare a definition for every index instead)")
            # old = new may follow from the declared definitions of symbols (σ² := Σ(x − μ)²/d gives
            # Σ(x − μ)² = d·σ²): when both sides, definitions substituted, are the same expression, that is
            # decided before any search
            defs = {a: b for a, b in declared if isinstance(a, sp.Symbol)} if not rebound else {}
            o = n = None
            if defs:
                o, n = sp.sympify(old, strict=True), sp.sympify(new, strict=True)
                for _ in range(5):  # definitions may use each other (σ² uses μ)
                    o, n = substitute(o, defs), substitute(n, defs)
                if _same(o, n):
                    continue
            if prove_equal(old, new):
                continue
            if rebound:
                return rebound
            if defs and prove_equal(o, n):
                continue
            return (f"{old} = {new} is neither declared by the derivation (definitions or an Eq premise) "
                    "nor provable")
        return None


def _premise_only(old: Any, new: Any, ctx: Context) -> bool:
    """Is ``old = new`` declared by a premise only (no definition gives it)?"""
    return not any(_same(old, a) and _same(new, b) or _same(old, b) and _same(new, a) for a, b in ctx.definitions)


def _rebinds(f: Any, var: Any) -> bool:
    """Does ``f`` bind ``var`` again inside (a nested sum over the same index)? Then it is left alone."""
    return var in _bound_symbols(f)


def _same(a: Any, b: Any) -> bool:
    from .strategies import alpha_equal

    return alpha_equal(sp.sympify(a, strict=True), sp.sympify(b, strict=True))


# ----------------------------------------------------------------------------
# sums of symbolic length
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SplitSumAt(Rule):
    """:math:`\\sum_{j=a}^{b} f(j) \\to \\sum_{j=a}^{m-1} f(j) + f(m) + \\sum_{j=m+1}^{b} f(j)`.

    Soundness: with Karr's convention for sums (sympy's: a reversed range sums
    to minus the complementary range), :math:`\\sum_a^c + \\sum_{c+1}^b = \\sum_a^b` holds for
    all integers a, b, c; applied twice it gives the split for every integer
    m, inside or outside the range. Side condition: m is an integer.

    Args:
        at: the index m to single out.
    """

    at: Any
    name: str = "split a sum at an index"

    def apply(self, expr: Any) -> Any:
        def split(s: Any) -> Any:
            (j, lo, hi), = s.limits
            f = s.function
            if _rebinds(f, j):
                return s
            return sp.Sum(f, (j, lo, self.at - 1)) + f.xreplace({j: self.at}) + sp.Sum(f, (j, self.at + 1, hi))

        return expr.replace(lambda x: isinstance(x, sp.Sum) and len(x.limits) == 1, split)

    def describe(self) -> str:
        return f"split the sum at j = {self.at}"

    def check(self, expr: Any, ctx: Context, prove_equal: Any) -> str | None:
        if sp.sympify(self.at, strict=True).is_integer is not True:
            return f"the index {self.at} is not known to be an integer"
        return None


@dataclass(frozen=True)
class DropNonnegative(Rule):
    """Drop the sums of non-negative terms from a sum of terms: the result is ≤ the input.

    Soundness: S + Σ f ≥ S when Σ f ≥ 0, which holds when every term is ≥ 0
    and the range is not reversed (a reversed range is minus a sum). Side
    conditions, checked for each dropped sum: the summand with its index
    written ``lo + k`` (k a non-negative integer) is proved ≥ 0 — the sign over
    the range, not the index symbol's own assumptions — and ``hi − lo + 1 ≥ 0``
    is proved; the step's relation is ``≥``.
    """

    name: str = "drop non-negative sums"
    relations = (">=",)  # the output is never larger than the input

    def _droppable(self, t: Any, ctx: Context) -> bool:
        if not (isinstance(t, sp.Sum) and len(t.limits) == 1):
            return False
        var, lo, hi = t.limits[0]
        k = sp.Dummy("k", integer=True, nonnegative=True)
        summand = t.function.xreplace({var: lo + k})
        return summand.is_nonnegative is True and ctx.nonnegative(hi - lo + 1)

    def apply(self, expr: Any, ctx: Context | None = None) -> Any:
        ctx = ctx or Context()
        terms = sp.Add.make_args(expr)
        keep = [t for t in terms if not self._droppable(t, ctx)]
        if len(keep) == len(terms):
            raise ValueError("no sum of provably non-negative terms to drop")
        return sp.Add(*keep)

    def describe(self) -> str:
        return "drop sums of non-negative terms (≥)"

    def check(self, expr: Any, ctx: Context, prove_equal: Any) -> str | None:
        if not any(self._droppable(t, ctx) for t in sp.Add.make_args(expr)):
            return "no sum whose terms are proved non-negative over its range"
        return None


@dataclass(frozen=True)
class SiftDelta(Rule):
    """Σ_l f(l)·δ_jl → f(j): the sifting property of the Kronecker delta.

    Soundness: every term with l ≠ j vanishes and the term l = j is f(j) —
    provided j is one of the summed values. Side conditions: j is an integer
    and ``lo ≤ j ≤ hi`` is proved for each sifted sum, from the symbols'
    assumptions or the derivation's inequality premises (``Le(j, n)``).

    Args:
        index: the index j.
    """

    index: Any
    name: str = "sift a Kronecker delta"

    def _sift(self, s: Any) -> Any:
        (var, _, _), = s.limits
        body = sp.expand(s.function)
        terms = body.args if isinstance(body, sp.Add) else (body,)
        out = 0
        if _rebinds(s.function, var):
            return s
        for t in terms:
            # the delta must be a factor of the term (δ inside exp(δ) would not sift)
            factors = sp.Mul.make_args(t)
            deltas = [d for d in factors if isinstance(d, sp.KroneckerDelta) and set(d.args) == {var, self.index}]
            deltas += [d.base for d in factors if isinstance(d, sp.Pow) and isinstance(d.base, sp.KroneckerDelta)
                       and set(d.base.args) == {var, self.index} and d.exp.is_Integer and d.exp > 0]
            if len(deltas) != 1:
                return s
            out += (t / deltas[0]).xreplace({var: self.index})
        return out

    def apply(self, expr: Any) -> Any:
        return expr.replace(lambda x: isinstance(x, sp.Sum) and len(x.limits) == 1, self._sift)

    def describe(self) -> str:
        return f"Σ_l f(l) δ_{self.index}l = f({self.index})"

    def check(self, expr: Any, ctx: Context, prove_equal: Any) -> str | None:
        j = sp.sympify(self.index, strict=True)
        if j.is_integer is not True:
            return f"the index {j} is not known to be an integer"
        sifted = [s for s in expr.atoms(sp.Sum) if len(s.limits) == 1 and self._sift(s) != s]
        if not sifted:
            return "no sum with a Kronecker delta on its index"
        for s in sifted:
            _, lo, hi = s.limits[0]
            if not (ctx.nonnegative(j - lo) and ctx.nonnegative(hi - j)):
                return (f"{lo} ≤ {j} ≤ {hi} is not proved (declare it as a premise, e.g. "
                        f"Le({j}, {hi}), if it holds)")
        return None


# ----------------------------------------------------------------------------
# expectation algebra
# ----------------------------------------------------------------------------


class _Operator(sp.Function):
    """An unevaluated operator of one random expression (E, Var); it has no value at a point."""

    nargs = 1
    is_number = False
    #: operators have no value at a point: numeric checks must not evaluate them
    numeric_value = False
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
        return any(idx.base in self.bases for idx in sp.sympify(expr, strict=True).atoms(sp.Indexed))


def _each(expr: Any, fn: Any) -> Any:
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(fn)
    return fn(expr)


@dataclass(frozen=True)
class VarianceDefinition(Rule):
    """Var(X) → E[X²] − E[X]².

    Soundness: the definition Var X = E[(X − E X)²] expanded by linearity; no side condition.
    """

    name: str = "variance definition"

    def apply(self, expr: Any) -> Any:
        return _each(expr, lambda e: e.replace(lambda x: isinstance(x, Var),
                                               lambda x: E(x.args[0] ** 2) - E(x.args[0]) ** 2))

    def describe(self) -> str:
        return "Var(X) = E[X²] − E[X]²"


def _fresh_index(expr: Any, like: Any) -> Any:
    used = {s.name for s in expr.free_symbols} | {str(lim[0]) for s in expr.atoms(sp.Sum) for lim in s.limits}
    name, k = "j", 0
    while name in used or name == str(like):
        k += 1
        name = f"j{k}"
    return sp.Symbol(name, integer=True, positive=bool(like.is_positive))


@dataclass(frozen=True)
class ExpandSquare(Rule):
    """(Σ_i f(i))² → Σ_i Σ_j f(i) f(j).

    Soundness: distributivity of a product of two finite sums; with Karr's
    convention a reversed range flips the sign of both factors and of the
    double sum alike. The new index j is fresh (no name of the expression),
    which the application guarantees.
    """

    name: str = "square of a sum"

    def apply(self, expr: Any) -> Any:
        def is_sq(x: Any) -> bool:
            return (isinstance(x, sp.Pow) and x.exp == 2 and isinstance(x.base, sp.Sum)
                    and len(x.base.limits) == 1)

        def expand(x: Any) -> Any:
            s = x.base
            i, lo, hi = s.limits[0]
            if _rebinds(s.function, i):
                return x
            j = _fresh_index(s, i)
            return sp.Sum(s.function * s.function.xreplace({i: j}), (j, lo, hi), (i, lo, hi))

        return _each(expr, lambda e: e.replace(is_sq, expand))

    def describe(self) -> str:
        return "(Σ_i f_i)² = Σ_i Σ_j f_i f_j"


@dataclass(frozen=True)
class SplitDiagonal(Rule):
    """:math:`\\sum_i \\sum_j g(i, j)` over one range →
    :math:`\\sum_i g(i, i) + \\sum_i (\\sum_{j=lo}^{i-1} g + \\sum_{j=i+1}^{hi} g)`.

    Soundness: for each integer i the inner sum splits at j = i
    (:class:`SplitSumAt`'s argument: Karr additivity holds for every integer
    i). Applied only when both indices run over the same range.
    """

    name: str = "split the diagonal"

    def apply(self, expr: Any) -> Any:
        def parts(x: Any) -> tuple | None:
            if not isinstance(x, sp.Sum):
                return None
            if len(x.limits) == 2:
                g, (j, lo_j, hi_j), (i, lo, hi) = x.function, x.limits[0], x.limits[1]
            elif len(x.limits) == 1 and isinstance(x.function, sp.Sum) and len(x.function.limits) == 1:
                g, (j, lo_j, hi_j), (i, lo, hi) = x.function.function, x.function.limits[0], x.limits[0]
            else:
                return None
            if _rebinds(g, j) or _rebinds(g, i):
                return None
            return (g, j, i, lo, hi) if (lo_j, hi_j) == (lo, hi) else None

        def split(x: Any) -> Any:
            g, j, i, lo, hi = parts(x)
            off = sp.Sum(g, (j, lo, i - 1)) + sp.Sum(g, (j, i + 1, hi))
            return sp.Sum(g.xreplace({j: i}), (i, lo, hi)) + sp.Sum(off, (i, lo, hi))

        return _each(expr, lambda e: e.replace(lambda x: parts(x) is not None, split))

    def describe(self) -> str:
        return "Σ_i Σ_j = diagonal (j = i) + off-diagonal (j < i, j > i)"


@dataclass(frozen=True)
class Linearity(Rule):
    """Linearity of expectation: E[Σ X] = Σ E[X], E[X + Y] = E[X] + E[Y], E[cX] = c E[X], E[c] = c.

    Soundness: linearity of the integral (finite sums). "Constant" means
    containing no element of a random family of ``model``, checked on every
    factor pulled out.
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


def _nonneg_given(e: Any, facts: list) -> bool:
    """``e ≥ 0`` from assumptions, or as one of ``facts`` (each ≥ 0) plus something ≥ 0."""
    if sp.sympify(e, strict=True).is_nonnegative is True:
        return True
    return any(sp.expand(e - f).is_nonnegative is True for f in facts)


def _distinct(a: Any, b: Any, known: frozenset) -> bool:
    if frozenset((a, b)) in known:
        return True
    return (a - b).is_zero is False


@dataclass(frozen=True)
class Independence(Rule):
    """E[X·Y·…] = E[X]·E[Y]·… for products of independent random variables.

    Soundness: the expectation of a product of independent variables is the
    product of expectations. Factors are grouped by variable (family and
    index); two elements of one family are treated as different variables only
    when their indices provably differ (different numbers, or an enclosing
    range such as :math:`\\sum_{j=i+1}^{n}`); otherwise the expectation is left unchanged.
    """

    model: RandomModel
    name: str = "independence"

    def _factor(self, arg: Any, known: frozenset) -> Any:
        factors = arg.args if isinstance(arg, sp.Mul) else (arg,)
        groups: dict[tuple, list] = {}
        for f in factors:
            base = f.base if isinstance(f, sp.Pow) and f.exp.is_Integer and f.exp > 0 else f
            if not (isinstance(base, sp.Indexed) and base.base in self.model.bases and len(base.indices) == 1):
                return E(arg)
            groups.setdefault((base.base, base.indices[0]), []).append(f)
        keys = list(groups)
        for a in range(len(keys)):
            for b in range(a + 1, len(keys)):
                (fa, ia), (fb, ib) = keys[a], keys[b]
                if fa == fb and not _distinct(ia, ib, known):
                    return E(arg)
        return sp.Mul(*[E(sp.Mul(*groups[key])) for key in keys])

    def _walk(self, expr: Any, known: frozenset, bound: tuple, facts: tuple = ()) -> Any:
        if isinstance(expr, E):
            return self._factor(expr.args[0], known)
        if isinstance(expr, sp.Sum):
            new_known, new_bound, new_facts = set(known), list(bound), list(facts)
            for j, lo, hi in reversed(expr.limits):  # outermost first
                # only a range that is not reversed runs over lo..hi (Karr's convention sums others)
                if not _nonneg_given(hi - lo + 1, new_facts):
                    new_bound.append(j)
                    continue
                for s in set(bound) | (lo.free_symbols | hi.free_symbols):
                    if s == j or not s.is_integer:
                        continue
                    if (lo - s).is_positive or (s - hi).is_positive:
                        new_known.add(frozenset((j, s)))
                new_bound.append(j)
                new_facts += [j - lo, hi - j]
            return sp.Sum(self._walk(expr.function, frozenset(new_known), tuple(new_bound), tuple(new_facts)),
                          *expr.limits)
        if not expr.args or isinstance(expr, (sp.Indexed, sp.Symbol)):
            return expr
        return expr.func(*[self._walk(a, known, bound, facts) for a in expr.args])

    def apply(self, expr: Any) -> Any:
        return _each(expr, lambda e: self._walk(e, frozenset(), ()))

    def describe(self) -> str:
        return "independence: E[XY] = E[X]E[Y]"


@dataclass(frozen=True)
class Moments(Rule):
    """Known moments: E[x_i] = μ and E[x_i²] = σ² + μ² for each family x of ``model``.

    Soundness: the model's premise (mean μ, variance σ²) and Var = E[x²] − μ².
    """

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


#: The primitive rules, by exact class.
PRIMITIVES: tuple[type, ...] = (Substitute, SplitSumAt, DropNonnegative, SiftDelta, ExpandSquare, SplitDiagonal,
                                VarianceDefinition, Linearity, Independence, Moments, LimitLaws,
                                Reindex, MergeSums, ExchangeSums, RangeCases, Lemma, ShiftIndex)


def is_primitive(rule: Any) -> bool:
    """True for an instance of exactly one of :data:`PRIMITIVES` (subclasses inherit no trust)."""
    return type(rule) in PRIMITIVES


def check(rule: Any, expr: Any, ctx: Context, prove_equal: Any, relation: str = "=") -> str | None:
    """The side conditions of primitive ``rule`` on ``expr`` in a step of ``relation``: ``None`` if they hold,
    else the reason."""
    if ctx.definitions or ctx.premises:
        bad = ctx.inconsistency()
        if bad is not None:
            return bad
    if type(rule) is Lemma:
        from . import lemmas

        return lemmas.check(rule, expr, ctx, prove_equal, relation)
    fn = getattr(type(rule), "check", None)
    return fn(rule, expr, ctx, prove_equal) if fn is not None else None


def apply(rule: Any, expr: Any, ctx: Context) -> Any:
    """The primitive's own application (the class's method, never an override)."""
    if type(rule) is DropNonnegative:
        return DropNonnegative.apply(rule, expr, ctx)
    if type(rule) is RangeCases:
        return RangeCases.apply(rule, expr, ctx)
    if type(rule) is Lemma:
        from . import lemmas

        return lemmas.apply(rule, expr, ctx)
    return type(rule).apply(rule, expr)

