"""The Korean site: gettext catalogs of docs/ (``docs/locales/ko``), the ``-D language=ko`` build, the switch.

The English site is built into ``html/`` and the Korean one into ``html/ko/`` (as the README's docs job does),
both with ``-nW``. Checked: every catalog of a page the Korean site must translate is complete and has no fuzzy
entry; the Korean build leaves no paragraph of those pages in English (a stale entry, whose English source
changed, is left untranslated by Sphinx and marked ``untranslated``); on every chapter page most visible letters
outside math and code are Hangul (the article as a whole, and the docs' own prose); every keyed quiz keeps its key
and shows its choices and feedback in Korean; the "on this page" list names derivations in Korean; every page's
language switch links to an existing page in the other build, which links back. Marked ``docs`` (it builds the
site twice).
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
babel_pofile = pytest.importorskip("babel.messages.pofile")

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "docs" / "locales" / "ko" / "LC_MESSAGES"
#: pages the Korean site must translate; the API reference and the benchmarks fall back to English
REQUIRED = ["index", "getting-started", "glossary", "theory-map", "notation", "proved", "cli", "bibliography",
            *sorted(f"chapters/{p.stem}" for p in (ROOT / "docs" / "chapters").glob("*.md"))]
HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
LATIN = re.compile(r"[A-Za-z]")
SKIP_TAGS = {"script", "style", "code", "pre", "kbd", "tt", "samp", "math", "svg", "title", "head", "textarea"}
CODE_MATH = {"math", "highlight", "literal", "sig", "sig-name", "descname", "sig-prename", "descclassname",
             "visually-hidden"}
#: the elements of a translated build that hold a message of the docs' catalogs (Sphinx's translation classes);
#: the rest of a chapter page (rendered derivations, quiz choices, parameter tables) is the package's text
PROSE = {"translated", "untranslated"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Letters(HTMLParser):
    """Count Hangul and Latin letters of a page's visible text outside code and math (only inside ``within``)."""

    def __init__(self, within: set[str] | None) -> None:
        super().__init__(convert_charrefs=True)
        self.within, self.stack = within, []  # per open element: (hidden, inside `within`)
        self.hangul = self.latin = 0

    def handle_starttag(self, tag, attrs):
        classes = set((dict(attrs).get("class") or "").split())
        hidden, inside = self.stack[-1] if self.stack else (False, self.within is None)
        hidden = hidden or tag in SKIP_TAGS or tag.startswith("mjx-") or bool(classes & CODE_MATH)
        inside = inside or bool(self.within and classes & self.within)
        if tag not in VOID:
            self.stack.append((hidden, inside))

    def handle_endtag(self, tag):
        if tag not in VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        hidden, inside = self.stack[-1] if self.stack else (False, self.within is None)
        if hidden or not inside:
            return
        data = re.sub(r"\\\(.*?\\\)|\$[^$]*\$", "", data)  # inline math left as text for MathJax
        self.hangul += len(HANGUL.findall(data))
        self.latin += len(LATIN.findall(data))


def hangul_share(html: str, within: set[str] | None = None) -> float:
    """Hangul letters / (Hangul + Latin letters) in ``html``'s body text outside math and code.

    ``within``: count only inside elements with one of these classes (``PROSE``: the docs' own translated text).
    """
    parser = _Letters(within)
    parser.feed(html[html.find("<body"):])
    return parser.hangul / max(1, parser.hangul + parser.latin)


def article_share(html: str) -> float:
    """:func:`hangul_share` of a page's article (Furo's ``<article>``: the chapter without the menus and the
    "on this page" list), all of it: the docs' prose, the rendered derivations, quizzes and tables."""
    start, end = html.find("<article"), html.rfind("</article>")
    assert start >= 0 and end > start, "no <article> in the page"
    parser = _Letters(None)
    parser.feed(html[start:end])
    return parser.hangul / max(1, parser.hangul + parser.latin)


def untranslated(html: str) -> list[str]:
    """The text of each element a translated build left in the source language (Sphinx's class ``untranslated``)."""
    # (an image whose alt text was translated keeps the class: Sphinx marks images by their URI, not their alt)
    return [re.sub(r"<[^>]+>", "", m.group(1))[:80]
            for m in re.finditer(r'<(?!img\b)\w+[^>]*class="[^"]*\buntranslated\b[^"]*"[^>]*>(.*?)</', html, re.S)]


