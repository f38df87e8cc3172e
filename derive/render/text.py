"""Plain-text rendering for the terminal: derivations, reports, the check table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core import Derivation
from ..report import Report, Verdict

_REL = {"=": "=", "<=": "≤", "<": "<", ">=": "≥", ">": ">"}


def expr_text(expr: Any) -> str:
    """One-line unicode-free text of a sympy expression (``sstr``)."""
    import sympy as sp

    return sp.sstr(expr)


#: columns of the terminal that ``derive show`` fills before sympy's pretty printer wraps a formula
WIDTH = 100


def pretty_lines(expr: Any, width: int = WIDTH) -> list[str]:
    """sympy's Unicode pretty print of ``expr`` (fractions, roots, sums and matrices drawn over lines)."""
    import sympy as sp

    text = sp.pretty(expr, use_unicode=True, wrap_line=True, num_columns=max(width, 20))
    return text.splitlines() or [""]


def _baseline(expr: Any, lines: list[str]) -> int:
    """The row of a pretty print on which its relation sign goes (the row of the main fraction bar or axis)."""
    import sympy as sp
    from sympy.printing.pretty.pretty import PrettyPrinter

    try:
        form = PrettyPrinter({"use_unicode": True, "wrap_line": False})._print(expr)
        if len(lines) == form.height():
            return form.baseline
    except Exception:  # noqa: BLE001 - a printer quirk must not stop 'derive show'; put the sign on top
        return 0
    del sp
    return 0


def relation_block(label: str, relation: str, expr: Any, indent: int) -> list[str]:
    """``label R expr`` with ``expr`` pretty-printed and the relation on its baseline, ``indent`` columns in."""
    lines = pretty_lines(expr, WIDTH - indent - 4)
    row = _baseline(expr, lines)
    head = f"{label:>{indent}}{relation} " if relation else " " * (indent + 2)
    pad = " " * len(head)
    return [(head if k == row else pad) + line for k, line in enumerate(lines)]


def derivation_text(derivation: Derivation) -> str:
    """What ``derive show`` prints: claim, assumptions, definitions, numbered steps, sources.

    Words are shown with their ``$...$`` math as Unicode (:func:`derive.render.textmath.unicode_text`);
    formulas with sympy's Unicode pretty printer, relation signs in one column.
    """
    from .textmath import unicode_text as u

    lines = [f"{u(derivation.title)}  [{derivation.name}]", ""]
    if derivation.instance:
        lines[1:1] = [f"Proves an instance only: {u(derivation.instance)}"]
    if derivation.summary:
        lines += [u(derivation.summary), ""]
    rel = _REL[derivation.relation]
    lines += ["Claim:", *relation_block("", "", derivation.start, 4),
              *relation_block("", rel, derivation.end, 4), ""]
    if derivation.assumptions:
        lines.append("Assumptions:")
        lines += [f"  - {u(a.text)}" for a in derivation.assumptions]
        lines.append("")
    if derivation.premises:
        rel = {"=": "=", "<=": "≤", "<": "<", ">=": "≥", ">": ">", "!=": "≠"}
        lines.append("Under the premises:")
        lines += [f"    {expr_text(a)} {rel[r]} {expr_text(b)}" for a, r, b in derivation.premise_relations]
        lines.append("")
    if derivation.definitions:
        lines.append("Where:")
        for lhs, rhs in derivation.definitions:
            lines += [f"    {expr_text(lhs)}", *relation_block("", "=", rhs, 4)]
        lines.append("")
    lines += ["Steps:", *relation_block("", "", derivation.start, 6)]
    for k, step in enumerate(derivation.steps, 1):
        lines += relation_block(f"({k}) ", _REL[step.relation], step.expr, 6)
        why = u(step.justification)
        if step.rule is not None:
            why += f"  [rule: {step.rule.describe()}]"
        if step.citation is not None:
            why += f"  [{step.citation}]"
        lines.append(f"        by: {why}")
    if derivation.citations:
        lines += ["", "Sources: " + "; ".join(str(c) for c in derivation.citations)]
    if derivation.notes:
        lines += [""] + [f"Note: {u(n)}" for n in derivation.notes]
    return "\n".join(line.rstrip() for line in lines)


def failure_text(derivation: Derivation, report: Report) -> str:
    """The first failing step: number, justification, both sides, strategies, counterexample."""
    bad = report.first_failure
    if report.error:
        return f"  error: {report.error}"
    if bad is None:
        return ""
    prev = derivation.start if bad.index == 1 else derivation.steps[bad.index - 2].expr
    step = derivation.steps[bad.index - 1]
    lines = [
        f"  step {bad.index} {bad.verdict}: {step.justification}",
        f"    previous: {expr_text(prev)}",
        f"    claimed:  {_REL[step.relation]} {expr_text(step.expr)}",
        f"    strategy: {bad.strategy}",
    ]
    if bad.counterexample is not None:
        lines.append(f"    counterexample: {bad.counterexample}")
    if bad.detail:
        lines.append(f"    {bad.detail}")
    return "\n".join(lines)


def failed_checks_text(report: Report) -> str:
    """One line per failed numeric cross-check: name, message and the seed it drew with."""
    lines = []
    for c in report.checks:
        if not c.passed:
            seed = c.figures.get("seed")
            lines.append(f"  cross-check failed: {c.name}: {c.message}" + (f" [seed {seed}]" if seed is not None
                                                                           else ""))
    return "\n".join(lines)


def report_text(report: Report) -> str:
    """A report in a few lines: per-step verdicts and per-check outcomes."""
    lines = [f"{report.name}: {'PASS' if report.ok else 'FAIL'} ({report.seconds:.2f} s)"]
    for s in report.steps:
        extra = f"  {s.counterexample}" if s.counterexample else (f"  ({s.detail})" if s.detail else "")
        flag = " [vacuous]" if s.vacuous else ""
        lines.append(f"  step {s.index}: {s.verdict}{flag} by {s.strategy}{extra}")
        if s.witness:
            lines.append(f"    witness: {s.witness}")
    for c in report.checks:
        lines.append(f"  check {'ok ' if c.passed else 'FAIL'} {c.name}: {c.message}")
    return "\n".join(lines)


def _numeric_cell(report: Report) -> str:
    if not report.checks:
        return "none"
    passed = sum(c.passed for c in report.checks)
    return f"{passed}/{len(report.checks)} ok"


def check_table(reports: Sequence[Report]) -> str:
    """The table of ``derive check``: name, symbolic verdict, numeric checks, time."""
    rows = [("derivation", "symbolic", "steps proved", "numeric", "time")]
    for r in reports:
        steps = f"{sum(s.ok for s in r.steps)}/{len(r.steps)}"
        rows.append((r.name, str(r.verdict), steps, _numeric_cell(r), f"{r.seconds:.2f} s"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for k, row in enumerate(rows):
        out.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)).rstrip())
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def summary_line(reports: Sequence[Report], seconds: float) -> str:
    """E.g. ``2 derivations: 2 passed, 0 failed (1.23 s)``."""
    passed = sum(r.ok for r in reports)
    refuted = sum(r.verdict is Verdict.REFUTED for r in reports)
    undecided = sum((not r.ok) and r.verdict is not Verdict.REFUTED for r in reports)
    word = "derivation" if len(reports) == 1 else "derivations"
    return (f"{len(reports)} {word}: {passed} passed, {len(reports) - passed} failed "
            f"({refuted} refuted, {undecided} undecided or failing a cross-check) in {seconds:.2f} s")
