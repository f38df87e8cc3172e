"""A cache of verification reports, so unchanged derivations are not re-proved.

Checking a derivation (sympy strategies, counterexample search, Monte Carlo)
costs about a second; a docs build or a ``derive check`` on every save would
pay that for every derivation every time. :func:`cached_verify` returns the
stored :class:`~derive.report.Report` when nothing that could change the
outcome has changed, and verifies (and stores) otherwise.

**What the key covers** (:func:`derivation_key`), hashed with SHA-256:

* the derivation: the start and every step's expression, hashed node by
  node with atoms by ``srepr`` (so symbol names and assumptions are
  included), each step's relation, and each rule's class and fields (sympy
  fields as above, functions by their code);
* every numeric cross-check: its class and fields, functions (samplers,
  free-form checks) by a fingerprint of their byte code, constants and
  closure values; and whether the claim's identity check is added;
* the verification settings: seed, per-step budget, ``numeric`` on/off;
* the versions of derive, sympy, numpy, mpmath and Python, and a hash of the
  package's own source (every ``.py`` file under ``derive/``, the proof
  kernel included), so editing a strategy, the kernel or a catalog helper
  invalidates every entry even without a version bump;
* the **user code** the result can depend on (:mod:`derive.dependencies`):
  the source hash of the module that registered the derivation, of the
  module of every function, class and object in it, and of every user
  module those import, transitively. When that set cannot be established
  reliably (a module that imports dynamically, a derivation defined in an
  interactive session, a user file changed after this process loaded it),
  :func:`derivation_key` returns ``None`` and the derivation is verified
  without the cache: never served, never stored. So editing a helper module
  that a derivation's module imports re-verifies it.

**What is stored.** Only reports that *pass* (every step proved and every
cross-check passed). A refuted or undecided step is verified again on every
run: "undecided" can come from a time budget spent on a loaded machine, and a
failure is what the user is about to look at, so it is never served stale.

**Where.** ``$DERIVE_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/derive``,
else ``~/.cache/derive``; one JSON file per key under ``reports/``, written
atomically (write to a temporary file, then rename), so parallel Sphinx
workers and concurrent ``derive check`` runs are safe. Delete the directory
to clear the cache; a corrupt or unreadable entry is treated as a miss.
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import dataclasses
import functools
import hashlib
import json
import os
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .core import Derivation
    from .report import Report

#: Bump when the layout of a stored entry or of the key changes.
CACHE_FORMAT = 3

#: modules met while hashing a derivation (``__module__`` of its functions, classes and objects)
_MODULES: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar("derive_cache_modules", default=None)


def _note_module(name: Any) -> None:
    seen = _MODULES.get()
    if seen is not None and isinstance(name, str) and name:
        seen.add(name)


@dataclasses.dataclass
class CacheStats:
    """Counts of this process's lookups (for reports and benchmarks)."""

    hits: int = 0
    misses: int = 0
    stored: int = 0
    verify_seconds: float = 0.0
    #: derivations verified without the cache because their user code could not be established
    uncached: int = 0
    #: name -> why it was not cached (the last reason per derivation)
    uncached_reasons: dict[str, str] = dataclasses.field(default_factory=dict)


def _write_stats() -> None:
    """At exit, append this process's counts to ``$DERIVE_CACHE_STATS`` (one JSON line; for benchmarks)."""
    target = os.environ.get("DERIVE_CACHE_STATS")
    if target and (STATS.hits or STATS.misses):
        with contextlib.suppress(OSError), open(target, "a", encoding="utf-8") as fh:
            counts = {k: v for k, v in dataclasses.asdict(STATS).items() if k != "uncached_reasons"}
            fh.write(json.dumps({"pid": os.getpid(), **counts}) + "\n")


#: Lookups made by this process.
STATS = CacheStats()
atexit.register(_write_stats)


