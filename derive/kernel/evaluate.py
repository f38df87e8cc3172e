"""An independent numeric evaluation of sympy expressions with mpmath.

This is the kernel's second witness. It walks the expression tree itself and
never asks sympy for a value: no ``doit()``, no ``evalf``, no closed form sympy
produced. Operators are evaluated numerically from their definitions:

* ``Integral`` by tanh-sinh quadrature (``mpmath.quad``), split at the
  breakpoints of ``Abs``/``Min``/``Max``/``Piecewise``/… in the integration
  variable and at the peaks of ``exp`` of a quadratic, with the quadrature's
  error estimate checked; over an infinite range only when the integrand
  decays far out (else ``Undefined``: the integral diverges);
* ``Sum``/``Product`` with finite bounds term by term (inner bounds may use
  outer indices; Karr's convention for reversed ranges, as sympy defines it),
  infinite ones by ``mpmath.nsum`` (of the logarithms, for a product) with its
  error estimate checked, when their terms tend to 0 (else ``Undefined``);
* ``Derivative`` by ``mpmath.diff``; ``Limit`` by ``mpmath.limit``.

Exact rationals stay exact (:class:`fractions.Fraction`) through ``+``, ``×``
and integer powers, so ``floor``, ``ceiling``, ``Min``, ``Max``, ``Abs``,
``sign``, ``Heaviside``, ``KroneckerDelta`` and ``Piecewise`` conditions are
decided exactly at rational points, including their breakpoints. An inexact
argument within 10^(−0.6·digits) of a breakpoint raises :class:`Unreliable`:
the value cannot be decided at this precision, and a point that cannot be
decided is no evidence either way.

The evaluator raises ``NotEvaluable`` when the expression has no numeric
value here (a free symbol without a value, an undefined function, an operator
such as E[·]), ``Unreliable`` when a value exists but this precision cannot pin
it down, and ``Undefined`` when the expression is undefined at the point (0/0,
a pole, zoo).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp

from . import limits
from .points import ExactReal

#: Most terms summed one by one; beyond, a finite sum is not evaluated.
MAX_TERMS = 20_000


class NotEvaluable(Exception):
    """The expression has no numeric value at this point."""


class Unreliable(Exception):
    """The value cannot be determined reliably at this precision."""


class Undefined(Exception):
    """The expression is undefined at this point."""


Value = Any  # Fraction | mpmath.mpf | mpmath.mpc


def to_mp(v: Value) -> Any:
    """A Fraction or mpmath number as an mpmath number (at the working precision)."""
    if type(v) is _MPF_TYPE:  # the common case first (isinstance of Fraction, an ABC, is slow for an mpf)
        return v
    if isinstance(v, Fraction):
        # remembered per precision: the same constants (½, a point's values) are converted at every sample
        # of an integrand or a limit, and an mpf is immutable (the conversion is the same every time)
        key = (v.numerator, v.denominator, mpmath.mp.prec)
        hit = _MPF.get(key)
        if hit is None:
            if len(_MPF) > 65536:
                _MPF.clear()
            hit = _MPF[key] = mpmath.mpf(v.numerator) / v.denominator
        return hit
    if isinstance(v, int):
        return mpmath.mpf(v)
    return v


#: Fractions as mpmath numbers, by (numerator, denominator, binary precision)
_MPF: dict = {}
#: the types of mpmath's real and complex numbers (of its global context)
_MPF_TYPE, _MPC_TYPE = type(mpmath.mpf(1)), type(mpmath.mpc(1, 1))


def _all_exact(vals: list) -> bool:
    """Are all ``vals`` Fractions? (``all(_is_exact(v) ...)``, without the slow ABC test for an mpmath number.)"""
    for v in vals:
        t = type(v)
        if t is Fraction:
            continue
        if t is _MPF_TYPE or t is _MPC_TYPE or not isinstance(v, Fraction):
            return False
    return True


def _is_exact(v: Value) -> bool:
    return isinstance(v, Fraction)


def _real(v: Value) -> Any:
    """``v`` as a real number (Fraction or mpf); complex with a non-zero imaginary part is NotEvaluable."""
    if isinstance(v, Fraction):
        return v
    if isinstance(v, mpmath.mpc):
        if v.imag != 0:
            if abs(v.imag) > _tiny(v.real):
                raise NotEvaluable("a real-valued function of a complex argument")
            raise Unreliable("an argument whose imaginary part is rounding noise")
        return v.real
    return v


def _tiny(scale: Any) -> Any:
    """The distance below which an inexact value is indistinguishable from a breakpoint."""
    digits = max(int(mpmath.mp.dps * 0.6), 5)
    return mpmath.mpf(10) ** (-digits) * max(1, abs(to_mp(scale)))


def _compare(a: Value, b: Value) -> int:
    """-1, 0, 1: the sign of ``a − b``, exact for Fractions; Unreliable when inexact and too close."""
    a, b = _real(a), _real(b)
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return (a > b) - (a < b)
    if mpmath.isinf(to_mp(a)) or mpmath.isinf(to_mp(b)):
        x, y = to_mp(a), to_mp(b)
        return (x > y) - (x < y)
    d = to_mp(a) - to_mp(b)
    if abs(d) <= _tiny(max(abs(to_mp(a)), abs(to_mp(b)))):
        raise Unreliable("an inexact value at a breakpoint")
    return 1 if d > 0 else -1


def _as_int(v: Value) -> int:
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
    if isinstance(v, int):
        return v
    raise NotEvaluable("a bound or index that is not an exact integer")


def _floor(v: Value) -> Value:
    v = _real(v)
    if isinstance(v, Fraction):
        return Fraction(math.floor(v))
    f = mpmath.floor(v)
    if abs(v - f) <= _tiny(v) or abs(v - f - 1) <= _tiny(v):
        raise Unreliable("floor of an inexact value at an integer")
    return Fraction(int(f))


def _sign(v: Value) -> Value:
    if isinstance(v, mpmath.mpc) and v.imag != 0:
        return v / abs(v)
    c = _compare(v, Fraction(0))
    return Fraction(c)


# ----------------------------------------------------------------------------
# the evaluator
# ----------------------------------------------------------------------------


_UNARY: dict[str, Callable[[Any], Any]] = {
    "exp": mpmath.exp, "log": mpmath.log, "sin": mpmath.sin, "cos": mpmath.cos, "tan": mpmath.tan,
    "cot": mpmath.cot, "sec": mpmath.sec, "csc": mpmath.csc, "asin": mpmath.asin, "acos": mpmath.acos,
    "atan": mpmath.atan, "acot": mpmath.acot, "asec": mpmath.asec, "acsc": mpmath.acsc,
    "sinh": mpmath.sinh, "cosh": mpmath.cosh, "tanh": mpmath.tanh, "coth": mpmath.coth,
    "sech": mpmath.sech, "csch": mpmath.csch, "asinh": mpmath.asinh, "acosh": mpmath.acosh,
    "atanh": mpmath.atanh, "acoth": mpmath.acoth, "asech": mpmath.asech, "acsch": mpmath.acsch,
    "erf": mpmath.erf, "erfc": mpmath.erfc, "erfi": mpmath.erfi, "gamma": mpmath.gamma,
    "loggamma": mpmath.loggamma, "zeta": mpmath.zeta, "LambertW": mpmath.lambertw,
    "Si": mpmath.si, "Ci": mpmath.ci, "Ei": mpmath.ei, "li": mpmath.li, "sinc": mpmath.sinc,
    "re": mpmath.re, "im": mpmath.im, "conjugate": mpmath.conj, "arg": mpmath.arg,
    "digamma": mpmath.digamma,
}

_CONSTANTS: dict[str, Callable[[], Any]] = {
    "Pi": lambda: +mpmath.pi, "Exp1": lambda: +mpmath.e, "EulerGamma": lambda: +mpmath.euler,
    "Catalan": lambda: +mpmath.catalan, "GoldenRatio": lambda: +mpmath.phi,
    "ImaginaryUnit": lambda: mpmath.mpc(0, 1),
}


_MISSING = object()
#: nodes evaluated between two reads of the CPU clock (the step's time limit)
_TICKS = 32
#: functions that take an argument of any size cheaply (no exponential of it, no reduction modulo π)
_LARGE_ARGUMENTS = frozenset({mpmath.log, mpmath.atan, mpmath.acot, mpmath.asinh, mpmath.acosh, mpmath.asec,
                              mpmath.acsc, mpmath.re, mpmath.im, mpmath.conj, mpmath.arg, mpmath.sqrt,
                              mpmath.cbrt})
#: Arguments of more than this many bits of magnitude (|x| > 2^(2²⁰), about 10^315 000) are not given to
#: mpmath's functions (but those of :data:`_LARGE_ARGUMENTS`), nor such exponents to powers: reducing them
#: (exp, sin) needs an integer of that many bits, and on one it cannot hold GMP aborts the process.
#: exp(10¹²) itself is cheap (only its exponent is large); exp(exp(10¹²)) is not.
MAX_MAGNITUDE = 2**20
#: Most nodes one evaluation (one side, one point, one precision) may visit: beyond, its value is unreliable at
#: that point (an oscillatory integral whose quadrature has not settled, a sum whose terms are themselves long
#: quadratures). A count, not a time, so the same points are decided on every machine; the catalog's costliest
#: evaluation (a Gaussian moment's quadrature) visits about 122 000.
MAX_POINT_WORK = 1_000_000
#: nodes a counterexample search counts for one sympy limit at an exact point (its share of the search's work)
LIMIT_AT_WORK = 2_000
#: sympy rationals as Fractions (immutable, so shared)
_RATIONALS: dict = {}
#: free symbols of the subtrees evaluated inside operators (a pure function of the subtree, so shared by
#: every evaluator: each point and precision of every consumer asks it of the same subtrees again)
_FREE: dict = {}


_METHOD, _RATIONAL, _SYMBOL, _UNARY_FN, _FLOAT, _CONSTANT, _INFINITE, _UNDEFINED, _INDEXED, _ENTRY, _NONE = range(11)
#: how a node of each sympy type is evaluated (every test below reads the type only: sympy's ``is_Rational``,
#: ``is_Float``, ``is_Symbol`` are class attributes, and ∞, −∞, zoo and nan are singletons of their types)
_KINDS: dict = {}


def _kind(e: Any) -> tuple[int, Any]:
    """The evaluation of a node of ``type(e)``, in the order the evaluator has always tested it; remembered."""
    name = type(e).__name__
    if e.is_Rational:
        kind: tuple[int, Any] = (_RATIONAL, None)
    elif e.is_Float:
        kind = (_FLOAT, None)
    elif name in _CONSTANTS:
        kind = (_CONSTANT, _CONSTANTS[name])
    elif e is sp.S.Infinity or e is sp.S.NegativeInfinity:
        kind = (_INFINITE, None)
    elif e is sp.zoo or e is sp.nan:
        kind = (_UNDEFINED, None)
    elif e.is_Symbol:
        kind = (_SYMBOL, None)
    elif getattr(Evaluator, "_" + name, None) is not None:
        kind = (_METHOD, getattr(Evaluator, "_" + name))
    elif isinstance(e, sp.Indexed):
        kind = (_INDEXED, None)
    elif isinstance(e, sp.matrices.expressions.matexpr.MatrixElement):
        kind = (_ENTRY, None)
    elif isinstance(e, sp.Function):
        if getattr(type(e), "numeric_value", True) is False:
            kind = (_NONE, f"{name}[…] has no value at a point")
        elif name in _UNARY:
            kind = (_UNARY_FN, _UNARY[name])
        else:
            kind = (_NONE, f"no numeric definition of {name}")
    else:
        kind = (_NONE, f"cannot evaluate {name}")
    _KINDS[type(e)] = kind
    return kind


class Evaluator:
    """Evaluate sympy expressions at a point with mpmath at ``dps`` digits.

    Args:
        dps: working precision (decimal digits).
        point: value of each free symbol (``Fraction`` or mpmath number).
        limits_allowed: ``True``: evaluate ``Limit`` by extrapolation (a heuristic
            that may confirm); ``False`` (a counterexample search): only where sympy's
            limit at the exact point agrees; ``None`` (a cross-check): not at all.
        element: ``element(key, obj) -> value`` for an indexed element or a
            matrix entry not in ``point`` (key: ``(base, indices)``); the
            caller draws and remembers it so both sides of a step share it.
    """

    def __init__(self, dps: int, point: dict, element: Callable[[tuple, Any], Value], *,
                 limits_allowed: bool | None = True, scheme: str = "tanh-sinh", defer_limits: bool = False) -> None:
        self.dps = dps
        #: with ``limits_allowed=False``: return the numeric limit without asking sympy for its limit at the
        #: point, and count it in ``deferred`` (the caller then takes no value that needs the confirmation at
        #: face value: a difference is re-evaluated without deferring, see ``witness.compare_at``)
        self.defer_limits = defer_limits
        #: limits whose sympy confirmation was deferred
        self.deferred = 0
        #: the quadrature rule of ``mpmath.quad``: ``"tanh-sinh"``, or ``"gauss-legendre"`` (a second,
        #: independent scheme that confirms a gap the first found; its error estimate is then only a sanity bound)
        self.scheme = scheme
        #: set when a value came from ``mpmath.quad`` (a gap resting on it is confirmed by the other scheme)
        self.quadrature = False
        self.limits_allowed = limits_allowed
        self.point = point
        self.element = element
        #: set when an approximating operator (quadrature, nsum, diff, limit) was used
        self.approximate = False
        #: set when a limit was evaluated numerically: a heuristic, never grounds for a refutation
        self.heuristic = False
        #: the largest magnitude of a term of an inexact sum (the scale of the rounding error)
        self.magnitude = mpmath.mpf(0)
        #: nodes evaluated so far: a measure of work that, unlike time, is the same on every machine
        self.visits = 0
        self._memo: dict = {}
        #: (subtree, precision) -> (value, magnitude it reached, visits it took), for subtrees evaluated
        #: inside an operator (an integrand, a summand) that do not depend on its bound variables
        self._fixed: dict = {}
        #: the entries of ``_fixed`` a compiled plan has used, by the plan's closure (see ``_via_ev``)
        self._replay: dict = {}
        self._free = _FREE
        #: > 0 while an operator overrides indexed elements (a derivative in an element): no reuse then
        self._slotted = 0
        self._ticks = 0
        self._value_start = 0
        self._env: dict | None = None
        self._bound: frozenset = frozenset()

    def value(self, expr: Any) -> Value:
        """The value of ``expr`` (a scalar sympy expression) at the point."""
        self._value_start = self.visits
        with mpmath.workdps(self.dps):
            v = self.ev(sp.sympify(expr, strict=True), self.point)
            if not _is_exact(v):
                v = +to_mp(v)  # round to the working precision
                if not mpmath.isfinite(v):
                    raise Undefined("not finite")
            return v

    # dispatch ---------------------------------------------------------
    def ev(self, e: Any, env: dict) -> Value:
        if not e.args:
            return self._ev(e, env)
        if env is self.point:  # outside any bound variable: a repeated subtree has one value
            hit = self._memo.get(e)
            if hit is not None:
                return hit
            value = self._ev(e, env)
            self._memo[e] = value
            return value
        if self._slotted:
            return self._ev(e, env)
        # inside an operator: a subtree free of its bound variables has the same value at every sample
        # (an integrand's constant factor), so it is evaluated once per precision; its effect on the
        # cancellation scale and on the work count is replayed, so every figure is as if re-evaluated
        free = self._free.get(e)
        if free is None:
            if len(self._free) > 65536:
                self._free.clear()
            free = self._free[e] = frozenset(e.free_symbols)
        if self._env is not env:  # the variables this operator binds: those whose value is not the point's
            point = self.point
            self._env = env
            self._bound = frozenset(k for k, v in env.items() if point.get(k, _MISSING) is not v)
        if not self._bound.isdisjoint(free):
            # a subtree of an operator's sample (an integrand, a summand): its compiled plan, the same
            # evaluation node for node, without the per-node dispatch (see _plan)
            plan = _PLANS.get((e, self._bound)) if COMPILE else None
            if plan is None:
                if not COMPILE:
                    return self._ev(e, env)
                plan = _plan(e, self._bound)
            return plan(self, env)
        key = (e, mpmath.mp.prec)
        hit = self._fixed.get(key)
        if hit is not None:
            value, magnitude, visits = hit
            if magnitude > self.magnitude:
                self.magnitude = magnitude
            self.visits += visits
            return value
        saved, self.magnitude = self.magnitude, mpmath.mpf(0)
        visits = self.visits
        try:
            value = self._ev(e, env)
        finally:
            magnitude, self.magnitude = self.magnitude, max(saved, self.magnitude)
        self._fixed[key] = (value, magnitude, self.visits - visits)
        return value

    def _ev(self, e: Any, env: dict) -> Value:
        self.visits += 1
        self._ticks += 1
        if self._ticks >= _TICKS:  # the clock is read every few nodes (reading it costs as much as a node)
            self._tick()
        kind = _KINDS.get(type(e))
        if kind is None:
            kind = _kind(e)
        code, what = kind
        if code == _METHOD:
            return what(self, e, env)
        if code == _RATIONAL:
            hit = _RATIONALS.get(e)
            if hit is None:
                if len(_RATIONALS) > 65536:
                    _RATIONALS.clear()
                hit = _RATIONALS[e] = Fraction(int(e.p), int(e.q))
            return hit
        if code == _SYMBOL:
            if e in env:
                return env[e]
            raise NotEvaluable(f"no value for {e}")
        if code == _UNARY_FN:
            if len(e.args) == 1:
                return self._call(what, self.ev(e.args[0], env))
            raise NotEvaluable(f"no numeric definition of {type(e).__name__}")
        if code == _FLOAT:
            sign, man, exp, _ = e._mpf_
            value = Fraction(man) * (Fraction(2) ** exp)
            return -value if sign else value
        if code == _CONSTANT:
            return what()
        if code == _INFINITE:
            return mpmath.inf if e is sp.S.Infinity else -mpmath.inf
        if code == _UNDEFINED:
            raise Undefined(str(e))
        if code == _INDEXED:
            return self._indexed(e, env)
        if code == _ENTRY:
            return self._matrix_element(e, env)
        raise NotEvaluable(what)

    def _tick(self) -> None:
        """Every ``_TICKS`` nodes: the step's time limit, and the work cap of this evaluation."""
        self._ticks = 0
        limits.checkpoint()
        if self.visits - self._value_start > MAX_POINT_WORK:
            raise Unreliable(f"evaluating it here took more than {MAX_POINT_WORK:,} expression nodes")

    def _call(self, fn: Callable, arg: Value) -> Value:
        arg = to_mp(arg)
        if arg != 0 and mpmath.mag(arg) > MAX_MAGNITUDE and fn not in _LARGE_ARGUMENTS:
            # exp(exp(10¹²)) asks GMP for an integer of 10^(10¹¹) digits: it aborts the whole process (no
            # exception to catch), and sin of such a number needs as many digits to reduce its argument
            raise Unreliable("a function of an argument too large for mpmath")
        try:
            out = fn(arg)
        except (ZeroDivisionError, ValueError) as exc:
            raise Undefined(str(exc)) from None
        except (MemoryError, OverflowError):
            # mpmath's tanh/cosh at an argument of 10^(10^k) (a numeric limit's far samples) builds exp of it
            raise Unreliable("a function of an argument too large for mpmath") from None
        if not mpmath.isfinite(out):
            raise Undefined("not finite")
        return out

    # arithmetic -------------------------------------------------------
    def _Add(self, e: Any, env: dict) -> Value:
        vals = [self.ev(a, env) for a in e.args]
        if _all_exact(vals):
            return sum(vals, Fraction(0))
        mps = [to_mp(v) for v in vals]
        # the rounding error of a sum is relative to its largest term, not to the result: remember the
        # largest magnitude seen, so that a cancelled result is compared with the error it can carry
        biggest = max(abs(v) for v in mps)
        if biggest > self.magnitude:
            self.magnitude = biggest
        return mpmath.fsum(mps)

    def _Mul(self, e: Any, env: dict) -> Value:
        vals = [self.ev(a, env) for a in e.args]
        if _all_exact(vals):
            out = Fraction(1)
            for v in vals:
                out *= v
            return out
        out = mpmath.mpf(1)
        for v in vals:
            out *= to_mp(v)
        return out

    def _Pow(self, e: Any, env: dict) -> Value:
        return _power(self.ev(e.base, env), self.ev(e.exp, env))

    # piecewise-defined functions (exact at rational points) ----------------
    def _Abs(self, e: Any, env: dict) -> Value:
        v = self.ev(e.args[0], env)
        return abs(v) if _is_exact(v) else abs(to_mp(v))

    def _sign(self, e: Any, env: dict) -> Value:
        return _sign(self.ev(e.args[0], env))

    def _floor(self, e: Any, env: dict) -> Value:
        return _floor(self.ev(e.args[0], env))

    def _ceiling(self, e: Any, env: dict) -> Value:
        return -_floor(-self.ev(e.args[0], env))

    def _frac(self, e: Any, env: dict) -> Value:
        v = self.ev(e.args[0], env)
        f = _floor(v)
        return v - f if _is_exact(v) else to_mp(v) - to_mp(f)

    def _Heaviside(self, e: Any, env: dict) -> Value:
        v = self.ev(e.args[0], env)
        c = _compare(v, Fraction(0))
        if c == 0:
            if len(e.args) > 1:
                return self.ev(e.args[1], env)
            return Fraction(1, 2)  # sympy's default H(0)
        return Fraction(1 if c > 0 else 0)

    def _Min(self, e: Any, env: dict) -> Value:
        vals = [self.ev(a, env) for a in e.args]
        best = vals[0]
        for v in vals[1:]:
            if _compare(v, best) < 0:
                best = v
        return best

    def _Max(self, e: Any, env: dict) -> Value:
        vals = [self.ev(a, env) for a in e.args]
        best = vals[0]
        for v in vals[1:]:
            if _compare(v, best) > 0:
                best = v
        return best

    def _KroneckerDelta(self, e: Any, env: dict) -> Value:
        a, b = (self.ev(x, env) for x in e.args[:2])
        if not (_is_exact(a) and _is_exact(b)):
            raise Unreliable("Kronecker delta of inexact values")
        return Fraction(1 if a == b else 0)

    def _Mod(self, e: Any, env: dict) -> Value:
        a, b = (self.ev(x, env) for x in e.args)
        if _is_exact(a) and _is_exact(b):
            if b == 0:
                raise Undefined("modulo 0")
            return a - b * Fraction(math.floor(a / b))
        q = _floor(to_mp(a) / to_mp(b))
        return to_mp(a) - to_mp(b) * to_mp(q)

    def _Piecewise(self, e: Any, env: dict) -> Value:
        for expr, cond in e.args:
            if self.truth(cond, env):
                return self.ev(expr, env)
        raise Undefined("no condition of the Piecewise holds")

    def _factorial(self, e: Any, env: dict) -> Value:
        v = self.ev(e.args[0], env)
        if _is_exact(v) and v.denominator == 1:
            if v < 0:
                raise Undefined("factorial of a negative integer")
            if v > 5000:
                raise Unreliable("factorial too large to form")
            return Fraction(math.factorial(int(v)))
        return self._call(mpmath.factorial, v)

    def _binomial(self, e: Any, env: dict) -> Value:
        n, k = (self.ev(x, env) for x in e.args)
        if _is_exact(n) and _is_exact(k) and n.denominator == 1 and k.denominator == 1 and 0 <= k <= 5000:
            out = Fraction(1)
            for t in range(int(k)):
                out = out * (n - t) / (t + 1)
            return out
        return mpmath.binomial(to_mp(n), to_mp(k))

    def _polygamma(self, e: Any, env: dict) -> Value:
        n, x = (self.ev(a, env) for a in e.args)
        return mpmath.psi(_as_int(n), to_mp(x))

    def _atan2(self, e: Any, env: dict) -> Value:
        y, x = (self.ev(a, env) for a in e.args)
        if _compare(y, Fraction(0)) == 0 and _compare(x, Fraction(0)) == 0:
            raise Undefined("atan2(0, 0)")
        return mpmath.atan2(to_mp(_real(y)), to_mp(_real(x)))

    def _log(self, e: Any, env: dict) -> Value:
        v = self.ev(e.args[0], env)
        if _is_exact(v) and v == 0:
            raise Undefined("log 0")
        return self._call(mpmath.log, v)

    def _besselj(self, e: Any, env: dict) -> Value:
        return mpmath.besselj(*(to_mp(self.ev(a, env)) for a in e.args))

    def _bessely(self, e: Any, env: dict) -> Value:
        return mpmath.bessely(*(to_mp(self.ev(a, env)) for a in e.args))

    def _besseli(self, e: Any, env: dict) -> Value:
        return mpmath.besseli(*(to_mp(self.ev(a, env)) for a in e.args))

    def _besselk(self, e: Any, env: dict) -> Value:
        return mpmath.besselk(*(to_mp(self.ev(a, env)) for a in e.args))

    # conditions ---------------------------------------------------------
    def truth(self, c: Any, env: dict) -> bool:
        """The truth value of a condition (relational or boolean) at the point."""
        if c is sp.true or c == True:  # noqa: E712 - sympy's true
            return True
        if c is sp.false or c == False:  # noqa: E712
            return False
        name = type(c).__name__
        if name == "And":
            return all(self.truth(a, env) for a in c.args)
        if name == "Or":
            return any(self.truth(a, env) for a in c.args)
        if name == "Not":
            return not self.truth(c.args[0], env)
        if name in ("StrictLessThan", "LessThan", "StrictGreaterThan", "GreaterThan", "Equality", "Unequality"):
            a, b = self.ev(c.lhs, env), self.ev(c.rhs, env)
            if name in ("Equality", "Unequality"):
                if isinstance(to_mp(a), mpmath.mpc) or isinstance(to_mp(b), mpmath.mpc):
                    raise NotEvaluable("a complex comparison")
                same = _compare(a, b) == 0
                return same if name == "Equality" else not same
            s = _compare(a, b)
            return {"StrictLessThan": s < 0, "LessThan": s <= 0, "StrictGreaterThan": s > 0,
                    "GreaterThan": s >= 0}[name]
        raise NotEvaluable(f"cannot decide the condition {name}")

    # indexed values -----------------------------------------------------
    def _indexed(self, e: Any, env: dict) -> Value:
        idx = tuple(_as_int(self.ev(i, env)) for i in e.indices)
        key = (e.base, idx)
        if ("element", key) in env:
            return env[("element", key)]
        return self.element(key, e.base)

    def _matrix_element(self, e: Any, env: dict) -> Value:
        parent = e.parent
        i, j = (_as_int(self.ev(a, env)) for a in e.args[1:])
        if isinstance(parent, sp.MatrixSymbol):
            return self.element((parent, (i, j)), parent)
        if isinstance(parent, sp.MatrixBase):
            return self.ev(parent[i, j], env)
        raise NotEvaluable("an entry of a matrix expression")

    def _Subs(self, e: Any, env: dict) -> Value:
        inner = dict(env)
        for var, val in zip(e.variables, e.point, strict=True):
            inner[var] = self.ev(val, env)
        return self.ev(e.expr, inner)

    # operators ------------------------------------------------------------
    def _bounds(self, lo: Any, hi: Any, env: dict) -> tuple[Any, Any]:
        a, b = self.ev(lo, env), self.ev(hi, env)
        # a Fraction is never infinite (and comparing one with mpmath's ∞ costs a conversion)
        fa = _as_int(a) if type(a) is Fraction or a not in (mpmath.inf, -mpmath.inf) else a
        fb = _as_int(b) if type(b) is Fraction or b not in (mpmath.inf, -mpmath.inf) else b
        return fa, fb

    def _Sum(self, e: Any, env: dict) -> Value:
        return self._series(e.function, list(e.limits), env, product=False)

    def _Product(self, e: Any, env: dict) -> Value:
        return self._series(e.function, list(e.limits), env, product=True)

    def _local(self, fn: Callable, *args: Any) -> Value:
        """``fn(*args)`` with the cancellation scale of its inner samples kept out of the result's
        (an operator that samples its integrand or its limit reports its own accuracy)."""
        saved = self.magnitude
        try:
            return fn(*args)
        finally:
            self.magnitude = saved

    def _series(self, f: Any, lims: list, env: dict, product: bool) -> Value:
        if not lims:
            return self.ev(f, env)
        var, lo, hi = lims[-1]
        a, b = self._bounds(lo, hi, env)
        rest = lims[:-1]

        def term(k: Any) -> Value:
            return self._series(f, rest, {**env, var: Fraction(int(k))}, product)

        if isinstance(a, int) and isinstance(b, int):
            if b < a - 1:  # Karr's convention, as sympy's Sum and Product define it
                inner = self._finite(term, b + 1, a - 1, product)
                if product:
                    if inner == 0:
                        raise Undefined("reversed product through 0")
                    return 1 / inner if _is_exact(inner) else 1 / to_mp(inner)
                return -inner if _is_exact(inner) else -to_mp(inner)
            return self._finite(term, a, b, product)
        return self._infinite(term, a, b, product)

    def _finite(self, term: Callable, a: int, b: int, product: bool) -> Value:
        if b - a + 1 > MAX_TERMS:
            raise Unreliable(f"a sum of more than {MAX_TERMS} terms")
        out: Value = Fraction(1 if product else 0)
        for k in range(a, b + 1):
            v = term(k)
            if _is_exact(out) and _is_exact(v):
                out = out * v if product else out + v
            else:
                out = to_mp(out) * to_mp(v) if product else to_mp(out) + to_mp(v)
        return out

    def _infinite(self, term: Callable, a: Any, b: Any, product: bool) -> Value:
        self.approximate = True

        def f(k: Any) -> Any:
            v = to_mp(term(int(k)))
            if product:
                if v == 0:
                    raise Undefined("a zero factor")
                return mpmath.log(v)
            return v

        self._terms_vanish(f, a, b, product)
        saved = self.magnitude
        try:
            # nsum gives no error estimate: extrapolate at two precisions and compare
            value = mpmath.nsum(f, [a, b])
            with mpmath.workdps(mpmath.mp.dps + 15):
                err = abs(mpmath.nsum(f, [a, b]) - value)
        except (Undefined, NotEvaluable, Unreliable):
            raise
        except (ZeroDivisionError, ValueError, OverflowError) as exc:
            raise Unreliable(f"series evaluation failed ({exc})") from None
        self.magnitude = saved
        if not mpmath.isfinite(value) or err > _tolerance(value):
            raise Unreliable("the series converges too slowly for its error estimate")
        return mpmath.exp(value) if product else value

    def _terms_vanish(self, f: Callable, a: Any, b: Any, product: bool) -> None:
        """Raise :class:`Undefined` when the terms of an infinite series do not tend to 0 (the factors of a
        product to 1): |term| at 10², 10³, 10⁴, 10⁵ steps from the finite end is, at the last, no smaller than
        at the one before and at the first (``nsum``'s extrapolation sums 2^k to −1 and (−1)^k to 1/2).
        A term that cannot be formed that far out (a factorial of 10⁴), or only with more than
        :data:`FAR_WORK` nodes (an inner sum up to k), leaves the decision to ``nsum``'s error estimate."""
        ends = []
        if mpmath.isinf(b):
            ends.append((0 if mpmath.isinf(a) else a, 1))
        if mpmath.isinf(a):
            ends.append((0 if mpmath.isinf(b) else b, -1))
        start = self.visits
        for base, side in ends:
            seen = []
            try:
                last = 0
                for n in _FAR_TERMS:
                    if self.visits - start + 10 * last > FAR_WORK:  # the next term costs ~10× the last
                        return
                    before = self.visits
                    seen.append(abs(f(base + side * n)))
                    last = self.visits - before
            except (Undefined, NotEvaluable, Unreliable, ZeroDivisionError, ValueError, OverflowError):
                continue
            if seen[-1] > _tiny(1) and seen[-1] >= seen[-2] and seen[-1] >= seen[0]:
                raise Undefined("the series diverges (its " + ("factors do not tend to 1)" if product
                                                               else "terms do not tend to 0)"))

    def _Integral(self, e: Any, env: dict) -> Value:
        self.approximate = True
        return self._local(self._integrate, e.function, list(e.limits), env)

    def _integrate(self, f: Any, lims: list, env: dict) -> Value:
        if not lims:
            return self.ev(f, env)
        lim = lims[-1]
        if len(lim) != 3:
            raise NotEvaluable("an indefinite integral")
        var, lo, hi = lim
        a, b = to_mp(self.ev(lo, env)), to_mp(self.ev(hi, env))
        rest = lims[:-1]
        if isinstance(a, mpmath.mpc) or isinstance(b, mpmath.mpc):
            raise NotEvaluable("an integral with complex bounds")
        # ∫_a^b = −∫_b^a: the quadrature below runs over sorted points, so a reversed range changes the sign
        sign = -1 if b < a else 1
        if b < a:
            a, b = b, a
        poles = self._poles(f, var, a, b, env, rest)
        points = sorted({a, *self._breaks(f, var, a, b, env), *poles, *self._peaks(f, var, a, b, env), b})

        def g(t: Any) -> Any:
            return to_mp(self._integrate(f, rest, {**env, var: t}))

        if mpmath.isinf(a) or mpmath.isinf(b):
            zeros = self._oscillation(f, var, env)
            self._decays(g, a, b, zeros)
            if zeros is not None:
                return sign * self._quadosc(g, a, b, zeros)
        self.quadrature = True
        try:
            value, err = mpmath.quad(g, points, error=True, maxdegree=8, method=self.scheme)
        except (Undefined, NotEvaluable, Unreliable):
            raise
        except (ZeroDivisionError, ValueError, OverflowError) as exc:
            raise Unreliable(f"quadrature failed ({exc})") from None
        # the second scheme only confirms a gap (to a few digits), so its error estimate is a sanity bound
        bound = _tolerance(value) if self.scheme == "tanh-sinh" else mpmath.mpf(10) ** -8 * max(1, abs(value))
        if not mpmath.isfinite(value) or err > bound:
            raise Unreliable("the quadrature's error estimate is too large")
        return sign * value

    def _decays(self, g: Callable, a: Any, b: Any, zeros: Any) -> None:
        """Does the integrand over an infinite range decay fast enough for a quadrature to mean anything?

        Looks at ``t·|g|`` at t = 10², 10⁴, …, 10³² from the finite end (towards each infinite end); for an
        oscillating integrand (``zeros``: its zeros for quadosc), at the area of one lobe that far out.
        Not smaller at the last distance than at the two before ⇒ :class:`Undefined` (the integral
        diverges: a tanh-sinh quadrature of e^(2x) over [0, ∞) returns 10^(10^127), of sin x a 1); smaller,
        but by less than a factor 10 over the last step ⇒ :class:`Unreliable` (too slow to integrate).
        """
        ends = []
        if mpmath.isinf(b):
            ends.append((0 if mpmath.isinf(a) else a, 1))
        if mpmath.isinf(a):
            ends.append((0 if mpmath.isinf(b) else b, -1))
        for base, side in ends:
            try:
                if zeros is None:
                    seen = [abs(g(base + side * t)) * t for t in _FAR]
                else:
                    seen = [max(abs(g(base + side * zeros(n + mpmath.mpf(k) / 3))) for k in (1, 2))
                            * abs(zeros(n + 1) - zeros(n)) for n in _FAR[:-1]]
            except (Undefined, NotEvaluable, Unreliable, ZeroDivisionError, ValueError, OverflowError):
                raise Unreliable("the integrand cannot be evaluated far out (convergence unknown)") from None
            last = seen[-1]
            if last <= _tiny(1):
                continue
            if last >= seen[-2] and last >= seen[-3]:
                raise Undefined("the integral diverges (its integrand does not decay far out)")
            if last > seen[-2] / 10:
                raise Unreliable("the integrand decays too slowly far out for a quadrature")

    def _peaks(self, f: Any, var: Any, a: Any, b: Any, env: dict) -> list:
        """Stationary points in (a, b) of the exponents of ``exp(g)`` with g of degree ≤ 2 in ``var`` (the
        centre −c₁/(2c₂) of a Gaussian c₂x² + c₁x + c₀), and, for a narrow peak (width 1/sqrt(|g″|) below
        1/16), the points a few widths either side: a quadrature that does not sample a peak of width 10⁻³
        returns 10⁻⁶⁸⁸⁶ at every precision, a stable but wrong value."""
        found = []
        for c2e, c1e in _quadratic_exponents(f, var):
            if any(s not in env for s in (c2e.free_symbols | c1e.free_symbols)):
                continue
            try:
                c2, c1 = to_mp(self.ev(c2e, env)), to_mp(self.ev(c1e, env))
            except (NotEvaluable, Unreliable, Undefined):
                continue
            if isinstance(c2, mpmath.mpc) or isinstance(c1, mpmath.mpc) or c2 == 0:
                continue
            centre = -c1 / (2 * c2)
            width = 1 / mpmath.sqrt(abs(2 * c2))
            found.append(centre)
            if width < mpmath.mpf(1) / 16:
                found += [centre + side * k * width for side in (1, -1) for k in (2, 8)]
        return [v for v in found if a < v < b][:16]

    def _poles(self, f: Any, var: Any, a: Any, b: Any, env: dict, rest: list) -> list:
        """Zeros of the integrand's denominators in [a, b]; one where the integrand grows like 1/|x − r| or
        faster (a divergent integral) makes the integral :class:`Undefined`; milder ones are split at."""
        bases = [node.base for node in sp.preorder_traversal(f)
                 if isinstance(node, sp.Pow) and node.base.has(var) and self._negative_here(node.exp, var, env)]
        found = []
        for base in bases[:6]:
            if any(s not in env for s in base.free_symbols - {var}):
                continue
            ok, sols = limits.run_limited(limits.BACKSTOP, "poles", _solve_real, base, var)
            for r in (sols or []) if ok else []:
                try:
                    v = to_mp(self.ev(r, env))
                except (NotEvaluable, Unreliable, Undefined):
                    continue
                if isinstance(v, mpmath.mpc) or not a <= v <= b:
                    continue
                found.append(v)
                if not rest and self._diverges_at(f, var, v, a, b, env):
                    raise Undefined(f"the integrand has a non-integrable singularity at {var} = "
                                    f"{mpmath.nstr(v, 8)} in the range of integration")
        return found

    def _negative_here(self, exponent: Any, var: Any, env: dict) -> bool:
        """Is a power's exponent negative at this point (``t**(a - 1)`` at a = 1/2, not only ``t**-2``)?"""
        if exponent.is_negative:
            return True
        if exponent.has(var) or any(s not in env for s in exponent.free_symbols):
            return False
        try:
            v = to_mp(self.ev(exponent, env))
        except (NotEvaluable, Unreliable, Undefined):
            return False
        return not isinstance(v, mpmath.mpc) and v < 0

    def _diverges_at(self, f: Any, var: Any, v: Any, a: Any, b: Any, env: dict) -> bool:
        """Does |f| grow like 1/|x − v| (or faster) next to v, on a side inside [a, b]?

        |f| is read at distances 10⁻⁸ and 10⁻⁹ (relative) from v: for |x − v|^p the ratio is 10^(−p), so
        its logarithm estimates the local exponent p. p ≤ −1 (to 10⁻⁶) ⇒ divergent (True). Between −1 and
        −0.9 the singularity may be integrable (|x|^(−0.986)) or not (1/(|x| log|x|)), and a quadrature of
        it converges too slowly to tell: :class:`Unreliable`, never a value and never "undefined".

        Raises:
            Unreliable: the local exponent is in (−1, −0.9].
        """
        for side in (1, -1):
            eps = mpmath.mpf(10) ** -8 * max(1, abs(v))
            if not a <= v + side * eps <= b:
                continue
            try:
                near = abs(to_mp(self.ev(f, {**env, var: v + side * eps / 10})))
                far = abs(to_mp(self.ev(f, {**env, var: v + side * eps})))
            except (Undefined, Unreliable, NotEvaluable, ZeroDivisionError):
                return True
            if far == 0:
                if near != 0:
                    return True
                continue
            exponent = -mpmath.log10(near / far)  # p of |x − v|^p
            if exponent <= -1 + mpmath.mpf(10) ** -6:
                return True
            if exponent <= -mpmath.mpf(9) / 10:
                raise Unreliable(f"the integrand's singularity at {var} = {mpmath.nstr(v, 8)} is too close to "
                                 "1/|x − v| to tell whether it is integrable")
        return False

    def _oscillation(self, f: Any, var: Any, env: dict) -> Any:
        """For an integrand with sin/cos of c·x^p (one such argument) over an infinite range: the zeros
        ``n ↦ (nπ/c)^(1/p)`` for :func:`mpmath.quadosc`; ``None`` when the integrand does not oscillate.

        Raises:
            Unreliable: it oscillates in a way quadosc is not told about (several or other arguments).
        """
        args = {node.args[0] for node in sp.preorder_traversal(f)
                if isinstance(node, (sp.sin, sp.cos, sp.besselj)) and node.args[-1].has(var)}
        if not args:
            return None
        if len(args) == 1:
            (u,) = args
            c, p = sp.Wild("c", exclude=[var]), sp.Wild("p", exclude=[var])
            m = u.match(c * var ** p)
            if m and m[p].is_number and m[p] > 0:
                cv, pv = to_mp(self.ev(m[c], env)), to_mp(self.ev(m[p], env))
                if not isinstance(cv, mpmath.mpc) and cv != 0:
                    return lambda n: (n * mpmath.pi / abs(cv)) ** (1 / pv)
        raise Unreliable("an oscillatory integrand over an infinite range (no quadrature made for it)")

    def _quadosc(self, g: Any, a: Any, b: Any, zeros: Any) -> Value:
        if not (a == 0 and mpmath.isinf(b) and b > 0):
            raise Unreliable("an oscillatory integral other than over [0, ∞)")
        try:
            value = mpmath.quadosc(g, [a, b], zeros=zeros)
            check = mpmath.quadosc(g, [a, b], zeros=lambda n: zeros(n + mpmath.mpf(1) / 2))
        except (ZeroDivisionError, ValueError, OverflowError) as exc:
            raise Unreliable(f"oscillatory quadrature failed ({exc})") from None
        # quadosc gives no error estimate: two partitions of the range must agree to the working precision
        if not mpmath.isfinite(value) or abs(value - check) > _tolerance(value):
            raise Unreliable("the oscillatory quadrature does not settle (two partitions disagree)")
        return value

    def _breaks(self, f: Any, var: Any, a: Any, b: Any, env: dict) -> list:
        """Points inside (a, b) where a non-smooth part of ``f`` changes (solveset proposes, we keep reals)."""
        kinks = []
        for node in sp.preorder_traversal(f):
            name = type(node).__name__
            if name in ("Abs", "sign", "Heaviside", "floor", "ceiling") and node.args[0].has(var):
                kinks.append(node.args[0])
            elif name in ("Min", "Max") and node.has(var):
                kinks += [x - y for x in node.args for y in node.args if x is not y]
            elif name == "Piecewise":
                for _, cond in node.args:
                    for rel in cond.atoms(sp.core.relational.Relational):
                        kinks.append(rel.lhs - rel.rhs)
        found = []
        for g in kinks[:8]:
            free = g.free_symbols - {var}
            if any(s not in env for s in free):
                continue
            ok, sols = limits.run_limited(limits.BACKSTOP, "breakpoints", _solve_real, g, var)
            if not ok or sols is None:
                continue
            for s in sols:
                try:
                    v = to_mp(self.ev(s, env))
                except (NotEvaluable, Unreliable, Undefined):
                    continue
                if not isinstance(v, mpmath.mpc) and a < v < b:
                    found.append(v)
        return sorted(set(found))[:32]

    def _Derivative(self, e: Any, env: dict) -> Value:
        return self._local(self._derivative, e, env)

    def _derivative(self, e: Any, env: dict) -> Value:
        self.approximate = True
        expr = e.expr
        pairs = list(e.variable_count)
        if len(pairs) != 1:
            inner = sp.Derivative(expr, *pairs[:-1]) if pairs[:-1] else expr
            pairs = pairs[-1:]
        else:
            inner = expr
        var, order = pairs[0]
        if isinstance(var, sp.Indexed):
            key = (var.base, tuple(_as_int(self.ev(i, env)) for i in var.indices))
            slot: Any = ("element", key)
            x0 = to_mp(env[slot] if slot in env else self.element(key, var.base))
        elif var in env:
            slot, x0 = var, to_mp(env[var])
        else:
            raise NotEvaluable(f"no value for {var}")

        def g(t: Any) -> Any:
            if isinstance(slot, tuple):  # an element overridden: subtrees holding it are not fixed
                self._slotted += 1
                try:
                    return to_mp(self.ev(inner, {**env, slot: t}))
                finally:
                    self._slotted -= 1
            return to_mp(self.ev(inner, {**env, slot: t}))

        # a derivative exists only where the function is continuous: a jump or a pole at the point
        # (sympy's acot at 0) would make finite differences return an enormous, meaningless value
        delta = mpmath.mpf(10) ** (-(self.dps // 3))
        above, below = g(x0 + delta), g(x0 - delta)
        if abs(above - below) > mpmath.mpf(10) ** (-(self.dps // 6)) * max(1, abs(above), abs(below)):
            raise Undefined("not continuous at the point: no derivative there")
        try:
            return mpmath.diff(g, x0, int(order))
        except (ZeroDivisionError, ValueError, OverflowError) as exc:
            raise Unreliable(f"numeric differentiation failed ({exc})") from None

    def _Limit(self, e: Any, env: dict) -> Value:
        self.approximate = True
        if self.limits_allowed is None:
            raise Unreliable("a limit: not evaluated by this check")
        if not self.limits_allowed:
            # to refute, a numeric limit is not enough: sympy's limit of the same expression at this exact
            # point must agree with it (two independent methods; either alone may settle on a wrong value)
            numeric = self._numeric_limit(e, env)
            # sympy's limit is counted as work too (a fixed count, not its time): a search whose points
            # each need one stops after a few points instead of spending seconds on every one
            self.visits += LIMIT_AT_WORK
            if self.defer_limits:
                # a search that only needs a difference confirmed: sympy is asked only if this point differs
                self.deferred += 1
                return numeric
            ok, exact = limits.run_limited(limits.BACKSTOP, "sympy's limit at the point", _sympy_limit_at, e, env,
                                           self)
            if not ok or exact is None:
                raise Unreliable("a numeric limit that sympy could not confirm at this point")
            value = to_mp(self.ev(exact, {}))
            if abs(value - numeric) > _tolerance(value) ** 0.5:
                raise Unreliable("sympy's limit and the numeric limit disagree")
            return numeric
        self.heuristic = True
        return self._numeric_limit(e, env)

    def _numeric_limit(self, e: Any, env: dict) -> Value:
        return self._local(self._limit_value, e, env)

    def _limit_value(self, e: Any, env: dict) -> Value:
        f, var, x0, direction = e.args
        point = to_mp(self.ev(x0, env))
        d = str(direction)

        shift = [0]  # a limit at infinity is sampled at t + shift

        def g(t: Any) -> Any:
            try:
                return to_mp(self.ev(f, {**env, var: t + shift[0]}))
            except Undefined:
                if mpmath.isinf(point):  # mpmath samples t = 1, 2, 3…: a pole at t = 2 says nothing about t → ∞
                    raise _SamplePole from None
                raise

        def one(sgn: int) -> Any:
            # two samplings (n = 1, 2, 3… and n = 2, 4, 8…) must agree: extrapolation alone can mislead
            try:
                a = mpmath.limit(g, point, direction=sgn)
                b = mpmath.limit(g, point, direction=sgn, exp=True)
            except (ZeroDivisionError, ValueError, OverflowError) as exc:
                raise Unreliable(f"numeric limit failed ({exc})") from None
            if not (mpmath.isfinite(a) and mpmath.isfinite(b)) or abs(a - b) > _tolerance(b) ** 0.5:
                raise Unreliable("the numeric limit does not settle")
            if abs(a) <= _tolerance(1) and abs(b) <= _tolerance(1):
                return Fraction(0)  # a limit 0 reached by extrapolation is a residue (1e-68), not a value to divide by
            return b

        if mpmath.isinf(point):
            try:
                return one(1)
            except (_SamplePole, Unreliable):  # a pole at or near a sample: lim f(t) = lim f(t + c), sampled past it
                shift[0] = mpmath.mpf(1) / 7  # off the integers, where rational functions have their poles
            try:
                return one(1)
            except _SamplePole:
                raise Unreliable("the function is undefined at sample points of its limit at infinity") from None
        if d == "+-":
            left, right = one(-1), one(1)
            if abs(left - right) > _tolerance(right) ** 0.5:
                raise Undefined("the one-sided limits differ")
            return right
        return one(1 if d == "+" else -1)


def _power(b: Value, x: Value) -> Value:
    """``b ** x`` of two values: exact for an exact base and an exact integer exponent up to 4096."""
    if _is_exact(b) and _is_exact(x) and x.denominator == 1:
        if b == 0 and x < 0:
            raise Undefined("division by zero")
        if abs(x) <= 4096:
            return b ** int(x)
    mb, mx = to_mp(b), to_mp(x)
    if mb == 0:
        if (mpmath.re(mx) if isinstance(mx, mpmath.mpc) else mx) > 0:
            return mpmath.mpf(0)
        raise Undefined("0 to a non-positive power")
    if mx != 0 and mpmath.mag(mx) > MAX_MAGNITUDE and abs(mb) != 1:
        raise Unreliable("a power too large for mpmath")  # 2^(2^(10¹²)): GMP aborts the process
    return mpmath.power(mb, mx)


# ----------------------------------------------------------------------------
# compiled plans: an operator's sample evaluated without the per-node dispatch
# ----------------------------------------------------------------------------

#: evaluate the subtrees of an operator's samples by their compiled plans (``False``: node by node, as
#: ``Evaluator._ev`` dispatches; the two give the same values and count the same work, see tests)
COMPILE = True
#: compiled plans by (subtree, the bound variables it depends on): a pure function of the two (sympy
#: expressions are immutable), so shared by every evaluator, point and precision
_PLANS: dict = {}


def _plan(e: Any, bound: frozenset) -> Callable[[Evaluator, dict], Value]:
    """The plan of ``e`` (a subtree with arguments that depends on a variable in ``bound``) as a closure
    ``plan(evaluator, env) -> value``; remembered per (e, bound).

    A plan does exactly what :meth:`Evaluator.ev` does inside an operator, node for node and in the same
    order: each node is counted (``visits``, the clock read every ``_TICKS`` nodes, the
    :data:`MAX_POINT_WORK` cap); a child free of the bound variables goes through ``Evaluator.ev`` (its
    value fixed per precision, its work replayed); sums, products, powers and the functions of one argument
    compute as ``_Add``, ``_Mul``, ``_Pow`` and ``_call`` do; any other node is ``Evaluator._ev`` itself. What
    it saves is the dispatch: the free-symbol test, the type lookup, the attribute reads of every node at
    every sample of an integrand, a summand or a limit.
    """
    key = (e, bound)
    hit = _PLANS.get(key)
    if hit is not None:
        return hit
    if len(_PLANS) > 65536:
        _PLANS.clear()
    plan = _PLANS[key] = _build(e, bound)
    return plan


def _child(a: Any, bound: frozenset) -> Callable[[Evaluator, dict], Value]:
    """How a plan evaluates its argument ``a`` (what ``Evaluator.ev(a, env)`` would do with it)."""
    if not a.args:
        return _leaf(a)
    free = _FREE.get(a)
    if free is None:
        free = frozenset(a.free_symbols)
    if bound.isdisjoint(free):
        return _via_ev(a)  # fixed per precision: Evaluator.ev's cache
    return _plan(a, bound)


def _via_ev(a: Any) -> Callable[[Evaluator, dict], Value]:
    """A child free of the bound variables: ``Evaluator.ev`` evaluates it once per precision (``_fixed``); the
    evaluator's entry for it is then kept by this closure, so a later sample replays it (its value, the
    cancellation scale it reached, its work) without looking the subtree up again."""
    def run(ev: Evaluator, env: dict) -> Value:
        if ev._slotted:  # pragma: no cover - a plan never runs while an element is overridden
            return ev.ev(a, env)
        prec = mpmath.mp.prec
        hit = ev._replay.get(run)
        if hit is not None and hit[0] == prec:
            _, value, magnitude, visits = hit
            if magnitude > ev.magnitude:
                ev.magnitude = magnitude
            ev.visits += visits
            return value
        value = ev.ev(a, env)
        fixed = ev._fixed.get((a, prec))
        if fixed is not None:
            ev._replay[run] = (prec, *fixed)
        return value
    return run


def _leaf(a: Any) -> Callable[[Evaluator, dict], Value]:
    kind = _KINDS.get(type(a))
    if kind is None:
        kind = _kind(a)
    code = kind[0]
    if code == _SYMBOL:
        def symbol(ev: Evaluator, env: dict) -> Value:
            ev.visits += 1
            ev._ticks += 1
            if ev._ticks >= _TICKS:
                ev._tick()
            if a in env:
                return env[a]
            raise NotEvaluable(f"no value for {a}")
        return symbol
    if code == _RATIONAL:
        value = Fraction(int(a.p), int(a.q))

        def rational(ev: Evaluator, env: dict) -> Value:
            ev.visits += 1
            ev._ticks += 1
            if ev._ticks >= _TICKS:
                ev._tick()
            return value
        return rational
    def other(ev: Evaluator, env: dict) -> Value:
        return ev._ev(a, env)
    return other


def _build(e: Any, bound: frozenset) -> Callable[[Evaluator, dict], Value]:
    kind = _KINDS.get(type(e))
    if kind is None:
        kind = _kind(e)
    code, what = kind
    method = what if code == _METHOD else None
    if method is Evaluator._Add:
        parts = tuple(_child(a, bound) for a in e.args)

        def add(ev: Evaluator, env: dict) -> Value:
            ev.visits += 1
            ev._ticks += 1
            if ev._ticks >= _TICKS:
                ev._tick()
            vals = [p(ev, env) for p in parts]
            if _all_exact(vals):
                return sum(vals, Fraction(0))
            mps = [to_mp(v) for v in vals]
            biggest = max(abs(v) for v in mps)
            if biggest > ev.magnitude:
                ev.magnitude = biggest
            return mpmath.fsum(mps)
        return add
    if method is Evaluator._Mul:
        parts = tuple(_child(a, bound) for a in e.args)

        def mul(ev: Evaluator, env: dict) -> Value:
            ev.visits += 1
            ev._ticks += 1
            if ev._ticks >= _TICKS:
                ev._tick()
            vals = [p(ev, env) for p in parts]
            if _all_exact(vals):
                out = Fraction(1)
                for v in vals:
                    out *= v
                return out
            out = mpmath.mpf(1)
            for v in vals:
                out *= to_mp(v)
            return out
        return mul
    if method is Evaluator._Pow:
        base, exponent = _child(e.base, bound), _child(e.exp, bound)

        def power(ev: Evaluator, env: dict) -> Value:
            ev.visits += 1
            ev._ticks += 1
            if ev._ticks >= _TICKS:
                ev._tick()
            b = base(ev, env)
            return _power(b, exponent(ev, env))
        return power
    if code == _INDEXED:
        base = e.base
        indices = tuple(_child(i, bound) for i in e.indices)

        def indexed(ev: Evaluator, env: dict) -> Value:
            ev.visits += 1
            ev._ticks += 1
            if ev._ticks >= _TICKS:
                ev._tick()
            key = (base, tuple(_as_int(i(ev, env)) for i in indices))
            slot = ("element", key)
            if slot in env:
                return env[slot]
            return ev.element(key, base)
        return indexed
    if code == _UNARY_FN and len(e.args) == 1:
        arg = _child(e.args[0], bound)

        def unary(ev: Evaluator, env: dict) -> Value:
            ev.visits += 1
            ev._ticks += 1
            if ev._ticks >= _TICKS:
                ev._tick()
            return ev._call(what, arg(ev, env))
        return unary

    def other(ev: Evaluator, env: dict) -> Value:
        return ev._ev(e, env)
    return other


class _SamplePole(Exception):
    """A sample point of a numeric limit at infinity where the function is undefined (not its limit)."""


def _sympy_limit_at(e: Any, env: dict, ev: Evaluator) -> Any:
    """sympy's value of the limit ``e`` with the point's exact values put in (``None`` if it has none)."""
    f, var, x0, direction = e.args
    subs = {}
    labels = {b.label for b in e.atoms(sp.IndexedBase)}
    for s in e.free_symbols:
        if not isinstance(s, sp.Symbol):
            continue  # an indexed element: below
        v = env.get(s)
        if v is None and s in labels:
            continue  # the name of an indexed family (g of g[j]) has no value: its elements have theirs, below
        if isinstance(v, ExactReal):  # an irrational breakpoint (√2): its exact value
            subs[s] = v.exact
            continue
        if not isinstance(v, Fraction):
            return None
        subs[s] = sp.Rational(v.numerator, v.denominator)
    # sums whose bounds the point fixes are written out, so their indexed terms get the point's values
    f = f.xreplace(subs)
    f = f.replace(lambda n: isinstance(n, sp.Sum) and all(b.is_Integer for lim in n.limits for b in lim[1:])
                  and all(0 <= lim[2] - lim[1] + 1 <= 64 for lim in n.limits), lambda n: n.doit())
    e = sp.Limit(f, var, x0, direction)
    for idx in e.atoms(sp.Indexed):
        v = ev.ev(idx, env)
        if not isinstance(v, Fraction):
            return None
        subs[idx] = sp.Rational(v.numerator, v.denominator)
    exact = sp.Limit(f.xreplace(subs), var, x0.xreplace(subs), str(direction))
    if exact in _LIMITS_AT:  # the same limit at the same exact point: sympy's answer does not change
        return _LIMITS_AT[exact]
    try:
        # too large for sympy's limit: decided by its size, not by a time limit (the same on every machine)
        out = None if sp.count_ops(exact.args[0]) > LIMIT_AT_OPS else exact.doit()
    except limits.TimeLimit:
        raise  # out of time: not remembered (that depends on the machine)
    except Exception:  # noqa: BLE001 - no value from sympy: no confirmation
        out = None
    else:
        out = None if out.has(sp.Limit) or not out.is_number else out
    if len(_LIMITS_AT) > 4096:
        _LIMITS_AT.clear()
    _LIMITS_AT[exact] = out
    return out


#: distances (from the finite end) at which an integrand over an infinite range is looked at: does it decay?
_FAR = (10**2, 10**4, 10**8, 10**16, 10**32)
#: steps (from the finite end) at which the terms of an infinite series are looked at: do they tend to 0?
_FAR_TERMS = (10**2, 10**3, 10**4, 10**5)
#: most nodes the look at a series' far terms may evaluate (a term with an inner sum up to k is not formed)
FAR_WORK = 4_000
#: (integrand, variable) -> the (c₂, c₁) of every exponent c₂x² + c₁x + c₀ of exp in it (a pure function)
_QUADRATIC: dict = {}


def _quadratic_exponents(f: Any, var: Any) -> list:
    """The coefficients (c₂, c₁) of each ``exp(g)`` in ``f`` whose g is a polynomial of degree ≤ 2 in ``var``
    (degree 1: c₂ = 0, no stationary point); remembered per (f, var)."""
    key = (f, var)
    hit = _QUADRATIC.get(key)
    if hit is not None:
        return hit
    out = []
    for node in sp.preorder_traversal(f):
        if isinstance(node, sp.exp) and node.args[0].has(var):
            try:
                poly = sp.Poly(node.args[0], var)
            except sp.PolynomialError:
                continue
            if poly.degree() == 2 and not any(c.has(var) for c in poly.all_coeffs()):
                c2, c1, _ = poly.all_coeffs()
                out.append((c2, c1))
    if len(_QUADRATIC) > 4096:
        _QUADRATIC.clear()
    _QUADRATIC[key] = out
    return out


#: sympy's limits at exact points already found (or refused), by the substituted Limit
_LIMITS_AT: dict = {}
#: Largest operation count (``sp.count_ops``) of a limit's expression, with the point's values put in, that
#: sympy's limit is asked about (the catalog's reach 31, at ~0.5 s); a larger one gets no confirmation
LIMIT_AT_OPS = 80
#: Largest operation count of a breakpoint's or a pole's expression that sympy's ``solveset`` is asked about
SOLVE_OPS = 40


def _tolerance(value: Any) -> Any:
    """Largest error estimate accepted for an approximated value at the working precision."""
    return mpmath.mpf(10) ** (-(mpmath.mp.dps // 2)) * max(1, abs(value))


@functools.lru_cache(maxsize=1024)
def _solve_real(g: Any, var: Any) -> tuple | None:
    """Real solutions of g = 0 in var (a proposal only: any point set keeps quadrature sound); ``None`` when
    sympy has no finite description of them or ``g`` is over :data:`SOLVE_OPS` operations. Remembered: the
    same breakpoint is asked for at every point and precision (its other symbols stay symbolic)."""
    if sp.count_ops(g) > SOLVE_OPS:
        return None
    sols = sp.solveset(g, var, domain=sp.S.Reals)
    if isinstance(sols, sp.FiniteSet):
        return tuple(sols)
    if isinstance(sols, sp.Union) or isinstance(sols, sp.ImageSet) or hasattr(sols, "args"):
        # periodic solutions (an ImageSet over the integers): take the ones in [a, b]
        out: list = []
        for part in (sols.args if isinstance(sols, sp.Union) else (sols,)):
            if isinstance(part, sp.FiniteSet):
                out += list(part)
            elif isinstance(part, sp.ImageSet):
                lam = part.lamda
                k = lam.variables[0]
                for n in range(-50, 51):
                    out.append(lam.expr.xreplace({k: sp.Integer(n)}))
        return tuple(out)
    return None
