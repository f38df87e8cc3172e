"""Making the message catalog of gettext domain ``derive``: extract, update, check (for maintainers).

``python -m derive.i18n extract`` walks what derive shows and writes

- ``derive/locale/derive.pot``, the template: every English message, and
- ``derive/locale/<lang>/LC_MESSAGES/derive.po`` for each language there is (``ko``), updated from the
  template with babel (:meth:`babel.messages.catalog.Catalog.update`): existing translations are kept, a
  message whose English changed keeps its old translation marked *fuzzy* (shown in English until a
  translator confirms it), a message gone from the source becomes obsolete (``#~``).

The messages come in a fixed order, so two translators can fill different parts without conflicts:

1. the labels of the surfaces (strings marked ``_()`` / ``gettext()`` / ``N_()`` in ``derive/cli``,
   ``derive/render``, ``derive/sphinxext`` and ``derive/report.py``, found by babel's Python extractor),
   the name of the automatic claim check and the chapter titles (:data:`derive.chapters.CHAPTERS`);
2. the parameter tables of the presets: component labels and notes (:func:`preset_messages`);
3. the catalog, module by module in :data:`derive.registry.CATALOG_MODULES` order, derivation by
   derivation in registration order: title, summary, instance, premises' text, steps' justifications,
   the citations' notes, the checks' names, the notes. Each message's ``#:`` reference names
   ``module#derivation`` (babel reads no colon there); a ``#.`` comment says which field it is.

``python -m derive.i18n check`` exits 1 (one line per problem) when the template is out of date, or a
language's catalog lacks a translation, has a fuzzy or obsolete one, or changes the ``$…$`` math.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .i18n import DEFAULT_LANGUAGE, DOMAIN, LOCALE_DIR, MATH, languages

ROOT = Path(__file__).parent

#: folders and modules whose Python source holds labels marked with ``_()`` / ``gettext()`` / ``N_()``
LABEL_DIRS = ("cli", "render", "sphinxext", "report.py")

#: babel's keywords for the label extraction
KEYWORDS = {"_": None, "gettext": None, "N_": None}

TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"

_MATH = MATH


@dataclass(frozen=True)
class Message:
    """One English message and where it comes from (``location``: ``module#derivation`` or a file)."""

    text: str
    location: str
    lineno: int | None = None
    comment: str = ""


def po_path(lang: str) -> Path:
    """``derive/locale/<lang>/LC_MESSAGES/derive.po``."""
    return Path(LOCALE_DIR) / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def label_messages() -> Iterator[Message]:
    """The surfaces' labels (``_()``-marked strings in :data:`LABEL_DIRS`), then the chapter titles."""
    from babel.messages.extract import extract_from_file

    for folder in LABEL_DIRS:
        where = ROOT / folder
        for path in sorted(where.rglob("*.py")) if where.is_dir() else [where]:
            rel = path.relative_to(ROOT.parent).as_posix()
            for _lineno, text, comments, _context in extract_from_file(
                    "python", str(path), keywords=KEYWORDS, comment_tags=("TRANSLATORS:",)):
                if isinstance(text, str) and text:
                    yield Message(text, rel, None, " ".join(comments))  # no line: moving code changes no message
    from .chapters import CHAPTERS, MORE
    from .crosscheck import IdentityCheck

    yield Message(IdentityCheck.name, "derive/crosscheck.py", None, "name of the automatic check of a claim")

    for chapter in (*CHAPTERS, MORE):
        yield Message(chapter.title, "derive.chapters", None, f"title of chapter {chapter.name}")


def preset_messages() -> Iterator[Message]:
    """The words of the parameter tables of the presets (:data:`derive.params.PRESETS`): each component's
    label, then each preset's notes (the site's parameter chapter shows them all)."""
    from .params import PRESETS, summarize

    for preset in PRESETS.values():
        for row in summarize(preset.arch, formulas=False).rows:
            yield Message(row.component, "derive.params.presets", None, "component of a parameter table")
    for name, preset in PRESETS.items():
        for k, note in enumerate(preset.notes, 1):
            yield Message(note, f"derive.params.presets#{name}", None, f"preset {name}: note {k}")


def catalog_messages() -> Iterator[Message]:
    """Every text of every catalog derivation, module by module (see the module's docstring)."""
    from . import registry

    registry.load_catalog()
    for module in registry.CATALOG_MODULES:
        for entry in [e for e in registry._ENTRIES.values() if e.module == module]:
            yield from derivation_messages(entry.build(), f"{module}#{entry.name}")
    from .report import MESSAGE_FORMS

    # registered by the catalog's modules as they load (derive.report.message_form), in an order that depends on
    # what was imported first: sorted, so the template is the same whoever extracts it
    for form in sorted(MESSAGE_FORMS):
        yield Message(form, "derive.report.MESSAGE_FORMS", None, "form of a cross-check's message: keep every "
                      "{field} outside the math")


def derivation_messages(d, where: str) -> Iterator[Message]:  # noqa: ANN001 - a Derivation
    """The texts of one derivation, in reading order, each tagged with its field."""

    def msg(text: object, field: str) -> Iterator[Message]:
        if isinstance(text, str) and text.strip():
            yield Message(text, where, None, f"{where}: {field}")

    yield from msg(d.title, "title")
    yield from msg(d.summary, "summary")
    yield from msg(d.instance, "instance")
    for k, a in enumerate(d.assumptions, 1):
        yield from msg(a.text, f"premise {k}")
    for c in d.citations:
        yield from msg(c.note, "citation note")
    for k, s in enumerate(d.steps, 1):
        yield from msg(s.justification, f"step {k}")
        if s.citation is not None:
            yield from msg(s.citation.note, f"step {k} citation note")
    for k, c in enumerate(d.checks, 1):
        yield from msg(getattr(c, "name", ""), f"check {k}")
    for k, n in enumerate(d.notes, 1):
        yield from msg(n, f"note {k}")


def build_template() -> object:
    """The template catalog (a :class:`babel.messages.catalog.Catalog`) from the sources, in order."""
    from babel.messages.catalog import Catalog

    template = Catalog(domain=DOMAIN, project="derive", version=_version(), charset="utf-8",
                       msgid_bugs_address="", copyright_holder="The derive developers",
                       fuzzy=False)
    for m in (*label_messages(), *preset_messages(), *catalog_messages()):
        existing = template.get(m.text)
        template.add(m.text, locations=[(m.location, m.lineno)],
                     auto_comments=[m.comment] if m.comment and existing is None else [])
    for message in template:  # babel guesses these from "{" and "%"; derive formats none of its texts
        message.flags -= {"python-format", "python-brace-format"}
    return template


def _version() -> str:
    from . import __version__

    return __version__


def _write(catalog: object, path: Path) -> None:
    from babel.messages.pofile import write_po

    buf = io.BytesIO()
    write_po(buf, catalog, width=100, include_previous=True)
    text = buf.getvalue()
    # the date lines change on every run: keep the file's own so that a run with no new message is a no-op
    if path.is_file():
        old = path.read_bytes()
        if _strip_dates(old) == _strip_dates(text):
            return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)


