"""The Sphinx extension on tiny projects, each built by a real ``sphinx-build -nW`` in a subprocess.

A subprocess per build keeps the derivations these projects register (one of
them deliberately false) out of this process's registry; the three builds run
at the same time (fixture ``built``) to keep the suite fast.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

CONF = """\
extensions = ["myst_parser", "derive"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
myst_enable_extensions = ["dollarmath"]
numfig = True
derive_modules = ["mine.py"]
derive_require_all = REQUIRE_ALL
bibtex_bibfiles = []
"""

MINE = """\
import sympy as sp
from derive import Citation, Derivation, Step, ValueCheck

x, y = sp.symbols("x y", real=True)
square = Derivation(
    name="mine.square",
    title="Square of a sum",
    start=(x + y) ** 2,
    steps=(
        Step(x * (x + y) + y * (x + y), "distribute the first factor"),
        Step(x**2 + 2 * x * y + y**2, "distribute $(x+y)(x+y)$", citation=Citation("vaswani2017", "§3.2")),
    ),
    checks=(ValueCheck("one third", sp.Rational(1, 3), "0.333", "arithmetic"),),
)
WRONG
"""

WRONG = """\
wrong = Derivation(
    name="mine.wrong",
    title="A false square",
    start=(x + y) ** 2,
    steps=(
        Step(x * (x + y) + y * (x + y), "distribute the first factor"),
        Step(x**2 + y**2, "forget the cross term"),
    ),
)
badly_rounded = Derivation(
    name="mine.bad-rounding",
    title="Proved steps, a wrong printed value",
    start=x + x,
    steps=(Step(2 * x, "collect"),),
    checks=(ValueCheck("one third", sp.Rational(1, 3), "0.334", "a typo"),),
)
"""


def start(tmp_path: Path, pages: dict[str, str], *, wrong: bool = False, require_all: bool = False,
          strict: bool = True, conf: str = "") -> tuple[subprocess.Popen, Path]:
    """Write a tiny project and start ``sphinx-build -nW --keep-going`` on it (``-n`` only if not strict)."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir(parents=True)
    (src / "conf.py").write_text(CONF.replace("REQUIRE_ALL", str(require_all)) + conf)
    (src / "mine.py").write_text(MINE.replace("WRONG", WRONG if wrong else ""))
    for name, text in pages.items():
        (src / name).write_text(textwrap.dedent(text))
    flags = ["-nW", "--keep-going"] if strict else ["-n"]
    proc = subprocess.Popen([sys.executable, "-m", "sphinx", *flags, "-q", "-b", "html", str(src), str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, out


INDEX_MD = """\
# Tiny

```{derivation} mine.square
```

See {numref}`mine.square`, {ref}`mine.square` and equation {eq}`mine.square-2`.

```{toctree}
other
```
"""

OTHER_RST = """\
Other
=====

.. derivation:: mine.square
   :claim-only:

.. derivation:: mine.square
   :label: square-again
   :no-checks:

See :numref:`square-again` and :eq:`square-again-1`.

.. derivations:: nothing.*

.. bibliography::
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, tuple[int, str, Path]]:
    """Build the three projects concurrently: name -> (exit status, stderr, output directory)."""
    wrong_page = "# Tiny\n\n```{derivation} mine.wrong\n```\n"
    root = tmp_path_factory.mktemp("tiny")
    started = {
        # -nW: a refuted derivation, a misspelt name and a derivation shown nowhere, in one build
        "strict-failing": start(root / "a", {"index.md": wrong_page + "\n```{derivation} mine.squar\n```\n\n"
                                                        "```{derivation} mine.bad-rounding\n```\n"},
                                wrong=True, require_all=True),
        # no -W, the derive warnings suppressed: the refuted derivation still fails the build
        "lenient-failing": start(root / "b", {"index.md": wrong_page}, wrong=True, strict=False,
                                 conf='suppress_warnings = ["derive"]\n'),
        "good": start(root / "c", {"index.md": INDEX_MD, "other.rst": OTHER_RST}),
    }
    out = {}
    for name, (proc, outdir) in started.items():
        _, err = proc.communicate(timeout=600)
        out[name] = (proc.returncode, err, outdir)
    return out


def test_strict_build_fails_on_refuted_unknown_and_missing_derivations(built):
    code, err, _ = built["strict-failing"]
    assert code == 1
    # the refuted derivation: page and line, the step, both sides, the counterexample, a typed error
    assert re.search(r"index\.md:3: ERROR: derivation mine\.wrong is refuted; it is not published", err), err
    assert "step 2 refuted: forget the cross term" in err
    assert "claimed:  = x**2 + y**2" in err
    assert re.search(r"counterexample: at x=-?[\d/]+, y=-?[\d/]+: previous = ", err), err
    assert re.search(r"\(gap [\d.]+\) \[derive\.refuted\]", err), err
    # a misspelt name, with a suggestion
    assert re.search(r"index\.md:6: WARNING: unknown derivation 'mine\.squar'; did you mean 'mine\.square'.*"
                     r"\[derive\.unknown\]", err), err
    # proved steps but a failed cross-check: a wrong printed rounding
    assert re.search(r"index\.md:9: ERROR: derivation mine\.bad-rounding failed a numeric cross-check; "
                     r"it is not published\n"
                     r"  cross-check failed: one third: 1/3 = 0\.3333333333 rounds to 0\.333, not the printed 0\.334 "
                     r"\[derive\.check-failed\]", err), err
    # a registered derivation that no page shows
    assert re.search(r"derivation 'mine\.square' is registered but shown on no page .*\[derive\.missing\]", err)


def test_refuted_derivation_fails_without_w_and_when_its_warning_is_suppressed(built):
    code, _, out = built["lenient-failing"]
    assert code == 1
    html = (out / "index.html").read_text()
    assert "forget the cross term" in html and "is refuted; it is not published" in html
    assert "✓ proved" not in html and "derive-chain" not in html


def test_verified_derivation_renders_numbered_with_verdicts_and_figures(built):
    code, err, out = built["good"]
    assert code == 0, err
    html = (out / "index.html").read_text()
    # numbered derivation, numbered step equations, cross-references resolved
    assert '<span class="caption-number">Derivation 1 </span>Square of a sum' in html
    # steps numbered (1), (2) inside the box, not (1.1) like the page's equations; {eq} names step and box
    assert '<p id="equation-mine-square-1">(1)</p>' in html and '<p id="equation-mine-square-2">(2)</p>' in html
    assert 'href="#equation-mine-square-2">step 2 of Derivation 1</a>' in html
    assert 'class="derive-chain docutils container"' in html and "eqno" not in html
    assert "<summary>Numeric cross-checks: " in html
    assert '<span class="std std-numref">Derivation 1</span>' in html
    assert '<span class="std std-ref">Square of a sum</span>' in html
    assert 'href="#equation-mine-square-2"' in html
    # verdict and strategy per step, citation through sphinxcontrib-bibtex, value beside rounding
    assert html.count("✓ proved</span> by") == 2
    assert "Vaswani" in html and "§3.2" in html
    assert "0.333333333333333" in html and "rounds to" in html and "printed 0.333" in html
    assert "seed = " in html and re.search(r"points = \d+", html)
    # claim-only elsewhere: verified, unnumbered, no steps; an empty pattern is shown, not fatal
    other = (out / "other.html").read_text()
    claim_only, _, again = other.partition('id="derivation-square-again"')
    assert "Square of a sum" in claim_only and "derive-chain" not in claim_only and "caption-number" not in claim_only
    # a second numbered showing under its own label: own equation labels, no checks table
    assert re.search(r'<span class="caption-number">Derivation \d+ </span>Square of a sum', again)
    assert 'href="#equation-square-again-1"' in other and 'href="#derivation-square-again"' in other
    assert 'id="equation-square-again-2">(2)' in again and "derive-checks" not in again
    assert "No derivation is registered under nothing.* yet." in other


def test_env_data_is_purged_and_merged_per_document():
    from derive.sphinxext import _merge_info, _purge_doc

    class Env:
        derive_pages: dict

    env, other = Env(), Env()
    env.derive_pages = {"a": {"x.y"}, "b": {"x.z"}}
    other.derive_pages = {"c": {"x.w"}, "d": {"x.v"}}
    _purge_doc(None, env, "a")
    _merge_info(None, env, {"c"}, other)
    assert env.derive_pages == {"b": {"x.z"}, "c": {"x.w"}}


def test_setup_returns_the_real_version_and_parallel_safety(tmp_path):
    from sphinx.application import Sphinx

    from derive import __version__

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text('extensions = ["derive"]\nbibtex_bibfiles = []\n')
    (src / "index.rst").write_text("Tiny\n====\n")
    app = Sphinx(src, src, tmp_path / "out", tmp_path / "doctrees", "html", status=None, warning=None)
    ext = app.extensions["derive"]
    assert ext.version == __version__ == "0.1.0"
    assert ext.parallel_read_safe is True
    from derive.references import REFERENCES

    bib = (src / "_generated" / "refs.bib").read_text()
    assert bib.count("@") == len(REFERENCES) >= 8 and "@inproceedings{vaswani2017," in bib


def test_plots_are_deterministic_pngs():
    pytest.importorskip("matplotlib")
    from derive.sphinxext.plots import PLOTS, png_bytes, qk_samples

    for name in PLOTS:
        first = png_bytes(name)
        assert first.startswith(b"\x89PNG") and first == png_bytes(name), name
    dots, d_k = qk_samples(n=4_000)
    # the Monte Carlo sampler's scores at d_k = 512 spread like √512 ≈ 22.6, not like 1
    assert d_k == 512 and 20.5 < dots.std() < 24.5 and abs(dots.mean()) < 1.5
