"""Results of verification: a verdict per step and a report per derivation.

The verdict is tri-state, as sympy's own fuzzy logic is: *proved* (the proof
kernel, :mod:`derive.kernel`, closed the gap and its independent numeric
witness agrees; the strategy is recorded), *refuted* (a counterexample whose
gap is stable as the precision grows), *undecided* (neither, with the reason).
Only *proved* passes, and only the kernel issues it.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

#: the forms of the cross-checks' one-line messages that carry numbers (:func:`message_form`): a surface shows
#: such a message in the reader's language by its form (:func:`derive.i18n.translate_message`), and
#: ``python -m derive.i18n extract`` puts each form in the catalog
MESSAGE_FORMS: list[str] = []


def message_form(form: str) -> str:
    """Register ``form``, a check's message with ``{name}`` fields outside its ``$…$`` math, and return it; the
    check writes its message with :func:`derive.i18n.fill` (``fill(form, n=32)``)."""
    if form not in MESSAGE_FORMS:
        MESSAGE_FORMS.append(form)
    return form


HOLDS_AT = message_form("holds at {n} points ({special} special)")
ESTIMATE_AGREES = message_form("estimate {estimate} ± {bound} (n={n}) agrees with {expected}")
#: the proof kernel's witness line (:mod:`derive.kernel.witness` writes it itself: the kernel imports nothing here)
WITNESS_AGREES = message_form("mpmath agrees at {n} points ({special} special)")


class Verdict(enum.StrEnum):
    """Outcome of checking one step."""

    PROVED = "proved"
    REFUTED = "refuted"
    UNDECIDED = "undecided"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Counterexample:
    """A point where the two sides of a step disagree.

    Attributes:
        point: symbol name -> value (as text, exact where the point is exact).
        lhs: value of the previous expression at the point (text).
        rhs: value of the step's expression at the point (text).
        gap: absolute difference, evaluated with ``digits`` significant digits.
        digits: working precision of the confirming evaluation.
    """

    point: dict[str, str]
    lhs: str
    rhs: str
    gap: str
    digits: int = 50

    def __str__(self) -> str:
        pt = ", ".join(f"{k}={v}" for k, v in self.point.items())
        return f"at {pt}: previous = {self.lhs}, this step = {self.rhs} (gap {self.gap})"


@dataclass(frozen=True)
class StepResult:
    """Verification of one step.

    Attributes:
        index: 1-based step number.
        verdict: proved / refuted / undecided.
        strategy: what closed the step (e.g. ``"expand"``, ``"substitute → structural"``),
            or the strategies tried when it did not close.
        seconds: wall time spent on the step.
        counterexample: the point that refutes it, if refuted.
        detail: extra words (e.g. why a numeric check was not possible).
        seed: seed of the step's counterexample search (derived from the
            run's base seed and the derivation's name).
        witness: what the independent mpmath evaluation saw (e.g. ``"mpmath agrees
            at 14 points (10 special)"``); empty when none ran.
        vacuous: the step's expression is structurally the previous one (it
            proves nothing; flagged in reports, an error in the catalog).
        cpu_seconds: CPU time spent on the step (what the budget counts).
        excluded: where a proved step is not claimed: the points where exactly one side is undefined,
            as conditions (``("x ≠ 1",)``); empty when the two sides have the same domain (the domain
            convention of ``docs/proved.md``).
    """

    index: int
    verdict: Verdict
    strategy: str
    seconds: float
    counterexample: Counterexample | None = None
    detail: str = ""
    seed: int | None = None
    witness: str = ""
    vacuous: bool = False
    cpu_seconds: float = 0.0
    excluded: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.PROVED


class CheckState(enum.StrEnum):
    """Outcome of one numeric cross-check: evidence gathered and held, gathered and contradicted, or none."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_EVALUATED = "not evaluated"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one numeric cross-check.

    A check that gathered no evidence (an identity with no numeric value at any
    point, a check that ran out of time before its first point) is *not
    evaluated*: neither passed nor failed, and never counted as passed. It fails
    the derivation only when it is ``required``. A result built as passed with
    ``figures["points"] == 0`` is turned into a not-evaluated one.

    Attributes:
        name: what was checked, e.g. ``"Monte Carlo Var(q·k), normal, d_k=64"``.
        passed: whether the claim survived the check (false when not evaluated).
        figures: the numbers behind the outcome (n, estimate, standard error,
            bound, seed, max error, ...), as JSON-friendly values.
        message: one line for reports.
        seconds: wall time.
        evaluated: whether the check gathered any evidence at all.
        required: whether a not-evaluated outcome fails the derivation (a check a
            derivation lists is required; the automatic claim check is not).
    """

    name: str
    passed: bool
    figures: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    seconds: float = 0.0
    evaluated: bool = True
    required: bool = True

    def __post_init__(self) -> None:
        if self.passed and self.figures.get("points") == 0:
            object.__setattr__(self, "evaluated", False)
        if not self.evaluated:
            object.__setattr__(self, "passed", False)

    @classmethod
    def not_evaluated(cls, name: str, figures: dict[str, Any], message: str, seconds: float = 0.0, *,
                      required: bool = True) -> CheckResult:
        """A check that gathered no evidence; ``message`` says why."""
        return cls(name, False, figures, message, seconds, evaluated=False, required=required)

    @property
    def state(self) -> CheckState:
        """passed / failed / not evaluated."""
        if not self.evaluated:
            return CheckState.NOT_EVALUATED
        return CheckState.PASSED if self.passed else CheckState.FAILED

    @property
    def ok(self) -> bool:
        """Whether the check lets the derivation pass: it passed, or it was not evaluated and is not required."""
        return self.passed or (not self.evaluated and not self.required)


def count_checks(checks: Sequence[CheckResult]) -> dict[CheckState, int]:
    """How many checks are in each state (every state present, in the order passed, failed, not evaluated)."""
    counts = dict.fromkeys(CheckState, 0)
    for c in checks:
        counts[c.state] += 1
    return counts


def checks_summary(checks: Sequence[CheckResult]) -> str:
    """E.g. ``"3 passed, 1 not evaluated"``, ``"2 passed, 1 failed"``, ``"4 passed"`` (states with none left out,
    except *passed*), in the active language (:mod:`derive.i18n`)."""
    from .i18n import gettext

    counts = count_checks(checks)
    words = {CheckState.PASSED: gettext("{n} passed"), CheckState.FAILED: gettext("{n} failed"),
             CheckState.NOT_EVALUATED: gettext("{n} not evaluated")}
    parts = [words[CheckState.PASSED].format(n=counts[CheckState.PASSED])]
    parts += [words[state].format(n=n) for state, n in counts.items() if n and state is not CheckState.PASSED]
    return ", ".join(parts)


@dataclass(frozen=True)
class Report:
    """Everything :func:`derive.verify.verify` found about one derivation.

    Attributes:
        name: the derivation's name.
        steps: one :class:`StepResult` per step.
        checks: one :class:`CheckResult` per numeric cross-check.
        seconds: total wall time.
        error: set when verification itself could not run (e.g. a rule raised).
        seed: the base seed of the run (steps and checks report their derived seeds).
    """

    name: str
    steps: tuple[StepResult, ...]
    checks: tuple[CheckResult, ...]
    seconds: float
    error: str = ""
    seed: int | None = None

    def __str__(self) -> str:
        """The report as :func:`derive.render.text.report_text` writes it (verdict, strategy, counterexample)."""
        from .render.text import report_text

        return report_text(self)

    @property
    def symbolic_ok(self) -> bool:
        return not self.error and all(s.ok for s in self.steps)

    @property
    def numeric_ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def ok(self) -> bool:
        """True only if every step is proved and every cross-check passed (or, not required, was not evaluated)."""
        return self.symbolic_ok and self.numeric_ok

    @property
    def verdict(self) -> Verdict:
        """Worst step verdict: refuted beats undecided beats proved."""
        if any(s.verdict is Verdict.REFUTED for s in self.steps):
            return Verdict.REFUTED
        if self.error or any(s.verdict is Verdict.UNDECIDED for s in self.steps):
            return Verdict.UNDECIDED
        return Verdict.PROVED

    @property
    def first_failure(self) -> StepResult | None:
        return next((s for s in self.steps if not s.ok), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (verdicts as strings)."""
        data = asdict(self)
        data["verdict"] = str(self.verdict)
        data["ok"] = self.ok
        for s in data["steps"]:
            s["verdict"] = str(s["verdict"])
        for c, result in zip(data["checks"], self.checks, strict=True):
            c["state"] = str(result.state)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        """Rebuild a report from :meth:`to_dict` output (e.g. after a JSON round trip).

        Raises:
            KeyError, TypeError, ValueError: ``data`` is not a report's dict.
        """
        steps = tuple(
            StepResult(
                index=int(s["index"]),
                verdict=Verdict(s["verdict"]),
                strategy=s["strategy"],
                seconds=float(s["seconds"]),
                counterexample=Counterexample(**s["counterexample"]) if s.get("counterexample") else None,
                detail=s.get("detail", ""),
                seed=s.get("seed"),
                witness=s.get("witness", ""),
                vacuous=bool(s.get("vacuous", False)),
                cpu_seconds=float(s.get("cpu_seconds", 0.0)),
                excluded=tuple(s.get("excluded", ())),
            )
            for s in data["steps"]
        )
        checks = tuple(
            CheckResult(c["name"], bool(c["passed"]), dict(c.get("figures", {})), c.get("message", ""),
                        float(c.get("seconds", 0.0)), evaluated=bool(c.get("evaluated", True)),
                        required=bool(c.get("required", True)))
            for c in data["checks"]
        )
        return cls(data["name"], steps, checks, float(data["seconds"]), data.get("error", ""), seed=data.get("seed"))

    def _repr_markdown_(self) -> str:
        from .render.text import report_text

        return "```\n" + report_text(self) + "\n```"

    def _repr_html_(self) -> str:
        from .render.html import report_html

        return report_html(self)
