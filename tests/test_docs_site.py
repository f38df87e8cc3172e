"""The real site: ``sphinx-build -nW --keep-going docs`` once per session, then checks on its pages.

Marked ``docs`` (``pytest -m "not docs"`` skips the build while iterating);
it runs by default and in CI. The Chromium test opens pages with every
network request refused and checks that MathJax, served from ``_static``,
typeset the formulas.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("sphinx")

pytestmark = pytest.mark.docs

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="session")
def site(built_sites):
    """The English site, built once per run with the Korean one (``built_sites`` in conftest.py)."""
    return built_sites[0]


def _pages(site: Path) -> dict[str, str]:
    from site_text import edition_pages

    return {str(p.relative_to(site)): p.read_text() for p in edition_pages(site)}


def test_every_registered_derivation_is_on_a_numbered_page(site):
    from derive import registry

    registry.load_catalog()
    catalog = [e.name for e in registry.entries() if e.module in registry.CATALOG_MODULES]
    assert len(catalog) >= 3
    html = "\n".join(_pages(site).values())
    for name in [*catalog, "mine.square-of-sum"]:  # and the getting-started example
        assert f'id="derivation-{name}"' in html, f"{name} has no numbered home on the site"


def test_pages_have_plots_bibliography_cli_and_api(site):
    pages = _pages(site)
    for plot in ("pe-heatmap", "pe-waves", "softmax-temperature", "qk-histogram", "param-share", "residual-variance",
                 "layernorm-gradient", "rope-offset", "alibi-bias", "online-softmax", "compute-optimal",
                 "softmax-jacobian-scale", "norm-geometry", "gelu-swish-relu"):
        assert (site / "_images" / f"{plot}.png").stat().st_size > 5_000, plot
    bib = pages["bibliography.html"]
    for author in ("Vaswani", "Ba,", "He,", "Xiong", "Zhang", "Shazeer", "Brown", "Touvron", "Glorot", "Dao,",
                   "Goodfellow", "Su,", "Press", "Milakov", "Hoffmann"):
        assert author in bib, author
    cli = pages["cli.html"]
    for command in ("derive list", "derive show", "derive check"):
        assert command in cli
    assert "--seed" in cli and "--module FILE_OR_MODULE" in cli
    assert 'id="derive.core.Derivation"' in pages["api.html"]
    params = pages["chapters/parameters.html"]
    # exact counts from derive.params, beside the reported sizes
    assert "3,150,336" in params and "18,902,016" in params and "63,045,632" in params and "65M" in params
    for preset in ("gpt2", "llama-7b", "llama2-70b", "t5-small"):
        assert f'<span class="pre">{preset}</span>' in params
    # compute and memory: Mistral 7B at 4,096 tokens, batch 8 (derive-params :context: :batch:) and every preset
    assert "16,368,271,360" in params and "4,294,967,296 B (4.00 GiB)" in params
    assert 'class="derive-compute' in params or "derive-compute" in params
    for name in ("params.flops-kaplan", "params.kv-cache", "params.adam-memory", "params.moe-active"):
        assert f'id="derivation-{name}"' in params


def test_math_is_served_locally(site):
    pages = _pages(site)
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file()
    for name, text in pages.items():
        scripts = re.findall(r'<script[^>]*src="([^"]+)"', text)
        assert not [s for s in scripts if "://" in s], f"{name} loads a remote script"
    assert 'src="../_static/mathjax/tex-chtml.js?' in pages["chapters/softmax.html"]
    assert pages["index.html"].count("window.MathJax") == 1  # one configuration


def _dom(url: str, tmp: Path) -> str:
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + str(tmp / "profile"),
         # the network is off: every host resolves nowhere and any proxy use fails
         "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
         "--virtual-time-budget=20000", "--dump-dom", url],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium package is not installed "
                    "(.ci/run installs it with apt-get)")
@pytest.mark.parametrize("page", ["chapters/softmax.html", "index.html"])
def test_chromium_typesets_the_math_offline(site, tmp_path, page):
    source = (site / page).read_text()
    n_math = source.count('class="math notranslate nohighlight"')
    assert n_math >= 5
    dom = _dom((site / page).as_uri(), tmp_path)
    typeset = dom.count("<mjx-container")
    assert typeset >= n_math, f"{typeset} of {n_math} formulas typeset"
    assert "<mjx-merror" not in dom and "data-mjx-error" not in dom
    body = re.sub(r"<script.*?</script>", "", dom, flags=re.S)
    text = re.sub(r"<[^>]+>", "", body)
    assert "$$" not in text and "\\(" not in text and "\\[" not in text


_PROBE = """<script>
window.addEventListener("load", function () {
  var quiz = document.querySelector(".derive-quiz[data-answer]");
  var out = [];
  function click(letter) {
    quiz.querySelector('button[data-choice="' + letter + '"]').click();
    var why = quiz.querySelector('li[data-choice="' + letter + '"] .derive-quiz-why');
    out.push(letter + "|" + quiz.querySelector(".derive-quiz-feedback").textContent + "|"
             + quiz.querySelector("details.derive-fold").open + "|"
             + (why ? getComputedStyle(why).display : "none"));
  }
  out.push("closed|" + quiz.querySelector("details.derive-fold").open);
  click("b");
  click("a");
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = out.join("\\n");
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium package is not installed "
                    "(.ci/run installs it with apt-get)")
def test_chromium_quiz_gives_a_second_try_then_opens_the_explanation(site, tmp_path):
    page = site / "chapters" / "multihead.html"
    source = page.read_text()
    assert 'data-answer="a"' in source
    probe = page.with_name(f"{page.stem}.probe-copy-quiz.html")  # left out of edition_pages
    probe.write_text(source.replace("</body>", _PROBE + "</body>"))
    try:
        dom = _dom(probe.as_uri(), tmp_path)
    finally:
        probe.unlink()
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, flags=re.S)
    assert found, "the probe did not run"
    lines = found.group(1).splitlines()
    assert lines[0] == "closed|false"  # the explanation is folded until a choice is clicked
    # a wrong first choice asks for a second try: the key and the explanation stay folded
    assert lines[1] == "b|Not quite: (b) is not the answer. Try once more.|false|none"
    assert lines[2] == "a|Right: (a) is the answer.|true|none"
    assert 'aria-pressed="true" class="derive-quiz-choice" data-choice="a"' in dom or \
        re.search(r'<button[^>]*data-choice="a"[^>]*aria-pressed="true"|<button[^>]*aria-pressed="true"[^>]*'
                  r'data-choice="a"', dom)


