"""Exact (sympy) operators of a Transformer block, for the worked examples.

Each operator is an unevaluated sympy matrix expression, ``LayerNorm(X)``,
``RowSoftmax(S)``, ``CausalMask(S)``, ``ReLU(Z)``, ``MultiHead(A, 2)``, that
prints as its name and whose ``doit()`` applies the definition to explicit
matrices with exact arithmetic (Rationals, surds, ``exp``). A worked example
is then a chain that evaluates the operators one at a time; the verifier
evaluates both sides of every step and proves them equal.

Conventions (the lectures' and the paper's):

* LayerNorm normalises each row (token) with the biased variance and ε inside
  the square root, ``γ = 1``, ``β = 0``; ``ε = 0`` on a constant row is
  0/0 and raises :class:`ZeroDivisionError` (no NaN is ever produced).
* RMSNorm divides each row by ``sqrt(mean(x²))``, ``γ = 1``.
* The causal mask puts ``-oo`` above the diagonal; ``exp(-oo) = 0``, so a
  masked position gets weight exactly 0.
* ``MultiHead(A, h)`` uses identity projections ``W_Q = W_K = W_V = W_O = I``:
  head ``k`` takes columns ``k·d_k .. (k+1)·d_k − 1`` of ``A`` as its queries,
  keys and values, ``d_k = d_model / h``; the heads' outputs are concatenated.

This module imports sympy at import time: import it inside builder functions.

Sources: Vaswani et al. 2017, §3.2.1-§3.3; Ba et al. 2016 (LayerNorm);
Zhang & Sennrich 2019 (RMSNorm).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import sympy as sp


def _explicit(m: Any) -> sp.ImmutableMatrix:
    m = m.doit()
    if not isinstance(m, sp.MatrixBase):
        m = m.as_explicit()
    return sp.ImmutableMatrix(m)


@lru_cache(maxsize=512)
def _evaluate(cls: type, arg: sp.ImmutableMatrix, params: tuple) -> sp.ImmutableMatrix:
    """``cls(arg, *params)`` applied to an explicit matrix; cached, since a chain re-evaluates its operators."""
    return cls(arg, *params).compute(arg)


class _RowOp(sp.MatrixExpr):
    """An operator on an explicit matrix; ``compute`` holds the definition."""

    label = "op"

    def __new__(cls, arg: Any, *params: Any) -> _RowOp:
        return sp.Basic.__new__(cls, arg, *map(sp.sympify, params))

    @property
    def arg(self) -> Any:
        return self.args[0]

    @property
    def shape(self) -> tuple:
        return self.arg.shape

    def _entry(self, i: Any, j: Any, **kwargs: Any) -> Any:
        return self.doit()[i, j]

    def doit(self, **hints: Any) -> Any:
        arg = self.arg.doit(**hints) if hints.get("deep", True) else self.arg
        if isinstance(arg, sp.MatrixExpr) and not isinstance(arg, sp.MatrixBase) and arg.free_symbols:
            return type(self)(arg, *self.args[1:])
        return _evaluate(type(self), _explicit(arg), self.args[1:])

    def compute(self, m: sp.ImmutableMatrix) -> sp.ImmutableMatrix:  # pragma: no cover - abstract
        raise NotImplementedError

    def _sympystr(self, printer: Any) -> str:
        return f"{self.label}({printer._print(self.arg)})"

    def _latex(self, printer: Any) -> str:
        return rf"\operatorname{{{self.label}}}\left({printer._print(self.arg)}\right)"


def layer_norm_row(x: list, eps: Any = 0) -> list:
    """Exact LayerNorm of one row: ``(x − μ)/sqrt(σ² + ε)``, biased variance, γ = 1, β = 0.

    Raises:
        ZeroDivisionError: ``σ² + ε = 0`` (a constant row with ``ε = 0``).
    """
    d = len(x)
    mu = sp.expand(sp.Add(*x) / d)
    var = sp.expand(sp.Add(*[(v - mu) ** 2 for v in x]) / d)  # expanded: short exact forms
    if var + eps == 0:
        raise ZeroDivisionError("LayerNorm of a constant row with eps = 0 is 0/0; use eps > 0")
    denom = sp.sqrt(var + eps)
    out = [sp.expand(v - mu) / denom for v in x]
    if all(v.is_number and not v.has(sp.exp) for v in out):  # surds only: denest and rationalise
        denom = sp.sqrtdenest(denom)
        out = [sp.radsimp(sp.expand(v - mu) / denom) for v in x]
    return out


class LayerNorm(_RowOp):
    """Row-wise LayerNorm with γ = 1, β = 0; ``LayerNorm(X, eps)`` (default ε = 0)."""

    label = "LN"

    def __new__(cls, arg: Any, eps: Any = 0) -> LayerNorm:
        return super().__new__(cls, arg, eps)

    def compute(self, m: sp.ImmutableMatrix) -> sp.ImmutableMatrix:
        eps = self.args[1]
        return sp.ImmutableMatrix([layer_norm_row(list(m.row(r)), eps) for r in range(m.rows)])


class RMSNorm(_RowOp):
    """Row-wise RMSNorm, ``x / sqrt(mean(x²))``, γ = 1 (Zhang & Sennrich 2019)."""

    label = "RMSNorm"

    def compute(self, m: sp.ImmutableMatrix) -> sp.ImmutableMatrix:
        rows = []
        for r in range(m.rows):
            x = list(m.row(r))
            rms = sp.sqrt(sp.Add(*[v**2 for v in x]) / len(x))
            rows.append([v / rms for v in x])
        return sp.ImmutableMatrix(rows)


def softmax_row(s: list, form: str = "logistic") -> list:
    """Exact softmax of one row; ``-oo`` entries (masked) get weight exactly 0.

    Args:
        s: the scores of one row (sympy numbers, ``-oo`` allowed; not all ``-oo``).
        form: ``"definition"``: ``exp(s_j) / Σ_l exp(s_l)``; ``"logistic"``: the same
            value divided through by ``exp(s_j)``, ``1 / Σ_l exp(s_l − s_j)``, which
            keeps exact expressions short (``1/(1 + exp(1/2))`` for two scores).

    Raises:
        ValueError: every score is ``-oo`` (a fully masked row has no softmax) or ``form`` is unknown.
    """
    if all(v == -sp.oo for v in s):
        raise ValueError("softmax of a fully masked row (all -oo) is undefined")
    if form == "definition":
        total = sp.Add(*[sp.exp(v) for v in s])
        return [sp.exp(v) / total for v in s]
    if form != "logistic":
        raise ValueError(f"form must be 'definition' or 'logistic', got {form!r}")
    return [sp.S.Zero if v == -sp.oo else 1 / sp.Add(*[sp.exp(u - v) for u in s]) for v in s]


class RowSoftmax(_RowOp):
    """Softmax of each row (the attention weights)."""

    label = "softmax"

    def compute(self, m: sp.ImmutableMatrix) -> sp.ImmutableMatrix:
        return sp.ImmutableMatrix([softmax_row(list(m.row(r))) for r in range(m.rows)])


class CausalMask(_RowOp):
    """Scores with every entry above the diagonal (a later key) set to ``-oo``."""

    label = "mask"

    def compute(self, m: sp.ImmutableMatrix) -> sp.ImmutableMatrix:
        return sp.ImmutableMatrix(m.rows, m.cols, lambda i, j: -sp.oo if j > i else m[i, j])


class ReLU(_RowOp):
    """Elementwise ``max(0, z)``: ``ReLU(Z)`` or ``ReLU(Z, values)``.

    ``values`` is a tuple of ``(symbol, exact value)`` pairs for entries
    written with named constants (e.g. a softmax weight α): the sign of each
    entry is decided at those values (see :func:`relu`).
    """

    label = "ReLU"

    def __new__(cls, arg: Any, values: Any = ()) -> ReLU:
        return super().__new__(cls, arg, sp.Tuple(*[sp.Tuple(*p) for p in values]))

    def compute(self, m: sp.ImmutableMatrix) -> sp.ImmutableMatrix:
        return m.applyfunc(lambda v: _relu_at(v, self.args[1]))


@lru_cache(maxsize=4096)
def _relu_at(v: Any, values: sp.Tuple) -> Any:
    """:func:`relu` of one entry at ``values`` (pairs), cached: the entries an operator shares between the forms
    of one chain (a row left unchanged by a step) are decided once."""
    return relu(v, dict(values))


def relu(v: Any, values: dict | None = None) -> Any:
    """Exact ``max(0, v)`` of a real constant, or of ``v`` at ``values`` of its symbols.

    The sign is read from an enclosure of ``v``: interval arithmetic (``mpmath.iv``, outward rounding,
    every distinct subexpression evaluated once) at 40 digits, with ``values`` substituted as the exact
    expressions they are; an interval that excludes 0 decides the sign rigorously. An entry the interval
    arithmetic cannot handle (an operator it does not know) or cannot separate from 0 falls back to sympy's
    ``evalf`` at 30 digits (which tracks its own error; ``values`` entering as 40-digit floats), and a value
    too close to 0 to be told apart from it at that precision is left as ``Max(0, v)``. Both are much faster
    than ``Max`` on long expressions with ``exp``.
    """
    if v.is_Rational:
        return v if v > 0 else sp.S.Zero
    if v.free_symbols - set(values or ()):
        return sp.S.Zero if v.is_zero else sp.Max(0, v)
    sign = _interval_sign(v, {k: sp.sympify(x, strict=True) for k, x in (values or {}).items()
                              if isinstance(k, sp.Symbol)})
    if sign is not None:
        return v if sign > 0 else sp.S.Zero
    approx = sp.N(v.xreplace({k: sp.N(x, 40) for k, x in values.items()}) if values else v, 30)
    if approx.is_comparable and abs(approx) > sp.Float("1e-20"):
        return v if approx > 0 else sp.S.Zero
    # too close to 0 to tell at 30 digits: only then ask sympy's assumptions (slow on long sums with exp)
    return sp.S.Zero if v.is_zero else sp.Max(0, v)


def _interval_sign(v: Any, values: dict, dps: int = 40) -> int | None:
    """The sign (+1 or −1) of the real constant ``v`` (its symbols at ``values``, exact constants) from an
    interval enclosure that excludes 0, or ``None`` (0 in the enclosure, or a node interval arithmetic
    does not evaluate). Rigorous: mpmath's intervals round outward at every operation."""
    from mpmath import iv

    memo: dict = {}

    def ev(e: Any) -> Any:
        hit = memo.get(e)
        if hit is not None:
            return hit
        if e.is_Integer:
            out = iv.mpf(int(e))
        elif e.is_Rational:
            out = iv.mpf(int(e.p)) / int(e.q)
        elif e is sp.pi:
            out = iv.pi
        elif e is sp.E:
            out = iv.e
        elif e.is_Symbol:
            if e not in values or values[e].free_symbols:
                raise _NoEnclosure
            out = ev(values[e])
        elif e.is_Add:
            out = iv.mpf(0)
            for a in e.args:
                out = out + ev(a)
        elif e.is_Mul:
            out = iv.mpf(1)
            for a in e.args:
                out = out * ev(a)
        elif e.is_Pow:
            base, ex = e.args
            b = ev(base)
            if ex.is_Integer:
                if int(ex) < 0 and 0 in b:
                    raise _NoEnclosure
                out = b ** int(ex)
            elif ex.is_Rational and ex.q == 2:
                if not b.a > 0:
                    raise _NoEnclosure
                r = iv.sqrt(b)
                out = r ** int(ex.p)
            else:
                raise _NoEnclosure
        elif isinstance(e, sp.exp):
            out = iv.exp(ev(e.args[0]))
        else:
            raise _NoEnclosure
        memo[e] = out
        return out

    prec = iv.prec
    try:
        iv.dps = dps
        x = ev(v)
    except (_NoEnclosure, ZeroDivisionError, ValueError, TypeError, OverflowError, RecursionError):
        return None
    finally:
        iv.prec = prec
    if x.a > 0:
        return 1
    if x.b < 0:
        return -1
    return None


