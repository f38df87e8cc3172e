"""Parameter tables (:func:`derive.params.breakdown` rows) as text, Markdown and booktabs LaTeX.

The rows come from :func:`derive.params.summary.breakdown`; these functions
only lay them out. Counts are printed exactly with thousands separators,
shares as percentages rounded half-up to one decimal.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..params.summary import Row, percent


def _total(rows: Sequence[Row]) -> int:
    return sum(r.count for r in rows)


def _copies(r: Row) -> str:
    return f"× {r.copies:,}" if r.copies != 1 else ""


def text_table(rows: Sequence[Row], *, formulas: bool = True) -> str:
    """Aligned plain-text table: component, formula of one copy, copies, parameters, share."""
    head = ["component", "formula (one copy)", "copies", "parameters", "share"]
    body = [[r.component, r.formula, _copies(r), f"{r.count:,}", f"{percent(r.share)} %"] for r in rows]
    body.append(["total", "", "", f"{_total(rows):,}", "100.0 %"])
    if not formulas:
        head.pop(1)
        for line in body:
            line.pop(1)
    cols = list(zip(head, *body, strict=True))
    widths = [max(len(x) for x in col) for col in cols]
    right = {len(head) - 1, len(head) - 2}

    def fmt(line: list[str]) -> str:
        return "  ".join(x.rjust(w) if k in right else x.ljust(w) for k, (x, w) in enumerate(zip(line, widths,
                                                                                                   strict=True)))

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(head), rule, *(fmt(b) for b in body[:-1]), rule, fmt(body[-1])]).rstrip()


def markdown_table(rows: Sequence[Row]) -> str:
    """A GitHub/MyST pipe table with ``$…$`` formulas."""
    out = ["| component | formula (one copy) | copies | parameters | share |", "| --- | --- | ---: | ---: | ---: |"]
    for r in rows:
        out.append(f"| {r.component} | ${r.latex}$ | {r.copies:,} | {r.count:,} | {percent(r.share)} % |")
    out.append(f"| **total** | | | **{_total(rows):,}** | 100.0 % |")
    return "\n".join(out)


def _tex_int(n: int) -> str:
    return f"{n:,}".replace(",", "{,}")


def _tex_text(s: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#"),
                 ("×", r"$\times$")):
        s = s.replace(a, b)
    return s


def latex_table(rows: Sequence[Row], *, caption: str = "", label: str = "") -> str:
    r"""A booktabs ``tabular`` (inside ``table`` when a caption or label is given).

    Needs ``\usepackage{booktabs}`` in the preamble.
    """
    lines = [r"\begin{tabular}{llrrr}", r"\toprule",
             r"Component & Formula (one copy) & Copies & Parameters & Share \\", r"\midrule"]
    for r in rows:
        lines.append(f"{_tex_text(r.component)} & ${r.latex}$ & {_tex_int(r.copies)} & {_tex_int(r.count)} & "
                     f"{percent(r.share)}\\,\\% \\\\")
    lines += [r"\midrule", f"Total & & & {_tex_int(_total(rows))} & 100.0\\,\\% \\\\", r"\bottomrule",
              r"\end{tabular}"]
    body = "\n".join(lines)
    if not (caption or label):
        return body
    parts = [r"\begin{table}", r"\centering"]
    if caption:
        parts.append(f"\\caption{{{_tex_text(caption)}}}")
    if label:
        parts.append(f"\\label{{{label}}}")
    return "\n".join([*parts, body, r"\end{table}"])
