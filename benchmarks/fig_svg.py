"""Figure: SVG export of every catalog derivation (issue 12: each in at most 3 s), and the slowest three
against ziamath's own row layout."""

from __future__ import annotations

from .common import Figure, fmt_ratio, fmt_s, ratio, worker
from .fig_catalog import QUICK_STRIDE, catalog_names

#: issue 12: every catalog derivation exports as SVG in at most this many seconds
EACH_TARGET = 3.0
#: the whole catalog exported in one process, CPU seconds
TOTAL_TARGET = 30.0


def run(quick: bool) -> Figure:
    fig = Figure("svg", "SVG export of the catalog",
                 columns=["derivation", "derive (CPU)", "ziamath's own row layout (CPU)", "ratio", "SVG size"])
    _, data = worker("svg_export", *(("1", str(QUICK_STRIDE)) if quick else ("3", "1")))
    if data is None:
        return fig.skip("the SVG worker did not finish")
    rows = data["derivations"]
    n_catalog = len(catalog_names())
    for r in rows[:5]:
        base = r.get("baseline_cpu_s")
        fig.rows.append([r["name"], fmt_s(r["cpu_s"]), fmt_s(base), fmt_ratio(ratio(base, r["cpu_s"])),
                         f"{r['bytes'] / 1e3:,.0f} kB"])
    total = sum(r["cpu_s"] for r in rows)
    what = (f"every {QUICK_STRIDE}th derivation by name ({len(rows)} of {n_catalog})" if quick
            else f"all {len(rows)} derivations")
    fig.rows.append([what, fmt_s(total), "", "", ""])
    slowest = rows[0]
    fig.target(f"slowest single derivation ({slowest['name']})", slowest["cpu_s"], EACH_TARGET)
    if quick:  # the sample's share of the whole catalog's target
        fig.target(f"{what}, one process; the target is {TOTAL_TARGET:g} s × {len(rows)}/{n_catalog}", total,
                   TOTAL_TARGET * len(rows) / n_catalog)
    else:
        fig.target(f"the whole catalog ({len(rows)} derivations), one process", total, TOTAL_TARGET)
    fig.data = {"derivations": rows, "total_cpu_s": total}
    fig.notes += [
        "`derivation_svg` in one process (what `derive export --all --format svg` does per derivation), CPU "
        "seconds after one untimed export that loads the font. The baseline column re-exports the slowest "
        "derivations with ziamath's own row layout, which lays out every child of a row once more without its "
        "stretchy operators before the real layout (so nested rows cost 2^depth layouts); derive runs that "
        "pre-pass only for rows that hold a stretchy operator without a fixed size, the only ones that read "
        "it. Both give the same SVG (checked on the whole catalog when this was written).",
        "Before issue 12 the Pre-LN block took 222 s (stretchy \\left/\\right pairs), then about 6-8 s with "
        "fixed-size fences and lines broken at the width; repeated subexpressions and wide matrix entries are "
        "now named once in a \"where\" list, which also makes the formulas smaller to lay out.",
    ]
    return fig
