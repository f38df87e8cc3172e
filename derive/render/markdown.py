"""Markdown for derivations, with ``$$`` display math (MyST, notebooks, GitHub)."""

from __future__ import annotations

from ..core import Derivation
from .latex import claim_latex, expr_latex


def derivation_markdown(derivation: Derivation) -> str:
    """The derivation as Markdown: title, claim, assumptions, numbered steps."""
    out = [f"### {derivation.title}", "", f"`{derivation.name}`", ""]
    if derivation.summary:
        out += [derivation.summary, ""]
    out += ["**Claim.**", "", "$$", claim_latex(derivation), "$$", ""]
    if derivation.assumptions:
        out += ["**Assumptions.**", ""] + [f"- {a.text}" for a in derivation.assumptions] + [""]
    if derivation.premises:
        rel = {"=": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">", "!=": r"\ne"}
        shown = ", ".join(f"${expr_latex(a)} {rel[r]} {expr_latex(b)}$" for a, r, b in derivation.premise_relations)
        out += [f"**Under the premises** {shown}.", ""]
    for lhs, rhs in derivation.definitions:
        out += [f"where ${expr_latex(lhs)} = {expr_latex(rhs)}$", ""]
    out += ["**Steps.**", ""]
    prev = derivation.start
    for k, step in enumerate(derivation.steps, 1):
        rel = {"=": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">"}[step.relation]
        cite = f" ({step.citation})" if step.citation else ""
        out += [f"{k}. {step.justification}{cite}", "", "   $$", f"   {expr_latex(prev)} {rel} {expr_latex(step.expr)}",
                "   $$", ""]
        prev = step.expr
    if derivation.citations:
        out += ["**Sources.** " + "; ".join(str(c) for c in derivation.citations), ""]
    return "\n".join(out)
