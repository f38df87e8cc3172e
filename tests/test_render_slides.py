"""Renderers for slides: settings checks, LaTeX details, pdflatex compiles, SVG/PNG, MathML, Jupyter."""

from __future__ import annotations

import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET

import pytest

from derive.exceptions import InputError

SVG_NS = "{http://www.w3.org/2000/svg}"
MML_NS = "{http://www.w3.org/1998/Math/MathML}"
PDFLATEX = shutil.which("pdflatex")
needs_pdflatex = pytest.mark.skipif(
    PDFLATEX is None, reason="pdflatex is not installed (CI installs Debian's texlive in .ci/run)")


@pytest.fixture
def softmax(catalog):
    return catalog.get("softmax.shift-invariance")


@pytest.fixture
def rotation(catalog):
    return catalog.get("positional.rotation")


# --- settings are checked ----------------------------------------------------------------------
@pytest.mark.parametrize("module, func, bad, message", [
    ("latex", "derivation_latex", {"environment": "equation"}, r"^environment 'equation' is not one of"),
    ("latex", "derivation_latex", {"colour": "red"}, r"^unknown LatexSettings setting\(s\): colour; known: "),
    ("latex", "derivation_latex", {"numbering": "yes"}, r"^numbering must be True or False"),
    ("beamer", "beamer_frame", {"aspectratio": "21"}, r"^aspectratio '21' is not one of"),
    ("beamer", "beamer_frame", {"theme": "x}\\evil"}, r"^theme .* must be a Beamer theme name"),
    ("slides_md", "slide_markdown", {"flavour": "pptx"}, r"^flavour 'pptx' is not one of revealjs, marp"),
    ("svg", "derivation_svg", {"size": 0}, r"^size must be a number of px between 4 and 400"),
    ("svg", "derivation_svg", {"what": "step", "step": 4}, r"^softmax.shift-invariance has steps 1..3, not 4"),
    ("mathml", "derivation_mathml", {"display": "inline-block"}, r"^display 'inline-block' is not"),
])
def test_bad_settings_raise_input_error(softmax, module, func, bad, message):
    import importlib

    if module in ("svg", "mathml"):
        pytest.importorskip("ziamath", reason="needs the 'slides' extra")
    render = getattr(importlib.import_module(f"derive.render.{module}"), func)
    with pytest.raises(InputError, match=message):
        render(softmax, **bad)


# --- LaTeX -------------------------------------------------------------------------------------
def test_claim_and_single_step(softmax, catalog):
    from derive.render.latex import claim_latex, step_latex

    assert claim_latex(softmax) == (r"\frac{e^{{z}_{i} - c}}{\sum_{j=1}^{n} e^{{z}_{j} - c}} = "
                                    r"\frac{e^{{z}_{i}}}{\sum_{j=1}^{n} e^{{z}_{j}}}")
    assert claim_latex(catalog.get("softmax.max-trick")).endswith(r"\le n")
    one = step_latex(softmax, 3, environment="align", numbering=True)
    assert one.startswith(r"\begin{align}" + "\n" + r"\frac{e^{- c} e^{{z}_{i}}}{e^{- c} \sum_{j=1}^{n}")
    assert r"\tag{3}" in one and r"\text{$e^{-c} > 0$ cancels" in one
    with pytest.raises(InputError, match=r"has steps 1..3, not 0"):
        step_latex(softmax, 0)


def test_symbol_name_map_and_no_justifications(rotation, catalog):
    import sympy as sp

    from derive.render.latex import derivation_latex
    from derive.transformer.notation import sym

    out = derivation_latex(rotation, symbol_names={sym("omega"): r"\omega_i"}, justifications=False)
    assert r"\omega_i \left(k + \mathrm{pos}\right)" in out and r"\text" not in out
    # the start is long, so it has a row of its own: 2 row breaks + one per 2-row matrix (4 of them)
    assert out.splitlines()[1].startswith(r"&\left[\begin{matrix}\sin{\left(\omega_i")
    assert out.count(r"\\") == len(rotation.steps) + 4
    assert r"\omega " not in out and sp.Symbol("k", real=True) == sym("k")


