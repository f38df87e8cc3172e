"""Docutils content of one derivation: claim, assumptions, steps, verdicts, checks.

The functions here turn a :class:`~derive.core.Derivation` and its
:class:`~derive.report.Report` into plain docutils nodes. Equations are
``math_block`` nodes (numbered by the directive), text with ``$...$`` becomes
text and inline ``math`` nodes, and citations are produced by a callback the
directive supplies (sphinxcontrib-bibtex's ``cite:p`` role).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from docutils import nodes

from ..i18n import N_, gettext, translate, translate_message

if TYPE_CHECKING:  # pragma: no cover
    from ..core import Citation, Derivation
    from ..report import CheckResult, Report


#: figures shown first, in this order (the rest follow alphabetically)
_FIGURE_ORDER = ("n", "points", "trials", "estimate", "expected", "std_error", "bound", "seed")

#: figures left out of the table (shown elsewhere, or internal)
_FIGURE_SKIP = {"z", "false_rejection", "source"}

CiteFn = Callable[["Citation"], list[nodes.Node]]


def inline(text: str) -> list[nodes.Node]:
    """``text`` with ``$...$`` spans (and bare ``d_k``, ``e^{s_j}``: :func:`~derive.render.textmath.mark_math`)
    as inline math nodes (an odd ``$`` stays literal)."""
    from ..render.textmath import mark_math

    parts = mark_math(text).split("$")
    if len(parts) % 2 == 0:  # unbalanced: no math
        return [nodes.Text(text)]
    out: list[nodes.Node] = []
    for k, part in enumerate(parts):
        if not part:
            continue
        out.append(nodes.math(part, part) if k % 2 else nodes.Text(part))
    return out


def with_code_names(text: str) -> list[nodes.Node]:
    """:func:`inline`, with every configuration or code name of the words (``d_model``, ``n_kv_heads``,
    ``max_position_embeddings``) as code: for sources and notes that quote a config file's fields."""
    import re

    out: list[nodes.Node] = []
    for node in inline(text):
        if not isinstance(node, nodes.Text):
            out.append(node)
            continue
        words, last = str(node), 0
        names = r"(?<![A-Za-z0-9_.])(?:[A-Za-z]\w*\.)*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![A-Za-z0-9_])"
        for m in re.finditer(names, words):
            if m.start() > last:
                out.append(nodes.Text(words[last:m.start()]))
            out.append(nodes.literal(m.group(), m.group()))
            last = m.end()
        if last < len(words):
            out.append(nodes.Text(words[last:]))
    return out


def _name_pattern() -> Any:
    """A regex matching every registered derivation name as a whole word (longest first)."""
    import re

    from .. import registry

    names = sorted((e.name for e in registry.entries()), key=len, reverse=True)
    if not names:
        return None
    return re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")(?![\w-])")


def linked(text: str) -> list[nodes.Node]:
    """:func:`inline`, with every registered derivation name in the words as a ``derive-name-ref`` literal;
    :func:`derive.sphinxext.nodes.link_derivation_names` makes it a link to the derivation's box when
    the site shows that derivation numbered, and leaves the name as code otherwise."""
    import re

    pattern = _name_pattern()
    out: list[nodes.Node] = []
    for node in inline(text):
        if pattern is None or not isinstance(node, nodes.Text):
            out.append(node)
            continue
        words, last = re.sub(r"(?<=\w)\*(?=\w)", "·", str(node)), 0  # 4*d_model in words: 4·d_model
        for m in pattern.finditer(words):
            if m.start() > last:
                out.append(nodes.Text(words[last:m.start()]))
            out.append(nodes.literal(m.group(1), m.group(1), classes=["derive-name-ref"]))
            last = m.end()
        if last < len(words):
            out.append(nodes.Text(words[last:]))
    return out


def paragraph(*children: nodes.Node | str, classes: tuple[str, ...] = ()) -> nodes.paragraph:
    """A paragraph of derive's own words (already in the site's language): not a message of the page's gettext
    catalog, so Sphinx's Locale transform neither looks it up nor marks it ``untranslated``."""
    para = nodes.paragraph(classes=list(classes), translatable=False)
    for child in children:
        para += nodes.Text(child) if isinstance(child, str) else child
    return para


def table_with_head(
    classes: list[str], head: tuple[str, ...], widths: tuple[int, ...]
) -> tuple[nodes.table, nodes.tbody]:
    """An empty docutils table with a header row; returns the table and its body to fill with rows."""
    table = nodes.table(classes=[*classes, "colwidths-given"])
    group = nodes.tgroup(cols=len(head))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    thead = nodes.thead()
    group += thead
    row = nodes.row()
    for text in head:
        row += nodes.entry("", paragraph(*inline(text)))  # a head may hold $…$ math
    thead += row
    body = nodes.tbody()
    group += body
    return table, body


