"""``derive show`` on the whole catalog: sympy's Unicode pretty printer in the author's order, relation signs
in one column, wide formulas broken into rows (never sympy's ``↪`` wrap), no ``str`` fallbacks."""

from __future__ import annotations

import re

import pytest

from derive import registry
from derive.render.text import WIDTH, derivation_text


@pytest.fixture(scope="module")
def shown():
    registry.load_catalog()
    return {e.name: derivation_text(registry.get(e.name)) for e in registry.entries()}


def test_no_raw_sympy_str_tex_or_wrapped_lines_in_any_derivation(shown):
    assert len(shown) >= 60
    bad = {name: [m for m in ("**", "Matrix(", "↪", "$", "Sum(", "Max(", "\\frac", "\\cdot", "_{")
                  if m in text] for name, text in shown.items()}
    assert {k: v for k, v in bad.items() if v} == {}
    wide = {name: max(len(line) for line in text.splitlines()[1:])  # the title line may be long
            for name, text in shown.items()}
    assert {k: v for k, v in wide.items() if v > WIDTH + 20} == {}


def test_relation_signs_of_the_steps_are_in_one_column(shown):
    for name in ("softmax.jacobian", "example.pre-ln-block", "example.pre-ln-attention", "params.bert-total"):
        steps = shown[name].split("\nSteps:\n", 1)[1]
        columns = {len(m.group(1)) for m in re.finditer(r"^( *\(\d+\) )(=|≤|<|≥|>) ", steps, flags=re.M)}
        assert len(columns) == 1, (name, columns)
        assert len(re.findall(r"^ *\(\d+\) ", steps, flags=re.M)) == len(registry.get(name).steps)


def test_authors_order_and_readable_forms_in_the_terminal(shown):
    assert "max(0, a⋅t) - a⋅max(0, t)" in shown["ffn.relu-homogeneity"]
    jac = shown["softmax.jacobian"]
    assert "⋅⎜δ    - " in jac  # s_i times (δ_ij − s_j): the bracket follows the fraction
    assert "zᵢ" in shown["softmax.log-softmax"] and "z[i]" not in shown["softmax.log-softmax"]
    block = shown["example.pre-ln-block"]
    assert "where (subexpressions that repeat, named once):" in block and "ξ₁" in block
    assert "the 2×4 matrix with entries" in block and "  [2,4]: " in block
    bert = shown["params.bert-total"].splitlines()
    assert any(line.lstrip().startswith("+ n_layers⋅(") for line in bert)  # a wide sum split at its + signs
