"""HTML for Jupyter (``_repr_html_``): a derivation with MathML, a report as a table.

Browsers render MathML natively, so no script is needed. Without the
optional ziamath the formulas are shown as their LaTeX source.
"""

from __future__ import annotations

import html

from ..core import Derivation
from ..exceptions import MissingDependencyError
from ..report import Report


def _math(derivation: Derivation) -> str:
    from .mathml import derivation_mathml

    try:
        return derivation_mathml(derivation)
    except MissingDependencyError:
        from .latex import derivation_latex

        return f"<pre>{html.escape(derivation_latex(derivation, environment='aligned'))}</pre>"


def derivation_html(derivation: Derivation) -> str:
    """Title, name, summary, assumptions and the chain (MathML) as an HTML fragment."""
    out = [f"<h3>{html.escape(derivation.title)}</h3>", f"<p><code>{html.escape(derivation.name)}</code></p>"]
    if derivation.summary:
        out.append(f"<p>{html.escape(derivation.summary)}</p>")
    if derivation.assumptions:
        items = "".join(f"<li>{html.escape(a.text)}</li>" for a in derivation.assumptions)
        out.append(f"<p><b>Assumptions.</b></p><ul>{items}</ul>")
    out.append(_math(derivation))
    if derivation.citations:
        out.append("<p><small>Sources: " + html.escape("; ".join(str(c) for c in derivation.citations))
                   + "</small></p>")
    return "\n".join(out)


def report_html(report: Report) -> str:
    """A report as an HTML table: one row per step (verdict, strategy) and per cross-check."""
    rows = [f"<tr><td>step {s.index}</td><td>{html.escape(str(s.verdict))}</td>"
            f"<td>{html.escape(s.strategy)}{(' — ' + html.escape(str(s.counterexample))) if s.counterexample else ''}"
            "</td></tr>" for s in report.steps]
    rows += [f"<tr><td>check</td><td>{'passed' if c.passed else 'FAILED'}</td>"
             f"<td>{html.escape(c.name)}: {html.escape(c.message)}</td></tr>" for c in report.checks]
    head = (f"<p><code>{html.escape(report.name)}</code>: <b>{'PASS' if report.ok else 'FAIL'}</b> "
            f"({report.seconds:.2f} s)</p>")
    if report.error:
        head += f"<p>error: {html.escape(report.error)}</p>"
    return head + "<table><tr><th></th><th>verdict</th><th>how</th></tr>" + "".join(rows) + "</table>"
