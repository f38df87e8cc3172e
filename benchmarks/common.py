"""Helpers shared by the figures: timed subprocesses, the benchmark environment, results."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORKERS = Path(__file__).resolve().parent / "workers"


@dataclass
class Figure:
    """One benchmark figure: rows of (what, derive, baseline, ratio) and the targets it is judged by.

    ``status`` is ``"ok"``, or ``"skipped"`` with ``reason`` saying why (e.g. a part not merged yet).
    """

    key: str
    title: str
    status: str = "ok"
    reason: str = ""
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    targets: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def target(self, what: str, value: float, limit: float, unit: str = "s") -> None:
        self.targets.append({"what": what, "value": value, "limit": limit, "unit": unit, "met": value <= limit})

    def skip(self, reason: str) -> Figure:
        self.status, self.reason = "skipped", reason
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def bench_env(**extra: str) -> dict[str, str]:
    """The environment for measured subprocesses.

    OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are unset together (they slow a current
    numpy; both sides of every ratio run with the same environment), so is
    PYTHONDONTWRITEBYTECODE (bytecode is cached as in any installed copy), and the
    verification cache is pointed at ``extra['DERIVE_CACHE_DIR']`` when given.
    """
    # PYTHONDONTWRITEBYTECODE (set in some sandboxes) would make every run recompile derive from source,
    # which no installed copy does: measured processes may write and reuse their bytecode cache
    dropped = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(extra)
    return env


def run_timed(argv: list[str], *, env: dict[str, str] | None = None, timeout: float | None = None,
              cwd: Path | None = None) -> tuple[float, subprocess.CompletedProcess | None]:
    """Run ``argv``; return (wall seconds, completed process), or (timeout, None) when it ran out of time."""
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, env=env or bench_env(), timeout=timeout,
                              cwd=cwd or ROOT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return timeout or 0.0, None
    return time.perf_counter() - t0, proc


def best_time(argv: list[str], repeat: int, *, env: dict[str, str] | None = None) -> tuple[float, float]:
    """Shortest wall time and shortest CPU time (user + sys) of ``repeat`` runs of ``argv``, after a warm-up.

    The minimum, as ``timeit`` advises: on a shared machine longer runs measure the neighbours. CPU
    time is read from ``getrusage(RUSAGE_CHILDREN)`` around each run (runs are sequential).
    """
    import resource

    run_timed(argv, env=env)
    times, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds, proc = run_timed(argv, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc is None or proc.returncode not in (0, 2):
            raise RuntimeError(f"{' '.join(argv)} failed: {proc.stderr[-500:] if proc else 'timeout'}")
        times.append(seconds)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return min(times), min(cpus)


def worker(name: str, *args: str, timeout: float | None = None, env: dict[str, str] | None = None
           ) -> tuple[float, dict | None]:
    """Run ``benchmarks/workers/NAME.py ARGS`` and parse the JSON it prints last; (wall, data or None)."""
    seconds, proc = run_timed([sys.executable, str(WORKERS / f"{name}.py"), *args], env=env, timeout=timeout)
    if proc is None:
        return seconds, None
    if proc.returncode != 0:
        raise RuntimeError(f"worker {name} {' '.join(args)} failed:\n{proc.stderr[-2000:]}")
    return seconds, json.loads(proc.stdout.strip().splitlines()[-1])


def derive_command() -> list[str]:
    """The installed ``derive`` console script beside this interpreter, or ``python -m derive``."""
    script = Path(sys.executable).with_name("derive")
    return [str(script)] if script.exists() else [sys.executable, "-m", "derive"]


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    import numpy
    import sympy

    info: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "sympy": sympy.__version__,
        "numpy": numpy.__version__,
        "openblas_env_unset_for_measurements": ["OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"],
    }
    try:
        from derive import __version__

        info["derive"] = __version__
    except ImportError:  # pragma: no cover
        pass
    return info


def fmt_s(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds == 0:
        return "0 s"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def ratio(baseline: float | None, ours: float | None) -> float | None:
    """baseline / ours: above 1 means derive is faster than the baseline."""
    if not baseline or not ours:
        return None
    return baseline / ours


def fmt_ratio(r: float | None) -> str:
    return "—" if r is None else (f"{r:,.0f}×" if r >= 100 else f"{r:.2f}×")
