"""Docutils nodes of the extension and their HTML/LaTeX/text visitors.

A rendered derivation is one :class:`derivation_node` (numbered like a figure
when it has a label: ``{numref}`` prints "Derivation 2.1") holding a
:class:`derivation_title` and ordinary docutils content (paragraphs, math
blocks, a table). Only the two wrappers need visitors of their own.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes


class derivation_node(nodes.General, nodes.Element):  # noqa: N801 - docutils naming
    """A whole derivation: claim, assumptions, steps, checks. Enumerable as ``"derivation"``."""


class derivation_unnumbered(derivation_node):  # noqa: N801
    """A derivation shown without number or label (``:nonumber:``, ``:claim-only:``).

    A separate class because Sphinx numbers every node of an enumerable class.
    """


class derivation_title(nodes.TextElement):  # noqa: N801
    """The heading line of a derivation ("Derivation 2.1: Softmax is ...")."""


class derivation_fold(nodes.General, nodes.Element):  # noqa: N801
    """Content folded away behind a one-line summary (``<details>`` in HTML; shown as it is elsewhere)."""


def title_of(node: derivation_node) -> str | None:
    """Title getter for numfig and ``{ref}``: the text of the derivation's title."""
    for child in node.children:
        if isinstance(child, derivation_title):
            return child.astext()
    return None


# HTML ---------------------------------------------------------------------


def visit_derivation_html(self: Any, node: derivation_node) -> None:
    self.body.append(self.starttag(node, "div", CLASS="derive-derivation"))


def depart_derivation_html(self: Any, node: derivation_node) -> None:
    self.body.append("</div>\n")


def visit_title_html(self: Any, node: derivation_title) -> None:
    self.body.append(self.starttag(node, "p", CLASS="derive-title"))
    if isinstance(node.parent, derivation_node) and node.parent.get("numbered"):
        self.add_fignumber(node.parent)


def depart_title_html(self: Any, node: derivation_title) -> None:
    if isinstance(node.parent, derivation_node) and node.parent["ids"] and node.parent.get("numbered"):
        self.add_permalink_ref(node.parent, "Link to this derivation")
    self.body.append("</p>\n")


def visit_fold_html(self: Any, node: derivation_fold) -> None:
    import html

    self.body.append(self.starttag(node, "details", CLASS="derive-fold"))
    self.body.append(f"<summary>{html.escape(node.get('summary', ''))}</summary>\n")


def depart_fold_html(self: Any, node: derivation_fold) -> None:
    self.body.append("</details>\n")


# LaTeX / text: plain containers -------------------------------------------------


def visit_plain(self: Any, node: nodes.Element) -> None:
    pass


def depart_plain(self: Any, node: nodes.Element) -> None:
    pass


def visit_title_text(self: Any, node: derivation_title) -> None:
    self.new_state(0)


def depart_title_text(self: Any, node: derivation_title) -> None:
    self.end_state()


VISITORS: dict[str, dict[str, tuple]] = {
    "derivation": {
        "html": (visit_derivation_html, depart_derivation_html),
        "latex": (visit_plain, depart_plain),
        "text": (visit_plain, depart_plain),
        "man": (visit_plain, depart_plain),
        "texinfo": (visit_plain, depart_plain),
    },
    "fold": {
        "html": (visit_fold_html, depart_fold_html),
        "latex": (visit_plain, depart_plain),
        "text": (visit_plain, depart_plain),
        "man": (visit_plain, depart_plain),
        "texinfo": (visit_plain, depart_plain),
    },
    "title": {
        "html": (visit_title_html, depart_title_html),
        "latex": (visit_plain, depart_plain),
        "text": (visit_title_text, depart_title_text),
        "man": (visit_plain, depart_plain),
        "texinfo": (visit_plain, depart_plain),
    },
}


