"""Derivations that cite derivations: resolving a citation, its status, cycles and the graph.

A step written ``Step(expr, "…", by="softmax.shift-invariance", where={c: m})`` uses the cited derivation's
claim as a lemma (:mod:`derive.kernel.lemmas` states the rule and its side conditions). This module is the
running side of it, untrusted like the rest of the runner: before the steps of a derivation are checked it
resolves every citation (a :class:`~derive.core.Derivation` or a registered name), makes sure the cited
derivation has been verified in this run — served from the verification cache if its key (which covers
the content of everything it cites) is there, else verified now, the citations first — and hands the
verdicts to the kernel in the step's context. A cycle of citations is refused before anything is checked.

The dependency graph of the theory (:func:`graph`) is read from the same citations: it is generated from
the proofs and cannot drift from them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .exceptions import DerivationDefinitionError

if TYPE_CHECKING:  # pragma: no cover
    from .core import Derivation
    from .report import Report

#: reports of derivations verified in this process, by (name, id, settings): a lemma is verified once
_REPORTS: dict[tuple, Report] = {}
#: the derivations being verified now, outermost first (a citation of one of them is a cycle)
_STACK: list[str] = []


class CitationCycleError(DerivationDefinitionError):
    """Derivations cite each other in a circle; the message names the cycle (``a → b → a``)."""


def resolve(ref: Any) -> Derivation:
    """The derivation a step cites: the object itself, or the one registered under the name.

    Raises:
        UnknownDerivationError: no derivation of that name is registered (the catalog is loaded first).
    """
    from .core import Derivation

    if isinstance(ref, Derivation):
        return ref
    from . import registry

    try:
        return registry.get(ref)
    except Exception:  # noqa: BLE001 - not registered yet: the catalog may hold it
        registry.load_catalog()
        return registry.get(ref)


def cited(derivation: Derivation) -> list[tuple[int, str, Any]]:
    """``(step number, cited name, reference)`` for every step of ``derivation`` that cites a derivation."""
    out = []
    for k, step in enumerate(derivation.steps, 1):
        name = step.cites
        if name is not None:
            out.append((k, name, step.by))
    return out


def uses(derivation: Derivation) -> list[str]:
    """The names of the derivations ``derivation`` cites, in order of first use."""
    return list(dict.fromkeys(name for _, name, _ in cited(derivation)))


def closure(derivations: Iterable[Derivation]) -> list[Derivation]:
    """``derivations`` and everything they cite, transitively, the cited ones first.

    Raises:
        CitationCycleError: a cycle, named in the message.
        UnknownDerivationError: a cited name is not registered.
    """
    order: list[Derivation] = []
    seen: set[str] = set()

    def visit(d: Derivation, path: list[str]) -> None:
        if d.name in path:
            cycle = path[path.index(d.name):] + [d.name]
            raise CitationCycleError("citation cycle: " + " → ".join(cycle))
        if d.name in seen:
            return
        for _, _, ref in cited(d):
            visit(resolve(ref), [*path, d.name])
        seen.add(d.name)
        order.append(d)

    for d in derivations:
        visit(d, [])
    return order


def _memo_key(d: Derivation, settings: tuple) -> tuple:
    return (d.name, id(d), *settings)


def remember(d: Derivation, report: Report, settings: tuple) -> None:
    """Keep ``report`` of ``d`` for the steps that cite it later in this process."""
    _REPORTS[_memo_key(d, settings)] = report


def statuses(derivation: Derivation, settings: tuple) -> tuple:
    """``(name, proved, reason, cited derivation)`` for each derivation ``derivation`` cites.

    Each cited derivation is taken from this process's reports, else from the verification cache, else
    verified now with the same ``settings`` (seed, budget, numeric, atol, rtol). A cited derivation
    that is being verified (a cycle), cannot be resolved, or did not pass is "not proved", with why.
    """
    out = []
    for name in uses(derivation):
        ref = next(r for _, n, r in cited(derivation) if n == name)
        try:
            d = resolve(ref)
        except Exception as exc:  # noqa: BLE001 - an unknown name proves nothing; the reason says why
            out.append((name, False, f"the cited derivation cannot be found ({exc})", None))
            continue
        if name in _STACK or name == derivation.name:
            cycle = [*_STACK[_STACK.index(name):], name] if name in _STACK else [name, name]
            out.append((name, False, "citation cycle: " + " → ".join(cycle), d))
            continue
        report = report_of(d, settings)
        if report.ok:
            out.append((name, True, "", d))
        else:
            from .report import Verdict

            what = "refuted" if report.verdict is Verdict.REFUTED else "not proved"
            out.append((name, False, f"the cited derivation {name} is {what}", d))
    return tuple(out)


def report_of(d: Derivation, settings: tuple) -> Report:
    """The report of ``d`` under ``settings``: this process's, the cache's, or a new verification."""
    hit = _REPORTS.get(_memo_key(d, settings))
    if hit is not None:
        return hit
    seed, budget, numeric, atol, rtol = settings
    from . import cache

    key = cache.derivation_key(d, seed=seed, budget=budget, numeric=numeric, atol=atol, rtol=rtol)
    report = cache.load(key) if key is not None else None
    if report is None or report.name != d.name or not report.ok:
        from .verify import verify

        report = verify(d, seed=seed, budget=budget, numeric=numeric, atol=atol, rtol=rtol)
        if key is not None and report.ok:
            cache.store(key, report)
    remember(d, report, settings)
    return report


# ----------------------------------------------------------------------------
# the graph of the theory
# ----------------------------------------------------------------------------


def graph(derivations: Iterable[Derivation]) -> dict:
    """The citation graph of ``derivations`` and what they cite.

    Returns:
        ``{"nodes": [{"name", "title", "scope"}], "edges": [{"from", "to", "step"}]}``: an edge goes from
        the citing derivation to the cited one, with the number of the step that cites it; ``scope`` is
        ``"law"``, ``"instance"`` (proved at fixed sizes) or ``"worked example"``.

    Raises:
        CitationCycleError: the citations form a cycle.
    """
    ds = closure(derivations)
    nodes = [{"name": d.name, "title": d.title, "scope": scope(d)} for d in ds]
    edges = [{"from": d.name, "to": name, "step": k} for d in ds for k, name, _ in cited(d)]
    return {"nodes": nodes, "edges": edges}


def used_by() -> dict[str, list[str]]:
    """name -> the registered derivations that cite it (the reverse of the citations), over the registry."""
    from . import registry

    names = tuple(registry.names())
    if _USED_BY and _USED_BY[0] == names:
        return _USED_BY[1]
    out: dict[str, list[str]] = {}
    for e in registry.entries():
        try:
            d = e.build()
        except Exception:  # noqa: BLE001 - a broken user builder cites nothing here; checking reports it
            continue
        for name in uses(d):
            out.setdefault(name, []).append(d.name)
    _USED_BY[:] = [names, out]
    return out


_USED_BY: list = []


def scope(d: Derivation) -> str:
    """``"worked example"`` (``example.*`` and instances named ``*example*``), ``"instance"`` or ``"law"``."""
    if d.name.startswith("example.") or "example" in d.name.rsplit(".", 1)[-1]:
        return "worked example"
    return "instance" if d.instance else "law"
