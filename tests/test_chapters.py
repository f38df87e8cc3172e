"""The book's chapters (:mod:`derive.chapters`) agree with the site's pages: the same order as the toctree
of ``docs/index.md`` and, per chapter, the same derivations in the same order as its directives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from derive import registry
from derive.chapters import CHAPTERS, book, chapter
from derive.exceptions import InputError

DOCS = Path(__file__).resolve().parent.parent / "docs"
_DIRECTIVE = re.compile(r"^```\{(derivations?)\} *(.*)\n((?::[\w-]+:.*\n)*)", re.M)


def _page_members(page: str, names: list[str]) -> list[str]:
    """The derivations a chapter page shows, in its order, read from its directives."""
    import fnmatch

    out: list[str] = []
    for kind, argument, options in _DIRECTIVE.findall(page):
        if kind == "derivation":
            found = [argument.strip()]
        else:
            exclude = re.search(r"^:exclude: *(.*)$", options, re.M)
            excluded = exclude.group(1).split() if exclude else []
            found = [n for n in sorted(names) if any(fnmatch.fnmatchcase(n, p) for p in argument.split())
                     and not any(fnmatch.fnmatchcase(n, x) for x in excluded)]
        out += [n for n in found if n not in out]
    return out


@pytest.fixture(scope="module")
def names():
    registry.load_catalog()
    return [n for n in registry.names() if not n.startswith("mine.")]


def test_chapters_follow_the_toctree_of_the_book():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    toctree = index.split(":caption: The derivations", 1)[1].split("```", 1)[0]
    pages = re.findall(r"^chapters/([\w-]+)$", toctree, re.M)
    assert [c.name for c in CHAPTERS] == pages


def test_each_chapter_presents_what_its_page_shows(names):
    for c, members in book(names):
        if c.name == "more":
            continue
        page = (DOCS / "chapters" / f"{c.name}.md").read_text(encoding="utf-8")
        assert members == [n for n in _page_members(page, names) if n in members], c.name
    covered = [n for _, members in book(names) for n in members]
    assert sorted(covered) == sorted(names) and len(covered) == len(set(covered))
    assert [c.name for c, _ in book(names)][:3] == ["attention", "softmax", "multihead"]


def test_an_unknown_chapter_is_one_clear_error():
    with pytest.raises(InputError, match=r"^unknown chapter 'atention'; chapters: attention, softmax, "):
        chapter("atention")
