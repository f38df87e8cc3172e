"""The words derive shows, in the reader's language: gettext domain ``derive``.

English is the source and the default; every other language is a message catalog
``derive/locale/<lang>/LC_MESSAGES/derive.po`` read with babel (``babel.messages.pofile.read_po``).
A string with no translation, an empty one, or one marked *fuzzy* (its English source changed since
it was translated) is shown in English: a reader never sees a stale translation.

Which language is active:

- inside :func:`using` (``with using("ko"): ...``), the one given (the CLI's ``--lang``, the Sphinx
  extension's ``language``);
- else the one set by :func:`set_language` (a notebook: ``derive.i18n.set_language("ko")``);
- else the environment variable ``DERIVE_LANG`` (e.g. ``DERIVE_LANG=ko jupyter lab``);
- else English.

A region tag is dropped (``ko_KR`` and ``ko-KR`` mean ``ko``). Texts carry ``$…$`` math, which a
translation keeps as it is (``tests/test_i18n.py`` checks that).

The catalog is made and refreshed by ``python -m derive.i18n extract`` (``derive.i18n_catalog``).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Any

from .exceptions import InputError

#: gettext domain of the package's messages
DOMAIN = "derive"

#: the source language of every text, and the fallback
DEFAULT_LANGUAGE = "en"

#: folder of the catalogs: ``<lang>/LC_MESSAGES/derive.po`` and the template ``derive.pot``
LOCALE_DIR = Path(__file__).parent / "locale"

#: Hangul syllables, jamo and compatibility jamo: the letters of Korean text
_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")

#: a ``$…$`` math span of a message (a translation keeps each one as it is)
MATH = re.compile(r"(?<!\\)\$(?:[^$\\]|\\.)+?(?<!\\)\$")

#: a ``{name}`` field of a message outside its math (``{\\text{model}}`` inside ``$…$`` is TeX, not a field)
_FIELD = re.compile(r"\{([a-z_]+)\}")

_ACTIVE: ContextVar[str | None] = ContextVar("derive_language", default=None)
_DEFAULT: list[str | None] = [None]


def has_hangul(text: str) -> bool:
    """Whether ``text`` holds a Korean letter (a renderer then needs a font or LaTeX package for it)."""
    return bool(_HANGUL.search(text))


def is_hangul(ch: str) -> bool:
    """Whether the character ``ch`` is a Korean letter."""
    return bool(_HANGUL.fullmatch(ch))


def languages() -> tuple[str, ...]:
    """The languages derive speaks: English and every language with a catalog, e.g. ``("en", "ko")``."""
    found = sorted(p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    return (DEFAULT_LANGUAGE, *[lang for lang in found if lang != DEFAULT_LANGUAGE])


def normalize(lang: str | None) -> str:
    """``"ko_KR"``, ``"ko-KR"``, ``"KO"`` -> ``"ko"``; ``None`` or ``""`` -> the active language.

    Raises:
        InputError: no catalog for that language (the message lists the languages there are).
    """
    if lang is None or lang == "":
        return current()
    if not isinstance(lang, str):
        raise InputError(f"a language is a code such as 'ko', not {type(lang).__name__}")
    code = lang.strip().replace("-", "_").split("_")[0].split(".")[0].lower()
    known = languages()
    if code not in known:
        raise InputError(f"unknown language {lang!r}; derive speaks {', '.join(known)}")
    return code


def available(lang: str | None) -> str:
    """``lang`` if derive speaks it, else English, without an error: for a surface whose language is set
    for other reasons (a Sphinx site in French still shows derivations, in English)."""
    try:
        return normalize(lang) if lang else DEFAULT_LANGUAGE
    except InputError:
        return DEFAULT_LANGUAGE


def current() -> str:
    """The active language code (see the module's docstring for the order of the sources)."""
    active = _ACTIVE.get()
    if active is not None:
        return active
    if _DEFAULT[0] is not None:
        return _DEFAULT[0]
    env = os.environ.get("DERIVE_LANG", "").strip()
    if env:
        try:
            return normalize(env)
        except InputError:
            return DEFAULT_LANGUAGE  # a wrong variable must not break every surface; the CLI says why
    return DEFAULT_LANGUAGE


def set_language(lang: str | None) -> None:
    """Make ``lang`` the default language of this process (``None``: back to ``DERIVE_LANG`` / English).

    For notebooks, where the reprs of derivations and reports follow it.

    Raises:
        InputError: an unknown language.
    """
    _DEFAULT[0] = None if lang is None else normalize(lang)


@contextlib.contextmanager
def using(lang: str | None) -> Iterator[str]:
    """Make ``lang`` active inside the block (``None``: keep the active one); yields its code.

    Raises:
        InputError: an unknown language.
    """
    code = normalize(lang)
    token = _ACTIVE.set(code)
    try:
        yield code
    finally:
        _ACTIVE.reset(token)


@lru_cache(maxsize=8)
def _table(lang: str) -> dict[str, str]:
    """msgid -> msgstr of the catalog of ``lang``, without empty and fuzzy translations."""
    path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if lang == DEFAULT_LANGUAGE or not path.is_file():
        return {}
    from babel.messages.pofile import read_po

    with path.open("rb") as fh:
        catalog = read_po(fh, locale=lang, domain=DOMAIN)
    return {m.id: m.string for m in catalog
            if m.id and isinstance(m.id, str) and isinstance(m.string, str) and m.string and not m.fuzzy}


def translate(text: str, lang: str | None = None) -> str:
    """``text`` in ``lang`` (default: the active language); the English text when there is no translation.

    Args:
        text: an English message exactly as the source writes it (a title, a justification, a label).
        lang: a language code; ``None`` for the active one.

    Raises:
        InputError: an unknown language.
    """
    if not isinstance(text, str) or not text:
        return text
    code = normalize(lang)
    if code == DEFAULT_LANGUAGE:
        return text
    return _table(code).get(text, text)


def translate_message(text: str, lang: str | None = None) -> str:
    """A cross-check's message in ``lang``: translated whole when the catalog has it, else by its form when it
    has one of the forms of ``derive.report.MESSAGE_FORMS`` (``holds at 32 points (12 special)``: the numbers are kept,
    the words translated), else as it is.

    Raises:
        InputError: an unknown language.
    """
    code = normalize(lang)
    if code == DEFAULT_LANGUAGE or not isinstance(text, str) or not text:
        return text
    whole = translate(text, code)
    if whole != text:
        return whole
    from .report import MESSAGE_FORMS

    for form in MESSAGE_FORMS:
        found = _form_pattern(form).fullmatch(text)
        if found:
            return fill(translate(form, code), **found.groupdict())
    return text


def _outside_math(form: str) -> list[tuple[str, bool]]:
    """``form`` cut into (piece, is math) in order."""
    pieces, pos = [], 0
    for m in MATH.finditer(form):
        pieces += [(form[pos:m.start()], False), (m.group(), True)]
        pos = m.end()
    return [*pieces, (form[pos:], False)]


def fill(form: str, **fields: object) -> str:
    """``form`` with each ``{name}`` outside its ``$…$`` math replaced by ``fields[name]`` (the TeX braces of
    the math stay): how a check writes a message that :func:`translate_message` can translate."""
    return "".join(piece if math else _FIELD.sub(lambda m: str(fields[m.group(1)]), piece)
                   for piece, math in _outside_math(form))


@lru_cache(maxsize=64)
def _form_pattern(form: str) -> re.Pattern[str]:
    """``"holds at {n} points"`` -> a pattern matching ``"holds at 32 points"`` with a group per field."""
    out = []
    for piece, math in _outside_math(form):
        parts = [piece] if math else _FIELD.split(piece)
        out += [re.escape(p) if k % 2 == 0 else f"(?P<{p}>.+?)" for k, p in enumerate(parts)]
    return re.compile("".join(out), re.S)


def gettext(message: str) -> str:
    """:func:`translate` into the active language; the usual ``_`` of the package's labels."""
    return translate(message)


#: a label marked for extraction but translated later (``N_("Steps")``): returns it unchanged
def N_(message: str) -> str:  # noqa: N802 - the gettext convention
    """Mark ``message`` for the catalog without translating it now."""
    return message


def localize(derivation: Any, lang: str | None = None) -> Any:
    """A copy of ``derivation`` whose words are in ``lang``: title, summary, instance, notes, the premises'
    text and the steps' justifications. Expressions, names and checks are unchanged: a check's name is
    also the key of its result in a report, so surfaces translate it where they show it (:func:`translate`).

    English (or a derivation with nothing translated) returns the object itself, so verification caches
    keyed by identity still apply.
    """
    from dataclasses import replace

    code = normalize(lang)
    if code == DEFAULT_LANGUAGE:
        return derivation
    tr = _table(code).get

    def t(text: str) -> str:
        return tr(text, text) if isinstance(text, str) and text else text

    changes: dict[str, Any] = {}
    for attr in ("title", "summary", "instance"):
        value = getattr(derivation, attr)
        if t(value) != value:
            changes[attr] = t(value)
    notes = tuple(t(n) for n in derivation.notes)
    if notes != derivation.notes:
        changes["notes"] = notes
    assumptions = tuple(replace(a, text=t(a.text)) if t(a.text) != a.text else a for a in derivation.assumptions)
    if assumptions != derivation.assumptions:
        changes["assumptions"] = assumptions
    steps = tuple(replace(s, justification=t(s.justification)) if t(s.justification) != s.justification else s
                  for s in derivation.steps)
    if any(a is not b for a, b in zip(steps, derivation.steps, strict=True)):
        changes["steps"] = steps
    if not changes:
        return derivation
    return replace(derivation, **changes)


if __name__ == "__main__":  # pragma: no cover - `python -m derive.i18n extract`
    import sys

    from .i18n_catalog import main

    sys.exit(main())
