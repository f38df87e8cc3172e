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
    # a registered derivation that no page shows (the failed ones are shown, as their reports)
    assert re.search(r"derivation 'mine\.square' is registered but shown on no page .*\[derive\.missing\]", err)
    assert re.findall(r"derivation '([^']+)' is registered but shown on no page", err) == ["mine.square"]


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
    text = re.sub(r"<[^>]+>", "", html)  # figure names are code, values math
    assert "seed = " in text and re.search(r"points = \d+", text)
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


# -- "Publish it" of getting-started, followed by a user in a project of their own -----------------

GETTING_STARTED = Path(__file__).resolve().parents[1] / "docs" / "getting-started.md"
EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "my_derivation.py"

SECOND = '''

difference = Derivation(
    name="mine.difference-of-squares",
    title="Difference of squares",
    start=x**2 - y**2,
    steps=(Step((x + y) * (x - y), "factor"),),
)
'''


def _publish_it_project(root: Path, *, conf_extra: str = "") -> Path:
    """A project written from the "Publish it" section: its conf.py and directive, as the page gives them."""
    text = GETTING_STARTED.read_text(encoding="utf-8")
    section = text[text.index("## Publish it"):]
    conf = re.search(r"```python\n(# conf\.py\n.*?)```", section, flags=re.S).group(1)
    directive = re.search(r"````md\n(.*?)````", section, flags=re.S).group(1)
    assert 'extensions = ["myst_parser", "derive"]' in conf and 'derive_modules = ["my_derivation.py"]' in conf
    assert directive == "```{derivation} mine.square-of-sum\n```\n"
    src = root / "src"
    src.mkdir(parents=True)
    (src / "conf.py").write_text(conf + conf_extra)
    (src / "my_derivation.py").write_text(EXAMPLE.read_text(encoding="utf-8") + SECOND)
    (src / "index.md").write_text("# My notes\n\n" + directive + "\nand a second one:\n\n"
                                  + directive.replace("mine.square-of-sum", "mine.difference-of-squares"))
    return src


def _sphinx(src: Path, out: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sphinx", *flags, "-q", "-b", "html", str(src), str(out)],
                          capture_output=True, text=True, timeout=600)


def test_a_users_project_built_with_nW_warns_about_nothing_of_the_catalog(tmp_path):
    """Issue 11: "Publish it" in a project of one's own failed -nW with 62 derive.missing warnings."""
    src = _publish_it_project(tmp_path)
    proc = _sphinx(src, tmp_path / "out", "-nW", "--keep-going")
    assert (proc.returncode, proc.stderr) == (0, "")
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "Square of a sum" in page and "Difference of squares" in page
    steps = EXAMPLE.read_text(encoding="utf-8").count("Step(") + SECOND.count("Step(")  # 2 + 1 today
    assert page.count('class="derive-derivation') == 2 and page.count('class="derive-step"') == steps


def test_a_users_project_still_warns_about_its_own_derivation_shown_nowhere(tmp_path):
    src = _publish_it_project(tmp_path)
    (src / "index.md").write_text("# My notes\n\n```{derivation} mine.square-of-sum\n```\n")
    proc = _sphinx(src, tmp_path / "out", "-n")
    assert proc.returncode == 0
    missing = re.findall(r"derivation '([^']+)' is registered but shown on no page", proc.stderr)
    assert missing == ["mine.difference-of-squares"], proc.stderr


def test_a_project_that_opts_into_the_catalog_must_show_it(tmp_path):
    src = _publish_it_project(tmp_path, conf_extra="derive_catalog = True\n")
    proc = _sphinx(src, tmp_path / "out", "-n")
    missing = re.findall(r"derivation '([^']+)' is registered but shown on no page", proc.stderr)
    listed = subprocess.run([sys.executable, "-m", "derive", "list", "--json"], capture_output=True, text=True,
                            check=True).stdout
    import json

    assert sorted(missing) == sorted(row["name"] for row in json.loads(listed))
    assert len(missing) > 60 and "mine.square-of-sum" not in missing


