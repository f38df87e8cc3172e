"""Assertion helpers for your own test suite: a derivation is a test.

Use them with pytest (the ``derive`` plugin registers this module for
assertion rewriting and gives the ``derive_check`` fixture) or with any
runner that treats :class:`AssertionError` as a failure::

    from derive.testing import assert_proved, assert_refuted

    def test_my_notes():
        assert_proved(my_module.attention_scaling)      # every step proved, cross-checks pass

    def test_the_tempting_mistake_is_caught():
        assert_refuted(my_module.wrong_scaling)         # some step has a confirmed counterexample

A failure names the derivation, the failing step's number and justification,
both sides, the strategies tried, the counterexample (a point and both
values, confirmed at 60 digits) and the seeds, and hides this module's frames
(``__tracebackhide__``) so the report points at your test.

Arguments left as ``None`` take the active :mod:`derive.settings` (under
pytest: ``--derive-seed``, ``--derive-atol``, ``--derive-rtol``,
``--derive-budget``, or the ``derive_check`` marker's keywords).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .exceptions import InputError

if TYPE_CHECKING:  # pragma: no cover
    from .core import Derivation
    from .report import Report


class DerivationAssertionError(AssertionError):
    """A derivation did not come out as the test expected.

    Attributes:
        report: the :class:`~derive.report.Report` behind the failure.
    """

    def __init__(self, message: str, report: Report | None = None) -> None:
        super().__init__(message)
        self.report = report


def _resolve(derivation: Derivation | str) -> Derivation:
    from . import registry
    from .core import Derivation

    if isinstance(derivation, Derivation):
        return derivation
    if isinstance(derivation, str):
        registry.load_catalog()
        return registry.get(derivation)
    raise InputError(f"expected a Derivation or a registered name, got {type(derivation).__name__}")


def _run(derivation: Derivation | str, numeric: bool, settings: dict[str, Any]) -> tuple[Derivation, Report]:
    from .verify import verify

    d = _resolve(derivation)
    return d, verify(d, numeric=numeric, **settings)


def failure_message(derivation: Derivation, report: Report) -> str:
    """The readable account of why ``report`` is not a pass.

    Lines: the derivation and its verdict; for the first step not proved its
    number, justification, both sides, strategies tried and counterexample;
    every failed cross-check with its figures' seed; the run's seed.
    """
    from .render.text import failed_checks_text, failure_text

    first = report.first_failure
    head = f"{derivation.name}: {report.verdict}"
    if first is not None:
        head += f" at step {first.index} of {len(derivation.steps)}"
    elif report.symbolic_ok:
        failed = any(c.evaluated and not c.ok for c in report.checks)
        head += (" symbolically, but a numeric cross-check failed" if failed
                 else " symbolically, but a required numeric cross-check was not evaluated")
    lines = [head]
    if not report.symbolic_ok:
        lines.append(failure_text(derivation, report))
        if first is not None and first.seed is not None:
            lines.append(f"    step seed: {first.seed}")
    checks = failed_checks_text(report)
    if checks:
        lines.append(checks)
    lines.append(f"  (base seed {report.seed}; rerun with the same seed to reproduce)")
    return "\n".join(lines)


def assert_proved(
    derivation: Derivation | str,
    *,
    numeric: bool = True,
    seed: int | None = None,
    atol: float | None = None,
    rtol: float | None = None,
    budget: float | None = None,
) -> Report:
    """Fail unless every step is proved and every numeric cross-check passes.

    Args:
        derivation: a :class:`~derive.core.Derivation`, or the name of a
            registered one (the catalog is loaded for names).
        numeric: also run the numeric cross-checks.
        seed, atol, rtol, budget: override the active settings.

    Returns:
        The report, for further assertions.

    Raises:
        DerivationAssertionError: a step is refuted or undecided, or a
            cross-check failed; the message says which and why.
        UnknownDerivationError: ``derivation`` is a name that is not registered.
    """
    __tracebackhide__ = True
    d, report = _run(derivation, numeric, {"seed": seed, "atol": atol, "rtol": rtol, "budget": budget})
    if not report.ok:
        raise DerivationAssertionError("derivation not proved: " + failure_message(d, report), report)
    return report


def assert_refuted(
    derivation: Derivation | str,
    *,
    step: int | None = None,
    seed: int | None = None,
    budget: float | None = None,
) -> Report:
    """Fail unless some step (or step number ``step``) is refuted by a confirmed counterexample.

    For tests that a tempting mistake is caught. Undecided is not enough: a
    refutation carries a point where the two sides differ at 60 digits.

    Returns:
        The report (the counterexample is ``report.steps[k].counterexample``).

    Raises:
        DerivationAssertionError: no step (or not step ``step``) is refuted.
    """
    __tracebackhide__ = True
    from .report import Verdict

    d, report = _run(derivation, False, {"seed": seed, "budget": budget})
    refuted = [s.index for s in report.steps if s.verdict is Verdict.REFUTED]
    if step is not None and not (1 <= step <= len(d.steps)):
        raise InputError(f"{d.name} has {len(d.steps)} step(s); there is no step {step}")
    if (step is None and refuted) or step in refuted:
        return report
    verdicts = ", ".join(f"step {s.index} {s.verdict}" for s in report.steps)
    where = f"step {step}" if step is not None else "any step"
    raise DerivationAssertionError(f"expected {d.name} to be refuted at {where}, but: {verdicts} "
                                   f"(base seed {report.seed})", report)


def assert_undecided(
    derivation: Derivation | str,
    *,
    seed: int | None = None,
    budget: float | None = None,
) -> Report:
    """Fail unless the derivation is undecided: not proved, and no counterexample found.

    For true claims beyond the symbolic strategies: they must never pass.
    """
    __tracebackhide__ = True
    from .report import Verdict

    d, report = _run(derivation, False, {"seed": seed, "budget": budget})
    if report.verdict is not Verdict.UNDECIDED:
        raise DerivationAssertionError(f"expected {d.name} to be undecided, but it is {report.verdict}"
                                       + ("" if report.symbolic_ok else "\n" + failure_message(d, report)), report)
    return report
