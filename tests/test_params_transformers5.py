"""The calculator follows transformers 5: seeded random configs of every family against the meta-device counts
stored with their provenance, and the layouts transformers 5 builds differently from transformers 4 (issue 24).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from derive.exceptions import InputError
from derive.params.allocate import allocated_count
from derive.params.flops import forward_flops, tally
from derive.params.hf_config import MODEL_TYPES, TRANSFORMERS_CONVENTIONS, from_dict
from derive.params.memory import kv_cache_bytes_per_token
from derive.params.shapes import count

DATA = Path(__file__).parent / "data" / "hf_random"
TABLE = json.loads((DATA / "counts.json").read_text())
ENTRIES = TABLE["entries"]
V5 = next(k for k in next(iter(ENTRIES.values()))["meta_device"] if k.startswith("transformers 5"))
V4 = next((k for k in next(iter(ENTRIES.values()))["meta_device"] if k.startswith("transformers 4")), None)


def test_random_configs_cover_every_family_with_provenance():
    assert {e["model_type"] for e in ENTRIES.values()} == set(MODEL_TYPES)
    assert len(ENTRIES) >= 6 * len(MODEL_TYPES)
    assert "torch.device('meta')" in TABLE["obtained"] and "generate.py" in TABLE["obtained"]
    assert V5.startswith("transformers 5.") and "torch" in V5
    for e in ENTRIES.values():
        assert isinstance(e["meta_device"][V5], int) and e["config"]["model_type"] == e["model_type"]


@pytest.mark.parametrize("key", sorted(ENTRIES))
def test_random_config_equals_transformers_5(key):
    e = ENTRIES[key]
    loaded = from_dict(e["config"], key)
    assert loaded.counted_class == e["class"]
    assert count(loaded.arch) == e["meta_device"][V5], f"{key}: {e['kwargs']}"


def test_the_issue_cases_are_in_the_random_set_and_counted():
    cases = {"marian unshared with decoder_vocab_size": 0, "untied bart": 0, "untied bert-mlm": 0,
             "opt projection": 0, "bart unequal heads or ffn": 0}
    for key, e in ENTRIES.items():
        kw, cls = e["kwargs"], e["class"]
        if e["model_type"] == "marian" and not kw.get("share_encoder_decoder_embeddings", True) and \
                "decoder_vocab_size" in kw:
            cases["marian unshared with decoder_vocab_size"] += 1
        if e["model_type"] == "bart" and not kw["tie_word_embeddings"]:
            cases["untied bart"] += 1
        if cls == "BertForMaskedLM" and not kw["tie_word_embeddings"]:
            cases["untied bert-mlm"] += 1
        if e["model_type"] == "opt" and kw["word_embed_proj_dim"] != kw["hidden_size"]:
            cases["opt projection"] += 1
        if e["model_type"] in ("bart", "marian") and (
                kw["encoder_attention_heads"] != kw["decoder_attention_heads"]
                or kw["encoder_ffn_dim"] != kw["decoder_ffn_dim"]):
            cases["bart unequal heads or ffn"] += 1
        count(from_dict(e["config"], key).arch)  # counted, never refused
    assert all(cases.values()), cases


def _marian(**changes):
    data = {"model_type": "marian", "architectures": ["MarianMTModel"], "d_model": 16, "encoder_layers": 1,
            "decoder_layers": 1, "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 8,
            "decoder_ffn_dim": 8, "vocab_size": 100, "max_position_embeddings": 10}
    data.update(changes)
    return from_dict(data, "cfg")


def test_marian_decoder_vocab_size_sets_the_decoder_table_and_the_head():
    base = count(_marian().arch)  # shared 100 × 16, tied head
    unshared = _marian(share_encoder_decoder_embeddings=False, decoder_vocab_size=40)
    # encoder table 100 × 16 and decoder table 40 × 16 (not 100 × 16); the tied head adds nothing
    assert count(unshared.arch) == base + 40 * 16
    untied = _marian(share_encoder_decoder_embeddings=False, decoder_vocab_size=40, tie_word_embeddings=False)
    assert count(untied.arch) == base + 40 * 16 + 40 * 16  # lm_head 16 × 40 onto the decoder's vocabulary
    assert any("decoder_vocab_size" in n and "40" in n for n in unshared.notes)
    # FLOPs: the tied head multiplies by the decoder's table, 16 × 40
    assert tally(unshared.arch).matmul_weights - tally(_marian(decoder_vocab_size=None).arch).matmul_weights == \
        16 * 40 - 16 * 100
    assert allocated_count(untied.arch) == count(untied.arch)


def test_untied_bart_has_four_tables_as_transformers_5_builds_it():
    path = Path(__file__).parent / "data" / "configs" / "bart-base-config.json"
    data = {**json.loads(path.read_text()), "architectures": ["BartForConditionalGeneration"]}
    tied = count(from_dict(data).arch)
    untied = from_dict({**data, "tie_word_embeddings": False})
    table = 50265 * 768
    assert count(untied.arch) - tied == 3 * table  # shared + encoder + decoder + lm_head, not shared + lm_head
    assert any("transformers 4" in n and f"{2 * table:,} fewer" in n for n in untied.notes)
    assert allocated_count(_small(untied.arch)) == count(_small(untied.arch))


def test_untied_bert_mlm_has_two_vocabulary_biases():
    path = Path(__file__).parent / "data" / "bert-base-uncased-config.json"
    data = json.loads(path.read_text())
    tied = count(from_dict(data).arch)
    untied = from_dict({**data, "tie_word_embeddings": False})
    assert count(untied.arch) - tied == 30522 * 768 + 30522  # the decoder's weight and its own bias
    assert any("two vocabulary-sized biases" in n for n in untied.notes)


def test_opt_word_embed_proj_dim_counts_project_in_and_out():
    data = {"model_type": "opt", "architectures": ["OPTForCausalLM"], "hidden_size": 1024, "word_embed_proj_dim": 512,
            "num_attention_heads": 16, "ffn_dim": 4096, "num_hidden_layers": 24, "vocab_size": 50272,
            "max_position_embeddings": 2048, "do_layer_norm_before": False}
    loaded = from_dict(data, "opt-350m")
    same = from_dict({**data, "word_embed_proj_dim": 1024})
    # token table 50272 × 512 instead of × 1024; project_in 512 × 1024 and project_out 1024 × 512
    assert count(loaded.arch) - count(same.arch) == 50272 * (512 - 1024) + 2 * 512 * 1024
    assert count(loaded.arch) == 331_196_416  # facebook/opt-350m, as transformers reports it
    # FLOPs per token: the projections and the tied head from 512 wide
    assert forward_flops(loaded.arch, 1) - forward_flops(same.arch, 1) == 2 * (2 * 512 * 1024 + 50272 * (512 - 1024))


def test_bart_with_unequal_encoder_and_decoder_widths_is_counted():
    data = {"model_type": "bart", "architectures": ["BartModel"], "d_model": 16, "encoder_layers": 2,
            "decoder_layers": 3, "encoder_attention_heads": 2, "decoder_attention_heads": 8, "encoder_ffn_dim": 8,
            "decoder_ffn_dim": 24, "vocab_size": 50, "max_position_embeddings": 10}
    loaded = from_dict(data, "cfg")
    equal = from_dict({**data, "decoder_attention_heads": 2, "decoder_ffn_dim": 8}, "cfg")
    # heads split d_model in each stack: no weight changes; each decoder FFN is 2·16·(24 − 8) + (24 − 8) larger
    assert count(loaded.arch) - count(equal.arch) == 3 * (2 * 16 * 16 + 16)
    assert allocated_count(loaded.arch) == count(loaded.arch)
    assert kv_cache_bytes_per_token(loaded.arch, 2) == 2 * 3 * 16 * 2
    with pytest.raises(InputError, match=r"^cfg: decoder_attention_heads = 5 does not divide d_model = 16$"):
        from_dict({**data, "decoder_attention_heads": 5}, "cfg")


def test_every_count_says_which_transformers_it_follows():
    assert TRANSFORMERS_CONVENTIONS.startswith("transformers 5")
    for key, e in ENTRIES.items():
        loaded = from_dict(e["config"], key)
        assert loaded.notes[0].startswith("counted as transformers 5"), loaded.notes[0]
    t5 = json.loads((Path(__file__).parent / "data" / "configs" / "flan-t5-small-config.json").read_text())
    assert "transformers 4" in from_dict(t5).notes[0]


@pytest.mark.skipif(V4 is None, reason="no transformers 4 counts stored")
def test_transformers_4_differs_exactly_where_the_notes_say():
    """Where transformers 4 built the same file otherwise, the difference is the one the notes name."""
    for key, e in ENTRIES.items():
        if V4 not in e["meta_device"]:
            continue
        a = from_dict(e["config"], key).arch
        gap = e["meta_device"][V5] - e["meta_device"][V4]
        expected = 0
        if a.stack_token_tables:  # transformers 4: both stacks pointed at the shared table
            expected += a.vocab_size * a.d_model + a.dims()["decoder_vocab_size"] * a.d_model
        if a.lm_head_linear_bias:  # transformers 4: the decoder's bias is the head's bias
            expected += a.vocab_size
        if a.head_uses_decoder_vocab:  # transformers 4: the decoder's table copied the encoder's vocab_size rows
            expected += (a.dims()["decoder_vocab_size"] - a.vocab_size) * a.d_model
        assert gap == expected, f"{key}: transformers 5 − 4 = {gap}, notes say {expected}"


def _small(a):
    from dataclasses import replace

    return replace(a, d_model=16, n_heads=4, d_ff=24, n_layers=1, n_decoder_layers=1, vocab_size=30,
                   max_position_embeddings=12)


def test_against_the_installed_transformers():
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    if int(transformers.__version__.split(".")[0]) < 5:
        pytest.skip("the counts follow transformers 5")
    import sys

    sys.path.insert(0, str(DATA))
    try:
        import generate
    finally:
        sys.path.pop(0)
    for key, e in ENTRIES.items():
        n, _ = generate.count({**e, "config_class": generate.FAMILIES[e["model_type"]][0]})
        assert n == count(from_dict(e["config"], key).arch), key
