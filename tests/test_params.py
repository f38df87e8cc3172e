"""Exact parameter counts: the known totals, the lectures' tables, presets, allocation, validation."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from derive.exceptions import InputError
from derive.params import PRESETS, Architecture, breakdown, count, get_preset, llama_ffn_hidden, summarize
from derive.params.allocate import allocate, allocated_count
from derive.params.shapes import symbol_values, symbolic_count
from derive.params.summary import human, memory, percent

KNOWN_TOTALS = {
    # the three the issue names
    "gpt2": 124_439_808,
    "bert-base": 109_482_240,
    "llama-7b": 6_738_415_616,
    # the lectures'
    "lecture-layer": 3_150_336,
    "lecture-encoder": 18_902_016,
    # checked against the Hugging Face state dicts of these models
    "gpt2-medium": 354_823_168,
    "gpt2-large": 774_030_080,
    "gpt2-xl": 1_557_611_200,
    "bert-large": 335_141_888,
    "llama-13b": 13_015_864_320,
    "llama2-70b": 68_976_648_192,
    "mistral-7b": 7_241_732_096,
    # derived here under the stated conventions
    "t5-small": 60_506_624,
    "transformer-base": 63_045_632,
    "transformer-big": 214_171_648,
    "gpt3-175b": 174_604_259_328,
}


@pytest.mark.parametrize("name", sorted(KNOWN_TOTALS))
def test_known_totals_to_the_unit(name):
    arch = PRESETS[name].arch
    assert count(arch) == KNOWN_TOTALS[name]
    # the symbolic route gives the same integer
    assert symbolic_count(arch).xreplace(symbol_values(arch)) == KNOWN_TOTALS[name]
    assert sum(r.count for r in breakdown(arch, formulas=False)) == KNOWN_TOTALS[name]


def test_lecture_000_encoder_layer_table():
    rows = {r.key: r for r in breakdown(get_preset("lecture-layer").arch)}
    assert rows["attention"].count == 1_048_576 and rows["attention"].formula == "4·d_model²"
    assert rows["ffn"].count == 2_099_712
    assert rows["norms"].count == 2_048 and rows["norms"].per_copy == 2_048
    assert [percent(rows[k].share) for k in ("attention", "ffn", "norms")] == ["33.3", "66.7", "0.1"]
    assert rows["ffn"].shapes == (("W_1", (512, 2048)), ("b_1", (2048,)), ("W_2", (2048, 512)), ("b_2", (512,)))
    six = {r.key: r for r in breakdown(get_preset("lecture-encoder").arch)}
    assert six["attention"].copies == 6 and sum(r.count for r in six.values()) == 18_902_016


def test_lecture_000_multi_head_table_and_h_invariance():
    arch = get_preset("lecture-layer").arch
    (att,) = [r for r in breakdown(arch) if r.key == "attention"]
    assert dict(att.shapes) == {"W_Q": (512, 512), "W_K": (512, 512), "W_V": (512, 512), "W_O": (512, 512)}
    assert 512 * 64 == 32_768 and 8 * 32_768 == 262_144  # one head's W_i^Q; all eight
    gpt2_sizes = Architecture(d_model=768, n_heads=8, d_ff=3072, n_layers=12)
    assert count(gpt2_sizes) == count(replace(gpt2_sizes, n_heads=16)) == count(replace(gpt2_sizes, n_heads=12))


def test_bert_base_counts_pooler_and_not_mlm_head():
    rows = {r.key: r.count for r in breakdown(get_preset("bert-base").arch, formulas=False)}
    assert rows["pooler"] == 768 * 768 + 768
    assert "lm_head" not in rows and "lm_head_transform" not in rows
    assert rows["token_type_embedding"] == 2 * 768 and rows["embedding_norm"] == 2 * 768


def test_non_embedding_kaplan_convention_and_memory():
    s = summarize(get_preset("gpt2").arch)
    assert s.total == 124_439_808
    assert s.embedding == 50257 * 768 + 1024 * 768
    assert s.non_embedding == 85_056_000
    assert s.memory == {"fp32": 497_759_232, "bf16": 248_879_616, "fp16": 248_879_616, "int8": 124_439_808}
    llama = summarize(get_preset("llama-7b").arch, formulas=False)
    assert llama.embedding == 2 * 32000 * 4096  # input table and the untied output projection
    assert memory(6_738_415_616, "bf16") == 13_476_831_232
    with pytest.raises(InputError, match="unknown dtype 'fp8'"):
        memory(1, "fp8")


def test_gqa_shrinks_k_and_v_only():
    mha = Architecture(d_model=8192, n_heads=64, d_ff=4, n_layers=1, mlp_bias=False)
    gqa = replace(mha, n_kv_heads=8)
    (a,) = [r for r in breakdown(gqa) if r.key == "attention"]
    assert a.count == 2 * 8192**2 + 2 * 8192 * (8 * 128) == 150_994_944
    assert a.formula == "2·d_model² + 2·d_model²·n_kv_heads/n_heads"
    assert [r for r in breakdown(mha) if r.key == "attention"][0].count == 4 * 8192**2


def test_llama_width_rounding():
    assert llama_ffn_hidden(4096) == 11008
    assert llama_ffn_hidden(5120) == 13824
    assert llama_ffn_hidden(8192, multiple_of=4096, ffn_dim_multiplier=1.3) == 28672  # Llama 2 70B
    assert PRESETS["llama-7b"].arch.d_ff == 11008


def test_gpt3_table_choices_are_explained():
    xl, b13 = PRESETS["gpt3-xl"], PRESETS["gpt3-13b"]
    assert xl.arch.n_heads * xl.arch.d_head == xl.arch.d_model == 2048
    assert any("24·128 = 3072" in n for n in xl.notes)
    assert b13.arch.d_model == 5120 and any("5140" in n for n in b13.notes)
    assert human(count(PRESETS["gpt3-175b"].arch)) == "174.60B"


def test_transformer_base_and_big_beside_reported():
    base, big = PRESETS["transformer-base"], PRESETS["transformer-big"]
    assert (base.reported, big.reported) == ("65M", "213M")
    assert human(count(base.arch)) == "63.0M" and human(count(big.arch)) == "214.2M"
    assert any("37000" in n for n in base.notes)


def test_huge_counts_stay_exact_ints():
    arch = Architecture(d_model=512, n_heads=8, d_ff=2048, n_layers=10**18)
    total = count(arch)
    assert type(total) is int and total == 3_150_336 * 10**18
    s = summarize(arch)
    assert s.memory["fp32"] == 4 * 3_150_336 * 10**18 and s.rows[0].share == Fraction(1_048_576, 3_150_336)
    assert count(replace(arch, d_model=10**12, n_heads=1, d_ff=4 * 10**12)) % 10**12 == 0


def test_allocation_matches_formula_and_refuses_large_models():
    for name in ("gpt2", "bert-base", "llama2-70b", "transformer-base"):
        a = PRESETS[name].arch
        small = replace(a, d_model=24, n_heads=4, n_kv_heads=None if a.n_kv_heads is None else 2, d_ff=40,
                        n_layers=2, n_decoder_layers=min(a.n_decoder_layers, 2), vocab_size=53,
                        max_position_embeddings=None if a.max_position_embeddings is None else 11)
        assert allocated_count(small) == count(small), name
    parts = allocate(Architecture(d_model=8, n_heads=2, d_ff=16, n_layers=1))
    assert [a.shape for a in parts["layers.0"][:2]] == [(8, 4), (8, 4)]  # W_1^Q, W_2^Q: one per head
    with pytest.raises(InputError, match="refusing to allocate"):
        allocate(PRESETS["gpt2"].arch)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n_heads=7), r"^n_heads = 7 does not divide d_model = 512; give head_dim explicitly$"),
        (dict(n_kv_heads=3), r"^n_kv_heads = 3 does not divide n_heads = 8$"),
        (dict(d_model=0), r"^d_model must be a positive integer, got 0$"),
        (dict(d_ff=-4), r"^d_ff must be a positive integer, got -4$"),
        (dict(d_model=512.0), r"^d_model must be a positive integer, got 512.0$"),
        (dict(n_layers="6"), r"^n_layers must be a positive integer, got '6'$"),
        (dict(n_layers=True), r"^n_layers must be a positive integer, got True$"),
        (dict(d_model="__import__('os').system('x')"), r"^d_model must be a positive integer, got \"__import__"),
        (dict(ffn="moe"), r"^ffn must be one of relu, gelu, silu, swiglu, geglu; got 'moe'$"),
        (dict(position="learned"), r"^position 'learned' needs max_position_embeddings$"),
        (dict(lm_head=True), r"^an LM head needs vocab_size$"),
    ],
)
def test_bad_architectures(kwargs, message):
    base = dict(d_model=512, n_heads=8, d_ff=2048, n_layers=1)
    with pytest.raises(InputError, match=message):
        Architecture(**{**base, **kwargs})


def test_head_dim_lets_h_not_divide_d_model():
    a = Architecture(d_model=512, n_heads=7, head_dim=64, d_ff=2048, n_layers=1)
    (att,) = [r for r in breakdown(a) if r.key == "attention"]
    assert att.count == 4 * 512 * 7 * 64 and att.formula == "4·d_k·d_model·n_heads"


def test_unknown_preset_lists_presets():
    with pytest.raises(InputError, match=r"^unknown preset 'gpt5'; presets: lecture-layer, "):
        get_preset("gpt5")
    assert get_preset("gpt2-small") is PRESETS["gpt2"]


def test_rule_of_thumb_beside_exact_counts():
    from derive.params.summary import sci

    gpt3 = summarize(PRESETS["gpt3-175b"].arch, formulas=False)
    assert gpt3.rule_of_thumb == 12 * 12288**2 * 96 == 173_946_175_488 and sci(gpt3.rule_of_thumb) == "1.74e11"
    assert gpt3.total == 174_604_259_328 and sci(gpt3.total) == "1.75e11"
    llama = summarize(PRESETS["llama-7b"].arch, formulas=False)
    assert llama.rule_of_thumb == 12 * 4096**2 * 32 and sci(llama.rule_of_thumb) == "6.44e9"
    assert sci(9_995_000_000) == "1.00e10"