def test_escape_text_makes_plain_pdflatex_text():
    from derive.render.latex import escape_text

    assert escape_text("ω = 10000^(−2i/d_model) > 0 § 3") == (
        r"$\omega$ = 10000\^{}($-$2i/$d_{\text{model}}$) $>$ 0 \S{} 3")  # a bare d_model is math
    assert escape_text("keep $e^{a-c}$ & 50%") == r"keep $e^{a-c}$ \& 50\%"


def test_softmax_chain_shows_the_factored_denominator(softmax):
    """Step 2 must print e^{-c} outside the sum (sympy would cancel it if the step were evaluated)."""
    from derive.render.latex import derivation_latex

    lines = derivation_latex(softmax, justifications=False).splitlines()
    assert lines[2] == r"&= \frac{e^{- c} e^{{z}_{i}}}{e^{- c} \sum_{j=1}^{n} e^{{z}_{j}}} \\"


# --- pdflatex ----------------------------------------------------------------------------------
def _pdflatex(tmp_path, name: str, source: str):
    (tmp_path / f"{name}.tex").write_text(source, encoding="utf-8")
    proc = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    log = (tmp_path / f"{name}.log").read_text(errors="replace")
    assert proc.returncode == 0, log[-3000:]
    from pypdf import PdfReader

    return PdfReader(tmp_path / f"{name}.pdf"), log


def _visible_text(page) -> str:
    width, height, parts = float(page.mediabox.width), float(page.mediabox.height), []

    def visit(text, cm, tm, font, size):
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        if 0 <= x <= width and 0 <= y <= height:
            parts.append(text)

    page.extract_text(visitor_text=visit)
    return "".join(parts)


@needs_pdflatex
def test_latex_document_compiles(tmp_path, softmax, rotation):
    from derive.render.latex import derivation_latex, latex_document

    body = "\n".join(derivation_latex(d, numbering=True) for d in (softmax, rotation))
    pdf, log = _pdflatex(tmp_path, "chain", latex_document(body, title="Two derivations"))
    assert len(pdf.pages) == 1 and "Overfull" not in log
    text = pdf.pages[0].extract_text()
    assert "cancels between numerator and denominator" in text and "(3)" in text


@needs_pdflatex
def test_beamer_frame_one_page_per_overlay(tmp_path, softmax, rotation):
    from derive.render.beamer import beamer_deck, beamer_frame

    pdf, log = _pdflatex(tmp_path, "frame", beamer_frame(softmax, standalone=True))
    assert len(pdf.pages) == (1 + 1) + (2 + 1) and "derive-fit" not in log  # two frames, nothing shrunk
    # beamer hides a step by drawing it far off the page: read only the text drawn on the page
    shown = [[k for k in ("(1)", "(2)", "(3)") if k in _visible_text(p)] for p in pdf.pages]
    assert shown == [[], ["(1)"], [], ["(2)"], ["(2)", "(3)"]]
    assert "Claim." in _visible_text(pdf.pages[0])  # the first overlay shows the claim
    pdf, _ = _pdflatex(tmp_path, "still", beamer_frame(softmax, standalone=True, overlays=False, max_lines=30))
    assert len(pdf.pages) == 1
    from derive.render.beamer import BeamerSettings, chunks

    pages = sum(len(c) + 1 for d in (softmax, rotation) for c in chunks(d, BeamerSettings()))
    pdf, log = _pdflatex(tmp_path, "deck", beamer_deck([softmax, rotation], title="Deck"))
    assert len(pdf.pages) == 1 + pages and "Overfull" not in log
    assert "derive-fit" not in log  # nothing was shrunk


