"""The ``derive`` pytest plugin (entry point ``pytest11``: installed with derive).

What it adds to pytest:

* ``pytest --derive`` (or ``derive = true`` in the ini file) collects the
  user's derivations as test items whose id is the derivation's name
  (``derive::mine.square-of-sum``): those of the modules listed in the ini
  setting ``derive_modules`` (``.py`` paths relative to the ini file, or
  importable module names, one per line) and any other derivation registered
  outside derive's own catalog. The derivations of the built-in catalog
  are collected only on request: ``--derive-catalog`` (which implies
  ``--derive``) or ``derive_catalog = true`` in the ini file. Select with
  ``-k`` as usual (``pytest --derive -k square``), or ``-m derivation``.
* the ``derive_check`` fixture: ``derive_check(derivation_or_name)`` fails the
  test unless every step is proved and every cross-check passes, with a
  readable message (step number, justification, both sides, strategies,
  counterexample, seeds); it returns the report.
* the ``derive_check`` marker: per-test settings, e.g.
  ``@pytest.mark.derive_check(seed=7, rtol=1e-6)``; they apply to the
  fixture and to :mod:`derive.testing`'s helpers called in that test.
* ``--derive-seed N``, ``--derive-atol X``, ``--derive-rtol X``,
  ``--derive-budget SECONDS``: the settings of every check in the session,
  shown in the header line ``derive: seed ..., atol ..., rtol ..., budget ...``.

Loading the plugin is cheap: this module imports only pytest and
:mod:`derive.settings` (no numpy, no sympy); the heavy parts are imported when
a derivation test runs.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from .exceptions import DeriveError
from .settings import OPTION_HELP, Settings, using

pytest.register_assert_rewrite("derive.testing")

_SETTINGS = pytest.StashKey[Settings]()
_ENABLED = pytest.StashKey[bool]()
_CATALOG = pytest.StashKey[bool]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("derive", "derive: derivations as tests")
    group.addoption("--derive", action="store_true", default=False,
                    help="collect your derivations (derive_modules) as tests")
    group.addoption("--derive-catalog", action="store_true", default=False,
                    help="also collect the built-in catalog of derivations (implies --derive)")
    for name, kind, metavar in (("seed", int, "N"), ("atol", float, "X"), ("rtol", float, "X"),
                                ("budget", float, "SECONDS")):
        group.addoption(f"--derive-{name}", type=kind, default=None, metavar=metavar, help=OPTION_HELP[name])
    parser.addini("derive", type="bool", default=False,
                  help="collect your derivations as tests (same as --derive)")
    parser.addini("derive_catalog", type="bool", default=False,
                  help="with --derive, also collect the built-in catalog (same as --derive-catalog)")
    parser.addini("derive_modules", type="linelist", default=[],
                  help="your derivation modules: .py paths (relative to the ini file) or module names")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "derive_check(seed=None, atol=None, rtol=None, budget=None): settings of derive's checks "
                   "(the derive_check fixture and derive.testing helpers) in this test")
    config.addinivalue_line("markers", "derivation: a derivation collected by --derive")
    try:
        config.stash[_SETTINGS] = Settings().merged(
            seed=config.getoption("derive_seed"), atol=config.getoption("derive_atol"),
            rtol=config.getoption("derive_rtol"), budget=config.getoption("derive_budget"))
    except DeriveError as exc:
        raise pytest.UsageError(f"derive: {exc}") from None
    config.stash[_CATALOG] = bool(config.getoption("derive_catalog") or config.getini("derive_catalog"))
    config.stash[_ENABLED] = bool(config.getoption("derive") or config.getini("derive")
                                  or config.getoption("derive_catalog"))
    if config.stash[_ENABLED]:
        config.pluginmanager.register(_Summary(config), "derive-summary")


def pytest_report_header(config: pytest.Config) -> str:
    line = f"derive: {config.stash[_SETTINGS].header()}"
    if config.stash[_ENABLED]:
        if config.stash[_CATALOG]:
            line += "; collecting derivations (with the catalog)"
        elif config.getini("derive_modules"):
            line += "; collecting derivations"
        else:
            line += "; collecting derivations (none listed in derive_modules; --derive-catalog for the catalog)"
    return line


def _settings_for(item: pytest.Item) -> Settings:
    base = item.config.stash[_SETTINGS]
    marker = item.get_closest_marker("derive_check")
    if marker is None:
        return base
    if marker.args:
        raise DeriveError("the derive_check marker takes keyword settings only (seed, atol, rtol, budget); "
                          "pass derivations to the derive_check fixture")
    return base.merged(**marker.kwargs)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """Run each test with its derive settings active (command line, then marker)."""
    with using(_settings_for(item)):
        return (yield)


@pytest.fixture
def derive_check(request: pytest.FixtureRequest) -> Any:
    """``derive_check(derivation_or_name, *, numeric=True) -> Report``; fails the test unless proved."""
    settings = _settings_for(request.node)

    def check(derivation: Any, *, numeric: bool = True) -> Any:
        __tracebackhide__ = True
        from .testing import assert_proved

        return assert_proved(derivation, numeric=numeric, **dataclasses.asdict(settings))

    return check


# --------------------------------------------------------------------------
# collection of the registered derivations
# --------------------------------------------------------------------------


def _user_modules(config: pytest.Config) -> list[str]:
    base = config.inipath.parent if config.inipath is not None else config.rootpath
    specs = []
    for spec in config.getini("derive_modules"):
        path = base / spec
        specs.append(str(path) if spec.endswith(".py") else spec)
    return specs


class DerivationCollector(pytest.Collector):
    """The collector of the registered derivations (node id ``derive``): the user's, and the catalog on request."""

    def collect(self) -> list[pytest.Item]:
        from . import registry

        catalog = self.config.stash[_CATALOG]
        return [DerivationItem.from_parent(self, name=e.name) for e in registry.entries()
                if catalog or e.module not in registry.CATALOG_MODULES]


