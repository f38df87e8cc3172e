"""Markdown for derivations, with ``$$`` display math (MyST, notebooks, GitHub)."""

from __future__ import annotations

from typing import Any

from ..core import Derivation
from ..i18n import gettext
from .latex import expr_latex


def verdict_markdown(report: Any) -> str:
    """``**✓ proved**: 3 of 3 steps proved symbolically; ...`` (empty without a report)."""
    if report is None:
        return ""
    import re

    from .html import verdict_html

    text = re.sub(r"<[^>]+>", "", verdict_html(report))
    mark, _, rest = text.partition(":")
    return f"**{mark}**:{rest}"


def chain_markdown(derivation: Derivation, budget: float = 44.0) -> list[str]:
    r"""The chain as one ``$$\begin{aligned}...$$`` block: relation signs in one column, each step tagged
    ``(k)`` at the right, long right sides broken into lines (:class:`~derive.render.chain.ChainLayout`)."""
    from .chain import ChainLayout
    from .latex import REL_TEX

    layout = ChainLayout(derivation, budget)
    start = layout.breaker.tex(layout.start)
    rows = [f"{start} &"] if layout.alone else []
    rhs_budget = budget - (0 if layout.alone else layout.lhs_width)
    for k, (step, expr) in enumerate(zip(derivation.steps, layout.exprs, strict=True), 1):
        lines = layout.breaker.lines(expr, rhs_budget - 2.0)
        for n, line in enumerate(lines):
            lhs = start if (k == 1 and n == 0 and not layout.alone) else ""
            body = f"{REL_TEX[step.relation]} {line}" if n == 0 else rf"\qquad {line}"
            tag = rf" && \text{{({k})}}" if n == len(lines) - 1 else ""
            rows.append(f"{lhs} &{body}{tag}")
    out = ["$$", "\\begin{aligned}", " \\\\\n".join(rows), "\\end{aligned}", "$$"]
    if layout.names:
        where = " \\\\\n".join(f"{layout.breaker.tex(n)} &= {layout.breaker.tex(v)}" for n, v in layout.names)
        out += ["", gettext("where"), "", "$$", "\\begin{aligned}", where, "\\end{aligned}", "$$"]
    return out


def derivation_markdown(derivation: Derivation, report: Any = None) -> str:
    """The derivation as Markdown: title, verdict (with ``report``), claim, assumptions, the aligned chain,
    then the numbered justifications (under the chain, so that no line runs off the side)."""
    from .latex import claim_latex

    out = [f"### {derivation.title}", "", f"`{derivation.name}`" + (f" · {verdict_markdown(report)}"
                                                                     if report is not None else ""), ""]
    if derivation.summary:
        out += [derivation.summary, ""]
    out += ["**" + gettext("Claim.") + "**", "", "$$", claim_latex(derivation), "$$", ""]
    if derivation.assumptions:
        out += ["**" + gettext("Assumptions.") + "**", ""] + [f"- {a.text}" for a in derivation.assumptions] + [""]
    if derivation.premises:
        rel = {"=": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">", "!=": r"\ne"}
        shown = ", ".join(f"${expr_latex(a)} {rel[r]} {expr_latex(b)}$" for a, r, b in derivation.premise_relations)
        out += ["**" + gettext("Under the premises") + f"** {shown}.", ""]
    for lhs, rhs in derivation.definitions:
        out += [gettext("where") + f" ${expr_latex(lhs)} = {expr_latex(rhs)}$", ""]
    out += ["**" + gettext("Steps.") + "**", "", *chain_markdown(derivation), ""]
    for k, step in enumerate(derivation.steps, 1):
        cite = f" ({step.citation})" if step.citation else ""
        verdict = ""
        if report is not None and k <= len(report.steps):
            verdict = f" — {report.steps[k - 1].verdict} by `{report.steps[k - 1].strategy}`"
        out.append(f"{k}. {step.justification}{cite}{verdict}")
    out.append("")
    if derivation.citations:
        out += ["**" + gettext("Sources.") + "** " + "; ".join(str(c) for c in derivation.citations), ""]
    return "\n".join(out)
