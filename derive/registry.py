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
import sys
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
    "derive.transformer.examples_attention",
    "derive.transformer.examples_block",
    "derive.transformer.examples_exercises",
    "derive.transformer.norms",
    "derive.transformer.ffn",
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
        if self._built is None:
            d = self.builder()
            if d.name != self.name:
                raise DerivationDefinitionError(
                    f"builder for {self.name!r} returned a derivation named {d.name!r}")
            self._built = d
        return self._built


_ENTRIES: dict[str, Entry] = {}
_CATALOG_LOADED = False


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
        existing = _ENTRIES.get(name)
        if existing is not None and existing.module != builder.__module__:
            raise DerivationDefinitionError(
                f"derivation {name!r} is registered twice ({existing.module} and {builder.__module__})")
        _ENTRIES[name] = Entry(name, title, summary, builder, builder.__module__)
        return builder

    return deco


def add(derivation: Derivation, module: str = "__main__") -> None:
    """Register an already built derivation (e.g. one defined in a user's file)."""
    existing = _ENTRIES.get(derivation.name)
    if existing is not None and existing.module != module:
        raise DerivationDefinitionError(
            f"derivation {derivation.name!r} is registered twice ({existing.module} and {module})")
    entry = Entry(derivation.name, derivation.title, derivation.summary, lambda: derivation, module)
    entry._built = derivation
    _ENTRIES[derivation.name] = entry


def load_catalog() -> None:
    """Import every catalog module (registration is a side effect of import)."""
    global _CATALOG_LOADED
    if _CATALOG_LOADED:
        return
    for mod in CATALOG_MODULES:
        importlib.import_module(mod)
    _CATALOG_LOADED = True


def load_module(spec: str) -> list[str]:
    """Load a user's module of derivations from a file path or a module name.

    Args:
        spec: a path to a ``.py`` file, or a dotted importable module name.

    Returns:
        The names of the derivations the module registered or defined.

    Raises:
        ModuleLoadError: the file is missing, is not a ``.py`` file, or the
            module raised while importing (the message names the file and the error).
    """
    before = set(_ENTRIES)
    path = Path(spec)
    if spec.endswith(".py") or path.exists() or "/" in spec or "\\" in spec:
        if path.is_dir():
            raise ModuleLoadError(f"{spec}: is a directory; expected a .py file or a module name")
        if not path.is_file():
            raise ModuleLoadError(f"{spec}: no such file; expected a .py file or a module name")
        if path.suffix != ".py":
            raise ModuleLoadError(f"{spec}: not a .py file; expected a .py file or a module name")
        mod_name = f"derive_user_{abs(hash(str(path.resolve())))}"
        try:
            module_spec = importlib.util.spec_from_file_location(mod_name, path)
            assert module_spec is not None and module_spec.loader is not None
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[mod_name] = module
            module_spec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 - any failure of the user's code is reported in one line
            sys.modules.pop(mod_name, None)
            raise ModuleLoadError(f"{spec}: failed to import: {type(exc).__name__}: {exc}") from exc
    else:
        try:
            module = importlib.import_module(spec)
        except Exception as exc:  # noqa: BLE001
            raise ModuleLoadError(f"{spec}: failed to import: {type(exc).__name__}: {exc}") from exc
    from .core import Derivation

    for value in list(vars(module).values()):
        if isinstance(value, Derivation) and value.name not in _ENTRIES:
            add(value, module.__name__)
    return sorted(set(_ENTRIES) - before) or sorted(
        e.name for e in _ENTRIES.values() if e.module == module.__name__)


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
