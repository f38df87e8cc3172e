"""Symbolic proof of ``before relation after``: normalise, then strategies that compose.

1. **Normalise** the two sides: sympy Floats become the exact rationals they
   stand for (so rounding can never be "proved" away), matrix expressions are
   written out, finite sums and products with integer bounds are unrolled term
   by term, derivatives are carried out (sympy's differentiation is
   algorithmic), and every other unevaluated operator (``Integral``,
   ``Limit``, symbolic-length ``Sum``/``Product``) is evaluated by ``doit()``
   under a time limit. A ``doit()`` result is *not* evidence for itself: the
   proof records that it used one, and the kernel then demands that the
   independent mpmath witness, which evaluates the operator from its
   definition, agrees (:mod:`derive.kernel.witness`).
2. **Close** the normalised difference with cheap closers (expand,
   cancel∘together, factor) — first on their own, then after each rewriting
   (power expansion, ``expand_trig``, ``rewrite(exp)``, ``expand_log`` under
   the symbols' assumptions, ``powdenest``, linearity of sums, then the
   searching ``trigsimp(method="fu")`` and case splits), and ``simplify``.
   Whether a strategy is attempted is decided by the size of its input
   (``CLOSER_NODES`` and the caps after it), before sympy runs, so the
   same strategies run in the same order on every machine; each sympy call
   has a backstop (``BACKSTOP``) against a hang only. Proofs are remembered by goal.
3. **Congruence**: two applications of the same operator (a ``Limit``, an
   ``E[·]``, a ``Sum`` over the same range) are equal when their arguments
   are, which the closers prove recursively.

For an inequality the difference must be proved of the right sign by
sympy's assumptions, by comparing logarithms of two positive terms, or term
by term for two sums over the same range (the summand's sign is taken over
the range, with the index written ``lo + m``, ``m ≥ 0``, never from the
index symbol's own assumptions).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy as sp

from . import limits
from .memo import remembered


@dataclass(frozen=True)
class Proof:
    """Outcome of :func:`prove`.

    Attributes:
        proved: the relation holds symbolically.
        strategy: what closed it, or what was tried.
        used_doit: operators sympy evaluated with ``doit()`` along the way (their
            closed forms need the independent witness).
        timed_out: the strategies that ran out of time.
    """

    proved: bool
    strategy: str
    used_doit: tuple[str, ...] = ()
    timed_out: tuple[str, ...] = ()


# ----------------------------------------------------------------------------
# normalisation
# ----------------------------------------------------------------------------


def exact_floats(e: Any) -> Any:
    """Every sympy Float replaced by the exact rational it stands for."""
    floats = e.atoms(sp.Float) if isinstance(e, sp.Basic) else set()
    return e.xreplace({f: sp.Rational(f) for f in floats}) if floats else e


def explicit(x: Any) -> Any:
    """Matrix expressions as explicit matrices where the shape is known."""
    if isinstance(x, sp.MatrixExpr) and not isinstance(x, sp.MatrixBase):
        try:
            done = x.doit()
        except (ValueError, TypeError, NotImplementedError, AttributeError):
            try:  # an entry's operator failed (a limit sympy cannot take): the matrix algebra only
                done = x.doit(deep=False)
            except (ValueError, TypeError, NotImplementedError, AttributeError):
                return x
        try:
            return sp.ImmutableMatrix(done)
        except (ValueError, TypeError):
            return done
    return x


def unroll(e: Any) -> Any:
    """Finite sums and products with integer bounds written out term by term (Karr's convention kept)."""

    def finite(node: Any) -> bool:
        if not isinstance(node, (sp.Sum, sp.Product)):
            return False
        var, *bounds = node.limits[-1]
        if len(bounds) != 2 or not (bounds[0].is_Integer and bounds[1].is_Integer):
            return False
        if not (bounds[0] - 1 <= bounds[1] <= bounds[0] + 200):
            return False
        inner = node.function.atoms(sp.Sum, sp.Product, sp.Integral)
        rebound = [lim[0] for lim in node.limits[:-1]] + [lim[0] for n in inner for lim in n.limits]
        return var not in rebound

    def out(node: Any) -> Any:
        var, lo, hi = node.limits[-1]
        cls = type(node)
        body = cls(node.function, *node.limits[:-1]) if len(node.limits) > 1 else node.function
        terms = [body.xreplace({var: sp.Integer(k)}) for k in range(int(lo), int(hi) + 1)]
        return sp.Add(*terms) if cls is sp.Sum else sp.Mul(*terms)

    for _ in range(16):
        new = e.replace(finite, out)
        if new == e:
            break
        e = new
    return e


_DOIT_TYPES = (sp.Integral, sp.Limit, sp.Sum, sp.Product)

_CANON: dict[tuple, Any] = {}


def _canon_dummy(height: int, kind: str) -> Any:
    """The canonical index of a binder at ``height`` (same object on both sides, so equal sums cancel)."""
    key = (height, kind)
    if key not in _CANON:
        facts = {"integer": {"integer": True}, "nonnegative": {"integer": True, "nonnegative": True},
                 "positive": {"integer": True, "positive": True}}[kind]
        _CANON[key] = sp.Dummy(f"k{height}", **facts)
    return _CANON[key]


def canonical_indices(e: Any) -> Any:
    """Sum and product indices renamed to canonical dummies whose assumptions come from the *range*.

    The index of :math:`\\sum_{j=lo}^{hi}` is an integer; it is known ≥ lo only when the
    range is not reversed (hi − lo + 1 ≥ 0 proved; Karr's convention sums a
    reversed range over other values). The index symbol's own assumptions
    (``j`` declared positive) are dropped: they are not evidence about the range.
    """
    if not isinstance(e, sp.Basic) or not e.has(sp.Sum, sp.Product):
        return e
    return remembered(_CANONICAL, e, _canonical_indices)


#: canonical forms already computed (a pure function of the expression: the dummies are shared objects)
_CANONICAL: dict = {}


def _canonical_indices(e: Any) -> Any:
    heights: dict = {}
    holding: dict = {}

    def height(x: Any) -> int:
        h = heights.get(x)
        if h is None:
            inner = x.function.atoms(sp.Sum, sp.Product)
            h = heights[x] = max((height(n) + len(n.limits) for n in inner), default=0)
        return h

    def holds(x: Any) -> bool:
        """Does ``x`` hold a sum or a product (each node looked at once: ``has`` at every level is quadratic)?"""
        hit = holding.get(x)
        if hit is None:
            hit = holding[x] = isinstance(x, (sp.Sum, sp.Product)) or any(
                holds(a) for a in x.args if isinstance(a, sp.Basic))
        return hit

    def canon(x: Any) -> Any:
        # top-down, outermost index first: an inner range is then written in the outer's canonical
        # index, whose assumptions come from the outer range, never from a declared symbol
        if not isinstance(x, sp.Basic) or not x.args or not holds(x):
            return x
        if not isinstance(x, (sp.Sum, sp.Product)):
            args = [canon(a) for a in x.args]
            # a node none of whose arguments changed is kept as it is (rebuilding it gives the same node)
            return x if all(a is b for a, b in zip(args, x.args, strict=True)) else x.func(*args)
        if any(len(lim) != 3 for lim in x.limits):
            return x
        h = height(x)
        fn = x.function
        lims = [tuple(lim) for lim in x.limits]
        out: list = [None] * len(lims)
        for k in reversed(range(len(lims))):
            var, lo, hi = lims[k]
            kind = "integer"
            if (hi - lo + 1).is_nonnegative is True:
                if lo.is_positive is True:
                    kind = "positive"
                elif lo.is_nonnegative is True:
                    kind = "nonnegative"
            d = _canon_dummy(h + k, kind)
            if var is not d:
                fn = fn.xreplace({var: d})
                lims[:k] = [(v, a.xreplace({var: d}), c.xreplace({var: d})) for v, a, c in lims[:k]]
            out[k] = (d, lo, hi)
        body = canon(fn)
        if body is x.function and all(tuple(lim) == o for lim, o in zip(x.limits, out, strict=True)):
            return x  # already canonical
        return type(x)(body, *out)

    return canon(e)


def alpha_equal(a: Any, b: Any) -> bool:
    """Equal up to the names of bound indices."""
    try:
        return bool(a == b or canonical_indices(a) == canonical_indices(b))
    except Exception:  # noqa: BLE001
        return False


def _matrix_entries(e: Any) -> Any:
    """Entries of matrix products written as the sums that define them."""
    from sympy.matrices.expressions.matexpr import MatrixElement

    return e.replace(lambda x: isinstance(x, MatrixElement) and isinstance(x.parent, sp.MatrixExpr)
                     and not isinstance(x.parent, (sp.MatrixSymbol, sp.MatrixBase)), lambda x: x.doit())


def normalise(e: Any, used: list[str] | None = None) -> Any:
    """Level 1 (trusted): exact floats, explicit matrices, unrolled finite sums, derivatives, canonical indices.

    With ``used`` given, level 2 too: other operators evaluated by ``doit()``
    (their names are appended to ``used``: such closed forms need the witness).

    A normal form is a function of the expression alone, so it is remembered (per level, with the operators
    its ``doit()`` used): the expression of step k is normalised once for step k and step k + 1. A normal form
    whose ``doit()`` ran out of time is not remembered (a time-out depends on the machine).
    """
    try:
        key = (e, used is not None)
        hit = _NORMAL.get(key)
    except TypeError:  # an unhashable expression (a mutable matrix): normalised every time
        key, hit = None, None
    if hit is not None:
        if used is not None:
            used.extend(hit[1])
        return hit[0]
    local: list[str] | None = [] if used is not None else None
    incomplete = _INCOMPLETE[0]
    out = _normalise(e, local)
    if used is not None:
        used.extend(local or ())
    if key is not None and _INCOMPLETE[0] == incomplete:
        if len(_NORMAL) > 2048:
            _NORMAL.clear()
        _NORMAL[key] = (out, tuple(local or ()))
    return out


#: normal forms by (expression, level 2?): (the form, the operators its doit() used)
_NORMAL: dict = {}
#: doit() calls of level 2 that ran out of time so far (a normal form made meanwhile is not remembered)
_INCOMPLETE = [0]


def _normalise(e: Any, used: list[str] | None) -> Any:
    e = exact_floats(explicit(e))
    if isinstance(e, sp.MatrixBase):
        return sp.ImmutableMatrix(e.applyfunc(lambda x: normalise(x, used)))
    if not isinstance(e, sp.Basic):
        return e
    from sympy.matrices.expressions.matexpr import MatrixElement

    if e.has(sp.Sum, sp.Product):
        e = unroll(e)
    if e.has(MatrixElement):
        e = _matrix_entries(e)
    if e.has(sp.Derivative):
        e = e.replace(lambda x: isinstance(x, sp.Derivative), lambda x: x.doit(deep=True))
        if e.has(sp.Sum, sp.Product):
            e = unroll(e)
    e = canonical_indices(e)
    if used is None:
        return e
    ops = [type(n).__name__ for n in e.atoms(*_DOIT_TYPES)]
    if ops:
        ok, out = limits.run_limited(BACKSTOP, "doit", _doit, e)
        if not ok:
            _INCOMPLETE[0] += 1
        if ok and out is not None and out != e:
            used.extend(sorted(set(ops)))
            e = canonical_indices(exact_floats(out))
    return e


def _doit(e: Any) -> Any:
    try:
        return e.doit()
    except limits.TimeLimit:
        raise
    except Exception:  # noqa: BLE001 - sympy cannot evaluate it: no closed form, nothing used
        return None


# ----------------------------------------------------------------------------
# closers and rewritings
# ----------------------------------------------------------------------------


def _sums_normal(e: Any) -> Any:
    """Constant factors out of sums, sums of sums split (linearity of Σ)."""

    def fix(s: Any) -> Any:
        body = sp.expand(s.function, power_exp=True)
        return sp.factor_terms(sp.Sum(body, *s.limits).expand())

    return e.replace(lambda x: isinstance(x, sp.Sum), fix)


def _cancel(e: Any) -> Any:
    """``cancel(e)`` with every unevaluated operator that is a number (an infinite series, a definite
    integral without parameters) held as an opaque symbol: sympy orders the terms of a sum by their
    numeric values and would evaluate such an operator to do so, again at each call (an infinite
    series: a quarter of a second each). Sound: what holds for every value of the symbol holds for the
    operator's."""
    ops = [n for n in e.atoms(*_DOIT_TYPES) if not n.free_symbols] if isinstance(e, sp.Basic) else []
    if not ops:
        return sp.cancel(e)
    held = {n: sp.Dummy("op") for n in ops}
    return sp.cancel(e.xreplace(held)).xreplace({v: k for k, v in held.items()})


#: The cheap closers, cheapest first. For an equation, ``factor`` runs only where ``cancel`` could not
#: (both reduce the difference to one fraction of polynomials in the same generators, so a zero that
#: ``cancel`` missed, ``factor`` misses too); for an inequality each may bring out a different sign.
CLOSERS: list[tuple[str, Callable[[Any], Any]]] = [
    ("expand", sp.expand),
    ("cancel", lambda d: _cancel(sp.together(d))),
    # sympy's factor of an expression that is not known commutative (an unevaluated Sum or Limit of indexed
    # terms) falls back to factor_nc, which recurses into every argument again: seconds on a 60-node input
    ("factor", lambda d: sp.factor(d) if d.is_commutative is True else None),
]

#: closers for the arguments of two applications of one operator (cheap, and exp-aware)
CONGRUENCE_CLOSERS: list[tuple[str, Callable[[Any], Any]]] = [
    *CLOSERS[:2],
    ("cancel-power-exp", lambda e: _cancel(sp.expand(e, power_exp=True))),
]

#: the rewritings that search (their cost grows fastest with the size: :data:`SEARCH_NODES`)
SEARCHING = frozenset({"trigsimp-fu", "cases"})

REWRITES: list[tuple[str, Callable[[Any], Any]]] = [
    ("expand-power-exp", lambda d: sp.powsimp(sp.expand(d, power_exp=True))),
    ("cancel-power-exp", lambda d: _cancel(sp.expand(d, power_exp=True))),
    ("expand-log", lambda d: sp.expand_log(d, force=False)),
    ("expand-trig", lambda d: sp.expand_trig(sp.expand(d, trig=True))),
    ("rewrite-exp", lambda d: d.rewrite(sp.exp)),
    ("powdenest", lambda d: sp.powdenest(sp.powsimp(d), force=False)),
    ("logcombine", lambda d: sp.logcombine(d, force=False)),
    ("sums", _sums_normal),
    ("expand-complex", lambda d: sp.expand_complex(d) if d.free_symbols and any(
        s.is_real is not True for s in d.free_symbols) else d),
    ("rewrite-piecewise", lambda d: sp.piecewise_fold(d.rewrite(sp.Piecewise))),
    ("radsimp", sp.radsimp),
    # the searching ones last (after the quick probe): their cost grows fastest with the size
    ("trigsimp-fu", lambda d: sp.trigsimp(d, method="fu")),
    ("cases", lambda d: cases(d)),
]


#: the rewritings that respect the order of non-commuting factors (the others treat every symbol as a number:
#: ``expand_complex`` splits P·Q − Q·P into real and imaginary parts that commute, and closes it)
NONCOMMUTATIVE_SAFE = frozenset({"expand-power-exp", "cancel-power-exp", "sums"})


def noncommutative(*exprs: Any) -> bool:
    """Does any of ``exprs`` hold a factor that does not commute (a ``commutative=False`` symbol, a matrix
    symbol)? Then only the closers and :data:`NONCOMMUTATIVE_SAFE` may prove a step."""
    for e in exprs:
        if isinstance(e, sp.Basic) and not isinstance(e, sp.MatrixBase):
            if (e.is_commutative is False and (e.has(sp.MatrixSymbol) or not _commutes(e))) or any(
                    a.is_commutative is False for a in e.atoms(sp.Symbol)):
                return True
    return False


def _commutes(e: Any) -> bool:
    """Does ``e`` commute, as its structure shows? sympy leaves a ``Limit``'s ``is_commutative`` undecided,
    so a sum or product holding one is non-commutative to sympy; a limit of a commutative scalar expression
    is a commutative scalar (a matrix expression or a non-commuting symbol inside is never one; an expression
    with a matrix symbol anywhere keeps sympy's answer)."""
    if isinstance(e, sp.MatrixExpr):
        return False
    if e.is_commutative is True:
        return True
    if isinstance(e, sp.Limit):
        return _commutes(e.args[0]) and all(a.is_commutative is True for a in e.args[1:3])
    if isinstance(e, (sp.Add, sp.Mul, sp.Pow)):
        return all(_commutes(a) for a in e.args)
    return False


def _is_zero(value: Any) -> bool:
    """Is ``value`` zero, as its form shows (remembered per expression: a pure function of it)?"""
    try:
        return remembered(_ZERO, value, _zero)
    except TypeError:  # unhashable (a mutable matrix)
        return _zero(value)


#: :func:`_is_zero` by expression
_ZERO: dict = {}


def _zero(value: Any) -> bool:
    if isinstance(value, sp.MatrixBase):
        return all(_is_zero(v) for v in value)
    if isinstance(value, sp.Piecewise):
        # zero on every branch (conditions aside): zero everywhere it is defined
        return all(_is_zero(sp.cancel(sp.expand(piece))) for piece, _ in value.args)
    if isinstance(value, sp.MatrixExpr):
        return isinstance(value, sp.ZeroMatrix) or value.is_ZeroMatrix is True
    if value == 0:
        return True
    if getattr(value, "is_number", False):
        # for a constant, sympy's is_zero may be decided by a low-precision numeric evaluation (sympy
        # issue 23086: acos(1 − 2.6e-7) "is zero"): numbers alone never prove a step
        return False
    # the assumption system can prove more (|x| − x = 0 for x ≥ 0) but is slow on large expressions
    return _small(value) and value.is_zero is True


def _small(e: Any, most: int = 40) -> bool:
    """At most ``most`` nodes (counted without building the whole traversal)."""
    for k, _ in enumerate(sp.preorder_traversal(e)):
        if k >= most:
            return False
    return True


def _index_over_range(s: Any) -> Any:
    """A sum's summand with each index written lo + m (m ≥ 0): its sign then holds over the range only."""
    fn = s.function
    for var, lo, _hi in s.limits:
        m = sp.Dummy("m", integer=True, nonnegative=True)
        fn = fn.xreplace({var: lo + m})
    return fn


def sign_ok(d: Any, relation: str) -> bool:
    """Is ``d = after − before`` of the sign ``relation`` needs (proved, never sampled)?"""
    if isinstance(d, sp.MatrixBase):
        return False
    want = {"<=": "is_nonnegative", "<": "is_positive", ">=": "is_nonpositive", ">": "is_negative"}[relation]
    if getattr(d, want) is True:
        return True
    if isinstance(d, sp.Add) and len(d.args) == 2:
        pos = [t for t in d.args if not t.could_extract_minus_sign()]
        neg = [-t for t in d.args if t.could_extract_minus_sign()]
        if len(pos) == 1 and len(neg) == 1 and pos[0].is_positive and neg[0].is_positive:
            ld = sp.expand_log(sp.log(pos[0]) - sp.log(neg[0]), force=False)
            if getattr(sp.simplify(ld), want) is True:
                return True
        sums = [t for t in d.args if isinstance(t, sp.Sum)]
        negs = [-t for t in d.args if isinstance(-t, sp.Sum)]
        if len(sums) == 1 and len(negs) == 1 and sums[0].limits == negs[0].limits and relation in ("<=", ">="):
            lengths_ok = all((hi - lo + 1).is_nonnegative is True for _, lo, hi in sums[0].limits)
            if lengths_ok:
                diff = sp.Sum(sums[0].function - negs[0].function, *sums[0].limits)
                return sign_ok(sp.simplify(_index_over_range(diff)), relation)
    return False


def _closed(out: Any, relation: str) -> bool:
    if isinstance(out, sp.Basic) and out.has(sp.Sum, sp.Product):
        out = canonical_indices(out)  # a rewriting may move a sum to another height: rename again
    return _is_zero(out) if relation == "=" else sign_ok(out, relation)


def _asks(d: Any, relation: str) -> bool:
    """Would :func:`_closed` ask sympy's assumptions whether the scalar difference ``d`` of an equation is
    zero (an expression that is not a number, not piecewise, of at most 40 nodes)?"""
    return (relation == "=" and isinstance(d, sp.Expr) and not isinstance(d, (sp.Piecewise, sp.MatrixExpr))
            and not d.is_number and _small(d))


def _form_zero(d: Any) -> bool:
    """Is ``d`` zero as it is written (canonical indices), without asking the assumptions?"""
    if d.has(sp.Sum, sp.Product):
        d = canonical_indices(d)
    return d == 0


def _sign_atoms(d: Any) -> list:
    """Real symbols whose sign decides an Abs, Max, Min, sign or Heaviside in ``d``.

    An element of a real family (``h[k]``) counts as a symbol when none of its indices is bound in ``d``
    (then every occurrence is the same element; under a sum over k it would be a different one per term).
    """
    from .primitives import _bound_symbols

    out: set = set()
    bound = None
    for node in sp.preorder_traversal(d):
        if isinstance(node, (sp.Abs, sp.Max, sp.Min, sp.sign, sp.Heaviside)):
            for a in node.args:
                out |= {s for s in a.free_symbols if isinstance(s, sp.Symbol) and s.is_real is True
                        and s.is_positive is not True and s.is_negative is not True}
                for s in a.atoms(sp.Indexed):
                    if s.is_real is not True or s.is_positive is True or s.is_negative is True:
                        continue
                    bound = _bound_symbols(d) if bound is None else bound
                    if not (set().union(*(i.free_symbols for i in s.indices)) & bound):
                        out.add(s)
    if out:  # the label of a family (h in h[k]) is no number
        out -= {x.base.label for x in d.atoms(sp.Indexed)}
    return sorted(out, key=str)


def cases(d: Any) -> Any:
    """Split on the sign of each real symbol inside Abs/Max/Min/sign/Heaviside (s > 0, s < 0, s = 0).

    Sound: the three cases cover the real line, so a difference that is zero in
    every case is zero. Returns 0 when every case closes, else ``d`` unchanged.
    """
    atoms = _sign_atoms(d)
    if not atoms or len(atoms) > 2:
        return d
    variants = [d]
    for s in atoms:
        p = sp.Dummy(f"{s}_pos", positive=True)
        variants = [v.xreplace({s: r}) for v in variants for r in (p, -p, sp.Integer(0))]
    for v in variants:
        limits.checkpoint()
        if not any((out := _safe(fn, v)) is not None and _is_zero(out) for _, fn in CLOSERS[:2]):
            return d
    return sp.Integer(0)


def _apply(fn: Callable, d: Any) -> Any:
    return d.applyfunc(fn) if isinstance(d, sp.MatrixBase) else fn(d)


# ----------------------------------------------------------------------------
# what is attempted: decided by sizes, never by time
# ----------------------------------------------------------------------------

#: Largest expression (nodes of its tree; a matrix counts the nodes of all its entries) that each kind of
#: strategy is attempted on. Decided before sympy runs, so the same strategies run, in the same order, on
#: every machine however loaded; the time limit left on each call is :data:`BACKSTOP`, against a hang only.
#: The closers (expand, cancel, factor) and the congruence of arguments:
CLOSER_NODES = 20_000
#: the rewritings (power expansion, expand_trig, rewrite(exp), ...), each followed by the closers:
REWRITE_NODES = 4_000
#: the searching rewritings, whose cost grows fastest with size (``trigsimp(method="fu")``, ``cases``):
SEARCH_NODES = 600
#: ``simplify`` (sympy's strongest and slowest closer), on the normal form:
SIMPLIFY_NODES = 400
#: ``simplify`` after a rewriting, on at most this many rewritten forms (the smallest first) ...
SIMPLIFY_AFTER = 3
#: ... of at most this many nodes each.
SIMPLIFY_AFTER_NODES = 250
#: ``doit()`` of the remaining operators (an integral, a limit, a symbolic sum), counting the operators' nodes.
DOIT_NODES = 2_000
#: CPU seconds one sympy call of the strategies may take: a backstop against a hang (sympy's own
#: ``integrate`` can run for minutes on a small integral), far above what a call within its size cap takes.
#: The whole symbolic work of a step stays bounded by the step's budget.
BACKSTOP = limits.BACKSTOP

#: the largest count :func:`size` reports (larger expressions are over every cap)
_SIZE_MOST = 100_000
_SIZES: dict = {}


def size(e: Any) -> int:
    """Nodes of ``e``'s expression tree (entries of a matrix added up), counted up to 100,000; remembered."""
    try:
        hit = _SIZES.get(e)
    except TypeError:  # unhashable (a mutable matrix)
        hit = None
    if hit is not None:
        return hit
    if isinstance(e, sp.MatrixBase):
        n = sum(size(x) for x in e)
    elif isinstance(e, sp.Basic):
        n = 0
        for n, _ in enumerate(sp.preorder_traversal(e), 1):
            if n > _SIZE_MOST:
                break
    else:
        n = 1
    n = min(n, _SIZE_MOST + 1)
    try:
        if len(_SIZES) > 8192:
            _SIZES.clear()
        _SIZES[e] = n
    except TypeError:
        pass
    return n


def congruent(before: Any, after: Any, depth: int = 0) -> bool:
    """Same head, same non-expression arguments, arguments pairwise provably equal (cheap closers only)."""
    if before == after:
        return True
    if isinstance(before, sp.MatrixBase) and isinstance(after, sp.MatrixBase):
        pairs = zip(before, after, strict=True)
        return before.shape == after.shape and all(congruent(x, y, depth) for x, y in pairs)
    if depth > 3 or not (isinstance(before, sp.Basic) and isinstance(after, sp.Basic)):
        return False
    if type(before) is not type(after) or len(before.args) != len(after.args) or not before.args:
        return False
    if isinstance(before, (sp.Add, sp.Mul)):
        return False  # handled by the closers on the difference
    for x, y in zip(before.args, after.args, strict=True):
        if x == y:
            continue
        if isinstance(x, sp.Tuple) or isinstance(y, sp.Tuple) or not isinstance(x, sp.Expr):
            return False  # limits of sums / integrals must match exactly
        if congruent(x, y, depth + 1):
            continue
        d = sp.sympify(y - x, strict=True)
        if size(d) > CLOSER_NODES:
            return False
        ok = False
        for _name, fn in CONGRUENCE_CLOSERS:
            done, out = limits.run_limited(BACKSTOP, "congruence", _safe, fn, d)
            if done and out is not None and _is_zero(out):
                ok = True
                break
        if not ok:
            return False
    return True


#: proofs already found (or not), by (before, after, relation, operators first, doit allowed, probed): with the
#: strategies chosen by sizes, a proof is a function of its goal. What the quick probe would have stopped
#: at is kept beside it, so a remembered goal gives the same result with a probe as a fresh one.
_PROOFS: dict = {}


def prove(before: Any, after: Any, relation: str, budget: float | None = None,
          probe: Callable[[], bool] | None = None, operators_first: bool = True, doit: bool = True) -> Proof:
    """Try to prove ``before relation after`` (see the module docstring).

    Which strategies run is decided by the sizes of the expressions (``CLOSER_NODES`` and the
    caps after it), never by the time they took, so the result is the same on every machine. ``budget``
    (CPU seconds, optional) bounds the whole call as a backstop only; each sympy call has its own
    ``BACKSTOP``. ``probe`` is called once, after the cheap rewritings failed; if it returns true (the
    caller found a counterexample) the search stops there. With ``operators_first`` false, the rewritings
    are tried on the level-1 form before sympy's ``doit()`` evaluates the remaining operators (a step that
    is algebra needs no closed form of a symbolic sum, which can be slow to find). With ``doit`` false,
    the operators are never evaluated (for a caller that would not accept a proof that used ``doit()``).
    """
    try:
        key = (before, after, relation, operators_first, doit, probe is not None)
        hit = _PROOFS.get(key)
    except TypeError:  # an unhashable expression (a mutable matrix)
        key, hit = None, None
    if hit is not None:
        proof, at_probe = hit
        if at_probe is not None and probe is not None and probe():
            return at_probe
        return proof
    state = _Search()
    if budget is None:
        proof = _prove(before, after, relation, probe, operators_first, doit, state)
    else:
        try:
            with limits.limit(budget, "the strategies"):
                proof = _prove(before, after, relation, probe, operators_first, doit, state)
        except limits.TimeLimit as exc:
            if any(f is exc.frame for f in limits._stack):
                raise
            return Proof(False, f"the strategies reached their limit of {budget:g} s CPU", (), ("the strategies",))
    if key is not None and not state.timed_out and not state.probed:
        if len(_PROOFS) > 4096:
            _PROOFS.clear()
        _PROOFS[key] = (proof, state.at_probe)
    return proof


@dataclass
class _Search:
    """What one proof search tried (for its report and for remembering it)."""

    tried: list = None  # type: ignore[assignment]
    timed_out: list = None  # type: ignore[assignment]
    used: list = None  # type: ignore[assignment]
    at_probe: Proof | None = None   # what the search returns if the probe finds a counterexample
    probed: bool = False            # the probe found one (the result then depends on the caller's probe)

    def __post_init__(self) -> None:
        self.tried, self.timed_out, self.used = [], [], []


def _prove(before: Any, after: Any, relation: str, probe: Callable[[], bool] | None, operators_first: bool,
           allow_doit: bool, state: _Search) -> Proof:
    before, after = explicit(before), explicit(after)
    if isinstance(before, sp.MatrixBase) != isinstance(after, sp.MatrixBase):
        return Proof(False, "shape mismatch (matrix vs scalar)")
    if isinstance(before, sp.MatrixBase) and before.shape != after.shape:
        return Proof(False, f"shape mismatch {before.shape} vs {after.shape}")
    if relation == "=" and alpha_equal(before, after):
        return Proof(True, "structural")
    tried, timed_out, used = state.tried, state.timed_out, state.used
    measured: list = []  # (a matrix with closed entries set to 0, the size of the matrix it was made from)

    if relation == "=":
        # on canonical indices: a summand is never simplified with its index's declared assumptions
        ok, same = limits.run_limited(BACKSTOP, "congruence",
                                      lambda: congruent(canonical_indices(before), canonical_indices(after)))
        if ok and same:
            return Proof(True, "congruence")
    ok, pair = limits.run_limited(BACKSTOP, "normalise", lambda: (normalise(before), normalise(after)))
    if not ok:
        timed_out.append("normalise")
        pair = (before, after)
    d = _difference(*pair)
    if d is None:
        return Proof(False, "the two sides cannot be subtracted")
    doit: tuple[str, ...] = ()
    # an equation's difference is asked of sympy's assumptions (is_zero) after the cheap closers, not
    # before: they close most steps at a fraction of the query's cost, and the query still runs (with the
    # same answer) when they do not, so the same steps are proved
    deferred = _asks(d, relation)
    if _form_zero(d) if deferred else _closed(d, relation):
        return Proof(True, "normalise")

    def attempt(name: str, fn: Callable, base: Any, cap: int) -> tuple[bool, Any]:
        """Run one strategy on ``base`` if it is within the strategy's size cap (then under the backstop).
        A matrix whose closed entries were set to 0 is measured as it was before: setting them to 0 changes
        how much work a strategy does, never which strategies are attempted."""
        known = next((n for m, n in measured if m is base), None)
        if (known if known is not None else size(base)) > cap:
            return False, None
        tried.append(name)
        ok, out = limits.run_limited(BACKSTOP, name, _safe, fn, base)
        if not ok:
            timed_out.append(name)
            return False, None
        if out is None:
            return False, None
        return _closed(out, relation), out

    def close(base: Any, prefix: str = "", rewritten: bool = False, closed: set | None = None) -> str | None:
        """The cheap closers on ``base``: the name of the one that closed it, or None. After a rewriting, an
        equation gets ``cancel`` only (``expand`` where ``cancel`` could not run): the rewriting was
        chosen to expose a cancellation, and ``expand`` finds no zero that ``cancel`` misses. For a matrix
        equation, ``closed`` (if given) collects the positions of the entries the closers proved zero."""
        cancelled = False
        order = CLOSERS if not (rewritten and relation == "=") else [CLOSERS[1], CLOSERS[0]]
        if relation == "=" and isinstance(base, sp.MatrixBase):
            return close_entries(base, prefix, order, closed)
        for name, fn in order:
            if relation == "=" and cancelled and name != "cancel":
                continue  # cancel reduced it to one fraction: neither factor nor expand finds another zero
            done, out = attempt(prefix + name, fn, base, CLOSER_NODES)
            if done:
                return prefix + name
            if name == "cancel" and out is not None:
                cancelled = True
        return None

    def close_entries(base: Any, prefix: str, order: list, closed: set | None) -> str | None:
        """The closers of a matrix equation, entry by entry: each entry not already zero gets the closers in
        ``order`` until one closes it (``cancel`` having run, the later ones are skipped, as in ``close``),
        and the first entry none closes ends the attempt; the name is that of the latest closer in ``order``
        any entry needed. The matrix is zero when every entry is, so this proves what running each closer
        over the whole matrix proves (and more: entries may close by different closers), without running
        the costlier closers on entries a cheaper one closed, or on the entries after one that stays open.
        With ``closed``, every entry is tried and the positions of those closed are added to it."""
        if size(base) > CLOSER_NODES:
            return None
        tried.extend(prefix + name for name, _ in order)
        worst, open_ = 0, False
        for pos, x in enumerate(base):
            if _closed(x, relation):
                if closed is not None:
                    closed.add(pos)
                continue
            cancelled, shut = False, None
            for k, (name, fn) in enumerate(order):
                if cancelled and name != "cancel":
                    continue
                ok, out = limits.run_limited(BACKSTOP, prefix + name, _safe, fn, x)
                if not ok:
                    timed_out.append(prefix + name)
                    continue
                if out is None:
                    continue
                if _closed(out, relation):
                    shut = k
                    break
                if name == "cancel":
                    cancelled = True
            if shut is None:
                if closed is None:
                    return None
                open_ = True
                continue
            if closed is not None:
                closed.add(pos)
            worst = max(worst, shut)
        return None if open_ else prefix + order[worst][0]

    def without_closed(base: Any, closed: set) -> Any:
        """A matrix difference with the entries the closers proved zero set to 0: the later strategies work
        on the entries still open only (the matrix is zero when each entry is; the ones set to 0 are proved)."""
        if not closed or not isinstance(base, sp.MatrixBase):
            return base
        flat = [sp.S.Zero if k in closed else x for k, x in enumerate(base)]
        out = sp.ImmutableMatrix(base.rows, base.cols, flat)
        measured.append((out, max(size(base), next((n for m, n in measured if m is base), 0))))
        return out

    # cheap closers on the level-1 form (no doit() needed)
    shut: set = set()
    closer = close(d, closed=shut)
    if closer:
        return Proof(True, f"normalise → {closer}")
    if deferred and _closed(d, relation):
        return Proof(True, "normalise")
    d = without_closed(d, shut)
    has_ops = allow_doit and any(isinstance(x, sp.Basic) and x.has(*_DOIT_TYPES) for x in pair)

    def level2() -> tuple[Any, tuple[str, ...]] | None:
        """Operators evaluated by doit() (the witness must then confirm): the new difference, or None."""
        if sum(size(n) for x in pair if isinstance(x, sp.Basic) for n in x.atoms(*_DOIT_TYPES)) > DOIT_NODES:
            return None
        ok, pair2 = limits.run_limited(2 * BACKSTOP, "normalise",
                                       lambda: (normalise(pair[0], used), normalise(pair[1], used)))
        if not ok:
            timed_out.append("doit")
            return None
        if not used:
            return None
        d2 = _difference(*pair2)
        return None if d2 is None else (d2, tuple(dict.fromkeys(used)))

    if has_ops and operators_first:
        got = level2()
        if got is not None:
            d, doit = got
            deferred = _asks(d, relation)
            if _form_zero(d) if deferred else _closed(d, relation):
                return Proof(True, "normalise (doit)", doit)
            # the cheap closers on the normal form again, now that doit() changed it
            shut = set()
            closer = close(d, closed=shut)
            if closer:
                return Proof(True, f"normalise → {closer}", doit)
            if deferred and _closed(d, relation):
                return Proof(True, "normalise (doit)", doit)
            d = without_closed(d, shut)
    def probed() -> bool:
        """The caller's quick probe, once, before the costlier strategies: did it find a counterexample?"""
        if probe is None or state.at_probe is not None:
            return False
        state.at_probe = Proof(False, "tried " + ", ".join(tried), doit, tuple(timed_out))
        state.probed = bool(probe())
        return state.probed

    # a rewriting pass with the closers after each (the probe before the searching rewritings)
    rewritten: list[tuple[str, Any]] = []
    nc = noncommutative(before, after, d)
    for name, fn in REWRITES:
        if nc and name not in NONCOMMUTATIVE_SAFE:
            continue
        if name in SEARCHING and probed():
            return state.at_probe
        done, out = attempt(name, fn, d, SEARCH_NODES if name in SEARCHING else REWRITE_NODES)
        if done:
            return Proof(True, f"normalise → {name}", doit)
        if out is None or out == d:
            continue
        rewritten.append((name, out))
        closer = close(out, f"{name} → ", rewritten=True)
        if closer:
            return Proof(True, f"normalise → {closer}", doit)
    if probed():
        return state.at_probe
    # the operators last, when the algebra alone did not close the step
    if has_ops and not operators_first:
        got = level2()
        if got is not None:
            d, doit = got
            if _closed(d, relation):
                return Proof(True, "normalise (doit)", doit)
            shut = set()
            closer = close(d, closed=shut)
            if closer:
                return Proof(True, f"normalise (doit) → {closer}", doit)
            d = without_closed(d, shut)
    if nc:  # simplify and the rewritings after it may treat non-commuting factors as numbers
        return Proof(False, "tried " + ", ".join(tried) + " (non-commuting factors: only order-keeping "
                     "strategies)", doit, tuple(timed_out))
    # simplify on the normal form, then after the rewritings that changed something (the smallest first)
    done, _ = attempt("simplify", sp.simplify, d, SIMPLIFY_NODES)
    if done:
        return Proof(True, "normalise → simplify", doit)
    small = sorted(((size(out), k) for k, (_, out) in enumerate(rewritten)))[:SIMPLIFY_AFTER]
    for _, k in sorted(small, key=lambda t: t[1]):
        name, out = rewritten[k]
        done, _ = attempt(f"{name} → simplify", sp.simplify, out, SIMPLIFY_AFTER_NODES)
        if done:
            return Proof(True, f"normalise → {name} → simplify", doit)
    text = "tried " + ", ".join(tried) if tried else "no strategy ran (every expression over its size cap)"
    return Proof(False, text, doit, tuple(timed_out))


def _difference(a: Any, b: Any) -> Any:
    try:
        d = b - a
    except (TypeError, ValueError):
        return None
    return sp.ImmutableMatrix(d) if isinstance(d, sp.MatrixBase) else d


def _safe(fn: Callable, d: Any) -> Any:
    """``fn`` on ``d`` (entrywise for a matrix); ``None`` when the strategy cannot handle the input.

    Remembered per (strategy, input): a strategy is a function of its input, and the same difference (an
    entry a step left unchanged, the form a rewriting leaves as it was, the claim after its steps) meets
    the same closer again. A run stopped by a time limit is not remembered (it depends on the machine)."""
    try:
        key = (fn, d)
        hit = _DONE.get(key, _MISSING)
    except TypeError:  # unhashable (a mutable matrix)
        key, hit = None, _MISSING
    if hit is not _MISSING:
        return hit
    try:
        out = _apply(fn, d)
    except limits.TimeLimit:
        raise
    except RecursionError:
        return None
    except Exception:  # noqa: BLE001 - a strategy that cannot handle its input simply fails
        out = None
    if key is not None:
        if len(_DONE) > 8192:
            _DONE.clear()
        _DONE[key] = out
    return out


#: strategies' outputs by (strategy, input) (see :func:`_safe`)
_DONE: dict = {}
_MISSING = object()
