"""Sphinx extension: verified derivations, rendered at build time.

Load it with ``extensions = ["derive.sphinxext"]`` (or just ``"derive"``).
It adds:

* the ``derivation`` / ``derivations`` directives (:mod:`.directives`):
  each named derivation is verified while the page is read and rendered
  step by step; a refuted or undecided one is a typed error and fails the
  build (:mod:`.verification`);
* ``derive-cli`` (:mod:`.cli_reference`): the reference of the ``derive`` command
  from its argparse parser;
* ``derive-graph`` (:mod:`derive.sphinxext.graph`): the citation graph of derivations, linked and coloured by verdict;
* ``derive-plot`` (:mod:`.plots`): figures drawn with matplotlib at build time;
* ``derive-params`` / ``derive-presets`` and the role ``derive-count`` (:mod:`.params`):
  parameter-count tables of the presets of :mod:`derive.params`;
* ``quiz`` and the role ``derive-value`` (:mod:`.quiz`): self-check questions whose keys are
  checked against catalog derivations (``derive.quiz``);
* ``exercise`` (:mod:`.exercise`): a statement and, folded, a verified derivation as its solution;
* ``derive-cell`` (:mod:`.cells`): editable Python cells run in the browser by Pyodide, loaded on demand
  from ``derive_pyodide_url``;
* the BibTeX file of :mod:`derive.references`, written before
  sphinxcontrib-bibtex reads it, so the bibliography has one home.

Configuration values:

``derive_seed`` (int)
    base seed of every numeric check (default :data:`derive.settings.DEFAULT_SEED`).
``derive_step_budget`` (float)
    seconds of symbolic strategies per step (default :data:`derive.verify.STEP_BUDGET`).
``derive_modules`` (list of str)
    extra modules of derivations to load: ``.py`` paths relative to ``conf.py`` or module names.
``derive_require_all`` (bool)
    warn (``derive.missing``) when one of the project's derivations is on no page (default True): those
    of ``derive_modules`` (and any other registered outside derive's catalog), and the catalog's own only
    when ``derive_catalog`` is true.
``derive_catalog`` (bool)
    the project publishes derive's built-in catalog (default False; derive's own site sets it). Catalog
    derivations can be shown by name or pattern either way; this only decides whether each one *must* be
    shown somewhere.
``derive_bibfile`` (str)
    where to write the BibTeX file, relative to the directory of ``conf.py`` (default ``_generated/refs.bib``);
    empty to write none.

Environment data (``env.derive_pages`` and ``env.derive_failures``: docname ->
names) is purged and merged per document, so parallel reading is safe.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from sphinx.util import logging

from .. import __version__
from ..collector import tune_collector

logger = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"


def _pages(env: Any) -> dict[str, set[str]]:
    """docname -> names shown there (``env.derive_pages``)."""
    if not hasattr(env, "derive_pages"):
        env.derive_pages = {}
    return env.derive_pages


def _failures(env: Any) -> dict[str, set[str]]:
    """docname -> names that failed verification there (``env.derive_failures``)."""
    if not hasattr(env, "derive_failures"):
        env.derive_failures = {}
    return env.derive_failures


def _steps(env: Any) -> dict[str, tuple[str, str, int, str]]:
    """step label -> (docname, id of its derivation, step number, id of its target) (``env.derive_steps``)."""
    if not hasattr(env, "derive_steps"):
        env.derive_steps = {}
    return env.derive_steps


def _step_ref(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    """Resolve ``{eq}`NAME-k``` to step k of a derivation, printed "step k of Derivation N.M"."""
    from docutils import nodes

    if node.get("refdomain") != "math" or node.get("reftype") != "eq":
        return None
    found = _steps(env).get(node["reftarget"])
    if found is None:
        return None
    docname, box_id, k, target = found
    number = env.toc_fignumbers.get(docname, {}).get("derivation", {}).get(box_id)
    from ..i18n import available, gettext, using

    with using(available(app.config.language)):
        text = gettext("step {k} of Derivation {number}").format(k=k, number=".".join(map(str, number))) \
            if number else gettext("step {k}").format(k=k)
    uri = app.builder.get_relative_uri(node["refdoc"], docname) + "#" + target
    ref = nodes.reference("", "", internal=True, refuri=uri, classes=["derive-step-ref"])
    ref += nodes.Text(text)
    return ref


def note_module_dependencies(directive: Any, *modules: str) -> None:
    """Re-read the directive's page when the source of any of ``modules`` changes (incremental builds).

    A package name stands for every ``.py`` file in it; a user's module brings the user modules it
    imports, transitively (:func:`derive.dependencies.user_files`).
    """
    import importlib

    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError:  # e.g. a derivation added from an interactive session
            continue
        origin = Path(getattr(module, "__file__", "") or "")
        if not origin.name:
            continue
        files = sorted(origin.parent.glob("*.py")) if origin.name == "__init__.py" else [origin]
        for path in files:
            directive.env.note_dependency(str(path))
    from ..dependencies import user_files

    for path in user_files(set(modules)):  # the user's helper modules, imported at any depth
        directive.env.note_dependency(path)


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write ``data`` unless ``path`` already holds it (keeps mtimes, so Sphinx does not re-read)."""
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def _config_inited(app: Any, config: Any) -> None:
    from sphinx.errors import ConfigError

    from ..exceptions import DeriveError
    from ..references import bibtex
    from ..settings import Settings

    try:  # a bad value is one line from sphinx-build (exit 2), not a crash in the middle of a page
        Settings(seed=config.derive_seed, budget=config.derive_step_budget)
    except DeriveError as exc:
        raise ConfigError(f"derive_seed / derive_step_budget in conf.py: {exc}") from None

    from ..i18n import available, gettext, using

    with using(available(config.language)):  # "Derivation 2.1" in the site's language
        config.numfig_format.setdefault("derivation", gettext("Derivation %s"))
    if config.derive_bibfile:
        write_if_changed(Path(app.confdir) / config.derive_bibfile, bibtex().encode())
        files = list(config.bibtex_bibfiles or [])
        if config.derive_bibfile not in files:
            config.bibtex_bibfiles = [*files, config.derive_bibfile]


