"""Find raw ASCII math in the visible text of a built site: ``_`` or ``^`` outside math and code.

Used by ``tests/test_docs_site.py`` and runnable by hand on a built site::

    python tests/site_text.py _build/html

Visible text is every text node of a page's body outside ``<script>``, ``<style>``, code (``<code>``,
``<pre>``, ``<kbd>``, ``<tt>``, highlighted blocks) and math (``.math``, MathJax's ``<mjx-container>``,
``<math>``); headings, the table of contents and the sidebar are included. Nothing is fetched.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

#: tags whose text is code or not shown
SKIP_TAGS = {"script", "style", "code", "pre", "kbd", "tt", "samp", "math", "mjx-container", "svg", "title", "head",
             "textarea"}
#: classes whose text is math or code
SKIP_CLASSES = {"math", "highlight", "pre", "literal", "docutils literal", "sig", "sig-name", "descname",
                "sig-prename", "descclassname", "derive-name-ref"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
#: an underscore or caret that reads as ASCII math: x_i, d_model, e^(…), 2^x
RAW = re.compile(r"[^\W_]_[\w{(]|\^[\w({−-]")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[bool] = []  # per open element: inside something skipped?
        self.found: list[str] = []

    def _skipping(self) -> bool:
        return bool(self.stack) and self.stack[-1]

    def handle_starttag(self, tag: str, attrs: list) -> None:
        classes = set((dict(attrs).get("class") or "").split())
        skip = self._skipping() or tag in SKIP_TAGS or bool(classes & SKIP_CLASSES) or tag.startswith("mjx-")
        if tag not in VOID:
            self.stack.append(skip)

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self._skipping():
            return
        for m in RAW.finditer(data):
            self.found.append(data[max(0, m.start() - 40):m.end() + 40].replace("\n", " "))


def raw_math(html: str) -> list[str]:
    """Snippets of ``html``'s visible text around each raw ``_`` or ``^``."""
    parser = _Text()
    parser.feed(html)
    return parser.found


#: editions built inside the English site's directory (``html/ko/``): pages of another edition, not of this one
EDITIONS = ("ko",)


def edition_pages(site: Path) -> list[Path]:
    """Every HTML page of the site in ``site``, leaving out the other editions built inside it (``ko/``)."""
    return sorted(p for p in site.rglob("*.html") if p.relative_to(site).parts[0] not in EDITIONS
                  and ".probe-copy-" not in p.name)  # a probe's copy of a page (site_probe.COPY), not a page


def site_raw_math(site: Path) -> dict[str, list[str]]:
    """Page (relative path) -> snippets, for every page with raw ASCII math (``_sources`` and search left out)."""
    out = {}
    for page in edition_pages(site):
        rel = str(page.relative_to(site))
        if rel.startswith(("_", "search", "genindex", "py-modindex")):
            continue
        found = raw_math(page.read_text())
        if found:
            out[rel] = found
    return out


if __name__ == "__main__":  # pragma: no cover - a tool for looking at a build
    found = site_raw_math(Path(sys.argv[1]))
    for page, snippets in found.items():
        for s in snippets:
            print(f"{page}: {s}")
    print(sum(map(len, found.values())), "raw _ or ^ in visible text")
