"""Jupyter display of a :class:`~derive.core.Derivation`, attached from the render side.

:mod:`derive.core` holds the data and imports no renderer; this module gives
``Derivation`` its ``_repr_latex_``, ``_repr_markdown_`` and ``_repr_html_``
methods (what IPython looks for when it displays an object). It is imported
by ``derive/__init__.py``, so the methods are in place as soon as any part of
derive is imported (``from derive.core import Derivation`` runs the package's
``__init__`` first). Each method imports its renderer (and so sympy) only when
called. The words follow :func:`derive.i18n.set_language` (or ``DERIVE_LANG=ko``); the verdict is that
of the derivation as written.
"""

from __future__ import annotations

from typing import Any

from ..core import Derivation


def repr_latex(derivation: Derivation) -> str:
    """The chain as one ``$$\\begin{aligned} ... \\end{aligned}$$`` block (text: ``str``)."""
    from ..i18n import localize
    from .latex import derivation_latex

    return "$$" + derivation_latex(localize(derivation), environment="aligned", math_in_text=False) + "$$"


def repr_markdown(derivation: Derivation) -> str:
    """The derivation as Markdown with ``$$`` math and its verdict (:func:`derive.render.markdown.derivation_markdown`),
    for front ends that prefer Markdown to HTML."""
    from ..i18n import localize
    from .markdown import derivation_markdown

    return derivation_markdown(localize(derivation), notebook_report(derivation))


def notebook_report(derivation: Derivation) -> Any:
    """The derivation's report for its display: served from the cache when it passed before
    (:func:`derive.cache.cached_verify`), else verified now; ``None`` if verification itself failed."""
    from ..cache import cached_verify

    try:
        return cached_verify(derivation)
    except Exception:  # noqa: BLE001 - a display must show the derivation even when its check breaks
        return None


def repr_html(derivation: Derivation) -> str:
    """Verdict, text and the chain as an HTML table of MathML cells, relation signs in one column
    (:func:`derive.render.html.derivation_html`): browsers draw MathML without a script, and a table
    column aligns where MathML's own column alignment is ignored (Chromium)."""
    from ..i18n import localize
    from .html import derivation_html

    return derivation_html(localize(derivation), notebook_report(derivation))


def _verdict_word(derivation: Derivation) -> str:
    """The verdict the cache holds for ``derivation`` ("proved", ...), or "not verified yet"; never verifies."""
    try:
        from ..cache import derivation_key, load
        from ..numeric import DEFAULT_SEED
        from ..verify import STEP_BUDGET

        key = derivation_key(derivation, seed=DEFAULT_SEED, budget=STEP_BUDGET)
        hit = load(key) if key is not None else None
    except Exception:  # noqa: BLE001 - a repr must never fail
        hit = None
    return str(hit.verdict) if hit is not None and hit.name == derivation.name else "not verified yet"


def repr_derivation(derivation: Derivation) -> str:
    """``<Derivation NAME: verdict; claim>`` in one line of at most 100 columns (text/plain, a terminal
    IPython): the verdict from the verification cache, never computed here."""
    from .text import claim_line

    head = f"<Derivation {derivation.name}: {_verdict_word(derivation)}; "
    return head + claim_line(derivation, 100 - len(head) - 1) + ">"


def repr_report(report: Any) -> str:
    """``<Report NAME: proved, 3/3 steps proved, 2/2 cross-checks passed, 0.41 s>`` in one line."""
    steps = f"{sum(s.ok for s in report.steps)}/{len(report.steps)} steps proved"
    checks = f", {sum(c.passed for c in report.checks)}/{len(report.checks)} cross-checks passed" \
        if report.checks else ""
    error = "; an error stopped the check" if report.error else ""
    return f"<Report {report.name}: {report.verdict}, {steps}{checks}{error}, {report.seconds:.2f} s>"


def _pretty(function: Any) -> Any:
    def _repr_pretty_(self: Any, p: Any, cycle: bool) -> None:  # IPython's text/plain hook
        p.text(function(self))

    return _repr_pretty_


#: IPython's method name -> the function above
REPRS: dict[str, Any] = {"_repr_latex_": repr_latex, "_repr_markdown_": repr_markdown, "_repr_html_": repr_html}


def install() -> None:
    """Set the Jupyter display methods on :class:`~derive.core.Derivation` and the one-line text reprs of
    it and of :class:`~derive.report.Report` (idempotent)."""
    from ..report import Report

    for name, function in REPRS.items():
        setattr(Derivation, name, function)
    Derivation.__repr__ = repr_derivation  # the dataclass repr is 3 KB of sympy and <function ...>
    Derivation._repr_pretty_ = _pretty(repr_derivation)
    Report.__repr__ = repr_report
    Report._repr_pretty_ = _pretty(repr_report)


install()
