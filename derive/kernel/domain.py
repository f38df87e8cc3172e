"""The domain convention: where a proved step is claimed to hold.

A step ``a = b`` (or an inequality) is proved *where both sides are defined*:
sympy's algebra (``cancel``, ``simplify``) treats ``(x² − x)/(x − 1)`` and ``x``
as equal although the first has no value at ``x = 1``. The kernel accepts such
a step only when the set where exactly one side is undefined is negligible —
the numeric witness rejects a step whose sides differ in domain on a region
(one side undefined at a random point, the other not) — and then records the
excluded set beside the step: the factors of a denominator of one side that
are not a denominator of the other and that neither the symbols' assumptions
nor the premises keep away from zero. The set is computed from the two sides
alone, so it is the same whichever strategy closed the step.

The set is a report, not a hypothesis the later steps may use: the claim is
then searched as a whole (:func:`derive.kernel.decide.check_claim`) for a
point where both its sides have values and differ.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from .memo import remembered

#: expressions larger than this (in nodes) are not scanned (the set is a courtesy, not a proof)
_MAX_NODES = 400


def _denominators(e: Any) -> set:
    """Irreducible-looking factors of the denominators in ``e`` with no bound variable."""
    out: set = set()
    if not isinstance(e, sp.Basic) or isinstance(e, sp.MatrixBase):
        return out
    free = e.free_symbols
    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.Pow) and node.exp.is_negative and node.exp.is_number:
            for f in sp.Mul.make_args(node.base):
                if isinstance(f, sp.Pow) and f.exp.is_positive:
                    f = f.base
                if f.free_symbols and f.free_symbols <= free:
                    out.add(f)
    return out


def excluded(lhs: Any, rhs: Any, hyps: Any = None) -> tuple[str, ...]:
    """The conditions ``f ≠ 0`` off which the step ``lhs = rhs`` is claimed (see the module docstring)."""
    try:
        sides = [_side(x) for x in (lhs, rhs)]
    except (TypeError, ValueError, AttributeError, RecursionError):
        return ()
    if any(x is None for x in sides):
        return ()
    left, right = sides
    out = []
    for f in sorted(left ^ right, key=str):
        if f.is_zero is False or (-f) in (left & right) or _kept_away(f, hyps):
            continue
        out.append(_show(f))
    return tuple(dict.fromkeys(out))


def _side(e: Any) -> frozenset | None:
    """The denominators of one side, ``None`` if it is too large to scan; remembered per expression (a
    function of it alone: the right side of step k is the left side of step k + 1)."""
    try:
        return remembered(_SIDES, e, _scan, limit=2048)
    except TypeError:  # unhashable (a mutable matrix)
        return _scan(e)


def _scan(e: Any) -> frozenset | None:
    if isinstance(e, sp.Basic) and sp.count_ops(e, visual=False) > _MAX_NODES:
        return None
    return frozenset(_denominators(e))


#: :func:`_side` by expression
_SIDES: dict = {}


def _kept_away(f: Any, hyps: Any) -> bool:
    """Do the premises keep ``f`` away from zero (``f > 0`` or ``f < 0`` is a premise)?"""
    if hyps is None or hyps.empty:
        return False
    g = hyps.reduce(f)
    if g.is_zero is False:
        return True
    for h, kind, _ in hyps.checks:
        if kind in (">", "!=") and (sp.expand(h - g) == 0 or sp.expand(h + g) == 0):
            return True
    return False


def _show(f: Any) -> str:
    syms = f.free_symbols
    if len(syms) == 1:
        (s,) = syms
        if f.is_polynomial(s) and sp.degree(f, s) == 1:
            root = sp.solve(f, s)
            if len(root) == 1:
                return f"{s} ≠ {root[0]}"
    return f"{f} ≠ 0"