def _strip_dates(data: bytes) -> bytes:
    return re.sub(rb'"(POT-Creation-Date|PO-Revision-Date): [^"]*\\n"\n', b"", data)


def _read(path: Path, lang: str | None = None) -> object:
    from babel.messages.pofile import read_po

    with path.open("rb") as fh:
        return read_po(fh, locale=lang, domain=DOMAIN)


def extract(langs: tuple[str, ...] | None = None) -> list[Path]:
    """Write the template and update (or create) each language's catalog; returns the files written."""
    template = build_template()
    _write(template, LOCALE_DIR / TEMPLATE.name)
    written = [LOCALE_DIR / TEMPLATE.name]
    for lang in langs or tuple(x for x in languages() if x != DEFAULT_LANGUAGE):
        written.append(update(lang, template))
    return written


def update(lang: str, template: object) -> Path:
    """Update (or create) ``lang``'s catalog from ``template`` with babel; returns its path.

    Translations are kept; one whose English changed a little is kept and marked fuzzy (stale); one
    whose English is gone becomes obsolete; new messages come in untranslated, in the template's order.
    """
    from babel.messages.catalog import Catalog

    path = po_path(lang)
    if path.is_file():
        catalog = _read(path, lang)
    else:
        catalog = Catalog(locale=lang, domain=DOMAIN, project="derive", version=_version(),
                          copyright_holder="The derive developers", fuzzy=False)
    catalog.update(template, no_fuzzy_matching=False, update_header_comment=False,
                   keep_user_comments=True, update_creation_date=False)
    for message in catalog:
        message.flags -= {"python-format", "python-brace-format"}
    _write(catalog, path)
    _table_clear()
    return path


