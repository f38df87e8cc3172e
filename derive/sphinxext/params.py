"""Parameter-count tables of the presets (:mod:`derive.params`), rendered at build time.

``derive-params PRESET [PRESET ...]``
    for each preset (``*`` for all of them): a table with one row per component
    (formula of one copy, copies, exact count, share), the total beside the
    size the source reports, the preset's notes, and a second table of FLOPs per
    token, KV cache and training memory (:func:`derive.params.budget.budget`).
    ``:no-formulas:`` drops the formula column; ``:context: N`` and ``:batch: B``
    set the context length and batch of the second table; ``:no-budget:`` drops it.
``derive-compute``
    one table of every preset at its default context (or ``:context: N``):
    forward FLOPs per token (exact and Kaplan's), KV cache per token and for the
    context, training memory with mixed-precision Adam.
``derive-presets``
    one table of every preset: exact total, its short form, the reported size,
    the 12·d_model²·layers rule of thumb, and the source.
``{derive-count}`PRESET```
    (role) the exact total of a preset inline, with thousands separators.

The counts are the exact integers of :func:`derive.params.summarize`; nothing
is typed into the page.
"""

from __future__ import annotations

from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective, SphinxRole

from ..i18n import N_, available, gettext, translate, using
from .content import paragraph, scrolling, table_with_head, with_code_names


def _table(head: tuple[str, ...], rows: list[list[nodes.Node | str]], widths: tuple[int, ...],
           classes: tuple[str, ...] = ()) -> nodes.table:
    table, body = table_with_head(["derive-params", *classes], head, widths)
    for cells in rows:
        row = nodes.row()
        for cell in cells:
            row += nodes.entry("", cell if isinstance(cell, nodes.paragraph) else paragraph(*with_code_names(cell)))
        body += row
    return table


def budget_table(arch: Any, *, context: int | None = None, batch: int = 1) -> list[nodes.Node]:
    """Nodes for the compute and memory of ``arch``: a caption line and a quantity/formula/value table."""
    from ..params.budget import budget
    from ..render.params_table import budget_rows

    b = budget(arch, context, batch)
    rows: list[list[nodes.Node | str]] = [[q, paragraph(nodes.math(tex, tex)), v] for q, _, tex, v in budget_rows(b)]
    where = {"--context": gettext("as given"), "max_position_embeddings": gettext("the model's "
                                                                                "max_position_embeddings"),
             "default": gettext("default")}[b.context_source]
    line = paragraph(gettext("Compute and memory at a context of {context} tokens ({where}); estimates: 2 FLOPs "
                             "per multiply-add of the matrix products, full context per token, KV cache in bf16, "
                             "mixed-precision Adam at 16 bytes per parameter before activations.").format(
                                 context=f"{b.flops.context:,}", where=where),
                     classes=("derive-budget-caption",))
    head = (gettext("quantity"), gettext("formula"), gettext("value"))
    return [line, _table(head, rows, (40, 30, 30), ("derive-budget",))]


def breakdown_table(preset_name: str, *, formulas: bool = True, budget: bool = True, context: int | None = None,
                    batch: int = 1) -> list[nodes.Node]:
    """Nodes for one preset: a title line, the component table, total vs reported, notes, compute and memory.

    Raises:
        derive.exceptions.InputError: unknown preset.
    """
    from ..params import get_preset, summarize
    from ..params.summary import human, percent

    preset = get_preset(preset_name)
    summary = summarize(preset.arch, formulas=formulas)
    rows: list[list[nodes.Node | str]] = []
    for r in summary.rows:
        cells: list[nodes.Node | str] = [translate(r.component)]
        if formulas:
            cells.append(paragraph(nodes.math(r.latex, r.latex)))
        cells += [f"× {r.copies:,}" if r.copies != 1 else "", f"{r.count:,}", f"{percent(r.share)} %"]
        rows.append(cells)
    total: list[nodes.Node | str] = [paragraph(nodes.strong(gettext("total"), gettext("total")))]
    if formulas:
        total.append("")
    total += ["", paragraph(nodes.strong(f"{summary.total:,}", f"{summary.total:,}")), "100.0 %"]
    rows.append(total)
    head = tuple(gettext(h) for h in ((N_("component"), N_("formula (one copy)"), N_("copies"), N_("parameters"),
                                        N_("share")) if formulas else (N_("component"), N_("copies"),
                                                                        N_("parameters"), N_("share"))))
    widths = (30, 34, 8, 18, 10) if formulas else (46, 12, 28, 14)
    title = paragraph(nodes.strong(preset.arch.name, preset.arch.name), nodes.Text(" ("),
                      nodes.literal(preset.name, preset.name), nodes.Text(")"), classes=("derive-preset-title",))
    out: list[nodes.Node] = [title, scrolling(_table(head, rows, widths))]
    exact = {"total": f"{summary.total:,}", "short": human(summary.total), "source": preset.source}
    line = (gettext("Exact total {total} (≈ {short}); the source reports {reported}. Source: {source}.").format(
        reported=preset.reported, **exact) if preset.reported else
        gettext("Exact total {total} (≈ {short}). Source: {source}.").format(**exact))
    out.append(paragraph(*with_code_names(line)))
    for note in preset.notes:
        out.append(paragraph(*with_code_names(translate(note)), classes=("derive-preset-note",)))
    if budget:
        out += budget_table(preset.arch, context=context, batch=batch)
    return out


