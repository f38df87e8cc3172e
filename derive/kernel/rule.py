"""The interface every rule implements (no sympy at import time).

A rule maps the previous expression of a step to a proposed next one. Only the
primitive rules of :mod:`derive.kernel.primitives`, recognised by exact class,
are trusted; every other rule is a proposer whose output the kernel re-proves.
"""

from __future__ import annotations

from typing import Any


class Rule:
    """Base class: a mechanical transformation of an expression.

    Subclasses are frozen dataclasses and implement :meth:`apply` and
    :meth:`describe`. A rule outside :data:`derive.kernel.primitives.PRIMITIVES`
    is untrusted: the kernel proves that its output equals its input (or, failing
    that, proves the step without it), so a buggy rule can make a step undecided
    but never proved.
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