# --- SVG / PNG ---------------------------------------------------------------------------------
def test_svg_is_svg11_with_a_drawing(rotation):
    pytest.importorskip("ziamath", reason="SVG needs the 'slides' extra (ziamath)")
    from derive.render.svg import derivation_svg

    text = derivation_svg(rotation)
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == f"{SVG_NS}svg" and root.get("version") == "1.1"
    width, height = float(root.get("width")), float(root.get("height"))
    assert 600 < width < 3000 and 80 < height < 600
    paths = root.findall(f".//{SVG_NS}path")
    assert len(paths) > 100 and all(p.get("d") for p in paths)
    assert root.find(f"{SVG_NS}title").text == rotation.title
    # only SVG 1.1 basics (no <use href>, ziamath's svg2 mode), and the global switch is restored
    assert {e.tag.removeprefix(SVG_NS) for e in root.iter()} <= {"svg", "title", "g", "path", "rect"}
    assert {a for e in root.iter() for a in e.attrib} <= {"version", "width", "height", "viewBox", "d", "fill",
                                                          "x", "y"}
    assert " href=" not in text
    import ziamath

    assert ziamath.config.svg2 is True


def test_svg_claim_and_step_are_smaller(softmax):
    pytest.importorskip("ziamath", reason="SVG needs the 'slides' extra (ziamath)")
    from derive.render.svg import derivation_svg

    sizes = {w: ET.fromstring(derivation_svg(softmax, what=w).encode()) for w in ("chain", "claim", "step")}
    heights = {w: float(root.get("height")) for w, root in sizes.items()}
    assert heights["claim"] < heights["chain"] / 2 and heights["step"] < heights["chain"] / 2
    narrow = ET.fromstring(derivation_svg(softmax, what="step", justifications=False).encode())
    assert float(narrow.get("width")) < float(sizes["step"].get("width")) - 200


def test_wrap_text_keeps_math_whole():
    from derive.render.svg import wrap_text

    out = wrap_text("(2) $e^{-c}$ does not depend on $j$, so it factors out of the sum", 20)
    assert out.splitlines() == ["(2) $e^{-c}$ does not", "depend on $j$, so it", "factors out of the", "sum"]


def test_png_has_the_svg_size_times_scale(softmax):
    pytest.importorskip("ziamath", reason="PNG needs the 'slides' extra (ziamath)")
    try:
        import cairosvg  # noqa: F401
    except (ImportError, OSError) as exc:
        pytest.skip(f"cairosvg or the cairo library is missing: {exc}")
    from derive.render.svg import derivation_png, derivation_svg

    png = derivation_png(softmax, scale=2.0, what="claim")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    svg = ET.fromstring(derivation_svg(softmax, what="claim").encode())
    assert abs(width - 2 * float(svg.get("width"))) <= 2 and abs(height - 2 * float(svg.get("height"))) <= 2


# --- MathML and Jupyter ------------------------------------------------------------------------
def test_mathml_chain_is_a_table_of_steps(rotation):
    pytest.importorskip("ziamath", reason="MathML needs the 'slides' extra (ziamath)")
    from derive.render.mathml import derivation_mathml

    root = ET.fromstring(derivation_mathml(rotation))
    assert root.tag == f"{MML_NS}math" and root.get("display") == "block"
    table = root.find(f"{MML_NS}mrow/{MML_NS}mtable")
    assert len(table.findall(f"{MML_NS}mtr")) == 1 + len(rotation.steps)  # the long start has its own row
    texts = [t.text for t in root.iter(f"{MML_NS}mtext")]
    assert any("angle-addition" in t for t in texts)
    claim = ET.fromstring(derivation_mathml(rotation, what="claim", display="inline"))
    assert claim.get("display") == "inline" and not list(claim.iter(f"{MML_NS}mtext"))


def test_jupyter_reprs(softmax):
    from derive.verify import verify

    html = softmax._repr_html_()
    assert html.startswith(f"<h3>{softmax.title}</h3>") and ("<math" in html or "<pre>" in html)
    assert softmax._repr_latex_().startswith("$$\\begin{aligned}")
    report = verify(softmax, numeric=False)
    table = report._repr_html_()
    assert "<b>proved</b>" in table and "PASS" not in table and table.count("<td>proved</td>") == 3
    assert repr(report).startswith("<Report softmax.") and "proved" in repr(report) and "exp(" not in repr(report)


