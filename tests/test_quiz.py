"""The ``quiz`` directive and ``derive-value`` role: value specs, and real ``sphinx-build -nW`` runs.

A right key builds; a key that disagrees with its derivation, a spec naming an
unknown derivation and a short-answer quiz given a key each fail with
``derive.quiz``. Each project is built in its own subprocess, both at once.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

from derive.sphinxext.quiz import QuizError, evaluate, format_value, occurs, parse_spec  # noqa: E402

CONF = """\
extensions = ["myst_parser", "derive"]
myst_enable_extensions = ["dollarmath"]
derive_require_all = False
bibtex_bibfiles = []
"""

PAGE = """\
# Quiz

```{quiz}
:answer: KEY
:value: params.attention d_model=512; params.attention[d_k] d_model=512 n_heads=8
:proves: params.attention

With $d_{\\text{model}} = 512$ and 8 heads, what are $d_k$ and the number of attention weights?

- (a) $d_k = 64$ and 262,144: only $W^O$ is counted.

  $W^O$ is one of four matrices of the same size.
- (b) $d_k = 64$ and 1,048,576, the same for any number of heads.

Four $d_{\\text{model}} \\times d_{\\text{model}}$ matrices.
```

Inline: {derive-value}`params.attention d_model=512` and {derive-value}`params.layer d_model=4096 *32`.

```{quiz}
Say why in one sentence.

Because it is so.
```
"""

BAD = """\
# Bad

```{quiz}
:answer: a
:value: params.no-such-thing d_model=512

Question?

- one
- two
```

```{quiz}
:answer: a
:proves: softmax.shift-invariance

A short-answer quiz cannot have a key.
```

```{quiz}
:answer: a
:value: params.attention d_model=512

How many weights?

- 262,144.

  Not 1,048,576: the feedback of a choice is not its text.
- 1,048,576.
```
"""


#: a Korean catalog of PAGE (key b): the choices translated, the value 1,048,576 kept in the keyed one; KEEP is
#: replaced by the Korean of choice (b)
KOREAN = r"""
msgid ""
msgstr "Content-Type: text/plain; charset=UTF-8\n"

msgid "With $d_{\\text{model}} = 512$ and 8 heads, what are $d_k$ and the number of attention weights?"
msgstr "$d_{\\text{model}} = 512$이고 헤드가 8개일 때 $d_k$와 어텐션 가중치의 개수는?"

msgid "(a) $d_k = 64$ and 262,144: only $W^O$ is counted."
msgstr "(a) $d_k = 64$이고 262,144개: $W^O$만 센다."

