"""Capture-avoiding substitution: a value never lands under a binder of one of its own symbols.

A sum, a product, a definite integral, a limit, a ``Lambda`` and a ``Subs``
bind a variable in their body; that variable is a different one from a free
symbol of the same name outside. Replacing ``c`` by ``k`` in ``Σ_{k=1}^{3} c``
must give ``Σ_{d=1}^{3} k = 3k``, not ``Σ_{k=1}^{3} k = 6``: the bound ``k`` is
renamed first (alpha-conversion, to a fresh ``Dummy`` with the same
assumptions, which changes no value), then the substitution is made.

Not binders here: a derivative's variable and an indefinite integral's
variable are free as well (the derivative is taken *at* ``x``; the
antiderivative is a function of ``x``), so a definition ``z := w·x`` under
``d/dx`` says how ``z`` varies with ``x`` (the chain-rule reading) and is
substituted there as it stands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import sympy as sp


def binds(node: Any) -> tuple:
    """The variables ``node`` binds in its body (empty for anything that is not a binder, see module doc)."""
    if isinstance(node, (sp.Sum, sp.Product)):
        return tuple(lim[0] for lim in node.limits)
    if isinstance(node, sp.Integral):
        return tuple(lim[0] for lim in node.limits if len(lim) > 1)
    if isinstance(node, sp.Limit):
        return (node.args[1],)
    if isinstance(node, (sp.Lambda, sp.Subs)):
        return tuple(node.variables)
    return ()


def bound_anywhere(e: Any) -> set:
    """The variables bound by some binder anywhere in ``e``."""
    out: set = set()
    if isinstance(e, sp.Basic):
        for node in sp.preorder_traversal(e):
            out.update(binds(node))
    return out


def _fresh(v: Any) -> Any:
    return sp.Dummy(v.name, **v.assumptions0)


def rename_bound(e: Any, avoid: set, touches: Callable[[Any], bool] | None = None) -> Any:
    """``e`` with each bound variable in ``avoid`` renamed to a fresh dummy, in its own scope only.

    Args:
        e: a sympy expression (anything else is returned as it is).
        avoid: symbols no binder may keep (the free symbols of what is about to be substituted).
        touches: if given, only a binder whose body ``touches`` is renamed (the body holds something that
            is about to be replaced); others are left as they are, so their printed form does not change.

    Returns:
        An alpha-equivalent expression (equal value everywhere).
    """
    if not avoid or not isinstance(e, sp.Basic) or not (bound_anywhere(e) & avoid):
        return e
    return _rename(e, frozenset(avoid), touches)


def _rename(e: Any, avoid: frozenset, touches: Callable[[Any], bool] | None) -> Any:
    if not e.args:
        return e
    args = [_rename(a, avoid, touches) if isinstance(a, sp.Basic) else a for a in e.args]
    if any(a is not b for a, b in zip(args, e.args, strict=True)):
        e = e.func(*args, evaluate=False) if isinstance(e, (sp.Add, sp.Mul, sp.Pow)) else e.func(*args)
    clash = [v for v in binds(e) if v in avoid]
    if not clash:
        return e
    if isinstance(e, (sp.Sum, sp.Product, sp.Integral)):
        if touches is not None and not touches(e.function):
            return e
        body, limits = e.function, [tuple(lim) for lim in e.limits]
        for k, lim in enumerate(limits):
            v = lim[0]
            if v not in avoid or len(lim) == 1:
                continue
            d = _fresh(v)
            body = body.xreplace({v: d})
            # the bounds of the limits inside this one (earlier in the list) are in its scope
            limits = [tuple(x.xreplace({v: d}) for x in inner) if m < k else inner
                      for m, inner in enumerate(limits)]
            limits[k] = (d, *lim[1:])
        return e.func(body, *limits)
    if isinstance(e, sp.Limit):
        if touches is not None and not touches(e.args[0]):
            return e
        v = e.args[1]
        d = _fresh(v)
        return sp.Limit(e.args[0].xreplace({v: d}), d, e.args[2], str(e.args[3]))
    body = e.expr
    if touches is not None and not touches(body):
        return e
    ren = {v: _fresh(v) for v in e.variables if v in avoid}
    if isinstance(e, sp.Subs):
        return sp.Subs(body.xreplace(ren), tuple(ren.get(v, v) for v in e.variables), e.point)
    return sp.Lambda(tuple(ren.get(v, v) for v in e.variables), body.xreplace(ren))


def free_of(values: Iterable[Any], pattern: Iterable[Any] = ()) -> set:
    """The free symbols of ``values``, less the pattern variables ``pattern`` (an indexed target's indices)."""
    out: set = set()
    for v in values:
        out |= getattr(v, "free_symbols", set())
    return out - set(pattern)


def substitute(e: Any, mapping: dict) -> Any:
    """``e`` with the free occurrences of each key replaced by its value, capture-avoiding (module doc).

    Keys are symbols or subexpressions (replaced structurally, as ``xreplace`` does); a binder of a key's
    own symbol keeps its bound occurrences (they are another variable). What is renamed is a bound symbol
    of a value that its key does not have: a key ``max(0, a·h_k)`` with the value ``a·max(0, h_k)`` is
    replaced under ``Σ_k`` as it stands (its ``k`` and the value's are the same bound one; that the equation
    holds for every ``k`` is the caller's side condition), while ``c ↦ k`` there renames the sum's ``k``.
    """
    if not mapping or not isinstance(e, sp.Basic):
        return e
    keys = tuple(mapping)
    if not e.has(*keys):  # nothing to replace: no binder is touched, nothing is renamed
        return e
    avoid = {k for k in keys if isinstance(k, sp.Symbol)}
    for key, value in mapping.items():
        avoid |= free_of([value]) - free_of([key])

    def touches(body: Any) -> bool:
        return any(body.has(k) for k in keys)

    return rename_bound(e, avoid, touches).xreplace(mapping)
