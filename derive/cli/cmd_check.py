"""``derive check``: verify derivations; exit 1 if any step is not proved."""

from __future__ import annotations

import argparse
import contextlib
import time

from .common import add_lang_option, add_module_option, load, print_json, stdout_to_stderr


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check", help="verify derivations step by step",
        description="Prove every step symbolically and run the numeric cross-checks. Exit 0 when all pass, "
                    "1 when a step is refuted or undecided or a cross-check fails, 2 on bad input.")
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="derivations to check, or glob patterns such as 'params.*' (default: all)")
    add_module_option(p)
    add_lang_option(p)
    p.add_argument("--json", action="store_true", help="print the reports as JSON (English keys and values "
                                                       "whatever --lang says)")
    p.add_argument("--seed", type=int, default=None, help="base seed of every random draw")
    p.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help="CPU seconds per step for its symbolic work; the numeric checks get as much again (default 10)")
    from ..settings import OPTION_HELP

    for name in ("atol", "rtol"):
        p.add_argument(f"--{name}", type=float, default=None, metavar="X", help=OPTION_HELP[name])
    p.add_argument("--no-numeric", action="store_true", help="skip the numeric cross-checks")
    p.add_argument("--cache", action=argparse.BooleanOptionalAction, default=True,
                   help="reuse stored reports of unchanged derivations that passed (default: on; see derive.cache)")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                   help="worker processes for the derivations to verify (default: one per CPU)")
    p.add_argument("--verbose", "-v", action="store_true", help="print every step's verdict and strategy")
    p.set_defaults(run=run)


def _expand(requested: list[str], known: list[str]) -> list[str]:
    """Names as given, with each glob pattern (``params.*``) replaced by the registered names it matches, in order.

    Raises:
        InputError: a pattern that matches no registered derivation.
    """
    import fnmatch

    from ..exceptions import InputError

    out: list[str] = []
    for item in requested:
        if not any(ch in item for ch in "*?["):
            out.append(item)
            continue
        hits = [n for n in known if fnmatch.fnmatchcase(n, item)]
        if not hits:
            raise InputError(f"no derivation matches {item!r}")
        out += [n for n in hits if n not in out]
    return out


def _served(args: argparse.Namespace, wanted: list[str], user: list[str], seed: int, settings) -> list | None:
    """The stored passing reports of ``wanted`` (catalog derivations only), or ``None`` to build and verify.

    Served only when nothing can differ from the run that stored them: the cache is on, no user module
    is loaded, and the manifest of this environment and these settings lists them (:mod:`derive.cache`).
    """
    if not args.cache or user or args.module:
        return None
    from ..cache import catalog_reports
    from ..verify import STEP_BUDGET

    budget = STEP_BUDGET if args.budget is None else args.budget
    return catalog_reports(wanted, (seed, budget, not args.no_numeric, settings.atol, settings.rtol))


def run(args: argparse.Namespace) -> int:
    from .. import registry
    from ..batch import verify_many
    from ..cache import STATS as cache_stats
    from ..collector import tune_collector
    from ..exceptions import InputError
    from ..i18n import gettext
    from ..numeric import DEFAULT_SEED
    from ..render.text import check_table, failed_checks_text, failure_text, report_text, summary_line
    from ..settings import Settings
    from .progress import Progress

    if args.budget is not None and not (0 < args.budget <= 3600):
        raise InputError(f"--budget must be between 0 and 3600 seconds, got {args.budget}")
    if args.jobs is not None and not (1 <= args.jobs <= 256):
        raise InputError(f"--jobs must be between 1 and 256, got {args.jobs}")
    user = load(args)
    # with --module and no names, check just the user's derivations
    wanted = _expand(args.names, registry.names()) or user or registry.names()
    for name in wanted:
        registry.entry(name)  # unknown names fail before any work
    seed = DEFAULT_SEED if args.seed is None else args.seed
    settings = Settings().merged(seed=seed, atol=args.atol, rtol=args.rtol)  # validated before any work
    t0 = time.perf_counter()
    hits0, uncached0 = cache_stats.hits, cache_stats.uncached
    from ..citations import closure

    heading = "derive check (" + gettext("seed {seed}").format(seed=seed) + ")"
    served = _served(args, wanted, user, seed, settings)
    if served is not None:  # every report stored and passing: nothing to build or verify
        if not args.json:
            print(heading, flush=True)
            with Progress(len(served)) as progress:
                for r in served:
                    progress.done(r, cached=True)
        cache_stats.hits += len(served)
        derivations, reports = [], served
    else:
        # what the named derivations cite is verified too, first; a citation cycle is refused here (exit 2)
        derivations = closure([registry.get(name) for name in wanted])
        if not args.json:
            print(heading, flush=True)
        quiet = stdout_to_stderr() if args.json else contextlib.nullcontext()  # users' checks may print
        tune_collector()  # the loaded catalog is frozen: full collections no longer walk it
        with quiet, Progress(0 if args.json else len(derivations)) as progress:
            # --json: nothing but the JSON document on stdout
            reports = verify_many(derivations, seed=seed, budget=args.budget, numeric=not args.no_numeric,
                                  jobs=args.jobs, cache=args.cache, atol=settings.atol, rtol=settings.rtol,
                                  progress=None if args.json else lambda r, cached: progress.done(r, cached=cached))
    elapsed = time.perf_counter() - t0
    if args.json:
        print_json({"seed": seed, "atol": settings.atol, "rtol": settings.rtol, "ok": all(r.ok for r in reports),
                    "reports": [r.to_dict() for r in reports]})
    else:
        print()
        print(check_table(reports))
        for i, r in enumerate(reports):
            if args.verbose:
                print(report_text(r))
            elif not r.ok:
                print(f"\n{r.name}: " + gettext("FAILED"))
                if not r.symbolic_ok:
                    print(failure_text(derivations[i], r))  # a served report passed: this one was built
                if not r.numeric_ok:
                    print(failed_checks_text(r))
        print(summary_line(reports, elapsed))
        if args.cache and cache_stats.hits > hits0:
            print("(" + gettext("{n} unchanged and passing before: served from the cache; --no-cache "
                                "re-verifies").format(n=cache_stats.hits - hits0) + ")")
        if args.cache and cache_stats.uncached > uncached0:
            why = [f"{n}: {cache_stats.uncached_reasons[n]}" for n in wanted if n in cache_stats.uncached_reasons]
            print("(" + gettext("{n} verified without the cache, their code cannot be pinned down: {why}").format(
                n=cache_stats.uncached - uncached0, why=why[0] if why else "see derive.dependencies") + ")")
    return 0 if all(r.ok for r in reports) else 1
