"""Rules about finite sums of symbolic length.

Each rule is one textbook manipulation of ``sympy.Sum`` that the algebraic
strategies cannot close on their own when the number of terms is a symbol:

* :class:`SplitSumAt`      Σ_{j=a}^{b} f(j) = Σ_{j=a}^{m−1} f(j) + f(m) + Σ_{j=m+1}^{b} f(j)  (a ≤ m ≤ b)
* :class:`DropNonnegative` S + Σ_j f(j) ≥ S when every f(j) ≥ 0  (for a "≥" step)
* :class:`SiftDelta`       Σ_l f(l)·δ_jl = f(j)  (a ≤ j ≤ b)

The premises (the index inside the range) are stated by the derivation; the
rules check everything sympy can decide (e.g. that dropped terms are
non-negative) and refuse otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .rules import Rule


@dataclass(frozen=True)
class SplitSumAt(Rule):
    """Σ_{j=a}^{b} f(j) → Σ_{j=a}^{m−1} f(j) + f(m) + Σ_{j=m+1}^{b} f(j).

    Valid for an index ``a ≤ m ≤ b`` (the derivation's premise); with Karr's
    convention an empty range sums to 0, so m = a or m = b need no special case.

    Args:
        at: the index m to single out.
    """

    at: Any
    name: str = "split a sum at an index"

    def apply(self, expr: Any) -> Any:
        import sympy as sp

        def split(s: Any) -> Any:
            (j, lo, hi), = s.limits
            f = s.function
            return sp.Sum(f, (j, lo, self.at - 1)) + f.xreplace({j: self.at}) + sp.Sum(f, (j, self.at + 1, hi))

        return expr.replace(lambda x: isinstance(x, sp.Sum) and len(x.limits) == 1, split)

    def describe(self) -> str:
        return f"split the sum at j = {self.at}"


@dataclass(frozen=True)
class DropNonnegative(Rule):
    """Drop the sums of non-negative terms from a sum of terms: the result is ≤ the input.

    For a step with relation ``">="``: the verifier then proves the remaining
    terms equal the claimed expression. Only ``Sum`` terms whose summand sympy
    proves non-negative are dropped (an empty sum is 0, also fine).
    """

    name: str = "drop non-negative sums"
    relations = (">=",)  # the output is never larger than the input

    def apply(self, expr: Any) -> Any:
        import sympy as sp

        terms = sp.Add.make_args(expr)
        keep = [t for t in terms if not (isinstance(t, sp.Sum) and t.function.is_nonnegative is True)]
        if len(keep) == len(terms):
            raise ValueError("no sum of provably non-negative terms to drop")
        return sp.Add(*keep)

    def describe(self) -> str:
        return "drop sums of non-negative terms (≥)"


@dataclass(frozen=True)
class SiftDelta(Rule):
    """Σ_l f(l)·δ_jl → f(j): the sifting property of the Kronecker delta.

    Valid when ``index`` lies inside the summation range, which the step's
    premise states (1 ≤ j ≤ n).

    Args:
        index: the index j known to be inside every summation range.
    """

    index: Any
    name: str = "sift a Kronecker delta"

    def apply(self, expr: Any) -> Any:
        import sympy as sp

        def sift(s: Any) -> Any:
            (var, _, _), = s.limits
            body = sp.expand(s.function)
            terms = body.args if isinstance(body, sp.Add) else (body,)
            out = 0
            for t in terms:
                deltas = [d for d in t.atoms(sp.KroneckerDelta) if set(d.args) == {var, self.index}]
                if len(deltas) != 1:
                    return s
                out += (t / deltas[0]).xreplace({var: self.index})
            return out

        return expr.replace(lambda x: isinstance(x, sp.Sum) and len(x.limits) == 1, sift)

    def describe(self) -> str:
        return f"Σ_l f(l) δ_{self.index}l = f({self.index})"
