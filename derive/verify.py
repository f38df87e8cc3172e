"""Verification of derivations: every step decided by the proof kernel.

This module is a surface, not the judge: it walks a derivation's chain,
hands each step to :func:`derive.kernel.decide.check_step` (the only code that
issues ``Verdict.PROVED``), and runs the derivation's numeric cross-checks.
What *proved* means — the kernel, its primitive rules, the two witnesses,
when the answer is *undecided* — is the page "What proved means" of the docs
and the docstring of :mod:`derive.kernel`.
"""

from __future__ import annotations

import time
from typing import Any

from .core import Derivation, Step
from .numeric import DEFAULT_SEED, IdentityCheck, derived_seed
from .report import CheckResult, Report, StepResult, Verdict
from .settings import DEFAULT_BUDGET, current, using

#: Per-step CPU budget in seconds (the default of the settings in
#: :mod:`derive.settings`; pass ``budget=`` or use ``settings.using``).
STEP_BUDGET = DEFAULT_BUDGET


def prove_relation(before: Any, after: Any, relation: str = "=", budget: float = STEP_BUDGET) -> tuple[bool, str]:
    """Try to prove ``before relation after`` with the kernel's symbolic strategies alone.

    A building block, not a verdict: it neither runs the numeric witness nor
    refutes (use :func:`verify_step` or :func:`verify` for that).

    Returns:
        ``(proved, strategy)``: whether the strategies closed it, and what
        closed it or what was tried.
    """
    from .kernel import limits, strategies

    try:
        with limits.limit(budget, "prove_relation"):
            p = strategies.prove(before, after, relation, budget)
    except limits.TimeLimit:
        return False, "time limit"
    return p.proved, p.strategy


def verify_step(before: Any, step: Step, *, index: int = 1, seed: int = DEFAULT_SEED,
                budget: float = STEP_BUDGET, derivation: Derivation | None = None,
                citations: tuple = ()) -> StepResult:
    """Check one step against the previous expression (see :func:`derive.kernel.decide.check_step`).

    Args:
        before: the previous expression.
        step: the step.
        index: its 1-based number, for the result.
        seed: seed of the numeric witness.
        budget: CPU seconds for the whole step.
        derivation: the derivation the step belongs to, whose definitions and
            premises the primitive rules may use.
        citations: the status of the derivations the steps cite (:func:`derive.citations.statuses`);
            a step that cites a derivation without a status here is not proved.
    """
    from .kernel.decide import check_step
    from .kernel.primitives import Context

    if derivation is None:
        return check_step(before, step, index=index, seed=seed, budget=budget, ctx=Context(citations=citations))
    models = tuple(dict.fromkeys((*derivation.models,
                                  *(m for s in derivation.steps if (m := getattr(s.rule, "model", None)) is not None))))
    ctx = Context(derivation.definitions, derivation.premises, models, citations)
    return check_step(before, step, index=index, seed=seed, budget=budget, ctx=ctx)


def _circular(result: StepResult, expr: Any, earlier: list) -> StepResult:
    """Flag a step that returns to an expression of the chain before the previous one (the chain goes in
    a circle, and a chain that ends at its start only restates its claim)."""
    import dataclasses

    if result.vacuous:
        return result
    try:
        back = next((k for k, e in enumerate(earlier) if e == expr), None)
    except Exception:  # noqa: BLE001 - a comparison that cannot be made flags nothing
        back = None
    if back is None:
        return result
    where = "the start" if back == 0 else f"the expression of step {back}"
    note = f"vacuous: the chain returns to {where}"
    return dataclasses.replace(result, vacuous=True, detail="; ".join(x for x in (result.detail, note) if x))