class ParamsDirective(SphinxDirective):
    """``derive-params PRESET ...``: the component table of each preset (``*``: all); ``:fold: SUMMARY``
    puts the tables in a closed ``<details>`` whose visible line is ``SUMMARY``."""

    required_arguments = 1
    optional_arguments = 50
    option_spec: ClassVar[dict] = {"no-formulas": directives.flag, "no-budget": directives.flag,
                                   "context": directives.positive_int, "batch": directives.positive_int,
                                   "fold": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        with using(available(self.config.language)):  # the words in the site's language
            return self._run()

    def _run(self) -> list[nodes.Node]:
        from ..exceptions import InputError
        from ..params import PRESETS
        from . import note_module_dependencies

        note_module_dependencies(self, "derive.params")
        names = list(PRESETS) if self.arguments == ["*"] else self.arguments
        out: list[nodes.Node] = []
        for name in names:
            try:
                out += breakdown_table(name, formulas="no-formulas" not in self.options,
                                       budget="no-budget" not in self.options, context=self.options.get("context"),
                                       batch=self.options.get("batch", 1))
            except InputError as exc:
                raise self.error(str(exc)) from None
        if "fold" in self.options:
            from .quiz import make_fold

            box = make_fold(self.options["fold"], out)
            self.set_source_info(box.children[0])  # its line is a message of the page's catalog (translated)
            return [box]
        return out


class PresetsDirective(SphinxDirective):
    """``derive-presets``: every preset's exact total beside the reported size."""

    def run(self) -> list[nodes.Node]:
        with using(available(self.config.language)):
            return self._run()

    def _run(self) -> list[nodes.Node]:
        from ..params import PRESETS, summarize
        from ..params.summary import human
        from . import note_module_dependencies

        note_module_dependencies(self, "derive.params")
        rows: list[list[nodes.Node | str]] = []
        for name, preset in PRESETS.items():
            s = summarize(preset.arch, formulas=False)
            rows.append([paragraph(nodes.literal(name, name)), preset.arch.name, f"{s.total:,}", human(s.total),
                         preset.reported or "—", human(s.rule_of_thumb), preset.source])
        head = (gettext("preset"), gettext("model"), gettext("exact count"), "≈", gettext("reported"),
                gettext("12·d²·layers"), gettext("source"))
        return [scrolling(_table(head, rows, (12, 13, 15, 8, 8, 10, 34), ("derive-presets",)))]


class ComputeDirective(SphinxDirective):
    """``derive-compute``: FLOPs per token, KV cache and training memory of every preset."""

    option_spec: ClassVar[dict] = {"context": directives.positive_int}

    def run(self) -> list[nodes.Node]:
        with using(available(self.config.language)):
            return self._run()

    def _run(self) -> list[nodes.Node]:
        from ..params import PRESETS
        from ..params.budget import budget
        from ..params.summary import human_bytes, sci
        from . import note_module_dependencies

        note_module_dependencies(self, "derive.params")
        rows: list[list[nodes.Node | str]] = []
        for name, preset in PRESETS.items():
            b = budget(preset.arch, self.options.get("context"))
            f, kv = b.flops, b.kv
            rows.append([paragraph(nodes.literal(name, name)), f"{f.context:,}", sci(f.forward), sci(f.kaplan_forward),
                         sci(f.training), human_bytes(kv.per_token) if kv.per_token else "—",
                         human_bytes(kv.total) if kv.total else "—", human_bytes(b.training_bytes)])
        head = (gettext("preset"), r"$n_{\text{ctx}}$", gettext("forward FLOPs/token"),
                r"Kaplan $2N + 2 n_{\text{layers}} n_{\text{ctx}} d_{\text{attn}}$", gettext("training FLOPs/token"),
                gettext("KV cache/token (bf16)"),
                gettext(r"KV cache, $n_{\text{ctx}}$ tokens"), gettext("training memory (Adam, 16 B/param)"))
        return [_table(head, rows, (14, 8, 12, 12, 12, 12, 12, 14), ("derive-compute",))]


class CountRole(SphinxRole):
    """``{derive-count}`PRESET```: the exact parameter count of a preset, e.g. ``3,150,336``."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        from ..exceptions import InputError
        from ..params import get_preset, summarize

        try:
            total = summarize(get_preset(self.text.strip()).arch, formulas=False).total
        except InputError as exc:
            msg = self.inliner.reporter.error(str(exc), line=self.lineno)
            return [nodes.problematic(self.rawtext, self.rawtext)], [msg]
        text = f"{total:,}"
        return [nodes.inline(text, text, classes=["derive-count"])], []


def setup(app: Any) -> None:
    app.add_directive("derive-params", ParamsDirective)
    app.add_directive("derive-presets", PresetsDirective)
    app.add_directive("derive-compute", ComputeDirective)
    app.add_role("derive-count", CountRole())
