"""Layout rules that keep the package free of import circles (core.py must not import the renderers)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "derive"
RENDER = re.compile(r"(^|\.)render(\.|$)")


def _imported_modules(path: Path) -> set[str]:
    """Every module an import in ``path`` names, at any depth, relative ones as written (``.render.latex``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            found.add(base)
            sep = "" if base.endswith(".") else "."
            found |= {base + sep + alias.name for alias in node.names}
    return found


def test_core_imports_no_renderer():
    imported = _imported_modules(PACKAGE / "core.py")
    assert ".exceptions" in imported  # the scanner reads core.py
    assert sorted(m for m in imported if RENDER.search(m)) == []


def test_the_scanner_sees_relative_absolute_and_nested_imports(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import derive.render.latex\nfrom .render.latex import x\nfrom . import render\n"
                     "def f():\n    from .render import html\n")
    found = _imported_modules(probe)
    assert {"derive.render.latex", ".render.latex", ".render", ".render.html"} <= found
    assert all(RENDER.search(m) for m in ("derive.render.latex", ".render.latex", ".render", ".render.html"))
    assert not RENDER.search(".renderer") and not RENDER.search(".prerender")


def test_jupyter_reprs_work_on_a_fresh_derivation():
    code = (
        "import json, sys\n"
        "from derive.core import Derivation, Step\n"
        "import sympy as sp\n"
        "x = sp.Symbol('x', real=True)\n"
        "d = Derivation(name='mine.twice', title='Twice', start=x + x, steps=(Step(2 * x, 'collect'),))\n"
        "print(json.dumps([d._repr_latex_(), d._repr_markdown_(), d._repr_html_()]))\n"
    )
    latex, markdown, html = json.loads(subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PACKAGE.parent).stdout)
    assert latex == "$$\\begin{aligned}\n2 x &= 2 x && \\text{collect}\n\\end{aligned}$$"
    assert markdown.startswith("### Twice\n\n`mine.twice` · **✓ proved**: 1 of 1 steps proved symbolically")
    assert "**Claim.**\n\n$$\n2 x = 2 x\n$$\n" in markdown
    assert "1. collect — proved by `structural`" in markdown
    assert html.startswith("<h3>Twice</h3>\n<style>")
    assert "<code>mine.twice</code> · <span class='derive-nb-verdict derive-proved'" in html
