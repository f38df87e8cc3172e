"""The limit laws as a primitive rule: a limit passes through +, ×, ÷, constant powers and finite sums.

Soundness (the algebraic limit theorem). If lim a = A and lim b = B exist and
are finite, then lim (a + b) = A + B, lim a·b = A·B, lim a/b = A/B when B ≠ 0,
lim a^k = A^k for a constant integer k (A ≠ 0 when k < 0) and for any constant
exponent when A > 0 (continuity of t ↦ t^c there). A sum :math:`\\sum_{j=lo}^{hi} f_j`
whose bounds do not depend on the limit variable has a fixed, finite number of
terms for every value of its bounds, so induction on the sum law gives
lim Σ_j f_j = Σ_j lim f_j; a sum of symbolic length n is covered for every n.

The rule pushes each ``Limit`` down to *atoms* (the sub-expressions that are no
sum, product, constant power or finite sum) and leaves ``Limit(atom)`` there.
Its side conditions, checked by the kernel on this very expression:

* every atom's limit is found (sympy's ``limit`` proposes a value) and is
  finite, and mpmath's independent evaluation of the limit (two samplings close
  to the limit point, at random values of the other symbols) agrees with it;
* every denominator (a base with a negative exponent), with its atoms replaced
  by their limits, is proved non-zero; a non-integer exponent's base, positive;
* a sum's bounds are integers, free of the limit variable, and finite.

A limit that fails one of them is left in place (the rule does not reach into
it); if no limit could be pushed, the rule is outside its conditions.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import sympy as sp

from . import limits, witness
from .rule import Rule

#: Largest operation count (``sp.count_ops``) of an atom whose limit sympy is asked for (larger: not pushed).
#: A size, not a time, decides it, so the rule applies alike on every machine; the time limit on sympy's
#: limit is :data:`~derive.kernel.limits.BACKSTOP`, against a hang only.
ATOM_OPS = 40


def _finite_bounds(j: Any, lo: Any, hi: Any, x: Any) -> bool:
    return (j != x and not lo.has(x) and not hi.has(x) and lo.is_integer is True and hi.is_integer is True
            and not (lo.has(sp.oo, -sp.oo, sp.zoo) or hi.has(sp.oo, -sp.oo, sp.zoo)))


def _decompose(f: Any, x: Any, x0: Any, d: Any, found: list) -> tuple[Any, Any] | None:
    """``(f with the limit pushed to atoms, lim f)``, or ``None`` if no limit of ``f`` is established.

    A node whose parts cannot all be pushed (a part without a finite limit, a denominator whose limit
    is not proved non-zero) is tried as an atom itself. ``found`` collects the first reason a part failed.
    """
    if not f.has(x):
        return f, f
    parts = None
    if isinstance(f, (sp.Add, sp.Mul)):
        parts = [_decompose(a, x, x0, d, found) for a in f.args]
        if all(p is not None for p in parts):
            op = sp.Add if isinstance(f, sp.Add) else sp.Mul
            return op(*[p[0] for p in parts]), op(*[p[1] for p in parts])
    elif isinstance(f, sp.Pow) and not f.exp.has(x):
        base = _decompose(f.base, x, x0, d, found)
        if base is not None:
            if f.exp.is_integer is not True:
                ok = _positive(base[1])
                why = f"the base {f.base} of a non-integer power is not proved to have a positive limit"
            elif f.exp.is_nonnegative is not True:
                ok = _nonzero(base[1])
                why = f"the denominator {f.base} is not proved to have a non-zero limit"
            else:
                ok, why = True, ""
            if ok:
                return sp.Pow(base[0], f.exp), sp.Pow(base[1], f.exp)
            found.append(why)
    elif isinstance(f, sp.Sum) and len(f.limits) == 1 and _finite_bounds(*f.limits[0], x):
        j, lo, hi = f.limits[0]
        inner = _decompose(f.function, x, x0, d, found)
        if inner is not None:
            return sp.Sum(inner[0], (j, lo, hi)), sp.Sum(inner[1], (j, lo, hi))
    value, why = _atom_limit(f, x, x0, d)
    if value is None:
        found.append(why)
        return None
    return sp.Limit(f, x, x0, d), value


def _seed(e: Any) -> int:
    return zlib.crc32(sp.srepr(e).encode()) & 0x7FFFFFFF


#: atoms' limits already established or refused, by (atom, variable, point, direction)
_ATOMS: dict[tuple, tuple[Any, str]] = {}


def _atom_limit(atom: Any, x: Any, x0: Any, d: Any) -> tuple[Any, str]:
    """(the atom's limit, "") when found finite and confirmed by mpmath, else (None, why); remembered.

    The atom is checked with its symbols renamed to canonical ones (:func:`_canonical`), so exp(z[i]/T) and
    exp(z[j]/T) are one check, and its random points depend on the atom's shape only."""
    (atom_c, x_c, x0_c), back = _canonical(sp.Tuple(atom, x, x0))
    key = (atom_c, x_c, x0_c, d)
    if key not in _ATOMS:
        if len(_ATOMS) > 4096:
            _ATOMS.clear()
        found = _find_atom_limit(atom_c, x_c, x0_c, d)
        if found[1].endswith(" in time"):  # a time-out depends on the machine: not remembered
            return _renamed(found, back)
        _ATOMS[key] = found
    return _renamed(_ATOMS[key], back)


#: the names of the canonical symbols of :func:`_canonical` (an expression that already uses one is not renamed)
_CANONICAL_NAME = "_limit_law_"


def _canonical(e: Any) -> tuple[Any, dict]:
    """``e`` with its symbols (not the labels of indexed families) renamed, in the order they first appear,
    to canonical symbols with the same assumptions; and the renaming back (canonical → original name)."""
    labels = {b.label for b in e.atoms(sp.IndexedBase)}
    seen: list = []
    for n in sp.preorder_traversal(e):
        if isinstance(n, sp.Symbol) and not isinstance(n, sp.Wild) and n not in labels and n not in seen:
            seen.append(n)
    if any(s.name.startswith(_CANONICAL_NAME) for s in seen):
        return e, {}
    to = {s: sp.Symbol(f"{_CANONICAL_NAME}{k}", **s.assumptions0) for k, s in enumerate(seen)}
    return e.xreplace(to), {c: s for s, c in to.items()}


def _renamed(found: tuple[Any, str], back: dict) -> tuple[Any, str]:
    """An atom's outcome for the canonical atom, in the original symbols."""
    if not back:
        return found
    value, why = found
    if value is not None:
        value = value.xreplace(back)
    for c in sorted(back, key=lambda c: -len(c.name)):  # _limit_law_10 before _limit_law_1
        why = why.replace(c.name, str(back[c]))
    return value, why


def _find_atom_limit(atom: Any, x: Any, x0: Any, d: Any) -> tuple[Any, str]:
    if sp.count_ops(atom) > ATOM_OPS:
        return None, f"{atom} is too large for sympy's limit (over {ATOM_OPS} operations)"
    try:
        ok, value = limits.run_limited(limits.BACKSTOP, "sympy's limit of an atom", sp.limit, atom, x, x0, str(d))
    except (NotImplementedError, ValueError, TypeError, ArithmeticError, RecursionError) as exc:
        return None, f"sympy found no limit of {atom} ({type(exc).__name__})"
    if not ok:
        return None, f"sympy found no limit of {atom} in time"
    value = sp.sympify(value, strict=True)
    if value.has(sp.oo, -sp.oo, sp.zoo, sp.nan, sp.Limit, sp.AccumBounds) or value.is_finite is not True:
        return None, f"the limit of {atom} is not proved finite for every value of its symbols ({value})"
    why = _special_values_disagree(atom, x, x0, d, value)
    if why:
        return None, why
    # sympy's limit assumes generic values of the other symbols: check it at special and breakpoint values too
    # (a limit counts at a point only where mpmath's numeric limit and sympy's limit at that exact point agree)
    w = witness.run(sp.Limit(atom, x, x0, d), value, "=", _seed(atom), digits=witness.CONFIRM_DIGITS, n_random=3,
                    n_special=24, n_breaks=8, work=60_000, lopsided=True, limits_allowed=False)
    if w.differ is not None or w.agreed == 0:
        return None, f"mpmath does not confirm lim {atom} = {value} ({w.summary()})"
    return value, ""


def _allowed(s: Any, v: int) -> bool:
    """May the symbol or indexed element ``s`` take the value ``v`` (by its assumptions)?"""
    base = s.base.label if isinstance(s, sp.Indexed) else s
    if v == 0 and (base.is_positive or base.is_negative or base.is_nonzero):
        return False
    if v < 0 and base.is_nonnegative:
        return False
    return not (v > 0 and base.is_nonpositive)


def _special_values_disagree(atom: Any, x: Any, x0: Any, d: Any, value: Any) -> str:
    """A reason if sympy's limit with one symbol set to 0 or ±1 differs from the generic limit there.

    sympy's limit holds for generic values of the other symbols (lim_{x→0} 1/(x + y) = 1/y fails at
    y = 0, where there is no limit); the limit of the substituted atom, a separate computation, must
    give the generic value at that point wherever that value is defined.
    """
    indexed = atom.atoms(sp.Indexed)
    inside = {i.base.label for i in indexed} | {s for i in indexed for k in i.indices for s in k.free_symbols}
    others = [a for a in atom.free_symbols if a != x and a not in inside] + sorted(indexed, key=str)
    for s in others:
        for v in (0, 1, -1):
            if not _allowed(s, v):
                continue
            expected = value.xreplace({s: sp.Integer(v)})
            if expected.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or expected.is_finite is False:
                continue
            try:
                ok, got = limits.run_limited(limits.BACKSTOP, "sympy's limit at a special value", sp.limit,
                                             atom.xreplace({s: sp.Integer(v)}), x, x0, str(d))
            except (NotImplementedError, ValueError, TypeError, ArithmeticError, RecursionError):
                return f"sympy has no limit of {atom} at {s} = {v}"
            if not ok:
                return f"sympy found no limit of {atom} at {s} = {v} in time"
            got = sp.sympify(got, strict=True)
            if got.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.AccumBounds, sp.Limit):
                return f"the limit of {atom} does not exist at {s} = {v} (generic value {value})"
            if sp.simplify(got - expected) != 0:
                return f"the limit of {atom} at {s} = {v} is {got}, not the generic {expected}"
    return ""


