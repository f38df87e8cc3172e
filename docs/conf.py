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

# Languages: the English sources are translated through gettext catalogs, docs/locales/<lang>/LC_MESSAGES/*.po
# (`sphinx-build -b gettext docs docs/_build/gettext && sphinx-intl update -p docs/_build/gettext -l ko -d
# docs/locales`); `-D language=ko` builds the Korean site. One catalog per page (gettext_compact off), so a
# chapter's translation lives next to nothing else. The derivations' own text comes from the package's catalog.
language = "en"
locale_dirs = ["locales"]
gettext_compact = False
gettext_uuid = False
gettext_location = False
# a translation whose English source changed is marked fuzzy by sphinx-intl and is not used
gettext_allow_fuzzy_translations = False
# in a translated build each paragraph of the catalogs gets the class "translated", or "untranslated" when its entry
# is missing or stale (its English changed): tests/test_docs_korean.py finds no "untranslated" on the pages the
# Korean site must translate, and measures the Hangul of the "translated" ones
translation_progress_classes = True
#: the site's languages: the switch at the top of every page (docs/_templates/language-switch.html) links each
#: page to itself in the other builds. Folder of each build relative to the English one: `sphinx-build docs
#: docs/_build/html` and `sphinx-build -D language=ko docs docs/_build/html/ko`.
DERIVE_LANGUAGES = {"en": ("English", ""), "ko": ("한국어", "ko/")}
templates_path = ["_templates"]

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


def _language_links(app, pagename, templatename, context, doctree):
    """Give every page ``derive_language_links``: (code, label, relative href, is this build) per language.

    A page ``chapters/softmax`` of the build in folder ``ko/`` reaches the English one at
    ``../../chapters/softmax.html``: up out of its own folder and its build's folder, then down into the other.
    """
    here = app.config.language or "en"
    if here not in DERIVE_LANGUAGES:
        return
    up = "../" * (pagename.count("/") + DERIVE_LANGUAGES[here][1].count("/"))
    context["derive_language_links"] = [
        (code, label, f"{up}{folder}{pagename}.html", code == here)
        for code, (label, folder) in DERIVE_LANGUAGES.items()
    ]


def setup(app):
    app.connect("html-page-context", _language_links)
    app.connect("missing-reference", _resolve_reexports)
    app.connect("autodoc-process-docstring", _keep_leading_words, priority=600)
