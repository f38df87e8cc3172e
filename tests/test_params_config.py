"""config.json files: real key layouts, the counted class, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from derive.exceptions import InputError
from derive.params import PRESETS, count
from derive.params.hf_config import from_dict, load_config

DATA = Path(__file__).parent / "data"
SUPPORTED = ("bart, bert, falcon, gemma, gemma2, gpt2, gpt_neox, gptj, llama, marian, mistral, mixtral, opt, phi3, "
             "qwen2, t5")


@pytest.mark.parametrize(
    "file, cls, total",
    [
        ("gpt2-config.json", "GPT2LMHeadModel", 124_439_808),
        ("bert-base-model-config.json", "BertModel", 109_482_240),
        ("bert-base-uncased-config.json", "BertForMaskedLM", 109_514_298),
        ("llama-7b-config.json", "LlamaForCausalLM", 6_738_415_616),
        ("mistral-7b-config.json", "MistralForCausalLM", 7_241_732_096),
        ("t5-small-config.json", "T5ForConditionalGeneration", 60_506_624),
    ],
)
def test_config_files_count_their_class(file, cls, total):
    loaded = load_config(DATA / file)
    assert loaded.counted_class == cls
    assert count(loaded.arch) == total


def test_gpt2_config_equals_preset():
    assert count(load_config(DATA / "gpt2-config.json").arch) == count(PRESETS["gpt2"].arch) == 124_439_808


def _gpt2(**changes):
    data = json.loads((DATA / "gpt2-config.json").read_text())
    data.update(changes)
    return {k: v for k, v in data.items() if v is not ...}


def test_class_decides_heads():
    bert = json.loads((DATA / "bert-base-uncased-config.json").read_text())
    mlm = from_dict(bert)
    base = from_dict({**bert, "architectures": ["BertModel"]})
    # MLM head: dense 768² + 768, LayerNorm 2·768, decoder bias 30522; no pooler (768² + 768)
    assert count(mlm.arch) - count(base.arch) == (768 * 768 + 768 + 2 * 768 + 30522) - (768 * 768 + 768)
    untied = from_dict(_gpt2(tie_word_embeddings=False))
    assert count(untied.arch) == 124_439_808 + 50257 * 768
    bare = from_dict(_gpt2(architectures=["GPT2Model"]))
    assert count(bare.arch) == 124_439_808 and not bare.arch.lm_head
    none = from_dict(_gpt2(architectures=...))
    assert none.counted_class == "GPT2Model" and any("no 'architectures'" in n for n in none.notes)
    t5 = json.loads((DATA / "t5-small-config.json").read_text())
    enc = from_dict({**t5, "architectures": ["T5EncoderModel"]})
    assert count(enc.arch) == 32128 * 512 + 6 * (4 * 512**2 + 2 * 512 * 2048 + 2 * 512) + 32 * 8 + 512
    v11 = from_dict({**t5, "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False})
    assert count(v11.arch) == 60_506_624 + 12 * 512 * 2048 + 512 * 32128


@pytest.mark.parametrize(
    "data, message",
    [
        ([1, 2], r"a config.json must hold a JSON object, got list"),
        ({"n_embd": 768}, r"missing required key 'model_type'; supported model types: " + SUPPORTED + "$"),
        ({"model_type": "mamba"}, r"unsupported model_type 'mamba'; supported model types: " + SUPPORTED + "$"),
        ({"model_type": "opt", "hidden_size": 1024, "word_embed_proj_dim": 512, "num_attention_heads": 16,
          "ffn_dim": 4096, "num_hidden_layers": 24, "vocab_size": 50272, "max_position_embeddings": 2048,
          "layer_norm_elementwise_affine": False},
         r"layer_norm_elementwise_affine false \(LayerNorm without weights\) is not supported$"),
        (_gpt2(add_cross_attention=True),
         r"add_cross_attention true \(a cross-attention block in every layer of a gpt2 model\) is not supported$"),
        ({"model_type": "bart", "d_model": 16, "encoder_attention_heads": 2, "decoder_attention_heads": 5,
          "encoder_ffn_dim": 8, "decoder_ffn_dim": 8},
         r"decoder_attention_heads = 5 does not divide d_model = 16$"),
        ({"model_type": "mixtral", "hidden_size": 64, "intermediate_size": 8, "num_attention_heads": 4,
          "num_hidden_layers": 1, "vocab_size": 10, "num_local_experts": 4, "num_experts_per_tok": 5},
         r"experts_per_token must be between 1 and n_experts = 4, got 5$"),
        (_gpt2(n_head=...), r"missing required key 'n_head' for model_type 'gpt2'$"),
        (_gpt2(n_embd="__import__('os').system('x')"), r"n_embd must be a positive integer, got \"__import__"),
        (_gpt2(n_layer=12.0), r"n_layer must be a positive integer, got 12.0$"),
        (_gpt2(n_layer=0), r"n_layer must be a positive integer, got 0$"),
        (_gpt2(n_head=7), r"n_heads = 7 does not divide d_model = 768"),
        (_gpt2(architectures=["GPT2ForSequenceClassification"]),
         r"class 'GPT2ForSequenceClassification' is not supported for model_type 'gpt2'; supported: GPT2Model, "
         r"GPT2LMHeadModel$"),
        (_gpt2(architectures="GPT2Model"), r"architectures must be a non-empty list of class names$"),
        (_gpt2(tie_word_embeddings="yes"), r"tie_word_embeddings must be true or false"),
        ({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 32,
          "num_key_value_heads": 5, "num_hidden_layers": 2, "vocab_size": 10},
         r"n_kv_heads = 5 does not divide n_heads = 32$"),
    ],
)
def test_bad_configs(data, message):
    with pytest.raises(InputError, match=r"^cfg: " + message if message[0] != "^" else message):
        from_dict(data, "cfg")


def test_bad_files(tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text('{"model_type": "gpt2", "n_embd": 768,,}')
    with pytest.raises(InputError, match=r"config.json: malformed JSON: Expecting property name enclosed in double "
                                         r"quotes at line 1 column 38$"):
        load_config(bad)
    bad.write_text('{"model_type": "gpt2", "n_embd": NaN}')
    with pytest.raises(InputError, match="malformed JSON: NaN is not allowed"):
        load_config(bad)
    with pytest.raises(InputError, match="no such file"):
        load_config(tmp_path / "missing.json")
    with pytest.raises(InputError, match="is a directory"):
        load_config(tmp_path)
    bad.write_bytes(b'{"model_type": "\xff"}')
    with pytest.raises(InputError, match="cannot read"):
        load_config(bad)
