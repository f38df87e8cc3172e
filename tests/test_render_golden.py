"""Golden files: the exact LaTeX, Beamer, Markdown-slides and MathML text of two derivations.

Regenerate after an intended change with
``DERIVE_UPDATE_GOLDEN=1 python -m pytest tests/test_render_golden.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"
NAMES = ("softmax.shift-invariance", "positional.rotation")


def _render(kind: str, d) -> str:
    from derive.render.beamer import beamer_frame
    from derive.render.latex import derivation_latex, step_latex
    from derive.render.mathml import derivation_mathml
    from derive.render.slides_md import slides_markdown

    return {
        "align.tex": lambda: derivation_latex(d) + "\n",
        "numbered-inline.tex": lambda: derivation_latex(d, environment="aligned", annotation="inline",
                                                        numbering=True) + "\n",
        "step1.tex": lambda: step_latex(d, 1, justifications=False) + "\n",
        "frame.tex": lambda: beamer_frame(d),
        "revealjs.md": lambda: slides_markdown([d], flavour="revealjs"),
        "marp.md": lambda: slides_markdown([d], flavour="marp"),
        "mathml.xml": lambda: derivation_mathml(d) + "\n",
    }[kind]()


KINDS = ("align.tex", "numbered-inline.tex", "step1.tex", "frame.tex", "revealjs.md", "marp.md", "mathml.xml")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", NAMES)
def test_golden(catalog, name, kind):
    if kind == "mathml.xml":
        pytest.importorskip("ziamath", reason="MathML needs the 'slides' extra (ziamath)")
    text = _render(kind, catalog.get(name))
    path = GOLDEN / f"{name}.{kind}"
    if os.environ.get("DERIVE_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with DERIVE_UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text(encoding="utf-8")
