"""Run the benchmarks: ``python benchmarks/run.py [--quick] [--only KEY,...]``.

Every figure is a ratio against a baseline measured in the same run (absolute times on shared
machines are not stable; ratios are). Prints a table per figure, writes
``benchmarks/results/latest.json`` and the generated page ``docs/benchmarks.md``. A figure whose
part of derive is not on this checkout yet is skipped with a line saying so.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib
import json
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import Figure, machine  # noqa: E402
from benchmarks.page import render  # noqa: E402

#: figure key -> module, in the order they are run and printed
FIGURES = {
    "catalog": "benchmarks.fig_catalog",
    "variance": "benchmarks.fig_variance",
    "params": "benchmarks.fig_params",
    "montecarlo": "benchmarks.fig_montecarlo",
    "startup": "benchmarks.fig_startup",
    "docs": "benchmarks.fig_docs",
    "power": "benchmarks.fig_power",
    "svg": "benchmarks.fig_svg",
}

#: issue 20: wall seconds of a whole run, quick and full
QUICK_RUN_TARGET = 120.0
FULL_RUN_TARGET = 600.0


def print_figure(n: int, fig: Figure) -> None:
    print(f"\n== {n}. {fig.title}")
    if fig.status != "ok":
        print(f"   skipped: {fig.reason}")
        return
    table = [fig.columns, *fig.rows] if fig.columns else fig.rows
    widths = [max(len(str(r[i])) for r in table if i < len(r)) for i in range(len(table[0]))] if table else []
    for k, row in enumerate(table):
        print("   " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=False)).rstrip())
        if k == 0 and fig.columns:
            print("   " + "  ".join("-" * w for w in widths))
    for t in fig.targets:
        unit = t["unit"]
        verdict = "OK  " if t["met"] else "MISS"
        print(f"   {verdict} {t['what']}: {t['value']:.3g} {unit} (target <= {t['limit']:g} {unit})")
    for note in fig.notes:
        print(f"   - {note}")


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _write(args: argparse.Namespace, t0: float, by_key: dict[str, dict]) -> None:
    """Write the results so far (figures in :data:`FIGURES` order) and the page generated from them."""
    figures = [by_key[k] for k in FIGURES if k in by_key]
    # the figures' own durations added up (a partial run keeps the other figures and their durations)
    took = [f["seconds"] for f in figures if f.get("seconds") is not None]
    results = {
        "date": _now(), "quick": args.quick, "machine": machine(), "figures": figures,
        "seconds": sum(took) if len(took) == len(figures) else time.perf_counter() - t0,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".tmp")
    tmp.write_text(json.dumps(results, indent=2, default=str) + "\n")
    tmp.replace(args.out)
    if str(args.page) != "-":
        args.page.parent.mkdir(parents=True, exist_ok=True)
        args.page.write_text(render(results))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/run.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and few repeats (under two minutes)")
    parser.add_argument("--only", default="", help=f"comma-separated figures to run: {', '.join(FIGURES)}")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "latest.json",
                        help="where to write the JSON results")
    parser.add_argument("--page", type=Path, default=ROOT / "docs" / "benchmarks.md",
                        help="where to write the generated Markdown page ('-' for none)")
    args = parser.parse_args(argv)
    wanted = [k.strip() for k in args.only.split(",") if k.strip()] or list(FIGURES)
    unknown = [k for k in wanted if k not in FIGURES]
    if unknown:
        parser.error(f"unknown figure(s) {', '.join(unknown)}; choose from {', '.join(FIGURES)}")
    t0 = time.perf_counter()
    previous: dict[str, dict] = {}
    if args.only and args.out.exists():
        # a partial run updates its figures in the last results and keeps the others
        with contextlib.suppress(ValueError, KeyError, TypeError):
            last = json.loads(args.out.read_text())
            previous = {f["key"]: {"date": last["date"], **f} for f in last["figures"]}
    figures: list[dict] = []
    for n, key in enumerate(wanted, 1):
        module = importlib.import_module(FIGURES[key])
        began = time.perf_counter()
        try:
            fig = module.run(args.quick)
        except Exception as exc:  # noqa: BLE001 - one broken figure must not hide the others
            traceback.print_exc()
            fig = Figure(key, key).skip(f"failed: {type(exc).__name__}: {exc}")
        print_figure(n, fig)
        took = time.perf_counter() - began
        print(f"   ({took:.0f} s)", flush=True)
        figures.append({**fig.to_dict(), "date": _now(), "seconds": took})
        # each figure is written as soon as it is measured: an interrupted run keeps what it measured
        _write(args, t0, {**previous, **{f["key"]: f for f in figures}})
    total = time.perf_counter() - t0
    if not args.only:  # issue 20: a quick run in two minutes, the full one in ten
        limit = QUICK_RUN_TARGET if args.quick else FULL_RUN_TARGET
        print(f"\n{'OK  ' if total <= limit else 'MISS'} the whole {'quick' if args.quick else 'full'} run: "
              f"{total:.0f} s (target <= {limit:.0f} s)")
    print(f"\nresults: {args.out}")
    if str(args.page) != "-":
        print(f"page: {args.page}")
    failed = [f["key"] for f in figures if f["reason"].startswith("failed")]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
