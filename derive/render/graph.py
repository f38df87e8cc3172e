"""The citation graph of derivations as DOT text or as an SVG drawing.

The graph comes from :func:`derive.citations.graph` (generated from the steps that cite a derivation, never
typed by hand). Here it is only drawn: nodes are derivations coloured by verdict, an arrow goes from a
derivation to each one it cites, and the cited results stand to the left of the results that use them
(each node's column is the length of the longest chain of citations below it).
"""

from __future__ import annotations

import io
from typing import Any

#: fill colour per verdict (colour-blind-safe: blue proved, orange undecided, vermilion refuted, grey not run)
COLOURS = {"proved": "#cfe3f7", "undecided": "#fbe0b4", "refuted": "#f6c1b0", "not verified": "#e6e6e6"}
EDGES = {"proved": "#2f6fb0", "undecided": "#c77c02", "refuted": "#c0392b", "not verified": "#777777"}


def graph_dot(g: dict, verdicts: dict[str, str] | None = None, urls: dict[str, str] | None = None) -> str:
    """The graph in Graphviz's DOT language (``dot -Tsvg`` draws it).

    Args:
        g: ``{"nodes": [...], "edges": [...]}`` from :func:`derive.citations.graph`.
        verdicts: name -> ``"proved"``, ``"undecided"``, ``"refuted"`` (missing: ``"not verified"``).
        urls: name -> link of the node.
    """
    verdicts, urls = verdicts or {}, urls or {}

    def q(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["digraph derive {", "  rankdir=RL;", '  node [shape=box, style="rounded,filled", fontname="Helvetica"];']
    for n in g["nodes"]:
        verdict = verdicts.get(n["name"], "not verified")
        tip = f"{n['title']} ({verdict}, {n['scope']})"
        attrs = [f"fillcolor={q(COLOURS[verdict])}", f"tooltip={q(tip)}"]
        if n["scope"] != "law":
            attrs.append('peripheries=2')
        if n["name"] in urls:
            attrs.append(f"URL={q(urls[n['name']])}")
        lines.append(f"  {q(n['name'])} [{', '.join(attrs)}];")
    for e in g["edges"]:
        lines.append(f"  {q(e['from'])} -> {q(e['to'])} [label={q('step ' + str(e['step']))}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def columns(g: dict) -> dict[str, int]:
    """name -> column: 0 for a derivation that cites nothing, else 1 + the largest column of what it cites."""
    cites: dict[str, list[str]] = {n["name"]: [] for n in g["nodes"]}
    for e in g["edges"]:
        cites.setdefault(e["from"], []).append(e["to"])
    col: dict[str, int] = {}

    def depth(name: str, seen: tuple = ()) -> int:
        if name not in col:
            below = [depth(c, (*seen, name)) for c in cites.get(name, []) if c not in seen]
            col[name] = 1 + max(below, default=-1)
        return col[name]

    for name in cites:
        depth(name)
    return col


#: the width the drawing keeps within (inches): Furo's text column at a 1400 px window, about 730 px
FIT_WIDTH = 7.6

#: inches per character of an 8 pt DejaVu Sans label (a little more than its mean advance)
CHAR_WIDTH = 0.068


def label_lines(name: str) -> list[str]:
    """A node's label: ``softmax.shift-invariance`` on two lines, its chapter ``softmax.`` above the rest, so
    that the columns of the drawing stay narrow enough for the page's text column."""
    head, dot, rest = name.partition(".")
    return [head + dot, rest] if dot and rest else [name]


def graph_svg(g: dict, verdicts: dict[str, str] | None = None, urls: dict[str, str] | None = None,
              *, title: str = "") -> str:
    """The graph drawn with matplotlib as an SVG document; each node links to ``urls[name]`` if given.

    Raises:
        ImportError: matplotlib is not installed (it comes with the ``docs`` extra).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    verdicts, urls = verdicts or {}, urls or {}
    col = columns(g)
    by_col: dict[int, list[str]] = {}
    for n in g["nodes"]:
        by_col.setdefault(col[n["name"]], []).append(n["name"])
    # within a column, keep the nodes that cite the same results together (their order in the catalog)
    rows = max((len(v) for v in by_col.values()), default=1)
    ncols = max(by_col, default=0) + 1
    # each column as wide as its longest label line (the chapter on one line, the rest of the name below)
    box_w = [max(1.2, CHAR_WIDTH * max((len(line) for name in by_col.get(c, []) for line in label_lines(name)),
                                       default=10) + 0.25) for c in range(ncols)]
    # the gaps between columns shrink (down to a short arrow) before the drawing gets wider than the text column
    room = (FIT_WIDTH - 0.2 - sum(box_w)) / max(ncols - 1, 1)
    box_h, gap_x, gap_y = 0.44, min(0.55, max(0.25, room)), 0.16
    left = [0.1 + sum(box_w[:c]) + c * gap_x for c in range(ncols)]
    width, height = left[-1] + box_w[-1] + 0.1, rows * (box_h + gap_y) + (0.6 if title else 0.2)
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.axis("off")
    pos: dict[str, tuple[float, float]] = {}
    for c, names in by_col.items():
        top = height - (0.6 if title else 0.2) - (rows - len(names)) * (box_h + gap_y) / 2
        for k, name in enumerate(names):
            pos[name] = (left[c], top - (k + 1) * (box_h + gap_y) + gap_y)
    scope = {n["name"]: n["scope"] for n in g["nodes"]}
    for e in g["edges"]:
        (x0, y0), (x1, y1) = pos[e["from"]], pos[e["to"]]
        verdict = verdicts.get(e["to"], "not verified")
        ax.add_patch(FancyArrowPatch((x0, y0 + box_h / 2), (x1 + box_w[col[e["to"]]], y1 + box_h / 2),
                                     arrowstyle="-|>", mutation_scale=9, linewidth=0.8,
                                     color=EDGES[verdict], connectionstyle="arc3,rad=0.08", zorder=1))
    for name, (x, y) in pos.items():
        verdict, w = verdicts.get(name, "not verified"), box_w[col[name]]
        box = FancyBboxPatch((x, y), w, box_h, boxstyle="round,pad=0.02,rounding_size=0.08",
                             facecolor=COLOURS[verdict], edgecolor=EDGES[verdict],
                             linewidth=1.6 if scope[name] == "law" else 0.8,
                             linestyle="-" if scope[name] == "law" else "--", zorder=2)
        ax.add_patch(box)
        lines = label_lines(name)
        texts = [ax.text(x + w / 2, y + box_h / 2 + (0.09 if len(lines) > 1 else 0), lines[0], ha="center",
                         va="center", fontsize=7 if len(lines) > 1 else 8, color="#444" if len(lines) > 1 else "k",
                         zorder=3, family="DejaVu Sans")]
        if len(lines) > 1:
            texts.append(ax.text(x + w / 2, y + box_h / 2 - 0.09, lines[1], ha="center", va="center", fontsize=8,
                                 zorder=3, family="DejaVu Sans"))
        if name in urls:
            box.set_url(urls[name])
            for text in texts:
                text.set_url(urls[name])
    if title:
        ax.text(0.1, height - 0.3, title, ha="left", va="center", fontsize=10, weight="bold")
    out = io.StringIO()
    # no background of its own: the page's box is white, and its scroll shadows show through
    fig.savefig(out, format="svg", metadata={"Date": None}, transparent=True)
    plt.close(fig)
    return out.getvalue()


def legend_text() -> str:
    """One line that says how to read the drawing."""
    from ..i18n import gettext

    return gettext("An arrow goes from a result to a result it cites; cited results stand to the left. Fill: blue "
                   "proved, orange undecided, vermilion refuted, grey not verified; a dashed border is an instance "
                   "or a worked example, a solid one a law proved at symbolic size.")


def verdict_names(reports: Any) -> dict[str, str]:
    """name -> ``"proved"`` (every step proved, every check passed), ``"refuted"`` or ``"undecided"``."""
    out = {}
    for r in reports:
        out[r.name] = "proved" if r.ok else ("refuted" if str(r.verdict) == "refuted" else "undecided")
    return out
