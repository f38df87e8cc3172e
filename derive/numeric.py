"""Numeric evidence: random-point evaluation, counterexamples, Monte Carlo.

Two jobs live here.

1. **Counterexample search** for the verifier: both sides of a step are
   evaluated at seeded random points drawn from the symbols' domains
   (positive, integer, real...), first with numpy through ``lambdify``, then
   every suspected disagreement is re-evaluated with sympy's arbitrary
   precision ``evalf`` at the same *exact* (rational) point. A step is refuted
   only if the gap survives at 60 significant digits, so float rounding can
   never refute a true identity.
2. **Cross-checks** attached to a derivation (:class:`CrossCheck`): identity
   checks at random points, Monte Carlo checks of statistical claims with a
   stated false-rejection probability and power against wrong values, exact
   values against a printed rounding, and free-form checks.

Every random draw is seeded; the seed is in every result.
"""

from __future__ import annotations

import math
import re
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from statistics import NormalDist
from typing import Any

import numpy as np

from .report import CheckResult, Counterexample
from .settings import DEFAULT_ATOL, DEFAULT_RTOL, current
from .settings import DEFAULT_SEED as _DEFAULT_SEED

#: Base seed of every random draw (its home is :mod:`derive.settings`); change it with
#: ``derive check --seed`` or ``pytest --derive-seed``.
DEFAULT_SEED = _DEFAULT_SEED

#: Working precision (significant digits) of the confirming evaluation.
CONFIRM_DIGITS = 60

#: Most digits sympy may use internally to reach :data:`CONFIRM_DIGITS` correct
#: digits (cancellation of terms as large as e^1000 needs ~450); past it the
#: point is skipped, never read as a disagreement.
CONFIRM_MAXN = 1000

#: Default tolerances of the float screening stage (the active ones come from
#: :func:`derive.settings.current`; change them with ``derive.settings.using``).
SCREEN_RTOL = DEFAULT_RTOL
SCREEN_ATOL = DEFAULT_ATOL


def derived_seed(base: int, *labels: str) -> int:
    """A stable 32-bit seed for ``labels`` (a name, a step number) from ``base``.

    Uses CRC-32 so it does not change between runs or Python versions
    (unlike ``hash``).
    """
    text = "/".join(labels).encode()
    return (zlib.crc32(text) ^ (base & 0xFFFFFFFF)) & 0xFFFFFFFF


# ----------------------------------------------------------------------------
# Points
# ----------------------------------------------------------------------------


def _rational(sp: Any, x: float, denom: int = 64) -> Any:
    return sp.Rational(round(x * denom), denom)


def _satisfies(value: Any, obj: Any) -> bool:
    """Does the exact number ``value`` have every property ``obj`` assumes (even, prime, nonzero...)?"""
    facts = getattr(obj, "assumptions0", {})
    return all(getattr(value, f"is_{key}", None) is fact for key, fact in facts.items() if isinstance(fact, bool))


def _draw(sp: Any, obj: Any, rng: np.random.Generator, ints_upto: int) -> Any:
    """An exact random value in the domain that ``obj``'s assumptions allow, or ``None``.

    The value is drawn from the broad domain (integer, positive, ...) and kept
    only if it satisfies *every* assumption of ``obj`` (``even``, ``prime``,
    ``nonzero``...); after 50 misses (e.g. ``irrational=True``, which no
    rational point satisfies) there is no value: a point outside the domain
    could refute a true claim.
    """
    for _ in range(50):
        value = _draw_broad(sp, obj, rng, ints_upto)
        if _satisfies(value, obj):
            return value
    return None


def _draw_broad(sp: Any, obj: Any, rng: np.random.Generator, ints_upto: int) -> Any:
    if obj.is_integer:
        lo = 1 if obj.is_positive else (0 if obj.is_nonnegative else -ints_upto)
        return sp.Integer(int(rng.integers(lo, ints_upto + 1)))
    if obj.is_positive:
        return _rational(sp, rng.uniform(0.25, 3.0)) or sp.Rational(1, 4)
    if obj.is_nonnegative:
        return _rational(sp, rng.uniform(0.0, 3.0))
    if obj.is_negative:
        return -(_rational(sp, rng.uniform(0.25, 3.0)) or sp.Rational(1, 4))
    return _rational(sp, rng.uniform(-3.0, 3.0))


