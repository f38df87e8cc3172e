"""Shared fixtures: a clean registry view for tests that register derivations."""

from __future__ import annotations

import pytest


@pytest.fixture
def catalog():
    """The built-in catalog, loaded."""
    from derive import registry

    registry.load_catalog()
    return registry


pytest_plugins = ["pytester"]

#: mutant id -> verdict, filled by tests/test_mutations.py
MUTATIONS = pytest.StashKey[dict]()


@pytest.fixture
def mutation_log(pytestconfig):
    """Where the mutation suite records each variant's verdict (for the rejection rate)."""
    return pytestconfig.stash.setdefault(MUTATIONS, {})


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """``mutation rejection: 49/49 (100 %)``: variants refuted or undecided, never proved."""
    log = config.stash.get(MUTATIONS, {})
    if log:
        rejected = sum(v != "proved" for v in log.values())
        terminalreporter.write_line(f"mutation rejection: {rejected}/{len(log)} ({100 * rejected // len(log)} %)")
        missed = sorted(key for key, v in log.items() if v == "proved")
        if missed:
            terminalreporter.write_line("mutants proved (engine accepted a false claim): " + ", ".join(missed))
