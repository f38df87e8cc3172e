"""``derive site``: build a Sphinx site in every language at once, one ``sphinx-build`` process per language."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the name of a language in the closing line (others are shown by their code)
LANGUAGE_NAMES = {"en": "English", "ko": "한국어"}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "site", help="build the Sphinx site in every language, the builds in parallel",
        description="Build a Sphinx site (derive's own by default) in its own language into OUTPUT and each "
                    "translation into OUTPUT/LANG at the same time, one strict sphinx-build process per language "
                    "(-nW, a warning fails the build) on a CPU of its own. Every derivation on a page is verified "
                    "(from the verification cache when it passed before). Prints where each index page is. "
                    "Exit 0 when every build passes, 1 when one fails (its warnings are printed), 2 on bad input.")
    p.add_argument("source", nargs="?", default="docs", help="the folder of conf.py (default: docs)")
    p.add_argument("output", nargs="?", default=None,
                   help="where the site goes (default: SOURCE/_build/html); a translation goes into OUTPUT/LANG")
    p.add_argument("--languages", metavar="LANGS", default=None,
                   help="comma-separated translations to build besides the site's own language (default: each "
                        "language with a gettext catalog folder under SOURCE/locales; an empty value builds none)")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                   help="builds at the same time (default: one per CPU, at most one per language)")
    p.set_defaults(run=run)


def translations(source: Path, requested: str | None) -> list[str]:
    """The languages to build besides the site's own: ``requested`` (comma-separated) or the catalog folders."""
    if requested is not None:
        return [code.strip() for code in requested.split(",") if code.strip()]
    locales = source / "locales"
    if not locales.is_dir():
        return []
    return sorted(p.name for p in locales.iterdir() if (p / "LC_MESSAGES").is_dir())


def build_commands(source: Path, output: Path, languages: list[str]) -> list[tuple[str, list[str], Path]]:
    """(language or "", sphinx-build command, output folder) of each build: the site's own language first."""
    base = [sys.executable, "-m", "sphinx", "-nW", "--keep-going", "-q"]
    builds = [("", [*base, str(source), str(output)], output)]
    for code in languages:
        builds.append((code, [*base, "-D", f"language={code}", str(source), str(output / code)], output / code))
    return builds


def _label(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code) if code else "site"


def run(args: argparse.Namespace) -> int:
    from ..batch import default_jobs
    from ..exceptions import InputError

    source = Path(args.source)
    if not (source / "conf.py").is_file():
        raise InputError(f"{source}: no conf.py there (give the folder of the Sphinx project)")
    if args.jobs is not None and not (1 <= args.jobs <= 64):
        raise InputError(f"--jobs must be between 1 and 64, got {args.jobs}")
    languages = translations(source, args.languages)
    for code in languages:
        if not code.replace("_", "").replace("-", "").isalnum():
            raise InputError(f"--languages: {code!r} is not a language code (such as ko or pt_BR)")
    output = Path(args.output) if args.output else source / "_build" / "html"
    builds = build_commands(source, output, languages)
    jobs = min(len(builds), args.jobs or default_jobs())
    waiting = list(builds)
    running: list[tuple[str, subprocess.Popen, Path, object, float]] = []
    failed: list[str] = []
    done: dict[str, Path] = {}
    try:
        while waiting or running:
            while waiting and len(running) < jobs:
                code, command, folder = waiting.pop(0)
                log = tempfile.TemporaryFile()  # noqa: SIM115 - closed when the build is reported
                proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
                running.append((code, proc, folder, log, time.perf_counter()))
            finished = next((r for r in running if r[1].poll() is not None), None)
            if finished is None:
                time.sleep(0.05)
                continue
            running.remove(finished)
            code, proc, folder, log, start = finished
            log.seek(0)
            messages = log.read().decode("utf-8", "replace")
            log.close()
            if messages:
                sys.stderr.write(messages if messages.endswith("\n") else messages + "\n")
                sys.stderr.flush()
            if proc.returncode != 0:
                failed.append(code)
                print(f"derive site: error: the {_label(code)} build failed (sphinx-build exit {proc.returncode}, "
                      f"{time.perf_counter() - start:.1f} s){'; its messages are above' if messages else ''}",
                      file=sys.stderr, flush=True)
            else:
                done[code] = folder
    except BaseException:  # interrupted: no build goes on without us
        for _, proc, *_ in running:
            proc.terminate()
        for _, proc, *_ in running:
            proc.wait()
        raise
    if failed:
        return 1
    here = [f"{(done[c] / 'index.html').resolve()}" for c, _, _ in builds]
    others = ", ".join(f"{_label(c)}: {path}" for (c, _, _), path in zip(builds[1:], here[1:], strict=True))
    print(f"site: {here[0]}" + (f" ({others})" if others else ""), flush=True)
    return 0
