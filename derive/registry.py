"""Name -> derivation, and discovery of the catalog and of users' modules.

Catalog modules register *builders* with :func:`register`; a builder is a
function of no arguments that returns a :class:`~derive.core.Derivation`. The
name, title and summary are given to the decorator, so listing the catalog
does not import sympy or build anything; a derivation is built on first use
and cached.

A user module (a ``.py`` file or an importable module name) may use the same
decorator, or simply define :class:`~derive.core.Derivation` objects at module
level: :func:`load_module` registers both.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .exceptions import DerivationDefinitionError, ModuleLoadError, UnknownDerivationError

if TYPE_CHECKING:  # pragma: no cover
    from .core import Derivation

#: Modules of the built-in catalog, imported by :func:`load_catalog`.
CATALOG_MODULES: tuple[str, ...] = (
    "derive.transformer.softmax",
    "derive.transformer.positional",
    "derive.transformer.softmax_temperature",
    "derive.transformer.attention",
    "derive.transformer.score_variance",
    "derive.transformer.multihead",
    "derive.transformer.parameters",
    "derive.transformer.compute",
    "derive.transformer.examples_attention",
    "derive.transformer.examples_block",
    "derive.transformer.examples_exercises",
    "derive.transformer.norms",
    "derive.transformer.ffn",
    "derive.transformer.gradients",
    "derive.transformer.initialisation",
    "derive.transformer.rope",
    "derive.transformer.alibi",
    "derive.transformer.masking",
    "derive.transformer.efficient",
    "derive.transformer.scaling",
    "derive.transformer.chinchilla",
    "derive.transformer.linear_backward",
    "derive.transformer.norm_invariance",
    "derive.transformer.rope_complex",
    "derive.transformer.flash_io",
    "derive.transformer.rope_scaling",
    "derive.transformer.glu_variants",
    "derive.transformer.gqa",
    "derive.transformer.rope_decay",
)


@dataclass
class Entry:
    """A registered derivation: metadata now, the object on first use."""

    name: str
    title: str
    summary: str
    builder: Callable[[], Derivation]
    module: str
    _built: Derivation | None = None

    def build(self) -> Derivation:
        """The derivation, built on first use.

        Raises:
            DerivationDefinitionError: the builder raised (the message names the
                derivation and the error), returned something other than a
                :class:`~derive.core.Derivation`, or one with another name.
        """
        if self._built is None:
            from .core import Derivation
            from .exceptions import DeriveError

            try:
                d = self.builder()
            except DeriveError:
                raise
            except Exception as exc:  # noqa: BLE001 - a user's builder failing is reported in one line
                raise DerivationDefinitionError(
                    f"{self.name}: building it failed: {type(exc).__name__}: {exc}") from exc
            if not isinstance(d, Derivation):
                raise DerivationDefinitionError(
                    f"builder for {self.name!r} returned {type(d).__name__}, not a Derivation")
            if d.name != self.name:
                raise DerivationDefinitionError(
                    f"builder for {self.name!r} returned a derivation named {d.name!r}")
            check_text(d)
            self._built = d
        return self._built


_ENTRIES: dict[str, Entry] = {}

_MODULE_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_CATALOG_LOADED = False

#: A user's ``.py`` file larger than this is refused before it is compiled (2 MB: about 60,000 lines;
#: CPython needs about 250 bytes of memory per byte of source to compile it).
MAX_MODULE_BYTES = 2_000_000


Builder = Callable[[], "Derivation"]


def register(name: str, *, title: str, summary: str = "") -> Callable[[Builder], Builder]:
    """Decorator: register ``builder`` under ``name``.

    Args:
        name: the derivation's stable dotted name (must match what the builder returns).
        title: short title, shown by ``derive list``.
        summary: one sentence, shown by ``derive list``.

    Raises:
        DerivationDefinitionError: the name is already registered by another builder.
    """

    def deco(builder: Callable[[], Derivation]) -> Callable[[], Derivation]:
        seen = _IMPORTING.get(builder.__module__)
        if seen is not None:  # a user's module being loaded: one name, one derivation
            if name in seen:
                raise DerivationDefinitionError(f"derivation {name!r} is registered twice in the module")
            seen.add(name)
        existing = _ENTRIES.get(name)
        if existing is not None and existing.module != builder.__module__:
            raise DerivationDefinitionError(
                f"derivation {name!r} is registered twice ({_where(existing.module)} and {_where(builder.__module__)})")
        _ENTRIES[name] = Entry(name, title, summary, builder, builder.__module__)
        return builder

    return deco


def check_text(derivation: Derivation) -> None:
    """The words of a derivation are text: title (not empty), summary, notes.

    Every surface prints them (``derive show``, the site, slides), so a wrong type is refused when the
    derivation is registered rather than as a crash of one of them.

    Raises:
        DerivationDefinitionError: naming the derivation and the field.
    """
    d = derivation
    if not isinstance(d.title, str) or not d.title.strip():
        raise DerivationDefinitionError(f"{d.name}: title must be non-empty text, got {type(d.title).__name__}")
    if not isinstance(d.summary, str):
        raise DerivationDefinitionError(f"{d.name}: summary must be text, got {type(d.summary).__name__}")
    for k, note in enumerate(d.notes, 1):
        if not isinstance(note, str):
            raise DerivationDefinitionError(f"{d.name}: note {k} must be text, got {type(note).__name__}")


def add(derivation: Derivation, module: str = "__main__") -> None:
    """Register an already built derivation (e.g. one defined in a user's file).

    Raises:
        DerivationDefinitionError: the name is registered by another module, or the words are not text
            (:func:`check_text`).
    """
    check_text(derivation)
    existing = _ENTRIES.get(derivation.name)
    if existing is not None and existing.module != module:
        raise DerivationDefinitionError(
            f"derivation {derivation.name!r} is registered twice ({_where(existing.module)} and {_where(module)})")
    entry = Entry(derivation.name, derivation.title, derivation.summary, lambda: derivation, module)
    entry._built = derivation
    _ENTRIES[derivation.name] = entry


#: internal module name of a user's file -> the path the user gave (for messages)
_SOURCES: dict[str, str] = {}

#: module name -> the names it has registered so far, while :func:`load_module` imports it (a name registered
#: twice by one module would otherwise silently replace the first derivation; a reload is another import)
_IMPORTING: dict[str, set[str]] = {}


def _where(module: str) -> str:
    """How to name ``module`` in a message: the user's file path, or the module name."""
    return _SOURCES.get(module, module)


def load_catalog() -> None:
    """Import every catalog module (registration is a side effect of import)."""
    global _CATALOG_LOADED
    if _CATALOG_LOADED:
        return
    for mod in CATALOG_MODULES:
        importlib.import_module(mod)
    _CATALOG_LOADED = True


def load_module(spec: str | os.PathLike[str]) -> list[str]:
    """Load a user's module of derivations from a file path or a module name.

    Args:
        spec: a path to a ``.py`` file, or a dotted importable module name.

    Returns:
        The names of the derivations the module registered or defined.

    Raises:
        ModuleLoadError: the file is missing, is a directory or a device, is
            not a ``.py`` file, is larger than :data:`MAX_MODULE_BYTES`, is not
            valid Python (binary, bad encoding), the text is neither a path
            nor a dotted module name, the module raised (or called
            ``sys.exit``) while importing, or it defines no derivation (the
            message names the file and the error, on one line). The text is
            never evaluated: it is a path or a module name, nothing else.
    """
    saved = dict(_ENTRIES)
    try:
        return _load_module(spec)
    except BaseException:
        # all or nothing: a module that fails leaves no derivation behind
        _ENTRIES.clear()
        _ENTRIES.update(saved)
        raise


def _load_module(spec: str | os.PathLike[str]) -> list[str]:
    if isinstance(spec, os.PathLike):
        spec = os.fspath(spec)
    if not isinstance(spec, str) or not spec.strip():
        raise ModuleLoadError(f"{spec!r}: expected a .py file or a module name")
    before = set(_ENTRIES)
    path = Path(spec)
    if spec.endswith(".py") or path.exists() or "/" in spec or "\\" in spec:
        if path.is_dir():
            raise ModuleLoadError(f"{spec}: is a directory; expected a .py file or a module name")
        if path.exists() and not path.is_file():  # /dev/zero, a pipe: would read forever or block
            raise ModuleLoadError(f"{spec}: not a regular file (a device, pipe or socket); expected a .py file")
        if not path.is_file():
            raise ModuleLoadError(f"{spec}: no such file; expected a .py file or a module name")
        if path.suffix != ".py":
            raise ModuleLoadError(f"{spec}: not a .py file; expected a .py file or a module name")
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise ModuleLoadError(f"{spec}: cannot read: {exc.strerror or exc}") from None
        if size > MAX_MODULE_BYTES:
            raise ModuleLoadError(f"{spec}: {size:,} bytes, larger than {MAX_MODULE_BYTES:,}; "
                                  "too large for a module of derivations (compiling it would take gigabytes of memory)")
        stem = re.sub(r"\W", "_", path.stem)
        mod_name = f"derive_user_{stem}_{zlib.crc32(str(path.resolve()).encode()):08x}"
        _SOURCES[mod_name] = str(path)
        try:
            module_spec = importlib.util.spec_from_file_location(mod_name, path)
            assert module_spec is not None and module_spec.loader is not None
            module = importlib.util.module_from_spec(module_spec)
            loaded_before = set(sys.modules)
            sys.modules[mod_name] = module
            _IMPORTING[mod_name] = set()
            try:
                module_spec.loader.exec_module(module)
            finally:
                _IMPORTING.pop(mod_name, None)
            _remember(mod_name, loaded_before)
        except DerivationDefinitionError as exc:  # a name registered twice: bad input, said as such
            sys.modules.pop(mod_name, None)
            raise ModuleLoadError(f"{spec}: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - any failure of the user's code is reported in one line
            sys.modules.pop(mod_name, None)
            raise ModuleLoadError(f"{spec}: failed to import: {type(exc).__name__}: {_short(exc)}") from exc
        except SystemExit as exc:  # sys.exit() at import: not an exit status of derive
            sys.modules.pop(mod_name, None)
            raise ModuleLoadError(f"{spec}: failed to import: it called sys.exit({exc.code!r:.40})") from None
    else:
        if not _MODULE_NAME_RE.match(spec):
            raise ModuleLoadError(f"{spec}: is neither a .py file nor a module name (dotted Python identifiers)")
        # like `python -m`, look in the current directory too (a console script does not)
        added = os.getcwd() not in sys.path and "" not in sys.path
        if added:
            sys.path.insert(0, os.getcwd())
        try:
            loaded_before = set(sys.modules)
            _IMPORTING[spec] = set()
            try:
                module = importlib.import_module(spec)
            finally:
                _IMPORTING.pop(spec, None)
            _remember(spec, loaded_before)
        except DerivationDefinitionError as exc:
            raise ModuleLoadError(f"{spec}: {exc}") from None
        except Exception as exc:  # noqa: BLE001
            raise ModuleLoadError(f"{spec}: failed to import: {type(exc).__name__}: {_short(exc)}") from exc
        except SystemExit as exc:
            raise ModuleLoadError(f"{spec}: failed to import: it called sys.exit({exc.code!r:.40})") from None
        finally:
            if added:
                sys.path.remove(os.getcwd())
    from .core import Derivation

    mine: dict[str, Derivation] = {}
    for value in list(vars(module).values()):
        if not isinstance(value, Derivation):
            continue
        other = mine.setdefault(value.name, value)
        if other is not value:  # two derivations under one name: neither may silently win
            raise ModuleLoadError(f"{spec}: defines two derivations named {value.name!r}")
        existing = _ENTRIES.get(value.name)
        if existing is None:
            try:
                add(value, module.__name__)
            except DerivationDefinitionError as exc:
                raise ModuleLoadError(f"{spec}: {exc}") from None
        elif existing.module != module.__name__ and existing._built is not value:
            raise ModuleLoadError(
                f"{spec}: defines {value.name!r}, a name already registered by {_where(existing.module)}")
    found = sorted(set(_ENTRIES) - before) or sorted(
        e.name for e in _ENTRIES.values() if e.module == module.__name__)
    if not found:
        raise ModuleLoadError(f"{spec}: defines no derivation (no Derivation at module level, no @register)")
    return found


def _remember(module_name: str, loaded_before: set[str]) -> None:
    """Note the file hashes of the user modules this import loaded (the verification cache compares them)."""
    from .dependencies import remember

    remember({module_name}, set(sys.modules) - loaded_before)


def _short(exc: BaseException) -> str:
    """An exception's message on one line, at most 300 characters (a user's error can be anything)."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ of a user's exception
        text = "<message not printable>"
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."


def module_of(derivation: Derivation) -> str | None:
    """The module that registered this very object (by identity), or None if it is not registered built."""
    for e in _ENTRIES.values():
        if e._built is derivation:
            return e.module
    return None


def names() -> list[str]:
    """All registered names, sorted."""
    return sorted(_ENTRIES)


def entries() -> list[Entry]:
    """All registered entries, sorted by name."""
    return [_ENTRIES[n] for n in names()]


def entry(name: str) -> Entry:
    """The entry for ``name``.

    Raises:
        UnknownDerivationError: no such name; the message suggests close names.
    """
    if not isinstance(name, str):
        raise UnknownDerivationError(f"derivation names are text, got {type(name).__name__}")
    try:
        return _ENTRIES[name]
    except KeyError:
        close = difflib.get_close_matches(name, names(), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else "; see 'derive list'"
        raise UnknownDerivationError(f"unknown derivation {name!r}{hint}") from None


def get(name: str) -> Derivation:
    """Build (once) and return the derivation registered as ``name``."""
    return entry(name).build()


def select(requested: Iterable[str] | None = None) -> list[Derivation]:
    """The derivations named in ``requested`` (all when empty), in the order given."""
    wanted = list(requested or []) or names()
    return [get(n) for n in wanted]


def metadata(name: str) -> dict[str, str]:
    """``{"name", "title", "summary"}`` as given to :func:`register`, for the builder's ``Derivation(**...)``.

    Lets a builder write its title and summary once, in the decorator.

    Raises:
        UnknownDerivationError: ``name`` is not registered.
    """
    e = entry(name)
    return {"name": e.name, "title": e.title, "summary": e.summary}