def _order(obj: Any) -> tuple[str, str]:
    """A total, process-independent order of symbols: two symbols may share a name but not assumptions.

    (Sorting by name alone leaves such ties in set order, which follows hash
    randomisation, so the random point would change from run to run.)
    """
    from sympy import srepr

    return str(obj), srepr(obj)


def _length_symbols(sp: Any, expr: Any) -> set:
    """Symbols used as bounds of sums or products (symbolic lengths)."""
    out = set()
    for node in expr.atoms(sp.Sum, sp.Product):
        for limit in node.limits:
            for bound in limit[1:]:
                out |= bound.free_symbols
    return out


def _unroll_finite_sums(sp: Any, expr: Any) -> Any:
    """Write every ``Sum`` whose bounds are integers as the explicit sum of its terms.

    This is what ``Sum.doit`` ends up doing for such sums, without first
    trying closed forms (partial fractions, hypergeometric forms), which made
    it the slowest part of a random-point check. Sums it cannot unroll this
    way (a bound that is not an integer yet, a reversed range, a bound
    variable reused inside) are left to ``doit``.
    """

    def finite(node: Any) -> bool:
        # the outermost range (the last limit) must be integers; inner ranges may depend on it
        if not isinstance(node, sp.Sum):
            return False
        var, *bounds = node.limits[-1]
        if len(bounds) != 2 or not (bounds[0].is_Integer and bounds[1].is_Integer) or bounds[1] < bounds[0] - 1:
            return False
        inner = node.function.atoms(sp.Sum, sp.Product, sp.Integral)
        rebound = [lim[0] for lim in node.limits[:-1]] + [lim[0] for n in inner for lim in n.limits]
        return var not in rebound

    def unroll(node: Any) -> Any:
        var, lo, hi = node.limits[-1]
        body = sp.Sum(node.function, *node.limits[:-1]) if len(node.limits) > 1 else node.function
        return sp.Add(*[body.xreplace({var: sp.Integer(k)}) for k in range(int(lo), int(hi) + 1)])

    for _ in range(16):  # one pass per level of nesting
        new = expr.replace(finite, unroll)
        if new == expr:
            break
        expr = new
    return expr


def concretize(exprs: Sequence[Any], rng: np.random.Generator, max_len: int = 5) -> tuple[list, dict]:
    """Replace every free symbol and indexed value of ``exprs`` by an exact random value.

    Symbolic lengths (bounds of ``Sum``) get small integers (1..``max_len``), the
    sums are then expanded with ``doit``, and each indexed element (``z[1]``,
    ``z[2]``...) gets its own value from its base's domain. Free integer
    symbols used as indices are drawn inside the smallest length. Matrix
    symbols become explicit random matrices once their shape is a number.

    Returns:
        ``(values, point)``: the concretized expressions and the point used
        (name -> exact value), or ``([], {})``-style values containing free
        symbols when something could not be made numeric.
    """
    import sympy as sp

    exprs = [sp.sympify(e, strict=True) for e in exprs]  # numbers and sympy objects only: text is never parsed
    point: dict = {}
    lengths: set = set()
    for e in exprs:
        lengths |= _length_symbols(sp, e)
    for s in sorted(lengths, key=_order):
        for _ in range(50):
            value = sp.Integer(int(rng.integers(1, max_len + 1)))
            if _satisfies(value, s):
                point[s] = value
                break
    smallest = min((int(v) for v in point.values()), default=max_len)
    free: set = set()
    labels: set = set()
    matrices: set = set()
    for e in exprs:
        free |= e.free_symbols
        labels |= {idx.base.label for idx in e.atoms(sp.Indexed)}
        matrices |= e.atoms(sp.MatrixSymbol)
    for m in matrices:  # a symbolic shape (n×n) hides n from free_symbols
        free |= set().union(*(sp.sympify(size, strict=True).free_symbols for size in m.shape))
    for s in sorted(free - lengths - labels, key=_order):
        if isinstance(s, sp.Symbol):
            value = _draw(sp, s, rng, smallest if s.is_integer else max_len)
            if value is not None:
                point[s] = value
    # matrix symbols (A, or C of symbolic shape n×n once n is drawn): explicit random matrices
    for m in sorted(matrices, key=_order):
        rows, cols = (sp.sympify(size, strict=True).xreplace(point) for size in m.shape)
        if rows.is_Integer and cols.is_Integer and 0 < rows * cols <= 400:
            point[m] = sp.ImmutableMatrix(int(rows), int(cols),
                                          [_rational(sp, rng.uniform(-3.0, 3.0)) for _ in range(rows * cols)])
    out = []
    for e in exprs:
        # derivatives are taken before the point is put in (d/dx at x = 9/16 is not "d/d(9/16)")
        if isinstance(e, sp.Basic) and e.has(sp.Derivative):
            e = e.replace(lambda node: isinstance(node, sp.Derivative), lambda node: node.doit())
        try:
            v = e.xreplace(point) if point else e
        except (ValueError, TypeError):  # an unevaluated derivative of an undefined function
            out.append(e)
            continue
        v = _unroll_finite_sums(sp, v) if isinstance(v, sp.Basic) else v
        v = v.doit()
        out.append(v)
    indexed: set = set()
    for v in out:
        indexed |= v.atoms(sp.Indexed)
    extra = {}
    for idx in sorted(indexed, key=_order):
        value = _draw(sp, idx, rng, max_len)
        if value is not None:
            extra[idx] = value
    if extra:
        out = [v.xreplace(extra) for v in out]
        point.update(extra)
    return out, point