class _NoEnclosure(Exception):
    """A node interval arithmetic does not evaluate (the caller falls back to evalf)."""


class HStack(sp.MatrixExpr):
    """Blocks side by side (the concatenation of the heads' outputs)."""

    def __new__(cls, *blocks: Any) -> HStack:
        return sp.Basic.__new__(cls, *blocks)

    @property
    def shape(self) -> tuple:
        return (self.args[0].shape[0], sum(b.shape[1] for b in self.args))

    def _entry(self, i: Any, j: Any, **kwargs: Any) -> Any:
        return self.doit()[i, j]

    def doit(self, **hints: Any) -> Any:
        return sp.ImmutableMatrix(sp.Matrix.hstack(*[_explicit(b) for b in self.args]))

    def _sympystr(self, printer: Any) -> str:
        return "[" + " | ".join(printer._print(b) for b in self.args) + "]"

    def _latex(self, printer: Any) -> str:
        return r"\left[\," + r" \;\middle|\; ".join(printer._print(b) for b in self.args) + r"\,\right]"


def head_columns(a: sp.ImmutableMatrix, n_heads: int, k: int) -> sp.ImmutableMatrix:
    """Columns of head ``k`` (0-based) of ``a``: width ``d_model / n_heads``."""
    d_k = a.cols // n_heads
    return a[:, k * d_k:(k + 1) * d_k]