def test_course_parts_quizzes_exercises_glossary(site):
    pages = _pages(site)
    quizzes = {name: text.count('<div class="derive-quiz"') for name, text in pages.items()}
    keyed = sum(text.count('<div class="derive-quiz" data-answer=') for text in pages.values())
    # lecture 000's five + lecture 002's three self-checks + one each in "Gradients" and "Initialisation"
    assert sum(quizzes.values()) == 10 and keyed == 7
    worked = pages["chapters/worked-example.html"]
    assert worked.count("derive-exercise-label") == 4
    folds = re.findall(r'<details class="derive-fold">(.*?)</details>', worked, flags=re.S)
    assert len(folds) == 4 and all("derive-verdict derive-proved" in f for f in folds)
    assert '<span class="derive-value">6,444,154,880</span>' in worked
    glossary = pages["glossary.html"]
    terms = re.findall(r'<dt id="term-([^"]+)"', glossary)
    for term in ("block", "multi-head-attention", "residual-connection", "LayerNorm", "RMSNorm", "Post-LN",
                 "Pre-LN", "FFN", "SwiGLU", "warm-up", "d_model", "d_k", "softmax"):
        assert term in terms, term
    linked = [name for name, text in pages.items() if name.startswith("chapters/") and 'glossary.html#term-' in text]
    assert len(linked) >= 8
    chapters = "".join(text for name, text in pages.items() if name.startswith("chapters/"))
    for term in ("block", "multi-head-attention", "residual-connection", "LayerNorm", "RMSNorm", "Post-LN",
                 "Pre-LN", "FFN", "SwiGLU", "warm-up"):  # lecture 002's nine terms, each linked from a chapter
        assert f'glossary.html#term-{term}"' in chapters, term
    for name in ("attention", "softmax", "multihead", "positional", "block", "parameters", "modern-variants",
                 "gradients", "initialisation"):
        text = pages[f"chapters/{name}.html"]
        assert "Before you start:" in text and 'id="where-to-go-next"' in text, name