def _flatten(sp: Any, value: Any) -> list:
    if isinstance(value, sp.MatrixBase):
        return list(value)
    return [value]


def is_numeric(sp: Any, value: Any) -> bool:
    """True when ``value`` has no free symbols, undefined functions or indices."""
    for v in _flatten(sp, value):
        if v.free_symbols or v.atoms(sp.Indexed) or v.atoms(sp.core.function.AppliedUndef):
            return False
        # operators such as an unevaluated expectation have no value at a point
        if any(getattr(f, "numeric_value", True) is False for f in v.atoms(sp.Function)):
            return False
    return True


_RELATION_HOLDS = {
    "=": lambda a, b, tol: abs(a - b) <= tol,
    "<=": lambda a, b, tol: a <= b + tol,
    "<": lambda a, b, tol: a < b + tol,
    ">=": lambda a, b, tol: a >= b - tol,
    ">": lambda a, b, tol: a > b - tol,
}


def _float_screen(sp: Any, a: Any, b: Any, relation: str, atol: float = SCREEN_ATOL,
                  rtol: float = SCREEN_RTOL) -> bool | None:
    """Float64 (numpy) screening: True = looks fine, False = suspicious, None = can't say."""
    # the values are numbers already: evalf at float precision is far cheaper
    # than compiling a lambdified function per value, and no less accurate
    try:
        fa = np.array([complex(x.evalf(15)) for x in _flatten(sp, a)])
        fb = np.array([complex(x.evalf(15)) for x in _flatten(sp, b)])
    except Exception:  # noqa: BLE001 - anything evalf cannot turn into a number is "can't say"
        return None
    if fa.shape != fb.shape or not (np.all(np.isfinite(fa)) and np.all(np.isfinite(fb))):
        return None
    if relation == "=":
        tol = atol + rtol * np.maximum(np.abs(fa), np.abs(fb))
        return bool(np.all(np.abs(fa - fb) <= tol))
    if np.any(np.abs(fa.imag) > 1e-12) or np.any(np.abs(fb.imag) > 1e-12):
        return None
    tol = atol + rtol * np.maximum(np.abs(fa.real), np.abs(fb.real))
    ok = _RELATION_HOLDS[relation]
    return bool(all(ok(x, y, t) for x, y, t in zip(fa.real, fb.real, tol, strict=False)))


