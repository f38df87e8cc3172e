"""The numpy reference decoder: its counter, its cached loop, its training step, and the cross-checks built on
it that the FLOPs, KV-cache and memory derivations carry (issue 24)."""

from __future__ import annotations

import numpy as np
import pytest

from derive.params import reference, reference_checks
from derive.params.flops import forward_flops
from derive.params.memory import kv_cache_bytes_per_token
from derive.params.shapes import count


def test_counter_counts_multiply_adds_from_the_shapes():
    cnt = reference.Counter()
    a, b = np.ones((3, 5)), np.ones((5, 7))
    assert np.array_equal(cnt.linear(a, b), a @ b)
    assert cnt.macs["weights"] == 3 * 5 * 7 and cnt.flops() == 2 * 105
    cnt.einsum("bkgd,btkd->bkgt", np.ones((2, 1, 3, 4)), np.ones((2, 6, 1, 4)), "qk")
    assert cnt.macs["qk"] == 2 * 1 * 3 * 4 * 6
    with pytest.raises(ValueError, match="index i has sizes 5 and 4"):
        cnt.einsum("bi,io->bo", a, np.ones((4, 2)), "weights")


def test_cached_loop_gives_the_uncached_logits_and_holds_its_cache():
    config = reference.SIZES[2]  # GQA, SwiGLU, head_dim ≠ d_model / n_heads
    model = reference.ReferenceDecoder(config, seed=3)
    tokens = np.random.default_rng(0).integers(0, config.vocab_size, size=(2, 5))
    cached, cnt, cache = model.decode_cached(tokens)
    uncached, cnt_u = model.decode_uncached(tokens)
    assert np.max(np.abs(cached - uncached)) < 1e-12
    assert all(kv["K"].shape == kv["V"].shape == (2, 5, config.n_kv_heads, config.head_dim) for kv in cache)
    assert cnt_u.flops() > cnt.flops()
    # each step's FLOPs: derive's exact forward count at n_ctx = t, per sequence
    assert [f // 2 for f in model.step_flops] == [forward_flops(config.architecture(), t) for t in range(1, 6)]
    _, _, half = model.decode_cached(tokens, cache_dtype=np.float16)
    held = sum(kv["K"].nbytes + kv["V"].nbytes for kv in half)
    assert held == 2 * 5 * kv_cache_bytes_per_token(config.architecture(), 2)


def test_parameters_are_what_derive_counts():
    for config in reference.SIZES:
        model = reference.ReferenceDecoder(config)
        assert sum(p.size for p in model.parameters()) == count(config.architecture())


def test_training_step_gradients_and_counts():
    for config in reference.SIZES:
        assert reference.gradient_check(config, seed=1) < 1e-6
    model = reference.ReferenceDecoder(reference.SIZES[1])
    step = reference.TrainingStep(model)
    rng = np.random.default_rng(0)
    tokens, targets = rng.integers(0, 17, size=(2, 4)), rng.integers(0, 17, size=(2, 4))
    loss, saved = step.loss(tokens, targets)
    assert 0 < loss < 10
    grads = step.gradients(saved)
    assert set(grads) >= {"embedding", "lm_head", "0.W_Q", "1.W_2", "1.g_2"}
    assert {k: step.backward.macs[k] for k in step.forward.macs} == {k: 2 * v for k, v in step.forward.macs.items()}


def test_adam_step_holds_sixteen_bytes_per_parameter():
    model = reference.ReferenceDecoder(reference.SIZES[0])
    total, parts = reference.adam_step_bytes(model)
    n = sum(p.size for p in model.parameters())
    assert total == 16 * n
    assert parts["fp16 weights"] == parts["fp16 gradients"] == 2 * n and parts["Adam second moment v (fp32)"] == 4 * n


@pytest.mark.parametrize("name", ["params.flops-exact", "params.flops-kaplan", "params.flops-training",
                                  "params.kv-cache-token", "params.kv-cache", "params.adam-memory",
                                  "params.kv-cache-gqa", "efficient.kv-cache-flops", "efficient.no-cache-flops",
                                  "efficient.decoding-intensity"])
def test_each_modelled_quantity_is_checked_against_the_reference(catalog, name):
    checks = [c for c in catalog.get(name).checks if c.name.startswith("checked against")]
    assert len(checks) == 1, name
    result = checks[0].run(0)
    assert result.passed, result.message
    assert result.figures["rows"]


def test_a_wrong_closed_form_fails_the_check():
    """The cross-check can fail: Kaplan's 2·n_layers·n_ctx·d_attn as the whole attention term is caught."""
    from derive.transformer.notation import sym

    L, d, h, dk, f, c, v, hkv = (sym(n) for n in ("n_layers", "d_model", "n_heads", "d_k", "d_ff", "n_ctx",
                                                  "vocab_size", "n_kv_heads"))
    half_attention = 2 * L * (2 * d * h * dk + 2 * d * hkv * dk + 3 * d * f) + 2 * d * v + 2 * L * c * h * dk
    result = reference_checks.flops_exact(half_attention).run(0)
    assert not result.passed and result.message.startswith("disagreement")
    b = sym("bytes_per_value")
    assert not reference_checks.kv_cache(L * hkv * dk * b).run(0).passed  # K only, V forgotten