msgid "(b) $d_k = 64$ and 1,048,576, the same for any number of heads."
msgstr "KEEP"
"""


def _start(root: Path, page: str, korean: str | None = None) -> tuple[subprocess.Popen, Path]:
    src, out = root / "src", root / "out"
    src.mkdir(parents=True)
    conf = CONF
    if korean is not None:  # a Korean site translated by a gettext catalog of the page
        conf += "language = 'ko'\nlocale_dirs = ['locales']\ngettext_compact = False\n"
        po = src / "locales" / "ko" / "LC_MESSAGES" / "index.po"
        po.parent.mkdir(parents=True)
        po.write_text(textwrap.dedent(KOREAN).replace("KEEP", korean), encoding="utf-8")
    (src / "conf.py").write_text(conf)
    (src / "index.md").write_text(textwrap.dedent(page))
    proc = subprocess.Popen([sys.executable, "-m", "sphinx", "-nW", "--keep-going", "-q", "-b", "html",
                             str(src), str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, out


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, tuple[int, str, Path]]:
    root = tmp_path_factory.mktemp("quiz")
    started = {"right": _start(root / "right", PAGE.replace("KEY", "b")),
               "wrong": _start(root / "wrong", PAGE.replace("KEY", "a")),
               "bad": _start(root / "bad", BAD),
               "ko": _start(root / "ko", PAGE.replace("KEY", "b"),
                            "(b) $d_k = 64$이고 헤드 수와 관계없이 1,048,576개."),
               # the translation lost the value and marks itself (a): the build says both
               "ko-wrong": _start(root / "ko-wrong", PAGE.replace("KEY", "b"), "(a) $d_k = 64$이고 백만 개쯤.")}
    out = {}
    for name, (proc, outdir) in started.items():
        _, err = proc.communicate(timeout=600)
        out[name] = (proc.returncode, err, outdir)
    return out


def test_right_key_builds_with_buttons_live_region_and_folded_explanation(built):
    code, err, out = built["right"]
    assert code == 0, err
    html = (out / "index.html").read_text()
    assert html.count('class="derive-quiz"') == 2 and html.count('data-answer="b"') == 1
    assert len(re.findall(r'<button[^>]*class="derive-quiz-choice"', html)) == 2
    assert 'aria-live="polite"' in html
    assert html.count('<details class="derive-fold">') == 2  # explanation + short-answer fold
    assert "Show answer" in html and "The answer is (b)." in html
    assert 'derive-verdict derive-proved' in html
    # the lead "(a) " typed in the source is replaced by the generated letter, not doubled
    assert "(a)</strong> (a)" not in html and '<strong class="derive-quiz-letter">(a)</strong>' in html
    assert '<span class="derive-value">1,048,576</span>' in html
    assert '<span class="derive-value">6,444,154,880</span>' in html  # (12·4096² + 13·4096)·32
    assert (out / "_static" / "derive-quiz.js").is_file() and "derive-quiz.js" in html


def test_wrong_key_fails_with_a_typed_warning(built):
    code, err, _ = built["wrong"]
    assert code != 0
    assert "the key (a) disagrees with params.attention: its value 1,048,576" in err
    assert "[derive.quiz]" in err
    assert err.count("[derive.quiz]") == 1  # d_k = 64 is in both choices: only the count disagrees


def test_unknown_derivation_and_misplaced_key_fail(built):
    code, err, _ = built["bad"]
    assert code != 0
    assert "params.no-such-thing" in err
    assert ":answer: given but the quiz has no list of choices" in err
    assert "the key (a) disagrees with params.attention" in err  # a number in the feedback does not count
    assert err.count("[derive.quiz]") == 3


def test_choices_are_translated_and_keep_the_verified_answer(built):
    """On a Korean site the choices come from the page's catalog, lettered as in English, with the script's
    lines in Korean; the key is checked again on the translated text."""
    code, err, out = built["ko"]
    assert code == 0, err
    html = (out / "index.html").read_text(encoding="utf-8")
    buttons = re.findall(r'<button[^>]*class="derive-quiz-choice"[^>]*>(.*?)</button>', html, flags=re.S)
    texts = [re.sub(r"<[^>]+>", "", b).strip() for b in buttons]
    assert len(texts) == 2 and texts[0].startswith("(a) ") and "만 센다" in texts[0]
    assert texts[1].startswith("(b) ") and "1,048,576개" in texts[1] and "(b) (b)" not in texts[1]
    assert 'data-answer="b"' in html and 'data-say-wrong="아쉽습니다: ({letter})는 정답이 아닙니다.' in html
    assert "어텐션 가중치의 개수" in html
    code, err, _ = built["ko-wrong"]
    assert code != 0
    assert "the item marked (a) is choice (b)" in err
    assert "the key (b) disagrees with params.attention: its value 1,048,576 is not in the text of choice (b) " \
           "in its translation" in err


def test_parse_spec():
    spec = parse_spec("params.attention[d_k] d_model=512 n_heads=8 *3/2")
    assert spec.name == "params.attention" and spec.symbol == "d_k"
    assert spec.sizes == (("d_model", Fraction(512)), ("n_heads", Fraction(8)))
    assert spec.factor == Fraction(3, 2)
    for bad in ("", "x y", "a.b d_model=__import__('os')", "a.b d=1e3", "a[b c] d=1"):
        with pytest.raises(QuizError):
            parse_spec(bad)


def test_evaluate_values_and_errors():
    kw = {"seed": 0, "budget": 30.0}
    assert evaluate(parse_spec("params.attention d_model=512"), **kw) == 1048576
    assert evaluate(parse_spec("params.attention[d_k] d_model=512 n_heads=8"), **kw) == 64
    assert evaluate(parse_spec("params.layer-lecture d_model=512 d_ff=2048"), **kw) == 3150336
    with pytest.raises(QuizError, match="no size given for d_model"):
        evaluate(parse_spec("params.attention"), **kw)
    with pytest.raises(QuizError, match="defines no symbol 'd_ff'"):
        evaluate(parse_spec("params.attention[d_ff] d_model=512"), **kw)


def test_format_and_occurs():
    assert format_value(sp.Integer(1048576)) == "1,048,576"
    assert format_value(sp.Rational(13, 12 * 512)) == "0.00211589"
    assert occurs(sp.Integer(64), "d_k = 64.") and not occurs(sp.Integer(64), "640 or 1.64")
    assert occurs(sp.Integer(1048576), "1048576") and not occurs(sp.Integer(1048576), "11,048,576")


def _keyed_quizzes() -> list[tuple[str, str, list[str]]]:
    """Every keyed quiz of the course pages: (page, key letter, the first paragraph of each choice as the
    reader sees it, math as Unicode)."""
    from derive.render.textmath import unicode_text

    found = []
    for page in sorted((Path(__file__).parents[1] / "docs").rglob("*.md")):
        for body in re.findall(r"```\{quiz\}\n(.*?)\n```", page.read_text(), flags=re.S):
            key = re.search(r"^:answer:\s*(\w)", body, flags=re.M)
            if key is None:
                continue
            choices = []
            for item in re.findall(r"^- (.*(?:\n  \S.*)*)", body, flags=re.M):
                first = re.sub(r"^\([a-z]\)\s*", "", " ".join(item.split()))
                choices.append(unicode_text(first))
            found.append((page.name, key.group(1), choices))
    return found


def test_the_course_has_keyed_quizzes():
    quizzes = _keyed_quizzes()
    assert len(quizzes) >= 7
    assert all(len(choices) >= 3 for _, _, choices in quizzes)


def test_the_right_choice_is_not_given_away_by_its_length():
    quizzes = _keyed_quizzes()
    longest = [page for page, key, choices in quizzes
               if len(choices["abcdefgh".index(key)]) == max(map(len, choices))]
    # before: the key was the longest choice in 6 of 7 keyed quizzes
    assert len(longest) <= len(quizzes) // 3, longest
    for page, _, choices in quizzes:  # comparable lengths: no choice twice as long as another
        lengths = sorted(map(len, choices))
        assert lengths[-1] <= 2 * lengths[0], (page, choices)
