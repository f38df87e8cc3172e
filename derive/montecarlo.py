"""Monte Carlo checks of statistical claims, with a stated false-rejection probability and power.

The sample mean of a statistic is compared with its claimed expectation; the
draws come in chunks whose size is set from the measured memory of one draw,
so memory stays bounded whatever the sample size and the dimension.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from .crosscheck import CrossCheck
from .report import ESTIMATE_AGREES, CheckResult

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
            msg = ESTIMATE_AGREES.format(estimate=f"{est['estimate']:.6g}", bound=f"{bound:.3g}", n=f"{est['n']:,}",
                                         expected=f"{self.expected:.6g}")
        return CheckResult(self.name, passed, figures, msg, time.perf_counter() - t0)
