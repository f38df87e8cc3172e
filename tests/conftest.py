"""Shared fixtures: a clean registry view for tests that register derivations."""

from __future__ import annotations

import pytest


@pytest.fixture
def catalog():
    """The built-in catalog, loaded."""
    from derive import registry

    registry.load_catalog()
    return registry


@pytest.fixture(autouse=True, scope="session")
def _private_report_cache(tmp_path_factory):
    """Keep the verification cache of the test run out of the user's ~/.cache."""
    import os

    old = os.environ.get("DERIVE_CACHE_DIR")
    os.environ["DERIVE_CACHE_DIR"] = str(tmp_path_factory.mktemp("derive-cache"))
    yield
    if old is None:
        os.environ.pop("DERIVE_CACHE_DIR", None)
    else:
        os.environ["DERIVE_CACHE_DIR"] = old
