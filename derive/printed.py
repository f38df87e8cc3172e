"""Exact values against the figures a source prints (rounded as done by hand)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from .crosscheck import CrossCheck
from .i18n import fill
from .report import CheckResult, message_form

#: the message of a passing check of a printed figure (a form the catalog translates)
ROUNDS_TO = message_form("{exact} = {value} rounds to {rounded}")

_PRINTED_RE = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?([eE][+-]?\d+)?$")


def round_like(value: Any, printed: str) -> str:
    """Round an exact sympy value the way ``printed`` is written.

    ``printed`` is a decimal (``"0.6225"``, ``"-1.414"``, ``"22.6"``), an
    integer with optional thousands separators (``"3,150,336"``), or
    scientific (``"6.44e9"``). Rounding is half-up, as done by hand.

    Returns:
        ``value`` written with the same digits as ``printed``.

    Raises:
        InputError: ``printed`` is not such a figure, or ``value`` is text.
    """
    import sympy as sp

    from .exceptions import InputError

    if not isinstance(printed, str) or not _PRINTED_RE.match(printed.strip()):
        raise InputError(f"printed figure {printed!r} is not a decimal, an integer with separators or "
                         "scientific notation (e.g. '0.6225', '3,150,336', '1.74e11')")
    if isinstance(value, (str, bytes)) or not isinstance(value, (sp.Basic, int, float)):
        raise InputError(f"value must be a number or a sympy expression, not {type(value).__name__}")
    text = printed.replace(",", "").strip()
    exact = sp.Rational(value) if isinstance(value, (int, float)) else value
    if "e" in text.lower():
        mant, exp = text.lower().split("e")
        decimals = len(mant.split(".")[1]) if "." in mant else 0
        e = int(exp)
        scaled = Decimal(str(sp.N(exact / sp.Integer(10) ** e, 40)))
        q = Decimal(1).scaleb(-decimals)
        return f"{scaled.quantize(q, rounding=ROUND_HALF_UP)}e{e}"
    decimals = len(text.split(".")[1]) if "." in text else 0
    d = Decimal(str(sp.N(exact, 40)))
    q = Decimal(1).scaleb(-decimals)
    out = d.quantize(q, rounding=ROUND_HALF_UP)
    if out == 0:
        out = abs(out)  # no "-0.000"
    return str(out)


@dataclass(frozen=True)
class ValueCheck(CrossCheck):
    """An exact value against the rounding printed in a source.

    Args:
        name: what the value is (e.g. ``"softmax row 1, entry 1"``).
        exact: the exact sympy value (a closed form such as ``1/(1+exp(-1/2))``).
        printed: the figure as printed (``"0.6225"``, ``"3,150,336"``, ``"1.74e11"``).
        source: where it is printed (e.g. ``"lecture 000, §1"``).
    """

    name: str
    exact: Any
    printed: str
    source: str = ""

    def run(self, seed: int) -> CheckResult:
        import sympy as sp

        t0 = time.perf_counter()
        got = round_like(self.exact, self.printed)
        want = self.printed.replace(",", "").strip()
        if "e" in want.lower():
            m, e = want.lower().split("e")
            want = f"{Decimal(m)}e{int(e)}"
        passed = got == want
        figures = {"exact": sp.sstr(self.exact), "value": str(sp.N(self.exact, 15)), "printed": self.printed,
                   "rounded": got, "source": self.source}
        shown = sp.sstr(self.exact)
        shown = shown if len(shown) <= 80 else "exact value"
        msg = fill(ROUNDS_TO, exact=shown, value=sp.N(self.exact, 10), rounded=got) + (
            "" if passed else f", not the printed {self.printed}")
        return CheckResult(self.name, passed, figures, msg, time.perf_counter() - t0)
