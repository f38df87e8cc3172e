"""``derive export``: formats, files written atomically, --force, one-line errors with exit 2."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET

import pytest

from derive.cli import main


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_latex_to_stdout(capsys):
    code, out, err = run(["export", "softmax.max-trick", "--format", "latex", "--no-justifications"], capsys)
    assert code == 0 and err == ""
    assert out.splitlines()[:2] == ["% softmax.max-trick: With c = max z, the shifted softmax cannot overflow",
                                    r"\begin{align*}"]
    assert r"&\le \sum_{j=1}^{n} 1 \\" in out and r"\text" not in out


def test_claim_only(capsys):
    code, out, _ = run(["export", "softmax.max-trick", "-f", "latex", "--claim"], capsys)
    assert code == 0 and out.splitlines()[2] == r"\sum_{j=1}^{n} e^{{z}_{j} - c} \le n"


def test_file_is_not_overwritten_without_force(tmp_path, capsys):
    target = tmp_path / "s.tex"
    target.write_text("mine")
    code, out, err = run(["export", "softmax.shift-invariance", "-f", "beamer", "-o", str(target)], capsys)
    assert code == 2 and out == "" and target.read_text() == "mine"
    assert err == f"derive: error: {target}: already exists; use --force to overwrite it\n"
    code, out, _ = run(["export", "softmax.shift-invariance", "-f", "beamer", "--standalone", "-o", str(target),
                        "--force"], capsys)
    assert code == 0 and out == f"wrote {target}\n"
    text = target.read_text()
    assert text.startswith(r"\documentclass[aspectratio=169]{beamer}") and text.count(r"\onslide<3->") == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.tex"]  # no temporary file left behind


def test_directory_output_names_the_file(tmp_path, capsys):
    code, out, _ = run(["export", "positional.rotation", "-f", "mathml", "--standalone", "-o", str(tmp_path)],
                       capsys)
    if code == 2:
        pytest.importorskip("ziamath", reason="MathML needs the 'slides' extra")
    page = tmp_path / "positional.rotation.html"
    assert code == 0 and out == f"wrote {page}\n"
    assert page.read_text().startswith("<!DOCTYPE html>") and "<math" in page.read_text()


def test_images_of_several_derivations_go_to_a_directory(tmp_path, capsys):
    pytest.importorskip("ziamath", reason="SVG needs the 'slides' extra")
    names = ["softmax.max-trick", "softmax.shift-invariance"]
    out_dir = tmp_path / "img"
    code, out, _ = run(["export", *names, "-f", "svg", "--claim", "-o", str(out_dir)], capsys)
    assert code == 0 and out.splitlines() == [f"wrote {out_dir / n}.svg" for n in names]
    for n in names:
        assert ET.parse(out_dir / f"{n}.svg").getroot().tag == "{http://www.w3.org/2000/svg}svg"
    a_file = tmp_path / "x.svg"
    a_file.write_text("")
    code, _, err = run(["export", *names, "-f", "svg", "-o", str(a_file)], capsys)
    assert code == 2 and err == f"derive: error: {a_file}: is a file; several images need -o DIRECTORY\n"


@pytest.mark.parametrize("argv, message", [
    (["export", "softmax.shift-invariant", "-f", "latex"],
     "unknown derivation 'softmax.shift-invariant'; did you mean 'softmax.shift-invariance'"),
    (["export", "-f", "latex"], "name at least one derivation (see 'derive list') or use --all"),
    (["export", "--all", "softmax.max-trick", "-f", "latex"], "give derivation names, --all or --chapter, one of them"),
    (["export", "--chapter", "atention", "-f", "beamer"], "unknown chapter 'atention'; chapters: attention, "),
    (["export", "softmax.max-trick", "-f", "png"], "--format png needs -o FILE_OR_DIR"),
    (["export", "softmax.max-trick", "-f", "marp", "--standalone"],
     "--standalone applies to latex, beamer, mathml, not to marp"),
    (["export", "softmax.max-trick", "-f", "beamer", "--claim"], "--claim applies to latex, svg, png and mathml"),
])
def test_bad_input_is_one_line_exit_2(argv, message, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"derive: error: {message}") and err.count("\n") == 1


def test_unwritable_paths(tmp_path, capsys):
    missing = tmp_path / "no" / "such" / "s.tex"
    code, _, err = run(["export", "softmax.max-trick", "-f", "latex", "-o", str(missing)], capsys)
    assert code == 2 and err == f"derive: error: {missing}: directory {missing.parent} does not exist\n"
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = run(["export", "softmax.max-trick", "-f", "latex", "-o", str(blocker / "s.tex")], capsys)
    assert code == 2 and "does not exist" in err and err.count("\n") == 1


def test_write_atomic_cleans_up_on_failure(tmp_path, monkeypatch):
    import os

    from derive.cli.common import write_atomic
    from derive.exceptions import InputError

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(InputError, match=r"x\.tex: cannot write: Permission denied$"):
        write_atomic(tmp_path / "x.tex", b"data")
    assert list(tmp_path.iterdir()) == []


def test_all_as_a_beamer_deck_and_markdown_decks(tmp_path, capsys, verified_catalog):
    from derive import registry

    deck = tmp_path / "deck.tex"
    code, _, _ = run(["export", "--all", "--format", "beamer", "-o", str(deck)], capsys)
    text = deck.read_text()
    from derive.render.beamer import BeamerSettings, chunks

    frames = sum(len(chunks(registry.get(n), BeamerSettings())) for n in registry.names())  # continued frames
    assert code == 0 and text.count(r"\begin{frame}") >= 1 + frames >= 1 + len(registry.names())
    assert text.rstrip().endswith(r"\end{document}")
    # the book's order: a section per chapter (one PDF bookmark each), an agenda, chapters as docs/index.md
    from derive.chapters import CHAPTERS

    sections = re.findall(r"^\\section\{\\texorpdfstring\{.*\}\{(.*)\}\}$", text, re.M)
    from derive.chapters import book

    assert len(sections) == len(book(registry.names()))
    assert rf"derivations in {len(sections)} chapters $\cdot$ derive" in text  # the title page's second line
    assert "Scaling arithmetic: C = 6·N·D and the compute-optimal split" in sections  # the outline keeps the ·
    assert not [t for t in re.findall(r"\\frametitle\{(.*)\}$", text, re.M) if "\\_" in t]  # no underscore shown
    assert sections[0].startswith("Scaled dot-product attention") and r"\tableofcontents" in text
    order = [c.title for c in CHAPTERS]
    assert text.index("derive-frame: attention.") < text.index("derive-frame: softmax.") < text.index(
        "derive-frame: example.pre-ln-block") < text.index("derive-frame: params.") and order[0].startswith("Scaled")
    code, out, _ = run(["export", "--chapter", "worked-example", "-f", "marp"], capsys)
    # one chapter: one opening slide (its title, its derivations listed), no agenda of one line
    assert code == 0 and "# A whole block, worked by hand" in out and "## Contents" not in out
    assert "\n1. The max trick by hand" in out and "# 1. A whole block" not in out
    assert "`example.pre-ln-block`" in out and "`softmax.max-trick`" not in out
    # the same chapter as a Beamer deck: titled by the chapter, an agenda of its 7 derivations, no section frame
    code, out, _ = run(["export", "--chapter", "worked-example", "-f", "beamer"], capsys)
    assert code == 0 and r"\title{A whole block, worked by hand}" in out and "AtBeginSection" not in out
    assert r"\subtitle{7 derivations $\cdot$ derive" in out and r"\tableofcontents" not in out
    agenda = out.split(r"\frametitle{Contents}")[1].split(r"\end{frame}")[0]
    assert agenda.count(r"\item ") == 7 and r"\item The max trick by hand" in agenda
    code, out, _ = run(["export", "softmax.max-trick", "positional.rotation", "-f", "marp"], capsys)
    from derive.render.slides_md import SlidesSettings
    from derive.render.slides_md import chunks as slide_chunks

    slides = sum(len(slide_chunks(registry.get(n), SlidesSettings()))
                 for n in ("softmax.max-trick", "positional.rotation"))
    assert code == 0 and out.startswith("---\nmarp: true\nmath: katex\n") and out.count("\n---\n") == slides >= 2
    code, out, _ = run(["export", "softmax.max-trick", "-f", "revealjs"], capsys)
    # three steps, each a formula and its justification revealed together; a continued slide counts from 1 again
    assert out.count('class="fragment') == 6 and out.count("data-fragment-index=") == 6


def test_check_refuses_to_export_a_wrong_derivation(tmp_path, capsys):
    from test_cli import WRONG_MODULE

    f = tmp_path / "wrong.py"
    f.write_text(WRONG_MODULE.replace("mine.square", "mine.export-wrong"))  # a name no other test registers
    target = tmp_path / "wrong.tex"
    code, out, err = run(["export", "--module", str(f), "-f", "latex", "--check", "-o", str(target)], capsys)
    assert code == 1 and not target.exists() and "not every step is proved in mine.export-wrong" in err
    code, _, _ = run(["export", "--module", str(f), "-f", "latex", "-o", str(target)], capsys)
    assert code == 0 and r"x^{2} + y^{2}" in target.read_text()


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (CI installs texlive)")
def test_done_when_beamer_standalone_compiles(tmp_path, capsys):
    import subprocess

    from pypdf import PdfReader

    code, _, _ = run(["export", "softmax.shift-invariance", "--format", "beamer", "--standalone",
                      "-o", str(tmp_path / "s.tex")], capsys)
    assert code == 0
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "s.tex"], cwd=tmp_path,
                   check=True, capture_output=True, timeout=120)
    from derive import registry
    from derive.render.beamer import BeamerSettings, chunks

    parts = chunks(registry.get("softmax.shift-invariance"), BeamerSettings())
    assert len(PdfReader(tmp_path / "s.pdf").pages) == sum(len(c) + 1 for c in parts) == 2 + 3


def test_parameter_tables_from_params_table(capsys):
    code, out, _ = run(["export", "--params", "gpt2", "-f", "marp"], capsys)
    assert code == 0 and "## Parameters of gpt2" in out and "| **total** | | | **124,439,808** | 100.0 % |" in out
    code, out, _ = run(["export", "softmax.max-trick", "--params", "gpt2", "-f", "latex"], capsys)
    assert code == 0 and r"\toprule" in out and "124{,}439{,}808" in out
    code, out, _ = run(["export", "--params", "gpt2", "-f", "beamer", "--standalone"], capsys)
    assert code == 0 and out.count(r"\begin{frame}") == 3 and out.rstrip().endswith(r"\end{document}")
    assert r"\frametitle{Compute and memory of gpt2 (1,024 tokens of context, estimates)}" in out
    assert r"KV cache per token (bf16) & $2 N h_{kv} d_k b$ & 36{,}864 B (36.00 KiB) \\" in out
    code, _, err = run(["export", "--params", "gpt-9", "-f", "latex"], capsys)
    assert code == 2 and err.startswith("derive: error: unknown preset 'gpt-9'; presets: ")
    code, _, err = run(["export", "--params", "gpt2", "-f", "svg"], capsys)
    assert code == 2 and "--params applies to latex, beamer, revealjs and marp, not to svg" in err


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (CI installs texlive)")
def test_deck_with_a_parameter_table_compiles(tmp_path, capsys):
    import subprocess

    from pypdf import PdfReader

    code, _, _ = run(["export", "softmax.max-trick", "--params", "lecture-layer", "-f", "beamer", "--standalone",
                      "-o", str(tmp_path / "d.tex")], capsys)
    assert code == 0
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "d.tex"], cwd=tmp_path,
                   check=True, capture_output=True, timeout=120)
    pages = PdfReader(tmp_path / "d.pdf").pages
    # title, max-trick on two frames (3 + 2 pages), the parameter table, the memory table
    assert len(pages) == 1 + 5 + 2 and "3,150,336" in pages[-2].extract_text()
    assert "training memory, mixed-precision Adam" in pages[-1].extract_text()


def test_one_step_numbered(capsys):
    code, out, _ = run(["export", "softmax.shift-invariance", "-f", "latex", "--step", "3", "--numbered",
                        "--no-justifications"], capsys)
    assert code == 0 and out.splitlines()[2] == (
        r"\frac{e^{- c} e^{{z}_{i}}}{e^{- c} \sum_{j=1}^{n} e^{{z}_{j}}} &= "
        r"\frac{e^{{z}_{i}}}{\sum_{j=1}^{n} e^{{z}_{j}}} \tag{3}")
    code, _, err = run(["export", "softmax.shift-invariance", "-f", "latex", "--step", "5"], capsys)
    assert code == 2 and err == "derive: error: softmax.shift-invariance has steps 1..3, not 5\n"
    code, _, err = run(["export", "softmax.shift-invariance", "-f", "svg", "--step", "1", "--claim"], capsys)
    assert code == 2 and err == "derive: error: give --claim or --step, not both\n"


def test_missing_optional_dependency_is_one_line(monkeypatch, capsys):
    import sys

    for mod in ("ziamath", "ziamath.tex"):  # as if the 'slides' extra were not installed
        monkeypatch.setitem(sys.modules, mod, None)
    code, out, err = run(["export", "softmax.max-trick", "-f", "svg"], capsys)
    assert code == 2 and out == ""
    assert err == ("derive: error: SVG output needs ziamath: pip install -e \".[slides]\" from the root of the derive "
                   "checkout\n")
    assert "derive[" not in err  # never an install from PyPI, where 'derive' is another package
    code, _, err = run(["export", "softmax.max-trick", "-f", "mathml"], capsys)
    assert code == 2 and "MathML output needs ziamath" in err
    from derive import registry

    html = registry.get("softmax.max-trick")._repr_html_()  # Jupyter falls back to the LaTeX source
    assert "<math" not in html  # each formula as its LaTeX source in \\( \\), typeset by the notebook
    assert "\\(\\displaystyle = \\sum_{j=1}^{n} e^{- {u}_{j}}\\)" in html