def switch_links(html: str) -> dict[str, str]:
    """The language switch of a page: {language code: href} of its links (the current language has none)."""
    nav = re.search(r'<nav class="derive-language-switch".*?</nav>', html, re.S)
    assert nav, "no language switch on the page"
    return dict(re.findall(r'<a class="derive-language" lang="(\w+)" hreflang="\w+" href="([^"]+)"', nav.group(0)))


def _read(name: str):
    with (LOCALE / f"{name}.po").open("rb") as f:
        return babel_pofile.read_po(f)


@pytest.mark.parametrize("name", REQUIRED)
def test_catalog_of_the_page_is_complete_and_not_fuzzy(name):
    catalog = _read(name)
    missing = [m.id for m in catalog if m.id and not m.string]
    fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
    assert not missing, f"{name}.po: {len(missing)} entries without Korean, first: {missing[0][:80]!r}"
    assert not fuzzy, f"{name}.po: {len(fuzzy)} fuzzy (stale) entries, first: {fuzzy[0][:80]!r}"
    assert not catalog.obsolete, f"{name}.po: obsolete entries (the English text is gone): run sphinx-intl update"


ROLE = re.compile(r"\{([a-z:-]+)\}`([^`]*)`")


def _targets(text: str) -> list[tuple[str, str]]:
    """(role, target) of each MyST role: ``{term}`head width <d_k>``` gives ("term", "d_k")."""
    return sorted((role, re.sub(r".*<(.+)>$", r"\1", body.strip(), flags=re.S)) for role, body in ROLE.findall(text))


def _math_and_code(text: str) -> list[str]:
    text = ROLE.sub("", text)
    return sorted(re.findall(r"\$[^$]+\$", text) + re.findall(r"``.+?``|`[^`]+`", text))


@pytest.mark.parametrize("name", REQUIRED)
def test_translation_keeps_math_code_and_cross_references(name):
    """Math, inline code and every role's target come back unchanged in each translation (link text may change)."""
    for m in _read(name):
        if m.id and m.string != m.id:
            assert _targets(m.string) == _targets(m.id), f"{name}.po: {m.id[:60]!r}"
            assert _math_and_code(m.string) == _math_and_code(m.id), f"{name}.po: {m.id[:60]!r}"


