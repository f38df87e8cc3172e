"""Write the config.json files of this folder and count each model on torch's meta device.

Not run by the tests (it needs ``transformers`` and ``torch``, which CI does not install). Run it with
the ``bench`` extra plus ``transformers`` installed::

    python tests/data/configs/generate.py               # write the configs, count them
    python tests/data/configs/generate.py --count-only  # count only (e.g. with another transformers)

Each config is built with the ``transformers`` configuration class from the published hyperparameters
of the checkpoint named in ``_name_or_path`` (read off that checkpoint's ``config.json`` on the Hugging
Face Hub), then written with ``to_json_file`` exactly as ``save_pretrained`` would. The expected totals
in ``../expected_param_counts.json`` are ``sum(p.numel() for p in model.parameters())`` of the class in
``architectures``, built under ``torch.device("meta")`` (no storage, no download); ``parameters()``
yields a tied weight once.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).parent

#: file stem -> (config class, model class, keyword arguments as published)
CONFIGS = {
    "opt-125m": ("OPTConfig", "OPTForCausalLM", dict(
        _name_or_path="facebook/opt-125m", vocab_size=50272, hidden_size=768, num_hidden_layers=12, ffn_dim=3072,
        num_attention_heads=12, max_position_embeddings=2048, do_layer_norm_before=True, word_embed_proj_dim=768,
        enable_bias=True, activation_function="relu", dropout=0.1, attention_dropout=0.0, pad_token_id=1,
        bos_token_id=2, eos_token_id=2, prefix="</s>")),
    "opt-350m": ("OPTConfig", "OPTForCausalLM", dict(
        _name_or_path="facebook/opt-350m", vocab_size=50272, hidden_size=1024, num_hidden_layers=24, ffn_dim=4096,
        num_attention_heads=16, max_position_embeddings=2048, do_layer_norm_before=False, word_embed_proj_dim=512,
        enable_bias=True, activation_function="relu", dropout=0.1, attention_dropout=0.0, pad_token_id=1,
        bos_token_id=2, eos_token_id=2, prefix="</s>")),
    "pythia-160m": ("GPTNeoXConfig", "GPTNeoXForCausalLM", dict(
        _name_or_path="EleutherAI/pythia-160m", vocab_size=50304, hidden_size=768, num_hidden_layers=12,
        num_attention_heads=12, intermediate_size=3072, hidden_act="gelu", max_position_embeddings=2048,
        rotary_pct=0.25, rotary_emb_base=10000, use_parallel_residual=True, tie_word_embeddings=False,
        layer_norm_eps=1e-5, bos_token_id=0, eos_token_id=0)),
    "bart-base": ("BartConfig", "BartModel", dict(
        _name_or_path="facebook/bart-base", vocab_size=50265, d_model=768, encoder_layers=6, decoder_layers=6,
        encoder_attention_heads=12, decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072,
        max_position_embeddings=1024, activation_function="gelu", pad_token_id=1, bos_token_id=0,
        eos_token_id=2, decoder_start_token_id=2, forced_eos_token_id=2, scale_embedding=False)),
    "opus-mt-en-de": ("MarianConfig", "MarianMTModel", dict(
        _name_or_path="Helsinki-NLP/opus-mt-en-de", vocab_size=58101, d_model=512, encoder_layers=6,
        decoder_layers=6, encoder_attention_heads=8, decoder_attention_heads=8, encoder_ffn_dim=2048,
        decoder_ffn_dim=2048, max_position_embeddings=512, activation_function="swish", pad_token_id=58100,
        eos_token_id=0, decoder_start_token_id=58100, scale_embedding=True, share_encoder_decoder_embeddings=True)),
    "gpt-j-6b": ("GPTJConfig", "GPTJForCausalLM", dict(
        _name_or_path="EleutherAI/gpt-j-6b", vocab_size=50400, n_positions=2048, n_embd=4096, n_layer=28,
        n_head=16, rotary_dim=64, n_inner=None, activation_function="gelu_new", tie_word_embeddings=False,
        bos_token_id=50256, eos_token_id=50256)),
    "falcon-7b": ("FalconConfig", "FalconForCausalLM", dict(
        _name_or_path="tiiuae/falcon-7b", vocab_size=65024, hidden_size=4544, num_hidden_layers=32,
        num_attention_heads=71, multi_query=True, parallel_attn=True, bias=False, alibi=False,
        new_decoder_architecture=False, layer_norm_epsilon=1e-5, bos_token_id=11, eos_token_id=11)),
    "gemma-2b": ("GemmaConfig", "GemmaForCausalLM", dict(
        _name_or_path="google/gemma-2b", vocab_size=256000, hidden_size=2048, intermediate_size=16384,
        num_hidden_layers=18, num_attention_heads=8, num_key_value_heads=1, head_dim=256, hidden_act="gelu",
        max_position_embeddings=8192, rms_norm_eps=1e-6, pad_token_id=0, bos_token_id=2, eos_token_id=1)),
    "gemma-2-2b": ("Gemma2Config", "Gemma2ForCausalLM", dict(
        _name_or_path="google/gemma-2-2b", vocab_size=256000, hidden_size=2304, intermediate_size=9216,
        num_hidden_layers=26, num_attention_heads=8, num_key_value_heads=4, head_dim=256,
        hidden_activation="gelu_pytorch_tanh", max_position_embeddings=8192, rms_norm_eps=1e-6,
        sliding_window=4096, final_logit_softcapping=30.0, attn_logit_softcapping=50.0, query_pre_attn_scalar=256,
        pad_token_id=0, bos_token_id=2, eos_token_id=1)),
    "qwen2-0.5b": ("Qwen2Config", "Qwen2ForCausalLM", dict(
        _name_or_path="Qwen/Qwen2-0.5B", vocab_size=151936, hidden_size=896, intermediate_size=4864,
        num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=131072,
        tie_word_embeddings=True, rms_norm_eps=1e-6, use_sliding_window=False, sliding_window=131072,
        max_window_layers=24, bos_token_id=151643, eos_token_id=151643)),
    "phi-3-mini-4k-instruct": ("Phi3Config", "Phi3ForCausalLM", dict(
        _name_or_path="microsoft/Phi-3-mini-4k-instruct", vocab_size=32064, hidden_size=3072,
        intermediate_size=8192, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=32,
        max_position_embeddings=4096, original_max_position_embeddings=4096, sliding_window=2047,
        tie_word_embeddings=False, rms_norm_eps=1e-5, pad_token_id=32000, bos_token_id=1, eos_token_id=32000)),
    "mixtral-8x7b": ("MixtralConfig", "MixtralForCausalLM", dict(
        _name_or_path="mistralai/Mixtral-8x7B-v0.1", vocab_size=32000, hidden_size=4096, intermediate_size=14336,
        num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8, num_local_experts=8,
        num_experts_per_tok=2, max_position_embeddings=32768, rms_norm_eps=1e-5, router_aux_loss_coef=0.02,
        bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)),
    "t5-v1_1-small": ("T5Config", "T5ForConditionalGeneration", dict(
        _name_or_path="google/t5-v1_1-small", vocab_size=32128, d_model=512, d_kv=64, d_ff=1024, num_layers=8,
        num_decoder_layers=8, num_heads=6, feed_forward_proj="gated-gelu", tie_word_embeddings=False,
        relative_attention_num_buckets=32, dropout_rate=0.1, pad_token_id=0, eos_token_id=1,
        decoder_start_token_id=0)),
    "flan-t5-small": ("T5Config", "T5ForConditionalGeneration", dict(
        _name_or_path="google/flan-t5-small", vocab_size=32128, d_model=512, d_kv=64, d_ff=1024, num_layers=8,
        num_decoder_layers=8, num_heads=6, feed_forward_proj="gated-gelu", tie_word_embeddings=False,
        relative_attention_num_buckets=32, relative_attention_max_distance=128, dropout_rate=0.1,
        pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)),
}


def meta_count(config_path: Path) -> tuple[int, str]:
    """(parameters, class) of the file's first ``architectures`` class, built on the meta device."""
    import torch
    import transformers

    cfg = transformers.AutoConfig.from_pretrained(config_path)
    cls = getattr(transformers, cfg.architectures[0])
    with torch.device("meta"):
        model = cls(cfg)
    return sum(p.numel() for p in model.parameters()), cls.__name__