def _builder_inited(app: Any) -> None:
    from sphinx.errors import ConfigError

    from .. import registry
    from ..exceptions import DeriveError

    specs = app.config.derive_modules
    if not isinstance(specs, (list, tuple)):
        raise ConfigError(f"derive_modules in conf.py must be a list of .py paths or module names, "
                          f"e.g. [\"my_derivation.py\"], got {type(specs).__name__}")
    try:
        for spec in specs:
            if not isinstance(spec, str):
                raise DeriveError(f"{spec!r:.60}: expected a .py path or a module name (text)")
            path = Path(app.confdir) / spec
            registry.load_module(str(path) if spec.endswith(".py") else spec)
    except DeriveError as exc:
        raise ConfigError(f"derive_modules in conf.py: {exc}") from None
    registry.load_catalog()
    _pages(app.env)
    _failures(app.env)
    _steps(app.env)


def published(config: Any) -> list[str]:
    """The names the project must show (``derive_require_all``): its own, and the catalog's if it opts in."""
    from .. import registry

    catalog = bool(config.derive_catalog)
    return [e.name for e in registry.entries() if catalog or e.module not in registry.CATALOG_MODULES]


def _copy_static(app: Any, exc: Exception | None) -> None:
    """Copy the stylesheet and the scroll marker into ``_static`` of an HTML build (without touching
    ``html_static_path``)."""
    if exc is None and app.builder.format == "html":
        from sphinx.util.fileutil import copy_asset_file

        for name in ("derive.css", "derive-scroll.js"):
            copy_asset_file(STATIC / name, Path(app.outdir) / "_static", force=True)


def _purge_doc(app: Any, env: Any, docname: str) -> None:
    _pages(env).pop(docname, None)
    _failures(env).pop(docname, None)
    steps = _steps(env)
    for label in [k for k, v in steps.items() if v[0] == docname]:
        del steps[label]


def _merge_info(app: Any, env: Any, docnames: set[str], other: Any) -> None:
    for table in (_pages, _failures):
        mine = table(env)
        for docname, names in table(other).items():
            if docname in docnames:
                mine[docname] = set(names)
    _steps(env).update({k: v for k, v in _steps(other).items() if v[0] in docnames})


def _check_consistency(app: Any, env: Any) -> None:
    """A failed derivation fails the build; every registered derivation must be shown on some page."""
    failed = sorted(set().union(*_failures(env).values())) if _failures(env) else []
    if failed:
        # whatever -W and suppress_warnings say: the errors were logged where they occurred
        app.statuscode = 1
        logger.info("derive: %d derivation(s) failed verification: %s", len(failed), ", ".join(failed))
    if not app.config.derive_require_all:
        return
    # a failed derivation is on its page too (as its report): warn about it once, as the failure
    shown = set().union(*_pages(env).values(), *_failures(env).values())
    for name in published(app.config):
        if name not in shown:
            logger.warning("derivation %r is registered but shown on no page (add it to a "
                           "'derivation' or 'derivations' directive)", name, type="derive", subtype="missing")


