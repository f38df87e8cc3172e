"""``derive-graph``: the citation graph of derivations, drawn while the site is built.

The directive's argument is a list of name patterns (``softmax.* gradients.*``; none: the whole catalog).
The graph shows those derivations with an edge to or from them, and what they cite (:func:`derive.citations.graph`,
generated from the steps that cite a derivation); each node links to the derivation's box on the site and is
coloured by its verdict in this build. The drawing (:func:`derive.render.graph.graph_svg`) is made when the
page is written, once every derivation's place on the site is known.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


class derive_graph(nodes.General, nodes.Element):  # noqa: N801 - docutils names nodes in lower case
    """Placeholder of a citation graph; replaced by its SVG in ``doctree-resolved``."""


class GraphDirective(SphinxDirective):
    """``derive-graph [PATTERN ...]``; the content is the caption."""

    optional_arguments = 50
    has_content = True

    def run(self) -> list[nodes.Node]:
        from .. import registry
        from .directives import matching

        registry.load_catalog()
        patterns = self.arguments or ["*"]
        names = matching(patterns)
        node = derive_graph(names=names, caption=" ".join(self.content).strip())
        self.set_source_info(node)
        return [node]


def _nodes_of(names: list[str]) -> dict:
    """The graph of the derivations in ``names`` that cite or are cited, with what they cite."""
    from .. import registry
    from ..citations import graph, used_by

    users = used_by()
    keep = [registry.get(n) for n in names if registry.get(n).steps and (users.get(n) or _cites(registry.get(n)))]
    return graph(keep)


def _cites(d: Any) -> bool:
    return any(s.cites for s in d.steps)


def render_graphs(app: Any, doctree: nodes.document, docname: str) -> None:
    """``doctree-resolved``: each placeholder becomes the inline SVG, its nodes linked to the derivations."""
    found = list(doctree.findall(derive_graph))
    if not found:
        return
    from ..i18n import available, using

    with using(available(app.config.language)):  # the caption in the site's language
        _render(app, found, docname)


def _render(app: Any, found: list[derive_graph], docname: str) -> None:
    from .. import registry
    from ..i18n import gettext
    from ..render.graph import graph_svg, legend_text, verdict_names
    from .verification import report_for

    std = app.env.domains["std"] if hasattr(app.env.domains, "__getitem__") else app.env.get_domain("std")
    labels = std.anonlabels
    for node in found:
        g = _nodes_of(node["names"])
        if not g["nodes"]:
            node.replace_self(nodes.paragraph("", gettext("No derivation here cites another one yet.")))
            continue
        reports = [report_for(registry.get(n["name"]), seed=app.config.derive_seed,
                              budget=app.config.derive_step_budget) for n in g["nodes"]]
        urls = {}
        for n in g["nodes"]:
            target = labels.get(n["name"])
            if target and target[1]:
                todoc, anchor = target
                uri = "" if todoc == docname else app.builder.get_relative_uri(docname, todoc)
                urls[n["name"]] = f"{uri}#{anchor}"
        svg = graph_svg(g, verdict_names(reports), urls)
        svg = svg[svg.index("<svg"):]
        box = nodes.container(classes=["derive-graph"])
        box += nodes.raw("", f'<div class="derive-graph-scroll" tabindex="0" role="img" aria-label="citation graph">'
                             f"{svg}</div>", format="html")
        caption = node["caption"] or legend_text()
        box += nodes.paragraph("", caption, classes=["derive-graph-caption"])
        node.replace_self(box)


def setup(app: Any) -> None:
    app.add_node(derive_graph, html=(_skip, None), latex=(_skip, None), text=(_skip, None))
    app.add_directive("derive-graph", GraphDirective)
    app.connect("doctree-resolved", render_graphs, priority=400)


def _skip(self: Any, node: Any) -> None:
    raise nodes.SkipNode
