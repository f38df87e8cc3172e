"""Helpers shared by the worked examples: value checks of whole matrices, float-vs-printed errors.

Imports numpy and :mod:`derive.numeric` only (sympy inside functions).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..i18n import fill
from ..numeric import ValueCheck, round_like
from ..printed import ROUNDS_TO
from ..report import CheckResult


def grid_errors(got: np.ndarray, exact_rows: list, printed: tuple) -> tuple[float, float]:
    """Compare a float64 matrix with its exact values and with a printed table.

    Args:
        got: float64 array ``(rows, cols)``.
        exact_rows: the exact values as floats, same shape.
        printed: the table as printed (strings), same shape.

    Returns:
        ``(max |got − exact|, max |got − printed| in half-units of each figure's last digit)``;
        the second is ≤ 1 when every printed figure is a correct rounding of ``got``.
    """
    worst_printed = 0.0
    for r, row in enumerate(printed):
        for c, p in enumerate(row):
            decimals = len(p.split(".")[1]) if "." in p else 0
            worst_printed = max(worst_printed, abs(got[r, c] - float(p)) / (0.5 * 10.0**-decimals))
    return float(np.max(np.abs(got - np.array(exact_rows, dtype=np.float64)))), worst_printed


@lru_cache(maxsize=16)
def _floats(at: tuple, digits: int) -> dict:
    import sympy as sp

    return {k: sp.N(v, digits) for k, v in at}


def at_values(expr, at: tuple, digits: int = 50):
    """``expr`` to ``digits`` digits with its symbols at the exact values ``at`` (as floats of 10 more digits)."""
    import sympy as sp

    return sp.N(expr.xreplace(_floats(at, digits + 10)), digits)


@dataclass(frozen=True)
class ValueAt(ValueCheck):
    """A :class:`~derive.numeric.ValueCheck` of an exact expression in named constants.

    ``exact`` is written with symbols (α, β) whose exact values are in ``at``
    (``((symbol, value), ...)``). Each constant is evaluated to 60 significant
    digits and the expression is then evaluated at 50 digits: far faster than
    expanding the definitions into it, and the error is far below the printed digits.
    """

    at: tuple = ()

    def run(self, seed: int) -> CheckResult:
        import sympy as sp

        t0 = time.perf_counter()
        value = at_values(self.exact, self.at)
        got = round_like(value, self.printed)
        passed = got == self.printed.replace(",", "").strip()
        where = ", ".join(f"{k} = {sp.sstr(v)}" for k, v in self.at)
        shown = sp.sstr(self.exact)
        figures = {"exact": shown, "where": where, "value": str(sp.N(value, 15)),
                   "printed": self.printed, "rounded": got, "source": self.source}
        msg = fill(ROUNDS_TO, exact=shown if len(shown) <= 80 else "exact value", value=sp.N(value, 10),
                   rounded=got) + (
            "" if passed else f", not the printed {self.printed}")
        return CheckResult(self.name, passed, figures, msg, time.perf_counter() - t0)


def matrix_checks(label: str, exact, printed: tuple, source: str, at: tuple = ()) -> list:
    """One check per entry of ``exact`` (a sympy matrix) against the rows of ``printed``, named ``label[r,c]``.

    Entries with free symbols get a :class:`ValueAt` with the values ``at``; the others a ValueCheck.
    """
    out = []
    for r, row in enumerate(printed):
        for c, p in enumerate(row):
            v, name = exact[r, c], f"{label}[{r + 1},{c + 1}]"
            out.append(ValueAt(name, v, p, source, at) if at and v.free_symbols else ValueCheck(name, v, p, source))
    return out