def test_three_practice_cells_with_prompts(site):
    pages = _pages(site)
    cells = {name: re.findall(r'<div class="derive-cell"[^>]*>', text) for name, text in pages.items()}
    cells = {name: found for name, found in cells.items() if found}
    assert sorted(cells) == ["chapters/attention.html", "chapters/parameters.html", "chapters/positional.html"]
    assert all(len(found) == 1 for found in cells.values())
    assert 'data-packages="numpy"' in cells["chapters/attention.html"][0]
    # the calculator runs derive.params: the cell installs the wheel the build wrote next to the pages
    calculator = cells["chapters/parameters.html"][0]
    wheel = re.search(r'data-derive-wheel="\.\./(_static/derive-[^"]+\.whl)"', calculator)
    assert 'data-packages="derive sympy"' in calculator and wheel and (site / wheel.group(1)).is_file()
    for name in cells:
        assert "Try it yourself:" in pages[name] and "derive-cells.js" in pages[name]
    assert '<span class="derive-value">3,150,336</span>' in pages["chapters/parameters.html"]
    assert '<span class="derive-value">18,902,016</span>' in pages["chapters/parameters.html"]


def _layout_pages(site: Path) -> list[Path]:
    from site_text import edition_pages

    return sorted(p for p in edition_pages(site) if "_static" not in p.parts
                  and p.name not in ("genindex.html", "search.html", "py-modindex.html"))


def _tables_fit(measured: dict) -> None:
    """No table scrolls when it would fit at its natural width, and no number is set on two lines."""
    needless = {p.name: f["tables"]["needless"] for p, f in measured.items() if f["tables"]["needless"]}
    broken = {p.name: f["tables"]["broken"][:5] for p, f in measured.items() if f["tables"]["broken"]}
    assert needless == {} and broken == {}, (needless, broken)


#: the window sizes every page is measured at (``layouts``): a desktop, and a phone (laid out 390 px wide, not a
#: 500 px layout cropped)
DESKTOP, PHONE = (1400, 1000), (390, 844)