def test_every_catalog_text_is_plain_pdflatex(catalog):
    """Titles, assumptions and justifications only use symbols the LaTeX escaper knows (no '?' fallback)."""
    from derive.render.latex import escape_text

    unknown = {}
    for name in catalog.names():
        d = catalog.get(name)
        for text in (d.title, *(a.text for a in d.assumptions), *(s.justification for s in d.steps)):
            if r"\textbf{?}" in escape_text(text):
                unknown[name] = text
    assert unknown == {}, "add these symbols to derive.render.latex.UNICODE_TEX"
    assert escape_text("x ∓ y ≟ z") == r"x $\mp$ y \textbf{?} z"  # an unknown symbol stays visible


@needs_pdflatex
def test_long_chains_continue_on_further_frames(tmp_path, catalog):
    from derive.render.beamer import beamer_frame

    d = catalog.get("softmax.shift-invariance")  # 3 steps: frames of 2 and 1 steps
    text = beamer_frame(d, standalone=True, steps_per_frame=2, max_lines=20)
    assert text.count(r"\begin{frame}") == 2 and r"\emph{(continued)}" in text
    assert text.count("Assumptions.") == 1 and r"\textbf{\color{structure}(3)} $e^{-c} > 0$ cancels" in text
    pdf, _ = _pdflatex(tmp_path, "split", text)
    assert len(pdf.pages) == (2 + 1) + (1 + 1)
    with pytest.raises(InputError, match=r"^steps_per_frame must be a positive integer, got 0$"):
        beamer_frame(d, steps_per_frame=0)


# --- long chains: laid out, not shrunk ------------------------------------------------------------
def test_svg_of_long_chains_is_compact_and_fast(catalog):
    """The \\substack-in-\\left[ bracket no longer makes 3182x5694 images; the Pre-LN block exports quickly."""
    import time

    pytest.importorskip("ziamath", reason="SVG needs the 'slides' extra (ziamath)")
    from derive.render.svg import derivation_svg, ziamath_tex

    assert ziamath_tex(r"\left[\begin{matrix}1\\2\end{matrix}\right] \left(\frac{a}{b}\right)") == (
        r"{\begin{bmatrix}1\\2\end{bmatrix}} \Bigl(\frac{a}{b}\Bigr)")
    for name, most in (("attention.score-variance", 1200), ("attention.scaled-variance", 1300),
                       ("attention.score-variance-general", 1300)):
        root = ET.fromstring(derivation_svg(catalog.get(name)).encode("utf-8"))
        assert float(root.get("width")) < 1800 and float(root.get("height")) < most * 2, name
    began = time.process_time()
    root = ET.fromstring(derivation_svg(catalog.get("example.pre-ln-block")).encode("utf-8"))
    # 222 s before (ziamath laid out nested \left pairs 2^depth times), 6-8 s with fixed-size fences,
    # about 1 s CPU when a row's pre-pass runs only where a stretchy operator reads it
    assert time.process_time() - began < 6
    assert float(root.get("width")) < 1800  # 25,000 px on one line before the lines were broken


def test_layout_breaks_wide_sums_and_never_cuts_a_matrix(catalog):
    from derive.render.layout import Breaker, fold_exponent_fractions, name_repeats, tex_width

    assert fold_exponent_fractions(r"10000^{- \frac{2 i}{d}} e^{\frac{a + b}{2}}") == (
        r"10000^{- 2 i / d} e^{\left(a + b\right) / 2}")
    breaker = Breaker(30.0)
    for name in ("params.bert-total", "example.pre-ln-block"):
        d = catalog.get(name)
        # the repeated square root once; matrix entries wider than their share of the line named
        exprs, _ = name_repeats([d.start, *(s.expr for s in d.steps)], budget=28.0)
        for expr in exprs:
            lines = breaker.lines(expr)
            assert max(tex_width(line) for line in lines) <= 45, (name, lines)
            assert not any(r"\right." in line or r"\left." in line for line in lines), (name, lines)
    lines = breaker.lines(catalog.get("params.bert-total").start)
    assert len(lines) >= 3 and all(line.startswith("+ ") for line in lines[1:])


