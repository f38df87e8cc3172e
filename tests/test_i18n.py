"""The Korean edition of the package (issue 23): the message catalog cannot rot, and every surface speaks
the language it is asked for, with the same formulas and the same verified answers."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from derive import i18n, i18n_catalog, registry
from derive.cli import main

HANGUL = re.compile("[\uac00-\ud7a3]")


@pytest.fixture(scope="module")
def template():
    """The template extracted from the sources now (builds every catalog derivation once)."""
    return i18n_catalog.build_template()


# --- the catalog cannot rot ---------------------------------------------------------------------------

def test_template_in_the_repository_is_up_to_date(template):
    """derive/locale/derive.pot holds exactly the texts the sources have (else: python -m derive.i18n extract)."""
    assert not i18n_catalog.template_outdated(template), \
        "derive/locale/derive.pot is out of date: run python -m derive.i18n extract"


def test_template_covers_every_catalog_derivation(template):
    """Every registered catalog derivation's title is a message, with a reference to its module and name."""
    registry.load_catalog()
    catalog_entries = [e for e in registry.entries() if e.module in registry.CATALOG_MODULES]
    assert len(catalog_entries) >= 137
    for e in catalog_entries:
        message = template.get(e.build().title)
        assert message is not None, e.name
        assert any(loc.startswith(("derive.", "derive/")) for loc, _ in message.locations)
    refs = {loc for m in template for loc, _ in m.locations}
    assert "derive.transformer.softmax#softmax.shift-invariance" in refs


def test_template_is_ordered_by_catalog_module(template):
    """Labels first, then the catalog module by module in CATALOG_MODULES order (a message's first use)."""
    order = [c.split("#")[0] for m in template if m.id for c in m.auto_comments[:1] if c.startswith("derive.")]
    firsts = list(dict.fromkeys(order))
    assert firsts == [m for m in registry.CATALOG_MODULES if m in firsts]
    assert len(firsts) == len(registry.CATALOG_MODULES)


def test_korean_catalog_has_no_stale_obsolete_or_broken_translation(template):
    """No fuzzy (its English changed), obsolete or math-changing translation in the Korean catalog."""
    bad = [p for p in i18n_catalog.problems("ko", template=template)
           if "untranslated" not in p and "not in the catalog" not in p]
    assert bad == []


def test_korean_catalog_translates_every_text(template):
    """Every message of the template has a Korean translation."""
    missing = [p for p in i18n_catalog.problems("ko", template=template) if "untranslated" in p
               or "not in the catalog" in p]
    assert missing == [], f"{len(missing)} texts without Korean, e.g. {missing[:3]}"


def _tiny_template(texts):
    from babel.messages.catalog import Catalog

    t = Catalog(domain="derive", fuzzy=False)
    for text in texts:
        t.add(text, locations=[("derive.transformer.demo#demo.x", None)])
    return t


def test_changed_english_makes_its_translation_stale_and_the_check_says_so(tmp_path, monkeypatch):
    """babel's update keeps a translation whose English changed as fuzzy; problems() names it stale, the
    lookup shows English meanwhile; a removed text is reported obsolete; changed math is reported."""
    from babel.messages.pofile import read_po

    monkeypatch.setattr(i18n_catalog, "LOCALE_DIR", tmp_path)
    old = _tiny_template(["the sum of $n$ ones is $n$", "a removed sentence", "scores are divided by $T$"])
    path = i18n_catalog.update("ko", old)
    catalog = read_po(path.open("rb"))
    for m in catalog:
        if m.id:
            m.string = {"the sum of $n$ ones is $n$": "1을 $n$번 더하면 $n$이다",
                        "a removed sentence": "지워질 문장",
                        "scores are divided by $T$": "점수를 $\\tau$로 나눈다"}[m.id]
    i18n_catalog._write(catalog, path)
    new = _tiny_template(["the sum of $n$ ones equals $n$", "scores are divided by $T$"])
    i18n_catalog.update("ko", new)
    found = i18n_catalog.problems("ko", template=new)
    assert any("stale (fuzzy)" in p and "the sum of $n$ ones equals" in p for p in found), found
    assert any("obsolete" in p and "a removed sentence" in p for p in found), found
    assert any("changes the $...$ math" in p and "divided by" in p for p in found), found
    assert len(found) == 3