def causal_attention(a: sp.ImmutableMatrix, causal: bool = True) -> dict:
    """One head with identity projections, every stage exact.

    Args:
        a: ``(n, d_k)``: queries = keys = values.
        causal: mask later keys.

    Returns:
        ``{"scores": QKᵀ/√d_k, "masked": ..., "weights": ..., "output": weights·V}``.
    """
    scores = (a * a.T) / sp.sqrt(a.cols)
    masked = CausalMask(scores).doit() if causal else scores
    weights = RowSoftmax(masked).doit()
    return {"scores": scores, "masked": masked, "weights": weights, "output": weights * a}


class MultiHead(_RowOp):
    """Causal multi-head self-attention with identity projections: ``MultiHead(A, n_heads)``."""

    label = "MHA"

    def compute(self, m: sp.ImmutableMatrix) -> sp.ImmutableMatrix:
        h = int(self.args[1])
        outs = [causal_attention(head_columns(m, h, k))["output"] for k in range(h)]
        return sp.ImmutableMatrix(sp.Matrix.hstack(*outs))

    def _sympystr(self, printer: Any) -> str:
        return f"MHA({printer._print(self.arg)}, heads={self.args[1]})"


def matmul(*factors: Any) -> sp.MatMul:
    """An unevaluated matrix product (for display; ``doit`` evaluates it)."""
    return sp.MatMul(*factors, evaluate=False)


def matadd(*terms: Any) -> sp.MatAdd:
    """An unevaluated matrix sum."""
    return sp.MatAdd(*terms, evaluate=False)
