"""Reindexing a finite sum by a permutation of its range, as a primitive rule.

Soundness: if π is a bijection of the integers {lo, …, hi} onto themselves,
then as j runs over the range so does π(j), once each, and a finite sum does
not depend on the order of its terms: :math:`\\sum_{j=lo}^{hi} f(\\pi(j)) = \\sum_{j=lo}^{hi} f(j)`.

A permutation is declared with :func:`permutation`, which names an undefined
function and the range it permutes; the declaration is a hypothesis of the
derivation (say so in its assumptions), like a premise. Side conditions checked
by the kernel: the function was declared a permutation of exactly the sum's
range, and the summand depends on the index only through π(index).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from .rule import Rule

#: declared permutations: the undefined function (its class) -> (lo, hi), the range it permutes
_DECLARED: dict[Any, tuple[Any, Any]] = {}


def permutation(name: str, lo: Any, hi: Any) -> Any:
    """Declare ``name`` (an undefined sympy function) a permutation of the integers lo..hi.

    Args:
        name: the function's name, e.g. ``"pi"``.
        lo, hi: the range it permutes (integers or integer symbols), e.g. ``1, n``.

    Returns:
        The undefined function; ``pi(j)`` is the position token j moves to.

    Raises:
        ValueError: the name is already declared over another range.
    """
    f = sp.Function(name)
    bounds = (sp.sympify(lo, strict=True), sp.sympify(hi, strict=True))
    if _DECLARED.get(f, bounds) != bounds:
        raise ValueError(f"{name} is already declared a permutation of {_DECLARED[f][0]}..{_DECLARED[f][1]}")
    _DECLARED[f] = bounds
    return f


def _reindexed(s: Any, fn: Any, index: Any) -> Any | None:
    """The sum with π(index) replaced by index, or ``None`` if the rule does not apply to it."""
    if not (isinstance(s, sp.Sum) and len(s.limits) == 1):
        return None
    j, lo, hi = s.limits[0]
    if j != index or _DECLARED.get(fn) != (lo, hi):
        return None
    marker = sp.Dummy("pi_j")
    body = s.function.xreplace({fn(j): marker})
    if j in body.free_symbols or marker not in body.free_symbols:
        return None
    return sp.Sum(body.xreplace({marker: j}), (j, lo, hi))


@dataclass(frozen=True)
class Reindex(Rule):
    """Σ_j f(π(j)) → Σ_j f(j) over the sums of ``index`` (see the module docstring).

    Args:
        perm: the undefined function declared by :func:`permutation`.
        index: the summation index whose sums are reindexed.
    """

    perm: Any
    index: Any
    name: str = "reindex a sum by a permutation"

    def apply(self, expr: Any) -> Any:
        def one(e: Any) -> Any:
            return e.replace(lambda x: _reindexed(x, self.perm, self.index) is not None,
                             lambda x: _reindexed(x, self.perm, self.index))

        return expr.applyfunc(one) if isinstance(expr, sp.MatrixBase) else one(expr)

    def describe(self) -> str:
        return f"reindex the sums over {self.index} by the permutation {self.perm}"

    def check(self, expr: Any, ctx: Any, prove_equal: Any) -> str | None:
        if self.perm not in _DECLARED:
            return f"{self.perm} is not declared a permutation"
        items = list(expr) if isinstance(expr, sp.MatrixBase) else [expr]
        if not any(_reindexed(n, self.perm, self.index) is not None for e in items for n in sp.preorder_traversal(e)):
            lo, hi = _DECLARED[self.perm]
            return (f"no sum over {self.index} from {lo} to {hi} whose terms depend on {self.index} only through "
                    f"{self.perm}({self.index})")
        return None