def _precise(sp: Any, x: Any) -> Any:
    """``x`` to :data:`CONFIRM_DIGITS` correct digits, or ``None`` if sympy cannot guarantee them.

    ``evalf`` without ``strict`` may silently return a value with no correct
    digit at all (``0.e+244`` for ``e^1000·(1 + x e^-1000) − e^1000``);
    with ``strict=True`` it raises instead, and such a point proves nothing.
    """
    try:
        value = x.evalf(CONFIRM_DIGITS, strict=True, maxn=CONFIRM_MAXN)
    except Exception:  # noqa: BLE001 - PrecisionExhausted, or an expression evalf cannot handle
        return None
    if not value.is_number or value.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        return None  # undefined at this point (0/0, a pole): not a counterexample
    return value


def _confirm(sp: Any, a: Any, b: Any, relation: str) -> tuple[bool, str, str, str] | None:
    """High-precision check; returns (violated, lhs, rhs, gap) or None if it cannot decide.

    Both sides are evaluated to :data:`CONFIRM_DIGITS` guaranteed digits; a
    disagreement counts only when it exceeds ``10^-(CONFIRM_DIGITS-15)`` times
    the larger magnitude (at least 1), far above the evaluation error.
    """
    flat_a, flat_b = _flatten(sp, a), _flatten(sp, b)
    if len(flat_a) != len(flat_b):
        return True, str(a), str(b), "shape mismatch"
    for xa, xb in zip(flat_a, flat_b, strict=True):
        x, y = _precise(sp, xa), _precise(sp, xb)
        if x is None or y is None:
            return None
        gap = abs(sp.N(x - y, CONFIRM_DIGITS))
        scale = max(abs(sp.N(x, 20)), abs(sp.N(y, 20)), sp.Integer(1))
        # what 60 digits cannot resolve is not a disagreement
        tol = scale * sp.Float(10) ** (-(CONFIRM_DIGITS - 15))
        if relation == "=":
            violated = bool(gap > tol)
        else:
            if not (x.is_real and y.is_real):
                return None
            violated = not _RELATION_HOLDS[relation](x, y, tol)
        if violated:
            # enough digits that the two printed values differ (12 unless they agree further)
            digits = 12 if gap == 0 else min(CONFIRM_DIGITS, max(12, int(-sp.log(gap / scale, 10).evalf()) + 4))
            return True, _short(sp, x, digits), _short(sp, y, digits), _short(sp, gap)
    return False, "", "", ""


def _short(sp: Any, x: Any, digits: int = 12) -> str:
    if isinstance(x, sp.MatrixBase):
        return str(x)
    try:
        return str(sp.N(x, digits))
    except Exception:  # noqa: BLE001
        return str(x)


def find_counterexample(
    before: Any,
    after: Any,
    relation: str = "=",
    *,
    seed: int = DEFAULT_SEED,
    n_points: int = 12,
    confirm_all: bool = False,
    atol: float | None = None,
    rtol: float | None = None,
) -> tuple[Counterexample | None, int]:
    """Search for a point where ``before relation after`` fails.

    Args:
        before, after: sympy expressions (or matrices of the same shape).
        relation: ``"="``, ``"<="``, ``"<"``, ``">="`` or ``">"``.
        seed: seed of the random points (reported through the caller).
        n_points: how many random points to try.
        confirm_all: evaluate every point at high precision, not only those
            the float64 screen finds suspicious (the verifier does so for a
            step no strategy proved, so a claim off by 1e-30 is refuted too).
        atol, rtol: tolerances of the float64 screen (default: the active
            :mod:`derive.settings`).

    Returns:
        ``(counterexample or None, number of points actually evaluated)``.
        Points that cannot be made numeric (undefined functions, operators
        such as an unevaluated expectation) are skipped and not counted.
    """
    import sympy as sp

    active = current()
    atol = active.atol if atol is None else atol
    rtol = active.rtol if rtol is None else rtol
    rng = np.random.default_rng(seed)
    evaluated = 0
    for _ in range(n_points):
        (a, b), point = concretize([before, after], rng)
        if not (is_numeric(sp, a) and is_numeric(sp, b)):
            continue
        screen = _float_screen(sp, a, b, relation, atol, rtol)
        if screen is True and not confirm_all:
            evaluated += 1
            continue
        confirmed = _confirm(sp, a, b, relation)
        if confirmed is None:
            continue  # undefined or not resolvable at this point: it shows nothing either way
        evaluated += 1
        if confirmed and confirmed[0]:
            return (
                Counterexample(
                    point={str(k): str(v) for k, v in point.items()},
                    lhs=confirmed[1],
                    rhs=confirmed[2],
                    gap=confirmed[3],
                    digits=CONFIRM_DIGITS,
                ),
                evaluated,
            )
    return None, evaluated