def test_untranslated_text_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(i18n_catalog, "LOCALE_DIR", tmp_path)
    t = _tiny_template(["a new sentence"])
    i18n_catalog.update("ko", t)
    assert i18n_catalog.problems("ko", template=t) == [
        "ko: untranslated: 'a new sentence' (derive.transformer.demo#demo.x)"]


def test_format_fields_must_survive_translation(tmp_path, monkeypatch):
    from babel.messages.pofile import read_po

    monkeypatch.setattr(i18n_catalog, "LOCALE_DIR", tmp_path)
    t = _tiny_template(["{n} passed"])
    path = i18n_catalog.update("ko", t)
    catalog = read_po(path.open("rb"))
    catalog["{n} passed"].string = "{count}개 통과"
    i18n_catalog._write(catalog, path)
    assert [p for p in i18n_catalog.problems("ko", template=t) if "fields" in p] == [
        "ko: the translation changes the {fields}: '{n} passed' (derive.transformer.demo#demo.x)"]
    assert i18n_catalog.fields_of("{n} of $x^{2}$ and {scope}") == ["{n}", "{scope}"]


def test_math_spans_are_compared_as_written():
    assert i18n_catalog.math_of("a $x^2$ and $\\frac{a}{b}$") == ["$\\frac{a}{b}$", "$x^2$"]
    assert i18n_catalog.math_of("no math, 5 $ and") == []


# --- lookup --------------------------------------------------------------------------------------------

def test_translate_falls_back_to_english_and_follows_the_active_language(monkeypatch):
    monkeypatch.delenv("DERIVE_LANG", raising=False)
    title = "Softmax is unchanged by adding a constant to every score"
    assert i18n.translate(title) == title
    korean = i18n.translate(title, "ko")
    assert HANGUL.search(korean) and korean != title
    assert i18n.translate("a text no catalog has", "ko") == "a text no catalog has"
    with i18n.using("ko_KR"):
        assert i18n.current() == "ko"
        assert i18n.gettext(title) == korean
    assert i18n.current() == "en"
    monkeypatch.setenv("DERIVE_LANG", "ko")
    assert i18n.current() == "ko"
    monkeypatch.setenv("DERIVE_LANG", "xx")  # a wrong variable: English, not a crash of every surface
    assert i18n.current() == "en"


def test_unknown_language_is_one_clear_error():
    from derive.exceptions import InputError

    with pytest.raises(InputError, match=r"^unknown language 'xx'; derive speaks en, ko$"):
        i18n.normalize("xx")
    assert i18n.available("fr") == "en"
    assert i18n.available("ko-KR") == "ko"


def test_localize_changes_words_only():
    """The Korean copy has the same name, expressions, rules, premises and checks; English is the object."""
    d = registry.get("softmax.shift-invariance")
    assert i18n.localize(d, "en") is d
    k = i18n.localize(d, "ko")
    assert k.name == d.name and k.start == d.start and k.definitions == d.definitions
    assert [s.expr for s in k.steps] == [s.expr for s in d.steps]
    assert [s.rule for s in k.steps] == [s.rule for s in d.steps]
    assert k.premises == d.premises and len(k.checks) == len(d.checks)
    assert HANGUL.search(k.title) and all(HANGUL.search(s.justification) for s in k.steps)
    assert [i18n_catalog.math_of(s.justification) for s in k.steps] == \
        [i18n_catalog.math_of(s.justification) for s in d.steps]


# --- the command line ------------------------------------------------------------------------------------

def _hangul_share(text: str) -> float:
    letters = [ch for ch in text if ch.isalpha()]
    return sum(bool(HANGUL.match(ch)) for ch in letters) / max(len(letters), 1)


