"""Parameter tables (:func:`derive.params.breakdown` rows) and compute/memory tables
(:func:`derive.params.budget.budget`) as text, Markdown and booktabs LaTeX.

The rows come from :func:`derive.params.summary.breakdown`; these functions
only lay them out. Counts are printed exactly with thousands separators,
shares as percentages rounded half-up to one decimal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len

from ..i18n import N_, gettext, translate
from ..params.summary import Row, percent

if TYPE_CHECKING:  # pragma: no cover
    from ..params.budget import Budget


def _head() -> list[str]:
    """The headers of a component table in the active language."""
    return [gettext(h) for h in (N_("component"), N_("formula (one copy)"), N_("copies"), N_("parameters"),
                                 N_("share"))]


def _total(rows: Sequence[Row]) -> int:
    return sum(r.count for r in rows)


def _copies(r: Row) -> str:
    return f"× {r.copies:,}" if r.copies != 1 else ""


def text_table(rows: Sequence[Row], *, formulas: bool = True) -> str:
    """Aligned plain-text table: component, formula of one copy, copies, parameters, share."""
    head = _head()
    body = [[translate(r.component), r.formula, _copies(r), f"{r.count:,}", f"{percent(r.share)} %"] for r in rows]
    body.append([gettext("total"), "", "", f"{_total(rows):,}", "100.0 %"])
    if not formulas:
        head.pop(1)
        for line in body:
            line.pop(1)
    cols = list(zip(head, *body, strict=True))
    widths = [max(cell_len(x) for x in col) for col in cols]  # terminal cells: a Hangul letter takes two
    right = {len(head) - 1, len(head) - 2}

    def fmt(line: list[str]) -> str:
        pads = [" " * (w - cell_len(x)) for x, w in zip(line, widths, strict=True)]
        return "  ".join(pad + x if k in right else x + pad for k, (x, pad) in enumerate(zip(line, pads,
                                                                                             strict=True)))

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(head), rule, *(fmt(b) for b in body[:-1]), rule, fmt(body[-1])]).rstrip()


def markdown_table(rows: Sequence[Row]) -> str:
    """A GitHub/MyST pipe table with ``$…$`` formulas."""
    out = ["| " + " | ".join(_head()) + " |", "| --- | --- | ---: | ---: | ---: |"]
    for r in rows:
        out.append(f"| {translate(r.component)} | ${r.latex}$ | {r.copies:,} | {r.count:,} | {percent(r.share)} % |")
    out.append(f"| **{gettext('total')}** | | | **{_total(rows):,}** | 100.0 % |")
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
             " & ".join(_tex_text(h[:1].upper() + h[1:]) for h in _head()) + r" \\", r"\midrule"]
    for r in rows:
        lines.append(f"{_tex_text(translate(r.component))} & ${r.latex}$ & {_tex_int(r.copies)} & "
                     f"{_tex_int(r.count)} & {percent(r.share)}\\,\\% \\\\")
    total = gettext("total")
    lines += [r"\midrule", f"{total[:1].upper() + total[1:]} & & & {_tex_int(_total(rows))} & 100.0\\,\\% \\\\",
              r"\bottomrule", r"\end{tabular}"]
    body = "\n".join(lines)
    if not (caption or label):
        return body
    parts = [r"\begin{table}", r"\centering"]
    if caption:
        parts.append(f"\\caption{{{_tex_text(caption)}}}")
    if label:
        parts.append(f"\\label{{{label}}}")
    return "\n".join([*parts, body, r"\end{table}"])


# compute and memory ---------------------------------------------------------------------------------------


def budget_rows(b: Budget) -> list[tuple[str, str, str, str]]:
    """``(quantity, plain formula, LaTeX formula, value)`` for the FLOPs and memory of :class:`Budget` ``b``.

    The formulas are the closed forms of the derivations named in the module docstring of
    :mod:`derive.transformer.compute`; the values are the exact integers of :func:`derive.params.budget.budget`.
    """
    from ..params.summary import human_bytes, sci

    f, kv = b.flops, b.kv
    ctx = f"n_ctx = {f.context:,}"
    rows = [
        (gettext("forward FLOPs per token, exact ({ctx})").format(ctx=ctx),
         "2·(matrix weights) + 4·n_layers·n_ctx·h·d_k",
         r"2 W_{\text{mat}} + 4 N n_{\text{ctx}} h d_k", f"{f.forward:,} ({sci(f.forward)})"),
        (gettext("forward FLOPs per token, Kaplan et al. 2020"), "2N + 2·n_layers·n_ctx·d_attn",
         r"2 N_{\text{params}} + 2 N n_{\text{ctx}} d_{\text{attn}}",
         f"{f.kaplan_forward:,} ({sci(f.kaplan_forward)})"),
        (gettext("training FLOPs per token, exact"), "3 × forward", r"3\, C_{\text{forward}}",
         f"{f.training:,} ({sci(f.training)})"),
        (gettext("training FLOPs per token, Kaplan et al. 2020"), "6N + 6·n_layers·n_ctx·d_attn",
         r"6 N_{\text{params}} + 6 N n_{\text{ctx}} d_{\text{attn}}",
         f"{f.kaplan_training:,} ({sci(f.kaplan_training)})"),
        (gettext("KV cache per token ({dtype})").format(dtype=kv.dtype), "2·n_layers·n_kv_heads·d_k·b",
         r"2 N h_{kv} d_k b", f"{kv.per_token:,} B ({human_bytes(kv.per_token)})"),
        (gettext("KV cache, batch {batch} × {context} tokens").format(batch=f"{kv.batch:,}", context=f"{kv.context:,}"),
         "2·B·n_ctx·n_layers·n_kv_heads·d_k·b", r"2 B n_{\text{ctx}} N h_{kv} d_k b",
         f"{kv.total:,} B ({human_bytes(kv.total)})"),
        (gettext("training memory, mixed-precision Adam"), "(2 + 2 + 4 + 4 + 4)·N_params = 16·N_params",
         r"16\, N_{\text{params}}", f"{b.training_bytes:,} B ({human_bytes(b.training_bytes)})"),
    ]
    if b.active != b.total:
        rows.insert(0, (gettext("active parameters per token (mixture of experts)"),
                        "total − n_layers·(n_exp − k_exp)·(one expert)",
                        r"P - N (n_{\text{exp}} - k_{\text{exp}}) P_{\text{expert}}", f"{b.active:,}"))
    return rows


def budget_text_table(b: Budget) -> str:
    """The compute and memory figures as aligned plain text."""
    rows = budget_rows(b)
    w0, w1 = max(len(r[0]) for r in rows), max(len(r[1]) for r in rows)
    return "\n".join(f"{q.ljust(w0)}  {p.ljust(w1)}  {v}" for q, p, _, v in rows)


def budget_markdown_table(b: Budget) -> str:
    """A pipe table: quantity, formula (``$…$``), value."""
    out = ["| " + " | ".join(gettext(h) for h in (N_("quantity"), N_("formula"), N_("value"))) + " |",
           "| --- | --- | ---: |"]
    out += [f"| {q} | ${tex}$ | {v} |" for q, _, tex, v in budget_rows(b)]
    return "\n".join(out)


def budget_latex_table(b: Budget) -> str:
    r"""A booktabs ``tabular`` of the compute and memory figures (needs ``\usepackage{booktabs}``)."""
    head = (gettext(h) for h in (N_("quantity"), N_("formula"), N_("value")))
    lines = [r"\begin{tabular}{llr}", r"\toprule", " & ".join(h[:1].upper() + h[1:] for h in head) + r" \\",
             r"\midrule"]
    for q, _, tex, v in budget_rows(b):
        lines.append(f"{_tex_text(q)} & ${tex}$ & {_tex_text(v).replace(',', '{,}')} \\\\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)