# ----------------------------------------------------------------------------
# Cross-checks
# ----------------------------------------------------------------------------


class CrossCheck:
    """Base class of a numeric cross-check attached to a derivation.

    Subclasses implement :meth:`run`, which receives the seed to use and
    returns a :class:`~derive.report.CheckResult` whose ``figures`` report
    every number behind the outcome, the seed included.
    """

    #: what is checked, for reports (a dataclass field in each subclass)
    name: str

    def run(self, seed: int) -> CheckResult:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True)
class IdentityCheck(CrossCheck):
    """Evaluate ``lhs relation rhs`` at ``n_points`` random points.

    The points come from the symbols' assumptions (see :func:`concretize`);
    values the float64 screen finds equal within ``atol + rtol·|value|``
    pass, any other point must be confirmed at :data:`CONFIRM_DIGITS` digits
    before the check fails. ``atol``/``rtol`` default to the active
    :mod:`derive.settings` (``pytest --derive-atol/--derive-rtol``).
    """

    lhs: Any
    rhs: Any
    name: str = "identity at random points"
    relation: str = "="
    n_points: int = 20
    atol: float | None = None
    rtol: float | None = None

    def run(self, seed: int) -> CheckResult:
        t0 = time.perf_counter()
        active = current()
        atol = active.atol if self.atol is None else self.atol
        rtol = active.rtol if self.rtol is None else self.rtol
        cex, evaluated = find_counterexample(self.lhs, self.rhs, self.relation, seed=seed, n_points=self.n_points,
                                             atol=atol, rtol=rtol)
        figures = {"points": evaluated, "seed": seed, "atol": atol, "rtol": rtol}
        if cex is not None:
            return CheckResult(self.name, False, {**figures, "counterexample": str(cex)},
                               f"fails {cex}", time.perf_counter() - t0)
        if evaluated == 0:
            return CheckResult(self.name, False, figures, "no point could be evaluated numerically",
                               time.perf_counter() - t0)
        return CheckResult(self.name, True, figures, f"holds at {evaluated} random points",
                           time.perf_counter() - t0)


#: False-rejection probability of every Monte Carlo check (two-sided).
MC_FALSE_REJECTION = 1e-6


#: Draws in the first chunk of a Monte Carlo check, whose memory is measured.
MC_PROBE = 1024

#: Memory a Monte Carlo chunk may use inside the sampler (bytes).
MC_CHUNK_BYTES = 32 * 2**20


def _measured(sampler: Callable, rng: np.random.Generator, size: int) -> tuple[np.ndarray, float]:
    """Call ``sampler(rng, size)``; return the draws and the peak bytes it used per draw."""
    import tracemalloc

    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    try:
        x = np.asarray(sampler(rng, size), dtype=np.float64)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        if started:
            tracemalloc.stop()
    return x, max(peak, x.nbytes, 8) / max(size, 1)


