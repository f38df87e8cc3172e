"""Runnable Python cells: editable code run in the reader's browser by Pyodide.

MyST usage::

    ```{derive-cell}
    :packages: numpy
    :prompt: Try it yourself: change V and run again.

    import numpy as np
    print(np.array([1, 2]) * 2)
    ```

The page shows the code in an editable ``<textarea>``, the prompt, a *Run*
button, an ``aria-live`` status line and an output area. Nothing is loaded
until the reader presses *Run*: the script (``static/derive-cells.js``) then
adds ``pyodide.js`` from the configured location, says so while it loads
(packages named by ``:packages:`` are loaded after the core), runs the code
with ``print`` captured, and shows the output or the traceback. When the
runtime cannot be fetched (no network, or a wrong location) the status line
says so in one sentence instead of waiting forever (after
``derive_pyodide_timeout`` seconds at most); so does a package the runtime
does not have (numpy on a self-hosted core runtime).

``:packages:`` names packages of the Pyodide distribution (``numpy``,
``sympy``: loaded with ``pyodide.loadPackage``, their dependencies with them)
and ``derive`` itself: the build writes derive's pure-Python wheel to
``_static/`` (module ``derive.sphinxext.wheel``, only when a page asks for it) and
the cell installs it with micropip (``deps=False``: :mod:`derive.params` needs
neither numpy nor sympy; name ``sympy`` too for the formulas, and ``sympy numpy`` for building and
checking catalog derivations, whose numeric cross-checks import numpy).

Configuration values:

``derive_pyodide_url`` (str)
    the folder holding ``pyodide.js`` (ending in ``/``); by default the official
    distribution of :data:`PYODIDE_VERSION`. Point it at a self-hosted copy for a
    site that must work offline (the npm package ``pyodide`` holds the core
    runtime only: no numpy and no package files, not even micropip; a self-hosted
    folder needs the full distribution of the same version, or the wheels a page
    uses added with their ``pyodide-lock.json`` entries).
``derive_pyodide_timeout`` (int)
    seconds to wait for the runtime before saying it could not be loaded (default 60).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective
from sphinx.util.osutil import relative_uri

from ..i18n import N_
from .wheel import build_wheel, wheel_name

STATIC = Path(__file__).parent / "static"

#: the Pyodide release the default location points at (the npm package of the same version is the core runtime)
PYODIDE_VERSION = "314.0.8"
#: the official full distribution (the URL scheme of Pyodide's "Downloading and deploying" page; it is also the
#: ``cdnUrl`` that the npm package's own ``pyodide.js`` builds for this version)
DEFAULT_URL = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"
#: the ``:packages:`` name that installs derive's own wheel (the others are loaded from the Pyodide distribution)
DERIVE = "derive"


class cell_node(nodes.General, nodes.Element):  # noqa: N801 - docutils naming
    """A runnable cell: ``code``, ``packages``, ``prompt`` nodes as children, the URL in ``pyodide``."""


#: the status lines of the cell's script (``static/derive-cells.js``), by key: the page gives them in its language
SAY = {"loading": N_("Loading the Python runtime (the first run downloads it; a few seconds)…"),
       "starting": N_("Starting Python…"), "packages": N_("Loading {packages}…"),
       "installing": N_("Installing derive…"), "running": N_("Running…"), "done": N_("Done."),
       "error": N_("The code raised an error (shown below).")}


def _words(translator: Any) -> Any:
    """``gettext`` in the language of the page being written."""
    from ..i18n import available, translate

    language = available(translator.builder.config.language)
    return lambda text: translate(text, language)


def _visit_cell(self: Any, node: cell_node) -> None:
    say = _words(self)
    attrs = {"CLASS": "derive-cell", "data-pyodide": node["pyodide"], "data-timeout": str(node["timeout"])}
    attrs.update({f"data-say-{key}": say(text) for key, text in SAY.items() if say(text) != text})
    if node["packages"]:
        attrs["data-packages"] = " ".join(node["packages"])
    if DERIVE in node["packages"]:
        here = self.builder.get_target_uri(self.builder.current_docname)
        attrs["data-derive-wheel"] = relative_uri(here, "_static/" + wheel_name())
    self.body.append(self.starttag(node, "div", **attrs))
    code = self.encode(node["code"])
    rows = min(max(node["code"].count("\n") + 2, 3), 30)
    label = self.attval(say(N_("Python code (editable)")))
    self.body.append(f'<textarea class="derive-cell-code" rows="{rows}" spellcheck="false" wrap="off" '
                     f'aria-label="{label}">{code}</textarea>\n')


def _depart_cell(self: Any, node: cell_node) -> None:
    say = _words(self)
    run, status = say(N_("Run")), say(N_("Runs in your browser; the first run downloads the Python runtime."))
    self.body.append(f'<p class="derive-cell-bar"><button type="button" class="derive-cell-run">{self.encode(run)}'
                     '</button> <span class="derive-cell-status" role="status" aria-live="polite">'
                     f'{self.encode(status)}</span></p>\n'
                     '<pre class="derive-cell-output" hidden></pre>\n</div>\n')


def _visit_cell_other(self: Any, node: cell_node) -> None:
    block = nodes.literal_block(node["code"], node["code"], language="python")
    node.insert(0, block)


def _skip(self: Any, node: nodes.Element) -> None:
    pass


class CellDirective(SphinxDirective):
    """``derive-cell``: an editable Python cell with a Run button (Pyodide, loaded on demand)."""

    has_content = True
    option_spec: ClassVar[dict] = {"packages": directives.unchanged, "prompt": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content).strip("\n") + "\n"
        node = cell_node(code=code, packages=self.options.get("packages", "").split(),
                         pyodide=self.config.derive_pyodide_url, timeout=self.config.derive_pyodide_timeout,
                         classes=["derive-cell"])
        self.set_source_info(node)
        if DERIVE in node["packages"]:
            wanted = getattr(self.env, "derive_wheel_pages", set())
            wanted.add(self.env.docname)
            self.env.derive_wheel_pages = wanted
        prompt = self.options.get("prompt")
        if prompt:
            text_nodes, messages = self.state.inline_text(prompt, self.lineno)
            # a message of the page's gettext catalog, like the page's own paragraphs
            para = nodes.paragraph(prompt, "", *text_nodes, classes=["derive-cell-prompt"])
            self.set_source_info(para)
            node += para
            node += messages
        return [node]


def _copy_assets(app: Any, exc: Exception | None) -> None:
    if exc is None and app.builder.format == "html":
        from sphinx.util.fileutil import copy_asset_file

        copy_asset_file(STATIC / "derive-cells.js", Path(app.outdir) / "_static", force=True)
        if getattr(app.env, "derive_wheel_pages", None):
            build_wheel(Path(app.outdir) / "_static")


def _purge(app: Any, env: Any, docname: str) -> None:
    getattr(env, "derive_wheel_pages", set()).discard(docname)


def _merge(app: Any, env: Any, docnames: Any, other: Any) -> None:
    env.derive_wheel_pages = getattr(env, "derive_wheel_pages", set()) | getattr(other, "derive_wheel_pages", set())


def setup(app: Any) -> None:
    """Register ``derive-cell``, its node, the two settings and the loader script."""
    app.add_config_value("derive_pyodide_url", DEFAULT_URL, "html", types=frozenset({str}))
    app.add_config_value("derive_pyodide_timeout", 60, "html", types=frozenset({int}))
    other = (_visit_cell_other, _skip)
    app.add_node(cell_node, html=(_visit_cell, _depart_cell), latex=other, text=other, man=other, texinfo=other)
    app.add_directive("derive-cell", CellDirective)
    app.add_js_file("derive-cells.js", loading_method="defer")
    app.connect("build-finished", _copy_assets)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
