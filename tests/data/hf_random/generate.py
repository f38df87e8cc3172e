"""Randomised configs of every supported family, counted by ``transformers`` on torch's meta device.

Not run by the tests (it needs ``torch`` and ``transformers``: the ``bench`` extra). Run it once per
transformers version; each run adds that version's counts to ``counts.json`` beside this file::

    python tests/data/hf_random/generate.py            # seeded configs, counted with the installed version

For each family (the ``model_type`` values of :mod:`derive.params.hf_config`) it draws configs from a
seeded generator — sizes, tied and untied heads, biases, GQA and MQA, ``head_dim`` ≠ d_model/n_heads,
Falcon's variants, gated and ungated T5, mixtures of experts, and the cases of issue 24: Marian's
``decoder_vocab_size`` with unshared embeddings, untied BART and BERT-MLM, OPT's ``word_embed_proj_dim``,
BART with unequal encoder and decoder heads and FFN widths — builds the configuration class with
``architectures=[class]``, and records

* ``config``: the file as ``to_dict()`` of the configuration class writes it (what derive reads), and
* ``meta_device``: ``sum(p.numel() for p in model.parameters())`` of the class built from it under
  ``torch.device("meta")`` (no storage, no download; a tied weight is yielded once), by version.

The keyword arguments drawn are kept too (``kwargs``), so another version rebuilds the same model.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).parent
OUT = HERE / "counts.json"
SEED = 24
PER_FAMILY = 6


def _heads(r: random.Random) -> tuple[int, int]:
    h = r.choice([2, 4, 6, 8])
    return h, h * r.choice([4, 8])


def _gpt2(r, i):
    h, d = _heads(r)
    kw = dict(n_embd=d, n_head=h, n_layer=r.randint(1, 3), vocab_size=r.randint(50, 300),
              n_positions=r.randint(16, 64), n_inner=r.choice([None, r.randint(8, 80)]),
              tie_word_embeddings=r.choice([True, False]))
    return r.choice(["GPT2Model", "GPT2LMHeadModel"]), kw


def _bert(r, i):
    h, d = _heads(r)
    kw = dict(hidden_size=d, num_attention_heads=h, num_hidden_layers=r.randint(1, 3),
              intermediate_size=r.randint(8, 80), vocab_size=r.randint(50, 300),
              max_position_embeddings=r.randint(16, 64), type_vocab_size=r.choice([1, 2, 3]),
              tie_word_embeddings=i % 2 == 0)
    return r.choice(["BertModel", "BertForMaskedLM", "BertForMaskedLM"]), kw


def _llama_like(r, i, prefix):
    h = r.choice([2, 4, 8])
    kv = r.choice([k for k in (1, 2, 4, 8) if h % k == 0])
    head_dim = r.choice([None, None, 4, 12])
    d = h * (head_dim or r.choice([4, 8])) if head_dim is None else r.choice([16, 24, 32])
    kw = dict(hidden_size=d, num_attention_heads=h, num_key_value_heads=kv, intermediate_size=r.randint(8, 80),
              num_hidden_layers=r.randint(1, 3), vocab_size=r.randint(50, 300),
              max_position_embeddings=r.randint(16, 128), tie_word_embeddings=r.choice([True, False]))
    if head_dim is not None:
        kw["head_dim"] = head_dim
    cls = r.choice([f"{prefix}Model", f"{prefix}ForCausalLM", f"{prefix}ForCausalLM"])
    return cls, kw


def _llama(r, i):
    cls, kw = _llama_like(r, i, "Llama")
    kw.update(attention_bias=r.choice([True, False]), mlp_bias=r.choice([True, False]))
    return cls, kw


def _mistral(r, i):
    return _llama_like(r, i, "Mistral")


def _mixtral(r, i):
    cls, kw = _llama_like(r, i, "Mixtral")
    n = r.randint(1, 6)
    kw.update(num_local_experts=n, num_experts_per_tok=r.randint(1, n))
    return cls, kw


def _qwen2(r, i):
    cls, kw = _llama_like(r, i, "Qwen2")
    kw.pop("head_dim", None)  # Qwen2 derives head_dim from hidden_size / heads
    kw["hidden_size"] = kw["num_attention_heads"] * r.choice([4, 8])
    return cls, kw


def _phi3(r, i):
    cls, kw = _llama_like(r, i, "Phi3")
    kw.pop("head_dim", None)
    kw["hidden_size"] = kw["num_attention_heads"] * r.choice([4, 8])
    kw.update(pad_token_id=0, bos_token_id=1, eos_token_id=2)
    return cls, kw


def _gemma(r, i):
    cls, kw = _llama_like(r, i, "Gemma")
    kw["head_dim"] = r.choice([4, 8, 16])
    return cls, kw


def _gemma2(r, i):
    cls, kw = _llama_like(r, i, "Gemma2")
    kw["head_dim"] = r.choice([4, 8, 16])
    return cls, kw


def _gpt_neox(r, i):
    h, d = _heads(r)
    kw = dict(hidden_size=d, num_attention_heads=h, num_hidden_layers=r.randint(1, 3),
              intermediate_size=r.randint(8, 80), vocab_size=r.randint(50, 300),
              max_position_embeddings=r.randint(16, 64), tie_word_embeddings=r.choice([True, False]),
              attention_bias=r.choice([True, False]))
    return r.choice(["GPTNeoXModel", "GPTNeoXForCausalLM"]), kw


def _gptj(r, i):
    h, d = _heads(r)
    kw = dict(n_embd=d, n_head=h, n_layer=r.randint(1, 3), vocab_size=r.randint(50, 300),
              n_positions=r.randint(16, 64), rotary_dim=4, n_inner=r.choice([None, r.randint(8, 80)]),
              tie_word_embeddings=False)
    return r.choice(["GPTJModel", "GPTJForCausalLM"]), kw


def _falcon(r, i):
    h, d = _heads(r)
    new = i % 3 == 2
    kw = dict(hidden_size=d, num_attention_heads=h, num_hidden_layers=r.randint(1, 3), vocab_size=r.randint(50, 300),
              new_decoder_architecture=new, bias=r.choice([True, False]), parallel_attn=new or r.choice([True, False]),
              alibi=r.choice([True, False]), tie_word_embeddings=r.choice([True, False]))
    if new:
        kw.update(num_kv_heads=r.choice([k for k in (1, 2, h) if h % k == 0]),
                  num_ln_in_parallel_attn=r.choice([None, 1, 2]))
    else:
        kw["multi_query"] = r.choice([True, False])
    if r.random() < 0.5:
        kw["ffn_hidden_size"] = r.randint(8, 80)
    return r.choice(["FalconModel", "FalconForCausalLM"]), kw


def _opt(r, i):
    h, d = _heads(r)
    proj = d if i % 2 == 0 else r.choice([8, 12, 20])
    kw = dict(hidden_size=d, num_attention_heads=h, num_hidden_layers=r.randint(1, 3), ffn_dim=r.randint(8, 80),
              vocab_size=r.randint(50, 300), max_position_embeddings=r.randint(16, 64), word_embed_proj_dim=proj,
              do_layer_norm_before=r.choice([True, True, False]), enable_bias=r.choice([True, False]),
              tie_word_embeddings=r.choice([True, True, False]))
    return r.choice(["OPTModel", "OPTForCausalLM", "OPTForCausalLM"]), kw


def _seq2seq_sizes(r, i):
    d = r.choice([16, 24, 32])
    he, hd = r.choice([2, 4, 8]), r.choice([2, 4, 8])
    fe = r.randint(8, 80)
    fd = fe if i % 2 == 0 else r.randint(8, 80)
    return dict(d_model=d, encoder_attention_heads=he, decoder_attention_heads=he if i % 3 == 0 else hd,
                encoder_ffn_dim=fe, decoder_ffn_dim=fd, encoder_layers=r.randint(1, 3), decoder_layers=r.randint(1, 3),
                vocab_size=r.randint(50, 300), max_position_embeddings=r.randint(16, 64))


def _bart(r, i):
    kw = _seq2seq_sizes(r, i)
    kw["tie_word_embeddings"] = i % 2 == 1
    return r.choice(["BartModel", "BartForConditionalGeneration"]), kw


def _marian(r, i):
    kw = _seq2seq_sizes(r, i)
    share = i % 2 == 0
    kw.update(share_encoder_decoder_embeddings=share, tie_word_embeddings=r.choice([True, False]),
              pad_token_id=0, decoder_start_token_id=0)
    if not share or r.random() < 0.5:
        kw["decoder_vocab_size"] = r.randint(50, 300)
    return r.choice(["MarianModel", "MarianMTModel", "MarianMTModel"]), kw


def _t5(r, i):
    h = r.choice([2, 4, 6])
    kw = dict(d_model=r.choice([16, 24, 32]), d_kv=r.choice([4, 8]), num_heads=h, d_ff=r.randint(8, 80),
              num_layers=r.randint(1, 3), num_decoder_layers=r.choice([None, r.randint(1, 3)]),
              vocab_size=r.randint(50, 300), feed_forward_proj=r.choice(["relu", "gated-gelu", "gated-silu", "gelu"]),
              relative_attention_num_buckets=r.choice([8, 32]), tie_word_embeddings=True, decoder_start_token_id=0)
    return r.choice(["T5Model", "T5ForConditionalGeneration", "T5EncoderModel"]), kw


FAMILIES = {
    "gpt2": ("GPT2Config", _gpt2), "bert": ("BertConfig", _bert), "llama": ("LlamaConfig", _llama),
    "mistral": ("MistralConfig", _mistral), "mixtral": ("MixtralConfig", _mixtral),
    "qwen2": ("Qwen2Config", _qwen2), "phi3": ("Phi3Config", _phi3), "gemma": ("GemmaConfig", _gemma),
    "gemma2": ("Gemma2Config", _gemma2), "gpt_neox": ("GPTNeoXConfig", _gpt_neox), "gptj": ("GPTJConfig", _gptj),
    "falcon": ("FalconConfig", _falcon), "opt": ("OPTConfig", _opt), "bart": ("BartConfig", _bart),
    "marian": ("MarianConfig", _marian), "t5": ("T5Config", _t5),
}


def draw() -> list[dict]:
    """The seeded list of (family, class, kwargs); the same for every transformers version."""
    r = random.Random(SEED)
    out = []
    for family, (cfg_cls, fn) in FAMILIES.items():
        for i in range(PER_FAMILY):
            cls, kw = fn(r, i)
            kw = {k: v for k, v in kw.items() if v is not None}
            out.append({"id": f"{family}-{i}", "model_type": family, "config_class": cfg_cls, "class": cls,
                        "kwargs": kw})
    return out


def count(entry: dict) -> tuple[int, dict]:
    import torch
    import transformers

    cfg = getattr(transformers, entry["config_class"])(**entry["kwargs"], architectures=[entry["class"]])
    with torch.device("meta"):
        model = getattr(transformers, entry["class"])(cfg)
    return sum(p.numel() for p in model.parameters()), json.loads(cfg.to_json_string(use_diff=False))


def main() -> int:
    import torch
    import transformers

    version = f"transformers {transformers.__version__}, torch {torch.__version__}"
    major = int(transformers.__version__.split(".")[0])
    table = json.loads(OUT.read_text()) if OUT.exists() else {"entries": {}}
    table["obtained"] = (
        "tests/data/hf_random/generate.py: each config built with its transformers configuration class from the "
        "seeded kwargs and architectures=[class]; meta_device = sum(p.numel() for p in model.parameters()) of "
        "that class built under torch.device('meta'); config = the configuration's to_dict() as written by the "
        "newest version run")
    for e in draw():
        n, written = count(e)
        entry = table["entries"].setdefault(e["id"], {})
        entry.update({k: e[k] for k in ("model_type", "class", "kwargs")})
        entry.setdefault("meta_device", {})[version] = n
        if major >= 5 or "config" not in entry:
            written.pop("transformers_version", None)
            entry["config"] = written
        print(f"{e['id']:12} {e['class']:30} {n:>10,}  ({version})")
    OUT.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
