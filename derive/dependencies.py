"""The user source files a derivation's verdict can depend on, for the key of the verification cache.

A derivation's expressions and rules are hashed by :mod:`derive.cache` itself;
what they do not show is code: a rule class or a sampler defined in a helper
module, a lambda that calls a helper function, a sympy ``Function`` subclass
whose evaluation lives in the user's file. :func:`user_sources` names every
*user* source file that such code can come from, with a hash of its bytes:

* the **roots**: the module that registered the derivation (``derive check
  --module my.py``, ``derive_modules``), and the module of every function,
  class and object found in the derivation (``__module__``), as
  :mod:`derive.cache` meets them while hashing it;
* then, transitively, every module a user file **imports** (``import a.b``,
  ``from a import b``, relative imports, at any depth of the file, executed
  or not), located without running any code (``sys.modules``, else the path
  finders). A name that is not found is recorded as absent, so a module that
  appears later changes the key too.

A *user* file is any file outside the Python installation (standard library,
``site-packages``/``dist-packages``) and outside derive's own package (whose
source is hashed as a whole by :func:`derive.cache.environment_fingerprint`).

**When the dependencies cannot be established**, :func:`user_sources` raises
:class:`Unknown` and the derivation is verified without the cache (neither
served nor stored):

* a user file loads code in a way its import statements do not show
  (``importlib.import_module``, ``__import__``, ``exec``, ``runpy``,
  ``spec_from_file_location``, ``importlib.reload`` ...);
* a root module has no source file (an interactive session, a notebook cell,
  a module made with ``types.ModuleType``), or a user module is not Python
  source (a compiled extension in the user's directory);
* a user file that is loaded in this process was modified after derive was
  imported: the code in memory may not be the code on disk, so a report
  could be stored under the hash of code that did not produce it.

Known limit: data files that a derivation's functions read (``open``,
``numpy.load``) and environment variables they consult are not part of the
key; give such values to the derivation (a constant, an expression) if they
decide a verdict, or run ``derive check --no-cache``.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.machinery
import os
import site
import sys
import sysconfig
from pathlib import Path
from typing import Any

#: calls (by name or attribute name) that load code the import statements of a file do not show
DYNAMIC_LOADERS = frozenset({
    "__import__", "import_module", "reload", "exec", "execfile", "spec_from_file_location", "spec_from_loader",
    "module_from_spec", "exec_module", "load_module", "load_source", "run_path", "run_module",
})

#: at most this many user files are followed from one derivation (a guard, not a limit met in practice)
MAX_FILES = 2000


class Unknown(Exception):
    """The user code a derivation depends on cannot be established reliably (the message says why)."""


@functools.lru_cache(maxsize=1)
def _system_roots() -> tuple[str, ...]:
    """Directories whose files are not the user's: the Python installation and derive's own package."""
    roots = {str(Path(__file__).resolve().parent)}
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if paths.get(key):
            roots.add(os.path.realpath(paths[key]))
    try:
        roots.update(os.path.realpath(p) for p in site.getsitepackages())
    except AttributeError:  # pragma: no cover - old virtualenv's site module
        pass
    user_site = site.getusersitepackages()
    if isinstance(user_site, str):
        roots.add(os.path.realpath(user_site))
    return tuple(sorted(roots))


def is_user_file(path: str | os.PathLike[str]) -> bool:
    """True unless ``path`` is in the standard library, a ``site-packages`` directory, or derive itself."""
    return _is_user_path(os.fspath(path))


@functools.lru_cache(maxsize=8192)
def _is_user_path(path: str) -> bool:
    real = os.path.realpath(path)
    if {"site-packages", "dist-packages"} & set(Path(real).parts):
        return False
    return not any(real == root or real.startswith(root + os.sep) for root in _system_roots())


def _is_system_module(name: str) -> bool:
    """A module of the interpreter or the installation (built in, frozen, or with its file outside the
    user's), or inside a package that is (``sympy.Symbol``, ``derive.core``)."""
    parts = name.split(".")
    for k in range(1, len(parts) + 1):
        prefix = ".".join(parts[:k])
        if prefix in sys.builtin_module_names:
            return True
        module = sys.modules.get(prefix)
        if module is None:
            continue
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.origin in ("built-in", "frozen"):
            return True
        file = getattr(module, "__file__", None)
        if file and not is_user_file(file):
            return True
    return False


@functools.lru_cache(maxsize=4096)
def _analyse(digest: str, source: bytes, filename: str) -> tuple[tuple[tuple[int, str, tuple[str, ...]], ...],
                                                                   str | None]:
    """``(imports, dynamic)`` of a source file (memoised by content): each import as ``(level, module,
    names)``; ``dynamic`` names the first call that loads code the imports do not show, or None."""
    try:
        tree = ast.parse(source, filename=filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise Unknown(f"{filename}: cannot be read as Python ({type(exc).__name__})") from None
    imports: list[tuple[int, str, tuple[str, ...]]] = []
    dynamic = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports += [(0, alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            imports.append((node.level, node.module or "", tuple(a.name for a in node.names if a.name != "*")))
        elif isinstance(node, ast.Call) and dynamic is None:
            func = node.func
            called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if called in DYNAMIC_LOADERS:
                dynamic = f"{called}() at line {node.lineno}"
    return tuple(imports), dynamic


def _find_spec(name: str) -> Any:
    """The spec of module ``name`` without importing anything (None if there is no such module)."""
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, "__spec__", None) or importlib.machinery.ModuleSpec(
            name, None, origin=getattr(module, "__file__", None))
    parent, _, _ = name.rpartition(".")
    if parent:
        parent_spec = _find_spec(parent)
        locations = getattr(parent_spec, "submodule_search_locations", None) if parent_spec else None
        if not locations:
            return None
        search: list[str] | None = list(locations)
    else:
        if name in sys.builtin_module_names:
            return importlib.machinery.ModuleSpec(name, None, origin="built-in")
        search = None
    try:
        return importlib.machinery.PathFinder.find_spec(name, search)
    except (ImportError, ValueError, OSError):
        return None


def _candidates(module_name: str, is_package: bool, level: int, target: str,
                names: tuple[str, ...]) -> list[str]:
    """The module names an import statement can load, made absolute."""
    if level:
        package = module_name if is_package else module_name.rpartition(".")[0]
        parts = package.split(".") if package else []
        if level - 1 > len(parts) or not parts:
            return []  # a relative import beyond the top: it fails when it runs
        base = ".".join(parts[: len(parts) - (level - 1)])
        target = f"{base}.{target}" if target else base
    out = []
    pieces = target.split(".") if target else []
    out += [".".join(pieces[: k + 1]) for k in range(len(pieces))]
    out += [f"{target}.{n}" for n in names]  # `from package import submodule`; absent when n is an attribute
    return out


#: module name -> hash of its file when :func:`remember` saw it loaded (by :func:`derive.registry.load_module`)
_LOADED: dict[str, str] = {}


def remember(roots: set[str], newly_loaded: set[str]) -> None:
    """Record the file hashes of the user modules in ``newly_loaded`` reachable from ``roots``.

    Called right after a user's module was imported: the files of the modules that import brought in are
    the code now in memory. Later, :func:`user_sources` finds such a module changed if its file's hash
    differs (a module loaded some other way is judged by its file's modification time instead).
    """
    try:
        found = _closure(roots, loaded_since=None)
    except Exception:  # noqa: BLE001 - never fail the user's import; user_sources says why, when asked
        return
    for name, digest in found:
        if name in newly_loaded and digest not in ("<absent>", "<namespace>"):
            _LOADED.setdefault(name, digest)


def user_sources(roots: set[str], *, loaded_since: float | None = None) -> list[list[str]]:
    """``[[module, sha256 of its file or "<absent>"], ...]`` of the user code reachable from ``roots``.

    Args:
        roots: module names (``__module__`` of the derivation's functions and classes, and the module
            that registered it).
        loaded_since: the time derive was imported: a loaded user module whose file changed since it was
            loaded (its hash differs from the one :func:`remember` recorded or, for a module loaded
            otherwise, its file was modified after ``loaded_since``) makes the result :class:`Unknown`.

    Raises:
        Unknown: see the module docstring.
    """
    return _closure(roots, loaded_since=loaded_since)


def user_files(roots: set[str]) -> list[str]:
    """The paths of the user source files reachable from ``roots`` (empty if they cannot be established).

    For Sphinx's incremental builds: a page that shows a derivation is read again when any of them changes.
    """
    files: dict[str, str] = {}
    try:
        _closure(roots, loaded_since=None, files=files)
    except Exception:  # noqa: BLE001 - the files found so far are still dependencies; the cache says why
        pass
    return sorted(files.values())


def _closure(roots: set[str], *, loaded_since: float | None, files: dict[str, str] | None = None
             ) -> list[list[str]]:
    seen: dict[str, str] = {}
    pending: list[tuple[str, bool]] = []  # (module name, must exist: a root)
    for name in sorted(r for r in roots if r):
        if not _is_system_module(name):
            pending.append((name, True))
    while pending:
        name, is_root = pending.pop()
        if name in seen:
            continue
        if len(seen) > MAX_FILES:
            raise Unknown(f"more than {MAX_FILES} user modules reachable")
        spec = _find_spec(name)
        origin = getattr(spec, "origin", None) if spec is not None else None
        if spec is None or origin is None:
            if is_root and not getattr(spec, "submodule_search_locations", None):
                raise Unknown(f"module {name} has no source file (an interactive session or a made-up module)")
            seen[name] = "<absent>" if spec is None else "<namespace>"
            continue
        if origin in ("built-in", "frozen") or not is_user_file(origin):
            continue
        path = Path(origin)
        try:
            data = path.read_bytes()
            mtime = path.stat().st_mtime
        except OSError as exc:
            raise Unknown(f"{origin}: cannot be read ({exc.strerror or exc})") from None
        if path.suffix != ".py":
            raise Unknown(f"{origin}: not Python source; its imports cannot be followed")
        digest = hashlib.sha256(data).hexdigest()
        if loaded_since is not None and name in sys.modules:
            known = _LOADED.get(name)
            if (known is not None and known != digest[:32]) or (known is None and mtime > loaded_since):
                raise Unknown(f"{origin} changed after this process loaded it")
        seen[name] = digest[:32]
        if files is not None:
            files[name] = str(path)
        imports, dynamic = _analyse(digest, data, origin)
        if dynamic is not None:
            raise Unknown(f"{origin} loads code dynamically ({dynamic})")
        is_package = path.name == "__init__.py"
        for level, target, names in imports:
            for candidate in _candidates(name, is_package, level, target, names):
                if candidate not in seen and not _is_system_module(candidate):
                    pending.append((candidate, False))
    return sorted([name, digest] for name, digest in seen.items())
