"""Numeric cross-checks attached to a derivation: the base class, identities at points, free-form checks.

A cross-check is evidence beside the proof, run after the steps are decided:
an identity evaluated by the kernel's independent mpmath witness at random and
special points (:class:`IdentityCheck`), or a free-form numeric experiment
(:class:`FunctionCheck`). Statistical checks are in :mod:`derive.montecarlo`,
exact values against printed figures in :mod:`derive.printed`. Every random
draw is seeded; the seed is in every result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .report import HOLDS_AT, CheckResult
from .settings import current


class CrossCheck:
    """Base class of a numeric cross-check attached to a derivation.

    Subclasses implement :meth:`run`, which receives the seed to use and
    returns a :class:`~derive.report.CheckResult` whose ``figures`` report
    every number behind the outcome, the seed included.
    """

    #: what is checked, for reports (a dataclass field in each subclass)
    name: str

    def run(self, seed: int) -> CheckResult:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True)
class IdentityCheck(CrossCheck):
    """Evaluate ``lhs relation rhs`` at random and special points with the kernel's mpmath witness.

    The points come from the symbols' assumptions (:mod:`derive.kernel.points`);
    the check fails at a point where the two sides differ by more than
    ``atol + rtol·|value|`` and the gap is stable from 60 to 120 digits.
    ``atol``/``rtol`` default to the active :mod:`derive.settings`
    (``pytest --derive-atol/--derive-rtol``). A claim with no numeric value at
    any point (operators such as E[·]), or that runs out of time before its
    first point, is *not evaluated* (:class:`~derive.report.CheckState`): never
    counted as passed, and failing the derivation when ``required`` is true (the
    default for checks a derivation lists; the automatic claim check is not required).
    """

    lhs: Any
    rhs: Any
    name: str = "identity at random points"
    relation: str = "="
    n_points: int = 20
    atol: float | None = None
    rtol: float | None = None
    required: bool = True
    definitions: tuple = ()
    premises: tuple = ()

    def run(self, seed: int) -> CheckResult:
        from .kernel import hypotheses, limits, witness

        t0 = time.perf_counter()
        active = current()
        atol = active.atol if self.atol is None else self.atol
        rtol = active.rtol if self.rtol is None else self.rtol
        figures: dict[str, Any] = {"seed": seed, "atol": atol, "rtol": rtol}
        try:
            with limits.limit(max(4 * active.budget, 10.0), self.name):
                hyps = hypotheses.of(tuple(self.definitions), tuple(self.premises))
                w = witness.cross_check(self.lhs, self.rhs, self.relation, seed, n_random=self.n_points, hyps=hyps)
        except limits.TimeLimit:
            return CheckResult.not_evaluated(self.name, {**figures, "points": 0},
                                             "not evaluated: ran out of time before a point was evaluated",
                                             time.perf_counter() - t0, required=self.required)
        figures.update(points=w.evaluated, special=w.special, undecidable=w.unknown)
        if w.differ is not None and w.differ.relative_gap > max(atol, rtol):
            text = str(witness.counterexample(w.differ))
            if not hyps.empty:
                text += f" (a point satisfying {hyps.describe()})"
            return CheckResult(self.name, False, {**figures, "counterexample": text}, f"fails {text}",
                               time.perf_counter() - t0)
        if w.evaluated == 0:
            why = w.not_evaluable or "no point could be evaluated numerically"
            return CheckResult.not_evaluated(self.name, figures, f"not evaluated: {why}", time.perf_counter() - t0,
                                             required=self.required)
        return CheckResult(self.name, True, figures,
                           HOLDS_AT.format(n=w.evaluated, special=w.special), time.perf_counter() - t0)


@dataclass(frozen=True)
class FunctionCheck(CrossCheck):
    """A free-form check: ``func(seed) -> (passed, figures, message)``.

    For evidence that is not an identity or an average, e.g. that the naive
    softmax overflows in float64 while the shifted one does not.
    """

    name: str
    func: Callable[[int], tuple[bool, dict, str]]

    def run(self, seed: int) -> CheckResult:
        t0 = time.perf_counter()
        passed, figures, message = self.func(seed)
        return CheckResult(self.name, bool(passed), {**figures, "seed": seed}, message, time.perf_counter() - t0)
