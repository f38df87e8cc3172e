"""Plain-text rendering for the terminal: derivations, reports, the check table."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import Any

from ..core import Derivation
from ..i18n import N_
from ..report import CheckState, Report, Verdict, count_checks

_REL = {"=": "=", "<=": "≤", "<": "<", ">=": "≥", ">": ">"}


def expr_text(expr: Any) -> str:
    """One-line unicode-free text of a sympy expression (``sstr``)."""
    import sympy as sp

    return sp.sstr(expr)


#: columns of the terminal that ``derive show`` fills before a formula is broken into rows
WIDTH = 100


def _form(expr: Any) -> tuple[list[str], int]:
    """The unwrapped pretty print of ``expr`` (display order) as lines, and the row of its baseline."""
    from .order import DisplayPrettyPrinter

    form = DisplayPrettyPrinter({"use_unicode": True, "wrap_line": False})._print(expr)
    lines = form.render(wrap_line=False).replace("-", "−").split("\n")  # one minus sign, as in the words
    return lines, form.baseline if 0 <= form.baseline < len(lines) else 0


def _width(lines: list[str]) -> int:
    return max((len(line) for line in lines), default=0)


def _beside(parts: list[tuple[list[str], int]]) -> tuple[list[str], int]:
    """Blocks side by side, their baselines on one row."""
    above = max(b for _, b in parts)
    below = max(len(ls) - b for ls, b in parts)
    rows = ["" for _ in range(above + below)]
    for ls, b in parts:
        w = _width(ls)
        for r in range(above + below):
            k = r - (above - b)
            rows[r] += (ls[k] if 0 <= k < len(ls) else "").ljust(w)
    return rows, above


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def readable(text: str) -> str:
    """sympy's ``str`` inside words, for the terminal: ``mu_k**2*sigma_q**2`` -> ``mu_k²⋅sigma_q²``."""
    import re

    text = re.sub(r"\*\*(-?\d+)", lambda m: m.group(1).translate(_SUPERSCRIPT), text)
    text = re.sub(r"\*\*\(([^()]*)\)", r"^(\1)", text).replace("**", "^")
    # sympy's ceiling(x), floor(x) as the brackets the site shows: ⌈x⌉, ⌊x⌋ (one level of parentheses inside)
    for name, (left, right) in (("ceiling", "⌈⌉"), ("floor", "⌊⌋")):
        text = re.sub(rf"(?<![A-Za-z]){name}\(((?:[^()]|\([^()]*\))*)\)", rf"{left}\1{right}", text)
    # a Kronecker delta whose first index is such a bracket: δ_(⌈…⌉, l), not δ_⌈…⌉l
    text = re.sub(r"δ_([⌈⌊][^⌉⌋]*[⌉⌋])(\w)", r"δ_(\1, \2)", text)
    return re.sub(r"(?<=\S)\*(?=\S)", "⋅", text)


def reader_words(text: str) -> str:
    """``text`` (a rule's description, built from sympy's ``str``) with the catalog's helper names written as
    the reader knows them (``c_col`` as ``c``; ``derive.render.order.reader_name``)."""
    import re

    from .order import reader_names

    for name, shown in sorted(reader_names().items(), key=lambda kv: -len(kv[0])):
        if "_" in name or name in ("eps", "sigma2"):
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9(])", shown, text)
            text = re.sub(rf"(?<=_){re.escape(name)}", shown, text)  # glued to a subscript: δ_c_coll
    return text


def _one_line(expr: Any) -> str:
    """The pretty print of ``expr`` if it fits on one line, else its ``str`` made readable."""
    lines, _ = _form(expr)
    return lines[0] if len(lines) == 1 else readable(expr_text(expr))