@pytest.mark.parametrize(
    "conf_extra, message",
    [
        ("derive_seed = -1\n", "derive_seed / derive_step_budget in conf.py: seed must be a non-negative integer, "
                               "got -1"),
        ("derive_step_budget = 0\n", "derive_seed / derive_step_budget in conf.py: budget must be between 0 and 3600 "
                                      "seconds, got 0"),
        ('derive_modules = ["nope.py"]\n', "derive_modules in conf.py: {src}/nope.py: no such file"),
        ('derive_modules = ["syntax_error.py"]\n', "derive_modules in conf.py: {src}/syntax_error.py: failed to "
                                                   "import: SyntaxError"),
        ('derive_modules = "my_derivation.py"\n', 'derive_modules in conf.py must be a list of .py paths or module '
                                                    'names, e.g. ["my_derivation.py"], got str'),
    ],
    ids=["negative-seed", "zero-budget", "missing-module", "syntax-error", "not-a-list"],
)
def test_bad_derive_configuration_is_a_configuration_error_before_any_page(tmp_path, conf_extra, message):
    src = _publish_it_project(tmp_path, conf_extra=conf_extra)
    (src / "syntax_error.py").write_text("def f(:\n")
    proc = _sphinx(src, tmp_path / "out", "-nW")
    assert proc.returncode == 2, proc.stderr
    assert "Configuration error!" in proc.stderr
    assert f"ConfigError: {message.format(src=src)}" in proc.stderr, proc.stderr
    assert not (tmp_path / "out" / "index.html").exists()


def test_an_incremental_build_reads_the_page_again_when_a_helper_module_changes(tmp_path):
    """The page of a derivation depends on the helper modules its module imports (and the cache key too)."""
    src = _publish_it_project(tmp_path)
    (src / "my_helper.py").write_text("def cross(x, y):\n    return 2 * x * y\n")
    module = (src / "my_derivation.py").read_text(encoding="utf-8")
    module = module.replace("import sympy as sp\n", "import sympy as sp\n\nfrom my_helper import cross\n", 1)
    module = module.replace("Step(x**2 + 2 * x * y + y**2,", "Step(x**2 + cross(x, y) + y**2,")
    assert "cross(x, y)" in module
    (src / "my_derivation.py").write_text(module)
    (src / "conf.py").write_text("import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n"
                                 + (src / "conf.py").read_text())
    out = tmp_path / "out"
    first = _sphinx(src, out, "-nW", "--keep-going")
    assert (first.returncode, first.stderr) == (0, "")
    (src / "my_helper.py").write_text("def cross(x, y):\n    return x * y\n")  # the step is now false
    second = _sphinx(src, out, "-nW", "--keep-going")
    assert second.returncode == 1
    assert "ERROR: derivation mine.square-of-sum is refuted; it is not published" in second.stderr


def test_a_chains_latex_is_laid_out_once_and_then_served_from_the_cache(tmp_path, monkeypatch, catalog):
    """The site's LaTeX of a derivation (:mod:`derive.sphinxext.chaintex`) is stored on the first build and
    served to the next (the other edition, a rebuild); the served strings are the ones a fresh layout gives,
    and a derivation whose expressions differ gets its own entry."""
    import dataclasses

    import sympy as sp

    from derive.render.chain import ChainLayout
    from derive.sphinxext import chaintex

    monkeypatch.setenv("DERIVE_CACHE_DIR", str(tmp_path))
    d = catalog.get("softmax.shift-invariance")
    first = chaintex.chain_tex(d)
    layout = ChainLayout(d)
    assert first.claim == layout.claim(chaintex.REL_TEX[d.relation])
    pairs = zip(d.steps, layout.exprs, strict=True)
    assert first.steps == tuple(layout.block(chaintex.REL_TEX[s.relation], e) for s, e in pairs)
    assert len(list((tmp_path / "chaintex").iterdir())) == 1

    def never(*_a, **_k):
        raise AssertionError("laid out again although the cache has it")

    monkeypatch.setattr(chaintex, "_compute", never)
    assert chaintex.chain_tex(d) == first  # served
    x = sp.Symbol("x_changed")
    other = dataclasses.replace(d, steps=(*d.steps[:-1], dataclasses.replace(d.steps[-1], expr=x)))
    with pytest.raises(AssertionError, match="laid out again"):
        chaintex.chain_tex(other)  # another expression: another key