def _table_clear() -> None:
    from . import i18n

    i18n._table.cache_clear()


def math_of(text: str) -> list[str]:
    """The ``$…$`` spans of ``text``, sorted (a translation may reorder them, never change them)."""
    return sorted(_MATH.findall(text))


def fields_of(text: str) -> list[str]:
    """The ``{name}`` fields of a label outside its ``$…$`` math, sorted (``str.format`` fills them)."""
    return sorted(re.findall(r"\{[a-z_]+\}", _MATH.sub("", text)))


def problems(lang: str, *, template: object | None = None) -> list[str]:
    """What is wrong with ``lang``'s catalog against the sources: one line per problem, empty when none.

    Missing, empty, fuzzy (stale) and obsolete translations, messages of the template missing from the
    catalog, and translations whose ``$…$`` math or ``{name}`` fields differ from the English.
    """
    template = template if template is not None else build_template()
    path = po_path(lang)
    if not path.is_file():
        return [f"{path}: no catalog for {lang!r}"]
    catalog = _read(path, lang)
    out: list[str] = []
    for m in template:
        if not m.id:
            continue
        t = catalog.get(m.id)
        where = ", ".join(loc for loc, _ in m.locations[:2])
        if t is None:
            out.append(f"{lang}: not in the catalog (run python -m derive.i18n extract): {m.id[:60]!r} ({where})")
        elif not t.string:
            out.append(f"{lang}: untranslated: {m.id[:60]!r} ({where})")
        elif t.fuzzy:
            out.append(f"{lang}: stale (fuzzy) translation: {m.id[:60]!r} ({where})")
        elif math_of(t.string) != math_of(m.id):
            out.append(f"{lang}: the translation changes the $...$ math: {m.id[:60]!r} ({where})")
        elif fields_of(t.string) != fields_of(m.id):
            out.append(f"{lang}: the translation changes the {{fields}}: {m.id[:60]!r} ({where})")
    for key in catalog.obsolete:
        out.append(f"{lang}: obsolete translation left in the catalog: {str(key)[:60]!r}")
    return out


def template_outdated(template: object | None = None) -> bool:
    """Whether ``derive.pot`` differs from what :func:`extract` would write now (ignoring dates)."""
    from babel.messages.pofile import write_po

    template = template if template is not None else build_template()
    buf = io.BytesIO()
    write_po(buf, template, width=100, include_previous=True)
    return not TEMPLATE.is_file() or _strip_dates(TEMPLATE.read_bytes()) != _strip_dates(buf.getvalue())


def main(argv: list[str] | None = None) -> int:
    """``python -m derive.i18n {extract,check} [--lang LANG]``; exit 0, 1 (check found problems) or 2."""
    parser = argparse.ArgumentParser(prog="python -m derive.i18n",
                                     description="Extract, update and check derive's message catalogs.")
    parser.add_argument("action", choices=("extract", "check"),
                        help="extract: write derive.pot and update each language's derive.po; "
                             "check: list missing, stale and obsolete translations")
    parser.add_argument("--lang", action="append", help="only this language (repeatable); default: all")
    args = parser.parse_args(argv)
    langs = tuple(args.lang) if args.lang else None
    if args.action == "extract":
        for path in extract(langs):
            print(path.relative_to(ROOT.parent))
        return 0
    template = build_template()
    lines = ["derive/locale/derive.pot is out of date: run python -m derive.i18n extract"] \
        if template_outdated(template) else []
    for lang in langs or tuple(x for x in languages() if x != DEFAULT_LANGUAGE):
        lines += problems(lang, template=template)
    for line in lines:
        print(line)
    print(f"{len(lines)} problem(s)", file=sys.stderr)
    return 1 if lines else 0
