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
    "example.temperature-table": "softmax.shift-invariance",  # pinned scores z = (2, 0, 1), one row at a time
    "example.rmsnorm": "norms.rmsnorm-scale-invariance",  # entry by entry (a Tuple of instances)
    "example.pe-table": "positional.rotation",  # a 2 × 1 matrix claim used entry by entry
    "example.pre-ln-attention": "softmax.shift-invariance",
    "example.pre-ln-block": "norms.layernorm-shift-scale-invariance",
    "gradients.example-cross-entropy": "gradients.softmax-cross-entropy",
    "gradients.example-layernorm-jacobian": "gradients.layernorm-jacobian",  # ε = 0 with σ² + ε > 0
    "init.he-variance": "init.relu-second-moment",  # the law uses the normal instance it needs
}


def test_every_worked_example_and_instance_is_linked_to_a_law(catalog):
    """No exemptions: a worked example cites a law; a derivation proved only for an instance cites a law or
    is cited by one; the graph of the whole catalog has no cycle and at least 40 edges."""
    from derive import registry
    from derive.citations import scope, used_by

    everything = [catalog.get(n) for n in registry.names()]
    g = graph(everything)  # raises on a cycle
    assert len(g["edges"]) >= 40
    laws = {n["name"] for n in g["nodes"] if n["scope"] == "law"}
    users = used_by()
    unlinked = []
    for d in everything:
        cites_law = any(name in laws for name in uses(d))
        if scope(d) == "worked example" and not cites_law:
            unlinked.append(d.name)
        elif d.instance and not (cites_law or set(users.get(d.name, ())) & laws):
            unlinked.append(d.name)
    assert unlinked == []


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
    report = verify(dataclasses.replace(d, checks=()), numeric=False)
    assert report.ok, [(s.index, str(s.verdict), s.strategy, s.detail, s.witness) for s in report.steps]
    wrong = verify(_with_where(d, 0, n=sp.Integer(5)), numeric=False)
    assert wrong.steps[0].verdict is Verdict.UNDECIDED and not wrong.ok
    assert "does not occur" in wrong.steps[0].detail


def test_the_zero_init_law_at_a_wrong_size_is_not_proved(catalog):
    d = catalog.get("example.exercise-residual-zero-init")
    wrong = verify(_with_where(d, 0, d_model=sp.Integer(5)), numeric=False)
    assert wrong.steps[0].verdict is Verdict.UNDECIDED
    assert "at the instance" in wrong.steps[0].detail


def test_the_jacobian_example_at_a_constant_token_is_not_proved(catalog):
    # ε = 0 needs σ² > 0: at x = (2, 2, 2) the law's premise σ² + ε > 0 fails at the instance
    d = catalog.get("gradients.example-layernorm-jacobian")
    constant = tuple(sp.Eq(p.lhs, 2) for p in d.premises)
    wrong = verify(dataclasses.replace(d, premises=constant, checks=()), numeric=False)
    assert wrong.steps[0].verdict is Verdict.UNDECIDED
    assert "> 0 of gradients.layernorm-jacobian is not proved at the instance" in wrong.steps[0].detail


def test_the_rotation_at_a_wrong_position_is_not_proved(catalog):
    d = catalog.get("example.pe-table")
    wrong = verify(_with_where(d, 1, pos=sp.Integer(5)), numeric=False)
    assert wrong.steps[1].verdict is Verdict.UNDECIDED and "does not occur" in wrong.steps[1].detail
