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