@pytest.fixture(scope="module")
def layouts(site, tmp_path_factory):
    """``{page: {DESKTOP: measurements, PHONE: measurements}}`` (:meth:`site_probe.Browser.probe_sizes`) of every
    page: one Chromium, each page loaded and typeset once, measured in the desktop window, then resized to the
    phone's and measured again. Shared by the two tests below (one pytest-xdist work unit: conftest.TOGETHER)."""
    from site_probe import Browser

    with Browser(*DESKTOP, tmp_path_factory.mktemp("profile")) as browser:
        return {page: dict(zip((DESKTOP, PHONE), browser.probe_sizes(page, [DESKTOP, PHONE]), strict=True))
                for page in _layout_pages(site)}


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium package is not installed")
def test_no_display_math_is_wider_than_its_column_at_1400_px(site, layouts):
    wide, total = {}, 0
    measured = {page: sizes[DESKTOP] for page, sizes in layouts.items()}
    for page, found in measured.items():
        total += found["total"]
        assert found["errors"] == 0, f"{page.name}: MathJax could not typeset {found['errors']} formulas"
        if found["wide"]:
            wide[page.name] = found["wide"]
    assert total >= 200, total  # every page was measured after MathJax ran
    assert wide == {}, wide
    _tables_fit(measured)
    # the citation graph fits the text column: no third column runs past it into the scroll box
    graphs = measured[site / "theory-map.html"]["graphs"]
    assert len(graphs) == 1 and 0 < graphs[0]["width"] <= graphs[0]["column"] + 1, graphs
    assert "scroll" not in graphs[0]["caption"], graphs  # no "scroll" caption: nothing to scroll


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium package is not installed")
def test_on_a_phone_only_the_math_scrolls_never_the_page(site, layouts):
    """At 390 px (the page laid out that wide, not a 500 px layout cropped): no page scrolls sideways; every
    display formula wider than its column, in a derivation or in a chapter's prose, scrolls in its own box
    with a visible cue (the "scroll" caption and the edge shadow) and its left end in view; the citation graph
    scrolls in its box with the same cue."""
    from site_probe import cue_problems

    overflow, uncued, wide = {}, {}, 0
    measured = {page: sizes[PHONE] for page, sizes in layouts.items()}
    for page, found in measured.items():
        assert found["errors"] == 0, f"{page.name}: MathJax could not typeset {found['errors']} formulas"
        if found["page_overflow"] > 0:
            overflow[page.name] = found["page_overflow"]
        if page.parent.name == "chapters":
            wide += len(found["wide"])
            uncued.update({f"{page.name} {w['id'] or '(prose)'} {w['ratio']}x": cue_problems(w)
                           for w in found["wide"] if cue_problems(w)})
    assert overflow == {}, f"pages wider than a 390 px phone (px): {overflow}"
    _tables_fit(measured)
    assert wide >= 50  # the chapters' matrices do not fit a phone: the cue is measured on many formulas
    assert uncued == {}, uncued
    graphs = measured[site / "theory-map.html"]["graphs"]
    assert len(graphs) == 1 and graphs[0]["width"] > graphs[0]["column"], graphs  # drawn at its own size
    assert graphs[0]["overflow"] == "auto" and graphs[0]["shadow"] and "scroll" in graphs[0]["caption"], graphs


def test_theme_has_previous_next_links_and_folded_checks(site):
    page = (site / "chapters" / "softmax.html").read_text()
    assert 'class="next-page"' in page and 'class="prev-page"' in page  # furo's footer links
    assert 'class="toc-tree"' in page  # "on this page"
    assert page.count("<details") >= 3 and "<summary>Numeric cross-checks: " in page


def test_no_raw_tex_outside_math_in_page_text(site):
    """Text fields' pseudo-TeX (d_k, e^{s_j}) is typeset as math; tables show no sympy ``**``."""
    import html as html_lib

    found = {}
    # the narrative pages, where the derivations' text fields are shown (api.html quotes docstrings verbatim)
    for page in [p for p in _layout_pages(site) if p.name != "api.html"]:
        text = page.read_text()
        text = re.sub(r"<(script|style|pre|code|textarea)\b.*?</\1>", " ", text, flags=re.S)  # textarea: cells
        text = re.sub(r'<span class="pre">.*?</span>', " ", text, flags=re.S)  # code literals
        text = html_lib.unescape(re.sub(r"<[^>]+>", " ", text))
        text = re.sub(r"\\\[.*?\\\]|\\\(.*?\\\)", " ", text, flags=re.S)  # math, typeset by MathJax
        marks = ["_{", "^{", "\\frac", "**"]
        hits = [m for m in marks if m in text]
        if hits:
            found[page.name] = hits
    assert found == {}, found