def claim_line(derivation: Derivation, width: int = WIDTH) -> str:
    """The claim ``start R end`` on one line of at most ``width`` columns: the site's LaTeX read as Unicode
    (:func:`~derive.render.textmath.unicode_text`), an explicit matrix shown by its shape; cut with "…"."""
    import sympy as sp

    from .latex import expr_latex
    from .order import shown_expr
    from .textmath import unicode_text

    def one(expr: Any) -> str:
        if isinstance(expr, sp.Basic):
            shapes = {m: sp.MatrixSymbol(f"[{m.rows}×{m.cols} matrix]", m.rows, m.cols)
                      for m in sp.preorder_traversal(expr) if isinstance(m, sp.MatrixBase)}
            try:
                with sp.evaluate(False):
                    expr = shapes.get(expr) or expr.xreplace(shapes)
            except (TypeError, ValueError):  # a matrix sympy cannot stand a symbol for: as it is
                pass
        return " ".join(unicode_text(f"${expr_latex(expr)}$").split())

    text = f"{one(derivation.start)} {_REL[derivation.relation]} {one(shown_expr(derivation.steps[-1]))}"
    return text if len(text) <= width else text[:max(width - 1, 1)].rstrip() + "…"


def _text(word: str) -> tuple[list[str], int]:
    return [word], 0


