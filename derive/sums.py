"""Rules about finite sums of symbolic length (primitive rules of the kernel).

* :class:`SplitSumAt`      Σ_{j=a}^{b} f(j) = Σ_{j=a}^{m−1} f(j) + f(m) + Σ_{j=m+1}^{b} f(j)  (m an integer)
* :class:`DropNonnegative` S + Σ_j f(j) ≥ S when every f(j) ≥ 0 over the range  (for a "≥" step)
* :class:`SiftDelta`       Σ_l f(l)·δ_jl = f(j)  (lo ≤ j ≤ hi, proved or declared as a premise)

Their home is :mod:`derive.kernel.primitives`, where each states its soundness
argument and the side conditions the kernel checks every time it uses it.
"""

from __future__ import annotations

from .kernel.primitives import DropNonnegative, SiftDelta, SplitSumAt

__all__ = ["SplitSumAt", "DropNonnegative", "SiftDelta"]
