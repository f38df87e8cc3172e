"""Figure 6: the docs build — full time, the share spent verifying, and rebuilds with nothing changed."""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from pathlib import Path

from .common import ROOT, Figure, bench_env, fmt_ratio, fmt_s, run_timed

#: issue 20: the site built with a warm verification cache, wall seconds
WARM_TARGET = 30.0


def _verify_seconds(stats: Path) -> tuple[float, int, int]:
    seconds, hits, misses = 0.0, 0, 0
    if stats.exists():
        for line in stats.read_text().splitlines():
            data = json.loads(line)
            seconds += data["verify_seconds"]
            hits += data["hits"]
            misses += data["misses"]
    return seconds, hits, misses


def run(quick: bool) -> Figure:
    fig = Figure("docs", "Docs build", columns=["build", "wall", "verifying", "cache hits / misses", "vs full"])
    docs = ROOT / "docs"
    if not (docs / "conf.py").exists() or importlib.util.find_spec("derive.sphinxext") is None:
        return fig.skip("not available yet: the docs site (docs/conf.py) and derive.sphinxext are not on this "
                        "checkout")
    if quick:
        # its first build verifies the whole catalog (minutes of CPU): more than a quick run's two minutes
        return fig.skip("not measured in a quick run: the first build verifies the whole catalog; "
                        "`python benchmarks/run.py --only docs` measures it")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        cache, out = tmp_path / "cache", tmp_path / "html"
        plans = [("full build, empty cache", out, []),
                 ("again, nothing changed", out, []),
                 ("fresh environment (-E, new output), warm cache", tmp_path / "html2", ["-E"])]
        for label, outdir, extra in plans:
            stats = tmp_path / f"stats-{len(rows)}.jsonl"
            env = bench_env(DERIVE_CACHE_DIR=str(cache), DERIVE_CACHE_STATS=str(stats))
            wall, proc = run_timed([sys.executable, "-m", "sphinx", "-b", "html", "-q", *extra, str(docs),
                                    str(outdir)], env=env, timeout=1800)
            if proc is None or proc.returncode != 0:
                return fig.skip(f"sphinx-build failed: {proc.stderr[-400:] if proc else 'timeout'}")
            verifying, hits, misses = _verify_seconds(stats)
            rows.append((label, wall, verifying, hits, misses))
    full = rows[0][1]
    for label, wall, verifying, hits, misses in rows:
        share = f"{fmt_s(verifying)} ({verifying / wall:.0%})" if wall else "—"
        fig.rows.append([label, fmt_s(wall), share, f"{hits} / {misses}", fmt_ratio(wall / full)])
    warm = rows[-1][1]
    fig.target("unchanged rebuild ÷ full build", rows[1][1] / full, 0.5, "×")
    fig.target("fresh-environment build with a warm cache ÷ full build", warm / full, 1.0, "×")
    fig.target("`sphinx-build` of the site with a warm verification cache, wall time (issue 20)", warm,
               WARM_TARGET)
    fig.notes += [
        "`python -m sphinx -b html -q docs OUT` in fresh processes with a private verification cache "
        "(`DERIVE_CACHE_DIR`); the verifying column is the time spent in `derive.cache.cached_verify` misses, "
        "summed over Sphinx's processes. 'vs full' is the build time ÷ the first build's.",
    ]
    if rows[0][3] + rows[0][4] == 0:
        fig.notes.append("The docs extension did not go through `derive.cache.cached_verify` (no lookups "
                         "recorded), so the verification share could not be measured.")
    fig.data = {"builds": [dict(zip(("label", "wall_s", "verify_s", "hits", "misses"), r, strict=True))
                           for r in rows]}
    return fig