def scrolling(table: nodes.table) -> nodes.container:
    """``table`` in a box that scrolls sideways when the table is wider than the column (phones)."""
    box = nodes.container(classes=["derive-table-scroll"])
    box += table
    return box


def labelled(label: str, body: list[nodes.Node], classes: tuple[str, ...] = ()) -> nodes.paragraph:
    """A paragraph starting with a bold label: ``**Claim.** ...``."""
    para = paragraph(nodes.strong(label, label), nodes.Text(" "), classes=classes)
    for child in body:
        para += child
    return para


def claim_latex(derivation: Derivation) -> str:
    from ..render.latex import claim_latex as _claim

    return _claim(derivation)


from .chaintex import REL_TEX as _REL_TEX  # noqa: E402
from .chaintex import ChainTex, chain_tex  # noqa: E402,F401 - the site's LaTeX of a chain


def step_latex(derivation: Derivation, index: int) -> str:
    """Display LaTeX of step ``index`` (1-based): ``start = e_1`` for the first, ``{} = e_k`` after."""
    from ..render.latex import expr_latex

    step = derivation.steps[index - 1]
    rel = _REL_TEX[step.relation]
    left = expr_latex(derivation.start) if index == 1 else "{}"
    return f"{left} {rel} {expr_latex(step.expr)}"


def verdict_badge(verdict: str) -> nodes.inline:
    mark = {"proved": "✓ " + gettext("proved"), "refuted": "✗ " + gettext("refuted"),
            "undecided": "? " + gettext("undecided")}.get(verdict, verdict)
    return nodes.inline(mark, mark, classes=["derive-verdict", f"derive-{verdict}"])


def scope_badge(derivation: Derivation) -> list[nodes.Node]:
    """Beside the verdict: "for this instance only (…)" for a law proved at fixed sizes, "worked example"
    for ``example.*``; nothing for a law proved at symbolic sizes."""
    if derivation.instance:
        text, kind = gettext("for this instance only ({instance})").format(instance=derivation.instance), \
            "derive-instance"
    elif derivation.name.startswith("example."):
        text, kind = gettext("worked example: these numbers"), "derive-instance derive-example"
    else:
        return []
    return [nodes.Text(" "), nodes.inline("", "", *inline(text), classes=kind.split())]


def citation_nodes(cites: tuple[Citation, ...], cite: CiteFn) -> list[nodes.Node]:
    out: list[nodes.Node] = []
    for k, c in enumerate(cites):
        if k:
            out.append(nodes.Text("; "))
        out += cite(c)
    return out


def display(tex: str, classes: tuple[str, ...] = ()) -> nodes.math_block:
    """An unnumbered display formula."""
    return nodes.math_block(tex, tex, nowrap=False, number=None, label=None, classes=list(classes))


def header(derivation: Derivation, report: Report | None, *, claim_only: bool,
           layout: ChainTex | None = None) -> list[nodes.Node]:
    """Summary, claim, assumptions, definitions (what every display mode shows)."""
    layout = layout or chain_tex(derivation)
    out: list[nodes.Node] = []
    meta = [nodes.literal(derivation.name, derivation.name)]
    if report is not None:
        meta += [nodes.Text(" · "), verdict_badge(str(report.verdict)),
                 *scope_badge(derivation),
                 nodes.Text(" — " + (gettext("{n} steps checked when this page was built") if len(report.steps) != 1
                                     else gettext("{n} step checked when this page was built"))
                            .format(n=len(report.steps)))]
    out.append(paragraph(*meta, classes=("derive-meta",)))
    if derivation.summary:
        out.append(paragraph(*linked(derivation.summary)))
    out += uses_lines(derivation)
    out.append(labelled(gettext("Claim."), [], ("derive-claim-label",)))
    out.append(display(layout.claim, ("derive-claim",)))
    if layout.where:
        out.append(paragraph(gettext("where"), classes=("derive-where-label",)))
        out.append(display(layout.where, ("derive-where",)))
    if claim_only:
        return out
    if derivation.assumptions:
        items = nodes.bullet_list()
        for a in derivation.assumptions:
            item = nodes.list_item()
            item += paragraph(*linked(a.text))
            items += item
        out.append(labelled(gettext("Assumptions."), [], ("derive-assumptions",)))
        out.append(items)
    if derivation.premises:
        from ..render.latex import expr_latex

        rel = {"=": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">", "!=": r"\ne"}
        prem: list[nodes.Node] = [nodes.Text(gettext("Under the premises") + " ")]
        for k, (a, r, b) in enumerate(derivation.premise_relations):
            if k:
                prem.append(nodes.Text(", "))
            tex = f"{expr_latex(a)} {rel[r]} {expr_latex(b)}"
            prem.append(nodes.math(tex, tex))
        prem.append(nodes.Text(" " + gettext("(the claim is proved under them).")))
        out.append(paragraph(*prem, classes=("derive-premises",)))
    if layout.definitions:
        out.append(paragraph(gettext("with"), classes=("derive-definitions",)))
        out.append(display(layout.definitions, ("derive-definitions-math",)))
    return out


