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
def with_last():
    """``with_last(d, expr)``: derivation ``d`` with its final expression replaced (a wrong claim), no checks."""
    import dataclasses

    def replace(derivation, expr):
        last = dataclasses.replace(derivation.steps[-1], expr=expr)
        return dataclasses.replace(derivation, steps=(*derivation.steps[:-1], last), checks=())

    return replace


@pytest.fixture
def derive_check(capsys):
    """``derive_check(*names)``: run ``derive check NAMES`` in-process; returns (exit status, stdout)."""
    from derive.cli import main

    def run(*names):
        code = main(["check", *names])
        out, _ = capsys.readouterr()
        return code, out

    return run
