"""The citation graph of derivations as DOT text or as an SVG drawing.

The graph comes from :func:`derive.citations.graph` (generated from the steps that cite a derivation, never
typed by hand). Here it is only drawn: nodes are derivations coloured by verdict, an arrow goes from a
derivation to each one it cites, and the cited results stand to the left of the results that use them
(each node's column is the length of the longest chain of citations below it); the connected parts of the graph
are packed side by side into shelves as wide as the site's content column.
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


#: the width the drawing fits (inches; 72 pt each): the site's content column at 1400 px is 736 px = 552 pt
FIT_WIDTH = 7.6


def _label(name: str) -> str:
    """A node's label on two lines, the chapter prefix above the rest (``gradients.`` / ``layernorm-jacobian``)."""
    head, dot, tail = name.partition(".")
    return f"{head}{dot}\n{tail}" if dot and tail else name


def components(g: dict) -> list[list[str]]:
    """The weakly connected parts of the graph, largest first (ties by first name), each in catalog order."""
    names = [n["name"] for n in g["nodes"]]
    parent = {n: n for n in names}

    def root(n: str) -> str:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for e in g["edges"]:
        a, b = root(e["from"]), root(e["to"])
        if a != b:
            parent[max(a, b)] = min(a, b)
    parts: dict[str, list[str]] = {}
    for n in names:
        parts.setdefault(root(n), []).append(n)
    return sorted(parts.values(), key=lambda p: (-len(p), min(p)))


def layout(g: dict, box_w: float, box_h: float, gap_x: float, gap_y: float,
           fit: float = FIT_WIDTH) -> tuple[dict[str, tuple[float, float]], float, float]:
    """Node positions (lower-left corners, inches from the top-left) and the drawing's width and height.

    Each connected part is drawn on its own, cited results to the left (:func:`columns`); the parts are
    packed into shelves no wider than ``fit`` (a part wider than that gets a shelf of its own), so the
    drawing fits the site's content column instead of running past it.
    """
    col = columns(g)
    placed: list[tuple[list[str], float, float]] = []
    for part in components(g):
        by_col: dict[int, list[str]] = {}
        for name in part:
            by_col.setdefault(col[name], []).append(name)
        ncols, rows = max(by_col) + 1, max(len(v) for v in by_col.values())
        placed.append((part, ncols * box_w + (ncols - 1) * gap_x, rows * box_h + (rows - 1) * gap_y))
    pos: dict[str, tuple[float, float]] = {}
    x = y = shelf_h = 0.0
    width = 0.0
    for part, w, h in placed:
        if x > 0 and x + w > fit:
            x, y, shelf_h = 0.0, y + shelf_h + 2 * gap_y, 0.0
        by_col = {}
        for name in part:
            by_col.setdefault(col[name], []).append(name)
        rows = max(len(v) for v in by_col.values())
        for c, names in by_col.items():
            top = y + (rows - len(names)) * (box_h + gap_y) / 2
            for k, name in enumerate(names):
                pos[name] = (x + c * (box_w + gap_x), top + k * (box_h + gap_y))
        width = max(width, x + w)
        x, shelf_h = x + w + 1.5 * gap_x, max(shelf_h, h)
    return pos, width, y + shelf_h


def graph_svg(g: dict, verdicts: dict[str, str] | None = None, urls: dict[str, str] | None = None,
              *, title: str = "") -> str:
    """The graph drawn with matplotlib as an SVG document; each node links to ``urls[name]`` if given.

    Connected parts are drawn side by side and wrap onto new shelves (:func:`layout`), so the drawing is at
    most ``FIT_WIDTH`` inches wide unless one part alone is wider.

    Raises:
        ImportError: matplotlib is not installed (it comes with the ``docs`` extra).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    verdicts, urls = verdicts or {}, urls or {}
    lines = [line for n in g["nodes"] for line in _label(n["name"]).split("\n")]
    longest = max((len(t) for t in lines), default=10)
    box_w, box_h, gap_x, gap_y = max(1.1, 0.058 * longest + 0.2), 0.42, 0.42, 0.16
    pos, inner_w, inner_h = layout(g, box_w, box_h, gap_x, gap_y)
    margin, head = 0.08, (0.4 if title else 0.0)
    width, height = inner_w + 2 * margin, inner_h + 2 * margin + head
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.axis("off")
    # from the top-left layout to matplotlib's bottom-left axes
    corner = {n: (margin + x, height - margin - head - y - box_h) for n, (x, y) in pos.items()}
    scope = {n["name"]: n["scope"] for n in g["nodes"]}
    for e in g["edges"]:
        (x0, y0), (x1, y1) = corner[e["from"]], corner[e["to"]]
        verdict = verdicts.get(e["to"], "not verified")
        ax.add_patch(FancyArrowPatch((x0, y0 + box_h / 2), (x1 + box_w, y1 + box_h / 2),
                                     arrowstyle="-|>", mutation_scale=9, linewidth=0.8,
                                     color=EDGES[verdict], connectionstyle="arc3,rad=0.08", zorder=1))
    for name, (x, y) in corner.items():
        verdict = verdicts.get(name, "not verified")
        box = FancyBboxPatch((x, y), box_w, box_h, boxstyle="round,pad=0.02,rounding_size=0.08",
                             facecolor=COLOURS[verdict], edgecolor=EDGES[verdict],
                             linewidth=1.6 if scope[name] == "law" else 0.8,
                             linestyle="-" if scope[name] == "law" else "--", zorder=2)
        ax.add_patch(box)
        text = ax.text(x + box_w / 2, y + box_h / 2, _label(name), ha="center", va="center", fontsize=7.5,
                       zorder=3, family="DejaVu Sans", linespacing=1.15)
        if name in urls:
            box.set_url(urls[name])
            text.set_url(urls[name])
    if title:
        ax.text(margin, height - 0.25, title, ha="left", va="center", fontsize=10, weight="bold")
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None})
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
