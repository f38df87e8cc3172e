"""A corpus of derivative identities of the kind users write: d/dx F = f for a table antiderivative F.

:func:`cases` returns the corpus, the same list on every call: true identities ``d/dx F = f`` written
the way an integral table writes the integrand (``1/(x*(1 + b*x))``, not the expanded result of
``sympy.diff``), and false variants of them in which one coefficient, one sign or one function of
``f`` was changed. Every expression is built here in Python; nothing is parsed from text.

Categories (``Case.category``): ``rational`` (polynomials and rational functions), ``root`` (square
and cube roots, roots of quadratics), ``log``, ``exp``, ``trig``, ``inverse-trig``, ``hyperbolic``
(hyperbolic and inverse hyperbolic), ``composite`` (compositions and products typical of tables).

Domains: the variable ``x`` is either ``positive`` or ``real`` (a sympy assumption on the symbol);
the parameters ``a`` and ``b`` are positive symbols, or numbers in the numeric variant of a formula.
A true identity holds at every point of that domain where both sides are defined, with principal
branches (values may be complex there, e.g. ``asin(x/a)`` for ``x > a``; the derivative of sympy's
principal branch still equals the table's integrand), except at isolated points where F is not
differentiable: ``log(Abs(x))`` at 0, ``acot(x/a)`` at 0 and ``atan((x - a)/(1 + a*x))`` at −1/a (F jumps
there, as sympy defines these functions). A false variant differs from ``d/dx F`` at points of the domain.

How the corpus was checked (:func:`numeric_gap`): ``sympy.diff(F, x) - f`` evaluated with mpmath at
7 points spread over the domain (for ``positive``: 0.137 ... 17.1; for ``real`` also negative points)
with the parameters drawn from [0.45, 3.1], at 50 significant digits. True cases must vanish there
(relative gap < 1e-40, see ``tests/test_proving_power.py``); a false variant is kept only if it
differs at 4 of the points or more (checked at 30 digits when the corpus is built, so a mutation
that happens to give a true identity is dropped and the next candidate is taken).

Sizes: about 300 true and 300 false cases (:func:`summary`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import mpmath
import sympy as sp
from sympy import (
    Rational,
    acos,
    acosh,
    acot,
    acoth,
    asec,
    asin,
    asinh,
    atan,
    atanh,
    cos,
    cosh,
    cot,
    coth,
    csc,
    csch,
    exp,
    log,
    sec,
    sech,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
)

half = Rational(1, 2)
third = Rational(1, 3)

#: the variable on each domain, and the two positive parameters
X = {"positive": sp.Symbol("x", positive=True), "real": sp.Symbol("x", real=True)}
A = sp.Symbol("a", positive=True)
B = sp.Symbol("b", positive=True)

#: numeric values of (a, b) for the numeric variant of a formula, cycled by the formula's position
NUMERIC_PARAMS = ((1, 2), (2, 3), (3, half))

#: sample points of x per domain (none is an integer or a simple fraction: no table singularity sits there)
POINTS = {
    "positive": ("0.137", "0.61", "1.37", "2.9", "6.3", "0.93", "17.1"),
    "real": ("-2.3", "-0.71", "0.29", "0.83", "1.9", "3.7", "-5.1"),
}
#: sample values of (a, b), one pair per point
PARAM_POINTS = (("1.3", "0.7"), ("2.2", "3.1"), ("0.45", "1.6"), ("1.7", "2.45"), ("3.1", "0.55"),
                ("0.8", "1.15"), ("2.6", "1.9"))


@dataclass(frozen=True)
class Case:
    """One identity claim ``d/dx F = f``.

    Attributes:
        id: stable name, e.g. ``log.partial-fraction.sym`` (true) or ``log.partial-fraction.sym~sign``
            (its false variant).
        category: one of the categories in the module docstring.
        x: the variable (positive or real sympy symbol).
        params: the parameter symbols that occur (positive), possibly empty.
        F: the antiderivative.
        f: the claimed derivative.
        truth: whether ``d/dx F = f`` holds on the domain.
        mutation: ``""`` for a true case, else ``"coefficient"``, ``"sign"`` or ``"function"``.
        of: for a false variant, the id of the true case it was made from (else ``""``).
    """

    id: str
    category: str
    x: sp.Symbol
    params: tuple[sp.Symbol, ...]
    F: sp.Expr
    f: sp.Expr
    truth: bool
    mutation: str = ""
    of: str = ""

    @property
    def domain(self) -> str:
        return "positive" if self.x.is_positive else "real"


# --- the formulas: (name, domain, fn(x, a, b) -> (F, f)); fn uses a, b only if the name says so --------------

Formula = tuple[str, str, Callable[[sp.Expr, sp.Expr, sp.Expr], tuple[sp.Expr, sp.Expr]]]

RATIONAL: list[Formula] = [
    ("poly-quartic", "real", lambda x, a, b: (a * x**4 / 4 + b * x, a * x**3 + b)),
    ("poly-linear-power", "real", lambda x, a, b: ((a * x + b)**6 / (6 * a), (a * x + b)**5)),
    ("poly-quadratic", "real", lambda x, a, b: (x**3 / 3 - a * x**2 / 2 + b * x, x**2 - a * x + b)),
    ("linear-inverse-square", "positive", lambda x, a, b: (-1 / (a * (a * x + b)), 1 / (a * x + b)**2)),
    ("linear-inverse-cube", "positive", lambda x, a, b: (-1 / (2 * a * (a * x + b)**2), 1 / (a * x + b)**3)),
    ("linear-inverse", "positive", lambda x, a, b: (log(a * x + b) / a, 1 / (a * x + b))),
    ("x-over-linear", "positive", lambda x, a, b: (x / a - b * log(a * x + b) / a**2, x / (a * x + b))),
    ("two-linear-factors", "positive",
     lambda x, a, b: ((log(x + a) - log(x + b)) / (b - a), 1 / ((x + a) * (x + b)))),
    ("x-squared-plus-a-squared", "real", lambda x, a, b: (atan(x / a) / a, 1 / (x**2 + a**2))),
    ("x-squared-plus-a-squared-squared", "real",
     lambda x, a, b: (x / (2 * a**2 * (x**2 + a**2)) + atan(x / a) / (2 * a**3), 1 / (x**2 + a**2)**2)),
    ("x-over-quadratic", "real", lambda x, a, b: (log(x**2 + a**2) / 2, x / (x**2 + a**2))),
    ("x-over-quadratic-squared", "real", lambda x, a, b: (-1 / (2 * (x**2 + a**2)), x / (x**2 + a**2)**2)),
    ("x-squared-over-quadratic", "real", lambda x, a, b: (x - a * atan(x / a), x**2 / (x**2 + a**2))),
    ("difference-of-squares", "positive",
     lambda x, a, b: (log((x - a) / (x + a)) / (2 * a), 1 / (x**2 - a**2))),
    ("x-times-shifted", "positive", lambda x, a, b: ((log(x) - log(x + a)) / a, 1 / (x * (x + a)))),
    ("issue-example", "positive", lambda x, a, b: (log(x) - log(1 + b * x), 1 / (x * (1 + b * x)))),
    ("x-squared-over-shifted", "positive",
     lambda x, a, b: (x**2 / 2 - a * x + a**2 * log(x + a), x**2 / (x + a))),
    ("x-squared-over-cubic", "positive", lambda x, a, b: (log(x**3 + a**3) / 3, x**2 / (x**3 + a**3))),
    ("x-squared-times-linear", "positive",
     lambda x, a, b: (-1 / (a * x) + b / a**2 * (log(a + b * x) - log(x)), 1 / (x**2 * (a + b * x)))),
    ("x-over-linear-squared", "positive",
     lambda x, a, b: (a / (b**2 * (a + b * x)) + log(a + b * x) / b**2, x / (a + b * x)**2)),
    ("x-times-linear-squared", "positive",
     lambda x, a, b: (1 / (a * (a + b * x)) + (log(x) - log(a + b * x)) / a**2, 1 / (x * (a + b * x)**2))),
    ("x-cubed-over-quadratic", "real",
     lambda x, a, b: (x**2 / 2 - a**2 / 2 * log(x**2 + a**2), x**3 / (x**2 + a**2))),
    ("log-derivative-quadratic", "positive",
     lambda x, a, b: (log(x**2 + a * x + b), (2 * x + a) / (x**2 + a * x + b))),
    ("inverse-powers", "positive", lambda x, a, b: (-a / (2 * x**2) + b / x, a / x**3 - b / x**2)),
    ("x-over-shifted-cube", "positive", lambda x, a, b: (-1 / (x + a) + a / (2 * (x + a)**2), x / (x + a)**3)),
    ("completed-square", "real", lambda x, a, b: (atan((x + a) / b) / b, 1 / (x**2 + 2 * a * x + a**2 + b**2))),
    ("linear-over-quadratic", "real",
     lambda x, a, b: (log(x**2 + a**2) / 2 + b / a * atan(x / a), (x + b) / (x**2 + a**2))),
    ("reciprocal-x", "positive", lambda x, a, b: (a * log(x), a / x)),
    ("sum-of-cubes", "positive",
     lambda x, a, b: (log((x + a)**2 / (x**2 - a * x + a**2)) / (6 * a**2)
                      + atan((2 * x - a) / (a * sqrt(3))) / (a**2 * sqrt(3)), 1 / (x**3 + a**3))),
    ("sum-of-fourth-powers", "positive",
     lambda x, a, b: ((log((x**2 + sqrt(2) * a * x + a**2) / (x**2 - sqrt(2) * a * x + a**2))
                       + 2 * atan(sqrt(2) * a * x / (a**2 - x**2))) / (4 * sqrt(2) * a**3), 1 / (x**4 + a**4))),
    ("x-over-quartic", "real", lambda x, a, b: (atan(x**2 / a**2) / (2 * a**2), x / (x**4 + a**4))),
    ("log-abs", "real", lambda x, a, b: (a * log(sp.Abs(x)), a / x)),
]

ROOT: list[Formula] = [
    ("inverse-sqrt-linear", "positive", lambda x, a, b: (2 * sqrt(a * x + b) / a, 1 / sqrt(a * x + b))),
    ("sqrt-linear", "positive", lambda x, a, b: (2 * (a * x + b)**Rational(3, 2) / (3 * a), sqrt(a * x + b))),
    ("x-over-sqrt-linear", "positive",
     lambda x, a, b: (2 * (a * x - 2 * b) * sqrt(a * x + b) / (3 * a**2), x / sqrt(a * x + b))),
    ("x-times-sqrt-linear", "positive",
     lambda x, a, b: (2 * (3 * a * x - 2 * b) * (a * x + b)**Rational(3, 2) / (15 * a**2), x * sqrt(a * x + b))),
    ("x-sqrt-linear-reciprocal", "positive",
     lambda x, a, b: (log((sqrt(a * x + b) - sqrt(b)) / (sqrt(a * x + b) + sqrt(b))) / sqrt(b),
                      1 / (x * sqrt(a * x + b)))),
    ("x-squared-sqrt-linear-reciprocal", "positive",
     lambda x, a, b: (-sqrt(a * x + b) / (b * x)
                      - a / (2 * b**Rational(3, 2)) * log((sqrt(a * x + b) - sqrt(b)) / (sqrt(a * x + b) + sqrt(b))),
                      1 / (x**2 * sqrt(a * x + b)))),
    ("sqrt-linear-over-x", "positive",
     lambda x, a, b: (2 * sqrt(a * x + b) + sqrt(b) * log((sqrt(a * x + b) - sqrt(b)) / (sqrt(a * x + b) + sqrt(b))),
                      sqrt(a * x + b) / x)),
    ("x-over-sqrt-quadratic", "real", lambda x, a, b: (sqrt(x**2 + a**2), x / sqrt(x**2 + a**2))),
    ("log-form-asinh", "real", lambda x, a, b: (log(x + sqrt(x**2 + a**2)), 1 / sqrt(x**2 + a**2))),
    ("sqrt-quadratic", "real",
     lambda x, a, b: (x * sqrt(x**2 + a**2) / 2 + a**2 / 2 * log(x + sqrt(x**2 + a**2)), sqrt(x**2 + a**2))),
    ("x-over-sqrt-a2-minus-x2", "positive", lambda x, a, b: (-sqrt(a**2 - x**2), x / sqrt(a**2 - x**2))),
    ("sqrt-a2-minus-x2", "positive",
     lambda x, a, b: (x * sqrt(a**2 - x**2) / 2 + a**2 / 2 * asin(x / a), sqrt(a**2 - x**2))),
    ("x2-sqrt-quadratic-reciprocal", "positive",
     lambda x, a, b: (-sqrt(x**2 + a**2) / (a**2 * x), 1 / (x**2 * sqrt(x**2 + a**2)))),
    ("quadratic-three-halves", "real",
     lambda x, a, b: (x / (a**2 * sqrt(x**2 + a**2)), 1 / (x**2 + a**2)**Rational(3, 2))),
    ("x-over-sqrt-x2-minus-a2", "positive", lambda x, a, b: (sqrt(x**2 - a**2), x / sqrt(x**2 - a**2))),
    ("log-form-acosh", "positive", lambda x, a, b: (log(x + sqrt(x**2 - a**2)), 1 / sqrt(x**2 - a**2))),
    ("cube-root-linear", "positive",
     lambda x, a, b: (3 * (a * x + b)**Rational(4, 3) / (4 * a), sp.cbrt(a * x + b))),
    ("inverse-cube-root-linear", "positive",
     lambda x, a, b: (3 * (a * x + b)**Rational(2, 3) / (2 * a), 1 / sp.cbrt(a * x + b))),
    ("cube-root-x", "positive", lambda x, a, b: (3 * a * x**Rational(4, 3) / 4, a * sp.cbrt(x))),
    ("sqrt-x-plus-a-reciprocal", "positive",
     lambda x, a, b: (2 * sqrt(x) - 2 * a * log(sqrt(x) + a), 1 / (sqrt(x) + a))),
    ("sqrt-x-times-shifted", "positive",
     lambda x, a, b: (2 * atan(sqrt(x) / sqrt(a)) / sqrt(a), 1 / (sqrt(x) * (x + a)))),
    ("x2-plus-ax-sqrt", "positive",
     lambda x, a, b: (log(2 * x + a + 2 * sqrt(x**2 + a * x)), 1 / sqrt(x**2 + a * x))),
    ("general-quadratic-sqrt", "positive",
     lambda x, a, b: (log(2 * x + 2 * a + 2 * sqrt(x**2 + 2 * a * x + b)), 1 / sqrt(x**2 + 2 * a * x + b))),
    ("linear-over-sqrt-x", "positive",
     lambda x, a, b: (2 * x**Rational(3, 2) / 3 + 2 * a * sqrt(x), (x + a) / sqrt(x))),
    ("x-times-sqrt-quadratic", "real",
     lambda x, a, b: ((x**2 + a**2)**Rational(3, 2) / 3, x * sqrt(x**2 + a**2))),
    ("x-over-quadratic-three-halves", "real",
     lambda x, a, b: (-1 / sqrt(x**2 + a**2), x / (x**2 + a**2)**Rational(3, 2))),
    ("sqrt-x-over-shifted", "positive",
     lambda x, a, b: (2 * sqrt(x) - 2 * sqrt(a) * atan(sqrt(x) / sqrt(a)), sqrt(x) / (x + a))),
    ("sqrt-quadratic-over-x", "positive",
     lambda x, a, b: (sqrt(x**2 + a**2) - a * log((a + sqrt(x**2 + a**2)) / x), sqrt(x**2 + a**2) / x)),
    ("sqrt-a2-minus-x2-over-x", "positive",
     lambda x, a, b: (sqrt(a**2 - x**2) - a * log((a + sqrt(a**2 - x**2)) / x), sqrt(a**2 - x**2) / x)),
    ("x-sqrt-a2-minus-x2-reciprocal", "positive",
     lambda x, a, b: (-log((a + sqrt(a**2 - x**2)) / x) / a, 1 / (x * sqrt(a**2 - x**2)))),
    ("sqrt-x2-minus-a2-over-x", "positive",
     lambda x, a, b: (sqrt(x**2 - a**2) - a * asec(x / a), sqrt(x**2 - a**2) / x)),
    ("x2-over-sqrt-a2-minus-x2", "positive",
     lambda x, a, b: (-x * sqrt(a**2 - x**2) / 2 + a**2 / 2 * asin(x / a), x**2 / sqrt(a**2 - x**2))),
    ("x2-sqrt-a2-minus-x2", "positive",
     lambda x, a, b: (x * (2 * x**2 - a**2) * sqrt(a**2 - x**2) / 8 + a**4 / 8 * asin(x / a),
                      x**2 * sqrt(a**2 - x**2))),
    ("sqrt-quadratic-over-x2", "positive",
     lambda x, a, b: (-sqrt(a**2 + x**2) / x + asinh(x / a), sqrt(a**2 + x**2) / x**2)),
    ("general-quadratic-leading", "positive",
     lambda x, a, b: (log(2 * sqrt(a) * sqrt(a * x**2 + b * x + 1) + 2 * a * x + b) / sqrt(a),
                      1 / sqrt(a * x**2 + b * x + 1))),
]

LOG: list[Formula] = [
    ("log-linear", "positive", lambda x, a, b: (x * log(a * x) - x, log(a * x))),
    ("x-log", "positive", lambda x, a, b: (x**2 / 2 * log(a * x) - x**2 / 4, x * log(a * x))),
    ("log-over-x", "positive", lambda x, a, b: (log(a * x)**2 / 2, log(a * x) / x)),
    ("log-log", "positive", lambda x, a, b: (log(log(a * x)), 1 / (x * log(a * x)))),
    ("log-affine", "positive", lambda x, a, b: ((x + b / a) * log(a * x + b) - x, log(a * x + b))),
    ("log-quadratic", "real",
     lambda x, a, b: (x * log(x**2 + a**2) - 2 * x + 2 * a * atan(x / a), log(x**2 + a**2))),
    ("x2-log", "positive", lambda x, a, b: (x**3 * log(a * x) / 3 - x**3 / 9, x**2 * log(a * x))),
    ("log-squared", "positive",
     lambda x, a, b: (x * log(a * x)**2 - 2 * x * log(a * x) + 2 * x, log(a * x)**2)),
    ("log-squared-over-x", "positive", lambda x, a, b: (log(a * x)**3 / 3, log(a * x)**2 / x)),
    ("log-of-product", "positive", lambda x, a, b: (log(x * (x + a)), (2 * x + a) / (x * (x + a)))),
    ("log-of-quotient", "positive", lambda x, a, b: (log((x + a) / (x + b)), (b - a) / ((x + a) * (x + b)))),
    ("log-one-plus-bx", "positive", lambda x, a, b: (log(1 + b * x), b / (1 + b * x))),
    ("integral-log-one-plus-bx", "positive",
     lambda x, a, b: ((x + 1 / b) * log(1 + b * x) - x, log(1 + b * x))),
    ("log-shifted-log", "positive", lambda x, a, b: (log(a + log(x)), 1 / (x * (a + log(x))))),
    ("log-sqrt", "real", lambda x, a, b: (log(sqrt(x**2 + a**2)), x / (x**2 + a**2))),
    ("log-over-x-squared", "positive", lambda x, a, b: (-(log(a * x) + 1) / x, log(a * x) / x**2)),
    ("log-of-power", "positive", lambda x, a, b: (log(x**a), a / x)),
    ("log-quadratic-ratio", "real", lambda x, a, b: (log(a * x**2 + b), 2 * a * x / (a * x**2 + b))),
    ("power-times-log", "positive",
     lambda x, a, b: (x**(a + 1) / (a + 1) * (log(x) - 1 / (a + 1)), x**a * log(x))),
    ("log-over-sqrt", "positive", lambda x, a, b: (2 * sqrt(x) * log(a * x) - 4 * sqrt(x), log(a * x) / sqrt(x))),
    ("log-shifted-quotient", "positive", lambda x, a, b: (log((x - a) / x) / a, 1 / (x * (x - a)))),
    ("log-over-shifted-squared", "positive",
     lambda x, a, b: (-log(x) / (a + x) + (log(x) - log(a + x)) / a, log(x) / (a + x)**2)),
    ("log-base-b", "positive", lambda x, a, b: (log(a * x) / log(b + 1), 1 / (x * log(b + 1)))),
    ("reciprocal-log-squared", "positive", lambda x, a, b: (-1 / log(a * x), 1 / (x * log(a * x)**2))),
    ("integral-log-asinh-form", "real",
     lambda x, a, b: (x * log(x + sqrt(x**2 + a**2)) - sqrt(x**2 + a**2), log(x + sqrt(x**2 + a**2)))),
    ("log-abs-affine", "real", lambda x, a, b: (log(sp.Abs(a * x - b)) / a, 1 / (a * x - b))),
]

EXP: list[Formula] = [
    ("exp-linear", "real", lambda x, a, b: (exp(a * x) / a, exp(a * x))),
    ("scaled-exp", "real", lambda x, a, b: (a * exp(b * x) / b, a * exp(b * x))),
    ("x-exp", "real", lambda x, a, b: (exp(a * x) * (x / a - 1 / a**2), x * exp(a * x))),
    ("x2-exp", "real",
     lambda x, a, b: (exp(a * x) * (x**2 / a - 2 * x / a**2 + 2 / a**3), x**2 * exp(a * x))),
    ("exp-sin", "real",
     lambda x, a, b: (exp(a * x) * (a * sin(b * x) - b * cos(b * x)) / (a**2 + b**2), exp(a * x) * sin(b * x))),
    ("exp-cos", "real",
     lambda x, a, b: (exp(a * x) * (a * cos(b * x) + b * sin(b * x)) / (a**2 + b**2), exp(a * x) * cos(b * x))),
    ("exp-decay", "real", lambda x, a, b: (-exp(-a * x) / a, exp(-a * x))),
    ("gaussian-x", "real", lambda x, a, b: (exp(a * x**2) / (2 * a), x * exp(a * x**2))),
    ("log-exp-shift", "real", lambda x, a, b: (log(exp(x) + a), exp(x) / (exp(x) + a))),
    ("one-over-affine-exp", "real", lambda x, a, b: (x / a - log(a + b * exp(x)) / a, 1 / (a + b * exp(x)))),
    ("atan-exp", "real", lambda x, a, b: (atan(exp(a * x)) / a, exp(a * x) / (1 + exp(2 * a * x)))),
    ("power-base-a", "real", lambda x, a, b: ((a + 1)**x / log(a + 1), (a + 1)**x)),
    ("exp-over-x", "positive", lambda x, a, b: (exp(a * x) / x, exp(a * x) * (a * x - 1) / x**2)),
    ("exp-sin-composite", "real", lambda x, a, b: (exp(a * sin(x)), a * cos(x) * exp(a * sin(x)))),
    ("exp-sqrt", "positive", lambda x, a, b: (exp(sqrt(x)) * (2 * sqrt(x) - 2), exp(sqrt(x)))),
    ("x-exp-decay", "real", lambda x, a, b: (-exp(-a * x) * (a * x + 1) / a**2, x * exp(-a * x))),
    ("exp-affine", "real", lambda x, a, b: (exp(a * x + b) / a, exp(a * x + b))),
    ("gaussian-scaled", "real",
     lambda x, a, b: (-a**2 * exp(-x**2 / (2 * a**2)), x * exp(-x**2 / (2 * a**2)))),
    ("softplus", "real", lambda x, a, b: (log(1 + exp(a * x)) / a, 1 / (1 + exp(-a * x)))),
    ("sigmoid", "real", lambda x, a, b: (1 / (1 + exp(-a * x)), a * exp(-a * x) / (1 + exp(-a * x))**2)),
    ("double-exp", "real", lambda x, a, b: (exp(a * exp(x)), a * exp(x + a * exp(x)))),
    ("x-exp-over-affine-squared", "positive",
     lambda x, a, b: (exp(a * x) / (a**2 * (1 + a * x)), x * exp(a * x) / (1 + a * x)**2)),
    ("exp-over-exp2-plus-a2", "real", lambda x, a, b: (atan(exp(x) / a) / a, exp(x) / (exp(2 * x) + a**2))),
    ("x3-gaussian", "real", lambda x, a, b: (-(a * x**2 + 1) * exp(-a * x**2) / (2 * a**2), x**3 * exp(-a * x**2))),
    ("exp-cosh", "real",
     lambda x, a, b: (exp(a * x) * (a * cosh(b * x) - b * sinh(b * x)) / (a**2 - b**2), exp(a * x) * cosh(b * x))),
]

TRIG: list[Formula] = [
    ("sin-linear", "real", lambda x, a, b: (-cos(a * x) / a, sin(a * x))),
    ("cos-linear", "real", lambda x, a, b: (sin(a * x) / a, cos(a * x))),
    ("sin-squared", "real", lambda x, a, b: (x / 2 - sin(2 * a * x) / (4 * a), sin(a * x)**2)),
    ("cos-squared", "real", lambda x, a, b: (x / 2 + sin(2 * a * x) / (4 * a), cos(a * x)**2)),
    ("tan", "real", lambda x, a, b: (-log(cos(a * x)) / a, tan(a * x))),
    ("cot", "positive", lambda x, a, b: (log(sin(a * x)) / a, cot(a * x))),
    ("sec-squared", "real", lambda x, a, b: (tan(a * x) / a, sec(a * x)**2)),
    ("sec-tan", "real", lambda x, a, b: (sec(a * x) / a, sec(a * x) * tan(a * x))),
    ("sec", "real", lambda x, a, b: (log(sec(a * x) + tan(a * x)) / a, sec(a * x))),
    ("tan-squared", "real", lambda x, a, b: (tan(a * x) / a - x, tan(a * x)**2)),
    ("sin-cos", "real", lambda x, a, b: (sin(a * x)**2 / (2 * a), sin(a * x) * cos(a * x))),
    ("cos-cubed", "real", lambda x, a, b: (sin(a * x) / a - sin(a * x)**3 / (3 * a), cos(a * x)**3)),
    ("sin-cubed", "real", lambda x, a, b: (-cos(a * x) / a + cos(a * x)**3 / (3 * a), sin(a * x)**3)),
    ("x-sin", "real", lambda x, a, b: (sin(a * x) / a**2 - x * cos(a * x) / a, x * sin(a * x))),
    ("x-cos", "real", lambda x, a, b: (cos(a * x) / a**2 + x * sin(a * x) / a, x * cos(a * x))),
    ("sin-a-cos-b", "real",
     lambda x, a, b: (-cos((a - b) * x) / (2 * (a - b)) - cos((a + b) * x) / (2 * (a + b)), sin(a * x) * cos(b * x))),
    ("sin-a-sin-b", "real",
     lambda x, a, b: (sin((a - b) * x) / (2 * (a - b)) - sin((a + b) * x) / (2 * (a + b)), sin(a * x) * sin(b * x))),
    ("cos-a-cos-b", "real",
     lambda x, a, b: (sin((a - b) * x) / (2 * (a - b)) + sin((a + b) * x) / (2 * (a + b)), cos(a * x) * cos(b * x))),
    ("csc-squared", "positive", lambda x, a, b: (-cot(a * x) / a, csc(a * x)**2)),
    ("csc", "positive", lambda x, a, b: (log(tan(a * x / 2)) / a, csc(a * x))),
    ("sec-cubed", "real",
     lambda x, a, b: (sec(a * x) * tan(a * x) / (2 * a) + log(sec(a * x) + tan(a * x)) / (2 * a), sec(a * x)**3)),
    ("tan-sec-squared", "real", lambda x, a, b: (tan(a * x)**2 / (2 * a), tan(a * x) * sec(a * x)**2)),
    ("sin-over-one-plus-cos", "real", lambda x, a, b: (-log(1 + cos(a * x)) / a, sin(a * x) / (1 + cos(a * x)))),
    ("one-over-one-plus-cos", "real", lambda x, a, b: (tan(a * x / 2) / a, 1 / (1 + cos(a * x)))),
    ("x-sec-squared", "real", lambda x, a, b: (x * tan(a * x) / a + log(cos(a * x)) / a**2, x * sec(a * x)**2)),
    ("sin-cubed-cos", "real", lambda x, a, b: (sin(a * x)**4 / (4 * a), sin(a * x)**3 * cos(a * x))),
    ("cos-fourth", "real",
     lambda x, a, b: (3 * x / 8 + sin(2 * a * x) / (4 * a) + sin(4 * a * x) / (32 * a), cos(a * x)**4)),
    ("sin2-cos2", "real", lambda x, a, b: (x / 8 - sin(4 * a * x) / (32 * a), sin(a * x)**2 * cos(a * x)**2)),
    ("sin-of-sin", "real", lambda x, a, b: (sin(a * sin(x)), a * cos(x) * cos(a * sin(x)))),
    ("log-shifted-sin", "real", lambda x, a, b: (log(a + 1 + sin(x)), cos(x) / (a + 1 + sin(x)))),
    ("one-over-one-plus-sin", "real", lambda x, a, b: ((tan(a * x) - sec(a * x)) / a, 1 / (1 + sin(a * x)))),
    ("sin-cos-double-angle", "real", lambda x, a, b: (-cos(2 * a * x) / (4 * a), sin(a * x) * cos(a * x))),
    ("sec-quotient-form", "real", lambda x, a, b: (log((1 + sin(a * x)) / cos(a * x)) / a, sec(a * x))),
    ("tan-cubed-form", "real", lambda x, a, b: (tan(a * x)**3 / (3 * a), tan(a * x)**2 * sec(a * x)**2)),
    ("one-over-a-plus-b-cos", "real",
     lambda x, a, b: (2 / sqrt(a**2 + 2 * a * b) * atan(sqrt(a / (a + 2 * b)) * tan(x / 2)),
                      1 / (a + b + b * cos(x)))),
    ("a2-sin2-plus-b2-cos2", "real",
     lambda x, a, b: (atan(a * tan(x) / b) / (a * b), 1 / (a**2 * sin(x)**2 + b**2 * cos(x)**2))),
    ("sec-fourth", "real", lambda x, a, b: (tan(a * x) / a + tan(a * x)**3 / (3 * a), sec(a * x)**4)),
    ("tan-cubed", "real", lambda x, a, b: (tan(a * x)**2 / (2 * a) + log(cos(a * x)) / a, tan(a * x)**3)),
    ("cot-squared", "positive", lambda x, a, b: (-cot(a * x) / a - x, cot(a * x)**2)),
    ("sin-fifth", "real",
     lambda x, a, b: ((-cos(a * x) + 2 * cos(a * x)**3 / 3 - cos(a * x)**5 / 5) / a, sin(a * x)**5)),
    ("sin-double-over-shifted-cos2", "real",
     lambda x, a, b: (-log(a + cos(x)**2), sin(2 * x) / (a + cos(x)**2))),
    ("x-over-one-plus-cos", "real",
     lambda x, a, b: (x * tan(x / 2) + 2 * log(cos(x / 2)), x / (1 + cos(x)))),
    ("one-over-one-plus-tan", "real",
     lambda x, a, b: (x / 2 + log(sin(x) + cos(x)) / 2, 1 / (1 + tan(x)))),
    ("sec-abs", "real", lambda x, a, b: (log(sp.Abs(sec(a * x) + tan(a * x))) / a, sec(a * x))),
]

INVERSE_TRIG: list[Formula] = [
    ("atan-scaled", "real", lambda x, a, b: (atan(a * x) / a, 1 / (1 + a**2 * x**2))),
    ("asin", "positive", lambda x, a, b: (asin(x / a), 1 / sqrt(a**2 - x**2))),
    ("acos", "positive", lambda x, a, b: (acos(x / a), -1 / sqrt(a**2 - x**2))),
    ("acot", "real", lambda x, a, b: (acot(x / a), -a / (x**2 + a**2))),
    ("integral-atan", "real", lambda x, a, b: (x * atan(x / a) - a / 2 * log(x**2 + a**2), atan(x / a))),
    ("integral-asin", "positive", lambda x, a, b: (x * asin(x / a) + sqrt(a**2 - x**2), asin(x / a))),
    ("integral-acos", "positive", lambda x, a, b: (x * acos(x / a) - sqrt(a**2 - x**2), acos(x / a))),
    ("atan-squared", "real", lambda x, a, b: (atan(x / a)**2 / 2, a * atan(x / a) / (x**2 + a**2))),
    ("asin-squared", "positive", lambda x, a, b: (asin(x / a)**2 / 2, asin(x / a) / sqrt(a**2 - x**2))),
    ("asec", "positive", lambda x, a, b: (asec(x / a) / a, 1 / (x * sqrt(x**2 - a**2)))),
    ("atan-shifted", "real", lambda x, a, b: (atan((x + a) / b) / b, 1 / ((x + a)**2 + b**2))),
    ("asin-shifted", "positive", lambda x, a, b: (asin((x - a) / a), 1 / sqrt(2 * a * x - x**2))),
    ("atan-sqrt", "positive", lambda x, a, b: (atan(sqrt(x / a)), sqrt(a) / (2 * sqrt(x) * (x + a)))),
    ("x-atan", "real", lambda x, a, b: (x**2 / 2 * atan(a * x) - x / (2 * a) + atan(a * x) / (2 * a**2),
                                         x * atan(a * x))),
    ("asin-sqrt", "positive", lambda x, a, b: (asin(sqrt(x / a)), 1 / (2 * sqrt(a * x - x**2)))),
    ("atan-affine", "real", lambda x, a, b: (atan(a * x + b) / a, 1 / (1 + (a * x + b)**2))),
    ("atan-plus-atan-reciprocal", "positive", lambda x, a, b: (atan(x / a) + atan(a / x), sp.Integer(0))),
    ("asin-plus-acos", "positive", lambda x, a, b: (asin(x / a) + acos(x / a), sp.Integer(0))),
    ("atan-difference", "real", lambda x, a, b: (atan((x - a) / (1 + a * x)), 1 / (1 + x**2))),
    ("atan-half-angle", "real", lambda x, a, b: (2 * atan(x / (a + sqrt(a**2 + x**2))), a / (a**2 + x**2))),
    ("asin-of-ratio", "real", lambda x, a, b: (asin(x / sqrt(x**2 + a**2)), a / (x**2 + a**2))),
    ("atan-of-ratio", "positive", lambda x, a, b: (atan(x / sqrt(a**2 - x**2)), 1 / sqrt(a**2 - x**2))),
    ("x-atan-alternative", "real", lambda x, a, b: ((a**2 * x**2 + 1) * atan(a * x) / (2 * a**2) - x / (2 * a),
                                                    x * atan(a * x))),
    ("atan-exp-half", "real", lambda x, a, b: (2 * atan(exp(x / a)), 1 / (a * cosh(x / a)))),
    ("x-asin", "positive",
     lambda x, a, b: ((2 * x**2 - a**2) / 4 * asin(x / a) + x * sqrt(a**2 - x**2) / 4, x * asin(x / a))),
    ("asin-over-x2", "positive",
     lambda x, a, b: (-asin(x) / x - log((1 + sqrt(1 - x**2)) / x), asin(x) / x**2)),
    ("asin-of-sin-ratio", "real", lambda x, a, b: (asin(sin(x) / (a + 1)), cos(x) / sqrt((a + 1)**2 - sin(x)**2))),
    ("integral-atan-sqrt", "positive",
     lambda x, a, b: ((x + a) * atan(sqrt(x / a)) - sqrt(a * x), atan(sqrt(x / a)))),
]

HYPERBOLIC: list[Formula] = [
    ("sinh-linear", "real", lambda x, a, b: (cosh(a * x) / a, sinh(a * x))),
    ("cosh-linear", "real", lambda x, a, b: (sinh(a * x) / a, cosh(a * x))),
    ("tanh", "real", lambda x, a, b: (log(cosh(a * x)) / a, tanh(a * x))),
    ("sech-squared", "real", lambda x, a, b: (tanh(a * x) / a, sech(a * x)**2)),
    ("sech", "real", lambda x, a, b: (atan(sinh(a * x)) / a, sech(a * x))),
    ("sinh-squared", "real", lambda x, a, b: (sinh(2 * a * x) / (4 * a) - x / 2, sinh(a * x)**2)),
    ("cosh-squared", "real", lambda x, a, b: (sinh(2 * a * x) / (4 * a) + x / 2, cosh(a * x)**2)),
    ("x-sinh", "real", lambda x, a, b: (x * cosh(a * x) / a - sinh(a * x) / a**2, x * sinh(a * x))),
    ("tanh-squared", "real", lambda x, a, b: (x - tanh(a * x) / a, tanh(a * x)**2)),
    ("coth", "positive", lambda x, a, b: (log(sinh(a * x)) / a, coth(a * x))),
    ("sech-tanh", "real", lambda x, a, b: (-sech(a * x) / a, sech(a * x) * tanh(a * x))),
    ("sinh-cosh", "real", lambda x, a, b: (sinh(a * x)**2 / (2 * a), sinh(a * x) * cosh(a * x))),
    ("csch", "positive", lambda x, a, b: (log(tanh(a * x / 2)) / a, csch(a * x))),
    ("sinh-cubed", "real", lambda x, a, b: (cosh(a * x)**3 / (3 * a) - cosh(a * x) / a, sinh(a * x)**3)),
    ("asinh", "real", lambda x, a, b: (asinh(x / a), 1 / sqrt(x**2 + a**2))),
    ("acosh", "positive", lambda x, a, b: (acosh(x / a), 1 / sqrt(x**2 - a**2))),
    ("atanh", "real", lambda x, a, b: (atanh(x / a) / a, 1 / (a**2 - x**2))),
    ("integral-asinh", "real", lambda x, a, b: (x * asinh(x / a) - sqrt(x**2 + a**2), asinh(x / a))),
    ("integral-acosh", "positive", lambda x, a, b: (x * acosh(x / a) - sqrt(x**2 - a**2), acosh(x / a))),
    ("integral-atanh", "real", lambda x, a, b: (x * atanh(x / a) + a / 2 * log(a**2 - x**2), atanh(x / a))),
    ("acoth", "positive", lambda x, a, b: (acoth(x / a) / a, 1 / (a**2 - x**2))),
    ("asinh-affine", "real", lambda x, a, b: (asinh(a * x + b) / a, 1 / sqrt((a * x + b)**2 + 1))),
    ("asinh-sqrt", "positive", lambda x, a, b: (asinh(sqrt(x / a)), 1 / (2 * sqrt(x * (x + a))))),
    ("tanh-of-log", "positive", lambda x, a, b: (tanh(a * log(x)), a * sech(a * log(x))**2 / x)),
    ("log-cosh-plus-sinh", "real", lambda x, a, b: (log(cosh(a * x) + sinh(a * x)), a)),
    ("cosh2-minus-sinh2", "real", lambda x, a, b: (cosh(a * x)**2 - sinh(a * x)**2, sp.Integer(0))),
    ("sinh-of-log", "positive", lambda x, a, b: (sinh(log(x)), (1 + 1 / x**2) / 2)),
    ("cosh-of-log", "positive", lambda x, a, b: (a * cosh(log(x)), a * (1 - 1 / x**2) / 2)),
    ("acosh-shifted", "positive", lambda x, a, b: (acosh(x + a), 1 / sqrt((x + a)**2 - 1))),
    ("atanh-of-tanh-ratio", "real", lambda x, a, b: (atanh(tanh(x) / (a + 1)),
                                                     (a + 1) * sech(x)**2 / ((a + 1)**2 - tanh(x)**2))),
    ("one-over-one-plus-cosh", "real", lambda x, a, b: (tanh(a * x / 2) / a, 1 / (1 + cosh(a * x)))),
    ("asinh-over-sqrt", "real", lambda x, a, b: (asinh(x / a)**2 / 2, asinh(x / a) / sqrt(x**2 + a**2))),
    ("x-atanh", "real",
     lambda x, a, b: ((x**2 - a**2) / 2 * atanh(x / a) + a * x / 2, x * atanh(x / a))),
]

COMPOSITE: list[Formula] = [
    ("exp-times-sqrt", "real",
     lambda x, a, b: (2 * (a + exp(x))**Rational(3, 2) / 3, exp(x) * sqrt(a + exp(x)))),
    ("log-one-plus-sqrt", "positive",
     lambda x, a, b: (log(a + sqrt(x)), 1 / (2 * sqrt(x) * (a + sqrt(x))))),
    ("exp-atan", "real", lambda x, a, b: (exp(a * atan(x)), a * exp(a * atan(x)) / (1 + x**2))),
    ("sin-log", "positive", lambda x, a, b: (sin(a * log(x)), a * cos(a * log(x)) / x)),
    ("integral-sin-log", "positive",
     lambda x, a, b: (x / 2 * (sin(log(x)) - cos(log(x))), sin(log(x)))),
    ("integral-cos-log", "positive",
     lambda x, a, b: (x / 2 * (sin(log(x)) + cos(log(x))), cos(log(x)))),
    ("x-to-the-x", "positive", lambda x, a, b: (x**x, x**x * (1 + log(x)))),
    ("x-to-the-ax", "positive", lambda x, a, b: (x**(a * x), a * x**(a * x) * (1 + log(x)))),
    ("sqrt-shifted-sin", "real", lambda x, a, b: (2 * sqrt(a + 1 + sin(x)), cos(x) / sqrt(a + 1 + sin(x)))),
    ("log-shifted-tan", "real", lambda x, a, b: (log(a + tan(x)), sec(x)**2 / (a + tan(x)))),
    ("atan-log", "positive", lambda x, a, b: (atan(log(a * x)), 1 / (x * (1 + log(a * x)**2)))),
    ("log-atan", "positive", lambda x, a, b: (log(atan(x / a)), a / ((x**2 + a**2) * atan(x / a)))),
    ("exp-over-one-plus-x", "positive", lambda x, a, b: (exp(x) / (a + x), (a + x - 1) * exp(x) / (a + x)**2)),
    ("x-exp-over-one-plus-x-squared", "positive", lambda x, a, b: (exp(x) / (1 + x), x * exp(x) / (1 + x)**2)),
    ("log-quadratic-shift", "positive",
     lambda x, a, b: (log(x**2 + 2 * a * x + b), 2 * (x + a) / (x**2 + 2 * a * x + b))),
    ("sqrt-of-log", "positive", lambda x, a, b: (2 * sqrt(a + log(x)), 1 / (x * sqrt(a + log(x))))),
    ("exp-of-sqrt-linear", "positive",
     lambda x, a, b: (2 * exp(sqrt(a * x)) / a, exp(sqrt(a * x)) / sqrt(a * x))),
    ("cos-of-exp", "real", lambda x, a, b: (-cos(a * exp(x)) / a, exp(x) * sin(a * exp(x)))),
    ("log-one-plus-tan-squared", "real", lambda x, a, b: (log(1 + tan(x)**2), 2 * tan(x))),
    ("exp-sin-cos", "real", lambda x, a, b: (exp(sin(x)) * (sin(x) - 1), sin(x) * cos(x) * exp(sin(x)))),
    ("sqrt-over-sqrt", "positive",
     lambda x, a, b: (sqrt(x * (x + a)) - a * log(sqrt(x) + sqrt(x + a)), sqrt(x / (x + a)))),
    ("sqrt-exp-minus-one", "positive",
     lambda x, a, b: (2 * sqrt(exp(x) - 1) - 2 * atan(sqrt(exp(x) - 1)), sqrt(exp(x) - 1))),
    ("log-x-plus-sqrt-composed", "positive",
     lambda x, a, b: (log(x + sqrt(x**2 + a)), 1 / sqrt(x**2 + a))),
    ("x-asinh-inverse", "positive",
     lambda x, a, b: (-asinh(a / x) / a, 1 / (x * sqrt(x**2 + a**2)))),
    ("power-of-x-exp", "real", lambda x, a, b: (-(x**2 + 2 * x + 2) * exp(-x), x**2 * exp(-x))),
    ("exp-tan", "real", lambda x, a, b: (exp(a * tan(x)), a * sec(x)**2 * exp(a * tan(x)))),
    ("sin-sqrt", "positive", lambda x, a, b: (-2 * cos(sqrt(a * x)) / a, sin(sqrt(a * x)) / sqrt(a * x))),
    ("log-of-exp-plus-exp", "real", lambda x, a, b: (log(exp(a * x) + exp(-a * x)), a * tanh(a * x))),
    ("cube-root-of-sin", "real",
     lambda x, a, b: (3 * (a + 1 + sin(x))**Rational(4, 3) / 4, cos(x) * sp.cbrt(a + 1 + sin(x)))),
    ("sin-over-one-plus-sin", "real", lambda x, a, b: (x - tan(x) + sec(x), sin(x) / (1 + sin(x)))),
    ("log-one-plus-sin2", "real", lambda x, a, b: (log(a + sin(x)**2) / 2, sin(x) * cos(x) / (a + sin(x)**2))),
]

CATEGORIES: dict[str, list[Formula]] = {
    "rational": RATIONAL, "root": ROOT, "log": LOG, "exp": EXP, "trig": TRIG, "inverse-trig": INVERSE_TRIG,
    "hyperbolic": HYPERBOLIC, "composite": COMPOSITE,
}


def _true_cases() -> list[Case]:
    out: list[Case] = []
    position = 0
    for category, formulas in CATEGORIES.items():
        for name, domain, fn in formulas:
            x = X[domain]
            F, f = fn(x, A, B)
            params = tuple(p for p in (A, B) if p in (F.free_symbols | f.free_symbols))
            out.append(Case(f"{category}.{name}.sym", category, x, params, F, f, True))
            if params and position % 3 == 0:
                na, nb = NUMERIC_PARAMS[(position // 3) % len(NUMERIC_PARAMS)]
                F2, f2 = fn(x, sp.Integer(na) if isinstance(na, int) else na,
                            sp.Integer(nb) if isinstance(nb, int) else nb)
                out.append(Case(f"{category}.{name}.num", category, x, (), sp.sympify(F2), sp.sympify(f2), True))
            position += 1
    return out


# --- numeric evaluation ----------------------------------------------------------------------------------


def _points(case: Case) -> list[dict[sp.Symbol, str]]:
    a = A if A in case.params else None
    b = B if B in case.params else None
    pts = []
    for xv, (av, bv) in zip(POINTS[case.domain], PARAM_POINTS, strict=True):
        p = {case.x: xv}
        if a is not None:
            p[a] = av
        if b is not None:
            p[b] = bv
        pts.append(p)
    return pts


def numeric_gap(case: Case, f: sp.Expr | None = None, digits: int = 50) -> list[float | None]:
    """Relative gap |d/dx F − f| / (1 + |f|) at each sample point (``None`` where it cannot be evaluated).

    ``f`` defaults to the case's own; evaluated with mpmath at ``digits`` significant digits.
    """
    f = case.f if f is None else f
    dF = sp.diff(case.F, case.x)
    symbols = [case.x, *case.params]
    left = sp.lambdify(symbols, dF, modules="mpmath")
    right = sp.lambdify(symbols, f, modules="mpmath")
    out: list[float | None] = []
    with mpmath.workdps(digits):
        for p in _points(case):
            args = [mpmath.mpf(p[s]) for s in symbols]
            try:
                lv, rv = mpmath.mpmathify(left(*args)), mpmath.mpmathify(right(*args))
                gap = abs(lv - rv) / (1 + abs(rv))
                out.append(None if not mpmath.isfinite(gap) else float(gap))
            except (ZeroDivisionError, ValueError, TypeError, OverflowError):
                out.append(None)
    return out


# --- false variants --------------------------------------------------------------------------------------

_SWAP = {
    sp.sin: sp.cos, sp.cos: sp.sin, sp.tan: sp.cot, sp.cot: sp.tan, sp.sec: sp.csc, sp.csc: sp.sec,
    sp.sinh: sp.cosh, sp.cosh: sp.sinh, sp.tanh: sp.coth, sp.coth: sp.tanh, sp.sech: sp.csch, sp.csch: sp.sech,
    sp.asin: sp.acos, sp.acos: sp.asin, sp.atan: sp.acot, sp.acot: sp.atan, sp.asinh: sp.acosh,
    sp.acosh: sp.asinh, sp.atanh: sp.acoth, sp.acoth: sp.atanh,
}
#: exponent of a root -> the changed one (sqrt power changed)
_POWER = {half: Rational(3, 2), -half: Rational(-3, 2), Rational(3, 2): half, third: Rational(2, 3),
          -third: Rational(-2, 3)}


def _nodes(f: sp.Expr) -> list[sp.Expr]:
    return list(sp.preorder_traversal(f))


def _coefficient_candidates(f: sp.Expr) -> list[sp.Expr]:
    out = []
    for node in _nodes(f):
        if isinstance(node, sp.Mul):
            c, rest = node.as_coeff_Mul()
            if c.is_Number and c not in (1, -1):
                out.append(f.xreplace({node: (c + 1) * rest}))
        elif isinstance(node, sp.Add):
            k, rest = node.as_coeff_Add()
            if k.is_Number and k != 0:
                out.append(f.xreplace({node: rest + k + 1}))
    out.append(2 * f)
    out.append(f + 1)
    return out


def _sign_candidates(f: sp.Expr) -> list[sp.Expr]:
    out = []
    for node in _nodes(f):
        if isinstance(node, sp.Add):
            first, *others = node.args
            out.append(f.xreplace({node: sp.Add(-first, *others)}))
    out.append(-f)
    return out


def _function_candidates(f: sp.Expr) -> list[sp.Expr]:
    out = []
    for node in _nodes(f):
        if isinstance(node, sp.Function) and node.func in _SWAP:
            out.append(f.xreplace({node: _SWAP[node.func](*node.args)}))
        elif isinstance(node, sp.exp):
            out.append(f.xreplace({node: sp.exp(-node.args[0])}))
        elif isinstance(node, sp.log):
            out.append(f.xreplace({node: sp.log(1 + node.args[0])}))
        elif isinstance(node, sp.Pow) and node.exp in _POWER:
            out.append(f.xreplace({node: node.base**_POWER[node.exp]}))
    return out


_KINDS = {"coefficient": _coefficient_candidates, "sign": _sign_candidates, "function": _function_candidates}


def _false_variant(case: Case, position: int) -> Case | None:
    kinds = list(_KINDS)
    start = position % len(kinds)
    for kind in kinds[start:] + kinds[:start]:
        for g in _KINDS[kind](case.f):
            if g == case.f:
                continue
            gaps = numeric_gap(case, g, digits=30)
            if sum(1 for v in gaps if v is not None and v > 1e-12) >= 4:
                return Case(f"{case.id}~{kind}", case.category, case.x, case.params, case.F, g, False, kind, case.id)
    return None


@functools.cache
def _build() -> tuple[Case, ...]:
    true = _true_cases()
    false = [v for i, c in enumerate(true) if (v := _false_variant(c, i)) is not None]
    return (*true, *false)


def cases() -> list[Case]:
    """Every case of the corpus, true ones first, then their false variants; the same list on each call."""
    return list(_build())


def true_cases() -> list[Case]:
    return [c for c in _build() if c.truth]


def false_cases() -> list[Case]:
    return [c for c in _build() if not c.truth]


def subset(step: int = 7) -> list[Case]:
    """Every ``step``-th true case and every ``step``-th false case (the test's sample: 48 + 48)."""
    return true_cases()[::step] + false_cases()[::step]


def summary() -> dict[str, dict[str, int]]:
    """Counts per category: {"rational": {"true": n, "false": m}, ...}."""
    out: dict[str, dict[str, int]] = {}
    for c in _build():
        row = out.setdefault(c.category, {"true": 0, "false": 0})
        row["true" if c.truth else "false"] += 1
    return out