def cache_dir() -> Path:
    """The cache directory: ``$DERIVE_CACHE_DIR``, ``$XDG_CACHE_HOME/derive`` or ``~/.cache/derive``."""
    explicit = os.environ.get("DERIVE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "derive"


# ----------------------------------------------------------------------------
# Fingerprints
# ----------------------------------------------------------------------------


def _sympy_hash(expr: Any, memo: dict) -> str:
    """A hash of a sympy tree: each node's class and its arguments' hashes; atoms by ``srepr``.

    The same as hashing ``srepr(expr)`` in what it tells apart (symbol names and
    assumptions, exact numbers, structure), but linear in the tree's size:
    ``srepr`` orders every sum's terms again, which made keys of large matrices
    cost as much as a second of a docs build. Dummies are numbered by first
    appearance, so the key is the same in every process.
    """
    key = (type(expr), expr)  # Float(1) == Integer(1) in sympy: keep the types apart
    got = memo.get(key)
    if got is not None:
        return got
    from sympy import Dummy, srepr
    from sympy.core.function import AppliedUndef

    if isinstance(expr, Dummy):
        # a Dummy's srepr carries a per-process counter: number them by first appearance instead
        order = memo.setdefault("dummies", {})
        order.setdefault(expr, len(order))
        text = f"Dummy#{order[expr]}({expr.name!r}, {sorted(expr.assumptions0.items())!r})"
    elif not expr.args:
        _note_module(type(expr).__module__)
        text = srepr(expr)
    else:
        _note_module(type(expr).__module__)  # a user's Function subclass: its file is part of the key
        head = srepr(expr.func) if isinstance(expr, AppliedUndef) else type(expr).__qualname__
        text = head + "(" + ",".join(_sympy_hash(a, memo) for a in expr.args) + ")"
    digest = hashlib.sha256(text.encode()).hexdigest()[:32]
    memo[key] = digest
    return digest


def _code_fingerprint(code: types.CodeType) -> list:
    consts = [_code_fingerprint(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts]
    return [code.co_code.hex(), consts, list(code.co_names), code.co_argcount]


def _fingerprint(obj: Any, depth: int = 0) -> Any:
    """A JSON-able structure that changes whenever ``obj`` could behave differently."""
    if depth > 12:
        return "<deep>"
    from sympy import Basic, ImmutableMatrix, MatrixBase

    if isinstance(obj, MatrixBase) and not isinstance(obj, Basic):
        obj = ImmutableMatrix(obj)
    if isinstance(obj, Basic):
        return ["sympy", _sympy_hash(obj, {})]
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return [type(obj).__name__, repr(obj)]
    if isinstance(obj, (tuple, list)):
        return [type(obj).__name__, [_fingerprint(x, depth + 1) for x in obj]]
    if isinstance(obj, dict):
        return ["dict", sorted(([repr(k), _fingerprint(v, depth + 1)] for k, v in obj.items()), key=str)]
    if isinstance(obj, (set, frozenset)):
        return ["set", sorted(str(_fingerprint(x, depth + 1)) for x in obj)]
    if isinstance(obj, types.ModuleType):  # sympy, numpy, a helper module: its name (and file, below)
        _note_module(obj.__name__)
        return ["module", obj.__name__, _file_hash(getattr(obj, "__file__", None) or "")]
    if isinstance(obj, functools.partial):
        return ["partial", _fingerprint(obj.func, depth + 1), _fingerprint(obj.args, depth + 1),
                _fingerprint(obj.keywords, depth + 1)]
    if isinstance(obj, types.MethodType):
        return ["method", _fingerprint(obj.__func__, depth + 1), _fingerprint(obj.__self__, depth + 1)]
    if isinstance(obj, types.FunctionType):
        _note_module(obj.__module__)
        cells = []
        for cell in obj.__closure__ or ():
            try:
                cells.append(_fingerprint(cell.cell_contents, depth + 1))
            except ValueError:  # empty cell
                cells.append("<empty>")
        return ["function", obj.__module__, obj.__qualname__, _code_fingerprint(obj.__code__),
                _file_hash(obj.__code__.co_filename), cells,
                _fingerprint(obj.__defaults__, depth + 1), _fingerprint(obj.__kwdefaults__, depth + 1)]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        _note_module(type(obj).__module__)  # a rule class in a helper module: its methods are in that file
        fields = [[f.name, _fingerprint(getattr(obj, f.name), depth + 1)]
                  for f in dataclasses.fields(obj) if f.compare]
        return ["dataclass", type(obj).__module__, type(obj).__qualname__, fields]
    if isinstance(obj, type) or callable(obj):  # classes, builtins, numpy ufuncs, sympy functions
        _note_module(getattr(obj, "__module__", None))
        _note_module(type(obj).__module__)
        return ["callable", getattr(obj, "__module__", ""), getattr(obj, "__qualname__", repr(obj))]
    try:
        import numpy as np

        if isinstance(obj, np.ndarray):
            return ["ndarray", str(obj.dtype), list(obj.shape), hashlib.sha256(obj.tobytes()).hexdigest()]
        if isinstance(obj, np.generic):
            return ["npscalar", repr(obj.item())]
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    state = getattr(obj, "__dict__", None)
    if state is not None:  # a plain object: its class and attributes (its repr may hold an address)
        _note_module(type(obj).__module__)
        return ["object", type(obj).__module__, type(obj).__qualname__, _fingerprint(dict(state), depth + 1)]
    _note_module(type(obj).__module__)
    return ["repr", type(obj).__qualname__, repr(obj)]


#: (file, mtime_ns, size) -> hash: a file edited in this process is hashed again
_FILE_HASHES: dict[tuple[str, int, int], str] = {}


def _file_hash(filename: str) -> str:
    """Hash of a source file, so a change to a helper a check calls invalidates it too."""
    try:
        st = os.stat(filename)
        memo = (filename, st.st_mtime_ns, st.st_size)
        got = _FILE_HASHES.get(memo)
        if got is None:
            got = _FILE_HASHES[memo] = hashlib.sha256(Path(filename).read_bytes()).hexdigest()[:16]
        return got
    except OSError:
        return "<no source>"


@functools.lru_cache(maxsize=1)
def environment_fingerprint() -> dict[str, str]:
    """Versions of derive, sympy, numpy, mpmath and Python, and a hash of derive's source files (the kernel too)."""
    import mpmath
    import numpy
    import sympy

    from . import __version__

    engine = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        engine.update(str(path.relative_to(root)).encode())
        engine.update(path.read_bytes())
    return {
        "format": str(CACHE_FORMAT),
        "derive": __version__,
        "sympy": sympy.__version__,
        "numpy": numpy.__version__,
        "mpmath": mpmath.__version__,
        "python": sys.version.split()[0],
        "engine": engine.hexdigest()[:16],
    }


def derivation_key(derivation: Derivation, *, seed: int, budget: float, numeric: bool = True,
                   atol: float | None = None, rtol: float | None = None) -> str | None:
    """The SHA-256 hex key of verifying ``derivation`` with these settings in this environment.

    ``atol``/``rtol`` (the float screen's tolerances) default to the active :mod:`derive.settings`.

    Returns:
        The key, or ``None`` when the user code the result depends on cannot be established
        (:mod:`derive.dependencies`): then the derivation must be verified without the cache. The
        reason is kept in ``STATS.uncached_reasons[derivation.name]``.
    """
    from .dependencies import Unknown, user_sources
    from .settings import current

    atol = current().atol if atol is None else atol
    rtol = current().rtol if rtol is None else rtol
    d = derivation
    token = _MODULES.set(set())
    try:
        payload = {
            "env": environment_fingerprint(),
            "settings": {"seed": seed, "budget": repr(float(budget)), "numeric": bool(numeric),
                         "atol": repr(float(atol)), "rtol": repr(float(rtol))},
            "name": d.name,
            "start": _fingerprint(d.start),
            "steps": [[_fingerprint(s.expr), s.relation, _fingerprint(s.rule)] for s in d.steps],
            "checks": [_fingerprint(c) for c in d.checks],
            "auto_identity_check": d.auto_identity_check,
            # the hypotheses are part of the claim: a changed premise, definition or model re-verifies
            "premises": [_fingerprint(p) for p in d.premises],
            "definitions": [_fingerprint(p) for p in d.definitions],
            "models": [_fingerprint(m) for m in d.models],
        }
        modules = set(_MODULES.get() or ())
    finally:
        _MODULES.reset(token)
    modules.add(_registered_module(d) or "")
    try:
        payload["user_sources"] = user_sources(modules, loaded_since=_loaded_since())
    except Unknown as why:
        STATS.uncached_reasons[d.name] = str(why)
        return None
    except Exception as exc:  # noqa: BLE001 - an odd module object: not cached, never a crash of the check
        STATS.uncached_reasons[d.name] = f"its modules could not be followed ({type(exc).__name__}: {exc})"
        return None
    cites = _cited_keys(d, seed=seed, budget=budget, numeric=numeric, atol=atol, rtol=rtol)
    if cites is None:
        return None
    payload["cites"] = cites
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def expression_fingerprint(derivation: Derivation) -> str:
    """A SHA-256 hex key of what a derivation *shows*: start, each step's expression, display form and relation,
    the definitions, and the user modules of the functions and classes met in them (a user's ``_latex``).

    Raises:
        derive.dependencies.Unknown: when those modules cannot be established (nothing may be cached then).
    """
    from .dependencies import user_sources

    d = derivation
    token = _MODULES.set(set())
    try:
        payload = {
            "start": _fingerprint(d.start),
            "steps": [[_fingerprint(s.expr), _fingerprint(s.display), s.relation] for s in d.steps],
            "definitions": [_fingerprint(p) for p in d.definitions],
        }
        modules = set(_MODULES.get() or ())
    finally:
        _MODULES.reset(token)
    payload["user_sources"] = user_sources(modules, loaded_since=_loaded_since())
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


_CITING: list[str] = []


def _cited_keys(d: Derivation, **settings: Any) -> dict | None:
    """The keys of the derivations ``d`` cites (a lemma's change re-verifies its users), or ``None``."""
    from .citations import cited, resolve

    out: dict[str, str] = {}
    for _, name, ref in cited(d):
        if name in out:
            continue
        if name in _CITING or name == d.name:  # a cycle: never served (the check refuses it anyway)
            STATS.uncached_reasons[d.name] = f"its citations form a cycle through {name}"
            return None
        try:
            target = resolve(ref)
        except Exception as exc:  # noqa: BLE001 - an unknown citation: verified, never served
            STATS.uncached_reasons[d.name] = f"it cites {name}, which cannot be found ({exc})"
            return None
        _CITING.append(d.name)
        try:
            key = derivation_key(target, **settings)
        finally:
            _CITING.pop()
        if key is None:
            STATS.uncached_reasons[d.name] = f"it cites {name}, whose code cannot be pinned down"
            return None
        out[name] = key
    return out


def _registered_module(derivation: Derivation) -> str | None:
    """The module that registered this very object (``derive check --module``, ``derive_modules``), if any."""
    from . import registry

    return registry.module_of(derivation)


def _loaded_since() -> float:
    """When derive was imported in this process (user files modified later are not trusted to be in memory)."""
    import derive

    return derive.IMPORTED_AT


# ----------------------------------------------------------------------------
# The catalog's manifest: a warm check without building the derivations
# ----------------------------------------------------------------------------

def _manifest_path(settings: tuple, directory: Path | None = None) -> Path:
    """Where the manifest for this environment and these settings lives (one file per combination)."""
    seed, budget, numeric, atol, rtol = settings
    text = json.dumps({"env": environment_fingerprint(), "seed": seed, "budget": repr(float(budget)),
                       "numeric": bool(numeric), "atol": repr(float(atol)), "rtol": repr(float(rtol))},
                      sort_keys=True)
    return (directory or cache_dir()) / "catalog" / f"{hashlib.sha256(text.encode()).hexdigest()}.json"


def remember_catalog(entries: dict[str, tuple[str, list[str]]], settings: tuple,
                     directory: Path | None = None) -> None:
    """Record, for catalog derivations that passed, their report key and what they cite (transitively).

    A catalog derivation is built from derive's own source alone, and :func:`environment_fingerprint`
    hashes all of it, so with the same environment and settings its key cannot have changed: the next
    ``derive check`` can serve its report without building it (:func:`catalog_reports`).

    Args:
        entries: name -> (report key, names it cites transitively, cited ones first).
        settings: ``(seed, budget, numeric, atol, rtol)``.
    """
    if not entries:
        return
    path = _manifest_path(settings, directory)
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(known, dict):
            known = {}
    except (OSError, ValueError):
        known = {}
    known.update({name: {"key": key, "cites": cites} for name, (key, cites) in entries.items()})
    # unwritable: no manifest, so the next check builds the derivations; nothing else changes
    _write_atomic(path, json.dumps(known).encode("utf-8"))


def catalog_reports(names: list[str], settings: tuple,
                    directory: Path | None = None) -> list[Report] | None:
    """The stored passing reports of catalog derivations ``names`` and what they cite, cited ones first.

    ``None`` unless every one of them is in the manifest of this environment and settings and its
    report is stored and passing (then the caller builds and checks them as usual).
    """
    try:
        known = json.loads(_manifest_path(settings, directory).read_text(encoding="utf-8"))
        order: list[str] = []
        for name in names:
            for n in [*known[name]["cites"], name]:
                if n not in order:
                    order.append(n)
        reports = []
        for n in order:
            hit = load(known[n]["key"], directory)
            if hit is None or hit.name != n or not hit.ok:
                return None
            reports.append(hit)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return reports


# ----------------------------------------------------------------------------
# Store
# ----------------------------------------------------------------------------


def _path(key: str, directory: Path | None = None) -> Path:
    return (directory or cache_dir()) / "reports" / key[:2] / f"{key}.json"


def _jsonable(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")


def load(key: str, directory: Path | None = None) -> Report | None:
    """The stored report for ``key``, or ``None`` (missing, unreadable or corrupt)."""
    from .report import Report

    try:
        data = json.loads(_path(key, directory).read_text(encoding="utf-8"))
        if data.get("key") != key:
            return None
        return Report.from_dict(data["report"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(key: str, report: Report, directory: Path | None = None) -> bool:
    """Write ``report`` under ``key`` atomically; return False if it could not be written."""
    try:
        text = json.dumps({"key": key, "env": environment_fingerprint(), "report": report.to_dict()},
                          default=_jsonable, ensure_ascii=False)
    except (TypeError, ValueError):
        return False
    return _write_atomic(_path(key, directory), text.encode("utf-8"))


def _write_atomic(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` through a temporary file and a rename; False if it could not be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


def remember_bytes(kind: str, parts: tuple[str, ...], make: Any, directory: Path | None = None) -> bytes:
    """``make()`` (bytes), stored under ``kind`` and served while derive's environment and ``parts`` are unchanged.

    For generated files that depend on derive's own source alone (the site's figures): the key is
    :func:`environment_fingerprint` (derive's source hash, library versions) plus ``parts`` (what else the
    bytes depend on, e.g. a figure's name, its resolution, matplotlib's version). A missing, unreadable
    or unwritable entry just means ``make()`` runs.
    """
    text = json.dumps({"env": environment_fingerprint(), "parts": list(parts)}, sort_keys=True)
    path = (directory or cache_dir()) / kind / f"{hashlib.sha256(text.encode()).hexdigest()}.bin"
    try:
        return path.read_bytes()
    except OSError:
        pass
    data = make()
    _write_atomic(path, data)
    return data


def cached_verify(
    derivation: Derivation,
    *,
    seed: int | None = None,
    budget: float | None = None,
    numeric: bool = True,
    directory: Path | None = None,
    atol: float | None = None,
    rtol: float | None = None,
) -> Report:
    """:func:`derive.verify.verify`, served from the cache when nothing relevant changed.

    Args:
        derivation: the derivation to check.
        seed: base seed (default :data:`derive.settings.DEFAULT_SEED`).
        budget: per-step symbolic budget in seconds (default :data:`derive.verify.STEP_BUDGET`).
        numeric: run the numeric cross-checks.
        directory: cache directory (default :func:`cache_dir`).

    Returns:
        The report; a passing report is stored for next time. A served report
        is the stored one, with the timings of the run that produced it. A
        derivation whose key is ``None`` (see :func:`derivation_key`) is
        verified every time.
    """
    from .numeric import DEFAULT_SEED
    from .verify import STEP_BUDGET, verify

    seed = DEFAULT_SEED if seed is None else seed
    budget = STEP_BUDGET if budget is None else budget
    key = derivation_key(derivation, seed=seed, budget=budget, numeric=numeric, atol=atol, rtol=rtol)
    if key is None:  # its user code cannot be pinned down: never served, never stored
        STATS.uncached += 1
        return verify(derivation, seed=seed, budget=budget, numeric=numeric, atol=atol, rtol=rtol)
    hit = load(key, directory)
    if hit is not None and hit.name == derivation.name and hit.ok:
        STATS.hits += 1
        return hit
    STATS.misses += 1
    t0 = time.perf_counter()
    report = verify(derivation, seed=seed, budget=budget, numeric=numeric, atol=atol, rtol=rtol)
    STATS.verify_seconds += time.perf_counter() - t0
    if report.ok and store(key, report, directory):
        STATS.stored += 1
    return report