def test_text_fields_render_bare_tex_as_math_and_unicode():
    from derive.render.textmath import mark_math, unicode_text

    assert mark_math("d_k = d_model/h, PE_{pos,2i}, n_kv_heads") == (
        r"$d_k$ = $d_{\text{model}}$/h, $PE_{pos,2i}$, n_kv_heads")
    assert mark_math("keep $x_i$ as it is") == "keep $x_i$ as it is"
    assert unicode_text(r"Var(q·k/$\sqrt{d_k}$) = $\sigma^2$, $\frac{1}{2}$ and $E[X^2]$") == (
        "Var(q·k/√dₖ) = σ², 1/2 and E[X²]")


def test_show_prints_unicode_with_relations_in_one_column(catalog):
    from derive.render.text import derivation_text

    # the long chain of the variance law (attention.scaled-variance cites it in one step since session 4)
    text = derivation_text(catalog.get("attention.score-variance-general"))
    assert "Sum(" not in text and "**" not in text and "$" not in text and "√dₖ" in text
    rows = [line for line in text.splitlines() if line.startswith("  (")]
    assert len(rows) == 8 and len({line.index(") = ") for line in rows}) == 1  # "=" in one column


def test_slides_split_long_chains_and_keep_heading_case(catalog):
    from derive.render.slides_md import slide_markdown

    d = catalog.get("attention.score-variance-general")  # the chain attention.scaled-variance cites
    for flavour in ("marp", "revealjs"):
        text = slide_markdown(d, flavour=flavour)
        assert text.count("(continued)") >= 1 and text.count("\n---\n") == text.count("(continued)"), flavour
        assert "\n  *(" not in text  # no stray italics around justifications
    assert 'style="text-transform:none"' in slide_markdown(d, flavour="revealjs")


def _frame_scales(log: str) -> dict[str, float]:
    """The smallest scale of each frame (``derive-frame:`` lines), from the ``derive-fit:`` lines of the log;
    a box shrunk to the line's width and then to a height is scaled by the product of the two."""
    import re

    scales: dict[str, float] = {}
    frame, width = "", 1.0
    for line in log.splitlines():
        if line.startswith("derive-frame: "):
            frame = line.split(": ", 1)[1]
        found = re.match(r"derive-fit: (\w+) ([\d.]+)pt ([\d.]+)pt", line)
        if found:
            x = float(found.group(3)) / float(found.group(2))
            if found.group(1) == "width":
                width = x
            else:
                x, width = x * width, 1.0
            scales[frame] = min(scales.get(frame, 1.0), x)
    return scales


@needs_pdflatex
def test_catalog_deck_is_not_shrunk_below_seventy_percent(tmp_path, catalog):
    """The deck of the whole catalog: every frame keeps at least 70 % of the text size, nothing overflows
    a frame (no overfull box), and long chains continue on further frames."""
    from derive.render.beamer import beamer_deck

    names = catalog.names()
    pdf, log = _pdflatex(tmp_path, "deck", beamer_deck([catalog.get(n) for n in names]))
    scales = _frame_scales(log)
    assert {n.split()[0] for n in scales} <= set(names)
    low = {f: round(x, 2) for f, x in scales.items() if x < 0.7}
    assert low == {}, low  # 13 frames below 0.7 (the Pre-LN block's claim at 0.30) before the layout
    assert "Overfull \\hbox" not in log and "Overfull \\vbox" not in log  # 42 overfull vboxes before
    frames = log.count("derive-frame: example.pre-ln-block ")
    assert frames > 5 and "derive-frame: example.pre-ln-block where 1" in log  # named once, listed after
    assert len(pdf.pages) < 6.5 * len(names)  # 359 pages for 70 derivations, 706 for 118, when this was written
    if shutil.which("pdftotext"):  # no page shows its frame title alone (or with its Source line)
        text = subprocess.run(["pdftotext", "-layout", str(tmp_path / "deck.pdf"), "-"], capture_output=True,
                              text=True, check=True).stdout
        shown = [[line for line in page.splitlines() if line.strip() and not line.strip().startswith("Source")]
                 for page in text.split("\f")[:len(pdf.pages)]]
        bare = [k for k, lines in enumerate(shown, 1) if len(lines) < 2]
        assert bare == [], bare  # the title page was one line: it now says what the deck holds