def test_a_stale_or_fuzzy_translation_is_left_untranslated_and_found(tmp_path):
    """The detector on a two-paragraph project: an entry whose English changed, and a fuzzy one, stay English."""
    src = tmp_path / "src"
    (src / "locales" / "ko" / "LC_MESSAGES").mkdir(parents=True)
    (src / "conf.py").write_text("language = 'ko'\nlocale_dirs = ['locales']\ngettext_compact = False\n"
                                 "translation_progress_classes = 'untranslated'\n")
    (src / "index.rst").write_text("Title\n=====\n\nThe first paragraph, changed since.\n\nThe second one.\n\n"
                                   "The third one.\n")
    (src / "locales" / "ko" / "LC_MESSAGES" / "index.po").write_text(textwrap.dedent('''\
        msgid ""
        msgstr "Content-Type: text/plain; charset=UTF-8\\n"

        msgid "Title"
        msgstr "제목"

        msgid "The first paragraph."
        msgstr "첫 문단."

        #, fuzzy
        msgid "The second one."
        msgstr "둘째 문단."

        msgid "The third one."
        msgstr "셋째 문단."
        '''), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(src), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert untranslated(html) == ["The first paragraph, changed since.", "The second one."]
    assert "셋째 문단." in html and "제목" in html


@pytest.fixture(scope="module")
def sites(built_sites):
    """The English site in ``html/`` and the Korean one in ``html/ko/``, both ``-nW``; returns (en, ko)."""
    return built_sites


def _html(root: Path, page: str) -> str:
    return (root / f"{page}.html").read_text(encoding="utf-8")


@pytest.mark.docs
def test_korean_build_is_korean_and_leaves_no_required_paragraph_in_english(sites):
    _, ko = sites
    assert re.search(r'<html[^>]* lang="ko"', _html(ko, "index"))
    left = {page: untranslated(_html(ko, page)) for page in REQUIRED}
    assert not any(left.values()), {p: t for p, t in left.items() if t}


@pytest.mark.docs
def test_chapter_pages_are_mostly_hangul(sites):
    en, ko = sites
    for page in (p for p in REQUIRED if p.startswith("chapters/")):
        prose = hangul_share(_html(ko, page), PROSE)
        assert prose > 0.6, f"{page}: only {prose:.0%} of the letters of the Korean page's prose are Hangul"
        assert hangul_share(_html(en, page)) < 0.01, page  # the English site stays English (but "한국어")


@pytest.mark.docs
def test_every_chapter_page_is_mostly_hangul_outside_math_and_code(sites):
    """Issue 23: on every chapter page most visible letters outside math and code are Hangul: the article as a
    whole (the generated derivations, parameter tables and quizzes too), not only the translated prose."""
    _, ko = sites
    shares = {page: article_share(_html(ko, page)) for page in REQUIRED if page.startswith("chapters/")}
    assert len(shares) >= 13
    low = {page: f"{share:.0%}" for page, share in shares.items() if share <= 0.5}
    assert not low, f"chapter pages at most half Hangul: {low}"


def _quizzes(html: str) -> list[tuple[str, list[str], dict[str, str]]]:
    """(key, the text of each choice, the script's lines) of each keyed quiz of a page."""
    out = []
    for attrs in re.findall(r'<div class="derive-quiz" data-answer="([^>]*)>', html):
        key = attrs.split('"')[0]
        say = dict(re.findall(r'data-say-(\w+)="([^"]*)"', attrs))
        out.append((key, say))
    button = r'<button[^>]*class="[^"]*\bderive-quiz-choice\b[^"]*"[^>]*>(.*?)</button>'
    choices = [[re.sub(r"<[^>]+>", "", b).strip() for b in re.findall(button, ol, re.S)]
               for ol in re.findall(r'<ol class="derive-quiz-choices".*?</ol>', html, re.S)]
    return [(key, texts, say) for (key, say), texts in zip(out, choices, strict=True)]


@pytest.mark.docs
def test_quizzes_are_korean_with_the_same_verified_keys(sites):
    """Every keyed quiz: the same key (the build checked it on the translated text), each choice in Korean and
    lettered as in English, the script's feedback lines in Korean."""
    en, ko = sites
    seen = 0
    for page in (p for p in REQUIRED if p.startswith("chapters/")):
        english, korean = _quizzes(_html(en, page)), _quizzes(_html(ko, page))
        assert [(k, len(c)) for k, c, _ in korean] == [(k, len(c)) for k, c, _ in english], page
        for (_, texts, say), (_, originals, _) in zip(korean, english, strict=True):
            seen += 1
            for text, original in zip(texts, originals, strict=True):
                assert text[:4] == original[:4] and re.match(r"\([a-z]\) ", text), (page, text)
                assert HANGUL.search(text) or not LATIN.search(re.sub(r"\\\(.*?\\\)", "", text)), (page, text)
            assert set(say) == {"right", "wrong", "last"} and all(HANGUL.search(v) for v in say.values()), page
    assert seen >= 7


@pytest.mark.docs
def test_on_this_page_lists_the_derivations_by_their_korean_titles(sites):
    _, ko = sites
    html = _html(ko, "chapters/softmax")
    toc = html[html.find('<div class="toc-tree">'):]
    entries = re.findall(r'<li class="derive-toc-entry">(.*?)</li>', toc, re.S)
    assert len(entries) >= 5
    assert all(HANGUL.search(e) for e in entries), [e for e in entries if not HANGUL.search(e)][:2]
    assert "유도 2." in html and "Derivation 2." not in html


@pytest.mark.docs
def test_language_switch_goes_both_ways_on_every_page(sites):
    en, ko = sites
    pages = sorted(str(p.relative_to(en).with_suffix("")) for p in en.rglob("*.html")
                   if "_static" not in p.parts and p.parts[len(en.parts)] != "ko"
                   and ".probe-copy-" not in p.name)  # a copy a probe of test_docs_site.py opens meanwhile
    assert len(pages) > 20 and "chapters/softmax" in pages
    for page in pages:
        to_ko = switch_links(_html(en, page))
        assert set(to_ko) == {"ko"}, page
        target = (en / page).parent / to_ko["ko"]
        assert target.resolve() == (ko / f"{page}.html").resolve() and target.is_file(), (page, to_ko)
        back = switch_links(target.read_text(encoding="utf-8"))
        assert set(back) == {"en"}, page
        assert (target.parent / back["en"]).resolve() == (en / f"{page}.html").resolve(), (page, back)
