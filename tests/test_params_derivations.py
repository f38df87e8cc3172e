"""The params.* derivations: proved, cross-checked, lecture figures as printed, wrong variants refuted."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sympy as sp

from derive import Verdict
from derive import check as verify
from derive.numeric import ValueCheck
from derive.registry import get
from derive.transformer.notation import sym

PARAMS = ["params.attention", "params.attention-bias", "params.gqa-attention", "params.ffn", "params.swiglu-width",
          "params.layer", "params.layer-lecture", "params.layer-approximation", "params.gpt2-total",
          "params.bert-total", "params.llama-total"]

d, h, f = sym("d_model"), sym("n_heads"), sym("d_ff")


@pytest.mark.parametrize("name", PARAMS)
def test_derivation_proved_and_cross_checked(catalog, name):
    report = verify(get(name))
    assert all(s.verdict is Verdict.PROVED for s in report.steps), report
    assert report.ok, report
    assert len(report.checks) >= 3


def _rounded(name):
    from names import Names

    return Names({c.name: c.figures["rounded"] for c in verify(get(name)).checks if "rounded" in c.figures})


def test_lecture_000_figures_as_printed(catalog):
    att = _rounded("params.attention")
    assert att == {**{f"W_i^{m} of one head, 512 × 64": "32768" for m in "QKV"},
                   **{f"W^{m} of all 8 heads": "262144" for m in "QKV"},
                   "W^O, 512 × 512": "262144", "attention block, 4 × 512²": "1048576"}
    assert list(_rounded("params.ffn").values()) == ["1048576", "2048", "1048576", "512", "2099712", "4"]
    layer = _rounded("params.layer-lecture")
    assert layer["one LayerNorm, 2 × 512"] == "1024" and layer["two LayerNorms"] == "2048"
    assert layer["one encoder layer"] == "3150336" and layer["six layers"] == "18902016"
    assert [layer[f"share of {k} (%)"] for k in ("attention", "FFN", "LayerNorm × 2")] == ["33.3", "66.7", "0.1"]
    assert layer["sum of the shares (%)"] == "100" and layer["FFN share as a fraction, about 2/3"] == "0.67"


def test_lecture_002_figures_beside_exact_counts(catalog):
    approx = _rounded("params.layer-approximation")
    assert approx["d = 4096, 32 layers: 12·4096²·32"] == "6.44e9"
    assert approx["GPT-3: 12·12288²·96"] == "1.74e11"
    assert approx["GPT-3 175B exact total (embeddings, positions, final LayerNorm)"] == "174604259328"
    assert approx["relative error at d_model = 512"] == "0.00212"
    swiglu = _rounded("params.swiglu-width")
    assert swiglu["LLaMA-7B width: ⌊2·4·4096/3⌋ = 10922 rounded up to 256"] == "11008"
    assert _rounded("params.gpt2-total")["GPT-2 small total"] == "124439808"
    assert _rounded("params.bert-total")["BERT base total"] == "109482240"
    assert _rounded("params.llama-total")["LLaMA 7B total"] == "6738415616"


def test_closed_forms_are_what_the_issue_states(catalog):
    assert sp.expand(get("params.attention").end - 4 * d**2) == 0
    assert sp.expand(get("params.attention-bias").end - (4 * d**2 + 4 * d)) == 0
    assert sp.expand(get("params.layer").end - (12 * d**2 + 13 * d)) == 0
    assert sp.expand(get("params.ffn").steps[0].expr - (2 * d * f + f + d)) == 0
    assert sp.expand(get("params.swiglu-width").end - 8 * d**2) == 0
    assert get("params.layer-approximation").end == sp.Rational(13, 12) / d


def _with_last(name, expr):
    der = get(name)
    return replace(der, name="test.wrong", steps=(*der.steps[:-1], replace(der.steps[-1], expr=expr)))


@pytest.mark.parametrize(
    "name, wrong",
    [
        ("params.attention", 4 * d**2 * h),          # "parameters grow with the number of heads"
        ("params.attention", 3 * d**2),              # W_O forgotten
        ("params.attention-bias", 4 * d**2 + 3 * d),  # one bias forgotten
        ("params.ffn", 8 * d**2 + 4 * d),            # b_2 forgotten
        ("params.swiglu-width", 12 * d**2),          # the 8d² of a two-matrix FFN is not kept at 4d
        ("params.layer", 12 * d**2 + 12 * d),
        ("params.layer", 12 * d**2),                 # the approximation is not the exact count
        ("params.layer-approximation", sp.Rational(13, 12) / d**2),
    ],
)
def test_wrong_closed_forms_are_refuted(catalog, name, wrong):
    report = verify(_with_last(name, wrong), numeric=False)
    assert report.steps[-1].verdict is Verdict.REFUTED, report
    assert report.steps[-1].counterexample is not None and not report.ok


def test_swiglu_width_4d_does_not_keep_8d2(catalog):
    from derive.rules import Substitute

    der = get("params.swiglu-width")
    wrong_rule = replace(der.steps[-1], rule=Substitute(((f, 4 * d),), "d_ff = 4·d_model"))
    # with the width d_ff = 4·d_model declared instead of (8/3)·d_model, 3·d_model·d_ff is 12·d_model², not 8·d_model²
    wrong = replace(der, name="test.wrong", steps=(der.steps[0], wrong_rule), premises=(sp.Eq(f, 4 * d),))
    report = verify(wrong, numeric=False)
    assert report.steps[-1].verdict is Verdict.REFUTED


def test_wrong_printed_figure_and_wrong_closed_form_fail_the_cross_checks(catalog):
    assert not ValueCheck("layer", sp.Integer(3_150_336), "3,150,337").run(0).passed
    assert not ValueCheck("GPT-3", sp.Integer(12 * 12288**2 * 96), "1.75e11").run(0).passed
    from derive.params import Architecture
    from derive.params.allocate import attention_arrays
    from derive.transformer.parameters import _allocation_check

    check = _allocation_check("wrong", attention_arrays, 4 * d**2 + 4 * d,
                              [Architecture(d_model=8, n_heads=2, d_ff=4, n_layers=1)])
    assert not check.run(0).passed