_DARK = """<script>
window.addEventListener("load", function () {
  document.body.dataset.theme = "dark";
  function rgb(s) { return s.match(/[0-9.]+/g).slice(0, 3).map(Number); }
  function lum(c) {
    var v = c.map(function (x) { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
  }
  var out = [];
  document.querySelectorAll(".derive-derivation").forEach(function (box) {
    var bg = lum(rgb(getComputedStyle(box).backgroundColor));
    ["p.derive-step", ".derive-claim-label", "p.derive-meta"].forEach(function (sel) {
      var el = box.querySelector(sel);
      if (!el) return;
      var fg = lum(rgb(getComputedStyle(el).color));
      out.push(((Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05)).toFixed(2));
    });
  });
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = out.join(" ");
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium package is not installed")
def test_dark_mode_keeps_the_derivations_legible(site, tmp_path):
    """Furo's dark theme: every derivation box's words stand out from its background (WCAG contrast >= 4.5)."""
    page = site / "chapters" / "softmax.html"
    probe = page.with_name(f"{page.stem}.probe-copy-dark.html")  # left out of edition_pages
    probe.write_text(page.read_text().replace("</body>", _DARK + "</body>"))
    try:
        dom = _dom(probe.as_uri(), tmp_path)
    finally:
        probe.unlink()
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, flags=re.S)
    assert found, "the probe did not run"
    ratios = [float(r) for r in found.group(1).split()]
    assert len(ratios) >= 20
    assert min(ratios) >= 4.5, sorted(ratios)[:5]


def test_on_this_page_lists_the_derivations_and_names_in_notes_link(site):
    page = (site / "chapters" / "softmax.html").read_text()
    toc = page.split('class="toc-tree"', 1)[1].split("</nav>", 1)[0]
    entries = re.findall(r'derive-toc-entry"><a class="reference internal" href="#derivation-([^"]+)">(.*?)</a>', toc)
    names = [n for n, _ in entries]
    assert "softmax.jacobian" in names and "softmax.max-trick" in names and len(names) >= 8
    # the title's math is typeset as in the heading (MathJax), never shown as raw TeX or ASCII
    assert dict(entries)["softmax.jacobian"] == (
        r'The softmax Jacobian: <span class="math notranslate nohighlight">'
        r"\(\partial s_i/\partial z_j = s_i(\delta_{ij} - s_j)\)</span>")
    from site_text import raw_math

    assert raw_math(toc) == []
    assert not re.search(r"\d+\.\d+\.\d+\. The softmax Jacobian", toc)  # no section number on a derivation
    links = re.findall(r'<a class="derive-name-link[^"]*" href="([^"]+)"', page)
    assert "#derivation-softmax.max-trick" in links
    assert any(h.startswith("attention.html#derivation-attention.score-variance") for h in links)


def test_no_raw_ascii_math_in_visible_text(site):
    """No ``_`` or ``^`` of ASCII math (``d_k``, ``e^(…)``) in the visible text of any page, headings, the
    table of contents and check tables included: math is typeset, names are code (before: about 470 ``_``
    and 60 ``^``), the API reference (docstrings' plain-text math, 296 before) and the benchmark report (13)
    included."""
    from site_text import site_raw_math

    found = site_raw_math(site)
    assert not found, "\n".join(f"{page}: {s}" for page, snippets in found.items() for s in snippets[:5])


def test_notation_page_lists_every_symbol_once(site):
    from derive.sphinxext.notation import rows

    page = _pages(site)["notation.html"]
    table = re.search(r'<table class="derive-notation.*?</table>', page, flags=re.S).group(0)
    assert table.count("<tr") == len(rows()) + 1  # one row per symbol, and the head
    assert r"\(d_{\text{model}}\)" in table and "<span class=\"pre\">d_model</span>" in table


def test_glossary_covers_the_chapters_terms_in_order(site):
    glossary = _pages(site)["glossary.html"]
    terms = re.findall(r'<dt id="term-([^"]+)"', glossary)
    for term in ("Jacobian", "KV-cache", "GQA", "RoPE", "ALiBi", "verdict", "causal-mask", "temperature",
                 "cross-entropy", "FLOPs", "online-softmax", "mixture-of-experts"):
        assert term in terms, term
    # entries sorted by their first headword (``:sorted:``; a math headword by its TeX, d_k before derivation)
    chunks = glossary.split("<dl", 1)[1].split("</dd>")[:-1]
    firsts = [re.sub(r"<[^>]+>|\\\(|\\\)", "",
                     re.search(r'<dt id="[^"]+">(.*?)<a class="headerlink"', c, flags=re.S).group(1)).lower()
              for c in chunks]
    assert len(firsts) >= 35 and firsts == sorted(firsts), firsts