def _pin_bibtex_plugins(app: Any, config: Any) -> None:
    """Resolve the pybtex and sphinxcontrib-bibtex plugins a build uses once, through their registries.

    Both libraries look a plugin up among the installed packages' entry points on every call
    (``importlib.metadata``), and sphinxcontrib-bibtex does so for every citation it resolves: about a tenth
    of a warm build's CPU for the site's few hundred citations. Each plugin the configuration names (and each
    library default) is looked up here once and registered under the same name in the library's own runtime
    store (``register_plugin``), which both consult first. The classes are the ones the lookup returns, so the
    output is unchanged.
    """
    import pybtex.plugin as pybtex_plugin
    from sphinxcontrib.bibtex import plugin as bibtex_plugin

    # the library's defaults (a private table: read defensively, so a pybtex that renames it only loses the saving)
    wanted = set(getattr(pybtex_plugin, "_DEFAULT_PLUGINS", {}).items())
    wanted |= {("pybtex.backends", "plaintext"), ("pybtex.backends", "docutils"),
               ("pybtex.style.formatting", config.bibtex_default_style)}
    # a plugin that cannot be found here is looked up (and reported) as usual by the build itself
    for group, name in sorted(wanted):
        with contextlib.suppress(Exception):
            pybtex_plugin.register_plugin(group, name, pybtex_plugin.find_plugin(group, name), force=True)
    group = "sphinxcontrib.bibtex.style.referencing"
    name = getattr(config, "bibtex_reference_style", "")
    with contextlib.suppress(Exception):
        bibtex_plugin.register_plugin(group, name, bibtex_plugin.find_plugin(group, name), force=True)


def setup(app: Any) -> dict[str, Any]:
    """Register the directives, nodes, config values and event handlers."""
    from ..numeric import DEFAULT_SEED
    from ..verify import STEP_BUDGET
    from . import cells, cli_reference, exercise, graph, notation, params, plots, quiz
    from .directives import DerivationDirective, DerivationsDirective
    from .nodes import (
        VISITORS,
        derivation_fold,
        derivation_node,
        derivation_title,
        derivation_unnumbered,
        link_derivation_names,
        title_of,
        toc_derivations,
        unnumber_toc_derivations,
    )

    tune_collector()
    app.setup_extension("sphinxcontrib.bibtex")
    app.add_config_value("derive_seed", DEFAULT_SEED, "env", types=frozenset({int}))
    app.add_config_value("derive_step_budget", STEP_BUDGET, "env", types=frozenset({float, int}))
    app.add_config_value("derive_modules", [], "env", types=frozenset({list, tuple}))
    app.add_config_value("derive_require_all", True, "env", types=frozenset({bool}))
    app.add_config_value("derive_catalog", False, "env", types=frozenset({bool}))
    app.add_config_value("derive_bibfile", "_generated/refs.bib", "env", types=frozenset({str}))
    app.add_enumerable_node(derivation_node, "derivation", title_of, **VISITORS["derivation"])
    app.add_node(derivation_unnumbered, **VISITORS["derivation"])
    app.add_node(derivation_title, **VISITORS["title"])
    app.add_node(derivation_fold, **VISITORS["fold"])
    app.add_directive("derivation", DerivationDirective)
    app.add_directive("derivations", DerivationsDirective)
    cli_reference.setup(app)
    plots.setup(app)
    params.setup(app)
    quiz.setup(app)
    exercise.setup(app)
    cells.setup(app)
    graph.setup(app)
    notation.setup(app)
    app.connect("config-inited", _config_inited, priority=400)
    app.connect("config-inited", _pin_bibtex_plugins, priority=900)
    app.connect("builder-inited", _builder_inited)
    app.connect("build-finished", _copy_static)
    app.add_css_file("derive.css")
    app.add_js_file("derive-scroll.js", loading_method="defer")
    app.connect("env-purge-doc", _purge_doc)
    app.connect("missing-reference", _step_ref)
    app.connect("env-merge-info", _merge_info)
    app.connect("env-check-consistency", _check_consistency)
    app.connect("doctree-read", toc_derivations, priority=900)  # after the TOC collector (500)
    app.connect("env-get-updated", unnumber_toc_derivations, priority=900)  # after Sphinx numbers the TOC
    app.connect("doctree-resolved", link_derivation_names)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 2}