def toc_derivations(app: Any, doctree: nodes.document) -> None:
    """Put each numbered derivation of a page into its "on this page" list (Furo's right-hand TOC), under
    the section that holds it, as ``Title`` linking to the box. Connected to ``doctree-read`` after
    Sphinx's TOC collector has built ``env.tocs[docname]`` from the sections."""
    from sphinx import addnodes

    from ..i18n import available
    from .content import inline

    env = app.env
    docname = env.current_document.docname if hasattr(env, "current_document") else env.docname
    toc = env.tocs.get(docname)
    if toc is None:
        return
    by_anchor: dict[str, nodes.list_item] = {}
    for item in toc.findall(nodes.list_item):
        ref = next(iter(item.findall(nodes.reference)), None)
        if ref is not None:
            by_anchor.setdefault(ref.get("anchorname", ""), item)
    first = next(iter(toc.findall(nodes.list_item)), None)
    language = available(app.config.language)
    added: dict[int, int] = {}
    for box in doctree.findall(derivation_node):
        if not box.get("ids") or not box.get("numbered", True):
            continue
        section = box.parent
        while section is not None and not isinstance(section, nodes.section):
            section = section.parent
        item = None
        if section is not None:
            item = next((by_anchor[f"#{i}"] for i in section["ids"] if f"#{i}" in by_anchor), None)
        item = item or first
        if item is None:
            continue
        # the title's math as math (MathJax typesets the sidebar too), so 10000^(2/d_model) is never raw text
        ref = nodes.reference("", "", *inline(_title_words(box, language)), internal=True, refuri=docname,
                              anchorname="#" + box["ids"][0], derive_derivation=True)
        entry = nodes.list_item("", addnodes.compact_paragraph("", "", ref), classes=["derive-toc-entry"])
        sub = next((c for c in item.children if isinstance(c, nodes.bullet_list)), None)
        if sub is None:
            sub = nodes.bullet_list()
            item += sub
        # in document order: after the derivations already listed and the subsections that come before the box
        before = sum(1 for s in _subsections(section) if _precedes(s, box)) if section is not None else 0
        position = added.get(id(sub), 0) + before
        sub.insert(min(position, len(sub.children)), entry)
        added[id(sub)] = added.get(id(sub), 0) + 1


def _subsections(section: nodes.section) -> list[nodes.section]:
    return [c for c in section.children if isinstance(c, nodes.section)]


def _precedes(node: nodes.Node, other: nodes.Node) -> bool:
    """``node`` comes before ``other`` in their document (by the order of a full traversal)."""
    for n in node.document.findall():
        if n is node:
            return True
        if n is other:
            return False
    return False


def _title_words(box: derivation_node, language: str) -> str:
    """The derivation's title in ``language``, with its ``$...$`` math (the TOC typesets it, not raw TeX)."""
    from .. import registry
    from ..i18n import translate

    try:
        return translate(registry.get(box["derivation"]).title, language)
    except Exception:  # noqa: BLE001 - not in the registry (cannot happen for a rendered box): its anchor
        return box["ids"][0]


def unnumber_toc_derivations(app: Any, env: Any) -> list[str]:
    """Drop the section numbers Sphinx gave the derivations' TOC entries: a derivation
    is "Derivation 2.1", not section 2.2.1 (``env-get-updated``, after the TOC collector numbers sections)."""
    for docname, toc in env.tocs.items():
        numbers = env.toc_secnumbers.get(docname, {})
        for ref in toc.findall(nodes.reference):
            if ref.get("derive_derivation"):
                ref.attributes.pop("secnumber", None)
                numbers.pop(ref.get("anchorname", ""), None)
    return []


def link_derivation_names(app: Any, doctree: nodes.document, docname: str) -> None:
    """``doctree-resolved``: each ``derive-name-ref`` literal (a derivation's name in a note or a
    justification, :func:`derive.sphinxext.content.linked`) becomes a link to that derivation's box, if the
    site shows it numbered (a label of the standard domain); otherwise it stays code."""
    std = app.env.domains["std"] if hasattr(app.env.domains, "__getitem__") else app.env.get_domain("std")
    labels = std.anonlabels
    for lit in list(doctree.findall(nodes.literal)):
        if "derive-name-ref" not in lit.get("classes", ()):
            continue
        target = labels.get(lit.astext())
        if not target or not target[1]:
            continue
        todoc, anchor = target
        uri = "" if todoc == docname else app.builder.get_relative_uri(docname, todoc)
        ref = nodes.reference("", "", internal=True, refuri=f"{uri}#{anchor}", classes=["derive-name-link"])
        lit.replace_self(ref)
        ref += lit
