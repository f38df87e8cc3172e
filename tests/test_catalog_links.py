"""Worked examples cite the law they instantiate (issue 22): the edges are in the graph and a wrong instance
proves nothing."""

from __future__ import annotations

import dataclasses

import pytest
import sympy as sp

from derive import Verdict
from derive import check as verify
from derive.citations import graph, uses

LINKS = {
    "example.exercise-residual-zero-init": "residual.zero-init",  # a matrix-symbol law at a 2 × 4 input
    "efficient.online-softmax-example": "efficient.online-softmax-merge",
    "example.two-token-attention": "softmax.shift-invariance",
    "example.max-trick": "softmax.shift-invariance",
    "example.exercise-layernorm-constant": "norms.layernorm-constant-input",
    "example.exercise-causal-first-token": "mask.first-token",
}


@pytest.mark.parametrize("example, law", sorted(LINKS.items()))
def test_the_example_cites_its_law(catalog, example, law):
    d = catalog.get(example)
    assert law in uses(d)
    edges = graph([d])["edges"]
    assert {"from": example, "to": law} in [{k: e[k] for k in ("from", "to")} for e in edges]


def _with_where(d, index, **where):
    step = d.steps[index]
    pairs = dict(step.where if isinstance(step.where, dict) else step.where)
    pairs.update(where)
    new = dataclasses.replace(step, rule=None, where=pairs)
    return dataclasses.replace(d, steps=(*d.steps[:index], new, *d.steps[index + 1:]), checks=())


def test_the_merge_over_a_longer_row_is_not_proved(catalog):
    # the merge holds for any maxima and split (so those instances are fine); a row of 5 is another sum
    d = catalog.get("efficient.online-softmax-example")
    assert verify(dataclasses.replace(d, checks=()), numeric=False).ok
    wrong = verify(_with_where(d, 0, n=sp.Integer(5)), numeric=False)
    assert wrong.steps[0].verdict is Verdict.UNDECIDED and not wrong.ok
    assert "does not occur" in wrong.steps[0].detail


def test_the_zero_init_law_at_a_wrong_size_is_not_proved(catalog):
    d = catalog.get("example.exercise-residual-zero-init")
    wrong = verify(_with_where(d, 0, d_model=sp.Integer(5)), numeric=False)
    assert wrong.steps[0].verdict is Verdict.UNDECIDED
    assert "at the instance" in wrong.steps[0].detail