def test_wide_matrices_and_repeats_are_named_once(catalog):
    """The Pre-LN block's H (a repeated matrix) becomes \\Xi_1, its repeated square root \\xi_1, and wide
    entries are named, so that no formula of its frames is wider than a frame or taller than half of one."""
    from derive.render.beamer import BeamerSettings, _breaker, capacity, height, named
    from derive.render.layout import tex_width

    s = BeamerSettings()
    d = catalog.get("example.pre-ln-block")
    start, end, exprs, where = named(d, s)
    names = [str(n) for n, _ in where]
    assert names[:2] == ["Xi_1", "xi_1"] or names[:2] == ["xi_1", "Xi_1"], names
    breaker = _breaker(s)
    for e in (start, *exprs):
        lines = breaker.lines(e)
        assert max(tex_width(line) for line in lines) <= 32 and height(lines) < capacity(s) / 2, lines


def test_tex_height_follows_tex(catalog):
    """Heights in em, as TeX sets them (measured with pdflatex: a fraction 1.8, a display sum 2.6-2.9)."""
    from derive.render.layout import tex_height

    assert 0.9 <= tex_height("x") <= 1.0
    assert 1.7 <= tex_height(r"\frac{a}{b}") <= 2.4
    assert 2.5 <= tex_height(r"\sum_{i=1}^{n} x_{i}") <= 3.3
    assert tex_height(r"\frac{\sum_{i=1}^{n} x}{2}") < tex_height(r"\sum_{i=1}^{n} x") + 1.0  # text-style sum
    three = tex_height(r"\left[\begin{matrix}1\\2\\3\end{matrix}\right]")
    assert 3.4 <= three <= 4.6
    # a stretched fence is centred on the math axis: limits below only make it taller above too
    assert tex_height(r"\left[\sum_{i=1} x\right]") > tex_height(r"\sum_{i=1} x") + 0.5


def test_markdown_slides_of_the_longest_chains_are_laid_out(catalog):
    """Marp and reveal.js: the Pre-LN block names its repeated matrix and square root once (where slides),
    no formula line is wider than a slide, and no slide is taller than its budget unless it holds one step.
    (In a KaTeX mock of Marp's 1280x720 slides measured in Chromium, 0 of 116 slides of the catalog
    overflowed when this was written.)"""
    from derive.render.layout import tex_width
    from derive.render.slides_md import SLIDE_BUDGET, SlidesSettings, _height, _words, chunks, slide_markdown

    s = SlidesSettings()
    for name in ("example.pre-ln-block", "example.pre-ln-attention", "attention.scaled-variance"):
        d = catalog.get(name)
        for flavour in ("marp", "revealjs"):
            text = slide_markdown(d, flavour=flavour)
            assert ("(where)" in text) == name.startswith("example."), (name, flavour)  # nothing to name in 3rd
        for part in chunks(d, s):
            for _, _, lines in part:
                assert max(tex_width(line) for line in lines) <= SLIDE_BUDGET + 4, (name, lines)
            used = sum(_height(lines) + _words(step.justification) for _, step, lines in part)
            assert len(part) == 1 or used <= s.max_lines * 1.24, (name, [k for k, _, _ in part])
    text = slide_markdown(catalog.get("example.pre-ln-block"), flavour="marp")
    assert r"\Xi_{1} =" in text and r"\xi_{1} =" in text


def test_every_continued_frame_opens_with_a_left_hand_side_and_no_step_is_cut(catalog):
    from derive.render.beamer import BeamerSettings, beamer_frame, chunks

    for name in ("attention.score-variance-general", "example.pre-ln-attention"):
        d = catalog.get(name)
        parts = chunks(d, BeamerSettings())
        assert len(parts) > 2
        assert all(part.lead for part in parts[1:] if part)  # shown on the first overlay: never a bare "="
        assert [k for part in parts for k, _, _ in part] == list(range(1, len(d.steps) + 1))  # each step once
        tex = beamer_frame(d)
        assert tex.count(r"\textbf{\color{structure}(2)}") == 1  # step 2's justification appears once
        assert r"\right." not in tex and "\t" not in tex