def uses_lines(derivation: Derivation) -> list[nodes.Node]:
    """"Uses …" and "Used by …": the derivations this one cites and those that cite it, linked."""
    from ..citations import used_by, uses

    out: list[nodes.Node] = []
    for label, names in ((gettext("Uses"), uses(derivation)), (gettext("Used by"), used_by().get(derivation.name, []))):
        if names:
            out.append(paragraph(nodes.strong(label, label), " ", *linked(", ".join(names)),
                                 classes=("derive-uses",)))
    return out


def chain(derivation: Derivation, report: Report, cite: CiteFn, layout: ChainTex,
          anchor: Callable[[int], list[nodes.Node]]) -> nodes.container:
    """The steps as one grid: step number, left side (first row only), ``= expr`` broken into lines,
    and the justification with its verdict under each step. ``anchor(k)`` gives the target nodes of step k."""
    grid = nodes.container(classes=["derive-chain"])
    if layout.alone:
        grid += nodes.container(classes=["derive-no"])
        grid += display(layout.start, ("derive-rhs", "derive-start"))
    for k, row in enumerate(layout.steps, 1):
        number = nodes.container(classes=["derive-no"])
        number += anchor(k)
        number += paragraph(f"({k})")
        grid += number
        if not layout.alone and k == 1:
            grid += display(layout.lhs, ("derive-lhs",))
        grid += display(row, ("derive-rhs",))
        grid += step_caption(derivation, report, k, cite)
    return grid


def step_caption(derivation: Derivation, report: Report, index: int, cite: CiteFn) -> nodes.paragraph:
    """The words under step ``index``: justification, rule, source, verdict and strategy."""
    step = derivation.steps[index - 1]
    result = report.steps[index - 1]
    para = paragraph(classes=("derive-step",))
    for child in linked(step.justification):
        para += child
    if step.citation is not None:
        para += nodes.Text(" (")
        for child in cite(step.citation):
            para += child
        para += nodes.Text(")")
    para += nodes.Text(" ")
    para += verdict_badge(str(result.verdict))
    before, _, after = gettext("by {strategy}.").partition("{strategy}")  # Korean puts the word after it
    para += nodes.Text(" " + before)
    para += nodes.literal(result.strategy, result.strategy)
    para += nodes.Text(after)
    return para


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isfinite(value) and value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-3):
            return f"{value:.4g}"
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    return str(value)


def figures_text(figures: dict[str, Any]) -> str:
    """``n = 200,000; estimate = 64.02; ...`` in a fixed order (n, estimate, bound, seed first)."""
    keys = [k for k in _FIGURE_ORDER if k in figures]
    keys += sorted(k for k in figures if k not in keys and k not in _FIGURE_SKIP)
    text = "; ".join(f"{k} = {figures[k] if k == 'seed' else _fmt(figures[k])}" for k in keys)
    return _readable(text)


def figures_nodes(figures: dict[str, Any]) -> list[nodes.Node]:
    """:func:`figures_text` as nodes: each figure's name as code (``max_abs_error``), a symbolic value as math,
    a value that still reads as code (``mu_k²·sigma_q²``, ``uniform[-√3,√3]``) as code, numbers as text."""
    import re

    from ..render.latex import expr_latex

    keys = [k for k in _FIGURE_ORDER if k in figures]
    keys += sorted(k for k in figures if k not in keys and k not in _FIGURE_SKIP)
    out: list[nodes.Node] = []
    for n, key in enumerate(keys):
        value = figures[key]
        if n:
            out.append(nodes.Text("; "))
        out += [nodes.literal(key, key), nodes.Text(" = ")]
        if getattr(value, "free_symbols", None):
            tex = expr_latex(value)
            out.append(nodes.math(tex, tex))
            continue
        shown = str(value) if key == "seed" else _readable(_fmt(value))
        out.append(nodes.literal(shown, shown) if re.search(r"[_^]|\[A-Za-z]", shown) else nodes.Text(shown))
    return out


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _readable(text: str) -> str:
    """sympy's ``str`` of a figure in words for a table: ``mu_k**2*sigma_q**2`` -> ``mu_k²·sigma_q²``."""
    import re

    text = re.sub(r"\*\*(-?\d+)", lambda m: m.group(1).translate(_SUPERSCRIPT), text)
    text = re.sub(r"\*\*\(([^()]*)\)", r"^(\1)", text).replace("**", "^")
    return re.sub(r"(?<=\S)\*(?=\S)", "·", text)


