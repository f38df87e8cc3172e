"""Plain-text math in docstrings and generated pages marked up as math (:mod:`derive.render.plainmath`,
:mod:`derive.sphinxext.docstring_math`): what the API and benchmark pages show instead of raw ``_``/``^``."""

from __future__ import annotations

import pytest

from derive.render.plainmath import mark_markdown, to_tex


@pytest.mark.parametrize("text, tex", [
    ("(Σ_i f_i)² = Σ_i Σ_j f_i f_j", r"(\sum_{i} f_{i})^{2} = \sum_{i} \sum_{j} f_{i} f_{j}"),
    ("Σ_(s≤t) 4·h", r"\sum_{s\le t} 4\cdot h"),
    ("10^(−0.6·digits)", r"10^{-0.6\cdot \mathrm{digits}}"),
    ("ω_i = 10000^(−2i/d_model)", r"\omega _{i} = 10000^{-2i/d_{\text{model}}}"),
    ("δ_jl", r"\delta _{jl}"),
])
def test_plain_text_math_as_tex(text, tex):
    assert to_tex(text) == tex


@pytest.mark.parametrize("text, marked", [
    ("peak RSS at d_k = 512, n = 100,000", "peak RSS at $d_{k} = 512$, n = 100,000"),
    ("q, k ~ N(0, I_512) with OPENBLAS_L2_SIZE unset", "q, k ~ N(0, $I_{512}$) with `OPENBLAS_L2_SIZE` unset"),
    ("config t5-v1_1-small", "config `t5-v1_1-small`"),
    ("2·n_layers·d_attn", r"2·`n_layers`·$d_{\text{attn}}$"),
    ("claim `Eq(x_i, 1)` and $y_j$ stay", "claim `Eq(x_i, 1)` and $y_j$ stay"),  # code and math untouched
    ("no math here, 3 < 4", "no math here, 3 < 4"),
])
def test_markdown_lines_mark_math_and_code_names(text, marked):
    assert mark_markdown(text) == marked


def test_docstring_lines_become_rest_with_math_roles_and_code():
    from derive.sphinxext.docstring_math import rewrite

    lines = [
        "Known moments: E[x_i] = μ and E[x_i²] = σ² + μ² for each family.",
        "",
        ":param false_rejection: the probability, see ``z_x`` and :class:`a_b`",
        "",
        "Example::",
        "",
        "    x_i = y^2",
        "",
        ">>> f(x_i)",
        "1",
        "",
        "====  ==============",
        "name  model",
        "====  ==============",
        "gpt2  GPT2Model",
        "neox  ``gpt_neox`` (Pythia, n_layers)",
        "====  ==============",
    ]
    rewrite(lines)
    assert lines[0] == (r"Known moments: \ :math:`E[x_{i}] = \mu`\  and \ :math:`E[x_{i}^{2}] = \sigma ^{2} + "
                        r"\mu ^{2}`\  for each family.")
    assert lines[2] == ":param false_rejection: the probability, see ``z_x`` and :class:`a_b`"
    assert lines[6] == "    x_i = y^2" and lines[8] == ">>> f(x_i)"  # literal block and doctest stay
    table = lines[11:]
    assert table[4] == r"neox  ``gpt_neox`` (Pythia, \ ``n_layers``\ )"
    assert table[0] == table[2] == table[5] == "====  " + "=" * (len(table[4]) - 6)  # widened to fit


def test_rewritten_docstrings_build_without_warnings(tmp_path):
    """A docstring with math, a table and a field list through autodoc and napoleon: no warning, math typeset."""
    pytest.importorskip("sphinx")
    import subprocess
    import sys

    (tmp_path / "mod_pm.py").write_text('''"""Sums.

====  ====
a     x_i
====  ====
"""


def f(chunk_bytes):
    """Σ_l f(l)·δ_jl → f(j) and lim a^c, for n_layers.

    Args:
        chunk_bytes: bytes per chunk, at most 2^20.
    """
''')
    (tmp_path / "conf.py").write_text("extensions = ['sphinx.ext.autodoc', 'sphinx.ext.napoleon', "
                                      "'sphinx.ext.mathjax', 'derive.sphinxext.docstring_math']\n")
    (tmp_path / "index.rst").write_text("API\n===\n\n.. automodule:: mod_pm\n   :members:\n")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-nW", "-q", "-b", "html", str(tmp_path),
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    from site_text import raw_math

    page = (tmp_path / "out" / "index.html").read_text()
    assert raw_math(page) == []
    assert r"\(\sum_{l} f(l)\cdot \delta _{jl} \to f(j)\)" in page
    assert ('<strong><code class="docutils literal notranslate"><span class="pre">chunk_bytes</span></code>'
            '</strong>') in page  # a parameter's name is code, as in the signature
