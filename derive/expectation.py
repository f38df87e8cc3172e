"""Expectation and variance algebra over sums of symbolic length.

``sympy.stats`` computes moments of *given* random variables (a fixed number of
them); it cannot say that ``Var(Σ_{i=1}^{d_k} q_i k_i) = d_k`` for a symbolic
``d_k``. This module is the public home of what the proof needs: an
unevaluated expectation :class:`E` and variance :class:`Var`, a
:class:`RandomModel` (the derivation's premise: which indexed families are
random, independent and i.i.d., with which moments), and the textbook laws as
primitive rules of the kernel:

* :class:`VarianceDefinition`  Var(X) = E[X²] − E[X]²
* :class:`ExpandSquare`        (Σ_i f_i)² = Σ_i Σ_j f_i f_j
* :class:`SplitDiagonal`       Σ_i Σ_j g_ij = Σ_i g_ii + Σ_i (Σ_{j<i} g_ij + Σ_{j>i} g_ij)
* :class:`Linearity`           E over Σ, +, and constant factors
* :class:`Independence`        E[Π X] = Π E[X] for distinct independent variables
* :class:`Moments`             E[q_i] = μ_q, E[q_i²] = σ_q² + μ_q²

Their implementations and soundness arguments live in
:mod:`derive.kernel.primitives`. Two elements of one family are distinct
variables only when their indices provably differ; a rule that cannot
establish that leaves the expectation alone, so a wrong application fails to
prove rather than passing.

Source of the laws: any probability text; their use for attention scores is
Vaswani et al. 2017, §3.2.1, footnote 4.
"""

from __future__ import annotations

from .kernel.primitives import (
    E,
    ExpandSquare,
    Independence,
    Linearity,
    Moments,
    RandomModel,
    SplitDiagonal,
    Var,
    VarianceDefinition,
)

__all__ = [
    "E",
    "Var",
    "RandomModel",
    "VarianceDefinition",
    "ExpandSquare",
    "SplitDiagonal",
    "Linearity",
    "Independence",
    "Moments",
]