def pretty_rows(expr: Any, width: int = WIDTH) -> list[tuple[list[str], int]]:
    """``expr`` pretty-printed in rows no wider than ``width`` where its shape allows: a sum split at its
    ``+``/``−`` signs (the 2nd and later rows start with the sign), an explicit matrix entry by entry;
    anything else as sympy wraps it. Each row is ``(lines, baseline)``."""
    import sympy as sp

    from .order import DisplayPrettyPrinter

    lines, base = _form(expr)
    if _width(lines) <= width:
        return [(lines, base)]
    if isinstance(expr, sp.Add):
        terms = DisplayPrettyPrinter({"use_unicode": True})._as_ordered_terms(expr)
        rows: list[tuple[list[str], int]] = []
        current: list[tuple[list[str], int]] = []
        for k, term in enumerate(terms):
            sign = "" if k == 0 else ("− " if term.could_extract_minus_sign() else "+ ")
            shown = -term if sign == "− " else term
            piece = _form(shown)
            if isinstance(shown, sp.Add):
                piece = _beside([_text("("), piece, _text(")")])
            parts = [_text(sign), piece] if sign else [piece]
            trial = _beside([*current, _text(" "), *parts] if current else parts)
            if _width(_beside(parts)[0]) > width:  # one term wider than the line: broken on rows of its own
                if current:
                    rows.append(_beside(current))
                    current = []
                sub = pretty_rows(shown, width - 2)
                rows += [_beside([_text(sign), sub[0]]) if sign else sub[0], *sub[1:]]
            elif current and _width(trial[0]) > width:
                rows.append(_beside(current))
                current = parts
            else:
                current = [*current, _text(" "), *parts] if current else parts
        if current:
            rows.append(_beside(current))
        return rows
    stacked = _fraction_rows(expr, width)
    if stacked is not None:
        return stacked
    if isinstance(expr, sp.Mul):  # a product around one wide sum: the other factors, then the sum broken
        wide = [a for a in expr.args if isinstance(a, sp.Add) and _width(_form(a)[0]) > width // 2]
        if len(wide) == 1:
            others = [a for a in expr.args if a is not wide[0]]
            with sp.evaluate(False):
                rest = sp.Mul(*others)
            prefix = (_form(rest)[0][0] if _form(rest)[0] and len(_form(rest)[0]) == 1 else "") + "⋅("
            if prefix != "⋅(" or rest == 1:
                prefix = "(" if rest == 1 else prefix
                sub = pretty_rows(wide[0], width - len(prefix) - 1)
                ls, b = sub[-1]
                sub[-1] = _beside([(ls, b), _text(")")])
                return [_beside([_text(prefix), sub[0]]), *sub[1:]]
    if isinstance(expr, sp.MatrixBase) and expr.rows * expr.cols > 1:
        rows = [_text(f"the {expr.rows}×{expr.cols} matrix with entries")]
        for i in range(expr.rows):
            for j in range(expr.cols):
                for k, (ls, b) in enumerate(pretty_rows(expr[i, j], width - 9)):
                    label = f"  [{i + 1},{j + 1}]: " if k == 0 else " " * 9
                    rows.append(_beside([_text(label), (ls, b)]))
        return rows
    call = _call_rows(expr, width)
    if call is not None:
        return call
    from .order import display_pretty

    wrapped = display_pretty(expr, use_unicode=True, wrap_line=True, num_columns=max(width, 20)).replace("-", "−")
    return [(wrapped.splitlines() or [""], 0)]


def _fraction_rows(expr: Any, width: int) -> list[tuple[list[str], int]] | None:
    """A fraction too wide for a line, stacked: its numerator (and denominator) broken into rows of their
    own, centred over one bar as wide as the widest row; ``None`` for anything that is not a fraction."""
    import sympy as sp

    if not isinstance(expr, sp.Mul):
        return None
    num, den = sp.fraction(expr, exact=True)
    if den == 1 or not isinstance(den, sp.Basic) or den.is_Number and num.is_Number:
        return None
    top = [line for ls, _ in pretty_rows(num, width) for line in ls]
    bottom = [line for ls, _ in pretty_rows(den, width) for line in ls]
    bar = min(max(_width(top), _width(bottom)), width)
    if _width(top) > width or _width(bottom) > width:
        return None
    return [([line.center(bar).rstrip() for line in top] + ["─" * bar] +
             [line.center(bar).rstrip() for line in bottom], len(top))]


def _call_rows(expr: Any, width: int) -> list[tuple[list[str], int]] | None:
    """A product or an operator too wide for a line, as a tree: ``name(`` then each argument (or factor)
    indented on rows of its own, then ``)``."""
    import sympy as sp

    from .order import OPERATOR_NAMES

    if not isinstance(expr, sp.Basic) or not expr.args or isinstance(expr, (sp.Add, sp.MatrixBase)):
        return None
    if isinstance(expr, (sp.Mul, sp.MatMul)):
        rows: list[tuple[list[str], int]] = []
        for k, factor in enumerate(expr.args):
            sub = pretty_rows(factor, width - 2)
            lead = "  " if k == 0 else "⋅ "
            rows += [_beside([_text(lead), sub[0]]), *[_beside([_text("  "), r]) for r in sub[1:]]]
        return rows
    name = type(expr).__name__
    if isinstance(expr, sp.Sum):  # Σ on the first row, its wide term broken beside it (a double Σ: the outer)
        sigma = _form(sp.Sum(sp.Symbol("( "), expr.limits[-1]))
        term = sp.Sum(expr.function, *expr.limits[:-1]) if len(expr.limits) > 1 else expr.function
        sub = pretty_rows(term, width - _width(sigma[0]) - 2)
        if len(sub) > 1 or _width(_beside([sigma, sub[0]])[0]) + 1 <= width:  # broken, or fits beside Σ
            pad = " " * (_width(sigma[0]) + 1)
            last_lines, last_base = sub[-1]
            sub[-1] = _beside([(last_lines, last_base), _text(")")])
            return [_beside([sigma, sub[0]]), *[_beside([_text(pad), r]) for r in sub[1:]]]
    if name in ("Sum", "Limit", "Derivative", "Integral", "Pow"):
        return None
    name = OPERATOR_NAMES.get(name, name.lower() if name in ("Max", "Min") else name)
    args = expr.args
    label = getattr(type(expr), "label", None)
    if isinstance(label, str) and hasattr(expr, "arg"):  # a row-wise operator: LN(X), its settings unshown
        name, args = label, (expr.arg,)
    rows = [_text(f"{name}(")] if name != "HStack" else [_text("[")]
    for k, arg in enumerate(args):
        sub = pretty_rows(arg, width - 4)
        tail = "," if k < len(args) - 1 and name != "HStack" else ""
        if name == "HStack" and k:
            rows.append(_text("  │"))
        sub[-1] = _beside([sub[-1], _text(tail)])
        rows += [_beside([_text("    "), r]) for r in sub]
    rows.append(_text(")" if name != "HStack" else "]"))
    return rows


def pretty_lines(expr: Any, width: int = WIDTH) -> list[str]:
    """sympy's Unicode pretty print of ``expr`` (fractions, roots, sums and matrices drawn over lines),
    in the author's order (:mod:`derive.render.order`), broken into rows of at most ``width`` columns."""
    return [line for ls, _ in pretty_rows(expr, width) for line in ls]


def relation_block(label: str, relation: str, expr: Any, indent: int, width: int = WIDTH) -> list[str]:
    """``label R expr`` with ``expr`` pretty-printed and the relation on its baseline, ``indent`` columns in;
    the further rows of a broken expression are indented two more columns; no line wider than ``width``."""
    head = f"{label:>{indent}}{relation} " if relation else " " * (indent + 2)
    pad = " " * len(head)
    out: list[str] = []
    for k, (lines, row) in enumerate(pretty_rows(expr, width - indent - 4)):
        for r, line in enumerate(lines):
            out.append((head if k == 0 and r == row else pad + ("  " if k else "")) + line)
    return out


def _wrap(text: str, width: int, *, initial_indent: str = "", subsequent_indent: str = "",
          break_on_hyphens: bool = False) -> list[str]:
    """:func:`textwrap.wrap` measured in terminal cells: a Hangul syllable takes two columns
    (:func:`rich.cells.cell_len`); text without wide characters is wrapped by :mod:`textwrap` itself."""
    from rich.cells import cell_len

    if cell_len(text) <= len(text):  # no wide character (combining accents take no cell)
        return textwrap.wrap(text, width, initial_indent=initial_indent, subsequent_indent=subsequent_indent,
                             break_on_hyphens=break_on_hyphens)
    lines: list[str] = []
    line, fresh = initial_indent, True
    for word in re.split(r" (?=\S)", text.strip()):  # "a  [b]" keeps its two spaces
        if not fresh and cell_len(line) + 1 + cell_len(word.rstrip()) > width:
            lines.append(line.rstrip())
            line, fresh = subsequent_indent, True
        line, fresh = (line + word if fresh else line + " " + word), False
    if not fresh:
        lines.append(line.rstrip())
    return lines


def derivation_text(derivation: Derivation, width: int = WIDTH) -> str:
    """What ``derive show`` prints: claim, assumptions, definitions, numbered steps, sources, in lines of
    at most ``width`` columns (default :data:`WIDTH`; ``derive show`` passes a narrower terminal's width).

    Words are shown with their ``$...$`` math as Unicode (:func:`derive.render.textmath.unicode_text`);
    formulas with sympy's Unicode pretty printer, relation signs in one column.
    """
    import re

    from ..i18n import gettext
    from .order import shown_expr
    from .textmath import unicode_text

    def u(text: str) -> str:  # words with their math as Unicode, and the formulas' minus sign
        return re.sub(r"(?:(?<=\s)|(?<=^)|(?<=[(=,/^]))-(?=[\s\w(√]|$)", "−", unicode_text(text))

    lines = [*_wrap(f"{u(derivation.title)}  [{derivation.name}]", width, break_on_hyphens=False), ""]
    if derivation.instance:
        lines[-1:-1] = _wrap(gettext("Proves an instance only:") + f" {u(derivation.instance)}", width,
                                     break_on_hyphens=False)
    if derivation.summary:
        lines += [*_wrap(u(derivation.summary), width, break_on_hyphens=False), ""]
    exprs = [derivation.start, *(shown_expr(s) for s in derivation.steps)]
    names: list = []
    if any(_width(_form(e)[0]) > width - 10 for e in exprs):  # large repeats named once, as on the site
        from .layout import name_repeats

        exprs, names = name_repeats(exprs)
    rel = _REL[derivation.relation]
    lines += [gettext("Claim:"), *relation_block("", "", exprs[0], 4, width),
              *relation_block("", rel, exprs[-1], 4, width), ""]
    if names:
        lines.append(gettext("where (subexpressions that repeat, named once):"))
        for name, value in names:
            lines += [f"    {_form(name)[0][0]}", *relation_block("", "=", value, 4, width)]
        lines.append("")
    if derivation.assumptions:
        lines.append(gettext("Assumptions:"))
        for a in derivation.assumptions:
            lines += _wrap(u(a.text), width, initial_indent="  - ", subsequent_indent="    ",
                                   break_on_hyphens=False)
        lines.append("")
    if derivation.premises:
        rel = {"=": "=", "<=": "≤", "<": "<", ">=": "≥", ">": ">", "!=": "≠"}
        lines.append(gettext("Under the premises:"))
        for a, r, b in derivation.premise_relations:
            rows, _ = _beside([_form(a), _text(f" {rel[r]} "), _form(b)])
            lines += ["    " + row for row in rows]
        lines.append("")
    if derivation.definitions:
        lines.append(gettext("Where:"))
        for lhs, rhs in derivation.definitions:
            lines += [f"    {_one_line(lhs)}", *relation_block("", "=", rhs, 4, width)]
        lines.append("")
    lines += [gettext("Steps:"), *relation_block("", "", exprs[0], 6, width)]
    for k, (step, expr) in enumerate(zip(derivation.steps, exprs[1:], strict=True), 1):
        lines += relation_block(f"({k}) ", _REL[step.relation], expr, 6, width)
        why = u(step.justification)
        if step.rule is not None:
            why += f"  [rule: {reader_words(u(readable(step.rule.describe())))}]"
        if step.citation is not None:
            why += f"  [{step.citation}]"
        lines += _wrap(why, width, initial_indent="        " + gettext("by:") + " ",
                              subsequent_indent=" " * 12,
                               break_on_hyphens=False)
    if derivation.citations:
        lines += ["", *_wrap(gettext("Sources:") + " " + "; ".join(str(c) for c in derivation.citations), width,
                                     subsequent_indent="  ")]
    if derivation.notes:
        lines.append("")
        for n in derivation.notes:
            note = gettext("Note:") + " "
            lines += _wrap(u(n), width, initial_indent=note, subsequent_indent=" " * len(note),
                                   break_on_hyphens=False)
    return "\n".join(line.rstrip() for line in lines)


def failure_text(derivation: Derivation, report: Report) -> str:
    """The first failing step: number, justification, both sides, strategies, counterexample."""
    from ..i18n import gettext, translate

    bad = report.first_failure
    if report.error:
        return "  " + gettext("error: {error}").format(error=report.error)
    if bad is None:
        return ""
    prev = derivation.start if bad.index == 1 else derivation.steps[bad.index - 2].expr
    step = derivation.steps[bad.index - 1]
    lines = [
        "  " + gettext("step {k} {verdict}: {why}").format(k=bad.index, verdict=verdict_word(bad.verdict),
                                                           why=translate(step.justification)),
        "    " + gettext("previous:") + f" {expr_text(prev)}",
        "    " + gettext("claimed:") + f"  {_REL[step.relation]} {expr_text(step.expr)}",
    ]
    if bad.detail:  # the reason an author can act on (a rule's failed condition), before the strategies tried
        lines.append("    " + gettext("why:") + f" {bad.detail}")
    lines.append("    " + gettext("strategy:") + f" {bad.strategy}")
    if bad.counterexample is not None:
        lines.append("    " + gettext("counterexample:") + f" {bad.counterexample}")
    return "\n".join(lines)


def verdict_word(verdict: Verdict | str) -> str:
    """``proved``, ``refuted`` or ``undecided`` in the active language."""
    from ..i18n import translate

    return translate(str(verdict))


def _u(text: str) -> str:
    """A check's name or message with its ``$…$`` math as Unicode (:func:`derive.render.textmath.unicode_text`)."""
    from .textmath import unicode_text

    return unicode_text(text)


def _name(check: Any) -> str:
    """A check's name in the active language, math as Unicode (the name stays the key of its result)."""
    from ..i18n import translate

    return _u(translate(check.name))


def _message(check: Any) -> str:
    """A check's message in the active language (by its form, :func:`derive.i18n.translate_message`)."""
    from ..i18n import translate_message

    return _u(translate_message(check.message))


def failed_checks_text(report: Report) -> str:
    """One line per numeric cross-check that fails the derivation (failed, or required and not evaluated):
    name, message and the seed it drew with."""
    from ..i18n import gettext

    lines = []
    for c in report.checks:
        if not c.ok:
            seed = c.figures.get("seed")
            line = (gettext("cross-check failed: {name}: {message}") if c.evaluated else
                    gettext("cross-check not evaluated (required): {name}: {message}"))
            lines.append("  " + line.format(name=_name(c), message=_message(c))
                         + (" [" + gettext("seed {seed}").format(seed=seed) + "]" if seed is not None else ""))
    return "\n".join(lines)


def report_text(report: Report) -> str:
    """A report in a few lines: per-step verdicts and per-check outcomes."""
    from ..i18n import gettext, translate_message

    word = verdict_word(report.verdict) if report.ok or report.verdict is not Verdict.PROVED else \
        gettext("cross-check failed")
    lines = [f"{report.name}: {word} ({report.seconds:.2f} s)"]
    for s in report.steps:
        extra = f"  {s.counterexample}" if s.counterexample else (f"  ({s.detail})" if s.detail else "")
        flag = " [" + gettext("vacuous") + "]" if s.vacuous else ""
        verdict = verdict_word(s.verdict) + flag
        if s.verdict is Verdict.UNDECIDED and s.detail and not s.counterexample:  # the reason first
            lines.append("  " + gettext("step {k}: {verdict}: {detail} ({strategy})").format(
                k=s.index, verdict=verdict, detail=s.detail, strategy=s.strategy))
        else:
            lines.append("  " + gettext("step {k}: {verdict} by {strategy}").format(
                k=s.index, verdict=verdict, strategy=s.strategy) + extra)
        if s.witness:
            lines.append("    " + gettext("witness:") + f" {translate_message(str(s.witness))}")
        if getattr(s, "excluded", ()):
            lines.append("    " + gettext("holds where both sides are defined:") + f" {', '.join(s.excluded)}")
    for c in report.checks:
        lines.append("  " + gettext("check {outcome} {name}: {message}").format(
            outcome=gettext(_CHECK_WORD[c.state]), name=_name(c), message=_message(c)))
    return "\n".join(lines)


#: a cross-check's state in the terminal
_CHECK_WORD = {CheckState.PASSED: N_("ok"), CheckState.FAILED: N_("FAIL"),
               CheckState.NOT_EVALUATED: N_("NOT EVALUATED")}


def _numeric_cell(report: Report) -> str:
    """``3/3 ok``; ``2/3 ok, 1 not evaluated``: a check that evaluated nothing is never counted as ok."""
    from ..i18n import gettext

    if not report.checks:
        return gettext("none")
    counts = count_checks(report.checks)
    cell = gettext("{ok}/{n} ok").format(ok=counts[CheckState.PASSED], n=len(report.checks))
    if counts[CheckState.NOT_EVALUATED]:
        cell += ", " + gettext("{n} not evaluated").format(n=counts[CheckState.NOT_EVALUATED])
    return cell


def check_table(reports: Sequence[Report]) -> str:
    """The table of ``derive check``: name, symbolic verdict, numeric checks, time (columns by terminal cells)."""
    from rich.cells import cell_len

    from ..i18n import gettext

    rows = [(gettext("derivation"), gettext("symbolic"), gettext("steps proved"), gettext("numeric"), gettext("time"))]
    for r in reports:
        steps = f"{sum(s.ok for s in r.steps)}/{len(r.steps)}"
        rows.append((r.name, verdict_word(r.verdict), steps, _numeric_cell(r), f"{r.seconds:.2f} s"))
    widths = [max(cell_len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for k, row in enumerate(rows):
        out.append("  ".join(cell + " " * (w - cell_len(cell)) for cell, w in zip(row, widths, strict=False)).rstrip())
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def summary_line(reports: Sequence[Report], seconds: float) -> str:
    """E.g. ``2 derivations: 2 passed, 0 failed (1.23 s)``."""
    from ..i18n import gettext

    passed = sum(r.ok for r in reports)
    refuted = sum(r.verdict is Verdict.REFUTED for r in reports)
    undecided = sum((not r.ok) and r.verdict is not Verdict.REFUTED for r in reports)
    unevaluated = sum(not c.evaluated for r in reports for c in r.checks)
    tail = ("; " + (gettext("{n} cross-check not evaluated (not counted as passed)") if unevaluated == 1 else
                    gettext("{n} cross-checks not evaluated (not counted as passed)")).format(n=unevaluated)
            if unevaluated else "")
    line = gettext("{n} derivation: {passed} passed, {failed} failed ({refuted} refuted, {undecided} undecided or "
                   "failing a cross-check) in {seconds} s") if len(reports) == 1 else \
        gettext("{n} derivations: {passed} passed, {failed} failed ({refuted} refuted, {undecided} undecided or "
                "failing a cross-check) in {seconds} s")
    return line.format(n=len(reports), passed=passed, failed=len(reports) - passed, refuted=refuted,
                       undecided=undecided, seconds=f"{seconds:.2f}") + tail
