"""Rules: steps that apply a law rather than an algebraic identity.

A step that substitutes a definition, evaluates a limit, or uses linearity of
expectation is not an identity the algebraic strategies can close on their
own. Such a step names a :class:`Rule`; the verifier *applies the rule* to the
previous expression and then proves that the result equals the step's
claimed expression. The words of the justification are never trusted.

Rules defined elsewhere: :mod:`derive.expectation` (linearity, independence,
known moments).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class Rule:
    """Base class: a mechanical transformation of an expression.

    Subclasses are frozen dataclasses and implement :meth:`apply` and
    :meth:`describe`. ``apply`` must preserve value (or the relation stated
    by the step) under the derivation's assumptions: the rule itself is the
    trusted part, so each rule is small and tested on its own.
    """

    #: short machine name of the rule, shown in reports (``"substitute"``).
    name: str = "rule"

    #: the step relations the rule justifies: ``None`` for a value-preserving
    #: rule (any relation); e.g. ``(">=",)`` for a rule whose output is never
    #: larger than its input (dropping non-negative terms). The verifier
    #: refuses the rule in a step with another relation.
    relations: tuple[str, ...] | None = None

    def apply(self, expr: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> str:
        """One line for reports, e.g. ``"substitute softmax(z)_i := ..."``."""
        return self.name


@dataclass(frozen=True)
class Substitute(Rule):
    """Replace symbols or function heads by their definitions.

    Args:
        pairs: ``((old, new), ...)``. ``old`` may be a symbol, an expression,
            or an undefined function head with ``new`` a ``sympy.Lambda``
            (substituting a function's definition).
        label: what is substituted, for reports (e.g. ``"definition of softmax"``).
    """

    pairs: tuple[tuple[Any, Any], ...]
    label: str = ""
    name: str = "substitute"

    def apply(self, expr: Any) -> Any:
        from sympy.core.function import FunctionClass

        heads = [(o, n) for o, n in self.pairs if isinstance(o, FunctionClass)]
        plain = {o: n for o, n in self.pairs if not isinstance(o, FunctionClass)}
        # xreplace reaches inside sums and integrals (subs leaves bound variables alone)
        out = expr.xreplace(plain) if plain else expr
        return out.subs(heads) if heads else out

    def describe(self) -> str:
        return f"substitute {self.label}" if self.label else "substitute"


@dataclass(frozen=True)
class Evaluate(Rule):
    """Evaluate unevaluated objects: limits, derivatives, finite sums, integrals.

    Applies ``expr.doit()`` (deep), which is how sympy computes a ``Limit``,
    a ``Derivative``, a ``Sum`` with numeric bounds or an ``Integral``.
    """

    label: str = ""
    name: str = "evaluate"

    def apply(self, expr: Any) -> Any:
        return expr.doit()

    def describe(self) -> str:
        return f"evaluate {self.label}" if self.label else "evaluate"


@dataclass(frozen=True)
class Transform(Rule):
    """Apply a named sympy function, e.g. ``sympy.expand_trig``.

    Useful when the step is exactly one textbook manipulation (the
    angle-addition formulas, expanding a power); the verifier still proves
    the result equal to the claimed expression.

    Args:
        func: a callable ``Expr -> Expr`` (a sympy function).
        label: what the manipulation is called, for reports.
    """

    func: Any
    label: str = ""
    name: str = "transform"

    def apply(self, expr: Any) -> Any:
        return self.func(expr)

    def describe(self) -> str:
        return self.label or getattr(self.func, "__name__", "transform")
