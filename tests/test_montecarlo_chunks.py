"""Monte Carlo chunks are sized from the sampler's measured memory; results stay seeded and exact in count."""

from __future__ import annotations

import numpy as np

from derive.numeric import MC_CHUNK_BYTES, MonteCarloCheck


def qk_squared(d):
    def sampler(rng, size):
        q = rng.standard_normal((size, d))  # (size, d)
        k = rng.standard_normal((size, d))  # (size, d)
        s = np.einsum("ij,ij->i", q, k)
        return s * s

    return sampler


def test_chunk_fits_the_memory_budget_and_n_is_exact():
    d = 512
    check = MonteCarloCheck("E[(q·k)^2]", qk_squared(d), float(d), n=5_000)
    result = check.run(7)
    assert result.passed, result.message
    chunk = result.figures["chunk"]
    assert result.figures["n"] == 5_000
    # q and k alone are 2·d·8 bytes a draw: a chunk must fit them in the budget, and be a power of two
    assert chunk * 2 * d * 8 <= MC_CHUNK_BYTES
    assert chunk & (chunk - 1) == 0 and chunk >= 256


def test_smaller_budget_smaller_chunks_same_verdicts():
    d = 64
    big = MonteCarloCheck("v", qk_squared(d), float(d), n=20_000, alternatives=(float(d) + 8,))
    small = MonteCarloCheck("v", qk_squared(d), float(d), n=20_000, alternatives=(float(d) + 8,),
                            chunk_bytes=2**18)
    rb, rs = big.run(3), small.run(3)
    assert rs.figures["chunk"] < rb.figures["chunk"]
    assert rb.passed and rs.passed
    assert small.run(3).figures["estimate"] == rs.figures["estimate"]  # seeded: reproducible
    wrong = MonteCarloCheck("v", qk_squared(d), float(d) + 8, n=20_000, chunk_bytes=2**18)
    assert not wrong.run(3).passed