def write_configs() -> None:
    """Write every config with its class's ``to_json_file``, keeping the published ``tie_word_embeddings``.

    transformers 5 forces ``T5Config.tie_word_embeddings`` to true whatever is passed (its
    ``__post_init__``), so a v1.1/Flan-T5 file written by it would lose the published ``false``; the
    published value is put back, as the checkpoints' own files (written by transformers 4) have it.
    """
    import transformers

    for stem, (cfg_cls, model_cls, kw) in CONFIGS.items():
        kw = dict(kw)
        name = kw.pop("_name_or_path")
        cfg = getattr(transformers, cfg_cls)(**kw, architectures=[model_cls])
        cfg._name_or_path = name
        path = HERE / f"{stem}-config.json"
        cfg.to_json_file(path)
        data = json.loads(path.read_text())
        if "tie_word_embeddings" in kw and data.get("tie_word_embeddings") != kw["tie_word_embeddings"]:
            data["tie_word_embeddings"] = kw["tie_word_embeddings"]
            path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def record_meta_counts() -> None:
    """Count every config of tests/data on the meta device with the installed transformers; add it to the table."""
    import torch
    import transformers

    table_path = HERE.parent / "expected_param_counts.json"
    table = json.loads(table_path.read_text()) if table_path.exists() else {}
    version = f"transformers {transformers.__version__}, torch {torch.__version__}"
    for path in sorted(HERE.glob("*-config.json")) + sorted(HERE.parent.glob("*-config.json")):
        n, cls = meta_count(path)
        entry = table.setdefault(str(path.relative_to(HERE.parent)), {})
        entry["class"] = cls
        entry.setdefault("meta_device", {})[version] = n
        print(f"{path.name:40} {cls:28} {n:>18,}  ({version})")
    table_path.write_text(json.dumps(table, indent=2, sort_keys=True) + "\n")


def main(argv: list[str]) -> int:
    if "--count-only" not in argv:
        write_configs()
    record_meta_counts()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
