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


#: internal spellings a reader never sees on the site: helper symbols, summation indices, operator settings
INTERNAL = {"helper index": r"b_row|c_col|k_hidden|i_pair|[A-Za-z]\[b_\w", "s_len": r"s_len|sₗₑₙ",
            "sigma2 as σ₂": r"σ₂|sigma2", "eps": r"\beps\b",
            "LayerNorm's settings": r"LayerNorm\((?!x\))|LN\([^)]*, 0\)",
            "ReLU's value tuple": r"ReLU\([^)]*\(\(", "E²(…) for E[X]²": r"\bE²\(",
            "two minus signs": r"(?<=\w) - (?=\w)", "TeX or sympy brackets": r"\b[lr](?:ceil|floor)\b|\bceiling\(",
            "a word subscript in parentheses": r"_\([A-Za-z_]+\)", "operator words glued": r"[a-z](?:cos|sin) ",
            "a developer's file": r"\b[A-Z_]+\.md\b"}


def test_show_uses_the_readers_names_and_fits_100_columns(shown):
    """Every catalog derivation: no internal name (the site's notation instead), one minus sign, and no line
    wider than 100 columns, the title included."""
    bad = {(name, what): m.group() for name, text in shown.items() for what, pattern in INTERNAL.items()
           for m in [re.search(pattern, re.sub(r"\b[a-z0-9]+\.[a-z0-9-]+\b", "", text))] if m}  # names hold words
    assert bad == {}
    wide = {name: max(len(line) for line in text.splitlines()) for name, text in shown.items()}
    assert {k: v for k, v in wide.items() if v > WIDTH} == {}
    grad = shown["gradients.layernorm-grad-along-xhat"]
    assert "ε + σ²" in grad and "s⋅(ε + σ²)" in grad
    assert "LN(" in shown["example.pre-ln-block"]


def test_one_line_reprs_of_a_derivation_and_a_report():
    from derive.report import Report, StepResult, Verdict

    registry.load_catalog()
    d = registry.get("attention.scaled-variance")
    text = repr(d)
    assert text.startswith("<Derivation attention.scaled-variance: ") and "\n" not in text and len(text) <= 100
    assert "Var(" in text and "= 1>" in text
    block = repr(registry.get("example.pre-ln-block"))
    assert "[2×4 matrix]" in block and len(block) <= 100 and "\n" not in block
    r = Report("x.y", (StepResult(1, Verdict.PROVED, "expand", 0.1),), (), 0.25)
    assert repr(r) == "<Report x.y: proved, 1/1 steps proved, 0.25 s>"
    assert "PASS" not in str(r) and str(r).startswith("x.y: proved")


def test_relation_signs_of_the_steps_are_in_one_column(shown):
    for name in ("softmax.jacobian", "example.pre-ln-block", "example.pre-ln-attention", "params.bert-total"):
        steps = shown[name].split("\nSteps:\n", 1)[1]
        columns = {len(m.group(1)) for m in re.finditer(r"^( *\(\d+\) )(=|≤|<|≥|>) ", steps, flags=re.M)}
        assert len(columns) == 1, (name, columns)
        assert len(re.findall(r"^ *\(\d+\) ", steps, flags=re.M)) == len(registry.get(name).steps)


def test_authors_order_and_readable_forms_in_the_terminal(shown):
    assert "max(0, a⋅t) − a⋅max(0, t)" in shown["ffn.relu-homogeneity"]
    jac = shown["softmax.jacobian"]
    assert "⋅⎜δ    − " in jac  # s_i times (δ_ij − s_j): the bracket follows the fraction
    assert "zᵢ" in shown["softmax.log-softmax"] and "z[i]" not in shown["softmax.log-softmax"]
    block = shown["example.pre-ln-block"]
    assert "where (subexpressions that repeat, named once):" in block and "ξ₁" in block
    assert "the 2×4 matrix with entries" in block and "  [2,4]: " in block
    bert = shown["params.bert-total"].splitlines()
    assert any(line.lstrip().startswith("+ N⋅(") for line in bert)  # a wide sum split at its + signs


def test_a_fraction_wider_than_the_terminal_is_stacked():
    """A fraction whose numerator is wider than the line: the numerator broken into rows over one bar."""
    import sympy as sp

    from derive.render.text import pretty_rows

    xs = sp.symbols("x1:13", positive=True)
    m = sp.Symbol("M", positive=True)
    rows = pretty_rows(sp.Add(*[k * x for k, x in enumerate(xs, 1)]) / m, 40)
    assert len(rows) == 1
    lines, base = rows[0]
    assert max(len(line) for line in lines) <= 40 and set(lines[base]) == {"─"} and lines[-1].strip() == "M"
    assert base >= 2 and lines[1].lstrip().startswith("+ ")  # the numerator on rows, the 2nd starts with +


def test_show_fits_a_narrow_terminal():
    registry.load_catalog()
    text = derivation_text(registry.get("efficient.flash-attention-io"), width=60)
    assert max(len(line) for line in text.splitlines()) <= 60 and "N ≫ d" in text