def _chunk_size(per_draw: float, budget: int, most: int) -> int:
    """Draws per chunk: what fits in ``budget`` bytes, a power of two, between 1 and ``most``."""
    fit = max(1, int(budget // per_draw))
    return max(1, min(most, 1 << (fit.bit_length() - 1)))


@dataclass(frozen=True)
class MonteCarloCheck(CrossCheck):
    """Estimate E[X] by sampling and compare it with a claimed value.

    The estimate is the sample mean of ``n`` draws of the statistic, drawn in
    chunks so memory stays bounded whatever ``n`` and the dimension: a first
    probe chunk of at most ``MC_PROBE`` draws measures (with
    ``tracemalloc``, which sees numpy's buffers) the peak memory one draw
    costs inside the sampler, and the following chunks hold as many draws as
    fit in ``chunk_bytes`` (rounded down to a power of two so the chunking,
    and hence the seeded result, is reproducible), never more than ``chunk``.

    The check passes when ``|estimate - expected| <= z·se`` where
    ``se`` is the estimated standard error and ``z`` the two-sided normal
    quantile for ``false_rejection`` (CLT approximation; z ≈ 4.89 for 1e-6).
    Each value in ``alternatives`` (a wrong claim) must be *outside* the
    bound: that is the power check; if a wrong value would also pass, the
    check fails as too weak.

    Args:
        name: what is estimated, for reports.
        sampler: ``sampler(rng, size) -> ndarray`` of ``size`` draws of X.
        expected: the claimed E[X].
        n: number of draws.
        chunk: most draws per chunk.
        alternatives: wrong values the check must reject.
        false_rejection: probability of failing a true claim.
        chunk_bytes: memory one chunk may use inside the sampler (bytes,
            default ``MC_CHUNK_BYTES``).
    """

    name: str
    sampler: Callable[[np.random.Generator, int], np.ndarray]
    expected: float
    n: int = 200_000
    chunk: int = 50_000
    alternatives: tuple[float, ...] = ()
    false_rejection: float = MC_FALSE_REJECTION
    chunk_bytes: int = MC_CHUNK_BYTES
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    def estimate(self, seed: int) -> dict[str, float]:
        """Run the sampler; return n, mean, standard error (chunk-merged moments)."""
        rng = np.random.default_rng(seed)
        count, mean, m2 = 0, 0.0, 0.0
        remaining = self.n
        chunk = min(self.chunk, MC_PROBE)
        while remaining > 0:
            size = min(chunk, remaining)
            if count == 0:
                x, per_draw = _measured(self.sampler, rng, size)
                chunk = _chunk_size(per_draw, self.chunk_bytes, self.chunk)
            else:
                x = np.asarray(self.sampler(rng, size), dtype=np.float64)
            c_mean = float(x.mean())
            c_m2 = float(((x - c_mean) ** 2).sum())
            total = count + size
            delta = c_mean - mean
            mean += delta * size / total
            m2 += c_m2 + delta * delta * count * size / total
            count = total
            remaining -= size
        var = m2 / (count - 1) if count > 1 else float("inf")
        return {"n": count, "estimate": mean, "std_error": math.sqrt(var / count), "chunk": chunk}

    def run(self, seed: int) -> CheckResult:
        t0 = time.perf_counter()
        est = self.estimate(seed)
        z = NormalDist().inv_cdf(1 - self.false_rejection / 2)
        bound = z * est["std_error"]
        gap = abs(est["estimate"] - self.expected)
        passed = gap <= bound
        weak = [a for a in self.alternatives if abs(est["estimate"] - a) <= bound]
        figures = {
            **est,
            "expected": self.expected,
            "bound": bound,
            "z": z,
            "false_rejection": self.false_rejection,
            "seed": seed,
            "alternatives_rejected": [a for a in self.alternatives if a not in weak],
            **self.meta,
        }
        if not passed:
            msg = (f"estimate {est['estimate']:.6g} is {gap:.3g} from the claimed {self.expected:.6g}, "
                   f"beyond the bound {bound:.3g}")
        elif weak:
            msg = f"too weak: cannot reject the wrong value(s) {weak}"
            passed = False
        else:
            msg = f"estimate {est['estimate']:.6g} ± {bound:.3g} (n={est['n']:,}) agrees with {self.expected:.6g}"
        return CheckResult(self.name, passed, figures, msg, time.perf_counter() - t0)


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
        msg = f"{shown} = {sp.N(self.exact, 10)} rounds to {got}" + (
            "" if passed else f", not the printed {self.printed}")
        return CheckResult(self.name, passed, figures, msg, time.perf_counter() - t0)


@dataclass(frozen=True)
class FunctionCheck(CrossCheck):
    """A free-form check: ``func(seed) -> (passed, figures, message)``.

    For evidence that is not an identity or an average, e.g. that the naive
    softmax overflows in float64 while the shifted one does not.
    """

    name: str
    func: Callable[[int], tuple[bool, dict, str]]

    def run(self, seed: int) -> CheckResult:
        t0 = time.perf_counter()
        passed, figures, message = self.func(seed)
        return CheckResult(self.name, bool(passed), {**figures, "seed": seed}, message, time.perf_counter() - t0)
