"""Verify derivations during a Sphinx build; refuse to publish a failing one.

Each derivation is verified once per process and seed (a build that shows it
on two pages verifies it once). A derivation whose report is not ``ok`` (a
step refuted or undecided, or a numeric cross-check failed) raises
:class:`DerivationFailed`, a :class:`sphinx.errors.SphinxError`: the build
stops with the derivation, the failing step, both sides and the
counterexample, whatever ``-W`` says. There is no option to publish it anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sphinx.errors import SphinxError

if TYPE_CHECKING:  # pragma: no cover
    from ..core import Derivation
    from ..report import Report

_REPORTS: dict[tuple[str, int, int, float], Report] = {}


class DerivationFailed(SphinxError):
    """A derivation shown in the docs is refuted, undecided or fails a cross-check."""

    category = "Derivation failed verification"


def failure_message(derivation: Derivation, report: Report, location: str = "") -> str:
    """The words of :class:`DerivationFailed`: name, verdict, the failing step and counterexample."""
    from ..render.text import failure_text

    where = f" (shown at {location})" if location else ""
    lines = [f"{derivation.name}: {report.verdict}{where}"]
    step_text = failure_text(derivation, report)
    if step_text:
        lines.append(step_text)
    for check in report.checks:
        if not check.passed:
            lines.append(f"  cross-check failed: {check.name}: {check.message}")
    return "\n".join(lines)


def verified(derivation: Derivation, *, seed: int, budget: float, location: str = "") -> Report:
    """The report of ``derivation`` (cached); raise if it does not pass.

    Raises:
        DerivationFailed: a step is refuted or undecided, or a cross-check failed.
    """
    from ..verify import verify

    # keyed on the object too: a user module may register another derivation under a used name
    key = (derivation.name, id(derivation), seed, budget)
    report = _REPORTS.get(key)
    if report is None:
        report = _REPORTS[key] = verify(derivation, seed=seed, budget=budget)
    if not report.ok:
        raise DerivationFailed(failure_message(derivation, report, location))
    return report


def clear_cache() -> None:
    """Forget every cached report (tests that re-register names use this)."""
    _REPORTS.clear()
