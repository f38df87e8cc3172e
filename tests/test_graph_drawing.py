"""The citation graph's drawing (the theory map): narrow enough for the site's text column, every node linked."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("matplotlib")


def test_the_catalog_graph_fits_the_text_column():
    """Furo's text column is about 730 px wide at a 1400 px window: the theory map's graph, three columns of
    derivations, is drawn no wider (labels on two lines: the chapter above the rest of the name), and has no
    background of its own (its box's scroll shadows show through on a phone)."""
    from derive import registry
    from derive.render.graph import columns, graph_svg, label_lines
    from derive.sphinxext.graph import _nodes_of

    registry.load_catalog()
    g = _nodes_of([e.name for e in registry.entries()])
    assert len(g["nodes"]) >= 40 and max(columns(g).values()) >= 2  # chains of citations: three columns
    svg = graph_svg(g, urls={n["name"]: f"#{n['name']}" for n in g["nodes"]})
    width_pt = float(re.search(r'<svg[^>]* width="([\d.]+)pt"', svg).group(1))
    assert width_pt * 96 / 72 <= 730, width_pt
    assert label_lines("softmax.shift-invariance") == ["softmax.", "shift-invariance"]
    assert label_lines("plain") == ["plain"]
    assert all(f'href="#{n["name"]}"' in svg for n in g["nodes"])  # every node links to its derivation
    background = re.search(r'<g id="patch_1">\s*<path [^>]*style="([^"]*)"', svg).group(1)
    assert background == "fill: none", background
