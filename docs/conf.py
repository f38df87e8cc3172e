"""Sphinx configuration of the derive site (MyST Markdown; built with ``sphinx-build -nW``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import derive

project = "derive"
author = "The derive developers"
copyright = "2026, The derive developers"
version = release = derive.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinxcontrib.bibtex",
    "derive",
    "derive.sphinxext.docstring_math",
]

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "examples"]
root_doc = "index"

# Derivations and equations are numbered; {numref} prints "Derivation 2.1".
numfig = True
math_numfig = True
numfig_secnum_depth = 1

# The getting-started page shows this user module next to the catalog.
derive_modules = ["examples/my_derivation.py"]
# This site publishes derive's own catalog: each of its derivations must be shown on some page.
derive_catalog = True

# Bibliography: derive writes _generated/refs.bib from derive.references at build time.
bibtex_bibfiles: list[str] = []
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"

# API reference
autodoc_typehints = "none"
autodoc_member_order = "bysource"
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# Math offline: MathJax 3 shipped by the sphinx-mathjax-offline package is copied into
# _static/mathjax; the pages load it from there, never from a CDN. This is the one
# MathJax configuration of the site.
_MATHJAX = Path(importlib.util.find_spec("sphinx-mathjax-offline").origin).parent / "static"
mathjax_path = "mathjax/tex-chtml.js"
mathjax3_config = {"chtml": {"matchFontHeight": False}, "options": {"enableMenu": False}}

# Furo: maintained, responsive without Bootstrap or jQuery, previous/next links under every page, an
# "on this page" list on the right, a menu button on phones and a dark mode (MathJax follows its text colour).
html_theme = "furo"
html_static_path = [str(_MATHJAX)]
html_title = f"derive {release}"
html_theme_options = {
    "navigation_with_keys": True,
    "top_of_page_buttons": [],
}

nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(sympy|np|numpy|argparse|docutils|sphinx|matplotlib)\..*"),
    (r"py:.*", r"(fractions|decimal|enum|pathlib|collections|typing)\..*"),
    (r"py:class", r"(Any|Path|Callable|Sequence|Iterable|Expr|optional)"),
    # names that docstrings mention but that are private or not yet in the package
    (r"py:(data|meth|mod)", r"(STRATEGIES|apply|run|derive\.expectation)"),
]


def _resolve_reexports(app, env, node, contnode):
    """Resolve ``derive.params.breakdown`` (a re-export) or ``Weight`` (a name relative to another module)
    to the one documented object whose dotted name ends with the target, e.g. ``derive.params.summary.breakdown``."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip(".~")
    short = target.split(".", 2)[-1] if target.startswith("derive.") else target
    domain = env.domains.python_domain
    found = {name for name in domain.objects if name.startswith("derive.") and name.endswith("." + short)}
    if len(found) != 1:
        return None
    return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], found.pop(), node, contnode)


def _keep_leading_words(app, what, name, obj, options, lines):
    """Undo napoleon's reading of "Words: more words" on a data/attribute/property docstring as a type.

    Types come from annotations here (``autodoc_typehints``), never from docstrings, so a ``:type:`` line
    napoleon made is the docstring's own first words: put them back in front of the text.
    """
    if what not in ("attribute", "data", "property"):
        return
    for k, line in enumerate(lines):
        if line.startswith(":type: "):
            words = line[len(":type: "):]
            del lines[k]
            first = next((j for j, text in enumerate(lines) if text.strip()), None)
            if first is None:
                lines.append(words)
            else:
                lines[first] = f"{words}: {lines[first]}"
            return


def setup(app):
    app.connect("missing-reference", _resolve_reexports)
    app.connect("autodoc-process-docstring", _keep_leading_words, priority=600)
