"""Shared fixtures: a clean registry view for tests that register derivations."""

from __future__ import annotations

import pytest


@pytest.fixture
def catalog():
    """The built-in catalog, loaded."""
    from derive import registry

    registry.load_catalog()
    return registry


@pytest.fixture
def refute_step():
    """``refute_step(derivation, index, wrong, relation=None)``: verify step ``index`` (1-based) with its
    expression replaced by ``wrong``, against the derivation's true previous expression; returns the
    :class:`~derive.report.StepResult` (a short symbolic budget: a wrong claim only has to fail)."""
    import dataclasses

    from derive.verify import verify_step

    def run(derivation, index, wrong, relation=None):
        steps = derivation.steps
        before = derivation.start if index == 1 else steps[index - 2].expr
        step = dataclasses.replace(steps[index - 1], expr=wrong, relation=relation or steps[index - 1].relation)
        return verify_step(before, step, index=index, budget=1.0)

    return run
