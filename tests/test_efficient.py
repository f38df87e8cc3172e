"""Efficient attention: online softmax, KV-cache FLOPs, decoding intensity — proofs, refutations, values."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from derive import Verdict
from derive.transformer import efficient
from derive.transformer.notation import sym
from derive.transformer.softmax_numeric import softmax

NAMES = [
    "efficient.online-softmax-merge",
    "efficient.online-softmax-output",
    "efficient.online-softmax-step",
    "efficient.online-softmax-example",
    "efficient.kv-cache-flops",
    "efficient.no-cache-flops",
    "efficient.decoding-intensity",
]


@pytest.mark.parametrize("name", NAMES)
def test_derivation_proves_and_cross_checks(assert_proves, name):
    assert_proves(name)


def test_merge_is_general_in_row_length_and_split(catalog):
    d = catalog.get("efficient.online-softmax-merge")
    n, k, j, m, z = sym("n"), sym("split"), sym("j"), sym("m_run"), efficient._symbols()[3]
    assert k in d.start.free_symbols or any(k in e.free_symbols for _, e in d.definitions)
    # the end is the whole row's denominator, every term shifted by the same m
    assert d.end == sp.Sum(sp.exp(z[j] - m), (j, 1, n))
    out = catalog.get("efficient.online-softmax-output").end
    assert out == sp.Sum(sp.exp(z[j] - m) * efficient._symbols()[4][j], (j, 1, n)) / sp.Sum(sp.exp(z[j] - m), (j, 1, n))


def test_merge_without_rescaling_is_refuted(catalog, refute_step):
    d = catalog.get("efficient.online-softmax-merge")
    first, second, _, _ = efficient._blocks()
    # forgetting the factor e^(m₂ − m) leaves block 2 shifted by its own maximum
    wrong = first(sym("m_run")) + second(sym("m_2"))
    assert refute_step(d, 2, wrong).verdict is Verdict.REFUTED


def test_online_softmax_values_and_errors():
    z = np.array([1.0, 3.0, 2.0, 0.0])
    v = np.arange(8.0).reshape(4, 2)
    out, maxima, sums = efficient.online_softmax(z, v, 2)
    assert maxima.tolist() == [3.0, 3.0]
    assert sums[0] == pytest.approx(np.exp(-2) + 1)
    assert sums[1] == pytest.approx(1 + np.exp(-1) + np.exp(-2) + np.exp(-3))
    assert out == pytest.approx(softmax(z) @ v, abs=1e-15)
    with pytest.raises(ValueError, match=r"^block must be a positive integer, got 0$"):
        efficient.online_softmax(z, v, 0)
    with pytest.raises(ValueError, match=r"^z must be a non-empty vector of finite scores$"):
        efficient.online_softmax(np.array([1.0, np.inf]), v[:2], 1)


def test_example_value(catalog):
    end = catalog.get("efficient.online-softmax-example").end
    assert sp.simplify(end - (1 + sp.exp(-1) + sp.exp(-2) + sp.exp(-3))) == 0


def test_cache_totals_and_saving():
    n = sym("n")
    with_cache, without = efficient.with_cache_total(), efficient.without_cache_total()
    # direct sums at n = 5 for a toy model: N = 10, 2 layers, 1 head of width 3
    vals = {sym("n_params"): 10, sym("n_layers"): 2, sym("n_heads"): 1, sym("d_k"): 3, n: 5}
    # attending over t positions: qKᵀ and A·V each 2·t·d_attn per layer, so 4·n_layers·t·d_attn
    direct_with = sum(2 * 10 + 4 * 2 * t * 3 for t in range(1, 6))
    direct_without = sum(sum(2 * 10 + 4 * 2 * s * 3 for s in range(1, t + 1)) for t in range(1, 6))
    assert with_cache.xreplace(vals) == direct_with == 460
    assert without.xreplace(vals) == direct_without == 1140
    # the weight parts: linear against quadratic, ratio (n + 1)/2
    only_weights = {sym("n_layers"): 0}
    assert sp.simplify(without.xreplace(only_weights) / with_cache.xreplace(only_weights) - (n + 1) / 2) == 0


def test_wrong_cache_total_is_refuted(catalog, refute_step):
    d = catalog.get("efficient.no-cache-flops")
    N, n = sym("n_params"), sym("n")
    assert refute_step(d, 2, 2 * N * n).verdict is Verdict.REFUTED


def test_decoding_intensity_values(catalog):
    end = catalog.get("efficient.decoding-intensity").end
    h, hkv, b = sym("n_heads"), sym("n_kv_heads"), sym("bytes_per_value")
    assert end.xreplace({h: 64, hkv: 8, b: 2}) == 8 and end.xreplace({h: 32, hkv: 32, b: 2}) == 1


GPT2_SMALL = {"n_params": 84_934_656, "n_layers": 12, "n_heads": 12, "d_k": 64, "n": 1024}


def test_gpt2_small_decoding_figures(catalog):
    """Issue 24: the attention term had half its FLOPs (2·n_layers·t·d_attn); these are the corrected totals."""
    vals = {sym(k): v for k, v in GPT2_SMALL.items()}
    with_cache = efficient.with_cache_total().xreplace(vals)
    without = efficient.without_cache_total().xreplace(vals)
    assert with_cache == 193_292_402_688 == 2 * 84_934_656 * 1024 + 4 * 12 * 768 * 1024 * 1025 // 2
    assert without == 84_934_656 * 1024 * 1025 + 2 * 12 * 768 * 1024 * 1025 * 1026 // 3
    assert f"{float(with_cache):.4e}" == "1.9329e+11" and f"{float(without):.4e}" == "9.5764e+13"
    assert f"{float(without / with_cache):.1f}" == "495.4"
    printed = {c.name: c.printed for d in ("efficient.kv-cache-flops", "efficient.no-cache-flops")
               for c in catalog.get(d).checks if hasattr(c, "printed")}
    assert printed["GPT-2 small (N = 84,934,656), n = 1024 tokens"] == "1.9329e11"
    assert printed["GPT-2 small, n = 1024 tokens"] == "9.5764e13"
    assert printed["GPT-2 small, n = 1024: no cache over cache"] == "495.4"


@pytest.mark.parametrize("cached", [True, False])
def test_closed_forms_equal_a_counted_forward_pass(cached):
    """The closed forms against the multiply-adds of a numpy decoder that really decodes (issue 24)."""
    from derive.params.reference import runs

    total = efficient.with_cache_total() if cached else efficient.without_cache_total()
    assert len(runs()) >= 3
    for r in runs():
        c = r.config
        counter = r.cached if cached else r.uncached
        counted = counter.flops("weights", "qk", "av") // r.batch
        closed = total.xreplace({sym("n_params"): r.n_matrix_weights, sym("n_layers"): c.n_layers,
                                 sym("n_heads"): c.n_heads, sym("d_k"): c.head_dim, sym("n"): r.n})
        assert counted == closed
        # the old constant (2·n_layers·t·d_attn for attention) is off by half the attention FLOPs
        attention = counter.flops("qk", "av") // r.batch
        assert closed - attention // 2 != counted
        assert counter.macs["qk"] == counter.macs["av"]
    check = efficient.CACHED_CHECK if cached else efficient.UNCACHED_CHECK
    result = check.run(0)
    assert result.passed, result.message
    assert result.message.startswith("checked against a counted forward pass")