def verify(
    derivation: Derivation,
    *,
    seed: int | None = None,
    budget: float | None = None,
    numeric: bool = True,
    atol: float | None = None,
    rtol: float | None = None,
) -> Report:
    """Verify every step of ``derivation`` and run its numeric cross-checks.

    Args:
        derivation: the derivation to check.
        seed: base seed; each step and check derives its own seed from it and
            the derivation's name, and reports it.
        budget: per-step CPU budget in seconds for its symbolic work (the numeric checks get as much again).
        numeric: run the cross-checks (every step still gets its numeric
            witness and, when not proved, its counterexample search).
        atol, rtol: tolerances of the float64 screen of identity cross-checks.

    Arguments left as ``None`` take the active settings (:func:`derive.settings.current`;
    defaults: seed 20170612, budget 10 s, atol 1e-12, rtol 1e-9).

    Returns:
        A :class:`~derive.report.Report`; ``report.ok`` is true only if every
        step is proved and every cross-check passed.

    Raises:
        InputError: a setting out of range (negative seed, budget ≤ 0, ...).
    """
    if not isinstance(derivation, Derivation):
        from .exceptions import InputError

        raise InputError(f"expected a Derivation, got {type(derivation).__name__}")
    settings = current().merged(seed=seed, budget=budget, atol=atol, rtol=rtol)
    from .recursion import make_room

    make_room()  # deep expressions (nested fractions, continued fractions) need more frames than the default
    with using(settings):
        return _verify(derivation, settings.seed, settings.budget, numeric)


def _verify(derivation: Derivation, seed: int, budget: float, numeric: bool) -> Report:
    t0 = time.perf_counter()
    from . import citations as cite

    settings = (seed, budget, numeric, current().atol, current().rtol)
    statuses: tuple = ()
    if cite.cited(derivation):  # the cited derivations are verified (or served from the cache) first
        cite._STACK.append(derivation.name)
        try:
            statuses = cite.statuses(derivation, settings)
        finally:
            cite._STACK.pop()
    results: list[StepResult] = []
    before = derivation.start
    earlier = [derivation.start]
    for k, step in enumerate(derivation.steps, 1):
        step_seed = derived_seed(seed, derivation.name, f"step{k}")
        step_t0 = time.perf_counter()
        try:
            result = verify_step(before, step, index=k, seed=step_seed, budget=budget, derivation=derivation,
                                 citations=statuses)
        except Exception as exc:  # noqa: BLE001 - a step the verifier cannot handle is undecided, never a crash
            result = StepResult(k, Verdict.UNDECIDED, "verifier failed", time.perf_counter() - step_t0,
                                detail=f"{type(exc).__name__}: {exc}; not proved", seed=step_seed)
        results.append(_circular(result, step.expr, earlier[:-1]))
        earlier.append(step.expr)
        before = step.expr
    error = ""
    # the claim searched as a whole, at points that satisfy its premises and definitions
    if results and all(r.verdict is Verdict.PROVED for r in results):
        from .kernel.decide import check_claim
        from .kernel.primitives import Context

        error = check_claim(derivation.start, derivation.end, derivation.relation,
                            derived_seed(seed, derivation.name, "claim"), budget,
                            Context(derivation.definitions, derivation.premises),
                            chain=tuple((s.expr, s.relation) for s in derivation.steps))
    checks: list[CheckResult] = []
    if numeric:
        all_checks = list(derivation.checks)
        auto = derivation.auto_identity_check
        if auto:
            all_checks.insert(0, IdentityCheck(derivation.start, derivation.end, name="claim at random points",
                                               relation=derivation.relation, required=False,
                                               definitions=derivation.definitions, premises=derivation.premises))
        for k, check in enumerate(all_checks, 1):
            check_seed = derived_seed(seed, derivation.name, f"check{k}")
            try:
                checks.append(check.run(check_seed))
            except Exception as exc:  # noqa: BLE001 - a crashing check is a failed check
                checks.append(CheckResult(getattr(check, "name", "check"), False, {"seed": check_seed},
                                          f"check raised {type(exc).__name__}: {exc}"))
    report = Report(derivation.name, tuple(results), tuple(checks), time.perf_counter() - t0, error=error, seed=seed)
    cite.remember(derivation, report, settings)
    return report