def test_show_in_korean(capsys):
    assert main(["show", "softmax.shift-invariance"]) == 0
    english = capsys.readouterr().out
    assert main(["show", "softmax.shift-invariance", "--lang", "ko"]) == 0
    korean = capsys.readouterr().out
    assert korean.splitlines()[0].startswith("모든 점수에 같은 상수를 더해도 소프트맥스는 변하지 않는다")
    for label in ("주장:", "가정:", "단계:", "근거:", "참고:"):
        assert label in korean
    assert "the exponential of a difference" not in korean
    words = [re.sub(r"\[.*?\]|exp\(.*?\)|softmax\.[a-z-]+", "", line) for line in korean.splitlines()
             if "근거:" in line or line.startswith(("  - ", "참고"))]
    assert len(words) == 5 and _hangul_share(" ".join(words)) > 0.7
    # the formulas are the same lines in both languages
    def formulas(text):
        return [line for line in text.splitlines()
                if line.strip() and not re.search("[A-Za-z]{3}|[\uac00-\ud7a3]", line)]
    assert formulas(korean) == formulas(english)


def test_list_in_korean(capsys):
    assert main(["list"]) == 0
    english = capsys.readouterr().out.splitlines()
    assert main(["list", "--lang", "ko"]) == 0
    korean = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in korean] == [line.split()[0] for line in english]
    line = next(x for x in korean if x.startswith("softmax.shift-invariance "))
    assert line.endswith("모든 점수에 같은 상수를 더해도 소프트맥스는 변하지 않는다")
    registry.load_catalog()
    mine = {e.name for e in registry.entries() if e.module == "derive.transformer.softmax"}
    softmax = [x for x in korean if x.split()[0] in mine]
    assert len(softmax) == len(mine) >= 5 and all(HANGUL.search(x) for x in softmax)


