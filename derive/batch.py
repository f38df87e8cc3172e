"""Check many derivations: cached reports first, the rest verified on every core.

``derive check`` of the whole catalog is CPU-bound sympy work that is
independent from one derivation to the next (each step and check derives its
seed from the derivation's name, so the order does not change any result).
:func:`verify_many` looks every derivation up in the verification cache
(:mod:`derive.cache`) in this process, then verifies the misses in a pool of
forked worker processes, one derivation at a time, and stores the passing
reports. Where ``fork`` is not available, or one job is asked for, it
verifies in this process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .core import Derivation
    from .report import Report

#: the work of the current pool, inherited by the forked workers
_PENDING: list = []


def default_jobs() -> int:
    """Worker processes to use: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _verify_pending(index: int) -> tuple[int, Report]:
    from .verify import verify

    derivation, seed, budget, numeric, atol, rtol = _PENDING[index]
    return index, verify(derivation, seed=seed, budget=budget, numeric=numeric, atol=atol, rtol=rtol)


def verify_many(
    derivations: Sequence[Derivation],
    *,
    seed: int | None = None,
    budget: float | None = None,
    numeric: bool = True,
    jobs: int | None = None,
    cache: bool = True,
    atol: float | None = None,
    rtol: float | None = None,
    progress: Callable[[Report, bool], None] | None = None,
) -> list[Report]:
    """Verify ``derivations``; return their reports in the same order.

    Args:
        derivations: what to check.
        seed: base seed (default :data:`derive.settings.DEFAULT_SEED`).
        budget: per-step symbolic budget in seconds (default :data:`derive.verify.STEP_BUDGET`).
        numeric: run the numeric cross-checks.
        jobs: worker processes (default :func:`default_jobs`; 1 verifies in this process).
        cache: serve unchanged passing derivations from the cache and store new passing reports.
        atol, rtol: tolerances of the float screen (default: the active :mod:`derive.settings`).
        progress: called ``progress(report, cached)`` in this process as each derivation finishes
            (cache hits first, then the verified ones in the order they finish).

    Returns:
        One :class:`~derive.report.Report` per derivation, exactly as
        :func:`derive.verify.verify` (or the cache) gives it.
    """
    from . import cache as report_cache
    from .numeric import DEFAULT_SEED
    from .settings import current
    from .verify import STEP_BUDGET

    seed = DEFAULT_SEED if seed is None else seed
    budget = STEP_BUDGET if budget is None else budget
    atol = current().atol if atol is None else atol
    rtol = current().rtol if rtol is None else rtol
    reports: list[Report | None] = [None] * len(derivations)
    keys: list[str | None] = [None] * len(derivations)
    todo: list[int] = []
    for i, d in enumerate(derivations):
        if cache:
            keys[i] = report_cache.derivation_key(d, seed=seed, budget=budget, numeric=numeric, atol=atol, rtol=rtol)
            if keys[i] is None:  # its user code cannot be pinned down: verified, never stored
                report_cache.STATS.uncached += 1
                todo.append(i)
                continue
            hit = report_cache.load(keys[i])
            if hit is not None and hit.name == d.name and hit.ok:
                report_cache.STATS.hits += 1
                reports[i] = hit
                if progress is not None:
                    progress(hit, True)
                continue
            report_cache.STATS.misses += 1
        todo.append(i)
    from .citations import remember

    settings = (seed, budget, numeric, atol, rtol)
    for d, served in zip(derivations, reports, strict=True):  # served reports, for the steps that cite them
        if served is not None:
            remember(d, served, settings)
    # in waves: a derivation is verified after the ones it cites, so a worker finds their reports
    for wave in _waves(derivations, todo):
        _verify_wave(derivations, wave, reports, settings, jobs, progress)
        for i in wave:
            report = reports[i]
            assert report is not None
            remember(derivations[i], report, settings)
            key = keys[i]
            if cache and key is not None and report.ok and report_cache.store(key, report):
                report_cache.STATS.stored += 1
    if cache:
        _remember_catalog(derivations, keys, reports, settings)
    return [r for r in reports if r is not None]


def _remember_catalog(derivations: Sequence[Derivation], keys: list, reports: list, settings: tuple) -> None:
    """Note the passing catalog derivations in the cache's manifest (:func:`derive.cache.remember_catalog`)."""
    from . import cache as report_cache
    from . import registry
    from .citations import closure

    entries = {}
    for d, key, report in zip(derivations, keys, reports, strict=True):
        if key is None or report is None or not report.ok:
            continue
        if registry.module_of(d) not in registry.CATALOG_MODULES:
            continue  # a user's derivation (its module may change between runs) is always built
        entries[d.name] = (key, [c.name for c in closure([d])[:-1]])
    report_cache.remember_catalog(entries, settings)


def _waves(derivations: Sequence[Derivation], todo: list[int]) -> list[list[int]]:
    """``todo`` split into waves: each derivation comes after every derivation of the list it cites."""
    from .citations import uses

    names = {derivations[i].name: i for i in todo}
    level: dict[int, int] = {}

    def depth(i: int, seen: tuple = ()) -> int:
        if i not in level:
            cited = [names[n] for n in uses(derivations[i]) if n in names and names[n] not in seen]
            level[i] = 1 + max((depth(j, (*seen, i)) for j in cited), default=-1)
        return level[i]

    for i in todo:
        depth(i)
    return [[i for i in todo if level[i] == k] for k in range(max(level.values(), default=-1) + 1)]


def _verify_wave(derivations: Sequence[Derivation], wave: list[int], reports: list, settings: tuple,
                 jobs: int | None, progress: Callable[[Report, bool], None] | None = None) -> None:
    from .verify import verify

    seed, budget, numeric, atol, rtol = settings
    jobs = min(default_jobs() if jobs is None else max(1, jobs), len(wave))
    fork = "fork" in multiprocessing.get_all_start_methods()
    if jobs > 1 and fork:
        global _PENDING
        _PENDING = [(derivations[i], seed, budget, numeric, atol, rtol) for i in wave]
        try:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                for k, report in pool.imap_unordered(_verify_pending, range(len(wave))):
                    reports[wave[k]] = report
                    if progress is not None:
                        progress(report, False)
        finally:
            _PENDING = []
    else:
        for i in wave:
            reports[i] = report = verify(derivations[i], seed=seed, budget=budget, numeric=numeric, atol=atol,
                                         rtol=rtol)
            if progress is not None:
                progress(report, False)
