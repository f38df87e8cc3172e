"""Run settings of a verification: seed, float tolerances, time budget.

One home for the knobs that a user may turn from the command line or from
pytest (``derive check --seed``, ``pytest --derive-seed/--derive-atol/
--derive-rtol``). This module imports nothing heavy (no numpy, no sympy), so
the pytest plugin can report the settings in its header for free.

The *active* settings live in a context variable (``contextvars``): callers
change them for a block with :func:`using` (the pytest plugin does so around
each test) instead of mutating module globals, so a setting never leaks from
one test, thread or task into another. Functions that take an explicit
argument (``verify(..., seed=...)``) use it before the active settings.
"""

from __future__ import annotations

import contextlib
import math
import zlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, fields, replace

from .exceptions import InputError

#: Base seed of every random draw (the day "Attention Is All You Need" appeared on arXiv).
DEFAULT_SEED = 20170612

#: Absolute tolerance of the float64 screening of numeric identity checks.
DEFAULT_ATOL = 1e-12

#: Relative tolerance of the float64 screening of numeric identity checks.
DEFAULT_RTOL = 1e-9

#: Per-step budget in CPU seconds for the symbolic work of one step (the numeric witness and counterexample
#: search are bounded by a count of evaluated nodes and have a reserve as large again: see docs/proved.md).
DEFAULT_BUDGET = 10.0


#: Help text of each setting's command-line option (``derive check --atol``, ``pytest --derive-atol``...).
OPTION_HELP = {
    "seed": f"base seed of every random draw (default {DEFAULT_SEED})",
    "atol": f"absolute tolerance of the float64 screen of numeric checks (default {DEFAULT_ATOL:g})",
    "rtol": f"relative tolerance of the float64 screen of numeric checks (default {DEFAULT_RTOL:g})",
    "budget": (f"CPU seconds per step for its symbolic work; the numeric checks get as much again "
               f"(default {DEFAULT_BUDGET:g})"),
}


@dataclass(frozen=True)
class Settings:
    """Settings of one verification run.

    Attributes:
        seed: base seed (non-negative integer); every step and cross-check
            derives its own seed from it and the derivation's name, and
            reports that seed.
        atol: absolute tolerance (≥ 0) under which the float64 screen of an
            identity check calls two values equal. It only decides which
            points are looked at again: a step is refuted only by a gap
            confirmed at 60 significant digits.
        rtol: relative tolerance (≥ 0) of the same screen.
        budget: CPU seconds (> 0, ≤ 3600) for the symbolic work of one step; its numeric checks get as much again.

    Raises:
        InputError: a value of the wrong type or out of range.
    """

    seed: int = DEFAULT_SEED
    atol: float = DEFAULT_ATOL
    rtol: float = DEFAULT_RTOL
    budget: float = DEFAULT_BUDGET

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise InputError(f"seed must be a non-negative integer, got {self.seed!r}")
        for name in ("atol", "rtol"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0:
                raise InputError(f"{name} must be a finite number >= 0, got {value!r}")
            object.__setattr__(self, name, float(value))
        b = self.budget
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not (0 < b <= 3600):
            raise InputError(f"budget must be between 0 and 3600 seconds, got {b!r}")
        object.__setattr__(self, "budget", float(b))

    def merged(self, **overrides: object) -> Settings:
        """A copy with the overrides that are not ``None`` applied (validated)."""
        known = {f.name for f in fields(self)}
        unknown = set(overrides) - known
        if unknown:
            raise InputError(f"unknown setting(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(known))}")
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})

    def header(self) -> str:
        """One line for reports, e.g. ``seed 20170612, atol 1e-12, rtol 1e-09, budget 10 s``."""
        return f"seed {self.seed}, atol {self.atol:g}, rtol {self.rtol:g}, budget {self.budget:g} s"


_ACTIVE: ContextVar[Settings] = ContextVar("derive_settings", default=Settings())  # noqa: B039 - frozen


def current() -> Settings:
    """The active settings (the defaults unless inside :func:`using`)."""
    return _ACTIVE.get()


@contextlib.contextmanager
def using(settings: Settings | None = None, **overrides: object) -> Iterator[Settings]:
    """Make ``settings`` (or the active ones with ``overrides``) active inside the block.

    Example::

        with using(seed=7, rtol=1e-6):
            report = derive.check(my_derivation)
    """
    base = settings if settings is not None else current()
    new = base.merged(**overrides)
    token = _ACTIVE.set(new)
    try:
        yield new
    finally:
        _ACTIVE.reset(token)


def derived_seed(base: int, *labels: str) -> int:
    """A stable 32-bit seed for ``labels`` (a name, a step number) from ``base``.

    Uses CRC-32 so it does not change between runs or Python versions
    (unlike ``hash``).
    """
    text = "/".join(labels).encode()
    return (zlib.crc32(text) ^ (base & 0xFFFFFFFF)) & 0xFFFFFFFF