def test_list_json_in_korean_by_environment(capsys, monkeypatch):
    import json

    monkeypatch.setenv("DERIVE_LANG", "ko")
    assert main(["list", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["softmax.max-trick"]["title"] == "c = max z로 이동한 소프트맥스는 오버플로할 수 없다"
    assert main(["list", "--json", "--lang", "en"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["softmax.max-trick"]["title"] == "With c = max z, the shifted softmax cannot overflow"


def test_check_in_korean_and_its_json_stays_english(capsys):
    """`derive check --lang ko`: the table's headers, verdicts, check names and messages in Korean, aligned by
    terminal cells; `--json` is the same document in every language (English keys and values)."""
    import json

    from rich.cells import cell_len

    assert main(["check", "softmax.shift-invariance", "--lang", "ko", "-v"]) == 0
    korean = capsys.readouterr().out
    lines = korean.splitlines()
    head = next(k for k, line in enumerate(lines) if line.startswith("유도 "))
    assert lines[head].split() == ["유도", "기호", "검증", "증명된", "단계", "수치", "검증", "시간"]
    row = lines[head + 2]
    assert row.split()[:4] == ["softmax.shift-invariance", "증명됨", "3/3", "6/6"] and "통과" in row
    # the columns line up on a terminal: each header starts where its column of dashes starts
    starts = [m.start() for m in re.finditer(r"-+", lines[head + 1])]
    assert [cell_len(row[:k]) for k in (row.index("증명됨"), row.index("3/3"))] == starts[1:3]
    assert "단계 1: " in korean and "전략으로 증명됨" in korean
    assert "무작위 점에서 주장 확인: 32개 점에서 성립 (특수점 12개)" in korean  # the name and the message
    assert "유도 1개: 통과 1, 실패 0" in korean and "derivation" not in korean and "passed" not in korean

    def document(argv):
        assert main(argv) == 0
        out = json.loads(capsys.readouterr().out)
        for r in out["reports"]:
            r["seconds"] = 0
            for part in (*r["steps"], *r["checks"]):
                part["seconds"] = 0
        return out
    english = document(["check", "softmax.shift-invariance", "--json"])
    assert document(["check", "softmax.shift-invariance", "--json", "--lang", "ko"]) == english
    assert english["reports"][0]["verdict"] == "proved"


def test_messages_with_numbers_are_translated_by_their_form():
    assert i18n.translate_message("holds at 32 points (12 special)", "ko") == "32개 점에서 성립 (특수점 12개)"
    assert i18n.translate_message("estimate 0.25 ± 0.01 (n=20,000) agrees with 0.25", "ko") == \
        "추정값 0.25 ± 0.01 (n=20,000)가 0.25와 일치"
    assert i18n.translate_message("holds at 32 points (12 special)", "en") == "holds at 32 points (12 special)"
    assert i18n.translate_message("a message of no known form", "ko") == "a message of no known form"


def test_unknown_language_on_the_command_line(capsys):
    assert main(["show", "softmax.shift-invariance", "--lang", "klingon"]) == 2
    err = capsys.readouterr().err
    assert err == "derive: error: unknown language 'klingon'; derive speaks en, ko\n"


# --- slides and images -----------------------------------------------------------------------------------

KOTEX = shutil.which("kpsewhich") and subprocess.run(["kpsewhich", "kotex.sty"], capture_output=True,
                                                      text=True).stdout.strip()


@pytest.mark.skipif(not (shutil.which("pdflatex") and shutil.which("pdftotext") and KOTEX),
                    reason="needs pdflatex, pdftotext and kotex (Debian: texlive-lang-korean, see .ci/run)")
def test_korean_beamer_deck_of_a_chapter_compiles(tmp_path, capsys):
    """The softmax chapter as a Korean deck: kotex in the preamble, pdflatex compiles it, the PDF's text is
    Korean (its words outside formulas are mostly Hangul), and the formulas are those of the English deck."""
    tex = tmp_path / "ko.tex"
    assert main(["export", "--chapter", "softmax", "-f", "beamer", "--lang", "ko", "-o", str(tex)]) == 0
    source = tex.read_text(encoding="utf-8")
    assert r"\usepackage{kotex}" in source
    assert main(["export", "--chapter", "softmax", "-f", "beamer", "-o", str(tmp_path / "en.tex")]) == 0
    english = (tmp_path / "en.tex").read_text(encoding="utf-8")
    assert r"\usepackage{kotex}" not in english
    def maths(text):  # the rows of the chains, without the justifications and the overlay numbers
        return {re.sub(r"\\onslide<\d+->", "", line) for line in text.splitlines()
                if line.startswith("&") and r"\parbox" not in line}

    def derivations(text):
        return re.findall(r"derive-frame: (\S+) 1\}", text)
    assert derivations(source) == derivations(english) and len(derivations(source)) >= 5
    # the same formulas; Korean words take other heights, so a long chain may break into frames elsewhere
    assert len(maths(english)) > 20 and len(maths(source) & maths(english)) >= 0.9 * len(maths(english))
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "ko.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:]
    text = subprocess.run(["pdftotext", "-layout", "ko.pdf", "-"], cwd=tmp_path, capture_output=True,
                          text=True, check=True).stdout
    assert "소프트맥스의 야코비 행렬" in text
    assert "모든 점수에서" in text or "최댓값" in text
    assert len(HANGUL.findall(text)) > 500


def test_korean_svg_draws_hangul_with_a_hangul_font(tmp_path):
    pytest.importorskip("ziamath")
    from derive.render.hangul import MixedText, hangul_font
    from derive.render.svg import derivation_svg

    try:
        font = hangul_font()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(str(exc))
    import ziafont

    registry.load_catalog()
    d = i18n.localize(registry.get("softmax.shift-invariance"), "ko")
    svg = derivation_svg(d)
    assert "<title>모든 점수에 같은 상수를 더해도" in svg
    syllables = "".join(HANGUL.findall("".join(s.justification for s in d.steps)))
    assert len(syllables) > 30
    face = ziafont.Font(font)
    assert all(face.glyphindex(ch) != 0 for ch in syllables)  # the font has every one of them
    formulas = derivation_svg(d, justifications=False).count("<path")
    assert svg.count("<path") - formulas >= len(syllables)  # each drawn as a path of its own
    # words and math share a baseline, one after the other, in reading order
    m = MixedText("합은 $n$이다", font, size=18)
    (text, w1, _, _), (math, w2, _, _), (tail, w3, _, _) = m.lines[0]
    assert w1 > 0 and w2 > 0 and w3 > 0
    x0, x1, y0, y1 = m.bbox()
    assert x1 == pytest.approx(w1 + w2 + w3) and y0 < 0 < y1


def test_korean_png_export(tmp_path, capsys):
    pytest.importorskip("cairosvg")
    from derive.render.hangul import hangul_font

    try:
        hangul_font()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(str(exc))
    out = tmp_path / "s.png"
    assert main(["export", "softmax.shift-invariance", "-f", "png", "--lang", "ko", "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_missing_hangul_font_is_one_clear_error(monkeypatch, tmp_path):
    from derive.exceptions import MissingDependencyError
    from derive.render import hangul

    monkeypatch.setenv("DERIVE_HANGUL_FONT", str(tmp_path / "nothing.ttf"))
    with pytest.raises(MissingDependencyError, match="DERIVE_HANGUL_FONT=.*not a readable font with Hangul glyphs"):
        hangul.hangul_font()


# --- the course: same verified answers in Korean -----------------------------------------------------------

def test_exercises_and_quiz_values_are_the_same_in_korean():
    """The exercises' derivations keep their expressions in Korean, and a quiz value spec evaluates to the
    same exact number whichever language is active."""
    from derive.sphinxext.quiz import evaluate, parse_spec

    registry.load_catalog()
    exercises = [n for n in registry.names() if n.startswith("example.exercise-")]
    assert exercises
    for name in exercises:
        d = registry.get(name)
        k = i18n.localize(d, "ko")
        assert (k.start, [s.expr for s in k.steps], k.definitions) == (d.start, [s.expr for s in d.steps],
                                                                      d.definitions)
    spec = parse_spec("params.attention d_model=512 n_heads=8")
    english = evaluate(spec, seed=20170612, budget=10.0)
    with i18n.using("ko"):
        korean = evaluate(spec, seed=20170612, budget=10.0)
    assert korean == english == 1048576


# --- the Sphinx extension ------------------------------------------------------------------------------------

COURSE = """\
```{quiz}
:answer: b
:value: params.attention d_model=512 n_heads=8
:proves: params.attention

$d_{\\text{model}} = 512$, 8 heads: how many weights has attention?

- 262,144
- 1,048,576

Four matrices of $512 \\times 512$.
```

```{derive-params} lecture-layer
:no-budget:
```

```{exercise} example.exercise-layernorm-constant
:nonumber:

LayerNorm of $(2, 2, 2, 2)$?
```

"""


def _site(root, language):
    import sys

    src = root / "src"
    src.mkdir(parents=True)
    (src / "conf.py").write_text('extensions = ["myst_parser", "derive"]\nbibtex_bibfiles = []\n'
                                 'myst_enable_extensions = ["dollarmath"]\nnumfig = True\n'
                                 f"language = {language!r}\n")
    (src / "index.md").write_text("# Softmax\n\n```{derivation} softmax.shift-invariance\n```\n\n" + COURSE
                                  + "```{bibliography}\n```\n")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-nW", "--keep-going", "-q", "-b", "html", str(src),
                           str(root / "out")], capture_output=True, text=True, timeout=600)
    assert (proc.returncode, proc.stderr) == (0, "")
    return (root / "out" / "index.html").read_text(encoding="utf-8")


def test_the_sphinx_directive_renders_in_the_sites_language(tmp_path):
    """A site built with language = "ko" shows the derivation's words and labels in Korean, the same math;
    a language derive does not speak (fr) falls back to English without a warning."""
    pytest.importorskip("myst_parser")
    korean = _site(tmp_path / "ko", "ko")
    for text in ("모든 점수에 같은 상수를 더해도 소프트맥스는 변하지 않는다", "주장.", "가정.", "증명됨",
                 "차의 지수는 지수의 곱으로 나뉜다", "수치 교차 검증: 6개 통과 (표 보기)", "이 페이지를 만들 때"):
        assert text in korean, text
    assert "Softmax is unchanged by adding a constant" not in korean
    for text in ("스스로 확인하기.", "정답과 해설", "정답은 (b)이다.", "이 사이트에서 증명됨:", "연습 문제 1.",
                 "풀이 (먼저 풀어 보세요)", "상수 벡터 (2, 2, 2, 2)의 레이어 정규화"):
        assert text in korean, text
    # the quiz script's lines, the parameter table's words, the derivation's number and its entry in the TOC
    assert 'data-say-right="맞았습니다: ({letter})가 정답입니다."' in korean
    for text in ("구성 요소", "셀프 어텐션", "레이어 정규화 × 2", "합계", "정확한 합계 3,150,336", "유도 1",
                 "32개 점에서 성립"):
        assert text in korean, text
    assert "self-attention" not in korean and "component" not in korean
    french = _site(tmp_path / "fr", "fr")
    for text in ('data-say-right="Right: ({letter}) is the answer."', "self-attention", "Exact total 3,150,336",
                 "Derivation 1", "holds at 32 points"):
        assert text in french, text
    assert "Softmax is unchanged by adding a constant to every score" in french and "주장." not in french
    assert "Check yourself." in french and "Exercise 1." in french
    # the same verified answer (the build checks 1,048,576 against params.attention in both languages)
    assert "1,048,576" in korean and "1,048,576" in french

    def maths(page):
        return re.findall(r'class="[^"]*\bmath notranslate[^"]*"[^>]*>(.*?)</(?:div|span)>', page, flags=re.S)
    # the same formulas (a Korean sentence may hold its inline math in another order)
    assert len(maths(korean)) >= 10 and sorted(maths(korean)) == sorted(maths(french))


def test_notebook_reprs_follow_the_language_setting(monkeypatch):
    """Jupyter: i18n.set_language("ko") (or DERIVE_LANG=ko) turns the HTML/Markdown/LaTeX reprs Korean."""
    from derive.render.jupyter import repr_html, repr_latex, repr_markdown

    monkeypatch.delenv("DERIVE_LANG", raising=False)
    registry.load_catalog()
    d = registry.get("softmax.shift-invariance")
    english = repr_markdown(d)
    try:
        i18n.set_language("ko")
        html, markdown, latex = repr_html(d), repr_markdown(d), repr_latex(d)
    finally:
        i18n.set_language(None)
    assert "모든 점수에 같은 상수를 더해도" in html and "증명됨" in html and "가정." in html
    assert markdown.startswith("### 모든 점수에 같은 상수를 더해도") and "**주장.**" in markdown
    assert "차의 지수는 지수의 곱으로 나뉜다" in latex
    assert english.startswith("### Softmax is unchanged") and repr_markdown(d) == english
    with pytest.raises(Exception, match="unknown language 'xx'"):
        i18n.set_language("xx")


def test_a_reports_notebook_table_follows_the_language():
    from derive.cache import cached_verify

    registry.load_catalog()
    report = cached_verify(registry.get("softmax.shift-invariance"))
    english = report._repr_html_()
    with i18n.using("ko"):
        korean = report._repr_html_()
    for text in ("<td>단계 1</td><td>증명됨</td>", "<td>검증</td><td>통과</td>", "32개 점에서 성립 (특수점 12개)"):
        assert text in korean, text
    assert "<td>step 1</td><td>proved</td>" in english and "holds at 32 points (12 special)" in english


def test_korean_words_wrap_at_100_terminal_columns(capsys):
    """A Hangul syllable takes two columns: Korean lines of `derive show` are wrapped by cells, not letters."""
    from rich.cells import cell_len

    assert main(["show", "softmax.saturation", "--lang", "ko"]) == 0
    korean = [line for line in capsys.readouterr().out.splitlines() if HANGUL.search(line)]
    assert len(korean) > 8
    assert max(cell_len(line) for line in korean) <= 100
    assert max(cell_len(line) for line in korean) > 90  # filled, not wrapped at 50 letters
