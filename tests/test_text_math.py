"""Math in words on every surface: ``$…$`` TeX in a text field becomes Unicode in the terminal and typeset
math in a Beamer frame title (pdflatex), never a literal ``_`` or ``^``."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from derive.render.textmath import unicode_text


@pytest.mark.parametrize("text, shown", [
    (r"$\operatorname{Var}(q\cdot k/\sqrt{d_k}) = 1$", "Var(q·k/√dₖ) = 1"),
    (r"the factor $e^{m_1 - m}$", "the factor exp(m₁ − m)"),
    (r"$e^{-1}$ and $2^{-8/h}$", "e⁻¹ and 2^(−8/h)"),
    (r"$(QK^\top)_{ij} = q_i \cdot k_j$", "(QKᵀ)ᵢⱼ = qᵢ · kⱼ"),
    (r"$\max_j z_j$", "maxⱼ zⱼ"),
    (r"$\partial \hat{x}_i/\partial x_j = (\delta_{ij} - 1/d)$", "∂x̂ᵢ/∂xⱼ = (δᵢⱼ − 1/d)"),
    (r"$q_1, \dots, q_{d_k}$", "q₁, …, q_dₖ"),
    (r"$J = (\sqrt{6}/12)\cdot \begin{bmatrix}1 & -2 \\ -2 & 4\end{bmatrix}$", "J = (√6/12)·[1 −2; −2 4]"),
    (r"$(\operatorname{PE}_{2i}, \operatorname{PE}_{2i+1})$", "(PE₂ᵢ, PE₂ᵢ₊₁)"),
    (r"$z \in \mathbb{R}^n$, $\mathtt{softmax\_numeric}$", "z ∈ ℝⁿ, softmax_numeric"),
    # no Unicode subscript letter: UnicodeMath's linear form, a word never in parentheses, more than a word in them
    (r"$T_c = N/B_c$, $n_{\text{kv\_heads}} d_k$, $x_{\pi(j)}$", "T_c = N/B_c, n_kv_heads dₖ, x_(π(j))"),
    # operator words stay words: a space between them and a letter, a Greek letter, another operator word
    (r"$\cos a\cos b + \sin a\sin b$, $\cos\varphi + i\sin\varphi$", "cos a cos b + sin a sin b, cos φ + i sin φ"),
    (r"$g = \lceil i h_{kv}/h \rceil = \lfloor (i-1)/G \rfloor + 1$", "g = ⌈i hₖᵥ/h⌉ = ⌊(i−1)/G⌋ + 1"),
])
def test_terminal_shows_math_as_unicode(text, shown):
    assert unicode_text(text) == shown


def test_terminal_text_of_the_catalog_has_no_tex_left(catalog):
    """No backslash command, brace or dollar survives into what ``derive show`` and ``derive list`` print."""
    left = []
    for name in catalog.names():
        d = catalog.get(name)
        for text in (d.title, d.summary, *(a.text for a in d.assumptions), *(s.justification for s in d.steps),
                     *d.notes):
            shown = unicode_text(text)
            if re.search(r"\\[A-Za-z]|[{}$]", shown):
                left.append(f"{name}: {shown}")
    assert not left, "\n".join(left)


@pytest.mark.skipif(not (shutil.which("pdflatex") and shutil.which("pdftotext")), reason="needs pdflatex, pdftotext")
def test_every_frame_title_of_the_deck_is_typeset(catalog, tmp_path):
    """The title of every catalog derivation, as the Beamer deck writes it, compiles with pdflatex and shows
    no literal ``^`` or ``_`` (before: 6 of the 118 titles did, ``\\^{}`` showing as ˆ)."""
    from derive.render.beamer import BeamerSettings, _document
    from derive.render.latex import escape_text

    names = catalog.names()
    frames = [rf"\begin{{frame}}\frametitle{{{escape_text(catalog.get(n).title)}}}x\end{{frame}}" for n in names]
    (tmp_path / "titles.tex").write_text(_document(frames, "titles", BeamerSettings()))
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "titles.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:]
    text = subprocess.run(["pdftotext", "-layout", "titles.pdf", "-"], cwd=tmp_path, capture_output=True,
                          text=True, check=True).stdout
    pages = text.split("\f")[:len(names)]  # one page per frame
    assert len(pages) == len(names)
    raw = [f"{n}: {p.strip().splitlines()[0]}" for n, p in zip(names, pages, strict=True) if re.search(r"[_^ˆ]", p)]
    assert not raw, "\n".join(raw)


def test_derive_list_shows_titles_with_unicode_math(capsys):
    from derive.cli import main

    assert main(["list"]) == 0
    out = capsys.readouterr().out
    line = next(s for s in out.splitlines() if s.startswith("attention.scaled-variance "))
    assert line.endswith("Dividing by √dₖ gives the scores variance 1")
    assert "$" not in out and "\\" not in out
