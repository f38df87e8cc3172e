"""Verify derivations during a Sphinx build; refuse to publish a failing one.

Each derivation is verified once per process and seed (a build that shows it
on two pages verifies it once), and a derivation that passed and has not
changed since is served from the verification cache (``derive.cache``). When the report is not ``ok`` (a step refuted
or undecided, or a numeric cross-check failed) the directive logs a typed
error, ``derive.refuted``, ``derive.undecided`` or ``derive.check-failed``,
naming the page, the failing step, both sides and the counterexample; the page
shows that report instead of the proof; and the build exits with status 1
whatever ``-W`` or ``suppress_warnings`` say. There is no
option to publish it anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..core import Derivation
    from ..report import Report

_REPORTS: dict[tuple[str, int, int, float], Report] = {}


def failure_kind(report: Report) -> str:
    """The warning subtype of a failed report: ``refuted``, ``undecided`` or ``check-failed``."""
    from ..report import Verdict

    if report.verdict is Verdict.PROVED:
        return "check-failed"
    return str(report.verdict)


def failure_message(derivation: Derivation, report: Report) -> str:
    """Name, verdict, the failing step with both sides and the counterexample, failed cross-checks."""
    from ..render.text import failure_text

    kind = failure_kind(report)
    state = "failed a numeric cross-check" if kind == "check-failed" else f"is {kind}"
    lines = [f"derivation {derivation.name} {state}; it is not published"]
    step_text = failure_text(derivation, report)
    if step_text:
        lines.append(step_text)
    for check in report.checks:
        if not check.ok:
            what = "failed" if check.evaluated else "not evaluated (required)"
            lines.append(f"  cross-check {what}: {check.name}: {check.message}")
    return "\n".join(lines)


def report_for(derivation: Derivation, *, seed: int, budget: float) -> Report:
    """The verification report of ``derivation`` (computed once per object, seed and budget)."""
    from ..cache import cached_verify as verify  # unchanged derivations that passed are not proved again

    # keyed on the object too: a user module may register another derivation under a used name
    key = (derivation.name, id(derivation), seed, budget)
    report = _REPORTS.get(key)
    if report is None:
        report = _REPORTS[key] = verify(derivation, seed=seed, budget=budget)
    return report
