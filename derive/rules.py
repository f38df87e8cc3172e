"""Rules: steps that apply a law rather than an algebraic identity.

A step that substitutes a definition, evaluates a limit, or rewrites with a
named sympy function names a :class:`Rule`. Rules are *proposers*: the kernel
(:mod:`derive.kernel`) applies the rule to the previous expression and must
still prove the step; only the short list of primitive rules in
:mod:`derive.kernel.primitives` (``Substitute`` of a declared equation, the
sum and expectation laws) is accepted once its side conditions are checked.
The words of a justification are never trusted.

Rules defined elsewhere: ``derive.sums``, :mod:`derive.expectation`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .kernel.rule import Rule

__all__ = ["Rule", "Substitute", "Evaluate", "Transform"]  # noqa: F822 - Substitute is lazy (see __getattr__)


def __getattr__(name: str) -> Any:
    # Substitute is a primitive rule: its home is the kernel (imported lazily: it needs sympy)
    if name == "Substitute":
        from .kernel.primitives import Substitute

        return Substitute
    raise AttributeError(f"module 'derive.rules' has no attribute {name!r}")


@dataclass(frozen=True)
class Evaluate(Rule):
    """Evaluate unevaluated objects: limits, derivatives, finite sums, integrals (a proposal).

    Proposes ``expr.doit()``. The kernel does not take sympy's closed form on
    trust: it proves the step with its own normalisation and, where that relies
    on ``doit()`` of an integral, a limit or a symbolic sum, demands that the
    independent mpmath evaluation of the unevaluated operator agrees.
    """

    label: str = ""
    name: str = "evaluate"

    def apply(self, expr: Any) -> Any:
        return expr.doit()

    def describe(self) -> str:
        return f"evaluate {self.label}" if self.label else "evaluate"


@dataclass(frozen=True)
class Transform(Rule):
    """Apply a named function, e.g. ``sympy.expand_trig`` (a proposal).

    Useful when the step is exactly one textbook manipulation (the
    angle-addition formulas, expanding a power). The kernel proves the
    function's output equal to its input before using it, so a transform that
    changes the value (``expand_log(force=True)`` on complex symbols, rounding
    with ``sp.N``) is never trusted.

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
