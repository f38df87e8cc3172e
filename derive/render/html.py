"""HTML for Jupyter (``_repr_html_``): a derivation with MathML, a report as a table.

Browsers render MathML natively, so no script is needed. Without the
optional ziamath the formulas are shown as their LaTeX source.
"""

from __future__ import annotations

import html

from ..core import Derivation
from ..exceptions import MissingDependencyError
from ..i18n import gettext, translate
from ..report import CheckState, Report, checks_summary

#: widest line of a chain in a notebook, in em of the math font (:func:`derive.render.layout.tex_width`)
NOTEBOOK_BUDGET = 44.0

_VERDICT_STYLE = {"proved": "color:#1a7f37", "refuted": "color:#cf222e", "undecided": "color:#9a6700"}

_STYLE = ("<style>.derive-nb table.derive-nb-chain{border-collapse:collapse;margin:.4em 0}"
          ".derive-nb-chain td{padding:.15em .4em;vertical-align:baseline;border:none}"
          ".derive-nb-chain td.derive-nb-lhs{text-align:right}.derive-nb-chain td.derive-nb-rhs{text-align:left}"
          ".derive-nb-chain td.derive-nb-no{color:#57606a;text-align:right}"
          ".derive-nb-chain td.derive-nb-why{text-align:left;color:#424a53;font-size:.9em;padding-bottom:.6em}"
          "</style>")


def _tex(tex: str, inline: bool = True) -> str:
    """One formula as MathML (rendered by the browser, no script), or ``\\(...\\)`` for the notebook's
    MathJax without ziamath; ``inline=False`` typesets it in display style (a cell of the chain)."""
    from .mathml import latex_to_mathml

    body = tex if inline else r"\displaystyle " + tex
    try:
        return latex_to_mathml(body, "inline")
    except MissingDependencyError:
        return html.escape(rf"\({body}\)")
    except Exception:  # noqa: BLE001 - a construct the converter cannot take: its source, readable
        return f"<code>{html.escape(tex)}</code>"


def words_html(text: str) -> str:
    """Words with ``$...$`` math (marked or bare, :func:`~derive.render.textmath.mark_math`) as HTML + MathML."""
    from .textmath import mark_math

    parts = mark_math(text).split("$")
    if len(parts) % 2 == 0:
        return html.escape(text)
    return "".join(_tex(p) if k % 2 else html.escape(p) for k, p in enumerate(parts))


def verdict_html(report: Report | None) -> str:
    """``✓ proved: 3 of 3 steps proved symbolically; numeric cross-checks: 1 passed, 1 not evaluated`` (or why not)."""
    if report is None:
        return "<span class='derive-nb-verdict'>" + gettext("not verified") + "</span>"
    verdict = str(report.verdict)
    mark = {"proved": "✓ " + gettext("proved"), "refuted": "✗ " + gettext("refuted"),
            "undecided": "? " + gettext("undecided")}.get(verdict, verdict)
    proved = sum(s.ok for s in report.steps)
    checks = (gettext("numeric cross-checks: {summary}").format(summary=checks_summary(report.checks))
              if report.checks else gettext("no numeric cross-check applies"))
    text = gettext("{proved} of {total} steps proved symbolically; {checks}").format(
        proved=proved, total=len(report.steps), checks=checks)
    if report.error:
        text += f"; error: {report.error}"
    return (f"<span class='derive-nb-verdict derive-{verdict}' style='font-weight:bold;"
            f"{_VERDICT_STYLE.get(verdict, '')}'>{mark}</span>: {html.escape(text)}")


