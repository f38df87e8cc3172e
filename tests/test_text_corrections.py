"""Statements in the catalog and the chapters that an expert reading found wrong (issue 24), held right.

Each test checks the statement against the computation it describes, so the wrong wording fails again.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import sympy as sp

from derive.registry import names

CHAPTERS = Path(__file__).resolve().parents[1] / "docs" / "chapters"


def _text(d) -> str:
    return " ".join([d.title, d.summary or "", *(a.text for a in d.assumptions), *d.notes])


def test_xavier_gains_are_off_by_the_same_amount_not_the_same_factor(catalog):
    d = catalog.get("init.example-xavier-512-2048")
    from names import Names

    values = Names({c.name: c.exact for c in d.checks if hasattr(c, "exact")})
    forward = values["forward gain n_in·Var(w) = 512/1280"]
    backward = values["backward gain n_out·Var(w) = 2048/1280"]
    assert 1 - forward == backward - 1 == sp.Rational(3, 5)  # the same amount, 0.6
    assert backward / forward == 4 and (1 / forward) != backward  # not the same factor
    text = " ".join(d.notes)
    assert "same factor" not in text
    assert "same amount, 0.6" in text.replace("\n", " ") and "ratio is $n_{\\text{out}}/n_{\\text{in}} = 4$" in text


def test_gpt2_residual_scaling_is_attributed_to_the_paper_nanogpt_and_hugging_face(catalog):
    d = catalog.get("init.gpt2-residual-scaling")
    text = _text(d)
    assert "at every depth" not in d.title  # only the variance after the last addition is derived
    assert "OpenAI's released GPT-2 code does not apply it" in text
    assert "nanoGPT" in text and "Hugging Face" in text
    assert "In GPT-2's code" not in text
    # what is derived is the final variance: the chain ends at σ_0² + σ_f², N gone
    assert len(d.end.free_symbols) == 2 and "n_res" not in {s.name for s in d.end.free_symbols}


def test_alibi_example_slope_is_head_one_of_eight_heads(catalog):
    from names import Names

    values = Names({c.name: c.exact for c in catalog.get("alibi.slopes-geometric").checks if hasattr(c, "exact")})
    assert values["h = 8: slope of head 1"] == sp.Rational(1, 2)  # the example's m = 1/2
    assert sp.nsimplify(values["h = 16: slope of head 1, 2^(−1/2)"] ** 2) == sp.Rational(1, 2)  # not 1/2
    text = _text(catalog.get("alibi.example"))
    assert "head 1 of h = 8" in text and "first head of h = 16 has 2^(−1/2))" not in text


def test_llama_rounding_is_called_checked_not_derived():
    text = (CHAPTERS / "modern-variants.md").read_text(encoding="utf-8")
    assert "rounding to 11008 are derived" not in text
    assert re.search(r"11008 at \$d = 4096\$\) is checked\s+there numerically", text)


def test_every_derivations_directive_in_the_chapters_matches_a_registered_derivation():
    registered = set(names())
    assert registered
    for page in sorted(CHAPTERS.glob("*.md")):
        for line in page.read_text(encoding="utf-8").splitlines():
            m = re.match(r"```\{derivations\}\s+(.*)$", line.strip())
            if m:
                patterns = m.group(1).split()
                hits = [n for n in registered if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
                assert hits, f"{page.name}: `derivations {' '.join(patterns)}` matches nothing"


def test_swiglu_derivation_and_chapter_define_swiglu_with_the_output_matrix(catalog):
    chapter = (CHAPTERS / "modern-variants.md").read_text(encoding="utf-8")
    assert r"\operatorname{SwiGLU}(x) = \bigl(\operatorname{Swish}(x W_1) \odot x W_3\bigr) W_2" in chapter
    d = catalog.get("ffn.swiglu")
    assert "SwiGLU(s·x)W₂" not in _text(d)  # W₂ is part of SwiGLU, not applied after it
    assert "W_2" in _text(d) or "W₂" in _text(d)
    assert "SwiGLU(s·x) ≈ s²·½(xW ⊙ xV)W₂" in d.title
    # the claim's end carries W₂: the limit is ½ Σ_k u_k v_k (W₂)_kc
    assert "W_2" in str(d.end)