class DerivationItem(pytest.Item):
    """One registered derivation as a test: passes when every step is proved and every check passes."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_marker("derivation")

    def runtest(self) -> None:
        from . import registry
        from .testing import assert_proved

        report = assert_proved(registry.get(self.name), **dataclasses.asdict(_settings_for(self)))
        # a cross-check that evaluated nothing passes nothing: counted apart in the summary line
        unevaluated = [c.name for c in report.checks if not c.evaluated]
        if unevaluated:
            self.user_properties.append(("derive_not_evaluated", unevaluated))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, (AssertionError, DeriveError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        import sys

        from . import registry

        module = registry.entry(self.name).module
        path = getattr(sys.modules.get(module), "__file__", None)
        return (Path(path) if path else self.path), None, f"derivation {self.name}"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Append one item per registered derivation (before -k/-m deselection runs)."""
    if not config.stash[_ENABLED]:
        return
    from . import registry

    try:
        if config.stash[_CATALOG]:  # first, so a user's module that reuses a catalog name is the one reported
            registry.load_catalog()
        for spec in _user_modules(config):
            registry.load_module(spec)
    except DeriveError as exc:
        raise pytest.UsageError(f"derive: {exc}") from None
    collector = DerivationCollector.from_parent(session, name="derive", nodeid="derive")
    collected = collector.collect()
    # tell the reporters, so "collected N items" counts the derivations
    config.hook.pytest_collectreport(report=pytest.CollectReport(collector.nodeid, "passed", None, collected))
    items.extend(collected)


class _Summary:
    """Counts the derivation items' outcomes for the terminal summary line."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.outcomes: dict[str, str] = {}
        self.unevaluated: dict[str, list[str]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.nodeid.startswith("derive::") and (report.when == "call" or report.outcome != "passed"):
            self.outcomes[report.nodeid] = report.outcome
            for key, names in report.user_properties:
                if key == "derive_not_evaluated":
                    self.unevaluated[report.nodeid] = list(names)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.outcomes:
            return
        passed = sum(o == "passed" for o in self.outcomes.values())
        unevaluated = sum(len(v) for v in self.unevaluated.values())
        tail = (f"; {unevaluated} cross-check(s) not evaluated, not counted as passed "
                f"({', '.join(k.removeprefix('derive::') for k in self.unevaluated)})" if unevaluated else "")
        terminalreporter.write_line(
            f"derive: {len(self.outcomes)} derivation(s) checked, {passed} proved, {len(self.outcomes) - passed} "
            f"failed{tail} ({self.config.stash[_SETTINGS].header()})")