def number_tex(value: Any) -> str:
    r"""A number for math: ``8.81618923611111e-5`` as ``8.81618923611111 \times 10^{-5}`` (in math, ``e-5``
    would read as the letter e minus 5)."""
    import re

    text = str(value)
    m = re.fullmatch(r"([-+]?\d+(?:\.\d*)?)[eE]([-+]?)0*(\d+)", text.strip())
    if not m:
        return text
    sign = "-" if m.group(2) == "-" else ""
    return rf"{m.group(1)} \times 10^{{{sign}{m.group(3)}}}"


def _value_cell(check: Any, result: CheckResult) -> list[nodes.Node]:
    """Exact value beside the rounded one: ``exact ≈ 0.0900316 → 0.0900 (printed 0.0900)``."""
    from ..render.latex import expr_latex

    tex = f"{expr_latex(check.exact)} \\approx {number_tex(result.figures.get('value', ''))}"
    out: list[nodes.Node] = [nodes.math(tex, tex), nodes.Text(" " + gettext("rounds to") + " "),
                             nodes.literal(result.figures["rounded"], result.figures["rounded"]),
                             nodes.Text("; " + gettext("printed {value}").format(value=result.figures["printed"]))]
    if result.figures.get("source"):
        out += [nodes.Text(" ("), *inline(result.figures["source"]), nodes.Text(")")]
    return out


#: a cross-check's state in the evidence table (a check that evaluated nothing is neither passed nor failed)
_OUTCOME = {"passed": ("✓", N_("passed")), "failed": ("✗", N_("failed")),
            "not evaluated": ("–", N_("not evaluated"))}


def checks_table(derivation: Derivation, report: Report) -> nodes.table:
    """Table of the numeric cross-checks: check, outcome, figures (n, estimate, bound, seed...)."""
    from ..numeric import ValueCheck

    by_name = {getattr(c, "name", None): c for c in derivation.checks}
    table, body = table_with_head(["derive-checks"], (gettext("numeric cross-check"), gettext("outcome"),
                                                      gettext("figures")), (30, 10, 60))
    for result in report.checks:
        row = nodes.row()
        row += nodes.entry("", paragraph(*inline(translate(result.name))))
        mark, word = _OUTCOME[result.state]
        outcome = f"{mark} {gettext(word)}"
        row += nodes.entry("", paragraph(outcome))
        check = by_name.get(result.name)
        cell = nodes.entry()
        if isinstance(check, ValueCheck) and "rounded" in result.figures:
            cell += paragraph(*_value_cell(check, result))
        else:
            cell += paragraph(*figures_nodes(result.figures), classes=("derive-figures",))
            if result.message:
                cell += paragraph(*with_code_names(_readable(translate_message(result.message))),
                                  classes=("derive-check-message",))
        row += cell
        body += row
    return table


def footer(derivation: Derivation, report: Report, cite: CiteFn, *, show_checks: bool) -> list[nodes.Node]:
    """Verdict line, numeric table, sources, notes."""
    out: list[nodes.Node] = []
    from ..report import checks_summary

    steps = len(report.steps)
    n_checks = len(report.checks)
    numeric = ((gettext("numeric cross-checks: {summary}") if n_checks != 1 else
                gettext("numeric cross-check: {summary}")).format(summary=checks_summary(report.checks)) if n_checks
               else gettext("no numeric cross-check applies"))
    scope = " " + gettext("for this instance only ({instance})").format(instance=derivation.instance) \
        if derivation.instance else ""
    line = gettext("all {n} steps proved symbolically{scope}; {numeric}.") if steps != 1 else \
        gettext("all {n} step proved symbolically{scope}; {numeric}.")
    verdict = labelled(gettext("Verdict."), [verdict_badge(str(report.verdict)), *inline(
        ": " + line.format(n=steps, scope=scope, numeric=numeric))],
        ("derive-verdict-line",))
    out.append(verdict)
    if show_checks and report.checks:
        from .nodes import derivation_fold

        summary = gettext("Numeric cross-checks: {summary} (show the table)").format(
            summary=checks_summary(report.checks))
        fold = derivation_fold(summary=summary, classes=["derive-checks-fold"])
        fold += scrolling(checks_table(derivation, report))
        out.append(fold)
    if derivation.citations:
        out.append(labelled(gettext("Sources."), citation_nodes(derivation.citations, cite), ("derive-sources",)))
    for note in derivation.notes:
        out.append(labelled(gettext("Note."), linked(note), ("derive-note",)))
    return out