def chain_rows(derivation: Derivation, report: Report | None = None, budget: float = NOTEBOOK_BUDGET) -> list[str]:
    """The chain as table rows: ``(k) | lhs | = rhs`` with the relation signs in one column (a table column,
    since Chromium ignores MathML's column alignment), long right sides on further rows, and each step's
    justification and verdict on a row under it."""
    from .chain import ChainLayout
    from .latex import REL_TEX

    layout = ChainLayout(derivation, budget)
    rows: list[str] = []

    def row(no: str, lhs: str, rhs: str) -> None:
        rows.append(f"<tr><td class='derive-nb-no'>{no}</td><td class='derive-nb-lhs'>{lhs}</td>"
                    f"<td class='derive-nb-rhs'>{rhs}</td></tr>")

    start = _tex(layout.breaker.tex(layout.start), inline=False)
    lhs_budget = budget - (0 if layout.alone else layout.lhs_width)
    if layout.alone:  # a wide start on a row of its own, where the right sides begin
        row("", "", start)
    for k, (step, expr) in enumerate(zip(derivation.steps, layout.exprs, strict=True), 1):
        lines = layout.breaker.lines(expr, lhs_budget - 2.0)
        rel = REL_TEX[step.relation]
        for n, line in enumerate(lines):
            tex = f"{rel} {line}" if n == 0 else rf"\qquad {line}"
            row(f"({k})" if n == 0 else "", start if (n == 0 and k == 1 and not layout.alone) else "",
                _tex(tex, inline=False))
        why = words_html(step.justification)
        if report is not None and k <= len(report.steps):
            result = report.steps[k - 1]
            why += f" — <b>{html.escape(str(result.verdict))}</b> by <code>{html.escape(result.strategy)}</code>"
        rows.append(f"<tr><td></td><td></td><td class='derive-nb-why'>{why}</td></tr>")
    if layout.names:
        rows.append("<tr><td></td><td></td><td class='derive-nb-why'>where</td></tr>")
        for name, value in layout.names:
            row("", _tex(layout.breaker.tex(name), inline=False),
                _tex("= " + layout.breaker.tex(value), inline=False))
    return rows


def derivation_html(derivation: Derivation, report: Report | None = None) -> str:
    """Title, name and verdict, summary, assumptions and the aligned chain (a table of MathML cells) as an
    HTML fragment for Jupyter; ``report`` (from :func:`derive.cache.cached_verify`) gives the verdict."""
    out = [f"<h3>{words_html(derivation.title)}</h3>", _STYLE, "<div class='derive-nb'>",
           f"<p><code>{html.escape(derivation.name)}</code> · {verdict_html(report)}</p>"]
    if derivation.summary:
        out.append(f"<p>{words_html(derivation.summary)}</p>")
    if derivation.assumptions:
        items = "".join(f"<li>{words_html(a.text)}</li>" for a in derivation.assumptions)
        out.append("<p><b>" + gettext("Assumptions.") + f"</b></p><ul>{items}</ul>")
    out.append("<table class='derive-nb-chain'>" + "".join(chain_rows(derivation, report)) + "</table>")
    if derivation.citations:
        sources = "; ".join(str(c) for c in derivation.citations)
        out.append("<p><small>" + gettext("Sources:") + " " + html.escape(sources) + "</small></p>")
    out.append("</div>")
    return "\n".join(out)


def _verdict(report: Report) -> str:
    """The report's verdict in the words of every surface: proved, refuted, undecided (or a failed cross-check)."""
    return translate(str(report.verdict)) if report.ok or str(report.verdict) != "proved" else \
        gettext("cross-check failed")


def _state_word(state: CheckState) -> str:
    """``FAILED`` for a failed check, else its state (``passed``, ``not evaluated``), in the active language."""
    return gettext("FAILED") if state is CheckState.FAILED else translate(str(state))


def report_html(report: Report) -> str:
    """A report as an HTML table: one row per step (verdict, strategy) and per cross-check, in the active
    language."""
    from ..i18n import translate_message

    step, check = gettext("step {k}"), html.escape(gettext("check"))
    rows = [f"<tr><td>{html.escape(step.format(k=s.index))}</td>"
            f"<td>{html.escape(translate(str(s.verdict)))}</td>"
            f"<td>{html.escape(s.strategy)}{(' — ' + html.escape(str(s.counterexample))) if s.counterexample else ''}"
            "</td></tr>" for s in report.steps]
    rows += [f"<tr><td>{check}</td><td>{html.escape(_state_word(c.state))}</td>"
             f"<td>{words_html(translate(c.name))}: {words_html(translate_message(c.message))}</td></tr>"
             for c in report.checks]
    head = (f"<p><code>{html.escape(report.name)}</code>: <b>{html.escape(_verdict(report))}</b> "
            f"({report.seconds:.2f} s)</p>")
    if report.error:
        head += f"<p>error: {html.escape(report.error)}</p>"
    return head + "<table><tr><th></th><th>verdict</th><th>how</th></tr>" + "".join(rows) + "</table>"