def _nonzero(e: Any) -> bool:
    e = sp.sympify(e, strict=True)
    for form in (e, e.doit()):
        if form.is_positive is True or form.is_negative is True:
            return True
    return False


def _positive(e: Any) -> bool:
    e = sp.sympify(e, strict=True)
    return any(form.is_positive is True for form in (e, e.doit()))


#: side-condition outcomes already found, by Limit node (deterministic: the same node, the same outcome)
_PUSHABLE: dict[Any, tuple[Any, str]] = {}


def _limits_in(expr: Any) -> list:
    return [n for n in sp.preorder_traversal(expr) if isinstance(n, sp.Limit)]


@dataclass(frozen=True)
class LimitLaws(Rule):
    """lim (a ∘ b) → lim a ∘ lim b for + × ÷, constant powers and sums of fixed length (see the module).

    Every ``Limit`` of the expression whose side conditions hold is pushed down to
    its atoms; the next step usually evaluates the atoms' limits (``Evaluate``).
    """

    name: str = "limit laws"

    def _pushable(self, lim: Any) -> tuple[Any, str]:
        if lim not in _PUSHABLE:
            if len(_PUSHABLE) > 4096:
                _PUSHABLE.clear()
            _PUSHABLE[lim] = self._conditions(lim)
        return _PUSHABLE[lim]

    def _conditions(self, lim: Any) -> tuple[Any, str]:
        """(the pushed form of ``lim``, "") when its side conditions hold, else (None, why)."""
        f, x, x0, d = lim.args
        if any(isinstance(n, sp.Limit) for n in sp.preorder_traversal(f)):
            return None, "a limit inside a limit"
        found: list = []
        out = _decompose(f, x, x0, d, found)
        if out is None:
            return None, found[0] if found else "no limit established"
        if out[0] == lim:
            return None, (found[0] if found else f"{f} is a single atom: nothing to push")
        return out[0], ""

    def _matrix(self, expr: Any, fn: Any) -> Any:
        return expr.applyfunc(fn) if isinstance(expr, sp.MatrixBase) else fn(expr)

    def apply(self, expr: Any) -> Any:
        def one(e: Any) -> Any:
            return e.replace(lambda n: isinstance(n, sp.Limit) and self._pushable(n)[0] is not None,
                             lambda n: self._pushable(n)[0])

        return self._matrix(expr, one)

    def describe(self) -> str:
        return "limit laws: the limit of a sum, product, quotient or finite sum is built from the limits"

    def check(self, expr: Any, ctx: Any, prove_equal: Any) -> str | None:
        found = [n for e in (list(expr) if isinstance(expr, sp.MatrixBase) else [expr]) for n in _limits_in(e)]
        if not found:
            return "the expression has no limit"
        outcomes = [self._pushable(n) for n in found]
        if all(pushed is None for pushed, _ in outcomes):
            return outcomes[0][1]
        return None
